"""Rule profiles: the named settings of docs/rules.md §1, and the stakes of a table.

A profile is a :class:`RuleSettings`; a table or a hand script may override
any setting by name with :func:`apply_overrides`.

>>> house = PROFILES["house"]
>>> house.dealing, house.bring_in, house.max_raises
(<Dealing.SLOT: 'slot'>, <BringInMode.FORCED: 'forced'>, 3)
>>> memaid = apply_overrides(PROFILES["memaid"], {"burns": []})
>>> memaid.burns, memaid.showdown
((), <ShowdownRule.LAST_AGGRESSOR: 'last_aggressor'>)
>>> Stakes.from_small_bet(ante=1, small_bet=4)
Stakes(ante=1, bring_in=2, small_bet=4, big_bet=8)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any, Final

__all__ = [
    "MOST_PLAYERS",
    "PROFILES",
    "BringInMode",
    "Dealing",
    "ProfileError",
    "Rake",
    "RakeBracket",
    "RuleSettings",
    "ShortDeckRule",
    "ShowdownRule",
    "Stakes",
    "Street",
    "TimeoutRule",
    "apply_overrides",
    "profile",
    "settings_to_json",
]


class ProfileError(ValueError):
    """An unknown profile or setting, or a setting with a value it cannot take.

    ``field`` names what was wrong, e.g. ``"rules.burns"``.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


class Street(StrEnum):
    """The five betting rounds, in the order they are played."""

    THIRD = "third"
    FOURTH = "fourth"
    FIFTH = "fifth"
    SIXTH = "sixth"
    SEVENTH = "seventh"

    @property
    def order(self) -> int:
        """0 for third street … 4 for seventh."""
        return _STREET_INDEX[self]

    @property
    def is_big(self) -> bool:
        """Whether bets on this street are big bets (fifth street on)."""
        return _STREET_INDEX[self] >= 2


_STREET_INDEX: Final[dict[Street, int]] = {street: i for i, street in enumerate(Street)}


class Dealing(StrEnum):
    SLOT = "slot"
    TOP = "top"


class BringInMode(StrEnum):
    FORCED = "forced"
    CHOICE = "choice"
    RANGE = "range"


class TimeoutRule(StrEnum):
    CHECK_OR_FOLD = "check_or_fold"
    ALL_IN_PROTECTION_IF_CONTRIBUTED = "all_in_protection_if_contributed"
    ALL_IN_PROTECTION = "all_in_protection"


class ShowdownRule(StrEnum):
    ALL = "all"
    LAST_AGGRESSOR = "last_aggressor"
    LAST_AGGRESSOR_OR_BEST_SHOWING = "last_aggressor_or_best_showing"


class ShortDeckRule(StrEnum):
    COMMUNITY = "community"
    MEMAID = "memaid"
    CASINOS_AUSTRIA = "casinos_austria"


#: The most players a table seats (``max_players``' upper bound): a rake by players must
#: give a schedule for every count from 2 to this.
MOST_PLAYERS: Final = 9


