"""The engine's tables: what a restart needs and what the lobby reads.

Rows are SQLModel table models on the shared metadata
(:mod:`engine_server.store.metadata`). Ids are strings chosen by the caller
(the lobby's seat-session ids) or by :mod:`engine_server.store.repository`
(``t-…``, ``sp-…``, ``h-…``). Timestamps are aware UTC datetimes
(:class:`~engine_server.store.types.UTCDateTime`). Chip amounts, hand
numbers and nonces are 64-bit. Status columns are plain strings restricted by
CHECK constraints to the values of the ``StrEnum`` next to each model.

There are no ORM relationships on purpose: the store runs on asyncio, where a
lazy load is an error, and every query the engine needs is written out in the
repository.

>>> TableRow.__tablename__, HandPlayerRow.__tablename__
('tables', 'hand_players')
>>> sorted(c.name for c in HandPlayerRow.__table__.primary_key.columns)
['hand_id', 'seat']
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from engine_server.store import metadata as _metadata  # noqa: F401  (convention first)
from engine_server.store.types import UTCDateTime

__all__ = [
    "ADDRESS_LENGTH",
    "DEFAULT_NODE_ID",
    "ID_LENGTH",
    "ChipAdditionRow",
    "CloseReason",
    "DrainHold",
    "EngineNodeRow",
    "HandActionRow",
    "HandPlayerRow",
    "HandRow",
    "HandState",
    "NodeState",
    "SeatSessionRemovalRow",
    "SeatSessionRow",
    "SeatSessionState",
    "SeedPairRow",
    "SeedPairState",
    "TableRow",
    "TableStatus",
]

#: The longest id the store accepts (the lobby's ids are 1-64 characters).
ID_LENGTH = 64
#: The longest address an engine node advertises (host:port, or a URL).
ADDRESS_LENGTH = 255
#: The node that owns a table when none is named: a single-node install's only node, and the
#: owner of every table created before nodes were recorded (migration 0006).
DEFAULT_NODE_ID = "main"


class NodeState(StrEnum):
    """Where an engine node is in its life (``EngineNodeRow.state``)."""

    #: Holds its lease and is loading its tables; not chosen for new tables yet.
    STARTING = "starting"
    #: Serving its tables; the lobby may open new tables there.
    SERVING = "serving"
    #: Draining (ops' Drain, or stopping): serves its tables, opens no new ones.
    DRAINING = "draining"
    #: Stopped cleanly: its lease is free at once (a new process with its id may start).
    STOPPED = "stopped"


class TableStatus(StrEnum):
    """A table's status, as TableStatus in table.proto."""

    WAITING = "waiting"
    PLAYING = "playing"
    PAUSING = "pausing"
    PAUSED = "paused"
    CLOSING = "closing"
    CLOSED = "closed"


class DrainHold(StrEnum):
    """Why a table is paused when a drain, not ops, paused it (``TableRow.drain_hold``)."""

    #: Ops drained the node (AdminService.Drain): the table stays paused after a restart,
    #: until ops resume it.
    DRAIN = "drain"
    #: The node stopped (SIGTERM): the pause ends with that node; the next start deals again.
    SHUTDOWN = "shutdown"


class SeedPairState(StrEnum):
    """Where a seed pair is in its life: committed ahead, dealing, or done."""

    #: Pre-generated; only its commitment is shown. Becomes current at the next rotation.
    NEXT = "next"
    #: Deals the table's hands now.
    CURRENT = "current"
    #: Rotated away; its dealer seed is revealed.
    RETIRED = "retired"


class SeatSessionState(StrEnum):
    """A seat session's state, as SeatSessionState in table.proto."""

    OPEN = "open"
    #: Leaving: plays out the running hand, then closes (persisted so a restart honours it).
    CLOSING = "closing"
    CLOSED = "closed"


class CloseReason(StrEnum):
    """Why a seat session closed, as SeatSessionCloseReason in table.proto."""

    LEFT = "left"
    REMOVED = "removed"
    TABLE_CLOSED = "table_closed"
    #: Tournament table: no chips left after a hand (nothing is paid out: chips are not money).
    BUSTED = "busted"
    #: Tournament table: moved to another table with his stack (MovePlayer).
    MOVED = "moved"


