"""The store's refusals and outages as the table layer's errors (``TableError``), for the
adapters (:mod:`engine_server.store.adapter`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from engine_server.store import errors as store_errors
from engine_server.store.database import is_outage
from engine_server.table.errors import ErrorKind, TableError

__all__ = ["other_node", "reused", "translated"]

_KINDS = {
    "TABLE_NOT_FOUND": ErrorKind.NOT_FOUND,
    "SEAT_SESSION_NOT_FOUND": ErrorKind.NOT_FOUND,
    "HAND_NOT_FOUND": ErrorKind.NOT_FOUND,
    "INVALID_ARGUMENT": ErrorKind.INVALID_ARGUMENT,
    "IDEMPOTENCY_KEY_REUSED": ErrorKind.INVALID_ARGUMENT,
    "BUY_IN_OUT_OF_RANGE": ErrorKind.INVALID_ARGUMENT,
    "INVALID_SEAT": ErrorKind.INVALID_ARGUMENT,
    "INVALID_PAGE_TOKEN": ErrorKind.INVALID_ARGUMENT,
    # a write refused because another process claimed this node: it stops serving
    "TABLE_MOVED": ErrorKind.UNAVAILABLE,
}


@asynccontextmanager
async def translated() -> AsyncIterator[None]:
    try:
        yield
    except store_errors.StoreError as error:
        reason = getattr(error, "reason", "INVALID_ARGUMENT")
        raise TableError(
            _KINDS.get(reason, ErrorKind.FAILED_PRECONDITION), reason, str(error)
        ) from None
    except Exception as error:
        if not is_outage(error):
            raise
        # The database is away: a refusal the caller may retry, not an internal error.
        text = str(error)
        raise TableError.database_unavailable(
            text.splitlines()[0] if text else type(error).__name__
        ) from None


@asynccontextmanager
async def reused(field: str) -> AsyncIterator[None]:
    """An idempotency key reused, naming the request field that holds it."""
    try:
        yield
    except store_errors.IdempotencyKeyReused as error:
        raise TableError.invalid(
            "IDEMPOTENCY_KEY_REUSED", str(error), field=error.field or field
        ) from None


@asynccontextmanager
async def other_node(table_id: str) -> AsyncIterator[None]:
    try:
        yield
    except store_errors.TableOnOtherNode as error:
        raise TableError.on_other_node(table_id, error.owner) from None