@dataclass(frozen=True, slots=True)
class RakeBracket:
    """One bracket of a rake by players: hands dealt to ``min_players``…``max_players``
    players pay by this ``schedule`` of ``(pot_at_least, rake)`` steps."""

    min_players: int
    max_players: int
    schedule: tuple[tuple[int, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "min_players": self.min_players,
            "max_players": self.max_players,
            "schedule": [list(step) for step in self.schedule],
        }


@dataclass(frozen=True, slots=True)
class Rake:
    """How the house takes its rake.

    Either a percentage (``per_round``: of the chips that stay in the pot from
    each betting round, rounded down per round; otherwise of the final pot),
    with an optional ``cap`` on the total; or a ``schedule`` of
    ``(pot_at_least, rake)`` steps, the largest step the final pot reaches
    giving the rake; or schedules ``by_players``: the bracket holding the
    number of players dealt into the hand gives the schedule (multipoker's
    table by limit, players and pot). A parsed rake by players has a bracket
    for every count from 2 to :data:`MOST_PLAYERS`; a count no bracket holds
    (only in a rake built in code) takes no rake.

    >>> Rake(percent=Fraction(5), per_round=True).of_rounds([21, 40, 0], players=3)
    3
    >>> Rake(schedule=((5, 1), (12, 2))).of_pot(13, players=2)
    2
    >>> brackets = {"by_players": [
    ...     {"min_players": 2, "max_players": 3, "schedule": [[20, 1]]},
    ...     {"min_players": 4, "max_players": 9, "schedule": [[20, 1], [30, 2]]}]}
    >>> rake = Rake.from_json(brackets, "rake")
    >>> rake.of_pot(35, players=3), rake.of_pot(35, players=5)
    (1, 2)
    """

    percent: Fraction | None = None
    per_round: bool = False
    cap: int | None = None
    schedule: tuple[tuple[int, int], ...] = ()
    by_players: tuple[RakeBracket, ...] = ()

    def of_rounds(self, round_chips: list[int], players: int) -> int:
        """The rake on a hand dealt to ``players`` whose rounds left these chips in the pot."""
        pot = sum(round_chips)
        if self.percent is not None and self.per_round:
            total = sum(int(chips * self.percent / 100) for chips in round_chips)
            return self._capped(total, pot)
        return self.of_pot(pot, players)

    def of_pot(self, pot: int, players: int) -> int:
        """The rake on a final pot of a hand dealt to ``players``."""
        if self.percent is not None:
            return self._capped(int(pot * self.percent / 100), pot)
        schedule = self.schedule
        if self.by_players:
            schedule = ()
            for bracket in self.by_players:
                if bracket.min_players <= players <= bracket.max_players:
                    schedule = bracket.schedule
                    break
        rake = 0
        for threshold, amount in schedule:
            if pot >= threshold:
                rake = amount
        return min(rake, pot)

    def _capped(self, rake: int, pot: int) -> int:
        if self.cap is not None:
            rake = min(rake, self.cap)
        return min(rake, pot)

    def to_json(self) -> dict[str, Any]:
        if self.percent is not None:
            percent: int | float = (
                int(self.percent) if self.percent.denominator == 1 else float(self.percent)
            )
            return {"percent": percent, "per_round": self.per_round, "cap": self.cap}
        if self.by_players:
            return {"by_players": [bracket.to_json() for bracket in self.by_players]}
        return {"schedule": [list(step) for step in self.schedule]}

    @classmethod
    def from_json(cls, value: object, where: str) -> Rake | None:
        """Parse the rake object of docs/hand-scripts.md §2 (``None`` for ``{"none": true}``)."""
        if value is None:
            return None
        if not isinstance(value, dict):
            raise ProfileError(where, "must be a rake object or null")
        keys = set(value)
        if keys == {"none"}:
            if value["none"] is not True:
                raise ProfileError(f"{where}.none", "must be true")
            return None
        if "schedule" in keys:
            if keys != {"schedule"}:
                raise ProfileError(where, "a schedule rake takes no other keys")
            return cls(schedule=_parse_schedule(value["schedule"], f"{where}.schedule"))
        if "by_players" in keys:
            if keys != {"by_players"}:
                raise ProfileError(where, "a rake by players takes no other keys")
            return cls(by_players=_parse_brackets(value["by_players"], f"{where}.by_players"))
        unknown = keys - {"percent", "per_round", "cap"}
        if unknown:
            raise ProfileError(f"{where}.{sorted(unknown)[0]}", "unknown rake key")
        if "percent" not in keys:
            raise ProfileError(f"{where}.percent", "missing")
        percent = value["percent"]
        if isinstance(percent, bool) or not isinstance(percent, int | float):
            raise ProfileError(f"{where}.percent", "must be a number")
        if not 0 <= percent <= 100:
            raise ProfileError(f"{where}.percent", "must be between 0 and 100")
        per_round = value.get("per_round", False)
        if not isinstance(per_round, bool):
            raise ProfileError(f"{where}.per_round", "must be true or false")
        cap = value.get("cap")
        if cap is not None and not _is_count(cap):
            raise ProfileError(f"{where}.cap", "must be an integer >= 0 or null")
        return cls(percent=Fraction(str(percent)), per_round=per_round, cap=cap)


def _parse_schedule(steps: object, where: str) -> tuple[tuple[int, int], ...]:
    if not isinstance(steps, list) or not steps:
        raise ProfileError(where, "must be a non-empty list")
    parsed: list[tuple[int, int]] = []
    for i, step in enumerate(steps):
        if not isinstance(step, list) or len(step) != 2 or not all(_is_count(x) for x in step):
            raise ProfileError(f"{where}[{i}]", "must be [POT_AT_LEAST, RAKE], two integers >= 0")
        parsed.append((step[0], step[1]))
    return tuple(sorted(parsed))


def _parse_brackets(value: object, where: str) -> tuple[RakeBracket, ...]:
    """Brackets that do not overlap and leave no count from 2 to MOST_PLAYERS without a
    schedule: multipoker's table gives one for every count it seats (docs/rules.md §2.11), so a
    gap would be a mistake in the data, and a hand of that count would go unraked."""
    if not isinstance(value, list) or not value:
        raise ProfileError(where, "must be a non-empty list of brackets")
    brackets: list[tuple[RakeBracket, int]] = []
    for i, item in enumerate(value):
        spot = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise ProfileError(spot, "must be {min_players, max_players, schedule}")
        unknown = set(item) - {"min_players", "max_players", "schedule"}
        if unknown:
            raise ProfileError(f"{spot}.{sorted(unknown)[0]}", "unknown bracket key")
        for key in ("min_players", "max_players", "schedule"):
            if key not in item:
                raise ProfileError(f"{spot}.{key}", "missing")
        low, high = item["min_players"], item["max_players"]
        if not _is_count(low) or low < 2:
            raise ProfileError(f"{spot}.min_players", "must be an integer >= 2")
        if not _is_count(high) or high < low:
            raise ProfileError(f"{spot}.max_players", "must be an integer >= min_players")
        schedule = _parse_schedule(item["schedule"], f"{spot}.schedule")
        brackets.append((RakeBracket(low, high, schedule), i))
    brackets.sort(key=lambda entry: entry[0].min_players)
    covered = 1  # the largest count the brackets so far cover
    for bracket, i in brackets:
        spot = f"{where}[{i}]"
        if bracket.min_players <= covered:
            raise ProfileError(
                f"{spot}.min_players", f"overlaps another bracket (which goes up to {covered})"
            )
        if bracket.min_players > covered + 1:
            raise ProfileError(
                where, f"no bracket for {_counts(covered + 1, bracket.min_players - 1)}"
            )
        covered = bracket.max_players
    if covered < MOST_PLAYERS:
        raise ProfileError(where, f"no bracket for {_counts(covered + 1, MOST_PLAYERS)}")
    return tuple(bracket for bracket, _ in brackets)


def _counts(low: int, high: int) -> str:
    return f"{low} players" if low == high else f"{low}-{high} players"


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True, slots=True)
class Stakes:
    """Fixed-limit stakes, in the table's smallest chip unit."""

    ante: int
    bring_in: int
    small_bet: int
    big_bet: int

    @classmethod
    def from_small_bet(
        cls, *, ante: int, small_bet: int, bring_in: int | None = None, big_bet: int | None = None
    ) -> Stakes:
        """Stakes with the default ratios of docs/rules.md §2.2 where ``bring_in`` or
        ``big_bet`` is omitted."""
        return cls(
            ante=ante,
            bring_in=small_bet // 2 if bring_in is None else bring_in,
            small_bet=small_bet,
            big_bet=2 * small_bet if big_bet is None else big_bet,
        )

    def to_json(self) -> dict[str, int]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class RuleSettings:
    """One rule profile: every setting of docs/rules.md §1, plus the engine's own."""

    name: str
    max_players: int = 7
    dealing: Dealing = Dealing.SLOT
    burns: tuple[Street, ...] = ()
    bring_in: BringInMode = BringInMode.FORCED
    bring_in_last_option: bool = True
    open_pair_big_bet: bool = False
    max_raises: int = 3
    heads_up_uncapped_seventh: bool = False
    timeout: TimeoutRule = TimeoutRule.CHECK_OR_FOLD
    showdown: ShowdownRule = ShowdownRule.ALL
    short_deck: ShortDeckRule | None = None
    rake: Rake | None = None
    hi_lo: bool = False
    action_seconds: int = 30
    # Engine settings for live tables (not part of hand scripts).
    reconnect_extra_seconds: int = field(default=0, metadata={"live_only": True})
    winner_may_show: bool = field(default=False, metadata={"live_only": True})

    def to_json(self, *, include_live: bool = True) -> dict[str, Any]:
        """The settings as JSON values, by the names of docs/rules.md §1."""
        out: dict[str, Any] = {"profile": self.name}
        for f in dataclasses.fields(self):
            if f.name == "name" or (f.metadata.get("live_only") and not include_live):
                continue
            out[f.name] = _setting_to_json(getattr(self, f.name))
        return out