class HandState(StrEnum):
    """A hand's state: running until it ends or is cancelled."""

    RUNNING = "running"
    COMPLETE = "complete"
    CANCELLED = "cancelled"


def _one_of(column: str, enum: type[StrEnum]) -> str:
    values = ", ".join(f"'{member.value}'" for member in enum)
    return f"{column} IN ({values})"


# Partial-index predicates, written once for both dialects.
_SESSION_OCCUPIES_SEAT = sa.text("state <> 'closed'")
_PAIR_IS_LIVE = sa.text("state <> 'retired'")


class EngineNodeRow(SQLModel, table=True):
    """An engine node: where it is reached and its lease (docs/operations.md).

    One process at a time holds a node id: it claims the row when it starts (the lease is free
    when the node stopped or ``expires_at`` has passed), bumping ``epoch``, and renews
    ``heartbeat_at``/``expires_at`` while it runs. A renewal names the epoch it claimed, so a
    process whose node was claimed again by another process finds out and stops.
    """

    __tablename__ = "engine_nodes"
    __table_args__ = (
        sa.CheckConstraint(_one_of("state", NodeState), name="state"),
        sa.CheckConstraint("epoch >= 1", name="epoch"),
    )

    #: STUD_ENGINE_NODE_ID.
    id: str = Field(primary_key=True, max_length=ID_LENGTH)
    #: Bumped by every process that claims the node (its fencing number).
    epoch: int = Field(sa_type=sa.BigInteger)
    state: str = Field(max_length=16)
    #: Where the lobby calls AdminService (STUD_ENGINE_ADVERTISE_ADMIN).
    admin_address: str = Field(max_length=ADDRESS_LENGTH)
    #: The gRPC address players are given (STUD_ENGINE_ADVERTISE_GRPC).
    grpc_address: str = Field(max_length=ADDRESS_LENGTH)
    #: The Connect / gRPC-Web URL browsers are given (STUD_ENGINE_ADVERTISE_WEB).
    web_url: str = Field(max_length=ADDRESS_LENGTH)
    #: When the current process claimed the node.
    started_at: datetime = Field(sa_type=UTCDateTime)
    #: Its last renewal.
    heartbeat_at: datetime = Field(sa_type=UTCDateTime)
    #: The lease runs until then (the last renewal plus STUD_ENGINE_LEASE_SECONDS).
    expires_at: datetime = Field(sa_type=UTCDateTime)


