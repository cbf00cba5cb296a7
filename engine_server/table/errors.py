"""Refusals of table commands, each with the reason clients match on.

The reasons are ``stud.v1.ErrorReason`` names without their prefix; the kind
says which gRPC status goes with it (the API layer maps it).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["DATABASE_UNAVAILABLE", "ErrorKind", "TableError"]


class ErrorKind(StrEnum):
    INVALID_ARGUMENT = "invalid_argument"
    NOT_FOUND = "not_found"
    FAILED_PRECONDITION = "failed_precondition"
    PERMISSION_DENIED = "permission_denied"
    UNAUTHENTICATED = "unauthenticated"
    ABORTED = "aborted"
    RESOURCE_EXHAUSTED = "resource_exhausted"
    UNAVAILABLE = "unavailable"


#: The reason of a refusal because the engine's database did not answer (``UNAVAILABLE``).
DATABASE_UNAVAILABLE = "DATABASE_UNAVAILABLE"


class TableError(Exception):
    """A refused command: nothing changed.

    >>> error = TableError.precondition("NOT_YOUR_TURN", "seat 4 acted, seat 5 is to act",
    ...                                 turn_seat="5")
    >>> error.kind, error.reason, error.metadata
    (<ErrorKind.FAILED_PRECONDITION: 'failed_precondition'>, 'NOT_YOUR_TURN', {'turn_seat': '5'})
    """

    def __init__(self, kind: ErrorKind, reason: str, message: str, **metadata: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.reason = reason
        self.message = message
        self.metadata = metadata

    @classmethod
    def database_unavailable(cls, cause: str) -> TableError:
        """The store could not reach its database (``cause``: the driver's words): nothing
        changed, and the same call may succeed in a few seconds.

        >>> TableError.database_unavailable("connection refused").kind
        <ErrorKind.UNAVAILABLE: 'unavailable'>
        """
        return cls(
            ErrorKind.UNAVAILABLE,
            DATABASE_UNAVAILABLE,
            f"the engine's database is unavailable ({cause}); nothing was changed, try again "
            "in a few seconds",
        )

    @property
    def database_outage(self) -> bool:
        """Whether this refusal only says the database is away for now."""
        return self.reason == DATABASE_UNAVAILABLE

    @classmethod
    def invalid(cls, reason: str, message: str, **metadata: str) -> TableError:
        return cls(ErrorKind.INVALID_ARGUMENT, reason, message, **metadata)

    @classmethod
    def not_found(cls, reason: str, message: str, **metadata: str) -> TableError:
        return cls(ErrorKind.NOT_FOUND, reason, message, **metadata)

    @classmethod
    def precondition(cls, reason: str, message: str, **metadata: str) -> TableError:
        return cls(ErrorKind.FAILED_PRECONDITION, reason, message, **metadata)

    @classmethod
    def on_other_node(cls, table_id: str, owner: str) -> TableError:
        """An admin call naming a table another engine node serves (metadata "node": its id).

        >>> TableError.on_other_node("t1", "b").metadata
        {'table': 'tables/t1', 'node': 'b'}
        """
        return cls.precondition(
            "TABLE_ON_OTHER_NODE",
            f"tables/{table_id} is served by engine node {owner}: call that node",
            table=f"tables/{table_id}",
            node=owner,
        )

    @classmethod
    def denied(cls, reason: str, message: str, **metadata: str) -> TableError:
        return cls(ErrorKind.PERMISSION_DENIED, reason, message, **metadata)
