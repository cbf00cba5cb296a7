"""Response bodies of the catalogue endpoints."""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["CityView", "StakeLevelView"]


class CityView(msgspec.Struct):
    id: str
    name: str


class StakeLevelView(msgspec.Struct):
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
    #: Seats at a quick game of this level (the opener and up to six others).
    seats: int
    rake: dict[str, Any] | None = None
