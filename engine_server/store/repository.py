"""The engine's persistence: one method per thing the table runtime records.

:class:`EngineStore` wraps an :class:`~sqlalchemy.ext.asyncio.AsyncEngine`
(:func:`engine_server.store.database.create_engine_for`). Every method is one
transaction: it either happens entirely or not at all, and a refusal
(:mod:`engine_server.store.errors`) writes nothing.

Concurrency. Writes that depend on what they read lock the table's row first
(``SELECT … FOR UPDATE`` on PostgreSQL; on SQLite, ``BEGIN IMMEDIATE`` takes
the database's write lock), so two calls on one table never interleave, and
locks are always taken table first, then its hands, sessions and seed pairs.

Idempotency. CreateTable (``request_id``), SeatPlayer (``seat_session_id``)
and AddChips (``request_id``) are keyed by the lobby's ids with unique
constraints: a retry returns what the first call did, and the same key with
different parameters raises :class:`~engine_server.store.errors.IdempotencyKeyReused`.
Ending a hand or closing a session twice returns the first outcome.

Returned rows are plain SQLModel objects detached from their session
(``expire_on_commit=False``): snapshots as of the call's commit, to read, not
to modify (changes to them are never saved).

Chips. A seat session's ``stack`` is its stack as of the last finished hand
plus chip additions. Starting a hand does not touch stacks, so cancelling it
(or a crash while it runs) leaves every player with his pre-hand stack:
every chip put in goes back. Finishing a hand writes the new stacks, refusing
a result in which chips are not conserved (final stacks + rake = start stacks).

Nonces. :meth:`EngineStore.start_hand` takes the seed pair's ``next_nonce``
and advances it in the same transaction as it records the running hand, so a
nonce is used once and never skipped, whatever happens afterwards.

A minimal session (doctest on a throwaway SQLite file):

>>> import asyncio, tempfile
>>> from engine_server.store.database import create_engine_for
>>> from engine_server.store.migrate import upgrade_to_head
>>> url = f"sqlite:///{tempfile.mkdtemp()}/doc.sqlite3"
>>> _ = upgrade_to_head(url)
>>> async def demo():
...     store = EngineStore(create_engine_for(url))
...     table = await store.create_table(
...         request_id="r1", profile="house", ante=1, bring_in=2, small_bet=5, big_bet=10,
...         min_buy_in=100, max_buy_in=500, client_seed="alice",
...     )
...     await store.seat_player(table.id, "s1", player_id="p1", display_name="P1", seat=1,
...                             buy_in=200)
...     await store.seat_player(table.id, "s2", player_id="p2", display_name="P2", seat=2,
...                             buy_in=200)
...     pair = await store.current_seed_pair(table.id)
...     hand = await store.start_hand(
...         table.id, hand_number=1, seed_pair_id=pair.id, button_seat=1,
...         players=[HandSeat(1, "s1", "p1", 200), HandSeat(2, "s2", "p2", 200)],
...         profile="house", settings={},
...     )
...     done = await store.finish_hand(
...         hand.id, cards=[], actions=[], pots=[], rake=0, result={}, phh=None,
...         final_stacks={"s1": 195, "s2": 205},
...     )
...     s2 = await store.get_session("s2")
...     await store.dispose()
...     return hand.nonce, done.state, s2.stack
>>> asyncio.run(demo())
(0, 'complete', 205)
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import secrets
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, NamedTuple, TypeVar

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.game.fairness import (
    FairnessError,
    commitment,
    new_dealer_seed,
    validate_client_seed,
)
from engine_server.store.database import WRITE_OPTIONS, create_engine_for
from engine_server.store.errors import (
    AlreadySeated,
    BuyInOutOfRange,
    HandInProgress,
    HandNotFound,
    IdempotencyKeyReused,
    InvalidPageToken,
    InvalidRecord,
    SeatSessionClosed,
    SeatSessionNotFound,
    SeatTaken,
    StaleHand,
    StoreError,
    TableClosed,
    TableExists,
    TableNotFound,
    TableOnOtherNode,
    TableState,
)
from engine_server.store.models import (
    DEFAULT_NODE_ID,
    ID_LENGTH,
    ChipAdditionRow,
    CloseReason,
    DrainHold,
    HandPlayerRow,
    HandRow,
    HandState,
    SeatSessionRemovalRow,
    SeatSessionRow,
    SeatSessionState,
    SeedPairRow,
    SeedPairState,
    TableRow,
    TableStatus,
)
from engine_server.store.nodes import WriteFence
from engine_server.store.types import utc_now

__all__ = [
    "DEFAULT_SESSION_PAGE",
    "DEFAULT_TABLE_PAGE",
    "MAX_SESSION_PAGE",
    "MAX_TABLE_PAGE",
    "EngineStore",
    "HandSeat",
    "OpenTable",
    "Page",
    "RunningHand",
    "SeedRotation",
    "StartSettlement",
    "TableClosure",
]

DEFAULT_TABLE_PAGE = 50
MAX_TABLE_PAGE = 500
DEFAULT_SESSION_PAGE = 100
MAX_SESSION_PAGE = 1000

T = TypeVar("T")

_OCCUPYING = (SeatSessionState.OPEN.value, SeatSessionState.CLOSING.value)


class HandSeat(NamedTuple):
    """A seat dealt into a hand, as :meth:`EngineStore.start_hand` takes it."""

    seat: int
    seat_session_id: str
    player_id: str
    start_stack: int


class SeedRotation(NamedTuple):
    """What :meth:`EngineStore.rotate_seed` did: the revealed, new current and new next pairs."""

    revealed: SeedPairRow
    current: SeedPairRow
    next: SeedPairRow


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a listing; pass ``next_page_token`` back for the next ("" on the last)."""

    items: list[T]
    next_page_token: str


@dataclass(frozen=True, slots=True)
class OpenTable:
    """A table to bring to life: its row, its seated players and its seed pairs (open tables
    on start-up; a closed one, with no seated players, when ops look at it)."""

    table: TableRow
    #: Sessions not yet closed (open or closing), by seat.
    sessions: list[SeatSessionRow]
    current_pair: SeedPairRow
    next_pair: SeedPairRow
    #: Those of ``sessions`` a RemovePlayer marked closing (paid out as removed, not left).
    removed: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class RunningHand:
    """A hand still running, with what rebuilding its deal needs (its table's settings, its
    seed pair, its players): on start-up, before recovery cancels it."""

    hand: HandRow
    table: TableRow
    seed_pair: SeedPairRow
    #: by seat
    players: list[HandPlayerRow]


