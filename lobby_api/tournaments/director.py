"""The tournament director: the work no request does, run by every lobby replica.

:meth:`Director.once` (every sweep interval, beside :mod:`lobby_api.sweep`) does, each step
exactly once whichever replicas run it at the same time, and resumable after any process
dies, because every step is a database transition that only one transaction can make:

1. **keep the sit & go templates open**: one registering tournament per ``keep_open``
   template (an insert on the UNIQUE ``open_template``; the loser's insert does nothing);
2. **start scheduled tournaments** at ``starts_at``: with ``min_players`` entries the field
   closes (status ``running``); with fewer the tournament is cancelled and every entry
   refunded (the tournament's row locked, its status checked again inside);
3. **seat started tournaments** (a sit & go starts in the registration that fills it):
   under the tournament's lease (:class:`~lobby_api.tournaments.models.TournamentLeaseRow`,
   one holder at a time, taken over when it runs out),

   a. the draw (:func:`~lobby_api.tournaments.seating.initial_draw` over the tournament's
      secret key) is recorded in one transaction: the tables, and each entry's table, seat
      and seat session id — only if no table is recorded yet;
   b. each recorded table is created on its engine and each entry seated there with the
      starting chips (:mod:`lobby_api.tournaments.engine_calls`; idempotent on the ids of
      step a), each confirmation recorded;
   c. when every seat is confirmed, the tournament's level clock starts (``seated_at``).

   A replica killed anywhere in 3 leaves rows from which the next holder of the lease goes
   on: a recorded draw is never drawn again, and a call made twice answers the same.
   Late registrations of a running tournament are seated the same way, at the table with
   the fewest players (the first opened of equal ones), in its lowest free seat, at a new
   table when every table is full;
4. **the level clock** of a seated tournament (:class:`~lobby_api.tournaments.levels.LevelClock`):
   a minutes-level ends by the clock, a hands-level when the busiest table has started that
   many hands since the level began (each table's count at the level's start is kept in
   ``level_hands_base``);
5. **the hands' ends** at the tournaments' tables, each recorded once (the table's
   ``hands_recorded``): every seat's chips, and the players the engine closed BUSTED placed
   and paid (:mod:`lobby_api.tournaments.results`) and told their place (``AwardPlace``);
   the last player left wins;
6. **the tables** of each seated tournament, under its lease (:meth:`Director.run_tables`):
   the level's stakes and the tournament's panel on every table (``SetStakes``,
   ``SetTournamentInfo``), balancing and breaking (moves recorded first, then
   ``MovePlayer`` and ``SeatPlayer`` with the chips it answered), hand-for-hand at the
   bubble (``SetHandHold``: every table held after its hand of the round, the round's busts
   placed together, every table released together);
7. **places told until acknowledged** (:meth:`Director.tell_places`): a placed entry whose
   ``AwardPlace`` the engine has not answered (``place_told_at`` NULL) is told again every
   pass; a table is closed only once everyone placed at it has been told;
8. **close the tables** of finished and cancelled tournaments on their engines.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta

import grpc
import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from stud.v1 import table_pb2

from engine_server.ids import new_id
from engine_server.store.types import utc_now
from lobby_api import engine_reads
from lobby_api.accounts.models import PlayerRow
from lobby_api.db import Database, insert_ignore
from lobby_api.engine_client import EngineError
from lobby_api.engine_nodes import TableEngines
from lobby_api.tournaments.common import (
    active_entries,
    locked_tournament,
    open_from_template,
    start_field,
)
from lobby_api.tournaments.engine_calls import TournamentEngine, TournamentTable, stakes_of
from lobby_api.tournaments.levels import LevelClock, parse_levels
from lobby_api.tournaments.models import (
    EntryStatus,
    TableStatus,
    TournamentEntryRow,
    TournamentKind,
    TournamentLeaseRow,
    TournamentRow,
    TournamentStatus,
    TournamentTableRow,
    TournamentTemplateRow,
)
from lobby_api.tournaments.results import chips_and_busts, places_paid, record_busts_in
from lobby_api.tournaments.seating import Move, Table, initial_draw, plan_moves
from lobby_api.tournaments.services import cancel_tournament

__all__ = ["LEASE", "Director"]

log = logging.getLogger("stud.lobby.tournaments")

#: How long a director owns a tournament's work before another replica may take it over
#: (the default of ``STUD_LOBBY_TOURNAMENT_LEASE``).
LEASE = timedelta(seconds=30)
#: The most tournaments one step of one pass looks at.
BATCH = 50
#: Tables opened, seated or shown the tournament at once (each its own engine calls and transactions): a few,
#: so the lobby's small database pool and the engines are not flooded.
TABLES_AT_ONCE = 8


async def _at_once(jobs: Sequence[Callable[[], Awaitable[None]]]) -> None:
    """Run ``jobs`` (one per table), :data:`TABLES_AT_ONCE` at a time: seating a big field
    one call after the other took minutes (143 tables, 1,000 players: benchmarks/tournament.py).
    A single job runs in the caller's task."""
    if not jobs:
        return
    if len(jobs) == 1:
        await jobs[0]()
        return
    slots = asyncio.Semaphore(TABLES_AT_ONCE)

    async def one(job: Callable[[], Awaitable[None]]) -> None:
        async with slots:
            await job()

    await asyncio.gather(*(one(job) for job in jobs))


