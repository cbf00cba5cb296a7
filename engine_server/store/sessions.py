"""Seat sessions: a player's stay at a seat, with its chips, additions and removal.

A session's ``stack`` is its stack as of the last finished hand plus chip additions: only
:meth:`engine_server.store.hands.Hands.finish_hand` and :meth:`SeatSessions.add_chips` change
it. Seating (``seat_session_id``) and adding chips (``request_id``) are idempotent by the
lobby's ids: a retry returns what the first call answered, and the same key with other
parameters raises :class:`~engine_server.store.errors.IdempotencyKeyReused`. A RemovePlayer is
recorded with its answer (:class:`~engine_server.store.models.SeatSessionRemovalRow`), in the
transaction that applies it.

>>> from datetime import UTC
>>> now = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
>>> row = SeatSessionRow(id="s1", table_id="t-1", player_id="p1", display_name="P1", seat=1,
...                      buy_in=100, chips_in=100, stack=100, state="open", opened_at=now)
>>> close_row(row, CloseReason.LEFT, now)
>>> row.state, row.close_reason, row.closed_at
('closed', 'left', datetime.datetime(2025, 1, 1, 12, 0, tzinfo=datetime.timezone.utc))
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.store.base import Transactions, check_id, for_update, table_row
from engine_server.store.errors import (
    AlreadySeated,
    BuyInOutOfRange,
    HandInProgress,
    IdempotencyKeyReused,
    InvalidRecord,
    SeatSessionClosed,
    SeatSessionNotFound,
    SeatTaken,
    StoreError,
    TableClosed,
)
from engine_server.store.models import (
    ChipAdditionRow,
    CloseReason,
    HandPlayerRow,
    HandRow,
    HandState,
    SeatSessionRemovalRow,
    SeatSessionRow,
    SeatSessionState,
    TableRow,
    TableStatus,
)
from engine_server.store.pages import Page, clamp, decode_token, page_of

__all__ = [
    "DEFAULT_SESSION_PAGE",
    "MAX_SESSION_PAGE",
    "OCCUPYING",
    "Move",
    "SeatSessions",
    "close_row",
    "occupied",
]

DEFAULT_SESSION_PAGE = 100
MAX_SESSION_PAGE = 1000

#: The states of a session that holds its seat (not closed yet).
OCCUPYING = (SeatSessionState.OPEN.value, SeatSessionState.CLOSING.value)


async def occupied(session: AsyncSession, table_id: str) -> list[SeatSessionRow]:
    """The table's sessions holding a seat (open or closing), by seat."""
    query = select(SeatSessionRow).where(
        SeatSessionRow.table_id == table_id, col(SeatSessionRow.state).in_(OCCUPYING)
    )
    return list((await session.exec(query.order_by(col(SeatSessionRow.seat)))).all())


@dataclass(frozen=True, slots=True)
class Move:
    """A MovePlayer (tournament): the director's request_id and where the player goes
    (``{"table", "grpc_address", "web_url"}``)."""

    request_id: str
    destination: dict[str, str]


async def _earlier_move(
    session: AsyncSession, seat_session_id: str, move: Move | None
) -> SeatSessionRemovalRow | None:
    """The move recorded for the session (None: none, or ``move`` is None); another
    request's (or a RemovePlayer's) raises ``IdempotencyKeyReused``."""
    if move is None:
        return None
    earlier = await session.get(SeatSessionRemovalRow, seat_session_id)
    if earlier is not None and (earlier.request_id, earlier.destination) != (
        move.request_id,
        move.destination,
    ):
        raise IdempotencyKeyReused(
            f"seat session {seat_session_id} was moved or removed by another request"
        )
    return earlier


def close_row(row: SeatSessionRow, reason: CloseReason, now: datetime) -> None:
    """Mark ``row`` closed for ``reason`` at ``now`` (the caller adds it to its session)."""
    row.state = SeatSessionState.CLOSED.value
    row.close_reason = reason.value
    row.closed_at = now


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