class TableRow(SQLModel, table=True):
    """A table: its settings, status and counters (the live state is in the engine)."""

    __tablename__ = "tables"
    __table_args__ = (
        sa.CheckConstraint(_one_of("status", TableStatus), name="status"),
        sa.CheckConstraint("hands_started >= 0", name="hands_started"),
        # A tournament table has no buy-in range (the director gives each player his chips).
        sa.CheckConstraint(
            "(min_buy_in > 0 AND max_buy_in >= min_buy_in)"
            " OR (tournament_id IS NOT NULL AND min_buy_in = 0 AND max_buy_in = 0)",
            name="buy_in",
        ),
        sa.CheckConstraint("owner_epoch >= 1", name="owner_epoch"),
        sa.CheckConstraint(
            f"drain_hold IS NULL OR ({_one_of('drain_hold', DrainHold)}"
            " AND status IN ('pausing', 'paused'))",
            name="drain_hold",
        ),
        # ListTables: newest first, keyset on (created_at, id).
        sa.Index("ix_tables_created_at_id", "created_at", "id"),
        # A node's tables by status: its open ones counted at every placement without
        # reading its closed ones (node_loads), and its tables listed.
        sa.Index("ix_tables_node_id_status", "node_id", "status"),
    )

    id: str = Field(primary_key=True, max_length=ID_LENGTH)
    #: The engine node that owns the table (created it; loads and serves it). Not a foreign
    #: key: tables name their node before it has ever registered (migration 0006).
    node_id: str = Field(
        default=DEFAULT_NODE_ID,
        max_length=ID_LENGTH,
        sa_column_kwargs={"server_default": DEFAULT_NODE_ID},
    )
    #: The table's fencing number: bumped each time it changes hands (taken over from a node
    #: whose lease ran out, moved between live nodes). The owning process checks it, with
    #: ``node_id``, under the row lock of every write of the table (engine_server.store.nodes).
    owner_epoch: int = Field(
        default=1, sa_type=sa.BigInteger, sa_column_kwargs={"server_default": "1"}
    )
    #: CreateTable's request_id: a retry finds the table the first call created.
    create_request_id: str = Field(max_length=ID_LENGTH, unique=True)
    profile: str = Field(max_length=ID_LENGTH)
    #: The overrides the table was created with: settings of docs/rules.md §1, with JSON values
    #: as in docs/hand-scripts.md §2.
    rule_overrides: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON)
    ante: int = Field(sa_type=sa.BigInteger)
    bring_in: int = Field(sa_type=sa.BigInteger)
    small_bet: int = Field(sa_type=sa.BigInteger)
    big_bet: int = Field(sa_type=sa.BigInteger)
    private: bool = False
    min_buy_in: int = Field(sa_type=sa.BigInteger)
    max_buy_in: int = Field(sa_type=sa.BigInteger)
    opener_player_id: str | None = Field(default=None, max_length=ID_LENGTH)
    labels: dict[str, str] = Field(default_factory=dict, sa_type=sa.JSON)
    #: As ops see it (GetTable, ListTables), a drain's pause included.
    status: str = Field(default=TableStatus.WAITING.value, max_length=16, index=True)
    #: Set while a drain holds the table paused (DrainHold: what a restart does with it); None
    #: for ops' own pauses and every other status.
    drain_hold: str | None = Field(default=None, max_length=16)
    #: The last hand's button seat (None before the first hand).
    button_seat: int | None = None
    #: Hands started so far; the next hand's number is hands_started + 1.
    hands_started: int = Field(default=0, sa_type=sa.BigInteger)
    #: Mirrors the pair whose state is "current" (kept equal by the repository; not a foreign
    #: key, which would make tables and seed_pairs reference each other).
    current_seed_pair_id: str = Field(max_length=ID_LENGTH)
    created_at: datetime = Field(sa_type=UTCDateTime)
    closed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    #: The lobby's tournament, for a tournament table (None: a cash table).
    tournament_id: str | None = Field(default=None, max_length=ID_LENGTH, index=True)
    #: A tournament table's own state, kept so a restart goes on where it was:
    #: ``{"table_name", "table_number", "level", "stakes" (the next hand's: the running
    #: level's, or one SetStakes set during the last hand), "hand_held", "info" (the
    #: director's last SetTournamentInfo), "places" ({player_id: [place, prize]})}``.
    tournament: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON(none_as_null=True))


class SeedPairRow(SQLModel, table=True):
    """A dealer seed with its commitment and the client seed it deals with (docs/fairness.md §3).

    ``dealer_seed`` is secret until ``revealed_at`` is set: never show it before.
    """

    __tablename__ = "seed_pairs"
    __table_args__ = (
        sa.CheckConstraint(_one_of("state", SeedPairState), name="state"),
        sa.CheckConstraint("next_nonce >= 0", name="next_nonce"),
        sa.UniqueConstraint("table_id", "ordinal"),
        # At most one current and one next pair per table.
        sa.Index(
            "uq_seed_pairs_table_id_live_state",
            "table_id",
            "state",
            unique=True,
            sqlite_where=_PAIR_IS_LIVE,
            postgresql_where=_PAIR_IS_LIVE,
        ),
    )

    id: str = Field(primary_key=True, max_length=ID_LENGTH)
    table_id: str = Field(foreign_key="tables.id", max_length=ID_LENGTH)
    #: 1, 2, 3, … in the order the table's pairs were generated.
    ordinal: int
    state: str = Field(max_length=16)
    dealer_seed: str = Field(max_length=64)
    commitment: str = Field(max_length=64)
    client_seed: str = Field(max_length=64)
    #: The nonce the next hand dealt with this pair gets (gapless from 0).
    next_nonce: int = Field(default=0, sa_type=sa.BigInteger)
    revealed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = Field(sa_type=UTCDateTime)


