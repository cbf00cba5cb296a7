"""Tournaments, their entries and tables, the templates they open from, and the director's
leases.

Every piece of tournament state is a row here (no replica keeps any in memory), and each
"exactly once" rule of the director and the money is a constraint, not a convention:

- one open sit & go per template: ``tournaments.open_template`` holds the template's name
  while the tournament registers and NULL after; it is UNIQUE (NULLs do not collide);
- one live entry per player and tournament: ``tournament_entries.active_player`` holds the
  player's id until he unregisters, UNIQUE with the tournament's id;
- one prize (or share of a cancelled pool) per entry: ``tournament_prizes`` is keyed by the
  entry, and its ledger key ``tprize:{entry_id}`` is unique too;
- one director at a time per tournament: :class:`TournamentLeaseRow`, taken by a
  conditional UPDATE (the holder's lease ran out, or it is the holder's own).

The prize pool is the ledger account ``escrow:tournaments/{id}`` and the fees go to
``house:fees`` (:mod:`lobby_api.tournaments.money`).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from engine_server.store import metadata as _metadata  # noqa: F401  (naming convention first)
from engine_server.store.types import UTCDateTime
from lobby_api.accounts import models as _players  # noqa: F401  (players, which entries name)
from lobby_api.catalog import models as _cities  # noqa: F401  (cities, which tournaments name)

__all__ = [
    "EntryStatus",
    "PrizeKind",
    "TableStatus",
    "TournamentEntryRow",
    "TournamentKind",
    "TournamentLeaseRow",
    "TournamentPrizeRow",
    "TournamentRow",
    "TournamentStatus",
    "TournamentTableRow",
    "TournamentTemplateRow",
]


class TournamentKind(StrEnum):
    SIT_AND_GO = "sit_and_go"
    SCHEDULED = "scheduled"


class TournamentStatus(StrEnum):
    REGISTERING = "registering"
    #: Started: the field is closed (but for late registration); the director seats it.
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class EntryStatus(StrEnum):
    REGISTERED = "registered"
    PLAYING = "playing"
    BUSTED = "busted"
    #: In at the end: the winner, or a player still in when ops cancelled a running event.
    FINISHED = "finished"
    UNREGISTERED = "unregistered"


class TableStatus(StrEnum):
    #: Drawn and recorded; CreateTable not confirmed yet.
    PLANNED = "planned"
    OPEN = "open"
    #: Broken (its players moved) or closed at the end.
    CLOSED = "closed"


class PrizeKind(StrEnum):
    #: Won by place (payouts.py).
    PRIZE = "prize"
    #: A share of a cancelled tournament's remaining pool, by chips.
    SHARE = "share"


def _one_of(column: str, enum: type[StrEnum]) -> str:
    return f"{column} IN ({', '.join(repr(m.value) for m in enum)})"


class TournamentTemplateRow(SQLModel, table=True):
    """A tournament structure from ``seeds/tournaments.json``, by its name (upserted at start).

    ``keep_open`` sit & go templates always have one registering tournament.
    """

    __tablename__ = "tournament_templates"

    name: str = Field(primary_key=True, max_length=32)
    #: The full structure, as :func:`lobby_api.tournaments.structure.parse_structure` takes it.
    structure: dict[str, Any] = Field(sa_type=sa.JSON)
    keep_open: bool = False
    position: int = 0


class TournamentRow(SQLModel, table=True):
    """One tournament: its structure (fixed at creation) and where it stands."""

    __tablename__ = "tournaments"
    __table_args__ = (
        sa.CheckConstraint(_one_of("kind", TournamentKind), name="kind"),
        sa.CheckConstraint(_one_of("status", TournamentStatus), name="status"),
        sa.CheckConstraint("buy_in >= 0 AND fee >= 0", name="money"),
        sa.CheckConstraint("starting_chips > 0", name="starting_chips"),
        sa.CheckConstraint("2 <= min_players AND min_players <= max_players", name="players"),
        sa.CheckConstraint("table_size >= 2", name="table_size"),
        sa.Index("ix_tournaments_status_starts_at", "status", "starts_at"),
    )

    id: str = Field(primary_key=True, max_length=32)
    name: str = Field(max_length=80)
    kind: str = Field(max_length=16)
    status: str = Field(default=TournamentStatus.REGISTERING.value, max_length=16)
    profile: str = Field(max_length=32)
    rule_overrides: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON)
    buy_in: int = Field(sa_type=sa.BigInteger)
    fee: int = Field(sa_type=sa.BigInteger)
    starting_chips: int = Field(sa_type=sa.BigInteger)
    min_players: int
    max_players: int
    table_size: int
    #: The level schedule: [{ante, bring_in, small_bet, big_bet, minutes | hands}, …].
    levels: list[dict[str, Any]] = Field(sa_type=sa.JSON)
    #: Open to the players of this city only (None: open to all).
    city: str | None = Field(default=None, foreign_key="cities.id", max_length=32)
    starts_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    late_registration_levels: int = 0
    #: Brackets [{max_entrants, percentages}] (None: the default table by entrants).
    payout_table: list[dict[str, Any]] | None = Field(default=None, sa_type=sa.JSON)
    template: str | None = Field(default=None, max_length=32)
    #: The template's name while this tournament is its open sit & go (UNIQUE), else None.
    open_template: str | None = Field(default=None, max_length=32, unique=True)
    #: The secret key of the seat draw and of the moves (seating.py), hex.
    draw_key: str = Field(max_length=64)
    #: The level in force (0-based) and when it began (the director's level clock).
    current_level: int = 0
    level_started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    #: Entrants when the field closed (the payouts depend on it).
    entrants: int | None = None
    #: Set once every starting seat is confirmed on the engines.
    seated_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    cancel_reason: str | None = Field(default=None, max_length=200)
    created_at: datetime = Field(sa_type=UTCDateTime)
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class TournamentEntryRow(SQLModel, table=True):
    """A player's entry: registration, then his seat and chips, then his place and prize."""

    __tablename__ = "tournament_entries"
    __table_args__ = (
        sa.CheckConstraint(_one_of("status", EntryStatus), name="status"),
        # One live entry per player: unregistering sets active_player to NULL.
        sa.UniqueConstraint("tournament_id", "active_player"),
        sa.Index("ix_tournament_entries_tournament_id_status", "tournament_id", "status"),
        sa.Index("ix_tournament_entries_player_id", "player_id"),
    )

    id: str = Field(primary_key=True, max_length=32)
    tournament_id: str = Field(foreign_key="tournaments.id", max_length=32)
    player_id: str = Field(foreign_key="players.id", max_length=64)
    active_player: str | None = Field(default=None, max_length=64)
    status: str = Field(default=EntryStatus.REGISTERED.value, max_length=16)
    buy_in: int = Field(sa_type=sa.BigInteger)
    fee: int = Field(sa_type=sa.BigInteger)
    #: Tournament chips (the director's last record; the engine's stack is the live one).
    chips: int | None = Field(default=None, sa_type=sa.BigInteger)
    place: int | None = None
    prize: int | None = Field(default=None, sa_type=sa.BigInteger)
    table_id: str | None = Field(default=None, max_length=64)
    seat: int | None = None
    #: The engine's seat session at his table (idempotent SeatPlayer on this id).
    seat_session_id: str | None = Field(default=None, max_length=64, unique=True)
    #: A move decided by the director (balancing, breaking): the table he leaves and his seat
    #: session there (``table_id``, ``seat`` and ``seat_session_id`` already name where he
    #: goes); cleared once the engine closed that session MOVED and ``chips`` holds its stack.
    move_from_table: str | None = Field(default=None, max_length=64)
    move_from_session: str | None = Field(default=None, max_length=64)
    #: Set once the engine confirmed his seat.
    seated_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    registered_at: datetime = Field(sa_type=UTCDateTime)
    unregistered_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    busted_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    #: When the engine acknowledged his place and prize at his table (``AwardPlace``);
    #: None while a placed player is still to be told (the director tells him every pass).
    place_told_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class TournamentTableRow(SQLModel, table=True):
    """A table of a tournament (recorded before the engine is asked to create it)."""

    __tablename__ = "tournament_tables"
    __table_args__ = (
        sa.CheckConstraint(_one_of("status", TableStatus), name="status"),
        sa.UniqueConstraint("tournament_id", "number"),
    )

    table_id: str = Field(primary_key=True, max_length=64)
    tournament_id: str = Field(foreign_key="tournaments.id", max_length=32)
    #: The order tables were opened in, from 1 (ties in balancing go to the first opened).
    number: int
    status: str = Field(default=TableStatus.PLANNED.value, max_length=16)
    #: The engine node chosen for it (None: STUD_LOBBY_ENGINE).
    node_id: str | None = Field(default=None, max_length=64)
    #: Hands the table had started when the level in force began (a hands-level counts the
    #: hands started since, at the busiest table).
    level_hands_base: int = 0
    #: The last hand of the table whose busts the director has recorded.
    hands_recorded: int = 0
    created_at: datetime = Field(sa_type=UTCDateTime)
    closed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class TournamentPrizeRow(SQLModel, table=True):
    """Money paid from the prize pool to one entry: at most one row per entry, ever."""

    __tablename__ = "tournament_prizes"
    __table_args__ = (
        sa.CheckConstraint(_one_of("kind", PrizeKind), name="kind"),
        sa.CheckConstraint("amount >= 0", name="amount"),
    )

    entry_id: str = Field(primary_key=True, foreign_key="tournament_entries.id", max_length=32)
    tournament_id: str = Field(foreign_key="tournaments.id", max_length=32, index=True)
    kind: str = Field(max_length=16)
    amount: int = Field(sa_type=sa.BigInteger)
    #: The place it was won at (None for a share of a cancelled pool).
    place: int | None = None
    created_at: datetime = Field(sa_type=UTCDateTime)


class TournamentLeaseRow(SQLModel, table=True):
    """Which replica's director works on a tournament now, until when."""

    __tablename__ = "tournament_leases"

    tournament_id: str = Field(primary_key=True, foreign_key="tournaments.id", max_length=32)
    holder: str = Field(max_length=64)
    until: datetime = Field(sa_type=UTCDateTime)
