"""Hands: started (taking a nonce), finished (writing the stacks) or cancelled.

Nonces. :meth:`Hands.start_hand` takes the current seed pair's ``next_nonce`` and advances it
in the transaction that records the running hand, so a nonce is used once and never skipped,
whatever happens afterwards.

Chips. Starting a hand does not touch stacks, so cancelling it (or a crash while it runs)
leaves every player with his pre-hand stack: every chip put in goes back. Finishing a hand
writes the new stacks, refusing a result in which chips are not conserved (final stacks +
rake = start stacks). Finishing is on the hot path (once per hand at every table): one
transaction that locks the table, then the hand and its players' sessions, and writes them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple, TypeVar

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
    HandInProgress,
    HandNotFound,
    InvalidRecord,
    SeatSessionNotFound,
    StaleHand,
    TableClosed,
)
from engine_server.store.models import (
    CloseReason,
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
from engine_server.store.seeds import live_pair
from engine_server.store.sessions import close_row

__all__ = ["HandSeat", "Hands", "RunningHand"]


class HandSeat(NamedTuple):
    """A seat dealt into a hand, as :meth:`Hands.start_hand` takes it."""

    seat: int
    seat_session_id: str
    player_id: str
    start_stack: int


@dataclass(frozen=True, slots=True)
class RunningHand:
    """A hand still running, with what rebuilding its deal needs (its table's settings, its
    seed pair, its players): on start-up, before recovery cancels it."""

    hand: HandRow
    table: TableRow
    seed_pair: SeedPairRow
    #: by seat
    players: list[HandPlayerRow]


_Row = TypeVar("_Row", TableRow, SeedPairRow)


async def _rows_by_id(
    session: AsyncSession, row: type[_Row], ids: Collection[str]
) -> dict[str, _Row]:
    """The rows of ``row``'s table with these ids, by id, in one statement."""
    found = await session.exec(select(row).where(col(row.id).in_(sorted(ids))))
    return {r.id: r for r in found.all()}


async def _hand_players(session: AsyncSession, hand_id: str) -> list[HandPlayerRow]:
    query = (
        select(HandPlayerRow)
        .where(HandPlayerRow.hand_id == hand_id)
        .order_by(col(HandPlayerRow.seat))
    )
    return list((await session.exec(query)).all())


async def _locked(session: AsyncSession, hand_id: str) -> tuple[TableRow, HandRow]:
    """The hand's table and the hand, locked in that order."""
    hand = await session.get(HandRow, hand_id)
    if hand is None:
        raise HandNotFound(f"no hand {hand_id}")
    table = await table_row(session, hand.table_id, lock=True)
    query = for_update(select(HandRow).where(HandRow.id == hand_id))
    return table, (await session.exec(query)).one()


async def _sessions_by_id(session: AsyncSession, ids: list[str]) -> dict[str, SeatSessionRow]:
    """These seat sessions, locked (in id order), by id."""
    query = for_update(
        select(SeatSessionRow)
        .where(col(SeatSessionRow.id).in_(sorted(set(ids))))
        .order_by(col(SeatSessionRow.id))
    )
    return {row.id: row for row in (await session.exec(query)).all()}


async def _same_start(
    session: AsyncSession,
    hand: HandRow,
    seed_pair_id: str,
    button_seat: int,
    seats: list[HandSeat],
) -> bool:
    if (hand.seed_pair_id, hand.button_seat) != (seed_pair_id, button_seat):
        return False
    dealt = await _hand_players(session, hand.id)
    had = sorted((p.seat, p.seat_session_id, p.player_id, p.start_stack) for p in dealt)
    return had == sorted(tuple(s) for s in seats)


async def _check_players(session: AsyncSession, table_id: str, seats: list[HandSeat]) -> None:
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
                f"seat session {row.id} has {row.stack} chips; it cannot start with {s.start_stack}"
            )


