"""Hypothesis strategies for whole hands: rules, stakes, seats, button and deck.

A :class:`Scenario` fixes everything a :class:`~engine_server.game.hand.Hand`
is built from, and can write itself as a hand script (docs/hand-scripts.md) so that a
failing example can be replayed with ``stud replay``.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from engine_server.game.actions import ActionKind
from engine_server.game.cards import CANONICAL_DECK, Card, format_cards
from engine_server.game.hand import Hand
from engine_server.game.profiles import (
    PROFILES,
    Dealing,
    Rake,
    RuleSettings,
    ShortDeckRule,
    Stakes,
    Street,
    apply_overrides,
)

__all__ = ["PROFILE_NAMES", "Scenario", "scenarios"]

PROFILE_NAMES: tuple[str, ...] = tuple(PROFILES)

_STREET_NAMES = [str(street) for street in Street]

#: Overridable settings (docs/rules.md §1) and the JSON values a script may give them.
_OVERRIDES: dict[str, st.SearchStrategy[Any]] = {
    "dealing": st.sampled_from(["slot", "top"]),
    "burns": st.lists(st.sampled_from(_STREET_NAMES), unique=True).map(
        lambda names: sorted(names, key=_STREET_NAMES.index)
    ),
    "bring_in": st.sampled_from(["forced", "choice", "range"]),
    "bring_in_last_option": st.booleans(),
    "open_pair_big_bet": st.booleans(),
    "max_raises": st.integers(0, 4),
    "heads_up_uncapped_seventh": st.booleans(),
    "timeout": st.sampled_from(
        ["check_or_fold", "all_in_protection_if_contributed", "all_in_protection"]
    ),
    "showdown": st.sampled_from(["all", "last_aggressor", "last_aggressor_or_best_showing"]),
    "short_deck": st.sampled_from([None, "community", "memaid", "casinos_austria"]),
    "hi_lo": st.booleans(),
    "max_players": st.integers(2, 9),
}

_SCHEDULES: st.SearchStrategy[list[list[int]]] = st.lists(
    st.tuples(st.integers(0, 200), st.integers(0, 15)).map(list), min_size=1, max_size=4
)


def _brackets(cuts: list[int], schedules: list[list[list[int]]]) -> list[dict[str, Any]]:
    """Brackets starting at 2 and at each cut, the last one up to 10 players."""
    starts = [2, *cuts]
    ends = [start - 1 for start in cuts] + [10]
    return [
        {"min_players": low, "max_players": high, "schedule": schedule}
        for low, high, schedule in zip(starts, ends, schedules, strict=True)
    ]


#: ``stakes.rake`` values of docs/hand-scripts.md §2; absent means the profile's own.
_RAKES: st.SearchStrategy[dict[str, Any]] = st.one_of(
    st.just({"none": True}),
    st.builds(
        lambda percent, per_round, cap: {"percent": percent, "per_round": per_round, "cap": cap},
        st.sampled_from([1, 2.5, 5, 10, 50, 100]),
        st.booleans(),
        st.none() | st.integers(0, 30),
    ),
    _SCHEDULES.map(lambda steps: {"schedule": steps}),
    # Multipoker's: brackets of players dealt in, cut anywhere, covering 2 to 9 (and beyond).
    st.sets(st.integers(3, 9), max_size=3).flatmap(
        lambda cuts: st.lists(_SCHEDULES, min_size=len(cuts) + 1, max_size=len(cuts) + 1).map(
            lambda schedules: {"by_players": _brackets(sorted(cuts), schedules)}
        )
    ),
)


@dataclass(frozen=True)
class Scenario:
    """Everything that fixes one hand, as a hand script would give it."""

    profile: str
    overrides: dict[str, Any]
    settings: RuleSettings
    stakes: Stakes
    stakes_json: dict[str, Any]
    rake: Rake | None
    rake_given: bool
    seats: tuple[tuple[int, int], ...]
    button: int
    deck: tuple[Card, ...]

    def new_hand(self) -> Hand:
        return Hand(
            self.settings,
            self.stakes,
            self.seats,
            self.button,
            self.deck,
            rake=self.rake,
            use_profile_rake=not self.rake_given,
        )

    def __repr__(self) -> str:
        # A replayable script rather than every field (the deck alone is 52 lines).
        return f"Scenario({json.dumps(self.script([]))})"

    @property
    def start_total(self) -> int:
        return sum(stack for _, stack in self.seats)

    def script(self, actions: list[tuple[int, ActionKind, int | None]]) -> dict[str, Any]:
        """The hand as a hand script (docs/hand-scripts.md), ``actions`` included (for failure
        reports)."""
        rules: Any = {"profile": self.profile, **self.overrides} if self.overrides else self.profile
        moves: list[dict[str, Any]] = []
        for seat, kind, to in actions:
            move: dict[str, Any] = {"seat": seat, "do": str(kind)}
            if to is not None:
                move["amount" if kind is ActionKind.BRING_IN else "to"] = to
            moves.append(move)
        return {
            "rules": rules,
            "stakes": self.stakes_json,
            "seats": [{"seat": seat, "stack": stack} for seat, stack in self.seats],
            "button": self.button,
            "deck": format_cards(self.deck),
            "actions": moves,
        }


_LATER_STREETS = frozenset({Street.FOURTH, Street.FIFTH, Street.SIXTH, Street.SEVENTH})


def _max_dealt(settings: RuleSettings, table_size: int) -> int:
    """How many players may be dealt in without a full deck running out.

    Seven cards each and every burn fit in 52 cards up to ``(52 - burns) // 7``
    players. Beyond that a short-deck rule must step in: ``casinos_austria``
    always can (it keeps a card back); ``community`` and ``memaid`` can as the
    profiles that use them play (no burns, or burns from fourth street, up to
    eight players), but not with every override — a burn or a reshuffle can use
    up the stub's last card before seventh street (a suspected engine bug,
    reported; those combinations are kept out here).
    """
    most = min(table_size, settings.max_players)
    if settings.dealing is Dealing.SLOT:
        return min(most, 7)
    fits = (52 - len(settings.burns)) // 7
    rule = settings.short_deck
    if rule is ShortDeckRule.CASINOS_AUSTRIA:
        return most
    if rule is ShortDeckRule.COMMUNITY and not settings.burns:
        return min(most, 8)
    if rule is ShortDeckRule.MEMAID and set(settings.burns) <= _LATER_STREETS:
        return min(most, 8)
    return min(most, fits)


@st.composite
def scenarios(draw: st.DrawFn, profiles: tuple[str, ...] = PROFILE_NAMES) -> Scenario:
    """A random hand: profile and overrides, stakes, seats and stacks, button, deck."""
    name = draw(st.sampled_from(profiles))
    keys = draw(st.lists(st.sampled_from(sorted(_OVERRIDES)), unique=True, max_size=5))
    overrides = {key: draw(_OVERRIDES[key]) for key in sorted(keys)}
    settings = apply_overrides(PROFILES[name], overrides)

    ante = draw(st.integers(0, 5))
    small = draw(st.integers(1, 20))
    stakes_json: dict[str, Any] = {"ante": ante, "small_bet": small}
    if draw(st.booleans()):
        stakes_json["bring_in"] = draw(st.integers(1, small))
    if draw(st.booleans()):
        stakes_json["big_bet"] = draw(st.integers(small, 3 * small))
    stakes = Stakes.from_small_bet(
        ante=ante,
        small_bet=small,
        bring_in=stakes_json.get("bring_in"),
        big_bet=stakes_json.get("big_bet"),
    )
    rake: Rake | None = None
    rake_given = draw(st.booleans())
    if rake_given:
        stakes_json["rake"] = draw(_RAKES)
        rake = Rake.from_json(stakes_json["rake"], "stakes.rake")

    # Seats 1..max_players: a random subset, often a full table (short-deck rules
    # need one), some seats with no chips (not dealt in).
    size = draw(st.just(settings.max_players) | st.integers(2, settings.max_players))
    seat_numbers = sorted(
        draw(
            st.lists(
                st.integers(1, settings.max_players), min_size=size, max_size=size, unique=True
            )
        )
    )
    dealt_most = _max_dealt(settings, len(seat_numbers))
    short = ante + 2 * stakes.big_bet
    # By weight: no chips 1, at most the ante 1, short of a bet or two 2, deep 6
    # (Hypothesis favours the ends of a range, so the rarer kinds sit in the middle).
    deep = st.integers(short, 60 * stakes.big_bet + ante)
    stack_kinds = [
        deep,
        st.integers(1, short),
        st.integers(short, 10_000),
        deep,
        st.just(0),
        st.integers(1, max(1, ante)),
        deep,
        st.integers(1, short),
        st.integers(short, 10_000),
        st.integers(1, 10_000),
    ]
    with_chips_kinds = [kind for i, kind in enumerate(stack_kinds) if i != 4]
    stack_of = st.sampled_from(with_chips_kinds).flatmap(lambda kind: kind)
    stacks = [draw(draw(st.sampled_from(stack_kinds))) for _ in seat_numbers]
    # At least two players with chips, at most as many as the deck can serve.
    with_chips = [i for i, stack in enumerate(stacks) if stack > 0]
    for i in range(len(stacks)):
        if len(with_chips) >= 2:
            break
        if stacks[i] == 0:
            stacks[i] = draw(stack_of)
            with_chips = sorted([*with_chips, i])
    for i in with_chips[dealt_most:]:
        stacks[i] = 0
    seats = tuple(zip(seat_numbers, stacks, strict=True))
    button = draw(st.sampled_from(seat_numbers))
    # A seeded shuffle: much faster to draw than st.permutations, and a failing
    # example prints the deck itself in its script.
    deck_order = list(CANONICAL_DECK)
    random.Random(draw(st.integers(0, 2**64 - 1), label="deck seed")).shuffle(deck_order)
    deck = tuple(deck_order)
    return Scenario(
        profile=name,
        overrides=overrides,
        settings=settings,
        stakes=stakes,
        stakes_json=stakes_json,
        rake=rake,
        rake_given=rake_given,
        seats=seats,
        button=button,
        deck=deck,
    )
