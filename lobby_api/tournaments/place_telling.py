"""Step 7 of the tournament director: places told until acknowledged. A placed entry whose
``AwardPlace`` the engine has not answered (``place_told_at`` NULL) is told again every
pass; a table is closed only once everyone placed at it has been told.
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from sqlmodel import col, select

from engine_server.store.types import utc_now
from lobby_api.accounts.models import PlayerRow
from lobby_api.db import Database
from lobby_api.engine_client import EngineError
from lobby_api.tournaments.engine_calls import TournamentEngine
from lobby_api.tournaments.models import (
    TournamentEntryRow,
)
from lobby_api.tournaments.pass_limits import BATCH

__all__ = ["PlaceTeller"]

log = logging.getLogger("stud.lobby.tournaments")


class PlaceTeller:
    """Tells placed players their place at their table (``AwardPlace``) until the engine acknowledges it."""

    def __init__(self, db: Database, engine: TournamentEngine) -> None:
        self.db = db
        self.engine = engine

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