class SeatSessionRow(SQLModel, table=True):
    """One player's stay at one seat; the lobby settles it once closed (keyed by its id)."""

    __tablename__ = "seat_sessions"
    __table_args__ = (
        sa.CheckConstraint(_one_of("state", SeatSessionState), name="state"),
        sa.CheckConstraint(
            f"close_reason IS NULL OR {_one_of('close_reason', CloseReason)}", name="close_reason"
        ),
        sa.CheckConstraint("seat >= 1", name="seat"),
        sa.CheckConstraint("buy_in > 0 AND chips_in >= buy_in AND stack >= 0", name="chips"),
        # One player per seat and one seat per player among sessions not yet closed.
        sa.Index(
            "uq_seat_sessions_table_id_seat_occupied",
            "table_id",
            "seat",
            unique=True,
            sqlite_where=_SESSION_OCCUPIES_SEAT,
            postgresql_where=_SESSION_OCCUPIES_SEAT,
        ),
        sa.Index(
            "uq_seat_sessions_table_id_player_id_occupied",
            "table_id",
            "player_id",
            unique=True,
            sqlite_where=_SESSION_OCCUPIES_SEAT,
            postgresql_where=_SESSION_OCCUPIES_SEAT,
        ),
        # ListSeatSessions: oldest first, keyset on (opened_at, id).
        sa.Index("ix_seat_sessions_opened_at_id", "opened_at", "id"),
        sa.Index("ix_seat_sessions_table_id_state", "table_id", "state"),
    )

    #: The lobby's seat_session_id (SeatPlayer's idempotency key).
    id: str = Field(primary_key=True, max_length=ID_LENGTH)
    table_id: str = Field(foreign_key="tables.id", max_length=ID_LENGTH)
    player_id: str = Field(max_length=ID_LENGTH, index=True)
    display_name: str = Field(max_length=ID_LENGTH)
    seat: int
    #: The chips he sat down with (SeatPlayer's buy_in).
    buy_in: int = Field(sa_type=sa.BigInteger)
    #: The buy-in plus every chip addition.
    chips_in: int = Field(sa_type=sa.BigInteger)
    #: The stack as of the last finished hand; once closed, the amount due to the player.
    stack: int = Field(sa_type=sa.BigInteger)
    state: str = Field(default=SeatSessionState.OPEN.value, max_length=16)
    close_reason: str | None = Field(default=None, max_length=16)
    opened_at: datetime = Field(sa_type=UTCDateTime)
    closed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    #: Closed "busted" (tournament): the hand he lost his last chip in, and his chips at its
    #: start (the director places two players out in one hand by them).
    busted_hand_number: int | None = Field(default=None, sa_type=sa.BigInteger)
    busted_start_stack: int | None = Field(default=None, sa_type=sa.BigInteger)


class ChipAdditionRow(SQLModel, table=True):
    """One AddChips, keyed by the lobby's request_id so a retry never adds twice."""

    __tablename__ = "chip_additions"
    __table_args__ = (sa.CheckConstraint("amount > 0", name="amount"),)

    request_id: str = Field(primary_key=True, max_length=ID_LENGTH)
    seat_session_id: str = Field(foreign_key="seat_sessions.id", max_length=ID_LENGTH, index=True)
    amount: int = Field(sa_type=sa.BigInteger)
    created_at: datetime = Field(sa_type=UTCDateTime)
    #: The session's chips in and stack right after the addition: the first answer, given
    #: again to a retry however late it comes (None in rows written before they were kept).
    chips_in_after: int | None = Field(default=None, sa_type=sa.BigInteger)
    stack_after: int | None = Field(default=None, sa_type=sa.BigInteger)


class SeatSessionRemovalRow(SQLModel, table=True):
    """One RemovePlayer, keyed by the seat session it removed, with the answer it got.

    A retry (the same session, reason and ``by_player``) gets that answer again whenever it
    comes; the reason is kept as the request gave it (the session's ``close_reason`` says
    only "removed", or "left" for a removal ``by_player``).
    """

    __tablename__ = "seat_session_removals"
    __table_args__ = (
        sa.CheckConstraint(_one_of("state", SeatSessionState), name="state"),
        sa.CheckConstraint("chips_in >= 0 AND stack >= 0", name="chips"),
    )

    seat_session_id: str = Field(
        foreign_key="seat_sessions.id", primary_key=True, max_length=ID_LENGTH
    )
    reason: str = Field(sa_type=sa.Text)
    #: It relayed the player's own leave (the lobby's Leave): the session closes as left.
    by_player: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    #: The session as the first call answered: closing (he plays out his hand) or closed.
    state: str = Field(max_length=16)
    chips_in: int = Field(sa_type=sa.BigInteger)
    stack: int = Field(sa_type=sa.BigInteger)
    close_reason: str | None = Field(default=None, max_length=16)
    created_at: datetime = Field(sa_type=UTCDateTime)
    #: A MovePlayer (tournament): the director's request_id, and where he goes
    #: (``{"table", "grpc_address", "web_url"}``); None for a RemovePlayer.
    request_id: str | None = Field(default=None, max_length=ID_LENGTH, unique=True)
    destination: dict[str, str] | None = Field(default=None, sa_type=sa.JSON(none_as_null=True))


