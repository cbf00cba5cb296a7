"""The lobby's one read port onto the engine's tables: named questions, lobby-owned answers.

The engine owns its schema (:mod:`engine_server.store.models`, :mod:`engine_server.store.nodes`);
the lobby owns its questions. This is the only module of ``lobby_api`` that imports either:
everything else asks here, and gets its answers as the lobby's own frozen values (never the
engine's rows), with the engine's states turned into yes/no questions (``is_closed``,
``is_running`` …), so no other module compares an engine status with a string. The lobby
only ever reads these tables; it changes the engine's state through AdminService.

Two kinds of question:

- **Conditions** (``…_closed(column)``): an SQL condition on a column of the lobby's, for the
  lobby to put in its own statements (one statement, one round trip, and inside the same
  transaction as the lobby rows it locks).
- **Reads** (``async``): run on the caller's session, so inside the caller's transaction.

The questions, by subject:

seat sessions
    :func:`seat_session_closed` (condition), :func:`seat_session`, :func:`seat_stacks`,
    :func:`display_names`, :func:`running_hand_of`
hands
    :func:`hands_ended_after` (condition), :func:`hands_ended_since`, :func:`dealt_hand`,
    :func:`player_hands_page`, :func:`player_hands_at_table`, :func:`hand_outcomes_since` (a
    tournament director's view of each hand's end: stacks at its start and end, busts)
seed pairs
    :func:`seed_pair`, :func:`seed_pairs_of`, :func:`rotated_pairs`
tables
    :func:`closed_table`, :func:`table_owner`, :func:`hands_started`, :func:`tournament_tables`
    (a tournament's tables: level, hold, whether a hand runs)
engine nodes
    :func:`live_node_ids`, :func:`least_loaded_live_node`, :func:`node`
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.store.models import (
    ID_LENGTH,
    EngineNodeRow,
    HandPlayerRow,
    HandRow,
    HandState,
    SeatSessionRow,
    SeatSessionState,
    SeedPairRow,
    SeedPairState,
    TableRow,
    TableStatus,
)
from engine_server.store.nodes import live_node_ids as _live_node_ids_at
from engine_server.store.nodes import node_loads
from engine_server.store.types import UTCDateTime, utc_now

__all__ = [
    "ID_LENGTH",
    "BustedSeat",
    "ClosedTable",
    "EndedHand",
    "EngineNode",
    "HandOutcome",
    "HandRecord",
    "HandSeat",
    "RotatedPair",
    "SeatSession",
    "SeedPair",
    "TournamentTable",
    "closed_table",
    "dealt_hand",
    "display_names",
    "hand_outcomes_since",
    "hands_ended_after",
    "hands_ended_since",
    "hands_started",
    "least_loaded_live_node",
    "live_node_ids",
    "lock_placement",
    "node",
    "player_hands_at_table",
    "player_hands_page",
    "rotated_pairs",
    "running_hand_of",
    "seat_session",
    "seat_session_closed",
    "seat_stacks",
    "seed_pair",
    "seed_pairs_of",
    "table_created",
    "table_has_players",
    "table_owner",
    "tournament_tables",
]

# ------------------------------------------------------------------------ the answers


@dataclass(frozen=True, slots=True)
class SeatSession:
    """A seat session as the engine keeps it: its stack now (the final stack once closed)."""

    id: str
    stack: int
    #: Seated and staying (not leaving, not closed).
    is_open: bool
    #: Closed by the engine: ``stack`` is final and waits in the table's escrow.
    is_closed: bool


@dataclass(frozen=True, slots=True)
class EndedHand:
    """A hand that is over: its number, and the rake it took (0 for a cancelled hand)."""

    id: str
    hand_number: int
    rake: int


@dataclass(frozen=True, slots=True)
class ClosedTable:
    """A table the engine has closed."""

    #: How many hands it started (every one of them is over).
    hands_started: int
    closed_at: datetime | None


@dataclass(frozen=True, slots=True)
class EngineNode:
    """A registered engine node and the addresses it advertises."""

    id: str
    #: Where the lobby calls its AdminService.
    admin_address: str
    #: What players are given: gRPC and Connect / gRPC-Web.
    grpc_address: str
    web_url: str


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A hand as the engine stored it (the fields the lobby reads)."""

    id: str
    table_id: str
    hand_number: int
    seed_pair_id: str
    commitment: str
    client_seed: str
    nonce: int
    #: running, complete or cancelled (given to players as is).
    state: str
    button_seat: int
    profile: str
    settings: dict[str, Any]
    started_at: datetime
    ended_at: datetime | None
    cards: list[dict[str, Any]] | None
    actions: list[Any] | None
    pots: list[Any] | None
    rake: int | None
    result: dict[str, Any] | None
    cancel_reason: str | None

    @property
    def is_running(self) -> bool:
        return self.state == HandState.RUNNING.value

    @property
    def is_complete(self) -> bool:
        return self.state == HandState.COMPLETE.value

    @property
    def is_cancelled(self) -> bool:
        return self.state == HandState.CANCELLED.value


