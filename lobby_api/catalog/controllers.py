"""``GET /cities`` and ``GET /stakes``: what a player may choose from (no log-in needed)."""

from __future__ import annotations

from litestar import Controller, get
from litestar.di import NamedDependency
from sqlmodel.ext.asyncio.session import AsyncSession

from lobby_api.catalog import services
from lobby_api.catalog.schemas import CityView, StakeLevelView

__all__ = ["CatalogController"]


class CatalogController(Controller):
    tags = ["catalogue"]  # noqa: RUF012 (Litestar's API)

    @get("/cities", summary="The cities players belong to")
    async def cities(self, db_session: NamedDependency[AsyncSession]) -> list[CityView]:
        return [CityView(c.id, c.name) for c in await services.list_cities(db_session)]

    @get("/stakes", summary="The stake levels quick games are played at")
    async def stakes(self, db_session: NamedDependency[AsyncSession]) -> list[StakeLevelView]:
        return [
            StakeLevelView(
                id=s.id,
                name=s.name,
                profile=s.profile,
                ante=s.ante,
                bring_in=s.bring_in,
                small_bet=s.small_bet,
                big_bet=s.big_bet,
                min_buy_in=s.min_buy_in,
                max_buy_in=s.max_buy_in,
                action_seconds=s.action_seconds,
                seats=services.seats_at(s),
                rake=s.rake,
            )
            for s in await services.list_stake_levels(db_session)
        ]
