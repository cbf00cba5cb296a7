"""The periodic sweep every lobby replica runs: finishes what requests left behind.

Each step is idempotent, so replicas sweeping at once never pay twice: settle closed seat
sessions (settlement), rake, close and finish quick tables, expire and place waiting tickets,
and resume money requests whose client gave up half-way (their idempotency keys are pending
and their lease ran out), each by its operation's ``complete``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from engine_server.store.database import is_outage
from lobby_api.db import Database
from lobby_api.engine_nodes import TableEngines
from lobby_api.idempotency import Complete, resume_stale
from lobby_api.quickgame.looking import PlayersLooking
from lobby_api.quickgame.opening import QuickGameOpening
from lobby_api.quickgame.tables import QuickTables
from lobby_api.quickgame.tickets import Matchmaking
from lobby_api.quickgame.topup import TopUps
from lobby_api.settings import LobbySettings
from lobby_api.settlement.services import Settlement
from lobby_api.tournaments.services import Registrations

__all__ = ["Sweep"]

log = logging.getLogger("stud.lobby.quickgame")


def _first_line(error: BaseException) -> str:
    text = str(error)
    return text.splitlines()[0] if text else type(error).__name__


class Sweep:
    """One replica's sweep (:meth:`once`, every ``interval`` seconds in :meth:`forever`)."""

    def __init__(
        self,
        db: Database,
        engines: TableEngines,
        settings: LobbySettings,
        looking: PlayersLooking,
    ) -> None:
        self.db = db
        self.engines = engines
        self.settings = settings
        self.looking = looking

    def operations(self) -> dict[str, Complete]:
        """How to finish each kind of pending money request, by its operation name."""
        opening = QuickGameOpening(self.db, self.engines)
        matchmaking = Matchmaking(self.db, self.engines, self.settings, self.looking)
        topups = TopUps(self.db, self.engines)
        registrations = Registrations(self.db, self.engines, self.settings)
        return {
            opening.OPERATION: opening.complete_quick_game,
            matchmaking.OPERATION: matchmaking.complete_ticket,
            topups.OPERATION: topups.complete_top_up,
            registrations.OPERATION: registrations.complete_registration,
        }

    async def once(self) -> None:
        """Settle, rake, wind up tables, expire and place tickets, resume stuck requests."""
        await Settlement(self.db).settle_all()
        await QuickTables(self.db, self.engines).sweep()
        await Matchmaking(self.db, self.engines, self.settings, self.looking).sweep_tickets()
        await resume_stale(self.db, self.operations())

    async def forever(
        self, interval: float, also: Sequence[Callable[[], Awaitable[object]]] = ()
    ) -> None:
        """:meth:`once` every ``interval`` seconds, then each of ``also`` (the app's other
        housekeeping, e.g. forgetting rate-limit windows that are over)."""
        away = False  # the database was away at the last sweep
        while True:
            failed = False
            for step in (self.once, *also):
                try:
                    await step()
                except asyncio.CancelledError:
                    raise
                except Exception as error:
                    if not is_outage(error):
                        log.exception("sweep failed")
                        continue
                    failed = True
                    if not away:
                        # Once per outage, not once a second: the sweep goes on trying and
                        # finishes what waits once the database is back.
                        log.warning("sweep: the database is unavailable (%s)", _first_line(error))
                    break
            if away and not failed:
                log.info("sweep: the database answers again")
            away = failed
            await asyncio.sleep(interval)
