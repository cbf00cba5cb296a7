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

The director keeps the pass and the leases; each step's work is a collaborator of its own,
given what it shares with the others when the director makes it:

| step | module · class |
|---|---|
| 1 | ``template_opening`` · :class:`~lobby_api.tournaments.template_opening.TemplateOpening` |
| 2 | ``scheduled_starts`` · :class:`~lobby_api.tournaments.scheduled_starts.ScheduledStarts` |
| 3 | ``seater`` · :class:`~lobby_api.tournaments.seater.Seater` |
| 4 | ``level_keeping`` · :class:`~lobby_api.tournaments.level_keeping.LevelKeeping` |
| 5 | ``hand_ends`` · :class:`~lobby_api.tournaments.hand_ends.HandEnds` |
| 6 | ``table_runner`` · :class:`~lobby_api.tournaments.table_runner.TableRunner` (reads: ``table_reads``; the panel: ``panel``) |
| 7 | ``place_telling`` · :class:`~lobby_api.tournaments.place_telling.PlaceTeller` |
| 8 | ``table_closing`` · :class:`~lobby_api.tournaments.table_closing.TableClosing` |
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from datetime import timedelta

import sqlalchemy as sa
from sqlmodel import col, select

from engine_server.ids import new_id
from engine_server.store.types import utc_now
from lobby_api.db import Database, insert_ignore
from lobby_api.engine_client import EngineError
from lobby_api.engine_nodes import TableEngines
from lobby_api.tournaments.engine_calls import TournamentEngine
from lobby_api.tournaments.hand_ends import HandEnds
from lobby_api.tournaments.level_keeping import LevelKeeping
from lobby_api.tournaments.models import TournamentLeaseRow, TournamentRow, TournamentStatus
from lobby_api.tournaments.panel import TournamentPanel
from lobby_api.tournaments.place_telling import PlaceTeller
from lobby_api.tournaments.scheduled_starts import ScheduledStarts
from lobby_api.tournaments.seater import Seater
from lobby_api.tournaments.table_closing import TableClosing
from lobby_api.tournaments.table_runner import TableRunner
from lobby_api.tournaments.template_opening import TemplateOpening

__all__ = ["LEASE", "Director"]

log = logging.getLogger("stud.lobby.tournaments")

#: How long a director owns a tournament's work before another replica may take it over
#: (the default of ``STUD_LOBBY_TOURNAMENT_LEASE``).
LEASE = timedelta(seconds=30)


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
        self.templates = TemplateOpening(db)
        self.starts = ScheduledStarts(db)
        self.seater = Seater(db, engines, self.engine)
        self.levels = LevelKeeping(db)
        self.places = PlaceTeller(db, self.engine)
        self.hands = HandEnds(db, self.places)
        self.tables = TableRunner(
            db,
            self.engine,
            self.seater,
            self.hands,
            self.places,
            TournamentPanel(db, self.engine),
        )
        self.closing = TableClosing(db, self.engine, self.places)

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
        for tournament_id in await self.seater.to_seat():
            try:
                await self.seat(tournament_id)
            except asyncio.CancelledError:
                raise
            except EngineError as error:
                log.warning("seating tournament %s: %s (next pass)", tournament_id, error)
            except Exception:
                log.exception("seating tournament %s failed", tournament_id)

    async def keep_templates_open(self) -> int:
        """Step 1: open a sit & go for every kept-open template that has none (how many)."""
        return await self.templates.keep_templates_open()

    async def start_due(self) -> None:
        """Step 2: start (or cancel) the scheduled tournaments whose start time has come."""
        await self.starts.start_due()

    async def advance_levels(self) -> None:
        """Step 4: the level clock of seated tournaments, one level a pass."""
        await self.levels.advance_levels()

    async def record_hands(self) -> int:
        """Step 5: record the hands' ends at the tables (the count recorded now)."""
        return await self.hands.record_hands()

    async def tell_places(self) -> int:
        """Step 7: tell placed players their place until acknowledged (the count untold)."""
        return await self.places.tell_places()

    async def close_ended_tables(self) -> None:
        """Step 8: close the tables of finished and cancelled tournaments on their engines."""
        await self.closing.close_ended_tables()

    # ------------------------------------------------------------------ the leases

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
            await self.seater.draw(tournament_id)
            await self.seater.place_late_entries(tournament_id)
            await self.seater.open_tables(tournament_id)
            return await self.seater.seat_players(tournament_id)
        finally:
            self._seating.discard(tournament_id)
            await self.release_lease(tournament_id)

    async def run_tables(self) -> None:
        """Step 6 for every seated running tournament, each under its lease."""
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
                await self.tables.run_tables_of(tournament_id)
            except asyncio.CancelledError:
                raise
            except EngineError as error:
                log.warning("tables of tournament %s: %s (next pass)", tournament_id, error)
            finally:
                self._seating.discard(tournament_id)
                await self.release_lease(tournament_id)
