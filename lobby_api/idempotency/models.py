"""The idempotency record of a money-moving request (``Idempotency-Key``)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from engine_server.store import metadata as _metadata  # noqa: F401  (naming convention first)
from engine_server.store.types import UTCDateTime

__all__ = ["IdempotencyRow", "IdempotencyState"]


class IdempotencyState(StrEnum):
    #: Money moved; the rest of the request (engine calls) is not finished yet.
    PENDING = "pending"
    #: Finished: ``status_code`` and ``response`` are the answer every retry gets.
    DONE = "done"


def _one_of(column: str, enum: type[StrEnum]) -> str:
    return f"{column} IN ({', '.join(repr(m.value) for m in enum)})"


class IdempotencyRow(SQLModel, table=True):
    """A money-moving request by its ``Idempotency-Key``: a retry gets the first answer.

    Inserted in the same transaction that moves the money, so the key and the
    movement exist together or not at all. ``fingerprint`` (SHA-256 of the
    method, path and body) tells a retry from a different request reusing the
    key. While ``pending``, the request holding ``locked_until`` finishes it;
    after that lease a retry (or the sweep) resumes it from ``reference``.
    """

    __tablename__ = "idempotency_keys"
    __table_args__ = (
        sa.CheckConstraint(_one_of("state", IdempotencyState), name="state"),
        sa.Index("ix_idempotency_keys_state_locked_until", "state", "locked_until"),
    )

    player_id: str = Field(primary_key=True, max_length=64)
    key: str = Field(primary_key=True, max_length=255)
    operation: str = Field(max_length=32)
    fingerprint: str = Field(max_length=64)
    state: str = Field(default=IdempotencyState.PENDING.value, max_length=16)
    #: What the operation is resuming from (a seat session, a ticket, a top-up).
    reference: str | None = Field(default=None, max_length=64)
    status_code: int | None = None
    response: Any | None = Field(default=None, sa_type=sa.JSON)
    locked_until: datetime = Field(sa_type=UTCDateTime)
    created_at: datetime = Field(sa_type=UTCDateTime)