@dataclass(frozen=True, slots=True)
class HandSeat:
    """One seat dealt into a hand."""

    hand_id: str
    seat: int
    player_id: str
    seat_session_id: str
    start_stack: int
    #: None until the hand is over.
    final_stack: int | None


@dataclass(frozen=True, slots=True)
class BustedSeat:
    """A tournament player out in a hand: his seat session closed BUSTED."""

    seat_session_id: str
    player_id: str
    seat: int
    #: his chips at the hand's start (two out in one hand: more chips places higher)
    start_stack: int


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """One hand's end as the tournament director needs it, without a stream."""

    hand_id: str
    hand_number: int
    #: cancelled (CancelHand, an engine restart): every stack is back to its start
    is_cancelled: bool
    ended_at: datetime | None
    #: every seat dealt in, by seat: its stack at the start and the end of the hand
    seats: tuple[HandSeat, ...]
    #: the seats whose players busted in it, by seat
    busted: tuple[BustedSeat, ...]


@dataclass(frozen=True, slots=True)
class TournamentTable:
    """One table of a tournament as the engine keeps it."""

    table_id: str
    tournament_id: str
    table_number: int
    #: the level the next hand (or the running one) is dealt at
    level: int
    #: hand-for-hand: no new hand starts until the director releases it
    hand_held: bool
    hands_started: int
    #: a hand is running (the director waits for none before releasing hand-for-hand)
    hand_running: bool
    is_closed: bool
    #: the seats taken (open or closing sessions)
    players: int


@dataclass(frozen=True, slots=True)
class SeedPair:
    """A table's seed pair; ``dealer_seed`` may be given out only once ``revealed_at`` is set."""

    id: str
    table_id: str
    ordinal: int
    #: next, current or retired (given to players as is).
    state: str
    dealer_seed: str
    commitment: str
    client_seed: str
    next_nonce: int
    revealed_at: datetime | None

    @property
    def is_next(self) -> bool:
        """Committed ahead of a rotation: its client seed is provisional."""
        return self.state == SeedPairState.NEXT.value

    @property
    def is_revealed(self) -> bool:
        return self.revealed_at is not None


@dataclass(frozen=True, slots=True)
class RotatedPair:
    """A seed pair rotated away while its table dealt on: its dealer seed is revealed, so the
    deck of every hand it dealt can be recomputed by anyone — every down card, folded or not."""

    commitment: str
    revealed_at: datetime
    #: The table's hands dealt from it, by hand number.
    hand_numbers: tuple[int, ...]
    #: Those of them the player asked about was dealt into.
    player_hand_numbers: tuple[int, ...]


def _hand(row: HandRow) -> HandRecord:
    return HandRecord(
        id=row.id,
        table_id=row.table_id,
        hand_number=row.hand_number,
        seed_pair_id=row.seed_pair_id,
        commitment=row.commitment,
        client_seed=row.client_seed,
        nonce=row.nonce,
        state=row.state,
        button_seat=row.button_seat,
        profile=row.profile,
        settings=row.settings,
        started_at=row.started_at,
        ended_at=row.ended_at,
        cards=row.cards,
        actions=row.actions,
        pots=row.pots,
        rake=row.rake,
        result=row.result,
        cancel_reason=row.cancel_reason,
    )


