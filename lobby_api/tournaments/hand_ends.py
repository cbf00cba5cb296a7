"""Step 5 of the tournament director: the hands' ends at the tournaments' tables, each
recorded once (the table's ``hands_recorded``): every seat's chips, and the players the
engine closed BUSTED placed and paid (:mod:`lobby_api.tournaments.results`) and told their
place (:class:`~lobby_api.tournaments.place_telling.PlaceTeller`); the last player left wins.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from lobby_api import engine_reads
from lobby_api.db import Database
from lobby_api.tournaments.common import (
    locked_tournament,
)
from lobby_api.tournaments.models import (
    EntryStatus,
    TableStatus,
    TournamentEntryRow,
    TournamentRow,
    TournamentStatus,
    TournamentTableRow,
)
from lobby_api.tournaments.place_telling import PlaceTeller
from lobby_api.tournaments.results import chips_and_busts, places_paid, record_busts_in

__all__ = ["HandEnds", "plays_hand_for_hand"]

log = logging.getLogger("stud.lobby.tournaments")


async def plays_hand_for_hand(session: AsyncSession, tournament: TournamentRow) -> bool:
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


class HandEnds:
    """Records the hands' ends of the tournaments' tables, in order, each once."""

    def __init__(self, db: Database, places: PlaceTeller) -> None:
        self.db = db
        self.places = places

    async def record_hands(self) -> int:
        """Record the ends of the hands played at the open tables of running tournaments,
        in order, each once: every seat's chips, and the players the engine closed BUSTED,
        placed and paid (:func:`~lobby_api.tournaments.results.record_busts_in`) and told
        their place at their table (``AwardPlace``). The count of hands recorded now.

        Each hand is one transaction with the table's ``hands_recorded``, so a hand is
        recorded once whichever replicas run this and whenever one dies. A tournament playing
        hand-for-hand is left to :meth:`~lobby_api.tournaments.table_runner.TableRunner.hand_for_hand`, which records each round's hands at
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
                if await plays_hand_for_hand(session, tournament)
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
            count, _all = await self.record_in_order(tournament_id, ended)
            recorded += count
        return recorded

    async def record_in_order(
        self, tournament_id: str, ended: dict[str, list[engine_reads.HandOutcome]]
    ) -> tuple[int, bool]:
        """Record these hands' ends of one tournament's tables in one transaction, one hand
        after the other **in the order they ended** across its tables (a player out earlier
        places lower, whatever his table: recording table after table would place a bust at
        one table before an earlier one at another). Stops at the bubble: a hand that leaves
        the tournament playing hand-for-hand leaves the rest to :meth:`~lobby_api.tournaments.table_runner.TableRunner.hand_for_hand`'s
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

    async def record_hand(
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
                if unless_hand_for_hand and await plays_hand_for_hand(session, tournament):
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
            await self.places.announce_places(tournament_id, placed)
        return count, complete
