"""Step 4 of the tournament director: the level clock of seated tournaments
(:class:`~lobby_api.tournaments.levels.LevelClock`): a minutes-level ends by the clock, a
hands-level when the busiest table has started that many hands since the level began (each
table's count at the level's start is kept in ``level_hands_base``).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlmodel import col, select

from engine_server.store.types import utc_now
from lobby_api import engine_reads
from lobby_api.db import Database
from lobby_api.tournaments.common import (
    locked_tournament,
)
from lobby_api.tournaments.levels import LevelClock, parse_levels
from lobby_api.tournaments.models import (
    TableStatus,
    TournamentRow,
    TournamentStatus,
)
from lobby_api.tournaments.table_reads import tables_of

__all__ = ["LevelKeeping"]

log = logging.getLogger("stud.lobby.tournaments")


class LevelKeeping:
    """Moves seated tournaments to their next level when it is due."""

    def __init__(self, db: Database) -> None:
        self.db = db

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
                tables = await tables_of(session, tournament_id, TableStatus.OPEN)
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
