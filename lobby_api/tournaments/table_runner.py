"""Step 6 of the tournament director: the tables of a seated tournament, under its lease
(:meth:`~lobby_api.tournaments.director.Director.run_tables`): moves decided before are
finished, empty tables closed, hand-for-hand at the bubble (``SetHandHold``: every table held
after its hand of the round, the round's busts placed together, every table released
together), balancing and breaking (moves recorded first, then ``MovePlayer`` and
``SeatPlayer`` with the chips it answered), and the level and the panel shown
(:class:`~lobby_api.tournaments.panel.TournamentPanel`).
"""

from __future__ import annotations

import logging

import grpc
import sqlalchemy as sa
from sqlmodel import col, select
from stud.v1 import table_pb2

from engine_server.ids import new_id
from engine_server.store.types import utc_now
from lobby_api import engine_reads
from lobby_api.db import Database
from lobby_api.engine_client import EngineError
from lobby_api.tournaments.common import (
    locked_tournament,
)
from lobby_api.tournaments.engine_calls import TournamentEngine
from lobby_api.tournaments.hand_ends import HandEnds, plays_hand_for_hand
from lobby_api.tournaments.models import (
    EntryStatus,
    TableStatus,
    TournamentEntryRow,
    TournamentStatus,
    TournamentTableRow,
)
from lobby_api.tournaments.panel import TournamentPanel
from lobby_api.tournaments.place_telling import PlaceTeller
from lobby_api.tournaments.seater import Seater
from lobby_api.tournaments.seating import Move, Table, plan_moves
from lobby_api.tournaments.table_reads import engine_tables, playing_entries

__all__ = ["TableRunner"]

log = logging.getLogger("stud.lobby.tournaments")


class _Replan(Exception):
    """The tables changed between a plan of moves and its recording."""


