"""Step 2 of the tournament director: start scheduled tournaments at ``starts_at``.

With ``min_players`` entries the field closes (status ``running``); with fewer the
tournament is cancelled and every entry refunded (the tournament's row locked, its status
checked again inside: whichever replica comes second does nothing).
"""

from __future__ import annotations

import logging

from sqlmodel import col, select

from engine_server.store.types import utc_now
from lobby_api.db import Database
from lobby_api.tournaments.common import (
    active_entries,
    locked_tournament,
    start_field,
)
from lobby_api.tournaments.models import (
    TournamentKind,
    TournamentRow,
    TournamentStatus,
)
from lobby_api.tournaments.pass_limits import BATCH
from lobby_api.tournaments.services import cancel_tournament

__all__ = ["ScheduledStarts"]

log = logging.getLogger("stud.lobby.tournaments")


class ScheduledStarts:
    """Starts (or cancels) the scheduled tournaments whose start time has come."""

    def __init__(self, db: Database) -> None:
        self.db = db

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