def _setting_to_json(value: object) -> Any:
    if isinstance(value, Rake):
        return value.to_json()
    if isinstance(value, tuple):
        return [str(v) for v in value]
    if isinstance(value, StrEnum):
        return str(value)
    return value


def settings_to_json(settings: RuleSettings) -> dict[str, Any]:
    """``stud rules NAME``'s output."""
    return settings.to_json()


_ALL_LATER_STREETS: Final = (Street.FOURTH, Street.FIFTH, Street.SIXTH, Street.SEVENTH)

_CASINOS_AUSTRIA: Final = RuleSettings(
    name="casinos_austria",
    max_players=9,
    dealing=Dealing.TOP,
    burns=tuple(Street),
    bring_in=BringInMode.RANGE,
    bring_in_last_option=False,
    open_pair_big_bet=True,
    heads_up_uncapped_seventh=True,
    showdown=ShowdownRule.LAST_AGGRESSOR,
    short_deck=ShortDeckRule.CASINOS_AUSTRIA,
    rake=Rake(percent=Fraction(5), per_round=True),
)

PROFILES: Final[Mapping[str, RuleSettings]] = {
    "house": RuleSettings(name="house"),
    "multipoker": RuleSettings(
        name="multipoker",
        max_players=8,
        dealing=Dealing.TOP,
        bring_in_last_option=False,
        open_pair_big_bet=True,
        timeout=TimeoutRule.ALL_IN_PROTECTION_IF_CONTRIBUTED,
        short_deck=ShortDeckRule.COMMUNITY,
        action_seconds=30,
        reconnect_extra_seconds=20,
    ),
    "memaid": RuleSettings(
        name="memaid",
        max_players=8,
        dealing=Dealing.TOP,
        burns=_ALL_LATER_STREETS,
        bring_in=BringInMode.CHOICE,
        bring_in_last_option=False,
        open_pair_big_bet=True,
        timeout=TimeoutRule.ALL_IN_PROTECTION,
        showdown=ShowdownRule.LAST_AGGRESSOR,
        short_deck=ShortDeckRule.MEMAID,
        action_seconds=10,
        winner_may_show=True,
    ),
    "casinos_austria": _CASINOS_AUSTRIA,
    "casinos_austria_hilo": dataclasses.replace(
        _CASINOS_AUSTRIA, name="casinos_austria_hilo", hi_lo=True
    ),
    "swedish": RuleSettings(
        name="swedish",
        max_players=8,
        dealing=Dealing.TOP,
        bring_in=BringInMode.CHOICE,
        bring_in_last_option=False,
        open_pair_big_bet=True,
        showdown=ShowdownRule.LAST_AGGRESSOR_OR_BEST_SHOWING,
        short_deck=ShortDeckRule.COMMUNITY,
    ),
}


