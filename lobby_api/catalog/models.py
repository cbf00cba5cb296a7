"""Cities players belong to and the stake levels quick games are played at.

Both are reference data loaded from ``seeds/`` (``python -m seeds.load``, and
by the app at start): ids are stable slugs chosen there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from engine_server.store import metadata as _metadata  # noqa: F401  (naming convention first)

__all__ = ["CityRow", "StakeLevel", "StakeLevelRow"]


class CityRow(SQLModel, table=True):
    """A city: matchmaking seats players only with players of their own city."""

    __tablename__ = "cities"

    id: str = Field(primary_key=True, max_length=32)
    name: str = Field(max_length=64)


class StakeLevelRow(SQLModel, table=True):
    """A stake level: the table settings a quick game at this level is opened with.

    Amounts are in the table's chip unit (cents for the multipoker levels).
    ``rake`` is null (the profile's default) or ``{"by_players": [{"min_players",
    "max_players", "schedule": [[pot_at_least, rake], ...]}, ...]}`` — the
    multipoker schedule, which depends on the number of players.
    """

    __tablename__ = "stake_levels"
    __table_args__ = (
        sa.CheckConstraint(
            "ante >= 0 AND bring_in > 0 AND small_bet > 0 AND big_bet >= small_bet", name="stakes"
        ),
        sa.CheckConstraint("min_buy_in > 0 AND max_buy_in >= min_buy_in", name="buy_in"),
        sa.CheckConstraint("action_seconds > 0", name="clock"),
    )

    id: str = Field(primary_key=True, max_length=32)
    name: str = Field(max_length=64)
    profile: str = Field(max_length=32)
    ante: int = Field(sa_type=sa.BigInteger)
    bring_in: int = Field(sa_type=sa.BigInteger)
    small_bet: int = Field(sa_type=sa.BigInteger)
    big_bet: int = Field(sa_type=sa.BigInteger)
    min_buy_in: int = Field(sa_type=sa.BigInteger)
    max_buy_in: int = Field(sa_type=sa.BigInteger)
    #: The clock per decision, seconds (a sub-second clock is for tests and demos).
    action_seconds: float
    rake: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)
    #: Listing order.
    position: int = 0


@dataclass(frozen=True, slots=True)
class StakeLevel:
    """A stake level as the rooms read it: a value, not a row a session tracks (read with one
    Core statement, a third of what the ORM's object costs: issue 16). The fields are
    :class:`StakeLevelRow`'s."""

    id: str
    name: str
    profile: str
    ante: int
    bring_in: int
    small_bet: int
    big_bet: int
    min_buy_in: int
    max_buy_in: int
    action_seconds: float
    rake: dict[str, Any] | None
    position: int
