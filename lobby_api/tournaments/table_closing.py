"""Step 8 of the tournament director: close on their engines the tables of finished and
cancelled tournaments, each once everyone placed at it has been told his place.
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from sqlmodel import col, select

from engine_server.store.types import utc_now
from lobby_api.db import Database
from lobby_api.engine_client import EngineError
from lobby_api.tournaments.engine_calls import TournamentEngine
from lobby_api.tournaments.models import (
    TableStatus,
    TournamentRow,
    TournamentStatus,
    TournamentTableRow,
)
from lobby_api.tournaments.pass_limits import BATCH
from lobby_api.tournaments.place_telling import PlaceTeller

__all__ = ["TableClosing"]

log = logging.getLogger("stud.lobby.tournaments")


class TableClosing:
    """Closes the tables of finished and cancelled tournaments."""

    def __init__(self, db: Database, engine: TournamentEngine, places: PlaceTeller) -> None:
        self.db = db
        self.engine = engine
        self.places = places

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
            if not await self.places.tell_places_at(tournament_id, table_id):
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