async def _locked(session: AsyncSession, seat_session_id: str) -> tuple[TableRow, SeatSessionRow]:
    """The session's table and the session, locked in that order."""
    row = await session.get(SeatSessionRow, seat_session_id)
    if row is None:
        raise SeatSessionNotFound(f"no seat session {seat_session_id}")
    table = await table_row(session, row.table_id, lock=True)
    query = for_update(select(SeatSessionRow).where(SeatSessionRow.id == seat_session_id))
    return table, (await session.exec(query)).one()


async def _in_running_hand(session: AsyncSession, seat_session_id: str) -> bool:
    query = (
        select(HandPlayerRow.hand_id)
        .join(HandRow, col(HandRow.id) == col(HandPlayerRow.hand_id))
        .where(
            HandPlayerRow.seat_session_id == seat_session_id,
            HandRow.state == HandState.RUNNING.value,
        )
    )
    return (await session.exec(query)).first() is not None


async def _earlier_removal(
    session: AsyncSession, seat_session_id: str, reason: str | None, by_player: bool
) -> SeatSessionRemovalRow | None:
    """The removal recorded for the session (None: none, or ``reason`` is None: not a
    removal); ``IdempotencyKeyReused`` when it gave another reason or ``by_player``."""
    if reason is None:
        return None
    earlier = await session.get(SeatSessionRemovalRow, seat_session_id)
    if earlier is not None and earlier.reason != reason:
        raise IdempotencyKeyReused(
            f"seat session {seat_session_id} was removed with another reason", field="reason"
        )
    if earlier is not None and earlier.by_player != by_player:
        raise IdempotencyKeyReused(
            f"seat session {seat_session_id} was removed with another by_player",
            field="by_player",
        )
    return earlier