def _hand_seat(row: HandPlayerRow) -> HandSeat:
    return HandSeat(
        hand_id=row.hand_id,
        seat=row.seat,
        player_id=row.player_id,
        seat_session_id=row.seat_session_id,
        start_stack=row.start_stack,
        final_stack=row.final_stack,
    )


def _seed_pair(row: SeedPairRow) -> SeedPair:
    return SeedPair(
        id=row.id,
        table_id=row.table_id,
        ordinal=row.ordinal,
        state=row.state,
        dealer_seed=row.dealer_seed,
        commitment=row.commitment,
        client_seed=row.client_seed,
        next_nonce=row.next_nonce,
        revealed_at=row.revealed_at,
    )


# ---------------------------------------------------------------------- seat sessions


def seat_session_closed(seat_session_id: Any) -> Any:
    """Condition: the engine has closed the seat session ``seat_session_id`` names (a column
    or an expression of the caller's statement)."""
    return (
        sa.exists()
        .where(
            col(SeatSessionRow.id) == seat_session_id,
            col(SeatSessionRow.state) == SeatSessionState.CLOSED.value,
        )
        .correlate_except(SeatSessionRow)
    )


def table_created(table_id: Any) -> Any:
    """Condition: the engine has created the table ``table_id`` names (a column or an
    expression of the caller's statement)."""
    return sa.exists().where(col(TableRow.id) == table_id).correlate_except(TableRow)


def table_has_players(table_id: Any) -> Any:
    """Condition: a player holds a seat (a session not closed) at the engine's table
    ``table_id`` names."""
    return (
        sa.exists()
        .where(
            col(SeatSessionRow.table_id) == table_id,
            col(SeatSessionRow.state) != SeatSessionState.CLOSED.value,
        )
        .correlate_except(SeatSessionRow)
    )


async def seat_session(session: AsyncSession, seat_session_id: str) -> SeatSession | None:
    """The seat session (None: the engine has not opened it)."""
    row = await session.get(SeatSessionRow, seat_session_id)
    if row is None:
        return None
    return SeatSession(
        id=row.id,
        stack=row.stack,
        is_open=row.state == SeatSessionState.OPEN.value,
        is_closed=row.state == SeatSessionState.CLOSED.value,
    )


async def seat_stacks(session: AsyncSession, seat_session_ids: Iterable[str]) -> dict[str, int]:
    """The stack of each of these seat sessions the engine has opened, by seat session id."""
    ids = list(seat_session_ids)
    if not ids:
        return {}
    rows = (
        await session.exec(
            select(SeatSessionRow.id, SeatSessionRow.stack).where(col(SeatSessionRow.id).in_(ids))
        )
    ).all()
    return {row[0]: int(row[1]) for row in rows}


async def display_names(session: AsyncSession, seat_session_ids: Iterable[str]) -> dict[str, str]:
    """The name each of these seat sessions played under, by seat session id."""
    rows = (
        await session.exec(
            select(SeatSessionRow.id, SeatSessionRow.display_name).where(
                col(SeatSessionRow.id).in_(list(seat_session_ids))
            )
        )
    ).all()
    return dict(rows)


async def running_hand_of(session: AsyncSession, seat_session_id: str) -> str | None:
    """The id of the running hand the seat session is dealt into, if one is."""
    return (
        await session.exec(
            select(HandRow.id)
            .join(HandPlayerRow, col(HandPlayerRow.hand_id) == col(HandRow.id))
            .where(
                col(HandRow.state) == HandState.RUNNING.value,
                col(HandPlayerRow.seat_session_id) == seat_session_id,
            )
        )
    ).first()


# ------------------------------------------------------------------------------ hands


def hands_ended_after(table_id: Any, after_number: Any) -> Any:
    """Condition: the table ``table_id`` names has a hand numbered above ``after_number`` that
    is over (columns or expressions of the caller's statement)."""
    return (
        sa.exists()
        .where(
            col(HandRow.table_id) == table_id,
            col(HandRow.hand_number) > after_number,
            col(HandRow.state) != HandState.RUNNING.value,
        )
        .correlate_except(HandRow)
    )


