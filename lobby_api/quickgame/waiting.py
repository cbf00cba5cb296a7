"""``GET /quickgame/waiting``: how many players of my city wait for a quick game, per stake level.

Read-only. A player waits while he holds a matchmaking ticket (``POST /tickets``) that is
``waiting`` and not expired; each player is counted once per stake level, however many
tickets he holds. Only counts are answered: never who waits.
"""

from __future__ import annotations

import msgspec
import sqlalchemy as sa
from litestar import Controller, get
from litestar.datastructures import State
from litestar.di import NamedDependency
from sqlmodel import col, select

from engine_server.store.types import utc_now
from lobby_api.accounts.models import PlayerRow
from lobby_api.catalog.services import list_stake_levels
from lobby_api.problems import problem_responses
from lobby_api.quickgame.models import TicketRow, TicketStatus

__all__ = ["WaitingController", "WaitingLevel", "WaitingView"]


class WaitingLevel(msgspec.Struct, kw_only=True):
    """One stake level."""

    #: The stake level's id (GET /stakes).
    stake_level: str
    name: str
    #: Players of the caller's city waiting at this level (the caller too, if he waits).
    waiting: int


class WaitingView(msgspec.Struct, kw_only=True):
    """GET /quickgame/waiting."""

    #: The caller's city: matchmaking only seats players of the same city.
    city: str
    #: Every stake level, in the order of GET /stakes.
    levels: list[WaitingLevel]


class WaitingController(Controller):
    tags = ["quick game"]  # noqa: RUF012 (Litestar's API)

    @get(
        "/quickgame/waiting",
        summary="How many players of my city are waiting for a quick game, per stake level",
        responses=problem_responses(401),
        security=[{"BearerToken": []}],
    )
    async def waiting(
        self, current_player: NamedDependency[PlayerRow], state: State
    ) -> WaitingView:
        city = current_player.city
        async with state.db.read() as session:
            levels = await list_stake_levels(session)
            counts = (
                await session.exec(
                    select(
                        TicketRow.stake_level,
                        sa.func.count(sa.distinct(col(TicketRow.player_id))),
                    )
                    .where(
                        col(TicketRow.status) == TicketStatus.WAITING.value,
                        col(TicketRow.city) == city,
                        col(TicketRow.expires_at) > utc_now(),
                        # A bot's ticket for one table that asked for bots is not a player
                        # looking for a game.
                        col(TicketRow.for_table_id).is_(None),
                    )
                    .group_by(col(TicketRow.stake_level))
                )
            ).all()
        by_level = {level: int(count) for level, count in counts}
        return WaitingView(
            city=city,
            levels=[
                WaitingLevel(stake_level=s.id, name=s.name, waiting=by_level.get(s.id, 0))
                for s in levels
            ],
        )
