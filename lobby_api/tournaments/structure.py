"""A tournament's structure: checked once, from a template or from ops, with its defaults.

:func:`parse_structure` takes the JSON ops send to ``POST /admin/tournaments`` (and the
templates of ``seeds/tournaments.json``) and returns a :class:`Structure` or raises
:class:`StructureError` naming the field. What is left out takes these defaults
(``docs/tournaments.md``):

| field | default |
|---|---|
| ``kind`` | ``sit_and_go`` |
| ``profile`` | ``house``; ``rule_overrides`` ``{}`` (any setting of docs/rules.md §1, checked) |
| ``buy_in`` / ``fee`` | ``100`` / ``10`` |
| ``starting_chips`` | ``1500`` |
| ``max_players`` | ``table_size`` for a sit & go (one table), ``100`` for a scheduled one |
| ``min_players`` | ``max_players`` for a sit & go (it starts when full), ``2`` otherwise |
| ``table_size`` | ``7`` |
| ``levels`` | :data:`DEFAULT_LEVELS` (10 hands each) |
| ``city`` | ``null``: open to all |
| ``starts_at`` | required for ``scheduled``, refused for ``sit_and_go`` |
| ``late_registration_levels`` | ``0`` |
| ``payouts`` | ``null``: the default table by entrants (payouts.py) |

>>> s = parse_structure({"name": "Turbo 7"})
>>> s.kind, s.max_players, s.min_players, s.table_size, len(s.levels)
('sit_and_go', 7, 7, 7, 8)
>>> parse_structure({"name": "x", "buy_in": -1})
Traceback (most recent call last):
...
lobby_api.tournaments.structure.StructureError: buy_in: must be an integer of at least 0
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from engine_server.game.profiles import PROFILES, ProfileError, apply_overrides
from lobby_api.tournaments.levels import Level, LevelError, parse_levels
from lobby_api.tournaments.models import TournamentKind
from lobby_api.tournaments.payouts import PayoutError, parse_payout_table

__all__ = [
    "DEFAULT_LEVELS",
    "MAX_FIELD",
    "Structure",
    "StructureError",
    "parse_structure",
]

#: The biggest field a tournament may have.
MAX_FIELD = 10_000

#: The default schedule: 10 hands a level, antes from level 2, bets doubling every two levels.
DEFAULT_LEVELS: tuple[dict[str, int], ...] = (
    {"ante": 0, "bring_in": 5, "small_bet": 10, "big_bet": 20, "hands": 10},
    {"ante": 2, "bring_in": 5, "small_bet": 15, "big_bet": 30, "hands": 10},
    {"ante": 3, "bring_in": 10, "small_bet": 20, "big_bet": 40, "hands": 10},
    {"ante": 5, "bring_in": 10, "small_bet": 30, "big_bet": 60, "hands": 10},
    {"ante": 5, "bring_in": 15, "small_bet": 40, "big_bet": 80, "hands": 10},
    {"ante": 10, "bring_in": 20, "small_bet": 60, "big_bet": 120, "hands": 10},
    {"ante": 15, "bring_in": 30, "small_bet": 80, "big_bet": 160, "hands": 10},
    {"ante": 20, "bring_in": 40, "small_bet": 120, "big_bet": 240, "hands": 10},
)

_KNOWN = {
    "name",
    "kind",
    "profile",
    "rule_overrides",
    "buy_in",
    "fee",
    "starting_chips",
    "min_players",
    "max_players",
    "table_size",
    "levels",
    "city",
    "starts_at",
    "late_registration_levels",
    "payouts",
}


class StructureError(ValueError):
    """A structure that cannot be played: ``field`` names what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class Structure:
    """A checked structure, every default filled in."""

    name: str
    kind: str
    profile: str
    buy_in: int
    fee: int
    starting_chips: int
    min_players: int
    max_players: int
    table_size: int
    levels: tuple[Level, ...]
    rule_overrides: dict[str, Any] = field(default_factory=dict)
    city: str | None = None
    starts_at: datetime | None = None
    late_registration_levels: int = 0
    payouts: list[dict[str, Any]] | None = None

    def levels_json(self) -> list[dict[str, Any]]:
        """The levels as stored and shown (``minutes`` or ``hands``, never both)."""
        return [
            {k: v for k, v in level.as_json().items() if v is not None} for level in self.levels
        ]


def _int(data: dict[str, Any], name: str, default: int, least: int) -> int:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise StructureError(name, f"must be an integer of at least {least}")
    return value