async def hands_ended_since(
    session: AsyncSession, table_id: str, after_number: int
) -> list[EndedHand]:
    """The table's hands numbered above ``after_number``, in order, up to (not including) the
    first one still running: later hands cannot have ended before it."""
    rows = (
        await session.exec(
            select(HandRow)
            .where(col(HandRow.table_id) == table_id, col(HandRow.hand_number) > after_number)
            .order_by(col(HandRow.hand_number))
        )
    ).all()
    ended = []
    for row in rows:
        if row.state == HandState.RUNNING.value:
            break
        rake = (row.rake or 0) if row.state == HandState.COMPLETE.value else 0
        ended.append(EndedHand(row.id, row.hand_number, rake))
    return ended


async def dealt_hand(
    session: AsyncSession, hand_id: str
) -> tuple[HandRecord, list[HandSeat]] | None:
    """The hand and its seats, by seat (None: no such hand)."""
    row = await session.get(HandRow, hand_id)
    if row is None:
        return None
    seats = (
        await session.exec(
            select(HandPlayerRow)
            .where(HandPlayerRow.hand_id == hand_id)
            .order_by(col(HandPlayerRow.seat))
        )
    ).all()
    return _hand(row), [_hand_seat(seat) for seat in seats]


async def player_hands_page(
    session: AsyncSession,
    player_id: str,
    limit: int,
    before: tuple[datetime, str] | None = None,
) -> list[tuple[HandRecord, HandSeat]]:
    """The player's hands and his seat in each, newest first (``started_at``, then id), at
    most ``limit``; with ``before``, only those after that ``(started_at, id)`` in this order."""
    query = (
        select(HandRow, HandPlayerRow)
        .join(HandPlayerRow, col(HandPlayerRow.hand_id) == col(HandRow.id))
        .where(HandPlayerRow.player_id == player_id)
    )
    if before is not None:
        when, last_id = before
        query = query.where(
            sa.or_(
                col(HandRow.started_at) < when,
                sa.and_(col(HandRow.started_at) == when, col(HandRow.id) < last_id),
            )
        )
    query = query.order_by(col(HandRow.started_at).desc(), col(HandRow.id).desc()).limit(limit)
    return [(_hand(hand), _hand_seat(me)) for hand, me in (await session.exec(query)).all()]


async def player_hands_at_table(
    session: AsyncSession, table_id: str, player_id: str
) -> list[tuple[HandRecord, HandSeat]]:
    """The table's hands the player was dealt into and his seat in each, by hand number."""
    rows = (
        await session.exec(
            select(HandRow, HandPlayerRow)
            .join(HandPlayerRow, col(HandPlayerRow.hand_id) == col(HandRow.id))
            .where(HandRow.table_id == table_id, HandPlayerRow.player_id == player_id)
            .order_by(col(HandRow.hand_number))
        )
    ).all()
    return [(_hand(hand), _hand_seat(me)) for hand, me in rows]


async def hand_outcomes_since(
    session: AsyncSession, table_id: str, after_number: int
) -> list[HandOutcome]:
    """The table's hands numbered above ``after_number`` that have ended, in order, up to
    (not including) the first one still running: each with its seats' stacks at its start
    and end and who busted in it. The director remembers the last number it handled and
    asks again from there: every hand's end is seen once, in order, by whichever replica
    asks."""
    ended = await hands_ended_since(session, table_id, after_number)
    if not ended:
        return []
    ids = [hand.id for hand in ended]
    hands = {
        row.id: row
        for row in (await session.exec(select(HandRow).where(col(HandRow.id).in_(ids)))).all()
    }
    seats: dict[str, list[HandSeat]] = {hand_id: [] for hand_id in ids}
    dealt = await session.exec(
        select(HandPlayerRow)
        .where(col(HandPlayerRow.hand_id).in_(ids))
        .order_by(col(HandPlayerRow.seat))
    )
    for row in dealt.all():
        seats[row.hand_id].append(_hand_seat(row))
    numbers = [hand.hand_number for hand in ended]
    busted: dict[int, list[BustedSeat]] = {number: [] for number in numbers}
    out = await session.exec(
        select(SeatSessionRow)
        .where(
            SeatSessionRow.table_id == table_id,
            col(SeatSessionRow.busted_hand_number).in_(numbers),
        )
        .order_by(col(SeatSessionRow.seat))
    )
    for gone in out.all():
        assert gone.busted_hand_number is not None
        busted[gone.busted_hand_number].append(
            BustedSeat(gone.id, gone.player_id, gone.seat, gone.busted_start_stack or 0)
        )
    return [
        HandOutcome(
            hand_id=hand.id,
            hand_number=hand.hand_number,
            is_cancelled=hands[hand.id].state == HandState.CANCELLED.value,
            ended_at=hands[hand.id].ended_at,
            seats=tuple(seats[hand.id]),
            busted=tuple(busted[hand.hand_number]),
        )
        for hand in ended
    ]