class _Replan(Exception):
    """The tables changed between a plan of moves and its recording."""


def _holder_name() -> str:
    return f"{socket.gethostname()[:30]}:{os.getpid()}:{new_id('d', size=4)}"


class Director:
    """One replica's director (its lease holder name is its own)."""

    def __init__(
        self,
        db: Database,
        engines: TableEngines,
        holder: str | None = None,
        lease: timedelta = LEASE,
    ) -> None:
        self.db = db
        self.engines = engines
        self.lease = lease
        self.engine = TournamentEngine(engines)
        self.holder = holder or _holder_name()
        # Tournaments this replica is seating now: the lease keeps other replicas out, this
        # keeps a second task of the same replica (same holder) from doing the work twice.
        self._seating: set[str] = set()
        # What this replica last showed each table (level, info): not sent again unchanged.
        self._shown: dict[str, tuple[int, bytes]] = {}

    async def once(self) -> None:
        """One pass of every step (see the module's docstring); a step that fails is logged
        and the others still run (the next pass tries it again)."""
        for step in (
            self.keep_templates_open,
            self.start_due,
            self.seat_started,
            self.record_hands,
            self.advance_levels,
            self.run_tables,
            self.tell_places,
            self.close_ended_tables,
        ):
            try:
                await step()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("tournament director: %s failed", step.__name__)

    async def seat_started(self) -> None:
        """Step 3 for every tournament that needs it."""
        for tournament_id in await self._to_seat():
            try:
                await self.seat(tournament_id)
            except asyncio.CancelledError:
                raise
            except EngineError as error:
                log.warning("seating tournament %s: %s (next pass)", tournament_id, error)
            except Exception:
                log.exception("seating tournament %s failed", tournament_id)

    # ---------------------------------------------------------------- 1. open sit & gos

    async def keep_templates_open(self) -> int:
        """Open a sit & go for every kept-open template that has none (how many opened)."""
        async with self.db.read() as session:
            templates = list(
                (
                    await session.exec(
                        select(TournamentTemplateRow).where(
                            col(TournamentTemplateRow.keep_open).is_(True)
                        )
                    )
                ).all()
            )
            open_now = set(
                (
                    await session.exec(
                        select(TournamentRow.open_template).where(
                            col(TournamentRow.open_template).is_not(None)
                        )
                    )
                ).all()
            )
        opened = 0
        for template in templates:
            if template.name in open_now:
                continue
            async with self.db.write() as session:
                opened += await open_from_template(session, template)
        return opened

    # ------------------------------------------------------------ 2. scheduled starts

    async def start_due(self) -> None:
        """Start (or cancel) the scheduled tournaments whose start time has come."""
        now = utc_now()
        async with self.db.read() as session:
            due = (
                await session.exec(
                    select(TournamentRow.id)
                    .where(
                        col(TournamentRow.status) == TournamentStatus.REGISTERING.value,
                        col(TournamentRow.kind) == TournamentKind.SCHEDULED.value,
                        col(TournamentRow.starts_at) <= now,
                    )
                    .limit(BATCH)
                )
            ).all()
        for tournament_id in due:
            async with self.db.write() as session:
                tournament = await locked_tournament(session, tournament_id)
                if tournament.status != TournamentStatus.REGISTERING.value:
                    continue  # another replica came first
                entries = await active_entries(session, tournament_id)
                if entries >= tournament.min_players:
                    await start_field(session, tournament, entries)
                    log.info("tournament %s starts with %d players", tournament_id, entries)
                else:
                    await cancel_tournament(
                        session,
                        tournament_id,
                        f"not enough players: {entries} of the {tournament.min_players} needed",
                    )
                    log.info("tournament %s cancelled: %d entries", tournament_id, entries)

    # ------------------------------------------------------------------- 3. seating

    async def _to_seat(self) -> list[str]:
        """Running tournaments not fully seated, or with late entries to seat."""
        async with self.db.read() as session:
            unseated = (
                await session.exec(
                    select(TournamentRow.id)
                    .where(
                        col(TournamentRow.status) == TournamentStatus.RUNNING.value,
                        col(TournamentRow.seated_at).is_(None),
                    )
                    .limit(BATCH)
                )
            ).all()
            late = (
                await session.exec(
                    select(TournamentEntryRow.tournament_id)
                    .join(TournamentRow, col(TournamentRow.id) == TournamentEntryRow.tournament_id)
                    .where(
                        col(TournamentRow.status) == TournamentStatus.RUNNING.value,
                        col(TournamentEntryRow.status) == EntryStatus.REGISTERED.value,
                    )
                    .distinct()
                    .limit(BATCH)
                )
            ).all()
        return list(dict.fromkeys([*unseated, *late]))

    async def seat_now(self, tournament_id: str) -> None:
        """Seat a tournament that just started, without waiting for the next pass (after the
        registration that filled it); whatever fails here, the next pass finishes."""
        try:
            await self.seat(tournament_id)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.warning("seating tournament %s left to the next pass: %s", tournament_id, error)

    async def take_lease(self, tournament_id: str) -> bool:
        """Hold the tournament's lease for ``self.lease`` (:data:`LEASE` unless
        ``STUD_LOBBY_TOURNAMENT_LEASE`` says; False: another replica holds it)."""
        now = utc_now()
        async with self.db.write() as session:
            await session.exec(
                insert_ignore(session, TournamentLeaseRow.__table__).values(  # type: ignore[attr-defined]
                    tournament_id=tournament_id, holder=self.holder, until=now + self.lease
                )
            )
            result = await session.exec(
                sa.update(TournamentLeaseRow)
                .where(
                    col(TournamentLeaseRow.tournament_id) == tournament_id,
                    sa.or_(
                        col(TournamentLeaseRow.holder) == self.holder,
                        col(TournamentLeaseRow.until) < now,
                    ),
                )
                .values(holder=self.holder, until=now + self.lease)
            )
            return bool(result.rowcount == 1)

    async def release_lease(self, tournament_id: str) -> None:
        async with self.db.write() as session:
            await session.exec(
                sa.update(TournamentLeaseRow)
                .where(
                    col(TournamentLeaseRow.tournament_id) == tournament_id,
                    col(TournamentLeaseRow.holder) == self.holder,
                )
                .values(until=utc_now())
            )

    async def seat(self, tournament_id: str) -> bool:
        """Steps 3a-3c for one tournament under its lease (True: everyone is seated)."""
        if tournament_id in self._seating or not await self.take_lease(tournament_id):
            return False
        self._seating.add(tournament_id)
        try:
            await self.draw(tournament_id)
            await self.place_late_entries(tournament_id)
            await self.open_tables(tournament_id)
            return await self.seat_players(tournament_id)
        finally:
            self._seating.discard(tournament_id)
            await self.release_lease(tournament_id)

    async def draw(self, tournament_id: str) -> bool:
        """Step 3a: record the draw, once (True: drawn now)."""
        async with self.db.write() as session:
            tournament = await locked_tournament(session, tournament_id)
            if tournament.status != TournamentStatus.RUNNING.value:
                return False
            drawn = (
                await session.exec(
                    select(TournamentTableRow.table_id)
                    .where(col(TournamentTableRow.tournament_id) == tournament_id)
                    .limit(1)
                )
            ).first()
            if drawn is not None:
                return False
            entries = {
                e.id: e
                for e in (
                    await session.exec(
                        select(TournamentEntryRow).where(
                            col(TournamentEntryRow.tournament_id) == tournament_id,
                            col(TournamentEntryRow.status) == EntryStatus.REGISTERED.value,
                        )
                    )
                ).all()
            }
            draw = initial_draw(
                sorted(entries), tournament.table_size, key=bytes.fromhex(tournament.draw_key)
            )
            now = utc_now()
            # Spread over the live nodes: a big field's tables on one node would leave the
            # others idle (benchmarks/tournament.py found all 143 tables on one of two).
            nodes = await self.engines.spread(session, [len(seats) for seats in draw])
            for number, (seats, node) in enumerate(zip(draw, nodes, strict=True), start=1):
                table_id = f"{tournament_id}-{number}"
                session.add(
                    TournamentTableRow(
                        table_id=table_id,
                        tournament_id=tournament_id,
                        number=number,
                        status=TableStatus.PLANNED.value,
                        node_id=node,
                        created_at=now,
                    )
                )
                for seat, entry_id in seats.items():
                    entry = entries[entry_id]
                    entry.table_id = table_id
                    entry.seat = seat
                    entry.seat_session_id = new_id("ss", size=12)
                    entry.status = EntryStatus.PLAYING.value
                    entry.chips = tournament.starting_chips
                    session.add(entry)
            log.info("tournament %s drawn to %d tables", tournament_id, len(draw))
            return True

    async def place_late_entries(self, tournament_id: str) -> int:
        """Late registrations of a seated tournament: each to the table with the fewest
        players (the first opened of equal ones), in its lowest free seat."""
        async with self.db.write() as session:
            tournament = await locked_tournament(session, tournament_id)
            if tournament.status != TournamentStatus.RUNNING.value:
                return 0
            late = list(
                (
                    await session.exec(
                        select(TournamentEntryRow)
                        .where(
                            col(TournamentEntryRow.tournament_id) == tournament_id,
                            col(TournamentEntryRow.status) == EntryStatus.REGISTERED.value,
                        )
                        .order_by(col(TournamentEntryRow.registered_at))
                    )
                ).all()
            )
            if not late:
                return 0
            drawn = list(
                (
                    await session.exec(
                        select(TournamentTableRow)
                        .where(col(TournamentTableRow.tournament_id) == tournament_id)
                        .order_by(col(TournamentTableRow.number))
                    )
                ).all()
            )
            if not drawn:
                return 0  # the draw seats them
            tables = [t for t in drawn if t.status != TableStatus.CLOSED.value]
            seated = (
                await session.exec(
                    select(TournamentEntryRow.table_id, TournamentEntryRow.seat).where(
                        col(TournamentEntryRow.tournament_id) == tournament_id,
                        col(TournamentEntryRow.status) == EntryStatus.PLAYING.value,
                    )
                )
            ).all()
            taken: dict[str, set[int]] = {t.table_id: set() for t in tables}
            for table_id, seat in seated:
                if table_id in taken and seat is not None:
                    taken[table_id].add(seat)
            placed = 0
            numbers = {t.table_id: t.number for t in tables}
            next_number = max(t.number for t in drawn) + 1
            for entry in late:
                open_tables = [t for t in taken if len(taken[t]) < tournament.table_size]
                if not open_tables:
                    # Every table is full: a new one (balancing fills it between hands).
                    table_id = f"{tournament_id}-{next_number}"
                    session.add(
                        TournamentTableRow(
                            table_id=table_id,
                            tournament_id=tournament_id,
                            number=next_number,
                            status=TableStatus.PLANNED.value,
                            node_id=await self.engines.choose(session),
                            created_at=utc_now(),
                        )
                    )
                    taken[table_id] = set()
                    numbers[table_id] = next_number
                    next_number += 1
                    open_tables = [table_id]
                table_id = min(open_tables, key=lambda t: (len(taken[t]), numbers[t]))
                seat = min(set(range(1, tournament.table_size + 1)) - taken[table_id])
                taken[table_id].add(seat)
                entry.table_id = table_id
                entry.seat = seat
                entry.seat_session_id = new_id("ss", size=12)
                entry.status = EntryStatus.PLAYING.value
                entry.chips = tournament.starting_chips
                session.add(entry)
                placed += 1
            if placed:
                # Seated afresh: step 3b confirms the new seats before the clock goes on.
                tournament.seated_at = None
                session.add(tournament)
            return placed

    async def open_tables(self, tournament_id: str) -> None:
        """Step 3b (tables): create each recorded table on its engine."""
        async with self.db.read() as session:
            tournament = await session.get(TournamentRow, tournament_id)
            planned = list(
                (
                    await session.exec(
                        select(TournamentTableRow)
                        .where(
                            col(TournamentTableRow.tournament_id) == tournament_id,
                            col(TournamentTableRow.status) == TableStatus.PLANNED.value,
                        )
                        .order_by(col(TournamentTableRow.number))
                    )
                ).all()
            )
        if tournament is None or tournament.status != TournamentStatus.RUNNING.value:
            return
        levels = parse_levels(tournament.levels)
        level = LevelClock(levels).stakes(tournament.current_level)

        async def open_one(table: TournamentTableRow) -> None:
            await self.engine.open_table(
                TournamentTable(
                    tournament_id=tournament_id,
                    table_id=table.table_id,
                    number=table.number,
                    profile=tournament.profile,
                    rule_overrides=tournament.rule_overrides,
                    table_size=tournament.table_size,
                    starting_chips=tournament.starting_chips,
                    level=level,
                )
            )
            async with self.db.write() as session:
                await session.exec(
                    sa.update(TournamentTableRow)
                    .where(
                        col(TournamentTableRow.table_id) == table.table_id,
                        col(TournamentTableRow.status) == TableStatus.PLANNED.value,
                    )
                    .values(status=TableStatus.OPEN.value)
                )

        await _at_once([functools.partial(open_one, t) for t in planned])

    async def seat_players(self, tournament_id: str) -> bool:
        """Step 3b (seats) and 3c: seat every drawn player not confirmed yet; when all are,
        start the level clock (True: everyone is seated)."""
        async with self.db.read() as session:
            waiting = list(
                (
                    await session.exec(
                        select(TournamentEntryRow, PlayerRow.username)
                        .join(PlayerRow, col(PlayerRow.id) == TournamentEntryRow.player_id)
                        .where(
                            col(TournamentEntryRow.tournament_id) == tournament_id,
                            col(TournamentEntryRow.status) == EntryStatus.PLAYING.value,
                            col(TournamentEntryRow.seated_at).is_(None),
                            # A mover is seated once he is off the table he leaves.
                            col(TournamentEntryRow.move_from_session).is_(None),
                        )
                        .order_by(col(TournamentEntryRow.table_id), col(TournamentEntryRow.seat))
                    )
                ).all()
            )
        by_table: dict[str, list[tuple[TournamentEntryRow, str]]] = {}
        for entry, username in waiting:
            by_table.setdefault(entry.table_id or "", []).append((entry, username))
        refused: list[str] = []
        transient: list[EngineError] = []

        async def seat_at(table: list[tuple[TournamentEntryRow, str]]) -> None:
            # One table's players one after the other, in seat order.
            for entry, username in table:
                assert entry.table_id and entry.seat_session_id and entry.seat
                if refused or transient:
                    return
                try:
                    seat = await self.engine.seat(
                        entry.table_id,
                        entry.seat_session_id,
                        entry.player_id,
                        username,
                        entry.seat,
                        entry.chips or 0,
                    )
                except EngineError as error:
                    if error.transient:
                        transient.append(error)
                        return
                    # A definite refusal (say the seat is taken): logged, tried next pass.
                    log.warning("seating %s at %s refused: %s", entry.id, entry.table_id, error)
                    refused.append(entry.id)
                    return
                async with self.db.write() as session:
                    await session.exec(
                        sa.update(TournamentEntryRow)
                        .where(
                            col(TournamentEntryRow.id) == entry.id,
                            col(TournamentEntryRow.seated_at).is_(None),
                        )
                        .values(seated_at=utc_now(), seat=seat)
                    )

        await _at_once([functools.partial(seat_at, t) for t in by_table.values()])
        if transient:
            raise transient[0]
        if refused:
            return False
        async with self.db.write() as session:
            tournament = await locked_tournament(session, tournament_id)
            if tournament.status != TournamentStatus.RUNNING.value:
                return False
            unconfirmed = (
                await session.exec(
                    select(sa.func.count())
                    .select_from(TournamentEntryRow)
                    .where(
                        col(TournamentEntryRow.tournament_id) == tournament_id,
                        col(TournamentEntryRow.status) == EntryStatus.PLAYING.value,
                        col(TournamentEntryRow.seated_at).is_(None),
                    )
                )
            ).one()
            if unconfirmed:
                return False
            if tournament.seated_at is None:
                now = utc_now()
                tournament.seated_at = now
                if tournament.level_started_at is None:
                    tournament.level_started_at = now
                session.add(tournament)
            return True

    # ---------------------------------------------------------------- 4. level clock

    async def advance_levels(self) -> None:
        """The level clock of seated tournaments, one level a pass: a minutes-level ends by
        the clock, a hands-level when the busiest table has started its hands in it."""
        now = utc_now()
        async with self.db.read() as session:
            running = (
                await session.exec(
                    select(TournamentRow.id).where(
                        col(TournamentRow.status) == TournamentStatus.RUNNING.value,
                        col(TournamentRow.level_started_at).is_not(None),
                    )
                )
            ).all()
        for tournament_id in running:
            async with self.db.write() as session:
                tournament = await locked_tournament(session, tournament_id)
                started = tournament.level_started_at
                if tournament.status != TournamentStatus.RUNNING.value or started is None:
                    continue
                tables = list(
                    (
                        await session.exec(
                            select(TournamentTableRow).where(
                                col(TournamentTableRow.tournament_id) == tournament_id,
                                col(TournamentTableRow.status) == TableStatus.OPEN.value,
                            )
                        )
                    ).all()
                )
                played = await engine_reads.hands_started(session, [t.table_id for t in tables])
                in_level = max(
                    (played.get(t.table_id, 0) - t.level_hands_base for t in tables), default=0
                )
                clock = LevelClock(parse_levels(tournament.levels))
                elapsed = (now - started).total_seconds()
                following = clock.level_at(tournament.current_level, elapsed, in_level)
                if following == tournament.current_level:
                    continue
                ended = clock.stakes(tournament.current_level)
                tournament.current_level = following
                # A minutes-level's successor starts when it ran out, not at this pass.
                tournament.level_started_at = (
                    started + timedelta(minutes=ended.minutes) if ended.minutes else now
                )
                session.add(tournament)
                for table in tables:
                    table.level_hands_base = played.get(table.table_id, table.level_hands_base)
                    session.add(table)
                log.info("tournament %s: level %d", tournament_id, following + 1)

    # ------------------------------------------------------------- 4b. hands' ends

    async def record_hands(self) -> int:
        """Record the ends of the hands played at the open tables of running tournaments,
        in order, each once: every seat's chips, and the players the engine closed BUSTED,
        placed and paid (:func:`~lobby_api.tournaments.results.record_busts_in`) and told
        their place at their table (``AwardPlace``). The count of hands recorded now.

        Each hand is one transaction with the table's ``hands_recorded``, so a hand is
        recorded once whichever replicas run this and whenever one dies. A tournament playing
        hand-for-hand is left to :meth:`hand_for_hand`, which records each round's hands at
        every table together (their busts share the places).
        """
        async with self.db.read() as session:
            tables = (
                await session.exec(
                    select(
                        TournamentTableRow.table_id,
                        TournamentTableRow.hands_recorded,
                        TournamentRow,
                    )
                    .join(TournamentRow, col(TournamentRow.id) == TournamentTableRow.tournament_id)
                    .where(
                        col(TournamentRow.status) == TournamentStatus.RUNNING.value,
                        col(TournamentTableRow.status) == TableStatus.OPEN.value,
                    )
                )
            ).all()
            running = {t.id: t for _, _, t in tables}
            in_h4h = {
                tournament_id
                for tournament_id, tournament in running.items()
                if await self._plays_hand_for_hand(session, tournament)
            }
        pending: dict[str, dict[str, int]] = {}
        for table_id, after, tournament in tables:
            if tournament.id not in in_h4h:
                pending.setdefault(tournament.id, {})[table_id] = after
        recorded = 0
        for tournament_id, tables_of in pending.items():
            ended: dict[str, list[engine_reads.HandOutcome]] = {}
            async with self.db.read() as session:
                for table_id, after in tables_of.items():
                    ended[table_id] = await engine_reads.hand_outcomes_since(
                        session, table_id, after
                    )
            count, _all = await self._record_in_order(tournament_id, ended)
            recorded += count
        return recorded

    async def _record_in_order(
        self, tournament_id: str, ended: dict[str, list[engine_reads.HandOutcome]]
    ) -> tuple[int, bool]:
        """Record these hands' ends of one tournament's tables in one transaction, one hand
        after the other **in the order they ended** across its tables (a player out earlier
        places lower, whatever his table: recording table after table would place a bust at
        one table before an earlier one at another). Stops at the bubble: a hand that leaves
        the tournament playing hand-for-hand leaves the rest to :meth:`hand_for_hand`'s
        round. The count recorded, and whether every hand was."""
        last = datetime.max.replace(tzinfo=UTC)
        queue = sorted(
            (
                (outcome.ended_at or last, table_id, outcome.hand_number, outcome)
                for table_id, outcomes in ended.items()
                for outcome in outcomes
            ),
            key=lambda item: item[:3],
        )
        return await self._record_groups(
            tournament_id,
            [{table_id: [outcome]} for _ended_at, table_id, _number, outcome in queue],
            unless_hand_for_hand=True,
        )

    async def _plays_hand_for_hand(self, session: AsyncSession, tournament: TournamentRow) -> bool:
        """Hand-for-hand: more than one table is open and the next player out is the bubble
        (one more player left than places paid)."""
        if tournament.status != TournamentStatus.RUNNING.value:
            return False
        open_tables = (
            await session.exec(
                select(sa.func.count())
                .select_from(TournamentTableRow)
                .where(
                    col(TournamentTableRow.tournament_id) == tournament.id,
                    col(TournamentTableRow.status) == TableStatus.OPEN.value,
                )
            )
        ).one()
        if open_tables < 2:
            return False
        left = (
            await session.exec(
                select(sa.func.count())
                .select_from(TournamentEntryRow)
                .where(
                    col(TournamentEntryRow.tournament_id) == tournament.id,
                    col(TournamentEntryRow.status) == EntryStatus.PLAYING.value,
                )
            )
        ).one()
        return bool(left == places_paid(tournament) + 1)

    async def _record_hand(
        self,
        tournament_id: str,
        ended: dict[str, list[engine_reads.HandOutcome]],
        *,
        unless_hand_for_hand: bool = False,
    ) -> int:
        """Record hands' ends of one or more tables in one transaction (their busts placed
        together); the count recorded. A hand at or below its table's ``hands_recorded`` is
        skipped (another replica came first). ``unless_hand_for_hand``: -1, nothing
        recorded, when the tournament plays hand-for-hand now (checked under its lock)."""
        count, done = await self._record_groups(
            tournament_id, [ended], unless_hand_for_hand=unless_hand_for_hand
        )
        return count if done else -1

    async def _record_groups(
        self,
        tournament_id: str,
        groups: list[dict[str, list[engine_reads.HandOutcome]]],
        *,
        unless_hand_for_hand: bool,
    ) -> tuple[int, bool]:
        """Record groups of hands' ends in order, in **one** transaction (the tournament
        locked): the busts of one group are placed together, a later group's after an
        earlier one's. ``unless_hand_for_hand``: stop before a group while the tournament
        plays hand-for-hand (checked under its lock, after the groups before it). The count
        recorded, and whether every group was."""
        placed: list[str] = []
        count = 0
        complete = True
        async with self.db.write() as session:
            tournament = await locked_tournament(session, tournament_id)
            tables: dict[str, TournamentTableRow] = {}
            for ended in groups:
                if unless_hand_for_hand and await self._plays_hand_for_hand(session, tournament):
                    complete = False
                    break
                outcomes: list[engine_reads.HandOutcome] = []
                for table_id, hands in ended.items():
                    table = tables.get(table_id)
                    if table is None:
                        table = await session.get(TournamentTableRow, table_id)
                        assert table is not None
                        await session.refresh(table)
                        tables[table_id] = table
                    fresh = [h for h in hands if h.hand_number > table.hands_recorded]
                    if fresh:
                        outcomes += fresh
                        table.hands_recorded = fresh[-1].hand_number
                        session.add(table)
                if not outcomes:
                    continue
                count += len(outcomes)
                busts = await chips_and_busts(session, tournament_id, outcomes)
                if busts and tournament.status == TournamentStatus.RUNNING.value:
                    out = await record_busts_in(session, tournament.id, busts)
                    log.info("tournament %s: %s out", tournament.id, out)
                    placed += out
            if tournament.status == TournamentStatus.FINISHED.value:
                placed += (
                    await session.exec(
                        select(TournamentEntryRow.id).where(
                            col(TournamentEntryRow.tournament_id) == tournament_id,
                            col(TournamentEntryRow.status) == EntryStatus.FINISHED.value,
                        )
                    )
                ).all()  # the winner
        if placed:
            await self.announce_places(tournament_id, placed)
        return count, complete

    async def announce_places(self, tournament_id: str, entry_ids: list[str]) -> int:
        """``AwardPlace`` at his table for each of these placed entries not told yet
        (:meth:`tell_places`); the count still untold."""
        return await self._tell(
            col(TournamentEntryRow.tournament_id) == tournament_id,
            col(TournamentEntryRow.id).in_(entry_ids),
        )

    async def tell_places(self) -> int:
        """Tell every placed player whose place the engine has not acknowledged yet
        (``place_told_at`` NULL) his place and prize at the table he was placed at
        (``AwardPlace``, idempotent on the engine: the same place again changes nothing).
        An acknowledgement is recorded; a call that fails (the engine restarting, the
        network) is made again at the next pass, until the engine answers. The count still
        untold."""
        return await self._tell()

    async def tell_places_at(self, tournament_id: str, table_id: str) -> bool:
        """Tell the places not acknowledged yet at a table about to close (True: none is
        left untold; a table is closed only then, so that everyone placed there hears it)."""
        untold = await self._tell(
            col(TournamentEntryRow.tournament_id) == tournament_id,
            col(TournamentEntryRow.table_id) == table_id,
        )
        return untold == 0

    async def _tell(self, *where: sa.ColumnElement[bool]) -> int:
        async with self.db.read() as session:
            query = (
                select(TournamentEntryRow, PlayerRow.username)
                .join(PlayerRow, col(PlayerRow.id) == TournamentEntryRow.player_id)
                .where(
                    col(TournamentEntryRow.place).is_not(None),
                    col(TournamentEntryRow.place_told_at).is_(None),
                    *where,
                )
                .order_by(col(TournamentEntryRow.place))
                .limit(BATCH)
            )
            placed = (await session.exec(query)).all()
        untold = 0
        for entry, username in placed:
            assert entry.place is not None
            if entry.table_id is not None:
                try:
                    await self.engine.award_place(
                        entry.table_id, entry.player_id, username, entry.place, entry.prize or 0
                    )
                except EngineError as error:
                    if error.transient:
                        # Told again at the next pass, until the engine acknowledges it.
                        log.warning(
                            "AwardPlace for %s at %s: %s (again next pass)",
                            entry.id,
                            entry.table_id,
                            error,
                        )
                        untold += 1
                        continue
                    # A definite refusal (the table closed or unknown, another place told
                    # before): asking again would get the same answer.
                    log.warning(
                        "AwardPlace for %s at %s refused: %s", entry.id, entry.table_id, error
                    )
            async with self.db.write() as session:
                await session.exec(
                    sa.update(TournamentEntryRow)
                    .where(
                        col(TournamentEntryRow.id) == entry.id,
                        col(TournamentEntryRow.place_told_at).is_(None),
                    )
                    .values(place_told_at=utc_now())
                )
        return untold

    # ------------------------------------------------ 5. tables: moves, hand-for-hand, info

    async def run_tables(self) -> None:
        """Step 5 for every seated running tournament, each under its lease."""
        async with self.db.read() as session:
            running = (
                await session.exec(
                    select(TournamentRow.id).where(
                        col(TournamentRow.status) == TournamentStatus.RUNNING.value,
                        col(TournamentRow.seated_at).is_not(None),
                    )
                )
            ).all()
        for tournament_id in running:
            if tournament_id in self._seating or not await self.take_lease(tournament_id):
                continue
            self._seating.add(tournament_id)
            try:
                await self.run_tables_of(tournament_id)
            except asyncio.CancelledError:
                raise
            except EngineError as error:
                log.warning("tables of tournament %s: %s (next pass)", tournament_id, error)
            finally:
                self._seating.discard(tournament_id)
                await self.release_lease(tournament_id)

    async def run_tables_of(self, tournament_id: str) -> None:
        """One tournament's tables between hands: moves decided before are finished, empty
        tables closed, hand-for-hand rounds held and released together, the tables
        balanced (and broken), and every table shown the level and the tournament."""
        await self.finish_moves(tournament_id)
        await self.seat_players(tournament_id)
        await self.close_empty_tables(tournament_id)
        round_over = await self.hand_for_hand(tournament_id)
        if await self.balance(tournament_id, round_over):
            await self.finish_moves(tournament_id)
            await self.seat_players(tournament_id)
            await self.close_empty_tables(tournament_id)
        if round_over:
            await self.release_holds(tournament_id)
        await self.show_tournament(tournament_id)

    async def _engine_tables(
        self, tournament_id: str
    ) -> tuple[TournamentRow, list[TournamentTableRow], dict[str, engine_reads.TournamentTable]]:
        async with self.db.read() as session:
            tournament = await session.get(TournamentRow, tournament_id)
            assert tournament is not None
            tables = list(
                (
                    await session.exec(
                        select(TournamentTableRow)
                        .where(
                            col(TournamentTableRow.tournament_id) == tournament_id,
                            col(TournamentTableRow.status) == TableStatus.OPEN.value,
                        )
                        .order_by(col(TournamentTableRow.number))
                    )
                ).all()
            )
            engine = {
                t.table_id: t for t in await engine_reads.tournament_tables(session, tournament_id)
            }
        return tournament, tables, engine

    async def _playing(self, tournament_id: str) -> list[TournamentEntryRow]:
        async with self.db.read() as session:
            return list(
                (
                    await session.exec(
                        select(TournamentEntryRow).where(
                            col(TournamentEntryRow.tournament_id) == tournament_id,
                            col(TournamentEntryRow.status) == EntryStatus.PLAYING.value,
                        )
                    )
                ).all()
            )

    async def balance(self, tournament_id: str, round_over: bool) -> int:
        """Decide the moves of :func:`~lobby_api.tournaments.seating.plan_moves` (breaking
        tables first, then balancing) among the tables between hands, and record them in
        one transaction: each mover's new table, seat and seat session, and the table and
        session he leaves. A table a move is pending from or to, or with a seat unconfirmed,
        is left out of the plan until that is done; playing hand-for-hand, nothing is decided
        before the round is over and every move done. The count of moves."""
        tournament, tables, engine = await self._engine_tables(tournament_id)
        if tournament.status != TournamentStatus.RUNNING.value or len(tables) < 2:
            return 0
        playing = await self._playing(tournament_id)
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
            h4h = await self._plays_hand_for_hand(session, tournament)
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
        done (the seat at the destination is :meth:`seat_players`'). The count done."""
        _tournament, tables, _engine = await self._engine_tables(tournament_id)
        recorded = {t.table_id: t for t in tables}
        done = 0
        for entry in await self._playing(tournament_id):
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
                _count, recorded_all = await self._record_in_order(tournament_id, ended)
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
        tournament, tables, engine = await self._engine_tables(tournament_id)
        if tournament.status != TournamentStatus.RUNNING.value or len(tables) < 2:
            return 0
        used = set()
        for entry in await self._playing(tournament_id):
            used.add(entry.table_id)
            used.add(entry.move_from_table)
        closed = 0
        for table in tables:
            if table.table_id in used or table.table_id not in engine:
                continue
            # Nobody of the tournament plays there any more (a hand running there has no
            # tournament chips in it): closed once everyone placed there heard his place.
            if not await self.tell_places_at(tournament_id, table.table_id):
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
        """Hand-for-hand near the money (:meth:`_plays_hand_for_hand`): every table is held
        after the hand it plays in the round (``SetHandHold``); once every table is held with
        no hand running, the round's hands at all tables are recorded in one transaction
        (their busts share the places: more chips at the hand's start places higher) and
        True is returned: the caller balances, then releases every table together. Out of
        hand-for-hand every hold is released."""
        tournament, tables, engine = await self._engine_tables(tournament_id)
        async with self.db.read() as session:
            h4h = await self._plays_hand_for_hand(session, tournament)
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
        tournament, tables, engine = await self._engine_tables(tournament_id)
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
            await self._record_hand(
                tournament_id, {t: hands[:1] for t, hands in ended.items() if hands}
            )
            ended = {t: hands[1:] for t, hands in ended.items() if len(hands) > 1}
            if ended and (await self._record_in_order(tournament_id, ended))[1]:
                break
        return True

    async def release_holds(self, tournament_id: str) -> None:
        """Release every held table of the tournament, one after the other at once."""
        _tournament, tables, engine = await self._engine_tables(tournament_id)
        for table in tables:
            kept = engine.get(table.table_id)
            if kept is not None and kept.hand_held:
                await self.engine.hold(table.table_id, False)

    async def show_tournament(self, tournament_id: str) -> None:
        """Every open table: the level in force (``SetStakes``, from its next hand) and the
        tournament panel (``SetTournamentInfo``), each sent again only when it changed since
        this replica last sent it (both are idempotent on the engine)."""
        tournament, tables, engine = await self._engine_tables(tournament_id)
        if tournament.status != TournamentStatus.RUNNING.value or not tables:
            return
        clock = LevelClock(parse_levels(tournament.levels))
        index = tournament.current_level
        level = clock.stakes(index)
        in_level = max(
            (
                (engine[t.table_id].hands_started if t.table_id in engine else 0)
                - t.level_hands_base
                for t in tables
            ),
            default=0,
        )
        async with self.db.read() as session:
            left = len(await self._playing(tournament_id))
            h4h = await self._plays_hand_for_hand(session, tournament)
        entrants = tournament.entrants or 0
        info = table_pb2.TournamentInfo(
            level=index + 1,
            stakes=stakes_of(level),
            hands_to_next_level=clock.hands_left(index, in_level) or 0,
            players_left=left,
            entrants=entrants,
            average_stack=(entrants * tournament.starting_chips) // max(left, 1),
            prize_pool=tournament.buy_in * entrants,
            hand_for_hand=h4h,
            places_paid=places_paid(tournament),
        )
        started = tournament.level_started_at
        if level.minutes is not None and started is not None and index < len(clock.levels) - 1:
            info.next_level_time.FromDatetime(started + timedelta(minutes=level.minutes))
        if index < len(clock.levels) - 1:
            info.next_stakes.CopyFrom(stakes_of(clock.stakes(index + 1)))
        shown = info.SerializeToString(deterministic=True)

        async def show(table_id: str) -> None:
            await self.engine.set_stakes(table_id, index + 1, level)
            await self.engine.show_info(table_id, info)
            self._shown[table_id] = (index, shown)

        # Several tables at once: the panel changes with nearly every player out, and 143
        # tables one after the other held up every pass of the director for seconds.
        await _at_once(
            [
                functools.partial(show, table.table_id)
                for table in tables
                if table.table_id in engine and self._shown.get(table.table_id) != (index, shown)
            ]
        )

    # -------------------------------------------------------------- 5. closing tables

    async def close_ended_tables(self) -> None:
        """Close on the engines the tables of finished and cancelled tournaments."""
        async with self.db.read() as session:
            rows = (
                await session.exec(
                    select(
                        TournamentTableRow.table_id,
                        TournamentTableRow.tournament_id,
                        TournamentRow.status,
                    )
                    .join(TournamentRow, col(TournamentRow.id) == TournamentTableRow.tournament_id)
                    .where(
                        col(TournamentRow.status).in_(
                            [TournamentStatus.FINISHED.value, TournamentStatus.CANCELLED.value]
                        ),
                        col(TournamentTableRow.status) != TableStatus.CLOSED.value,
                    )
                    .limit(BATCH)
                )
            ).all()
        for table_id, tournament_id, status in rows:
            if not await self.tell_places_at(tournament_id, table_id):
                continue  # the engine did not answer: closed at a next pass, once told
            try:
                await self.engine.close_table(table_id, f"tournament {status}")
            except EngineError as error:
                if error.transient:
                    log.warning("closing tournament table %s: %s", table_id, error)
                    continue
                # NOT_FOUND: never created on the engine (cancelled before it was).
                log.info("tournament table %s not closed on the engine: %s", table_id, error)
            async with self.db.write() as session:
                await session.exec(
                    sa.update(TournamentTableRow)
                    .where(col(TournamentTableRow.table_id) == table_id)
                    .values(status=TableStatus.CLOSED.value, closed_at=utc_now())
                )
