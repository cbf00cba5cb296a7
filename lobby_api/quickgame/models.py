"""Quick-game tables, matchmaking tickets and top-ups.

The engine keeps the live table and its seat sessions (``tables``,
``seat_sessions``); these rows are the lobby's side: which tables are quick
games of which city and stake, which tickets wait for a seat, which chips were
added, which tables asked for bots and which bot services are watching. The seats the lobby opened at them (paid for from a wallet, settled back
once) are settlement's :class:`~lobby_api.settlement.models.LobbySeatRow`.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from engine_server.store import metadata as _metadata  # noqa: F401  (naming convention first)
from engine_server.store.types import UTCDateTime
from lobby_api.settlement import models as _seats  # noqa: F401  (lobby_seats, which top-ups name)

__all__ = [
    "BotDeskRow",
    "BotRequestRow",
    "QuickTableRow",
    "QuickTableStatus",
    "TicketRow",
    "TicketStatus",
    "TopUpRow",
    "TopUpState",
]


class QuickTableStatus(StrEnum):
    #: The buy-in is in escrow; CreateTable/SeatPlayer are not confirmed yet.
    OPENING = "opening"
    OPEN = "open"
    #: Nobody is left: the lobby is closing it on the engine.
    CLOSING = "closing"
    CLOSED = "closed"
    #: The engine refused to open it; the buy-in went back.
    FAILED = "failed"


class TicketStatus(StrEnum):
    WAITING = "waiting"
    #: A seat is reserved and SeatPlayer is under way.
    SEATING = "seating"
    SEATED = "seated"
    EXPIRED = "expired"
    CANCELLED = "cancelled"


class TopUpState(StrEnum):
    PENDING = "pending"
    DONE = "done"
    REFUNDED = "refunded"


def _one_of(column: str, enum: type[StrEnum]) -> str:
    return f"{column} IN ({', '.join(repr(m.value) for m in enum)})"


class QuickTableRow(SQLModel, table=True):
    """A private quick-game table the lobby opened on the engine (never listed)."""

    __tablename__ = "quick_tables"
    __table_args__ = (
        sa.CheckConstraint(_one_of("status", QuickTableStatus), name="status"),
        sa.Index("ix_quick_tables_city_stake_level_status", "city", "stake_level", "status"),
        sa.Index("ix_quick_tables_finished_at", "finished_at"),
        # The tables being opened, by node (counted at every placement: opening_by_node).
        sa.Index("ix_quick_tables_status_node_id", "status", "node_id"),
    )

    table_id: str = Field(primary_key=True, max_length=64)
    opener_player_id: str = Field(foreign_key="players.id", max_length=64)
    city: str = Field(foreign_key="cities.id", max_length=32)
    stake_level: str = Field(foreign_key="stake_levels.id", max_length=32)
    #: The opener's client seed (kept so an interrupted CreateTable can be retried as is).
    client_seed: str = Field(max_length=64)
    status: str = Field(default=QuickTableStatus.OPENING.value, max_length=16)
    #: The engine node chosen to open it (None: the lobby's STUD_LOBBY_ENGINE, no node being
    #: registered). Once the engine created it, its own ``tables.node_id`` names the owner.
    node_id: str | None = Field(default=None, max_length=64)
    #: The table's hands up to this number have had their rake moved to the house.
    raked_through: int = Field(default=0, sa_type=sa.BigInteger)
    created_at: datetime = Field(sa_type=UTCDateTime)
    closed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    #: Closed, every seat settled and every rake moved: the sweep ignores it from then on.
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class TicketRow(SQLModel, table=True):
    """A request to sit in at a quick game of the player's city and a stake level.

    Its buy-in waits in ``hold:tickets/{id}`` until a seat is found (then it
    moves to the table's escrow) or the ticket expires or is cancelled (then it
    goes back to the wallet).
    """

    __tablename__ = "tickets"
    __table_args__ = (
        sa.CheckConstraint(_one_of("status", TicketStatus), name="status"),
        sa.CheckConstraint("buy_in > 0", name="buy_in"),
        sa.Index(
            "ix_tickets_status_city_stake_level_created_at",
            "status",
            "city",
            "stake_level",
            "created_at",
        ),
        sa.Index("ix_tickets_player_id_created_at", "player_id", "created_at"),
    )

    id: str = Field(primary_key=True, max_length=64)
    player_id: str = Field(foreign_key="players.id", max_length=64)
    city: str = Field(foreign_key="cities.id", max_length=32)
    stake_level: str = Field(foreign_key="stake_levels.id", max_length=32)
    buy_in: int = Field(sa_type=sa.BigInteger)
    status: str = Field(default=TicketStatus.WAITING.value, max_length=16)
    table_id: str | None = Field(default=None, max_length=64)
    seat_session_id: str | None = Field(default=None, max_length=64)
    #: Sit at this table only (a table that asked for bots, :class:`BotRequestRow`);
    #: None: any quick table of the city and stake level.
    for_table_id: str | None = Field(default=None, max_length=64)
    expires_at: datetime = Field(sa_type=UTCDateTime)
    created_at: datetime = Field(sa_type=UTCDateTime)
    updated_at: datetime = Field(sa_type=UTCDateTime)


class TopUpRow(SQLModel, table=True):
    """Chips added between hands (the engine's AddChips ``request_id`` is this id)."""

    __tablename__ = "topups"
    __table_args__ = (
        sa.CheckConstraint(_one_of("state", TopUpState), name="state"),
        sa.CheckConstraint("amount > 0", name="amount"),
    )

    id: str = Field(primary_key=True, max_length=64)
    seat_session_id: str = Field(
        foreign_key="lobby_seats.seat_session_id", max_length=64, index=True
    )
    player_id: str = Field(foreign_key="players.id", max_length=64)
    amount: int = Field(sa_type=sa.BigInteger)
    state: str = Field(default=TopUpState.PENDING.value, max_length=16)
    created_at: datetime = Field(sa_type=UTCDateTime)


class BotRequestRow(SQLModel, table=True):
    """A player alone at a quick table asked for bots: fill it to ``players`` players.

    The bot desks (:class:`BotDeskRow`) list the tables that still miss players and send
    bots of the table's city with tickets for that table only (``TicketRow.for_table_id``).
    Withdrawn, the row is deleted; a closed table's row no longer lists.
    """

    __tablename__ = "bot_requests"
    __table_args__ = (sa.CheckConstraint("players >= 2", name="players"),)

    table_id: str = Field(primary_key=True, foreign_key="quick_tables.table_id", max_length=64)
    player_id: str = Field(foreign_key="players.id", max_length=64)
    #: Players the table should have, the asker included.
    players: int
    created_at: datetime = Field(sa_type=UTCDateTime)


class BotDeskRow(SQLModel, table=True):
    """A bot service watching for requests for bots: one row per city and stake level it
    serves, touched at each of its polls. A desk not seen for a while no longer counts."""

    __tablename__ = "bot_desks"
    __table_args__ = (
        sa.Index("ix_bot_desks_city_stake_level_seen_at", "city", "stake_level", "seen_at"),
        sa.CheckConstraint("bots >= 0", name="bots"),
    )

    desk: str = Field(primary_key=True, max_length=64)
    city: str = Field(primary_key=True, foreign_key="cities.id", max_length=32)
    stake_level: str = Field(primary_key=True, foreign_key="stake_levels.id", max_length=32)
    seen_at: datetime = Field(sa_type=UTCDateTime)
    #: Bots it can still send to one table of this city and level, as its latest poll said
    #: (distinct accounts: a bot sits once at a table). The lobby promises no more than the
    #: fresh desks' sum; 0: none now (a row from before desks said it, too).
    bots: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
