"""Why the store refused a call.

Every refusal is a :class:`StoreError` whose ``reason`` is the name of a
``stud.v1.ErrorReason`` without its prefix, so the gRPC adapter can put it in
an ``ErrorInfo`` unchanged:

>>> error = SeatTaken("seat 3 of table t-1 is taken")
>>> error.reason, str(error)
('SEAT_TAKEN', 'seat 3 of table t-1 is taken')
>>> isinstance(TableNotFound("t-9"), NotFoundError)
True
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "AlreadySeated",
    "BuyInOutOfRange",
    "HandInProgress",
    "HandNotFound",
    "IdempotencyKeyReused",
    "InvalidPageToken",
    "InvalidRecord",
    "NodeFenced",
    "NodeNotLive",
    "NotFoundError",
    "SeatSessionClosed",
    "SeatSessionNotFound",
    "SeatTaken",
    "StaleHand",
    "StoreError",
    "TableClosed",
    "TableExists",
    "TableMoved",
    "TableNotFound",
    "TableOnOtherNode",
    "TableState",
]


class StoreError(Exception):
    """A refused store call; nothing was written."""

    #: The stud.v1.ErrorReason name (without ``ERROR_REASON_``).
    reason: ClassVar[str] = "INVALID_ARGUMENT"


class NotFoundError(StoreError):
    """The row named does not exist."""


class TableNotFound(NotFoundError):
    reason = "TABLE_NOT_FOUND"


class SeatSessionNotFound(NotFoundError):
    reason = "SEAT_SESSION_NOT_FOUND"


class HandNotFound(NotFoundError):
    reason = "STALE_HAND"


class IdempotencyKeyReused(StoreError):
    """An idempotency key came back with different parameters."""

    reason = "IDEMPOTENCY_KEY_REUSED"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        #: The parameter that differs, where it is not the key itself (None: the key's field).
        self.field = field


class TableExists(StoreError):
    """CreateTable named a table id another request already created."""

    reason = "INVALID_ARGUMENT"


class TableOnOtherNode(StoreError):
    """The table belongs to another engine node (``owner``): only that node serves it."""

    reason = "TABLE_ON_OTHER_NODE"

    def __init__(self, message: str, owner: str) -> None:
        super().__init__(message)
        self.owner = owner


class NodeFenced(StoreError):
    """This process's node was claimed by another process (its epoch moved on): the
    process may write nothing more for the node's tables."""

    reason = "TABLE_MOVED"


class NodeNotLive(StoreError):
    """A table cannot go to this node: it is not serving with its lease held (or it is the
    table's node already)."""

    reason = "INVALID_ARGUMENT"


class TableMoved(StoreError):
    """The table changed hands (taken over or moved to ``owner``) since this process loaded
    it: the write changed nothing, and this process must stop serving the table (only it;
    the node's other tables are still its own)."""

    reason = "TABLE_MOVED"

    def __init__(self, message: str, owner: str, table_id: str = "") -> None:
        super().__init__(message)
        self.owner = owner
        self.table_id = table_id


class TableClosed(StoreError):
    reason = "TABLE_CLOSED"


class TableState(StoreError):
    """The table's status does not allow the call."""

    reason = "TABLE_STATE"


class SeatTaken(StoreError):
    reason = "SEAT_TAKEN"


class AlreadySeated(StoreError):
    reason = "ALREADY_SEATED"


class SeatSessionClosed(StoreError):
    reason = "SEAT_SESSION_CLOSED"


class BuyInOutOfRange(StoreError):
    reason = "BUY_IN_OUT_OF_RANGE"


class HandInProgress(StoreError):
    reason = "HAND_IN_PROGRESS"


class StaleHand(StoreError):
    """The hand named is not the one the call expects (number, state or seed pair)."""

    reason = "STALE_HAND"


class InvalidRecord(StoreError):
    """A record that does not add up (chips not conserved, unknown seat sessions, …)."""

    reason = "INVALID_ARGUMENT"


class InvalidPageToken(StoreError):
    reason = "INVALID_PAGE_TOKEN"