def _level_field(message: str) -> str:
    # The pure rules' messages start with the field they are about ("levels[2].ante must …").
    head = message.split(" ", 1)[0].rstrip(":")
    return head if head.startswith("levels") else "levels"


def _starts_at(value: object) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise StructureError("starts_at", "must be an ISO 8601 date and time") from None
    else:
        raise StructureError("starts_at", "must be an ISO 8601 date and time")
    if moment.tzinfo is None:
        raise StructureError("starts_at", "must carry a time zone (e.g. 2026-12-01T20:00:00Z)")
    return moment.astimezone(UTC)


def parse_structure(data: object, *, template: bool = False) -> Structure:
    """Check ``data`` (decoded JSON) and fill in the defaults (see the module's docstring).

    A ``template`` of a scheduled tournament may leave ``starts_at`` out: ops give it when
    they create a tournament from the template.
    """
    if not isinstance(data, dict):
        raise StructureError("body", "a tournament structure is a JSON object")
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise StructureError(unknown[0], "unknown field")
    name = data.get("name")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 80:
        raise StructureError("name", "must be 1-80 characters")
    kind = data.get("kind", TournamentKind.SIT_AND_GO.value)
    if kind not in {k.value for k in TournamentKind}:
        raise StructureError("kind", "must be 'sit_and_go' or 'scheduled'")
    profile = data.get("profile", "house")
    if not isinstance(profile, str) or profile not in PROFILES:
        raise StructureError("profile", f"unknown profile (known: {', '.join(PROFILES)})")
    overrides = data.get("rule_overrides", {})
    if not isinstance(overrides, dict):
        raise StructureError("rule_overrides", "must be an object of rule settings")
    try:
        rules = apply_overrides(PROFILES[profile], overrides, where="rule_overrides")
    except ProfileError as error:
        raise StructureError(error.field, error.reason) from None
    buy_in = _int(data, "buy_in", 100, 0)
    fee = _int(data, "fee", 10, 0)
    starting_chips = _int(data, "starting_chips", 1500, 1)
    table_size = _int(data, "table_size", min(7, rules.max_players), 2)
    if table_size > rules.max_players:
        raise StructureError(
            "table_size", f"the {profile} rules seat at most {rules.max_players} players"
        )
    sit_and_go = kind == TournamentKind.SIT_AND_GO.value
    max_players = _int(data, "max_players", table_size if sit_and_go else 100, 2)
    if max_players > MAX_FIELD:
        raise StructureError("max_players", f"must be at most {MAX_FIELD}")
    min_players = _int(data, "min_players", max_players if sit_and_go else 2, 2)
    if min_players > max_players:
        raise StructureError("min_players", "must be at most max_players")
    if sit_and_go and min_players != max_players:
        raise StructureError(
            "min_players", "a sit & go starts when full: min_players = max_players"
        )
    raw_levels = data.get("levels")
    if raw_levels is None:
        raw_levels = [dict(level) for level in DEFAULT_LEVELS]
    try:
        levels = parse_levels(raw_levels)
    except LevelError as error:
        where = _level_field(str(error))
        raise StructureError(where, str(error).removeprefix(where).lstrip(": ")) from None
    first = levels[0]
    if starting_chips < first.ante + first.big_bet:
        raise StructureError(
            "starting_chips", "must cover at least the first level's ante and big bet"
        )
    city = data.get("city")
    if city is not None and (not isinstance(city, str) or not 1 <= len(city) <= 32):
        raise StructureError("city", "must be a city id or null")
    starts_at = _starts_at(data.get("starts_at"))
    late = _int(data, "late_registration_levels", 0, 0)
    if sit_and_go:
        if starts_at is not None:
            raise StructureError("starts_at", "a sit & go starts when full, not at a time")
        if late:
            raise StructureError("late_registration_levels", "a sit & go has no late registration")
    elif starts_at is None and not template:
        raise StructureError("starts_at", "a scheduled tournament needs its start time")
    if late > len(levels):
        raise StructureError("late_registration_levels", "must be at most the number of levels")
    payouts = data.get("payouts")
    if payouts is not None:
        try:
            parse_payout_table(payouts)
        except PayoutError as error:
            raise StructureError("payouts", str(error)) from None
    return Structure(
        name=name.strip(),
        kind=kind,
        profile=profile,
        buy_in=buy_in,
        fee=fee,
        starting_chips=starting_chips,
        min_players=min_players,
        max_players=max_players,
        table_size=table_size,
        levels=levels,
        rule_overrides=dict(overrides),
        city=city,
        starts_at=starts_at,
        late_registration_levels=late,
        payouts=payouts,
    )