class TableRunner:
    """One tournament's tables between hands."""

    def __init__(
        self,
        db: Database,
        engine: TournamentEngine,
        seater: Seater,
        hands: HandEnds,
        places: PlaceTeller,
        panel: TournamentPanel,
    ) -> None:
        self.db = db
        self.engine = engine
        self.seater = seater
        self.hands = hands
        self.places = places
        self.panel = panel

    async def run_tables_of(self, tournament_id: str) -> None:
        """One tournament's tables between hands: moves decided before are finished, empty
        tables closed, hand-for-hand rounds held and released together, the tables
        balanced (and broken), and every table shown the level and the tournament."""
        await self.finish_moves(tournament_id)
        await self.seater.seat_players(tournament_id)
        await self.close_empty_tables(tournament_id)
        round_over = await self.hand_for_hand(tournament_id)
        if await self.balance(tournament_id, round_over):
            await self.finish_moves(tournament_id)
            await self.seater.seat_players(tournament_id)
            await self.close_empty_tables(tournament_id)
        if round_over:
            await self.release_holds(tournament_id)
        await self.panel.show_tournament(tournament_id)

    async def balance(self, tournament_id: str, round_over: bool) -> int:
        """Decide the moves of :func:`~lobby_api.tournaments.seating.plan_moves` (breaking
        tables first, then balancing) among the tables between hands, and record them in
        one transaction: each mover's new table, seat and seat session, and the table and
        session he leaves. A table a move is pending from or to, or with a seat unconfirmed,
        is left out of the plan until that is done; playing hand-for-hand, nothing is decided
        before the round is over and every move done. The count of moves."""
        tournament, tables, engine = await engine_tables(self.db, tournament_id)
        if tournament.status != TournamentStatus.RUNNING.value or len(tables) < 2:
            return 0
        playing = await playing_entries(self.db, tournament_id)
        # A table a move is pending from or to (or a seat there unconfirmed) is left out of
        # the plan until it is done; the others are planned now. Waiting for every move to
        # finish, a 143-table field (benchmarks/tournament.py) kept its short tables for
        # minutes: a move waits for the mover's hand to end, and some hand always runs.
        busy: set[str | None] = set()
        for entry in playing:
            if entry.move_from_session or entry.seated_at is None:
                busy.update((entry.table_id, entry.move_from_table))
        tables = [t for t in tables if t.table_id not in busy]
        if len(tables) < 2:
            return 0
        async with self.db.read() as session:
            h4h = await plays_hand_for_hand(session, tournament)
        if h4h and (not round_over or busy):
            return 0
        # Every table the engine has: a mover dealt into a running hand plays it out and
        # leaves when it ends (MovePlayer), so no table waits for a gap between hands.
        movable = {t.table_id for t in tables if t.table_id in engine}
        seats: dict[str, dict[int, str]] = {t.table_id: {} for t in tables}
        for entry in playing:
            if entry.table_id in seats and entry.seat is not None:
                seats[entry.table_id][entry.seat] = entry.id
        moves = plan_moves(
            [Table(t.table_id, t.number, seats[t.table_id]) for t in tables],
            tournament.table_size,
            movable,
            key=bytes.fromhex(tournament.draw_key),
        )
        if not moves:
            return 0
        try:
            await self._record_moves(tournament_id, moves)
        except _Replan:
            return 0
        log.info(
            "tournament %s: %s",
            tournament_id,
            ", ".join(
                f"{m.player_id} {m.from_table}->{m.to_table}"
                + (" (breaking)" if m.breaking else "")
                for m in moves
            ),
        )
        return len(moves)

    async def _record_moves(self, tournament_id: str, moves: list[Move]) -> None:
        """Record the moves planned, in one transaction (:class:`_Replan`: the tables changed
        since the plan, nothing recorded)."""
        async with self.db.write() as session:
            await locked_tournament(session, tournament_id)
            movers = {
                e.id: e
                for e in (
                    await session.exec(
                        select(TournamentEntryRow).where(
                            col(TournamentEntryRow.id).in_([m.player_id for m in moves])
                        )
                    )
                ).all()
            }
            for move in moves:
                entry = movers.get(move.player_id)
                if (
                    entry is None
                    or entry.status != EntryStatus.PLAYING.value
                    or entry.table_id != move.from_table
                    or entry.move_from_session is not None
                ):
                    # A hand recorded since the plan changed the tables: plan again next pass.
                    raise _Replan()
                entry.move_from_table = entry.table_id
                entry.move_from_session = entry.seat_session_id
                entry.table_id = move.to_table
                entry.seat = move.to_seat
                entry.seat_session_id = new_id("ss", size=12)
                entry.seated_at = None
                session.add(entry)

    async def finish_moves(self, tournament_id: str) -> int:
        """Take every pending mover off the table he leaves (``MovePlayer``, idempotent on a
        request id derived from his old session); once his session there closed MOVED and
        that table's hands are recorded, his chips are the session's stack and the move is
        done (the seat at the destination is :meth:`~lobby_api.tournaments.seater.Seater.seat_players`'). The count done."""
        _tournament, tables, _engine = await engine_tables(self.db, tournament_id)
        recorded = {t.table_id: t for t in tables}
        done = 0
        for entry in await playing_entries(self.db, tournament_id):
            source, old = entry.move_from_table, entry.move_from_session
            if not source or not old:
                continue
            assert entry.table_id is not None
            try:
                moved = await self.engine.move(source, old, f"mv-{old}", entry.table_id)
            except EngineError as error:
                if error.code is not grpc.StatusCode.NOT_FOUND:
                    raise
                # His session closed before the move (busted in the hand that just ended):
                # record_hands places him and voids the move.
                continue
            if (
                moved.state != table_pb2.SEAT_SESSION_STATE_CLOSED
                or moved.close_reason != table_pb2.SEAT_SESSION_CLOSE_REASON_MOVED
            ):
                continue  # playing out a hand (or busted in it: record_hands places him)
            if source in recorded:
                # The hands he played there are recorded first (the tournament's chips add up
                # at every moment: his stack leaves with the hand's other results), with the
                # hands that ended before them at the other tables (busts placed in order).
                ended: dict[str, list[engine_reads.HandOutcome]] = {}
                async with self.db.read() as session:
                    for table in tables:
                        ended[table.table_id] = await engine_reads.hand_outcomes_since(
                            session, table.table_id, table.hands_recorded
                        )
                _count, recorded_all = await self.hands.record_in_order(tournament_id, ended)
                if not recorded_all:
                    continue  # hand-for-hand: the round records the rest
            async with self.db.write() as session:
                result = await session.exec(
                    sa.update(TournamentEntryRow)
                    .where(
                        col(TournamentEntryRow.id) == entry.id,
                        col(TournamentEntryRow.move_from_session) == old,
                    )
                    .values(chips=int(moved.stack), move_from_table=None, move_from_session=None)
                )
                done += int(result.rowcount or 0)
        return done

    async def close_empty_tables(self, tournament_id: str) -> int:
        """Close the broken tables: open, between hands, nobody playing there or leaving."""
        tournament, tables, engine = await engine_tables(self.db, tournament_id)
        if tournament.status != TournamentStatus.RUNNING.value or len(tables) < 2:
            return 0
        used = set()
        for entry in await playing_entries(self.db, tournament_id):
            used.add(entry.table_id)
            used.add(entry.move_from_table)
        closed = 0
        for table in tables:
            if table.table_id in used or table.table_id not in engine:
                continue
            # Nobody of the tournament plays there any more (a hand running there has no
            # tournament chips in it): closed once everyone placed there heard his place.
            if not await self.places.tell_places_at(tournament_id, table.table_id):
                continue
            await self.engine.close_table(table.table_id, "table broken")
            async with self.db.write() as session:
                await session.exec(
                    sa.update(TournamentTableRow)
                    .where(col(TournamentTableRow.table_id) == table.table_id)
                    .values(status=TableStatus.CLOSED.value, closed_at=utc_now())
                )
            log.info("tournament %s: table %s broken", tournament_id, table.table_id)
            closed += 1
        return closed

    async def hand_for_hand(self, tournament_id: str) -> bool:
        """Hand-for-hand near the money (:func:`~lobby_api.tournaments.hand_ends.plays_hand_for_hand`): every table is held
        after the hand it plays in the round (``SetHandHold``); once every table is held with
        no hand running, the round's hands at all tables are recorded in one transaction
        (their busts share the places: more chips at the hand's start places higher) and
        True is returned: the caller balances, then releases every table together. Out of
        hand-for-hand every hold is released."""
        tournament, tables, engine = await engine_tables(self.db, tournament_id)
        async with self.db.read() as session:
            h4h = await plays_hand_for_hand(session, tournament)
        if not h4h:
            for table in tables:
                kept = engine.get(table.table_id)
                if kept is not None and kept.hand_held:
                    await self.engine.hold(table.table_id, False)
            return False
        for table in tables:
            kept = engine.get(table.table_id)
            if kept is None or kept.hand_held:
                continue
            # Hold a table once it has played since the last round (or cannot deal at all);
            # one released a moment ago that has not started its hand yet is left to start it.
            if kept.hands_started > table.hands_recorded or kept.players < 2:
                await self.engine.hold(table.table_id, True)
                log.info("tournament %s: hand-for-hand, %s held", tournament_id, table.table_id)
        tournament, tables, engine = await engine_tables(self.db, tournament_id)
        if not all(
            (kept := engine.get(t.table_id)) is not None
            and kept.hand_held
            and not kept.hand_running
            for t in tables
        ):
            return False
        ended: dict[str, list[engine_reads.HandOutcome]] = {}
        async with self.db.read() as session:
            for table in tables:
                ended[table.table_id] = await engine_reads.hand_outcomes_since(
                    session, table.table_id, table.hands_recorded
                )
        # A table may have ended more than one hand since the last round (the bubble came
        # with a hand the director recorded after the tables had dealt on): each table's
        # first hand is the round, its next hands the next rounds, each recorded together.
        # Once the bubble bursts, the hands left are ordinary ones (recorded in the order
        # they ended).
        while any(ended.values()):
            await self.hands.record_hand(
                tournament_id, {t: hands[:1] for t, hands in ended.items() if hands}
            )
            ended = {t: hands[1:] for t, hands in ended.items() if len(hands) > 1}
            if ended and (await self.hands.record_in_order(tournament_id, ended))[1]:
                break
        return True

    async def release_holds(self, tournament_id: str) -> None:
        """Release every held table of the tournament, one after the other at once."""
        _tournament, tables, engine = await engine_tables(self.db, tournament_id)
        for table in tables:
            kept = engine.get(table.table_id)
            if kept is not None and kept.hand_held:
                await self.engine.hold(table.table_id, False)