class SeatSessions:
    """The seat sessions' store."""

    def __init__(self, tx: Transactions) -> None:
        self._tx = tx

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
        check_id("seat_session_id", seat_session_id)
        check_id("player_id", player_id)
        if seat < 1:
            raise StoreError(f"seat must be 1 or more, not {seat}")
        async with self._tx.write() as session:
            # Table lock first: a concurrent retry of this very call then finds the session.
            table = await table_row(session, table_id, lock=True)
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
            if table.tournament_id is not None:
                # Tournament chips, as the director gives them: no range.
                if buy_in <= 0:
                    raise BuyInOutOfRange(f"tournament chips must be positive, not {buy_in}")
            elif not table.min_buy_in <= buy_in <= table.max_buy_in:
                raise BuyInOutOfRange(
                    f"buy-in {buy_in} is outside {table.min_buy_in}..{table.max_buy_in}"
                )
            for seated in await occupied(session, table_id):
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
                opened_at=self._tx.clock(),
            )
            session.add(row)
            return row

    async def find_session(self, seat_session_id: str) -> SeatSessionRow | None:
        """The seat session (None when there is none)."""
        async with self._tx.read() as session:
            return await session.get(SeatSessionRow, seat_session_id)

    async def get_session(self, seat_session_id: str) -> SeatSessionRow:
        """The seat session (``SeatSessionNotFound`` when there is none)."""
        async with self._tx.read() as session:
            row = await session.get(SeatSessionRow, seat_session_id)
            if row is None:
                raise SeatSessionNotFound(f"no seat session {seat_session_id}")
            return row

    async def display_names(self, seat_session_ids: Collection[str]) -> dict[str, str]:
        """The display names of these seat sessions, by id, in one read (unknown ids are left
        out)."""
        if not seat_session_ids:
            return {}
        query = select(SeatSessionRow.id, SeatSessionRow.display_name).where(
            col(SeatSessionRow.id).in_(sorted(set(seat_session_ids)))
        )
        async with self._tx.read() as session:
            return {row[0]: row[1] for row in (await session.exec(query)).all()}

    async def add_chips(self, seat_session_id: str, request_id: str, amount: int) -> SeatSessionRow:
        """Add chips to an open session between its hands (idempotent by ``request_id``).

        A retry returns the first answer (the session as that addition left it) without adding
        again, whenever it comes; the id with another session or amount raises
        ``IdempotencyKeyReused``. Refusals: ``SeatSessionClosed`` (closing or
        closed), ``TableClosed``, ``HandInProgress`` (he is in the running hand),
        ``BuyInOutOfRange`` (the stack would exceed max_buy_in).
        """
        check_id("request_id", request_id)
        if amount <= 0:
            raise StoreError(f"amount must be positive, not {amount}")
        async with self._tx.write() as session:
            table, row = await _locked(session, seat_session_id)
            done = await session.get(ChipAdditionRow, request_id)
            if done is not None:
                _check_same_addition(done, seat_session_id, amount)
                return _as_answered(row, done)
            if row.state != SeatSessionState.OPEN.value:
                raise SeatSessionClosed(f"seat session {seat_session_id} is {row.state}")
            if table.status in {TableStatus.CLOSING.value, TableStatus.CLOSED.value}:
                raise TableClosed(f"table {table.id} is {table.status}")
            if await _in_running_hand(session, seat_session_id):
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
                    created_at=self._tx.clock(),
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
        async with self._tx.read() as session:
            done = await session.get(ChipAdditionRow, request_id)
            if done is None:
                return None
            _check_same_addition(done, seat_session_id, amount)
            row = await session.get(SeatSessionRow, done.seat_session_id)
            assert row is not None  # a foreign key
            return _as_answered(row, done)

    async def move(self, request_id: str) -> tuple[SeatSessionRemovalRow, SeatSessionRow] | None:
        """The MovePlayer recorded under ``request_id`` and its session as it is now (None:
        no move has this id)."""
        async with self._tx.read() as session:
            query = select(SeatSessionRemovalRow).where(
                SeatSessionRemovalRow.request_id == request_id
            )
            record = (await session.exec(query)).first()
            if record is None:
                return None
            row = await session.get(SeatSessionRow, record.seat_session_id)
            assert row is not None  # a foreign key
            return record, row

    async def removal(self, seat_session_id: str) -> SeatSessionRemovalRow | None:
        """The RemovePlayer recorded for the session (None: it was never removed)."""
        async with self._tx.read() as session:
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
        by_player: bool = False,
    ) -> SeatSessionRemovalRow:
        """Record a RemovePlayer that changed nothing itself, with its answer (the session
        closing or closed): he was already leaving. A removal that closes the session or marks
        it closing is recorded by :meth:`close_session` / :meth:`mark_closing` (``removal=``),
        in the same transaction as the change.

        Recording it again returns the first record; another reason or ``by_player`` raises
        ``IdempotencyKeyReused``.
        """
        answered = SeatSessionState(state)
        if answered is SeatSessionState.OPEN:
            raise InvalidRecord("a removal answers with a closing or closed session")
        async with self._tx.write() as session:
            _, row = await _locked(session, seat_session_id)
            earlier = await _earlier_removal(session, seat_session_id, reason, by_player)
            if earlier is not None:
                return earlier
            record = SeatSessionRemovalRow(
                seat_session_id=row.id,
                reason=reason,
                by_player=by_player,
                state=answered.value,
                chips_in=chips_in,
                stack=stack,
                close_reason=CloseReason(close_reason).value if close_reason else None,
                created_at=self._tx.clock(),
            )
            session.add(record)
            return record

    def _add_removal(
        self,
        session: AsyncSession,
        row: SeatSessionRow,
        reason: str | None,
        by_player: bool = False,
        move: Move | None = None,
    ) -> None:
        """Record a RemovePlayer (or a MovePlayer) answered with ``row`` as it is now (in the
        caller's transaction: the change and the answer a retry gets are written together)."""
        if reason is None and move is None:
            return
        session.add(
            SeatSessionRemovalRow(
                seat_session_id=row.id,
                request_id=None if move is None else move.request_id,
                destination=None if move is None else dict(move.destination),
                reason=f"moved to {move.destination.get('table')}" if move else str(reason),
                by_player=by_player,
                state=row.state,
                chips_in=row.chips_in,
                stack=row.stack,
                close_reason=row.close_reason if row.state == SeatSessionState.CLOSED else None,
                created_at=self._tx.clock(),
            )
        )

    async def mark_closing(
        self,
        seat_session_id: str,
        *,
        removal: str | None = None,
        by_player: bool = False,
        move: Move | None = None,
    ) -> SeatSessionRow:
        """Record that the player is leaving once the running hand ends (idempotent).

        A restart then closes his session instead of dealing him in again (as removed, or as
        left: no removal, or one ``by_player``). ``removal``: a RemovePlayer's reason, recorded
        with its answer (this closing session) and ``by_player`` (it relays his own leave) in
        the same transaction; a removal already recorded with that reason changes nothing and
        is not recorded again (another reason or ``by_player``: ``IdempotencyKeyReused``,
        nothing written). ``move``: a MovePlayer's, recorded the same way.
        """
        async with self._tx.write() as session:
            _, row = await _locked(session, seat_session_id)
            earlier = await _earlier_removal(session, seat_session_id, removal, by_player)
            earlier = earlier or await _earlier_move(session, seat_session_id, move)
            if row.state == SeatSessionState.CLOSED.value:
                raise SeatSessionClosed(f"seat session {seat_session_id} is closed")
            row.state = SeatSessionState.CLOSING.value
            session.add(row)
            if earlier is None:
                self._add_removal(session, row, removal, by_player, move)
            return row

    async def close_session(
        self,
        seat_session_id: str,
        final_stack: int | None,
        reason: str,
        *,
        removal: str | None = None,
        by_player: bool = False,
        move: Move | None = None,
    ) -> SeatSessionRow:
        """Close a session between hands: its stack becomes final, due to the player (at a
        tournament table: the chips he takes to his next table, ``move``).

        ``final_stack`` must equal the stored stack (None: take it) — stacks only change
        through finished hands and chip additions, so a different figure is a bug and is
        refused (``InvalidRecord``). Closing again with the same reason returns the session;
        with another, ``SeatSessionClosed``. ``HandInProgress`` while he is in a running hand
        (:meth:`~engine_server.store.hands.Hands.finish_hand` closes leavers with the hand).
        ``removal``: a RemovePlayer's reason, recorded with its answer (this closed session)
        and ``by_player`` in the same transaction, as :meth:`mark_closing` does.
        """
        why = CloseReason(reason)
        async with self._tx.write() as session:
            _, row = await _locked(session, seat_session_id)
            earlier = await _earlier_removal(session, seat_session_id, removal, by_player)
            earlier = earlier or await _earlier_move(session, seat_session_id, move)
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
                    self._add_removal(session, row, removal, by_player, move)
                return row
            if await _in_running_hand(session, seat_session_id):
                raise HandInProgress(f"seat session {seat_session_id} is in the running hand")
            close_row(row, why, self._tx.clock())
            session.add(row)
            if earlier is None:
                self._add_removal(session, row, removal, by_player, move)
            return row

    async def list_sessions(
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
        size = clamp(page_size, DEFAULT_SESSION_PAGE, MAX_SESSION_PAGE)
        wanted = sorted({SeatSessionState(s).value for s in states or ()})
        filters = ["sessions", table_id, wanted]
        query = select(SeatSessionRow)
        if table_id is not None:
            query = query.where(SeatSessionRow.table_id == table_id)
        if wanted:
            query = query.where(col(SeatSessionRow.state).in_(wanted))
        if page_token:
            when, last_id = decode_token(page_token, filters)
            query = query.where(
                sa.or_(
                    col(SeatSessionRow.opened_at) > when,
                    sa.and_(
                        col(SeatSessionRow.opened_at) == when, col(SeatSessionRow.id) > last_id
                    ),
                )
            )
        query = query.order_by(col(SeatSessionRow.opened_at), col(SeatSessionRow.id))
        async with self._tx.read() as session:
            rows = list((await session.exec(query.limit(size + 1))).all())
        return page_of(rows, size, filters, lambda s: (s.opened_at.isoformat(), s.id))