# ------------------------------------------------------------------------- seed pairs


async def seed_pair(session: AsyncSession, seed_pair_id: str) -> SeedPair | None:
    row = await session.get(SeedPairRow, seed_pair_id)
    return None if row is None else _seed_pair(row)


async def seed_pairs_of(session: AsyncSession, table_id: str) -> list[SeedPair]:
    """The table's seed pairs, oldest first."""
    rows = (
        await session.exec(
            select(SeedPairRow)
            .where(SeedPairRow.table_id == table_id)
            .order_by(col(SeedPairRow.ordinal))
        )
    ).all()
    return [_seed_pair(row) for row in rows]


async def rotated_pairs(session: AsyncSession, table_id: str, player_id: str) -> list[RotatedPair]:
    """The table's pairs revealed by a rotation (not by its closing), oldest first, with the
    hands each dealt and those ``player_id`` was dealt into."""
    pairs = (
        await session.exec(
            select(SeedPairRow)
            .where(
                SeedPairRow.table_id == table_id,
                SeedPairRow.state == SeedPairState.RETIRED.value,
                col(SeedPairRow.revealed_at).is_not(None),
            )
            .order_by(col(SeedPairRow.ordinal))
        )
    ).all()
    if not pairs:
        return []
    hands = (
        await session.exec(
            select(HandRow.id, HandRow.seed_pair_id, HandRow.hand_number)
            .where(col(HandRow.seed_pair_id).in_([p.id for p in pairs]))
            .order_by(col(HandRow.hand_number))
        )
    ).all()
    his = set(
        (
            await session.exec(
                select(HandPlayerRow.hand_id).where(
                    col(HandPlayerRow.hand_id).in_([hand_id for hand_id, _, _ in hands]),
                    HandPlayerRow.player_id == player_id,
                )
            )
        ).all()
    )
    answers = []
    for pair in pairs:
        assert pair.revealed_at is not None
        dealt = [
            (number, hand_id in his) for hand_id, pair_id, number in hands if pair_id == pair.id
        ]
        answers.append(
            RotatedPair(
                commitment=pair.commitment,
                revealed_at=pair.revealed_at,
                hand_numbers=tuple(number for number, _ in dealt),
                player_hand_numbers=tuple(number for number, mine in dealt if mine),
            )
        )
    return answers


# ----------------------------------------------------------------------------- tables


async def closed_table(session: AsyncSession, table_id: str) -> ClosedTable | None:
    """The table if the engine has closed it (None: open, or no such table)."""
    row = await session.get(TableRow, table_id)
    if row is None or row.status != TableStatus.CLOSED.value:
        return None
    return ClosedTable(hands_started=row.hands_started, closed_at=row.closed_at)


async def tournament_tables(session: AsyncSession, tournament_id: str) -> list[TournamentTable]:
    """The tournament's tables (closed ones too), by table number."""
    tables = (
        await session.exec(select(TableRow).where(TableRow.tournament_id == tournament_id))
    ).all()
    if not tables:
        return []
    ids = [t.id for t in tables]
    running = set(
        (
            await session.exec(
                select(HandRow.table_id).where(
                    col(HandRow.table_id).in_(ids), HandRow.state == HandState.RUNNING.value
                )
            )
        ).all()
    )
    seated = (
        await session.exec(
            select(SeatSessionRow.table_id, sa.func.count())
            .where(
                col(SeatSessionRow.table_id).in_(ids),
                SeatSessionRow.state != SeatSessionState.CLOSED.value,
            )
            .group_by(col(SeatSessionRow.table_id))
        )
    ).all()
    players = {table_id: int(count) for table_id, count in seated}
    answer = []
    for row in tables:
        kept = row.tournament or {}
        answer.append(
            TournamentTable(
                table_id=row.id,
                tournament_id=tournament_id,
                table_number=int(kept.get("table_number", 0)),
                level=int(kept.get("level", 1)),
                hand_held=bool(kept.get("hand_held")),
                hands_started=row.hands_started,
                hand_running=row.id in running,
                is_closed=row.status == TableStatus.CLOSED.value,
                players=players.get(row.id, 0),
            )
        )
    return sorted(answer, key=lambda t: (t.table_number, t.table_id))


