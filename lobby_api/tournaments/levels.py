"""The level schedule: stakes that rise by the clock or by the number of hands.

A level lasts ``minutes`` or ``hands`` (one of the two). Levels change only between hands: a
table starts each hand at the level in force when the hand starts, and a level that runs out
mid-hand takes effect at every table's next hand. A hands-level counts the hands started in
it at the tournament's busiest table: the first table to play its ``hands`` moves the whole
tournament up.

>>> schedule = [Level(1, 2, 4, 8, minutes=10), Level(2, 4, 8, 16, hands=5), Level(3, 5, 10, 20, hands=5)]
>>> clock = LevelClock(schedule)
>>> clock.level_at(0, elapsed_seconds=599, hands_in_level=0)
0
>>> clock.level_at(0, elapsed_seconds=600, hands_in_level=0)
1
>>> clock.level_at(1, elapsed_seconds=9999, hands_in_level=4), clock.level_at(1, 0, 5)
(1, 2)
>>> clock.stakes(7) == schedule[-1]  # past the schedule the last level stays
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Level", "LevelClock", "LevelError", "parse_levels"]


class LevelError(ValueError):
    """A level schedule that cannot be played (the message names the level and field)."""


@dataclass(frozen=True, slots=True)
class Level:
    """One level's stakes (in tournament chips) and its length."""

    ante: int
    bring_in: int
    small_bet: int
    big_bet: int
    minutes: int | None = None
    hands: int | None = None

    def as_json(self) -> dict[str, int | None]:
        return {
            "ante": self.ante,
            "bring_in": self.bring_in,
            "small_bet": self.small_bet,
            "big_bet": self.big_bet,
            "minutes": self.minutes,
            "hands": self.hands,
        }


def _positive_int(value: object, where: str, *, zero: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if zero else 1):
        raise LevelError(f"{where} must be an integer of at least {0 if zero else 1}")
    return value


def parse_levels(value: object) -> tuple[Level, ...]:
    """Check and convert a schedule given as JSON: a non-empty list of levels, each with
    ``ante`` (≥ 0), ``bring_in``, ``small_bet``, ``big_bet`` (bring-in ≤ small bet ≤ big bet)
    and exactly one of ``minutes`` or ``hands``.

    >>> parse_levels([{"ante": 0, "bring_in": 1, "small_bet": 2, "big_bet": 4, "hands": 3}])[0]
    Level(ante=0, bring_in=1, small_bet=2, big_bet=4, minutes=None, hands=3)
    >>> parse_levels([{"ante": 0, "bring_in": 1, "small_bet": 2, "big_bet": 4}])
    Traceback (most recent call last):
    ...
    lobby_api.tournaments.levels.LevelError: levels[0] must last either minutes or hands
    """
    if not isinstance(value, list) or not value:
        raise LevelError("levels must be a non-empty list")
    levels: list[Level] = []
    for index, raw in enumerate(value):
        where = f"levels[{index}]"
        if isinstance(raw, Level):
            raw = raw.as_json()
        if not isinstance(raw, dict):
            raise LevelError(f"{where} must be an object")
        ante = _positive_int(raw.get("ante", 0), f"{where}.ante", zero=True)
        bring_in = _positive_int(raw.get("bring_in"), f"{where}.bring_in")
        small = _positive_int(raw.get("small_bet"), f"{where}.small_bet")
        big = _positive_int(raw.get("big_bet"), f"{where}.big_bet")
        if not bring_in <= small <= big:
            raise LevelError(f"{where}: bring_in <= small_bet <= big_bet must hold")
        minutes, hands = raw.get("minutes"), raw.get("hands")
        if (minutes is None) == (hands is None):
            raise LevelError(f"{where} must last either minutes or hands")
        level = Level(
            ante,
            bring_in,
            small,
            big,
            minutes=None if minutes is None else _positive_int(minutes, f"{where}.minutes"),
            hands=None if hands is None else _positive_int(hands, f"{where}.hands"),
        )
        levels.append(level)
    return tuple(levels)


class LevelClock:
    """Which level is in force, from the level's start and the hands played in it."""

    def __init__(self, levels: Sequence[Level]) -> None:
        if not levels:
            raise LevelError("levels must be a non-empty list")
        self.levels = tuple(levels)

    def stakes(self, index: int) -> Level:
        """Level ``index`` (0-based); past the end of the schedule, the last level."""
        return self.levels[min(index, len(self.levels) - 1)]

    def level_at(self, index: int, elapsed_seconds: float, hands_in_level: int) -> int:
        """The level for the next hand when level ``index`` has run ``elapsed_seconds`` and
        its busiest table has started ``hands_in_level`` hands in it: ``index`` or the next
        one (one step at a time, so no level is ever skipped)."""
        if index >= len(self.levels) - 1:
            return index
        level = self.levels[index]
        if level.minutes is not None and elapsed_seconds >= level.minutes * 60:
            return index + 1
        if level.hands is not None and hands_in_level >= level.hands:
            return index + 1
        return index

    def seconds_left(self, index: int, elapsed_seconds: float) -> float | None:
        """Seconds to the end of a minutes-level (None for a hands-level or the last one)."""
        level = self.stakes(index)
        if index >= len(self.levels) - 1 or level.minutes is None:
            return None
        return max(0.0, level.minutes * 60 - elapsed_seconds)

    def hands_left(self, index: int, hands_in_level: int) -> int | None:
        """Hands to the end of a hands-level (None for a minutes-level or the last one)."""
        level = self.stakes(index)
        if index >= len(self.levels) - 1 or level.hands is None:
            return None
        return max(0, level.hands - hands_in_level)
