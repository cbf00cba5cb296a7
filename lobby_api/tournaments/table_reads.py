"""What the tournament's steps read of one tournament: its tables (by number, of one status
or all), its open tables with the engine's view of them, and its players still in.
"""

from __future__ import annotations

import logging

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from lobby_api import engine_reads
from lobby_api.db import Database
from lobby_api.tournaments.models import (
    EntryStatus,
    TableStatus,
    TournamentEntryRow,
    TournamentRow,
    TournamentTableRow,
)

__all__ = ["engine_tables", "playing_entries", "tables_of"]

log = logging.getLogger("stud.lobby.tournaments")


async def tables_of(
    session: AsyncSession, tournament_id: str, status: TableStatus | None = None
) -> list[TournamentTableRow]:
    """The tournament's tables by number: those in ``status``, or all of them."""
    query = select(TournamentTableRow).where(col(TournamentTableRow.tournament_id) == tournament_id)
    if status is not None:
        query = query.where(col(TournamentTableRow.status) == status.value)
    return list((await session.exec(query.order_by(col(TournamentTableRow.number)))).all())


async def engine_tables(
    db: Database, tournament_id: str
) -> tuple[TournamentRow, list[TournamentTableRow], dict[str, engine_reads.TournamentTable]]:
    async with db.read() as session:
        tournament = await session.get(TournamentRow, tournament_id)
        assert tournament is not None
        tables = await tables_of(session, tournament_id, TableStatus.OPEN)
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