class HandRow(SQLModel, table=True):
    """One hand: inserted running when it starts, completed or cancelled when it ends.

    ``cards`` lists every card dealt as ``{"seat": int | None, "card": "Ah",
    "deck_index": int, "up": bool, "street": "third"}``; ``actions``, ``pots`` and
    ``result`` are the engine's JSON (docs/hand-scripts.md §4); ``settings`` holds the rule
    settings and stakes the hand was played with.
    """

    __tablename__ = "hands"
    __table_args__ = (
        sa.CheckConstraint(_one_of("state", HandState), name="state"),
        sa.CheckConstraint("hand_number >= 1 AND nonce >= 0", name="numbers"),
        sa.UniqueConstraint("table_id", "hand_number"),
        # Gapless nonces: a nonce is used by exactly one hand of its pair.
        sa.UniqueConstraint("seed_pair_id", "nonce"),
        sa.Index("ix_hands_state", "state"),
    )

    id: str = Field(primary_key=True, max_length=ID_LENGTH)
    table_id: str = Field(foreign_key="tables.id", max_length=ID_LENGTH)
    hand_number: int = Field(sa_type=sa.BigInteger)
    seed_pair_id: str = Field(foreign_key="seed_pairs.id", max_length=ID_LENGTH)
    commitment: str = Field(max_length=64)
    client_seed: str = Field(max_length=64)
    nonce: int = Field(sa_type=sa.BigInteger)
    state: str = Field(default=HandState.RUNNING.value, max_length=16)
    button_seat: int
    profile: str = Field(max_length=ID_LENGTH)
    settings: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON)
    started_at: datetime = Field(sa_type=UTCDateTime)
    ended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    cards: list[dict[str, Any]] | None = Field(default=None, sa_type=sa.JSON)
    actions: list[Any] | None = Field(default=None, sa_type=sa.JSON)
    pots: list[Any] | None = Field(default=None, sa_type=sa.JSON)
    rake: int | None = Field(default=None, sa_type=sa.BigInteger)
    result: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)
    phh: str | None = Field(default=None, sa_type=sa.Text)
    cancel_reason: str | None = Field(default=None, sa_type=sa.Text)


class HandPlayerRow(SQLModel, table=True):
    """A seat dealt into a hand; the lobby lists a player's hands by ``player_id``."""

    __tablename__ = "hand_players"
    __table_args__ = (
        sa.CheckConstraint(
            "start_stack >= 0 AND (final_stack IS NULL OR final_stack >= 0)", name="stacks"
        ),
    )

    hand_id: str = Field(foreign_key="hands.id", primary_key=True, max_length=ID_LENGTH)
    seat: int = Field(primary_key=True)
    player_id: str = Field(max_length=ID_LENGTH, index=True)
    seat_session_id: str = Field(foreign_key="seat_sessions.id", max_length=ID_LENGTH, index=True)
    start_stack: int = Field(sa_type=sa.BigInteger)
    #: None while the hand runs; the start stack again when it was cancelled.
    final_stack: int | None = Field(default=None, sa_type=sa.BigInteger)


class HandActionRow(SQLModel, table=True):
    """One action of a hand, written when it was taken, before anyone was told of it.

    ``seq`` numbers the hand's actions from 0, as in ``HandRow.actions``; ``action`` is its
    record there (docs/hand-scripts.md §4). A hand a crash left running is cancelled on the
    next start with these actions (the hand's row gets them only when it ends).
    """

    __tablename__ = "hand_actions"
    __table_args__ = (sa.CheckConstraint("seq >= 0", name="seq"),)

    hand_id: str = Field(foreign_key="hands.id", primary_key=True, max_length=ID_LENGTH)
    seq: int = Field(primary_key=True)
    action: dict[str, Any] = Field(sa_type=sa.JSON)
    recorded_at: datetime = Field(sa_type=UTCDateTime)