async def _cancel(
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
    for player in await _hand_players(session, hand.id):
        player.final_stack = player.start_stack
        session.add(player)


class Hands:
    """The hands' store."""

    def __init__(self, tx: Transactions) -> None:
        self._tx = tx

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
            check_id("hand_id", hand_id)
        async with self._tx.write() as session:
            table = await table_row(session, table_id, lock=True)
            earlier = (
                await session.exec(
                    select(HandRow).where(
                        HandRow.table_id == table_id, HandRow.hand_number == hand_number
                    )
                )
            ).first()
            if earlier is not None:
                if await _same_start(session, earlier, seed_pair_id, button_seat, seats):
                    return earlier
                raise StaleHand(f"hand {hand_number} of table {table_id} was started already")
            if table.status == TableStatus.CLOSED.value:
                raise TableClosed(f"table {table_id} is closed")
            if hand_number != table.hands_started + 1:
                raise StaleHand(
                    f"the next hand of table {table_id} is {table.hands_started + 1}, "
                    f"not {hand_number}"
                )
            running = await running_hand(session, table_id)
            if running is not None:
                raise HandInProgress(f"hand {running.hand_number} of {table_id} is running")
            pair = await live_pair(session, table_id, SeedPairState.CURRENT, lock=True)
            if pair.id != seed_pair_id:
                raise StaleHand(f"seed pair {seed_pair_id} is not the one dealing {table_id}")
            await _check_players(session, table_id, seats)
            hand = HandRow(
                id=hand_id or new_id("h"),
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
                started_at=self._tx.clock(),
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

    async def get_hand(self, hand_id: str) -> HandRow:
        """The hand (``HandNotFound`` when there is none)."""
        async with self._tx.read() as session:
            hand = await session.get(HandRow, hand_id)
            if hand is None:
                raise HandNotFound(f"no hand {hand_id}")
            return hand

    async def hand_players(self, hand_id: str) -> list[HandPlayerRow]:
        """The seats dealt into the hand, by seat."""
        async with self._tx.read() as session:
            return await _hand_players(session, hand_id)

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
        async with self._tx.write() as session:
            table, hand = await _locked(session, hand_id)
            if hand.state == HandState.COMPLETE.value:
                return hand
            if hand.state != HandState.RUNNING.value:
                raise StaleHand(f"hand {hand_id} is {hand.state}")
            dealt = await _hand_players(session, hand_id)
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
            now = self._tx.clock()
            hand.state = HandState.COMPLETE.value
            hand.ended_at = now
            hand.cards = list(cards)
            hand.actions = list(actions)
            hand.pots = list(pots)
            hand.rake = rake
            hand.result = dict(result)
            hand.phh = phh
            session.add(hand)
            sessions = await _sessions_by_id(session, [*by_session, *(sid for sid, _ in leaving)])
            for sid, player in by_session.items():
                player.final_stack = final_stacks[sid]
                sessions[sid].stack = final_stacks[sid]
                session.add_all([player, sessions[sid]])
            for sid, reason in leaving:
                row = sessions.get(sid)
                if row is None or row.table_id != hand.table_id:
                    raise InvalidRecord(f"seat session {sid} is not at table {hand.table_id}")
                if row.state != SeatSessionState.CLOSED.value:
                    close_row(row, reason, now)
                    if reason is CloseReason.BUSTED:
                        # Out of the tournament in this hand, with these chips at its start.
                        dealt_in = by_session.get(sid)
                        row.busted_hand_number = hand.hand_number
                        row.busted_start_stack = 0 if dealt_in is None else dealt_in.start_stack
                    session.add(row)
            table.button_seat = button_seat if button_seat is not None else hand.button_seat
            session.add(table)
            return hand

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
        async with self._tx.write() as session:
            _, hand = await _locked(session, hand_id)
            if hand.state == HandState.CANCELLED.value:
                return hand
            if hand.state != HandState.RUNNING.value:
                raise StaleHand(f"hand {hand_id} is {hand.state}")
            await _cancel(session, hand, reason, self._tx.clock(), cards, actions)
            if result is not None:
                hand.result = dict(result)
            hand.phh = phh
            session.add(hand)
            return hand

    async def running_hands(
        self, node_id: str | None = None, *, table_ids: Collection[str] | None = None
    ) -> list[RunningHand]:
        """Every hand still running (at ``node_id``'s tables and ``table_ids``, or any),
        oldest first (start-up, a takeover: a previous engine left them)."""
        query = select(HandRow).where(HandRow.state == HandState.RUNNING.value)
        if table_ids is not None:
            query = query.where(col(HandRow.table_id).in_(sorted(set(table_ids))))
        if node_id is not None:
            query = query.where(
                col(HandRow.table_id).in_(select(TableRow.id).where(TableRow.node_id == node_id))
            )
        async with self._tx.read() as session:
            hands = list(
                (await session.exec(query.order_by(col(HandRow.started_at), col(HandRow.id)))).all()
            )
            if not hands:
                return []
            # Three reads for all of them, not three per hand: a takeover recovers hundreds.
            tables = await _rows_by_id(session, TableRow, {h.table_id for h in hands})
            pairs = await _rows_by_id(session, SeedPairRow, {h.seed_pair_id for h in hands})
            players: dict[str, list[HandPlayerRow]] = {h.id: [] for h in hands}
            for player in (
                await session.exec(
                    select(HandPlayerRow)
                    .where(col(HandPlayerRow.hand_id).in_(list(players)))
                    .order_by(col(HandPlayerRow.hand_id), col(HandPlayerRow.seat))
                )
            ).all():
                players[player.hand_id].append(player)
            # foreign keys: every hand's table and seed pair exist
            return [
                RunningHand(hand, tables[hand.table_id], pairs[hand.seed_pair_id], players[hand.id])
                for hand in hands
            ]

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
        async with self._tx.write() as session:
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
                for_update(
                    select(TableRow.id)
                    .where(col(TableRow.id).in_(tables))
                    .order_by(col(TableRow.id))
                )
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
            now = self._tx.clock()
            for hand in hands:
                await _cancel(session, hand, reason, now)
            return hands