def profile(name: object, where: str = "rules") -> RuleSettings:
    """The profile called ``name``."""
    if not isinstance(name, str) or name not in PROFILES:
        raise ProfileError(where, f"unknown profile {name!r} (known: {', '.join(PROFILES)})")
    return PROFILES[name]


def apply_overrides(
    base: RuleSettings,
    overrides: Mapping[str, object],
    *,
    where: str = "rules",
    allow_live: bool = True,
) -> RuleSettings:
    """``base`` with settings replaced by name, each value checked.

    >>> apply_overrides(PROFILES["house"], {"max_raises": 4}).max_raises
    4
    >>> apply_overrides(PROFILES["house"], {"color": "red"})
    Traceback (most recent call last):
    ...
    engine_server.game.profiles.ProfileError: rules.color: unknown setting
    """
    changes: dict[str, Any] = {}
    fields = {f.name: f for f in dataclasses.fields(RuleSettings) if f.name != "name"}
    for key, value in overrides.items():
        spot = f"{where}.{key}"
        known = fields.get(key)
        if known is None or (known.metadata.get("live_only") and not allow_live):
            raise ProfileError(spot, "unknown setting")
        changes[key] = _parse_setting(key, value, spot)
    return dataclasses.replace(base, **changes)


def _parse_setting(key: str, value: object, spot: str) -> Any:
    if key == "max_players":
        if not _is_count(value) or not 2 <= value <= MOST_PLAYERS:  # type: ignore[operator]
            raise ProfileError(spot, f"must be an integer from 2 to {MOST_PLAYERS}")
        return value
    if key in ("max_raises",):
        if not _is_count(value):
            raise ProfileError(spot, "must be an integer >= 0")
        return value
    if key == "action_seconds":
        if not _is_count(value) or value == 0:
            raise ProfileError(spot, "must be a positive integer")
        return value
    if key == "reconnect_extra_seconds":
        if not _is_count(value):
            raise ProfileError(spot, "must be an integer >= 0")
        return value
    if key in (
        "bring_in_last_option",
        "open_pair_big_bet",
        "heads_up_uncapped_seventh",
        "hi_lo",
        "winner_may_show",
    ):
        if not isinstance(value, bool):
            raise ProfileError(spot, "must be true or false")
        return value
    if key == "burns":
        if not isinstance(value, list):
            raise ProfileError(spot, "must be a list of streets")
        streets = [_enum(Street, v, spot) for v in value]
        if len(set(streets)) != len(streets):
            raise ProfileError(spot, "names a street twice")
        return tuple(sorted(streets, key=lambda s: s.order))
    if key == "rake":
        return Rake.from_json(value, spot)
    if key == "short_deck":
        return None if value is None else _enum(ShortDeckRule, value, spot)
    enums: dict[str, type[StrEnum]] = {
        "dealing": Dealing,
        "bring_in": BringInMode,
        "timeout": TimeoutRule,
        "showdown": ShowdownRule,
    }
    return _enum(enums[key], value, spot)


def _enum(kind: type[StrEnum], value: object, spot: str) -> Any:
    try:
        return kind(str(value)) if isinstance(value, str) else kind(value)  # type: ignore[arg-type]
    except ValueError:
        choices = ", ".join(str(member) for member in kind)
        raise ProfileError(spot, f"unknown value {value!r} (one of: {choices})") from None
