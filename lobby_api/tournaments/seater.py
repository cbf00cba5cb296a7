"""Step 3 of the tournament director: seat started tournaments (called under the
tournament's lease by :meth:`~lobby_api.tournaments.director.Director.seat`).

a. the draw is recorded in one transaction, only if no table is recorded yet;
b. each recorded table is created on its engine and each entry seated there (idempotent on
   the ids of a), each confirmation recorded;
c. when every seat is confirmed, the level clock starts (``seated_at``).

Late registrations are placed at the table with the fewest players, in its lowest free seat,
at a new table when every table is full.
"""

from __future__ import annotations

import functools
import logging

import sqlalchemy as sa
from sqlmodel import col, select

from engine_server.ids import new_id
from engine_server.store.types import utc_now
from lobby_api.accounts.models import PlayerRow
from lobby_api.db import Database
from lobby_api.engine_client import EngineError
from lobby_api.engine_nodes import TableEngines
from lobby_api.tournaments.common import (
    locked_tournament,
)
from lobby_api.tournaments.engine_calls import TournamentEngine, TournamentTable
from lobby_api.tournaments.levels import LevelClock, parse_levels
from lobby_api.tournaments.models import (
    EntryStatus,
    TableStatus,
    TournamentEntryRow,
    TournamentRow,
    TournamentStatus,
    TournamentTableRow,
)
from lobby_api.tournaments.pass_limits import BATCH, at_once
from lobby_api.tournaments.seating import initial_draw
from lobby_api.tournaments.table_reads import tables_of

__all__ = ["Seater"]

log = logging.getLogger("stud.lobby.tournaments")


class Seater:
    """A tournament's draw, late entries, tables opened and players seated."""

    def __init__(self, db: Database, engines: TableEngines, engine: TournamentEngine) -> None:
        self.db = db
        self.engines = engines
        self.engine = engine

    async def to_seat(self) -> list[str]:
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
            drawn = await tables_of(session, tournament_id)
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
            planned = await tables_of(session, tournament_id, TableStatus.PLANNED)
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

        await at_once([functools.partial(open_one, t) for t in planned])

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

        await at_once([functools.partial(seat_at, t) for t in by_table.values()])
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
