"""Tables: created with their seed pairs, listed, loaded with their seats, paused, closed.

CreateTable is idempotent by the lobby's ``request_id`` (a unique constraint): a retry
returns the table the first call created, the same key with other parameters raises
:class:`~engine_server.store.errors.IdempotencyKeyReused`. A table belongs to one engine node
(``node_id``); the listings and loads take a node to see only its tables.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.ids import new_id
from engine_server.store.base import (
    Transactions,
    check_id,
    for_update,
    running_hand,
    table_row,
)
from engine_server.store.errors import (
    BuyInOutOfRange,
    HandInProgress,
    IdempotencyKeyReused,
    InvalidRecord,
    StoreError,
    TableClosed,
    TableExists,
    TableOnOtherNode,
    TableState,
)
from engine_server.store.models import (
    DEFAULT_NODE_ID,
    CloseReason,
    DrainHold,
    SeatSessionRemovalRow,
    SeatSessionRow,
    SeatSessionState,
    SeedPairRow,
    SeedPairState,
    TableRow,
    TableStatus,
)
from engine_server.store.pages import Page, clamp, decode_token, page_of
from engine_server.store.seeds import SeedPairs, check_client_seed, reveal_current
from engine_server.store.sessions import OCCUPYING, close_row, occupied

__all__ = [
    "DEFAULT_TABLE_PAGE",
    "MAX_TABLE_PAGE",
    "OpenTable",
    "OpeningSeat",
    "StartSettlement",
    "TableClosure",
    "Tables",
]

DEFAULT_TABLE_PAGE = 50
MAX_TABLE_PAGE = 500


@dataclass(frozen=True, slots=True)
class OpenTable:
    """A table to bring to life: its row, its seated players and its seed pairs (open tables
    on start-up; a closed one, with no seated players, when ops look at it)."""

    table: TableRow
    #: Sessions not yet closed (open or closing), by seat.
    sessions: list[SeatSessionRow]
    current_pair: SeedPairRow
    next_pair: SeedPairRow
    #: Those of ``sessions`` ops' RemovePlayer marked closing (paid out as removed, not left;
    #: a removal relaying the player's own leave is not one of them).
    removed: frozenset[str] = frozenset()
    #: Those of ``sessions`` a MovePlayer marked closing, with where they go.
    moves: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StartSettlement:
    """What :meth:`Tables.settle_statuses_on_start` changed, by table id."""

    #: held by the drain of a node that stopped: dealing again
    resumed: list[str]
    #: left pausing with no hand to wait for: now paused
    paused: list[str]


@dataclass(frozen=True, slots=True)
class TableClosure:
    """What :meth:`Tables.close_table` did."""

    table: TableRow
    #: Every session the closing closed, by seat (empty when it was already closed).
    closed_sessions: list[SeatSessionRow]
    #: The dealing pair, its dealer seed revealed.
    revealed: SeedPairRow


def _of_node(node_id: str | None) -> tuple[Any, ...]:
    """The condition "a table of ``node_id``" (none for None: every node's tables)."""
    return () if node_id is None else (col(TableRow.node_id) == node_id,)


async def _same_create(
    session: AsyncSession,
    request_id: str,
    table_id: str | None,
    wanted: Mapping[str, Any],
    client_seed: str,
    node_id: str,
    tournament: Mapping[str, Any] | None = None,
) -> TableRow | None:
    table = (
        await session.exec(select(TableRow).where(TableRow.create_request_id == request_id))
    ).first()
    if table is None:
        return None
    first_pair = (
        await session.exec(
            select(SeedPairRow).where(SeedPairRow.table_id == table.id, SeedPairRow.ordinal == 1)
        )
    ).one()
    differs = [name for name, value in wanted.items() if getattr(table, name) != value]
    # A tournament table's JSON changes as it plays: only its name and number were asked for.
    kept = table.tournament or {}
    if (tournament or None) != (
        {k: kept[k] for k in ("table_name", "table_number")} if kept else None
    ):
        differs.append("tournament")
    if table_id is not None and table_id != table.id:
        differs.append("table_id")
    if first_pair.client_seed != client_seed:
        differs.append("client_seed")
    if differs:
        raise IdempotencyKeyReused(
            f"request_id {request_id!r} created table {table.id} with other "
            f"{', '.join(sorted(differs))}"
        )
    if table.node_id != node_id:
        raise TableOnOtherNode(
            f"request_id {request_id!r} created table {table.id} on node {table.node_id}",
            table.node_id,
        )
    return table


@dataclass(frozen=True, slots=True)
class OpeningSeat:
    """The seat session a new table opens with (its opener's, in the same write)."""

    seat_session_id: str
    player_id: str
    display_name: str
    buy_in: int
    seat: int = 1


def _seat_in_use(opener: OpeningSeat) -> IdempotencyKeyReused:
    return IdempotencyKeyReused(
        f"seat_session_id {opener.seat_session_id!r} was used with other parameters"
    )


_INSERT_TABLE = sa.insert(TableRow.__table__)  # type: ignore[attr-defined]
_INSERT_SEED_PAIR = sa.insert(SeedPairRow.__table__)  # type: ignore[attr-defined]
_INSERT_SEAT_SESSION = sa.insert(SeatSessionRow.__table__)  # type: ignore[attr-defined]


def _values(row: TableRow | SeedPairRow | SeatSessionRow) -> dict[str, Any]:
    """Every column of ``row`` by name, as built (its model's defaults filled), for an INSERT."""
    return {column.key: getattr(row, column.key) for column in row.__table__.columns}  # type: ignore[union-attr]


def _opening_session(table: TableRow, opener: OpeningSeat, now: datetime) -> SeatSessionRow:
    """The opener's session row for a table being created, checked as SeatPlayer checks a
    new session (the table is new: no seat is taken; an id in use fails the INSERT)."""
    check_id("seat_session_id", opener.seat_session_id)
    check_id("player_id", opener.player_id)
    if table.tournament_id is not None:
        raise StoreError("a tournament table opens without a seat")
    if not table.min_buy_in <= opener.buy_in <= table.max_buy_in:
        raise BuyInOutOfRange(
            f"buy-in {opener.buy_in} is outside {table.min_buy_in}..{table.max_buy_in}"
        )
    return SeatSessionRow(
        id=opener.seat_session_id,
        table_id=table.id,
        player_id=opener.player_id,
        display_name=opener.display_name,
        seat=opener.seat,
        buy_in=opener.buy_in,
        chips_in=opener.buy_in,
        stack=opener.buy_in,
        state=SeatSessionState.OPEN.value,
        opened_at=now,
    )


class Tables:
    """The tables' store; ``seeds`` makes the pairs a new table starts with."""

    def __init__(self, tx: Transactions, seeds: SeedPairs) -> None:
        self._tx = tx
        self._seeds = seeds

    async def create_table(self, **fields: Any) -> TableRow:
        """The row of the table :meth:`create_open_table` creates from ``fields`` (or finds,
        for a retry)."""
        return (await self.create_open_table(**fields)).table

    async def create_open_table(
        self,
        *,
        request_id: str,
        profile: str,
        ante: int,
        bring_in: int,
        small_bet: int,
        big_bet: int,
        min_buy_in: int,
        max_buy_in: int,
        client_seed: str,
        table_id: str | None = None,
        rule_overrides: Mapping[str, Any] | None = None,
        private: bool = False,
        opener_player_id: str | None = None,
        labels: Mapping[str, str] | None = None,
        node_id: str = DEFAULT_NODE_ID,
        tournament_id: str | None = None,
        tournament: Mapping[str, Any] | None = None,
        opener: OpeningSeat | None = None,
    ) -> OpenTable:
        """Create a table owned by ``node_id`` with its current and next seed pairs
        (idempotent by ``request_id``), and ``opener``'s seat session in the same write;
        the table as it is to be brought to life, read from the write's own transaction
        (``sessions``: the opener's, when it sits there open).

        A retry with the same parameters returns the table the first call created (whatever
        its status now); different parameters raise ``IdempotencyKeyReused``, a retry by
        another node than the one that created it ``TableOnOtherNode``, and a ``table_id``
        another request created raises ``TableExists``. Settings are stored as given:
        validating them against the rules is the runtime's job.

        ``tournament_id`` (with ``tournament``: ``{"table_name", "table_number"}``) makes a
        tournament table: no buy-in range (both limits 0).

        ``opener``: the seat session the table opens with, refused as SeatPlayer refuses it
        (``BuyInOutOfRange``, ``IdempotencyKeyReused`` for an id in use), the table with it. A
        retry returns the table as it is: the opener's seat is then the runtime's to check
        (a first call without ``opener`` left none).
        """
        check_id("request_id", request_id)
        if table_id is not None:
            check_id("table_id", table_id)
        check_client_seed(client_seed)
        for name, amount in (("ante", ante), ("bring_in", bring_in)):
            if amount < 0:
                raise StoreError(f"{name} must not be negative, not {amount}")
        for name, amount in (("small_bet", small_bet), ("big_bet", big_bet)):
            if amount <= 0:
                raise StoreError(f"{name} must be positive, not {amount}")
        if tournament_id is not None:
            check_id("tournament_id", tournament_id)
            if min_buy_in or max_buy_in:
                raise StoreError("a tournament table has no buy-in range (both limits 0)")
        elif not 0 < min_buy_in <= max_buy_in:
            raise StoreError(
                f"buy-in limits must satisfy 0 < min <= max, not {min_buy_in}..{max_buy_in}"
            )
        wanted: dict[str, Any] = {
            "profile": profile,
            "rule_overrides": dict(rule_overrides or {}),
            "ante": ante,
            "bring_in": bring_in,
            "small_bet": small_bet,
            "big_bet": big_bet,
            "private": private,
            "min_buy_in": min_buy_in,
            "max_buy_in": max_buy_in,
            "opener_player_id": opener_player_id,
            "labels": dict(labels or {}),
            "tournament_id": tournament_id,
        }
        asked = dict(tournament or {}) if tournament_id is not None else None
        try:
            async with self._tx.write() as session:
                # Written at once, read nothing first: a retry (its request_id), a table_id
                # another request took and a seat session id in use fail the INSERTs, and
                # are told apart below (issue 16: two reads fewer in every first call).
                now = self._tx.clock()
                new_pair = self._seeds.new_pair
                current = new_pair(table_id="", ordinal=1, client_seed=client_seed, now=now)
                upcoming = new_pair(table_id="", ordinal=2, client_seed=client_seed, now=now)
                current.state = SeedPairState.CURRENT.value
                table = TableRow(
                    id=table_id or new_id("t"),
                    node_id=node_id,
                    create_request_id=request_id,
                    status=TableStatus.WAITING.value,
                    current_seed_pair_id=current.id,
                    created_at=now,
                    tournament=None
                    if asked is None
                    else {**asked, "level": 1, "stakes": None, "hand_held": False},
                    **wanted,
                )
                current.table_id = upcoming.table_id = table.id
                seated = None if opener is None else _opening_session(table, opener, now)
                # The rows' values as SQLAlchemy Core INSERTs: the ORM's unit of work cost a
                # quarter of the engine's CPU per quick game (issue 16). The objects stay the
                # session's strangers: the runtime only reads them.
                await session.exec(_INSERT_TABLE, params=_values(table))
                await session.exec(_INSERT_SEED_PAIR, params=[_values(current), _values(upcoming)])
                if seated is not None:
                    await session.exec(_INSERT_SEAT_SESSION, params=_values(seated))
                return OpenTable(table, [] if seated is None else [seated], current, upcoming)
        except IntegrityError:
            # A retry, or a concurrent first call with this request_id that committed first
            # (or a table_id, a seat session id, another request took).
            async with self._tx.read() as session:
                existing = await _same_create(
                    session, request_id, table_id, wanted, client_seed, node_id, asked
                )
                if existing is None:
                    if table_id is not None and await session.get(TableRow, table_id) is not None:
                        raise TableExists(f"table {table_id} already exists") from None
                    if (
                        opener is not None
                        and await session.get(SeatSessionRow, opener.seat_session_id) is not None
                    ):
                        raise _seat_in_use(opener) from None
                    raise
        return await self._as_created(existing.id, opener)

    async def _as_created(self, table_id: str, opener: OpeningSeat | None) -> OpenTable:
        """A table an earlier CreateTable made, as a retry answers it: loaded as it is now,
        with the opener's session only, if it sits there open (a first call without
        ``opener`` left none)."""
        (loaded,) = await self.load_tables([table_id])
        sessions = [
            s
            for s in loaded.sessions
            if opener is not None
            and s.id == opener.seat_session_id
            and s.state == SeatSessionState.OPEN.value
        ]
        return OpenTable(loaded.table, sessions, loaded.current_pair, loaded.next_pair)

    async def update_tournament(self, table_id: str, changes: Mapping[str, Any]) -> TableRow:
        """Store a tournament table's changed state (keys of ``TableRow.tournament``: level,
        stakes, hand_held, info, places) in one write. ``TableClosed`` once it has closed."""
        async with self._tx.write() as session:
            table = await table_row(session, table_id, lock=True)
            if table.tournament is None:
                raise StoreError(f"table {table_id} is not a tournament table")
            if table.status == TableStatus.CLOSED.value:
                raise TableClosed(f"table {table_id} is closed")
            # A new dict: the JSON column is not mutable-tracked.
            table.tournament = {**table.tournament, **changes}
            session.add(table)
            return table

    async def table_owner(self, table_id: str) -> str | None:
        """The node that owns the table (None when there is no such table)."""
        async with self._tx.read() as session:
            query = select(TableRow.node_id).where(TableRow.id == table_id)
            return (await session.exec(query)).first()

    async def get_table(self, table_id: str) -> TableRow:
        """The table (``TableNotFound`` when there is none)."""
        async with self._tx.read() as session:
            return await table_row(session, table_id)

    async def list_tables(
        self,
        *,
        page_size: int = 0,
        page_token: str = "",
        statuses: Collection[str] | None = None,
        include_private: bool = True,
        labels: Mapping[str, str] | None = None,
        node_id: str | None = None,
    ) -> Page[TableRow]:
        """Tables, newest first (``created_at``, then ``id``, descending), one page at a time.

        ``statuses`` empty or None: every status but closed. ``labels``: only tables carrying
        every one of them. ``node_id``: only that node's tables (None: every node's).
        ``page_size`` 0: 50; at most 500. Page tokens are opaque, keyed on the last row (new
        tables never shift later pages) and valid only with the same filters.
        """
        size = clamp(page_size, DEFAULT_TABLE_PAGE, MAX_TABLE_PAGE)
        wanted_statuses = sorted({TableStatus(s).value for s in statuses or ()})
        wanted_labels = dict(sorted((labels or {}).items()))
        filters = ["tables", wanted_statuses, include_private, wanted_labels]
        if node_id is not None:
            filters.append(node_id)
        query = select(TableRow)
        if node_id is not None:
            query = query.where(TableRow.node_id == node_id)
        if wanted_statuses:
            query = query.where(col(TableRow.status).in_(wanted_statuses))
        else:
            query = query.where(TableRow.status != TableStatus.CLOSED.value)
        if not include_private:
            query = query.where(col(TableRow.private).is_(False))
        for key, value in wanted_labels.items():
            query = query.where(col(TableRow.labels)[key].as_string() == value)
        if page_token:
            when, last_id = decode_token(page_token, filters)
            query = query.where(
                sa.or_(
                    col(TableRow.created_at) < when,
                    sa.and_(col(TableRow.created_at) == when, col(TableRow.id) < last_id),
                )
            )
        query = query.order_by(col(TableRow.created_at).desc(), col(TableRow.id).desc())
        async with self._tx.read() as session:
            rows = list((await session.exec(query.limit(size + 1))).all())
        return page_of(rows, size, filters, lambda t: (t.created_at.isoformat(), t.id))

    async def set_table_status(
        self, table_id: str, status: str, drain_hold: str | None = None
    ) -> TableRow:
        """Set the table's status (as ops see it); closed sets ``closed_at`` and is final
        (``TableClosed``). ``drain_hold``: which drain holds the table paused (DrainHold; only
        with pausing or paused), None for any other status or pause — it is set or cleared with
        every call.

        Closing with seated players or a running hand is refused (``TableState``): use
        :meth:`close_table`, which closes every seat session with it.
        """
        new = TableStatus(status)
        hold = None if drain_hold is None else DrainHold(drain_hold).value
        if hold is not None and new not in (TableStatus.PAUSING, TableStatus.PAUSED):
            raise InvalidRecord(f"a drain holds a table pausing or paused, not {new.value}")
        async with self._tx.write() as session:
            table = await table_row(session, table_id, lock=True)
            if (table.status, table.drain_hold) == (new.value, hold):
                return table
            if table.status == TableStatus.CLOSED.value:
                raise TableClosed(f"table {table_id} is closed")
            if new is TableStatus.CLOSED:
                if await running_hand(session, table_id) is not None:
                    raise HandInProgress(f"table {table_id} has a hand running")
                if await occupied(session, table_id):
                    raise TableState(f"table {table_id} has seated players: use close_table")
                table.closed_at = self._tx.clock()
            table.status = new.value
            table.drain_hold = hold
            session.add(table)
            return table

    async def settle_statuses_on_start(
        self, node_id: str | None = None, *, table_ids: Collection[str] | None = None
    ) -> StartSettlement:
        """On start, once running hands are cancelled (none runs now): tables held by a
        shutdown's drain deal again (waiting, hold cleared); a table left pausing (its pause,
        or an ops' drain, was waiting for a hand that is gone) is now paused, its hold kept.
        ``node_id``: only that node's tables (None: every node's); ``table_ids``: only those
        (a takeover's)."""
        only = () if table_ids is None else (col(TableRow.id).in_(sorted(set(table_ids))),)
        async with self._tx.write() as session:
            held = (
                await session.exec(
                    for_update(
                        select(TableRow)
                        .where(
                            TableRow.status != TableStatus.CLOSED.value,
                            sa.or_(
                                col(TableRow.drain_hold) == DrainHold.SHUTDOWN.value,
                                col(TableRow.status) == TableStatus.PAUSING.value,
                            ),
                            *_of_node(node_id),
                            *only,
                        )
                        .order_by(col(TableRow.created_at), col(TableRow.id))
                    )
                )
            ).all()
            resumed, paused = [], []
            for table in held:
                if table.drain_hold == DrainHold.SHUTDOWN.value:
                    table.status = TableStatus.WAITING.value
                    table.drain_hold = None
                    resumed.append(table.id)
                else:
                    table.status = TableStatus.PAUSED.value
                    paused.append(table.id)
                session.add(table)
            return StartSettlement(resumed=resumed, paused=paused)

    async def open_tables(self, node_id: str | None = None) -> list[OpenTable]:
        """Every table not closed (of ``node_id``, or every node's), with its unclosed seat
        sessions and seed pairs (restart)."""
        return await self._with_seats(
            sa.and_(col(TableRow.status) != TableStatus.CLOSED.value, *_of_node(node_id))
        )

    async def load_tables(self, table_ids: Collection[str]) -> list[OpenTable]:
        """These tables (whatever their status; unknown ids are left out), oldest first, each
        with its unclosed seat sessions (none once closed) and seed pairs."""
        return await self._with_seats(col(TableRow.id).in_(sorted(set(table_ids))))

    async def closed_table_ids(self, node_id: str | None = None) -> list[str]:
        """The ids of every closed table (of ``node_id``, or every node's), oldest first."""
        async with self._tx.read() as session:
            query = (
                select(TableRow.id)
                .where(TableRow.status == TableStatus.CLOSED.value, *_of_node(node_id))
                .order_by(col(TableRow.created_at), col(TableRow.id))
            )
            return list((await session.exec(query)).all())

    async def _with_seats(self, condition: Any) -> list[OpenTable]:
        async with self._tx.read() as session:
            tables = list(
                (
                    await session.exec(
                        select(TableRow)
                        .where(condition)
                        .order_by(col(TableRow.created_at), col(TableRow.id))
                    )
                ).all()
            )
            ids = [t.id for t in tables]
            sessions = (
                await session.exec(
                    select(SeatSessionRow)
                    .where(
                        col(SeatSessionRow.table_id).in_(ids),
                        col(SeatSessionRow.state).in_(OCCUPYING),
                    )
                    .order_by(col(SeatSessionRow.seat))
                )
            ).all()
            pairs = (
                await session.exec(
                    select(SeedPairRow).where(
                        col(SeedPairRow.table_id).in_(ids),
                        SeedPairRow.state != SeedPairState.RETIRED.value,
                    )
                )
            ).all()
            closing = [s.id for s in sessions if s.state == SeatSessionState.CLOSING.value]
            removals = (
                (
                    await session.exec(
                        select(SeatSessionRemovalRow).where(
                            col(SeatSessionRemovalRow.seat_session_id).in_(closing)
                        )
                    )
                ).all()
                if closing
                else ()
            )
            # a relayed leave (by_player) closes as left, as a Leave does; a move is no removal
            removed = {
                r.seat_session_id for r in removals if r.destination is None and not r.by_player
            }
            moves = {
                r.seat_session_id: dict(r.destination)
                for r in removals
                if r.destination is not None
            }
        seated: dict[str, list[SeatSessionRow]] = {t: [] for t in ids}
        for row in sessions:
            seated[row.table_id].append(row)
        live = {(p.table_id, p.state): p for p in pairs}
        return [
            OpenTable(
                table=t,
                sessions=seated[t.id],
                current_pair=live[(t.id, SeedPairState.CURRENT.value)],
                next_pair=live[(t.id, SeedPairState.NEXT.value)],
                removed=frozenset(s.id for s in seated[t.id] if s.id in removed),
                moves={s.id: moves[s.id] for s in seated[t.id] if s.id in moves},
            )
            for t in tables
        ]

    async def close_table(self, table_id: str) -> TableClosure:
        """Close the table between hands: every unclosed session closes (reason table_closed)
        with its stack, the current dealer seed is revealed, the status becomes closed.

        One transaction, so the lobby never sees a closed table with seated players. Calling it
        again returns the closed table (with no sessions closed this time). ``HandInProgress``
        while a hand runs: finish or cancel it first.
        """
        async with self._tx.write() as session:
            table = await table_row(session, table_id, lock=True)
            now = self._tx.clock()
            closed: list[SeatSessionRow] = []
            if table.status != TableStatus.CLOSED.value:
                if await running_hand(session, table_id) is not None:
                    raise HandInProgress(f"table {table_id} has a hand running")
                for seated in await occupied(session, table_id):
                    close_row(seated, CloseReason.TABLE_CLOSED, now)
                    session.add(seated)
                    closed.append(seated)
                table.status = TableStatus.CLOSED.value
                table.drain_hold = None
                table.closed_at = now
                session.add(table)
            revealed = await reveal_current(session, table, now)
            return TableClosure(table=table, closed_sessions=closed, revealed=revealed)