@dataclass(frozen=True, slots=True)
class StartSettlement:
    """What :meth:`EngineStore.settle_statuses_on_start` changed, by table id."""

    #: held by the drain of a node that stopped: dealing again
    resumed: list[str]
    #: left pausing with no hand to wait for: now paused
    paused: list[str]


@dataclass(frozen=True, slots=True)
class TableClosure:
    """What :meth:`EngineStore.close_table` did."""

    table: TableRow
    #: Every session the closing closed, by seat (empty when it was already closed).
    closed_sessions: list[SeatSessionRow]
    #: The dealing pair, its dealer seed revealed.
    revealed: SeedPairRow


def _new_id(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(8)}"


def _check_id(kind: str, value: str) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= ID_LENGTH:
        raise StoreError(f"{kind} must be 1-{ID_LENGTH} characters, not {value!r}")
    return value


def _check_client_seed(value: str) -> str:
    try:
        return validate_client_seed(value)
    except FairnessError as error:
        raise StoreError(f"client_seed: {error}") from None


def _encode_token(key: Sequence[str], filters: object) -> str:
    payload = {"k": list(key), "f": _fingerprint(filters)}
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_token(token: str, filters: object) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        payload = json.loads(raw)
        stamp, row_id = payload["k"]
        when = datetime.fromisoformat(stamp)
        fingerprint = payload["f"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        raise InvalidPageToken(f"malformed page token {token!r}") from None
    if fingerprint != _fingerprint(filters) or when.tzinfo is None or not isinstance(row_id, str):
        # A token only continues the listing it came from (AIP-158).
        raise InvalidPageToken("the page token belongs to a listing with other filters")
    return when, row_id


def _fingerprint(filters: object) -> str:
    text = json.dumps(filters, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _check_same_addition(done: ChipAdditionRow, seat_session_id: str, amount: int) -> None:
    if (done.seat_session_id, done.amount) != (seat_session_id, amount):
        raise IdempotencyKeyReused(
            f"request_id {done.request_id!r} added {done.amount} to {done.seat_session_id}"
        )


def _as_answered(row: SeatSessionRow, done: ChipAdditionRow) -> SeatSessionRow:
    """The session as the chip addition ``done`` left it: the answer a retry gets again.

    A detached copy (never saved); the session itself when the addition predates the
    recorded answers.
    """
    if done.stack_after is None or done.chips_in_after is None:
        return row
    answered = SeatSessionRow(**row.model_dump())
    answered.chips_in = done.chips_in_after
    answered.stack = done.stack_after
    answered.state = SeatSessionState.OPEN.value
    answered.close_reason = None
    answered.closed_at = None
    return answered


def _of_node(node_id: str | None) -> tuple[Any, ...]:
    """The condition "a table of ``node_id``" (none for None: every node's tables)."""
    return () if node_id is None else (col(TableRow.node_id) == node_id,)


def _clamp(page_size: int, default: int, maximum: int) -> int:
    if page_size < 0:
        raise StoreError(f"page_size must not be negative, not {page_size}")
    return min(page_size or default, maximum)


class EngineStore:
    """The engine's async repository (see the module's docstring for its guarantees).

    ``clock`` gives the timestamps it writes (aware UTC); ``new_seed`` makes dealer seeds
    (FAIRNESS.md: the OS's CSPRNG) — both replaceable in tests.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        clock: Callable[[], datetime] = utc_now,
        new_seed: Callable[[], str] = new_dealer_seed,
    ) -> None:
        self.engine = engine
        self._clock = clock
        self._new_seed = new_seed
        #: checked at the start of every write (engine nodes: :class:`WriteFence`)
        self.fence: WriteFence | None = None
        self._reader = async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)
        self._writer = async_sessionmaker(
            engine.execution_options(**WRITE_OPTIONS),
            class_=AsyncSession,
            expire_on_commit=False,
        )

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> EngineStore:
        """A store on a new engine for ``url`` (see :func:`create_engine_for`)."""
        return cls(create_engine_for(url), **kwargs)

    async def dispose(self) -> None:
        """Close the engine's pooled connections."""
        await self.engine.dispose()

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncSession]:
        async with self._writer() as session, session.begin():
            if self.fence is not None:
                await self.fence.check(session)
            yield session

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncSession]:
        async with self._reader() as session, session.begin():
            yield session

    # ----------------------------------------------------------------------------- tables

    async def create_table(
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
    ) -> TableRow:
        """Create a table owned by ``node_id`` with its current and next seed pairs
        (idempotent by ``request_id``).

        A retry with the same parameters returns the table the first call created (whatever
        its status now); different parameters raise ``IdempotencyKeyReused``, a retry by
        another node than the one that created it ``TableOnOtherNode``, and a ``table_id``
        another request created raises ``TableExists``. Settings are stored as given:
        validating them against the rules is the runtime's job.
        """
        _check_id("request_id", request_id)
        if table_id is not None:
            _check_id("table_id", table_id)
        _check_client_seed(client_seed)
        for name, amount in (("ante", ante), ("bring_in", bring_in)):
            if amount < 0:
                raise StoreError(f"{name} must not be negative, not {amount}")
        for name, amount in (("small_bet", small_bet), ("big_bet", big_bet)):
            if amount <= 0:
                raise StoreError(f"{name} must be positive, not {amount}")
        if not 0 < min_buy_in <= max_buy_in:
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
        }
        try:
            async with self._write() as session:
                existing = await self._same_create(
                    session, request_id, table_id, wanted, client_seed, node_id
                )
                if existing is not None:
                    return existing
                if table_id is not None and await session.get(TableRow, table_id) is not None:
                    raise TableExists(f"table {table_id} already exists")
                now = self._clock()
                current = self._new_pair(table_id="", ordinal=1, client_seed=client_seed, now=now)
                upcoming = self._new_pair(table_id="", ordinal=2, client_seed=client_seed, now=now)
                current.state = SeedPairState.CURRENT.value
                table = TableRow(
                    id=table_id or _new_id("t"),
                    node_id=node_id,
                    create_request_id=request_id,
                    status=TableStatus.WAITING.value,
                    current_seed_pair_id=current.id,
                    created_at=now,
                    **wanted,
                )
                current.table_id = upcoming.table_id = table.id
                session.add(table)
                await session.flush()
                session.add_all([current, upcoming])
                return table
        except IntegrityError:
            # A concurrent first call with this request_id (or table_id) committed first.
            async with self._read() as session:
                existing = await self._same_create(
                    session, request_id, table_id, wanted, client_seed, node_id
                )
                if existing is not None:
                    return existing
                if table_id is not None and await session.get(TableRow, table_id) is not None:
                    raise TableExists(f"table {table_id} already exists") from None
            raise

    async def _same_create(
        self,
        session: AsyncSession,
        request_id: str,
        table_id: str | None,
        wanted: Mapping[str, Any],
        client_seed: str,
        node_id: str,
    ) -> TableRow | None:
        table = (
            await session.exec(select(TableRow).where(TableRow.create_request_id == request_id))
        ).first()
        if table is None:
            return None
        first_pair = (
            await session.exec(
                select(SeedPairRow).where(
                    SeedPairRow.table_id == table.id, SeedPairRow.ordinal == 1
                )
            )
        ).one()
        differs = [name for name, value in wanted.items() if getattr(table, name) != value]
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

    def _new_pair(
        self, *, table_id: str, ordinal: int, client_seed: str, now: datetime
    ) -> SeedPairRow:
        seed = self._new_seed()
        return SeedPairRow(
            id=_new_id("sp"),
            table_id=table_id,
            ordinal=ordinal,
            state=SeedPairState.NEXT.value,
            dealer_seed=seed,
            commitment=commitment(seed),
            # A next pair's client seed is provisional: rotate_seed sets it when it takes over.
            client_seed=client_seed,
            next_nonce=0,
            created_at=now,
        )

    async def table_owner(self, table_id: str) -> str | None:
        """The node that owns the table (None when there is no such table)."""
        async with self._read() as session:
            query = select(TableRow.node_id).where(TableRow.id == table_id)
            return (await session.exec(query)).first()

    async def get_table(self, table_id: str) -> TableRow:
        """The table (``TableNotFound`` when there is none)."""
        async with self._read() as session:
            return await self._table(session, table_id)

    async def _table(self, session: AsyncSession, table_id: str, *, lock: bool = False) -> TableRow:
        query = select(TableRow).where(TableRow.id == table_id)
        if lock:
            query = query.with_for_update().execution_options(populate_existing=True)
        table = (await session.exec(query)).first()
        if table is None:
            raise TableNotFound(f"no table {table_id}")
        return table

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
        every one of them. ``node_id``: only that node's tables (None: every node's). ``page_size`` 0: 50; at most 500. Page tokens are opaque, keyed on
        the last row (new tables never shift later pages) and valid only with the same filters.
        """
        size = _clamp(page_size, DEFAULT_TABLE_PAGE, MAX_TABLE_PAGE)
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
            when, last_id = _decode_token(page_token, filters)
            query = query.where(
                sa.or_(
                    col(TableRow.created_at) < when,
                    sa.and_(col(TableRow.created_at) == when, col(TableRow.id) < last_id),
                )
            )
        query = query.order_by(col(TableRow.created_at).desc(), col(TableRow.id).desc())
        async with self._read() as session:
            rows = list((await session.exec(query.limit(size + 1))).all())
        return self._page(rows, size, filters, lambda t: (t.created_at.isoformat(), t.id))

    @staticmethod
    def _page(
        rows: list[T], size: int, filters: object, key: Callable[[T], tuple[str, str]]
    ) -> Page[T]:
        if len(rows) <= size:
            return Page(rows, "")
        rows = rows[:size]
        return Page(rows, _encode_token(key(rows[-1]), filters))

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
        async with self._write() as session:
            table = await self._table(session, table_id, lock=True)
            if (table.status, table.drain_hold) == (new.value, hold):
                return table
            if table.status == TableStatus.CLOSED.value:
                raise TableClosed(f"table {table_id} is closed")
            if new is TableStatus.CLOSED:
                if await self._running_hand(session, table_id) is not None:
                    raise HandInProgress(f"table {table_id} has a hand running")
                if await self._occupied(session, table_id):
                    raise TableState(f"table {table_id} has seated players: use close_table")
                table.closed_at = self._clock()
            table.status = new.value
            table.drain_hold = hold
            session.add(table)
            return table

    async def settle_statuses_on_start(self, node_id: str | None = None) -> StartSettlement:
        """On start, once running hands are cancelled (none runs now): tables held by a
        shutdown's drain deal again (waiting, hold cleared); a table left pausing (its pause,
        or an ops' drain, was waiting for a hand that is gone) is now paused, its hold kept.
        ``node_id``: only that node's tables (None: every node's)."""
        async with self._write() as session:
            held = (
                await session.exec(
                    select(TableRow)
                    .where(
                        TableRow.status != TableStatus.CLOSED.value,
                        sa.or_(
                            col(TableRow.drain_hold) == DrainHold.SHUTDOWN.value,
                            col(TableRow.status) == TableStatus.PAUSING.value,
                        ),
                        *_of_node(node_id),
                    )
                    .order_by(col(TableRow.created_at), col(TableRow.id))
                    .with_for_update()
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
        return await self._tables_with_seats(
            sa.and_(col(TableRow.status) != TableStatus.CLOSED.value, *_of_node(node_id))
        )

    async def tables(self, table_ids: Collection[str]) -> list[OpenTable]:
        """These tables (whatever their status; unknown ids are left out), oldest first, each
        with its unclosed seat sessions (none once closed) and seed pairs."""
        return await self._tables_with_seats(col(TableRow.id).in_(sorted(set(table_ids))))

    async def closed_table_ids(self, node_id: str | None = None) -> list[str]:
        """The ids of every closed table (of ``node_id``, or every node's), oldest first."""
        async with self._read() as session:
            query = (
                select(TableRow.id)
                .where(TableRow.status == TableStatus.CLOSED.value, *_of_node(node_id))
                .order_by(col(TableRow.created_at), col(TableRow.id))
            )
            return list((await session.exec(query)).all())

    async def _tables_with_seats(self, condition: Any) -> list[OpenTable]:
        async with self._read() as session:
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
                        col(SeatSessionRow.state).in_(_OCCUPYING),
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
            removed = set(
                (
                    await session.exec(
                        select(SeatSessionRemovalRow.seat_session_id).where(
                            col(SeatSessionRemovalRow.seat_session_id).in_(closing)
                        )
                    )
                ).all()
                if closing
                else ()
            )
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
        async with self._write() as session:
            table = await self._table(session, table_id, lock=True)
            now = self._clock()
            closed: list[SeatSessionRow] = []
            if table.status != TableStatus.CLOSED.value:
                if await self._running_hand(session, table_id) is not None:
                    raise HandInProgress(f"table {table_id} has a hand running")
                for seated in await self._occupied(session, table_id):
                    self._close(seated, CloseReason.TABLE_CLOSED, now)
                    session.add(seated)
                    closed.append(seated)
                table.status = TableStatus.CLOSED.value
                table.drain_hold = None
                table.closed_at = now
                session.add(table)
            revealed = await self._reveal_current(session, table, now)
            return TableClosure(table=table, closed_sessions=closed, revealed=revealed)

    async def reveal_on_close(self, table_id: str) -> SeedPairRow:
        """Reveal the dealing pair of a closing or closed table (idempotent).

        Refused (``TableState``) while the table may still deal with it: revealing the dealer
        seed makes every deck of the pair computable.
        """
        async with self._write() as session:
            table = await self._table(session, table_id, lock=True)
            if table.status not in {TableStatus.CLOSING.value, TableStatus.CLOSED.value}:
                raise TableState(f"table {table_id} is {table.status}: it still deals")
            if await self._running_hand(session, table_id) is not None:
                raise HandInProgress(f"table {table_id} has a hand running")
            return await self._reveal_current(session, table, self._clock())

    async def _reveal_current(
        self, session: AsyncSession, table: TableRow, now: datetime
    ) -> SeedPairRow:
        pair = await self._live_pair(session, table.id, SeedPairState.CURRENT, lock=True)
        if pair.revealed_at is None:
            pair.revealed_at = now
            session.add(pair)
        return pair

    # ------------------------------------------------------------------------ seed pairs

    async def current_seed_pair(self, table_id: str) -> SeedPairRow:
        """The pair dealing the table's hands (its dealer seed is secret unless revealed)."""
        async with self._read() as session:
            await self._table(session, table_id)
            return await self._live_pair(session, table_id, SeedPairState.CURRENT)

    async def next_seed_pair(self, table_id: str) -> SeedPairRow:
        """The pair the next rotation switches to (show only its commitment)."""
        async with self._read() as session:
            await self._table(session, table_id)
            return await self._live_pair(session, table_id, SeedPairState.NEXT)

    async def seed_pairs(self, table_id: str) -> list[SeedPairRow]:
        """Every pair of the table, oldest first."""
        async with self._read() as session:
            await self._table(session, table_id)
            query = (
                select(SeedPairRow)
                .where(SeedPairRow.table_id == table_id)
                .order_by(col(SeedPairRow.ordinal))
            )
            return list((await session.exec(query)).all())

    async def _live_pair(
        self, session: AsyncSession, table_id: str, state: SeedPairState, *, lock: bool = False
    ) -> SeedPairRow:
        query = select(SeedPairRow).where(
            SeedPairRow.table_id == table_id, SeedPairRow.state == state.value
        )
        if lock:
            query = query.with_for_update().execution_options(populate_existing=True)
        return (await session.exec(query)).one()

    async def rotate_seed(self, table_id: str, client_seed: str | None = None) -> SeedRotation:
        """Between hands: retire and reveal the current pair, make the next one current (with
        ``client_seed``, or the old client seed when None) and commit to a new next pair.

        ``HandInProgress`` while a hand runs; ``TableClosed`` once closed.
        """
        if client_seed is not None:
            _check_client_seed(client_seed)
        async with self._write() as session:
            table = await self._table(session, table_id, lock=True)
            if table.status == TableStatus.CLOSED.value:
                raise TableClosed(f"table {table_id} is closed")
            if await self._running_hand(session, table_id) is not None:
                raise HandInProgress(f"table {table_id} has a hand running: rotate between hands")
            now = self._clock()
            old = await self._live_pair(session, table_id, SeedPairState.CURRENT, lock=True)
            new = await self._live_pair(session, table_id, SeedPairState.NEXT, lock=True)
            # One statement at a time: the partial unique index allows one current and one
            # next pair per table at every moment.
            old.state = SeedPairState.RETIRED.value
            old.revealed_at = now
            session.add(old)
            await session.flush()
            new.state = SeedPairState.CURRENT.value
            new.client_seed = client_seed if client_seed is not None else old.client_seed
            session.add(new)
            await session.flush()
            upcoming = self._new_pair(
                table_id=table_id, ordinal=new.ordinal + 1, client_seed=new.client_seed, now=now
            )
            session.add(upcoming)
            table.current_seed_pair_id = new.id
            session.add(table)
            return SeedRotation(revealed=old, current=new, next=upcoming)

    # --------------------------------------------------------------------- seat sessions

    async def seat_player(
        self,
        table_id: str,
        seat_session_id: str,
        *,
        player_id: str,
        display_name: str,
        seat: int,
        buy_in: int,
    ) -> SeatSessionRow:
        """Open a seat session (idempotent by ``seat_session_id``).

        The same id with the same parameters returns the session (even if closed since);
        other parameters raise ``IdempotencyKeyReused``. Refusals: ``TableClosed`` (closing or
        closed), ``SeatTaken``, ``AlreadySeated`` (the player has a seat here),
        ``BuyInOutOfRange``. ``seat`` is a real seat (the runtime resolves "any seat").
        """
        _check_id("seat_session_id", seat_session_id)
        _check_id("player_id", player_id)
        if seat < 1:
            raise StoreError(f"seat must be 1 or more, not {seat}")
        async with self._write() as session:
            # Table lock first: a concurrent retry of this very call then finds the session.
            table = await self._table(session, table_id, lock=True)
            existing = await session.get(SeatSessionRow, seat_session_id)
            if existing is not None:
                asked = (table_id, player_id, display_name, seat, buy_in)
                had = (
                    existing.table_id,
                    existing.player_id,
                    existing.display_name,
                    existing.seat,
                    existing.buy_in,
                )
                if asked != had:
                    raise IdempotencyKeyReused(
                        f"seat_session_id {seat_session_id!r} was used with other parameters"
                    )
                return existing
            if table.status in {TableStatus.CLOSING.value, TableStatus.CLOSED.value}:
                raise TableClosed(f"table {table_id} is {table.status}")
            if not table.min_buy_in <= buy_in <= table.max_buy_in:
                raise BuyInOutOfRange(
                    f"buy-in {buy_in} is outside {table.min_buy_in}..{table.max_buy_in}"
                )
            for seated in await self._occupied(session, table_id):
                if seated.seat == seat:
                    raise SeatTaken(f"seat {seat} of table {table_id} is taken")
                if seated.player_id == player_id:
                    raise AlreadySeated(
                        f"player {player_id} already sits at seat {seated.seat} of {table_id}"
                    )
            row = SeatSessionRow(
                id=seat_session_id,
                table_id=table_id,
                player_id=player_id,
                display_name=display_name,
                seat=seat,
                buy_in=buy_in,
                chips_in=buy_in,
                stack=buy_in,
                state=SeatSessionState.OPEN.value,
                opened_at=self._clock(),
            )
            session.add(row)
            return row

    async def _occupied(self, session: AsyncSession, table_id: str) -> list[SeatSessionRow]:
        query = select(SeatSessionRow).where(
            SeatSessionRow.table_id == table_id, col(SeatSessionRow.state).in_(_OCCUPYING)
        )
        return list((await session.exec(query.order_by(col(SeatSessionRow.seat)))).all())

    async def get_session(self, seat_session_id: str) -> SeatSessionRow:
        """The seat session (``SeatSessionNotFound`` when there is none)."""
        async with self._read() as session:
            row = await session.get(SeatSessionRow, seat_session_id)
            if row is None:
                raise SeatSessionNotFound(f"no seat session {seat_session_id}")
            return row

    async def _locked_session(
        self, session: AsyncSession, seat_session_id: str
    ) -> tuple[TableRow, SeatSessionRow]:
        row = await session.get(SeatSessionRow, seat_session_id)
        if row is None:
            raise SeatSessionNotFound(f"no seat session {seat_session_id}")
        table = await self._table(session, row.table_id, lock=True)
        query = (
            select(SeatSessionRow)
            .where(SeatSessionRow.id == seat_session_id)
            .with_for_update()
            .execution_options(populate_existing=True)
        )
        return table, (await session.exec(query)).one()

    async def add_chips(self, seat_session_id: str, request_id: str, amount: int) -> SeatSessionRow:
        """Add chips to an open session between its hands (idempotent by ``request_id``).

        A retry returns the first answer (the session as that addition left it) without adding
        again, whenever it comes; the id with another session or amount raises
        ``IdempotencyKeyReused``. Refusals: ``SeatSessionClosed`` (closing or
        closed), ``TableClosed``, ``HandInProgress`` (he is in the running hand),
        ``BuyInOutOfRange`` (the stack would exceed max_buy_in).
        """
        _check_id("request_id", request_id)
        if amount <= 0:
            raise StoreError(f"amount must be positive, not {amount}")
        async with self._write() as session:
            table, row = await self._locked_session(session, seat_session_id)
            done = await session.get(ChipAdditionRow, request_id)
            if done is not None:
                _check_same_addition(done, seat_session_id, amount)
                return _as_answered(row, done)
            if row.state != SeatSessionState.OPEN.value:
                raise SeatSessionClosed(f"seat session {seat_session_id} is {row.state}")
            if table.status in {TableStatus.CLOSING.value, TableStatus.CLOSED.value}:
                raise TableClosed(f"table {table.id} is {table.status}")
            if await self._in_running_hand(session, seat_session_id):
                raise HandInProgress(f"seat session {seat_session_id} is in the running hand")
            if row.stack + amount > table.max_buy_in:
                raise BuyInOutOfRange(
                    f"stack {row.stack} + {amount} would exceed max_buy_in {table.max_buy_in}"
                )
            row.chips_in += amount
            row.stack += amount
            session.add(
                ChipAdditionRow(
                    request_id=request_id,
                    seat_session_id=seat_session_id,
                    amount=amount,
                    created_at=self._clock(),
                    chips_in_after=row.chips_in,
                    stack_after=row.stack,
                )
            )
            session.add(row)
            return row

    async def chip_addition(
        self, seat_session_id: str, request_id: str, amount: int
    ) -> SeatSessionRow | None:
        """The answer an earlier :meth:`add_chips` with ``request_id`` gave (None: none did).

        The session as it was right after that addition, whatever happened since (later
        hands, its close). ``IdempotencyKeyReused`` when that request added another amount or
        to another session.
        """
        async with self._read() as session:
            done = await session.get(ChipAdditionRow, request_id)
            if done is None:
                return None
            _check_same_addition(done, seat_session_id, amount)
            row = await session.get(SeatSessionRow, done.seat_session_id)
            assert row is not None  # a foreign key
            return _as_answered(row, done)

    async def removal(self, seat_session_id: str) -> SeatSessionRemovalRow | None:
        """The RemovePlayer recorded for the session (None: it was never removed)."""
        async with self._read() as session:
            return await session.get(SeatSessionRemovalRow, seat_session_id)

    async def record_removal(
        self,
        seat_session_id: str,
        reason: str,
        *,
        state: str,
        chips_in: int,
        stack: int,
        close_reason: str | None,
    ) -> SeatSessionRemovalRow:
        """Record a RemovePlayer that changed nothing itself, with its answer (the session
        closing or closed): he was already leaving. A removal that closes the session or marks
        it closing is recorded by :meth:`close_session` / :meth:`mark_closing` (``removal=``),
        in the same transaction as the change.

        Recording it again returns the first record; another reason raises
        ``IdempotencyKeyReused``.
        """
        answered = SeatSessionState(state)
        if answered is SeatSessionState.OPEN:
            raise InvalidRecord("a removal answers with a closing or closed session")
        async with self._write() as session:
            _, row = await self._locked_session(session, seat_session_id)
            earlier = await self._earlier_removal(session, seat_session_id, reason)
            if earlier is not None:
                return earlier
            record = SeatSessionRemovalRow(
                seat_session_id=row.id,
                reason=reason,
                state=answered.value,
                chips_in=chips_in,
                stack=stack,
                close_reason=CloseReason(close_reason).value if close_reason else None,
                created_at=self._clock(),
            )
            session.add(record)
            return record

    @staticmethod
    async def _earlier_removal(
        session: AsyncSession, seat_session_id: str, reason: str | None
    ) -> SeatSessionRemovalRow | None:
        """The removal recorded for the session (None: none, or ``reason`` is None: not a
        removal); ``IdempotencyKeyReused`` when it gave another reason."""
        if reason is None:
            return None
        earlier = await session.get(SeatSessionRemovalRow, seat_session_id)
        if earlier is not None and earlier.reason != reason:
            raise IdempotencyKeyReused(
                f"seat session {seat_session_id} was removed with another reason"
            )
        return earlier

    def _add_removal(self, session: AsyncSession, row: SeatSessionRow, reason: str | None) -> None:
        """Record a RemovePlayer answered with ``row`` as it is now (in the caller's
        transaction: the change and the answer a retry gets are written together)."""
        if reason is None:
            return
        session.add(
            SeatSessionRemovalRow(
                seat_session_id=row.id,
                reason=reason,
                state=row.state,
                chips_in=row.chips_in,
                stack=row.stack,
                close_reason=row.close_reason if row.state == SeatSessionState.CLOSED else None,
                created_at=self._clock(),
            )
        )

    async def mark_closing(
        self, seat_session_id: str, *, removal: str | None = None
    ) -> SeatSessionRow:
        """Record that the player is leaving once the running hand ends (idempotent).

        A restart then closes his session instead of dealing him in again. ``removal``: a
        RemovePlayer's reason, recorded with its answer (this closing session) in the same
        transaction; a removal already recorded with that reason changes nothing and is not
        recorded again (another reason: ``IdempotencyKeyReused``, nothing written).
        """
        async with self._write() as session:
            _, row = await self._locked_session(session, seat_session_id)
            earlier = await self._earlier_removal(session, seat_session_id, removal)
            if row.state == SeatSessionState.CLOSED.value:
                raise SeatSessionClosed(f"seat session {seat_session_id} is closed")
            row.state = SeatSessionState.CLOSING.value
            session.add(row)
            if earlier is None:
                self._add_removal(session, row, removal)
            return row

    async def close_session(
        self,
        seat_session_id: str,
        final_stack: int | None,
        reason: str,
        *,
        removal: str | None = None,
    ) -> SeatSessionRow:
        """Close a session between hands: its stack becomes final, due to the player.

        ``final_stack`` must equal the stored stack (None: take it) — stacks only change
        through finished hands and chip additions, so a different figure is a bug and is
        refused (``InvalidRecord``). Closing again with the same reason returns the session;
        with another, ``SeatSessionClosed``. ``HandInProgress`` while he is in a running hand
        (:meth:`finish_hand` closes leavers with the hand). ``removal``: a RemovePlayer's
        reason, recorded with its answer (this closed session) in the same transaction, as
        :meth:`mark_closing` does.
        """
        why = CloseReason(reason)
        async with self._write() as session:
            _, row = await self._locked_session(session, seat_session_id)
            earlier = await self._earlier_removal(session, seat_session_id, removal)
            if final_stack is not None and final_stack != row.stack:
                raise InvalidRecord(
                    f"seat session {seat_session_id} has {row.stack} chips, not {final_stack}"
                )
            if row.state == SeatSessionState.CLOSED.value:
                if row.close_reason != why.value:
                    raise SeatSessionClosed(
                        f"seat session {seat_session_id} closed already ({row.close_reason})"
                    )
                if earlier is None:
                    self._add_removal(session, row, removal)
                return row
            if await self._in_running_hand(session, seat_session_id):
                raise HandInProgress(f"seat session {seat_session_id} is in the running hand")
            self._close(row, why, self._clock())
            session.add(row)
            if earlier is None:
                self._add_removal(session, row, removal)
            return row

    @staticmethod
    def _close(row: SeatSessionRow, reason: CloseReason, now: datetime) -> None:
        row.state = SeatSessionState.CLOSED.value
        row.close_reason = reason.value
        row.closed_at = now

    async def sessions(
        self,
        table_id: str | None = None,
        states: Collection[str] | None = None,
        *,
        page_size: int = 0,
        page_token: str = "",
    ) -> Page[SeatSessionRow]:
        """Seat sessions, oldest first (``opened_at``, then ``id``), one page at a time.

        ``table_id`` None: every table's; ``states`` empty or None: all. ``page_size`` 0: 100;
        at most 1000.
        """
        size = _clamp(page_size, DEFAULT_SESSION_PAGE, MAX_SESSION_PAGE)
        wanted = sorted({SeatSessionState(s).value for s in states or ()})
        filters = ["sessions", table_id, wanted]
        query = select(SeatSessionRow)
        if table_id is not None:
            query = query.where(SeatSessionRow.table_id == table_id)
        if wanted:
            query = query.where(col(SeatSessionRow.state).in_(wanted))
        if page_token:
            when, last_id = _decode_token(page_token, filters)
            query = query.where(
                sa.or_(
                    col(SeatSessionRow.opened_at) > when,
                    sa.and_(
                        col(SeatSessionRow.opened_at) == when, col(SeatSessionRow.id) > last_id
                    ),
                )
            )
        query = query.order_by(col(SeatSessionRow.opened_at), col(SeatSessionRow.id))
        async with self._read() as session:
            rows = list((await session.exec(query.limit(size + 1))).all())
        return self._page(rows, size, filters, lambda s: (s.opened_at.isoformat(), s.id))

    # ----------------------------------------------------------------------------- hands

    async def _running_hand(self, session: AsyncSession, table_id: str) -> HandRow | None:
        query = select(HandRow).where(
            HandRow.table_id == table_id, HandRow.state == HandState.RUNNING.value
        )
        return (await session.exec(query)).first()

    async def _in_running_hand(self, session: AsyncSession, seat_session_id: str) -> bool:
        query = (
            select(HandPlayerRow.hand_id)
            .join(HandRow, col(HandRow.id) == col(HandPlayerRow.hand_id))
            .where(
                HandPlayerRow.seat_session_id == seat_session_id,
                HandRow.state == HandState.RUNNING.value,
            )
        )
        return (await session.exec(query)).first() is not None

    async def start_hand(
        self,
        table_id: str,
        *,
        hand_number: int,
        seed_pair_id: str,
        button_seat: int,
        players: Iterable[HandSeat | tuple[int, str, str, int]],
        profile: str,
        settings: Mapping[str, Any],
        hand_id: str | None = None,
    ) -> HandRow:
        """Record a hand as running and consume its nonce, in one transaction.

        The hand gets the pair's ``next_nonce``, which advances; the table's ``hands_started``
        becomes ``hand_number`` (which must be the next one) and its ``button_seat`` this
        hand's button. Every player must be an unclosed session of the table at his seat
        whose stored stack is his ``start_stack``. A retry of the same start returns the hand;
        anything else on a number already used raises ``StaleHand``.
        """
        seats = [HandSeat(*p) for p in players]
        if len(seats) < 2:
            raise InvalidRecord(f"a hand needs two players or more, not {len(seats)}")
        if len({s.seat for s in seats}) != len(seats) or len(
            {s.seat_session_id for s in seats}
        ) != len(seats):
            raise InvalidRecord("a seat or seat session appears twice among the players")
        if hand_id is not None:
            _check_id("hand_id", hand_id)
        async with self._write() as session:
            table = await self._table(session, table_id, lock=True)
            earlier = (
                await session.exec(
                    select(HandRow).where(
                        HandRow.table_id == table_id, HandRow.hand_number == hand_number
                    )
                )
            ).first()
            if earlier is not None:
                if await self._same_start(session, earlier, seed_pair_id, button_seat, seats):
                    return earlier
                raise StaleHand(f"hand {hand_number} of table {table_id} was started already")
            if table.status == TableStatus.CLOSED.value:
                raise TableClosed(f"table {table_id} is closed")
            if hand_number != table.hands_started + 1:
                raise StaleHand(
                    f"the next hand of table {table_id} is {table.hands_started + 1}, "
                    f"not {hand_number}"
                )
            running = await self._running_hand(session, table_id)
            if running is not None:
                raise HandInProgress(f"hand {running.hand_number} of {table_id} is running")
            pair = await self._live_pair(session, table_id, SeedPairState.CURRENT, lock=True)
            if pair.id != seed_pair_id:
                raise StaleHand(f"seed pair {seed_pair_id} is not the one dealing {table_id}")
            await self._check_players(session, table_id, seats)
            hand = HandRow(
                id=hand_id or _new_id("h"),
                table_id=table_id,
                hand_number=hand_number,
                seed_pair_id=pair.id,
                commitment=pair.commitment,
                client_seed=pair.client_seed,
                nonce=pair.next_nonce,
                state=HandState.RUNNING.value,
                button_seat=button_seat,
                profile=profile,
                settings=dict(settings),
                started_at=self._clock(),
            )
            pair.next_nonce += 1
            table.hands_started = hand_number
            table.button_seat = button_seat
            session.add_all([pair, table, hand])
            await session.flush()
            session.add_all(
                HandPlayerRow(
                    hand_id=hand.id,
                    seat=s.seat,
                    player_id=s.player_id,
                    seat_session_id=s.seat_session_id,
                    start_stack=s.start_stack,
                )
                for s in seats
            )
            return hand

    async def _same_start(
        self,
        session: AsyncSession,
        hand: HandRow,
        seed_pair_id: str,
        button_seat: int,
        seats: list[HandSeat],
    ) -> bool:
        if (hand.seed_pair_id, hand.button_seat) != (seed_pair_id, button_seat):
            return False
        dealt = await self._hand_players(session, hand.id)
        had = sorted((p.seat, p.seat_session_id, p.player_id, p.start_stack) for p in dealt)
        return had == sorted(tuple(s) for s in seats)

    async def _check_players(
        self, session: AsyncSession, table_id: str, seats: list[HandSeat]
    ) -> None:
        ids = [s.seat_session_id for s in seats]
        rows = {
            r.id: r
            for r in (
                await session.exec(select(SeatSessionRow).where(col(SeatSessionRow.id).in_(ids)))
            ).all()
        }
        for s in seats:
            row = rows.get(s.seat_session_id)
            if row is None:
                raise SeatSessionNotFound(f"no seat session {s.seat_session_id}")
            if row.table_id != table_id or row.state != SeatSessionState.OPEN.value:
                # A closing session is leaving: he plays out his hand, never a new one.
                raise InvalidRecord(f"seat session {row.id} is not open at {table_id}")
            if (row.seat, row.player_id) != (s.seat, s.player_id):
                raise InvalidRecord(
                    f"seat session {row.id} is {row.player_id} at seat {row.seat}, "
                    f"not {s.player_id} at seat {s.seat}"
                )
            if row.stack != s.start_stack or s.start_stack <= 0:
                raise InvalidRecord(
                    f"seat session {row.id} has {row.stack} chips; it cannot start with "
                    f"{s.start_stack}"
                )

    async def get_hand(self, hand_id: str) -> HandRow:
        """The hand (``HandNotFound`` when there is none)."""
        async with self._read() as session:
            hand = await session.get(HandRow, hand_id)
            if hand is None:
                raise HandNotFound(f"no hand {hand_id}")
            return hand

    async def hand_players(self, hand_id: str) -> list[HandPlayerRow]:
        """The seats dealt into the hand, by seat."""
        async with self._read() as session:
            return await self._hand_players(session, hand_id)

    async def _hand_players(self, session: AsyncSession, hand_id: str) -> list[HandPlayerRow]:
        query = (
            select(HandPlayerRow)
            .where(HandPlayerRow.hand_id == hand_id)
            .order_by(col(HandPlayerRow.seat))
        )
        return list((await session.exec(query)).all())

    async def _locked_hand(self, session: AsyncSession, hand_id: str) -> tuple[TableRow, HandRow]:
        hand = await session.get(HandRow, hand_id)
        if hand is None:
            raise HandNotFound(f"no hand {hand_id}")
        table = await self._table(session, hand.table_id, lock=True)
        query = (
            select(HandRow)
            .where(HandRow.id == hand_id)
            .with_for_update()
            .execution_options(populate_existing=True)
        )
        return table, (await session.exec(query)).one()

    async def finish_hand(
        self,
        hand_id: str,
        *,
        cards: list[dict[str, Any]],
        actions: list[Any],
        pots: list[Any],
        rake: int,
        result: Mapping[str, Any],
        phh: str | None,
        final_stacks: Mapping[str, int],
        close_sessions: Iterable[tuple[str, str]] = (),
        button_seat: int | None = None,
    ) -> HandRow:
        """Record the finished hand and the new stacks, in one transaction.

        ``final_stacks`` maps every dealt-in seat session to its stack after the hand (rake
        taken); their sum plus ``rake`` must equal the start stacks' (``InvalidRecord``
        otherwise). ``close_sessions`` lists ``(seat_session_id, reason)`` for players who
        leave with the hand's end (dealt in or not). ``button_seat`` overrides the table's
        remembered button (None: this hand's). Finishing a finished hand again returns it;
        a cancelled one raises ``StaleHand``.
        """
        if rake < 0:
            raise InvalidRecord(f"rake must not be negative, not {rake}")
        leaving = [(sid, CloseReason(reason)) for sid, reason in close_sessions]
        async with self._write() as session:
            table, hand = await self._locked_hand(session, hand_id)
            if hand.state == HandState.COMPLETE.value:
                return hand
            if hand.state != HandState.RUNNING.value:
                raise StaleHand(f"hand {hand_id} is {hand.state}")
            dealt = await self._hand_players(session, hand_id)
            by_session = {p.seat_session_id: p for p in dealt}
            if set(final_stacks) != set(by_session):
                raise InvalidRecord(
                    f"final stacks name {sorted(final_stacks)}, the hand dealt {sorted(by_session)}"
                )
            if any(amount < 0 for amount in final_stacks.values()):
                raise InvalidRecord("a final stack is negative")
            before = sum(p.start_stack for p in dealt)
            after = sum(final_stacks.values()) + rake
            if before != after:
                raise InvalidRecord(
                    f"chips not conserved: start stacks {before}, final stacks + rake {after}"
                )
            now = self._clock()
            hand.state = HandState.COMPLETE.value
            hand.ended_at = now
            hand.cards = list(cards)
            hand.actions = list(actions)
            hand.pots = list(pots)
            hand.rake = rake
            hand.result = dict(result)
            hand.phh = phh
            session.add(hand)
            sessions = await self._sessions_by_id(
                session, [*by_session, *(sid for sid, _ in leaving)]
            )
            for sid, player in by_session.items():
                player.final_stack = final_stacks[sid]
                sessions[sid].stack = final_stacks[sid]
                session.add_all([player, sessions[sid]])
            for sid, reason in leaving:
                row = sessions.get(sid)
                if row is None or row.table_id != hand.table_id:
                    raise InvalidRecord(f"seat session {sid} is not at table {hand.table_id}")
                if row.state != SeatSessionState.CLOSED.value:
                    self._close(row, reason, now)
                    session.add(row)
            table.button_seat = button_seat if button_seat is not None else hand.button_seat
            session.add(table)
            return hand

    async def _sessions_by_id(
        self, session: AsyncSession, ids: list[str]
    ) -> dict[str, SeatSessionRow]:
        query = (
            select(SeatSessionRow)
            .where(col(SeatSessionRow.id).in_(sorted(set(ids))))
            .order_by(col(SeatSessionRow.id))
            .with_for_update()
            .execution_options(populate_existing=True)
        )
        return {row.id: row for row in (await session.exec(query)).all()}

    async def cancel_hand(
        self,
        hand_id: str,
        reason: str,
        *,
        cards: list[dict[str, Any]] | None = None,
        actions: list[Any] | None = None,
        result: Mapping[str, Any] | None = None,
        phh: str | None = None,
    ) -> HandRow:
        """Cancel a running hand: nothing is won, every player keeps his pre-hand stack.

        Seat sessions are untouched (their stacks are the pre-hand ones); the hand's players
        get ``final_stack = start_stack``; the nonce stays used. ``cards``, ``actions``,
        ``result`` and ``phh`` keep what was dealt and done, when known (the audit trail of a
        hand nobody won). Cancelling again returns the hand; a finished hand raises
        ``StaleHand``.
        """
        async with self._write() as session:
            _, hand = await self._locked_hand(session, hand_id)
            if hand.state == HandState.CANCELLED.value:
                return hand
            if hand.state != HandState.RUNNING.value:
                raise StaleHand(f"hand {hand_id} is {hand.state}")
            await self._cancel(session, hand, reason, self._clock(), cards, actions)
            if result is not None:
                hand.result = dict(result)
            hand.phh = phh
            session.add(hand)
            return hand

    async def _cancel(
        self,
        session: AsyncSession,
        hand: HandRow,
        reason: str,
        now: datetime,
        cards: list[dict[str, Any]] | None = None,
        actions: list[Any] | None = None,
    ) -> None:
        hand.state = HandState.CANCELLED.value
        hand.cancel_reason = reason
        hand.ended_at = now
        hand.rake = 0
        if cards is not None:
            hand.cards = list(cards)
        if actions is not None:
            hand.actions = list(actions)
        session.add(hand)
        for player in await self._hand_players(session, hand.id):
            player.final_stack = player.start_stack
            session.add(player)

    async def running_hands(self, node_id: str | None = None) -> list[RunningHand]:
        """Every hand still running (at ``node_id``'s tables, or any), oldest first
        (start-up: a previous engine left them)."""
        query = select(HandRow).where(HandRow.state == HandState.RUNNING.value)
        if node_id is not None:
            query = query.where(
                col(HandRow.table_id).in_(select(TableRow.id).where(TableRow.node_id == node_id))
            )
        async with self._read() as session:
            hands = list(
                (await session.exec(query.order_by(col(HandRow.started_at), col(HandRow.id)))).all()
            )
            found = []
            for hand in hands:
                table = await self._table(session, hand.table_id)
                pair = await session.get(SeedPairRow, hand.seed_pair_id)
                assert pair is not None  # a foreign key
                players = await self._hand_players(session, hand.id)
                found.append(RunningHand(hand, table, pair, players))
            return found

    async def recover_running_hands(
        self,
        reason: str = "engine restart",
        *,
        table_ids: Collection[str] | None = None,
        node_id: str | None = None,
    ) -> list[HandRow]:
        """Cancel every hand still running (of ``table_ids`` and of ``node_id``'s tables, or
        all): call on engine start.

        Returns the hands it cancelled, oldest first. Their chips need no refund: stacks are
        only written when a hand finishes.
        """
        async with self._write() as session:
            query = select(HandRow.table_id).where(HandRow.state == HandState.RUNNING.value)
            if table_ids is not None:
                query = query.where(col(HandRow.table_id).in_(list(table_ids)))
            if node_id is not None:
                query = query.where(
                    col(HandRow.table_id).in_(
                        select(TableRow.id).where(TableRow.node_id == node_id)
                    )
                )
            tables = sorted(set((await session.exec(query)).all()))
            # Lock every affected table first, in id order, as the other writers do.
            await session.exec(
                select(TableRow.id)
                .where(col(TableRow.id).in_(tables))
                .order_by(col(TableRow.id))
                .with_for_update()
            )
            hands = list(
                (
                    await session.exec(
                        select(HandRow)
                        .where(
                            col(HandRow.table_id).in_(tables),
                            HandRow.state == HandState.RUNNING.value,
                        )
                        .order_by(col(HandRow.started_at), col(HandRow.id))
                        .execution_options(populate_existing=True)
                    )
                ).all()
            )
            now = self._clock()
            for hand in hands:
                await self._cancel(session, hand, reason, now)
            return hands
