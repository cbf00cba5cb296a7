"""The lobby's seats: seat sessions it opened, paid for from a wallet, settled back once.

The engine keeps the seat session itself (``seat_sessions``: seat, stack, open or
closed); a :class:`LobbySeatRow` is the lobby's side of it: who paid how much from which
wallet, whether the engine has confirmed the seat, and whether the closed session's final
stack has been credited back (``settled_at``). Every table domain that seats players from a
wallet (the quick game today) records its seats here, and :mod:`lobby_api.settlement.services`
settles them all the same way.

(``table_id`` keeps its foreign key to ``quick_tables``: the schema predates this package.)
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from engine_server.store import metadata as _metadata  # noqa: F401  (naming convention first)
from engine_server.store.types import UTCDateTime

__all__ = ["LobbySeatRow", "SeatSource", "SeatState"]


class SeatState(StrEnum):
    #: Money in escrow, SeatPlayer not confirmed yet.
    PENDING = "pending"
    SEATED = "seated"
    #: The engine refused the seat; the money went back.
    FAILED = "failed"


class SeatSource(StrEnum):
    QUICKGAME = "quickgame"
    TICKET = "ticket"


def _one_of(column: str, enum: type[StrEnum]) -> str:
    return f"{column} IN ({', '.join(repr(m.value) for m in enum)})"


class LobbySeatRow(SQLModel, table=True):
    """A seat session the lobby opened (its id is the engine's seat_session_id).

    Settled once: ``settled_at`` is set in the transaction that credits the
    closed session's final stack (ledger key ``settle:{seat_session_id}``).
    """

    __tablename__ = "lobby_seats"
    __table_args__ = (
        sa.CheckConstraint(_one_of("state", SeatState), name="state"),
        sa.CheckConstraint(_one_of("source", SeatSource), name="source"),
        sa.CheckConstraint("buy_in > 0", name="buy_in"),
        sa.Index("ix_lobby_seats_table_id_state", "table_id", "state"),
        sa.Index("ix_lobby_seats_player_id_state", "player_id", "state"),
        # The sweep: seated sessions not settled yet.
        sa.Index("ix_lobby_seats_state_settled_at", "state", "settled_at"),
    )

    seat_session_id: str = Field(primary_key=True, max_length=64)
    table_id: str = Field(foreign_key="quick_tables.table_id", max_length=64)
    player_id: str = Field(foreign_key="players.id", max_length=64)
    buy_in: int = Field(sa_type=sa.BigInteger)
    source: str = Field(max_length=16)
    ticket_id: str | None = Field(default=None, max_length=64)
    state: str = Field(default=SeatState.PENDING.value, max_length=16)
    #: The seat the engine gave (None until seated).
    seat: int | None = None
    #: The final stack credited to the wallet (None until settled).
    settled_amount: int | None = Field(default=None, sa_type=sa.BigInteger)
    settled_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(sa_type=UTCDateTime)
