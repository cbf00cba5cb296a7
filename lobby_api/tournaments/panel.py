"""The tournament as every open table shows it: the level in force (``SetStakes``) and the
tournament panel (``SetTournamentInfo``), sent by the tables step of the director.
"""

from __future__ import annotations

import functools
import logging
from datetime import timedelta

from stud.v1 import table_pb2

from lobby_api.db import Database
from lobby_api.tournaments.engine_calls import TournamentEngine, stakes_of
from lobby_api.tournaments.hand_ends import plays_hand_for_hand
from lobby_api.tournaments.levels import LevelClock, parse_levels
from lobby_api.tournaments.models import (
    TournamentStatus,
)
from lobby_api.tournaments.pass_limits import at_once
from lobby_api.tournaments.results import places_paid
from lobby_api.tournaments.table_reads import engine_tables, playing_entries

__all__ = ["TournamentPanel"]

log = logging.getLogger("stud.lobby.tournaments")


class TournamentPanel:
    """Shows each table the level and the tournament, again only when it changed."""

    def __init__(self, db: Database, engine: TournamentEngine) -> None:
        self.db = db
        self.engine = engine
        # What this replica last showed each table (level, info): not sent again unchanged.
        self._shown: dict[str, tuple[int, bytes]] = {}

    async def show_tournament(self, tournament_id: str) -> None:
        """Every open table: the level in force (``SetStakes``, from its next hand) and the
        tournament panel (``SetTournamentInfo``), each sent again only when it changed since
        this replica last sent it (both are idempotent on the engine)."""
        tournament, tables, engine = await engine_tables(self.db, tournament_id)
        if tournament.status != TournamentStatus.RUNNING.value or not tables:
            return
        clock = LevelClock(parse_levels(tournament.levels))
        index = tournament.current_level
        level = clock.stakes(index)
        in_level = max(
            (
                (engine[t.table_id].hands_started if t.table_id in engine else 0)
                - t.level_hands_base
                for t in tables
            ),
            default=0,
        )
        async with self.db.read() as session:
            left = len(await playing_entries(self.db, tournament_id))
            h4h = await plays_hand_for_hand(session, tournament)
        entrants = tournament.entrants or 0
        info = table_pb2.TournamentInfo(
            level=index + 1,
            stakes=stakes_of(level),
            hands_to_next_level=clock.hands_left(index, in_level) or 0,
            players_left=left,
            entrants=entrants,
            average_stack=(entrants * tournament.starting_chips) // max(left, 1),
            prize_pool=tournament.buy_in * entrants,
            hand_for_hand=h4h,
            places_paid=places_paid(tournament),
        )
        started = tournament.level_started_at
        if level.minutes is not None and started is not None and index < len(clock.levels) - 1:
            info.next_level_time.FromDatetime(started + timedelta(minutes=level.minutes))
        if index < len(clock.levels) - 1:
            info.next_stakes.CopyFrom(stakes_of(clock.stakes(index + 1)))
        shown = info.SerializeToString(deterministic=True)

        async def show(table_id: str) -> None:
            await self.engine.set_stakes(table_id, index + 1, level)
            await self.engine.show_info(table_id, info)
            self._shown[table_id] = (index, shown)

        # Several tables at once: the panel changes with nearly every player out, and 143
        # tables one after the other held up every pass of the director for seconds.
        await at_once(
            [
                functools.partial(show, table.table_id)
                for table in tables
                if table.table_id in engine and self._shown.get(table.table_id) != (index, shown)
            ]
        )
