"""Reading the catalogue (cities and stake levels) and choosing a table's rules from it."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from lobby_api.catalog.models import CityRow, StakeLevel, StakeLevelRow
from lobby_api.problems import DomainError

__all__ = [
    "MAX_QUICK_SEATS",
    "TOPUP_TO_MINIMUM_PROFILES",
    "check_buy_in",
    "find_stake_level",
    "get_city",
    "get_stake_level",
    "list_cities",
    "list_stake_levels",
    "quick_seats",
    "rule_overrides",
    "seats_at",
]

#: A quick game seats its opener and at most six others (docs/rules.md §1: seven seats in the
#: house profile).
MAX_QUICK_SEATS = 7

#: Profiles whose rules say a top-up (a re-buy) must bring the stack to at least the minimum
#: buy-in: casinos_austria ("only up to at least the minimum buy-in") and memaid ("no short
#: buy-ins"); docs/rules.md §2.1.
TOPUP_TO_MINIMUM_PROFILES = frozenset({"casinos_austria", "casinos_austria_hilo", "memaid"})


_LEVELS: sa.Table = StakeLevelRow.__table__  # type: ignore[attr-defined]
#: A stake level by its id: one statement, built once (bound parameter).
_LEVEL_BY_ID = sa.select(*_LEVELS.columns).where(
    _LEVELS.c.id == sa.bindparam("level_id", type_=sa.String)
)
_LEVELS_IN_ORDER = sa.select(*_LEVELS.columns).order_by(_LEVELS.c.position, _LEVELS.c.id)


async def list_cities(session: AsyncSession) -> list[CityRow]:
    return list((await session.exec(select(CityRow).order_by(col(CityRow.id)))).all())


async def list_stake_levels(session: AsyncSession) -> list[StakeLevel]:
    """Every stake level, in listing order."""
    rows = (await session.exec(_LEVELS_IN_ORDER)).all()  # type: ignore[call-overload]
    return [StakeLevel(**row._mapping) for row in rows]


async def get_city(session: AsyncSession, city_id: str, field: str = "city") -> CityRow:
    city = await session.get(CityRow, city_id)
    if city is None:
        raise DomainError(422, "unknown_city", f"there is no city {city_id!r}", field)
    return city


async def find_stake_level(session: AsyncSession, level_id: str) -> StakeLevel | None:
    """The stake level ``level_id`` (None: there is none)."""
    row = (await session.exec(_LEVEL_BY_ID, params={"level_id": level_id})).first()  # type: ignore[call-overload]
    return None if row is None else StakeLevel(**row._mapping)


async def get_stake_level(
    session: AsyncSession, level_id: str, field: str = "stake_level"
) -> StakeLevel:
    """The stake level a request names, or a 422 problem naming ``field``."""
    level = await find_stake_level(session, level_id)
    if level is None:
        raise DomainError(
            422, "unknown_stake_level", f"there is no stake level {level_id!r}", field
        )
    return level


def check_buy_in(level: StakeLevel, buy_in: int, field: str = "buy_in") -> None:
    """A buy-in within the level's limits: no short buys, nothing above the maximum."""
    if not level.min_buy_in <= buy_in <= level.max_buy_in:
        raise DomainError(
            422,
            "buy_in_out_of_range",
            f"{field} {buy_in} is outside {level.min_buy_in}..{level.max_buy_in} "
            f"for stake level {level.id}",
            field,
        )


def seats_at(level: StakeLevel) -> int:
    """How many players a quick game at this level seats (its opener included)."""
    return quick_seats(level.profile)


def quick_seats(profile: str) -> int:
    """How many players a quick game of this rule profile seats (its opener included)."""
    from engine_server.game.profiles import PROFILES

    return min(MAX_QUICK_SEATS, PROFILES[profile].max_players)


def rule_overrides(level: StakeLevel) -> dict[str, Any]:
    """The overrides (settings of docs/rules.md §1) a quick game at this level is created with.

    The clock is the level's, and so is the rake: the level's whole schedule by players
    dealt in (``{"by_players": [...]}``, multipoker's by limit, players and pot), which the
    engine applies hand by hand to the number of players dealt into each hand. A level
    without one plays its profile's rake.
    """
    overrides: dict[str, Any] = {"action_seconds": level.action_seconds}
    if level.action_seconds.is_integer():
        overrides["action_seconds"] = int(level.action_seconds)
    if level.rake:
        overrides["rake"] = level.rake
    return overrides
