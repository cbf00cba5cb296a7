"""Players of a city looking for a game at a stake level, counted at most once a second.

A player alone at his quick table is told how many other players of his city look for a game
at his level (``opponents.waiting``): holders of a waiting ticket for any table, and players
sitting alone at another open quick table, each counted once. Counting them walks every open
quick table of the city and level — a millisecond at a thousand tables — and every quick
game's answer and every poll of a lonely table asked for it (issue 16: a tenth of a quick
game's CPU in the benchmark, and polls that grew with the square of the lonely tables).

So each lobby replica keeps, per city and level, the set of those players for
:data:`FRESH_SECONDS` (:class:`PlayersLooking`): one count however many ask at once, the
players it sees start looking added as they do (a quick game opened here, a ticket left
waiting), and the set dropped when something here may have taken someone out of it (a
ticket placed, withdrawn or expired, a player leaving). What changes elsewhere — on another
replica, a table the engine closed — shows within :data:`FRESH_SECONDS`. The set is a
derived view, never a record: losing it (a restart) loses nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlmodel import col

from engine_server.store.types import UTCDateTime, utc_now
from lobby_api import engine_reads
from lobby_api.db import LONG_READ, Database
from lobby_api.quickgame.models import QuickTableRow, QuickTableStatus, TicketRow, TicketStatus
from lobby_api.settlement.models import LobbySeatRow, SeatState

__all__ = ["FRESH_SECONDS", "PlayersLooking", "seat_taken"]

#: How long a replica answers from the set it counted.
FRESH_SECONDS = 1.0


def seat_taken() -> sa.ColumnElement[bool]:
    """A lobby seat that holds a place at its table (as ``occupied_seats`` counts them)."""
    return sa.or_(
        col(LobbySeatRow.state) == SeatState.PENDING.value,
        sa.and_(
            col(LobbySeatRow.state) == SeatState.SEATED.value,
            sa.not_(engine_reads.seat_session_closed(col(LobbySeatRow.seat_session_id))),
        ),
    )


@cache
def _looking_query() -> sa.CompoundSelect[Any]:
    """The players of ``city`` looking for a game at ``stake_level`` at ``now``: holders of a
    waiting ticket for any table, and players alone at an open quick table (UNION, not UNION
    ALL: a player with a ticket who also sits alone is one). Built once; a
    :data:`~lobby_api.db.LONG_READ` (every open table of the city and level is looked at)."""
    city = sa.bindparam("city", type_=sa.String)
    stake_level = sa.bindparam("stake_level", type_=sa.String)
    ticket_holders: sa.Select[Any] = sa.select(col(TicketRow.player_id).label("player_id")).where(
        col(TicketRow.status) == TicketStatus.WAITING.value,
        col(TicketRow.city) == city,
        col(TicketRow.stake_level) == stake_level,
        col(TicketRow.expires_at) > sa.bindparam("now", type_=UTCDateTime()),
        col(TicketRow.for_table_id).is_(None),
    )
    alone = (
        sa.select(sa.func.min(col(LobbySeatRow.player_id)).label("player_id"))
        .select_from(LobbySeatRow)
        .join(QuickTableRow, col(QuickTableRow.table_id) == col(LobbySeatRow.table_id))
        .where(
            col(QuickTableRow.city) == city,
            col(QuickTableRow.stake_level) == stake_level,
            col(QuickTableRow.status) == QuickTableStatus.OPEN.value,
            seat_taken(),
        )
        .group_by(col(LobbySeatRow.table_id))
        .having(sa.func.count() == 1)
    )
    return sa.union(ticket_holders, alone).execution_options(**LONG_READ)


@dataclass(slots=True)
class _Players:
    """One city and level: the players counted, until when they stand, and the count under
    way (with what happened here meanwhile: it is applied to its result)."""

    players: frozenset[str] = frozenset()
    fresh_until: float = float("-inf")
    counting: asyncio.Task[frozenset[str]] | None = None
    started_meanwhile: set[str] = field(default_factory=set)
    changed_meanwhile: bool = False


class PlayersLooking:
    """Per city and stake level, the players looking for a game, as this replica last counted
    them (see the module's docstring). One per process, on the app's state."""

    def __init__(
        self,
        db: Database,
        *,
        fresh_seconds: float = FRESH_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db = db
        self.fresh_seconds = fresh_seconds
        self.clock = clock
        self._levels: dict[tuple[str, str], _Players] = {}
        #: counts made (for tests and metrics)
        self.counts = 0

    async def count(self, city: str, stake_level: str, *, besides: str) -> int:
        """How many players of ``city`` look for a game at ``stake_level``, ``besides`` not
        counted (the player asking)."""
        return len(await self._players(city, stake_level) - {besides})

    def started(self, city: str, stake_level: str, player_id: str) -> None:
        """``player_id`` looks for a game there from now on (he sits alone at a table opened
        here, or holds a ticket left waiting)."""
        level = self._levels.get((city, stake_level))
        if level is None:
            return
        level.players = level.players | {player_id}
        if level.counting is not None:
            level.started_meanwhile.add(player_id)

    def changed(self, city: str, stake_level: str) -> None:
        """Someone may have stopped looking there (a ticket placed, withdrawn or expired, a
        player left a table): the next answer counts again."""
        level = self._levels.get((city, stake_level))
        if level is None:
            return
        level.fresh_until = float("-inf")
        if level.counting is not None:
            level.changed_meanwhile = True

    async def _players(self, city: str, stake_level: str) -> frozenset[str]:
        level = self._levels.setdefault((city, stake_level), _Players())
        if level.fresh_until > self.clock():
            return level.players
        if level.counting is None:
            level.started_meanwhile = set()
            level.changed_meanwhile = False
            level.counting = asyncio.create_task(self._count(level, city, stake_level))
        # Shielded: one asker giving up (his client went away) does not stop the count the
        # others wait for.
        return await asyncio.shield(level.counting)

    async def _count(self, level: _Players, city: str, stake_level: str) -> frozenset[str]:
        asked_at = self.clock()
        try:
            rows: list[Any] = await self.db.fetch(
                _looking_query(), {"city": city, "stake_level": stake_level, "now": utc_now()}
            )
        finally:
            level.counting = None
        self.counts += 1
        players = frozenset(row.player_id for row in rows) | level.started_meanwhile
        level.players = players
        if not level.changed_meanwhile:
            level.fresh_until = asked_at + self.fresh_seconds
        return players
