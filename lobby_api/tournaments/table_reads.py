"""What the tables steps of the tournament director read of one tournament: its open tables
with the engine's view of them, and its players still in.
"""

from __future__ import annotations

import logging

from sqlmodel import col, select

from lobby_api import engine_reads
from lobby_api.db import Database
from lobby_api.tournaments.models import (
    EntryStatus,
    TableStatus,
    TournamentEntryRow,
    TournamentRow,
    TournamentTableRow,
)

__all__ = ["engine_tables", "playing_entries"]

log = logging.getLogger("stud.lobby.tournaments")


async def engine_tables(
    db: Database, tournament_id: str
) -> tuple[TournamentRow, list[TournamentTableRow], dict[str, engine_reads.TournamentTable]]:
    async with db.read() as session:
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


async def playing_entries(db: Database, tournament_id: str) -> list[TournamentEntryRow]:
    async with db.read() as session:
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