async def hands_started(session: AsyncSession, table_ids: Iterable[str]) -> dict[str, int]:
    """How many hands each of these tables has started, by table id (tables the engine has
    created only)."""
    ids = list(table_ids)
    if not ids:
        return {}
    rows = (
        await session.exec(
            select(TableRow.id, TableRow.hands_started).where(col(TableRow.id).in_(ids))
        )
    ).all()
    return {row[0]: int(row[1]) for row in rows}


async def table_owner(session: AsyncSession, table_id: str) -> str | None:
    """The node that owns the table (None: the engine has not created it)."""
    return (await session.exec(select(TableRow.node_id).where(TableRow.id == table_id))).first()


# ----------------------------------------------------------------------- engine nodes


#: PostgreSQL's advisory lock of placement (a transaction's): one choice at a time, whichever
#: lobby replica makes it ("StudPlac")
PLACEMENT_LOCK = 0x5374_7564_506C_6163


async def lock_placement(session: AsyncSession) -> None:
    """Take the placement lock for the rest of ``session``'s write transaction (the one
    recording the choice), before reading anything a choice depends on: on PostgreSQL an
    advisory lock held to that transaction's end, so the next choice (on any lobby replica)
    reads the counts with this one's table in them; SQLite's write transactions run one at a
    time already. Two quick games opened at the same moment thus never read the same counts.
    """
    if session.bind is not None and session.bind.dialect.name == "postgresql":
        await session.exec(  # type: ignore[call-overload]
            sa.select(sa.func.pg_advisory_xact_lock(PLACEMENT_LOCK))
        )


@cache
def _live_node_ids() -> sa.Select[Any]:
    return _live_node_ids_at(sa.bindparam("now", type_=UTCDateTime()))  # type: ignore[arg-type]


async def live_node_ids(session: AsyncSession) -> list[str]:
    """The ids of the live nodes (lease not run out, serving), by id: nothing counted."""
    rows = (
        await session.exec(_live_node_ids(), params={"now": utc_now()})  # type: ignore[call-overload]
    ).all()
    return [str(row.id) for row in rows]


@cache
def _node_loads() -> sa.Select[Any]:
    """:func:`~engine_server.store.nodes.node_loads` at the bound ``now``, built once (a new
    table is placed at every quick game; building the statement cost more than running it)."""
    return node_loads(sa.bindparam("now", type_=UTCDateTime()))  # type: ignore[arg-type]


async def least_loaded_live_node(
    session: AsyncSession, pending: Mapping[str, tuple[int, int]] | None = None
) -> str | None:
    """The live node (lease not run out, serving) with the fewest seated players, then the
    fewest open tables, then by id (None: no node is live). ``pending``: by node, the players
    and tables the lobby has placed there that the engine does not count yet (a quick table
    not created there yet, its opener not seated yet). Read both under
    :func:`lock_placement`.
    """
    # exec() runs any statement; SQLModel types it for its own select() and DML only.
    rows = (
        await session.exec(_node_loads(), params={"now": utc_now()})  # type: ignore[call-overload]
    ).all()
    if not rows:
        return None
    waiting = pending or {}

    def load(row: Any) -> tuple[int, int, str]:
        players, tables = waiting.get(row.id, (0, 0))
        return (int(row.players) + players, int(row.open_tables) + tables, str(row.id))

    return str(min(rows, key=load).id)


async def node(session: AsyncSession, node_id: str) -> EngineNode | None:
    row = await session.get(EngineNodeRow, node_id)
    if row is None:
        return None
    return EngineNode(row.id, row.admin_address, row.grpc_address, row.web_url)
