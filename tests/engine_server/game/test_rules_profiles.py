"""The rule profiles and their settings (docs/rules.md §1) as hand-worked hand scripts.

Every row of the profile table and every setting of §4 has a test here; every
expected value is worked out by hand from docs/rules.md and docs/hand-scripts.md.
Stakes are ante 1, small bet 2 (bring-in 1, big bet 4) unless a test says
otherwise.

Most tests deal ``T1``-``T3`` from the top to seats 1, 2, 3 (button 3, so
seat 1 is dealing position 0):

- seat 1: Kc Kd | 2c | 3d 5h 7s | Jd — 2c brings in; a pair of kings.
- seat 2: Ac Ad | As | Kh Ah 6s | 8d — best showing from fourth street on
  (A-K, then a pair of aces); four aces.
- seat 3: Qc Qd | Th | 9h 3h 5c | 8c — a pair of queens; shows T-high, better
  than seat 1's 2c 3d 5h 7s.

Third street is asked 2, 3 (after the bring-in, which has no last turn
outside house); fourth street on, 2, 3, 1.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from engine_server.cli import main as stud
from engine_server.game.cards import parse_card
from engine_server.game.events import CardBurned
from engine_server.game.profiles import PROFILES, Street
from engine_server.game.replay import ScriptError, parse_script
from tests.engine_server.game.scripting import (
    STREETS,
    Action,
    hand_after,
    legal,
    legal_kinds,
    run,
    script,
    slot_deck,
    split,
    top_deck,
)

T1 = "Kc Kd 2c 3d 5h 7s Jd"
T2 = "Ac Ad As Kh Ah 6s 8d"
T2_OPEN_PAIR = "Ac Ad As Ah Kh 6s 8d"  # shows As Ah on fourth street
T3 = "Qc Qd Th 9h 3h 5c 8c"

ALL_STREETS = list(STREETS)
LATER_STREETS = ALL_STREETS[1:]
BURNS: dict[str, list[str]] = {
    "house": [],
    "multipoker": [],
    "memaid": LATER_STREETS,
    "casinos_austria": ALL_STREETS,
    "casinos_austria_hilo": ALL_STREETS,
    "swedish": [],
}
BRING_IN_MODE = {
    "multipoker": "forced",
    "memaid": "choice",
    "casinos_austria": "range",
    "casinos_austria_hilo": "range",
    "swedish": "choice",
}
OTHERS = ["multipoker", "memaid", "casinos_austria", "swedish"]
ORDERED = ["memaid", "casinos_austria", "swedish"]


def post(profile: str, seat: int) -> list[Action]:
    """The bring-in's own action where the profile lets him choose (none when forced)."""
    return [] if BRING_IN_MODE[profile] == "forced" else [(seat, "bring_in")]


def third(profile: str) -> list[Action]:
    """T-hands third street: seat 1 brings in, 2 and 3 call; no last turn."""
    return [*post(profile, 1), (2, "call"), (3, "call")]


def deck3(profile: str, hands: Sequence[str] = (T1, T2, T3)) -> list[str]:
    return top_deck(hands, burns=BURNS[profile])


def run3(
    profile: str,
    actions: Sequence[Action],
    *,
    stacks: tuple[int, int, int] = (100, 100, 100),
    hands: Sequence[str] = (T1, T2, T3),
    rules: Any = None,
    **kw: Any,
) -> dict[str, Any]:
    seats = dict(zip((1, 2, 3), stacks, strict=True))
    return run(
        rules or profile,
        seats=seats,
        button=3,
        deck=deck3(profile, hands),
        actions=actions,
        **kw,
    )


def hand3(
    profile: str,
    actions: Sequence[Action],
    *,
    stacks: tuple[int, int, int] = (100, 100, 100),
    hands: Sequence[str] = (T1, T2, T3),
    rules: Any = None,
    **kw: Any,
) -> Any:
    seats = dict(zip((1, 2, 3), stacks, strict=True))
    return hand_after(
        rules or profile,
        seats=seats,
        button=3,
        deck=deck3(profile, hands),
        actions=actions,
        **kw,
    )


def clockwise(seats: Sequence[int], first: int) -> list[int]:
    ordered = sorted(seats)
    i = ordered.index(first)
    return ordered[i:] + ordered[:i]


def every(do: str, seats: Sequence[int], first: int) -> list[Action]:
    return [(s, do) for s in clockwise(seats, first)]


def ranks(cards: Sequence[str]) -> list[str]:
    return sorted(c[0] for c in cards)


def ok(out: dict[str, Any]) -> dict[str, Any]:
    assert out["ok"] is True, out
    return out


def refused(out: dict[str, Any], code: str, index: int | None) -> dict[str, Any]:
    assert out["ok"] is False, out
    assert out["error"]["code"] == code, out
    assert out["error"]["action_index"] == index, out
    assert out["final_stacks"] is None
    return out


def to_act(out: dict[str, Any]) -> tuple[int, list[str]]:
    refused(out, "INCOMPLETE", out["error"]["action_index"])
    return out["to_act"]["seat"], out["to_act"]["legal"]


# The T-hands checked down: 4th to 7th street all check, seat 2 first.
CHECK_DOWN: list[Action] = every("check", [1, 2, 3], 2) * 4


# ------------------------------------------------------------------ players


@pytest.mark.parametrize(
    ("profile", "most"),
    [("house", 7), ("multipoker", 8), ("memaid", 8), ("casinos_austria", 9), ("swedish", 8)],
)
def test_seats_up_to_the_profiles_maximum(profile: str, most: int) -> None:
    base = script(profile, seats={1: 50, most: 50}, button=1, deck=slot_deck([]))
    parse_script(base)
    base["seats"][1]["seat"] = most + 1
    with pytest.raises(ScriptError) as error:
        parse_script(base)
    assert error.value.field.startswith("seats")


def test_slot_dealing_seats_at_most_seven_players() -> None:
    seats = {s: 50 for s in range(1, 9)}
    rules = {"profile": "house", "max_players": 8}
    with pytest.raises(ScriptError) as error:
        parse_script(script(rules, seats=seats, button=1, deck=slot_deck([])))
    assert error.value.field.startswith("seats")
    # Top dealing takes the same eight players.
    parse_script(script({**rules, "dealing": "top"}, seats=seats, button=1, deck=slot_deck([])))


# ------------------------------------------------------------------ dealing


S1_TOP = "Ah Ad 9c Kh Ks Qc 2d"
S2_TOP = "3c 4c 5d 7h 8s Jd Th"


def heads_up_check_down(first_show: bool) -> list[Action]:
    """Seats 1, 2 (button 2) with S1_TOP/S2_TOP: seat 2 (5d) brings in, seat 1
    shows K-high then kings and acts first from fourth street on."""
    actions: list[Action] = [(1, "call")] + [(1, "check"), (2, "check")] * 4
    if first_show:
        # Nobody bet on seventh street: seat 1, asked first there, shows first.
        actions += [(1, "show"), (2, "show")]
    return actions


def assert_heads_up_result(out: dict[str, Any]) -> None:
    ok(out)
    assert out["shown"] == {"1": split(S1_TOP), "2": split(S2_TOP)}
    assert out["bring_in"] == {"seat": 2, "card": "5d", "amount": 1}
    assert out["first_to_act"] == {street: 1 for street in STREETS}
    assert out["pots"] == [{"amount": 4, "eligible": [1, 2], "winners": [1], "awards": {"1": 4}}]
    assert out["final_stacks"] == {"1": 102, "2": 98}
    assert out["hands"]["1"]["category"] == "two_pair"


def test_multipoker_deals_from_the_top_without_burns() -> None:
    # Written out card by card: down, down, door to seat 1 then seat 2 each
    # round, then one card each per street. 14 cards are exactly enough.
    deck = split("Ah 3c Ad 4c 9c 5d Kh 7h Ks 8s Qc Jd 2d Th")
    actions = [*post("multipoker", 2), *heads_up_check_down(first_show=False)]
    assert_heads_up_result(
        run("multipoker", seats={1: 100, 2: 100}, button=2, deck=deck, actions=actions)
    )


def test_memaid_burns_before_fourth_to_seventh_street() -> None:
    # Burns (2s, 2h, 6c, 6d) come before each of the four later streets.
    deck = split("Ah 3c Ad 4c 9c 5d 2s Kh 7h 2h Ks 8s 6c Qc Jd 6d 2d Th")
    actions = [(2, "bring_in"), *heads_up_check_down(first_show=True)]
    out = run("memaid", seats={1: 100, 2: 100}, button=2, deck=deck, actions=actions)
    assert_heads_up_result(out)
    assert out["rake"] == 0


def test_casinos_austria_burns_before_every_street_third_too() -> None:
    deck = split("2s Ah 3c Ad 4c 9c 5d 2h Kh 7h 6c Ks 8s 6d Qc Jd 6h 2d Th")
    actions = [(2, "bring_in", 1), *heads_up_check_down(first_show=True)]
    out = run("casinos_austria", seats={1: 100, 2: 100}, button=2, deck=deck, actions=actions)
    # Third street: 2 antes + 1 + 1 = 4 chips, 5 % of it rounds down to 0.
    assert_heads_up_result(out)
    assert out["rake"] == 0


def test_burns_setting_overridden_by_name() -> None:
    deck = split("Ah 3c Ad 4c 9c 5d Kh 7h Ks 8s Qc Jd 2d Th")
    actions = [(2, "bring_in"), *heads_up_check_down(first_show=True)]
    rules = {"profile": "memaid", "burns": []}
    assert_heads_up_result(run(rules, seats={1: 100, 2: 100}, button=2, deck=deck, actions=actions))


def test_dealing_setting_overridden_by_name() -> None:
    # House dealt from the top: still the house bring-in's last turn (check).
    deck = split("Ah 3c Ad 4c 9c 5d Kh 7h Ks 8s Qc Jd 2d Th")
    actions: list[Action] = [(1, "call"), (2, "check")] + [(1, "check"), (2, "check")] * 4
    rules = {"profile": "house", "dealing": "top"}
    assert_heads_up_result(run(rules, seats={1: 100, 2: 100}, button=2, deck=deck, actions=actions))


def test_top_dealing_skips_a_folded_player() -> None:
    # Seat 2 folds on third street; later streets go 1, 3, 1, 3, ...
    s1, s2, s3 = "Kc Kd 8c 2h 5s 9d Jc", "3c 3d Qs", "Ac Ad 4c As 6h Th 7d"
    deck = top_deck([s1, s2, s3])
    assert deck[:17] == split("Kc 3c Ac Kd 3d Ad 8c Qs 4c 2h As 5s 6h 9d Th Jc 7d")
    # 4c brings in (seat 3, forced); seat 3 shows ace-high from fourth on.
    actions: list[Action] = [(1, "call"), (2, "fold")] + [(3, "check"), (1, "check")] * 4
    out = ok(
        run("multipoker", seats={1: 100, 2: 100, 3: 100}, button=3, deck=deck, actions=actions)
    )
    assert out["shown"] == {"1": split(s1), "3": split(s3)}
    assert out["pots"] == [{"amount": 5, "eligible": [1, 3], "winners": [3], "awards": {"3": 5}}]
    assert out["final_stacks"] == {"1": 98, "2": 99, "3": 103}


# ----------------------------------------------------------------- bring-in


def test_forced_bring_in_is_posted_for_him() -> None:
    out = run3("multipoker", [])
    assert to_act(out) == (2, ["fold", "call", "complete"])


@pytest.mark.parametrize("profile", ["memaid", "swedish"])
def test_choice_bring_in_is_forced_only_its_size_is_chosen(profile: str) -> None:
    assert to_act(run3(profile, [])) == (1, ["complete", "bring_in"])
    refused(run3(profile, [(1, "fold")]), "ILLEGAL_ACTION", 0)
    refused(run3(profile, [(1, "check")]), "ILLEGAL_ACTION", 0)
    hand = hand3(profile, [(1, "bring_in")])
    assert legal_kinds(hand) == ["fold", "call", "complete"]
    assert legal(hand, "call")[:2] == (1, 1)
    assert legal(hand, "complete")[:2] == (2, 2)
    hand = hand3(profile, [(1, "complete")])
    assert legal_kinds(hand) == ["fold", "call", "raise"]
    assert legal(hand, "call")[:2] == (2, 2)
    assert legal(hand, "raise")[:2] == (4, 4)


@pytest.mark.parametrize("profile", ["memaid", "swedish"])
@pytest.mark.parametrize(("choice", "amount"), [("bring_in", 1), ("complete", 2), ("timeout", 1)])
def test_choice_bring_in_amount_reported(profile: str, choice: str, amount: int) -> None:
    # A timeout posts the smallest bring-in. Then both others fold.
    out = ok(run3(profile, [(1, choice), (2, "fold"), (3, "fold")]))
    assert out["bring_in"] == {"seat": 1, "card": "2c", "amount": amount}
    assert out["first_to_act"] == {"third": 2}
    # Only the ante of each other player matched: the rest is returned.
    assert out["returned"] == {"1": amount}
    assert out["final_stacks"] == {"1": 102, "2": 99, "3": 99}
    assert out["shown"] == {}


RANGE_STAKES = {"ante": 1, "small_bet": 4}  # bring-in any of 1, 2, 3; 4 completes


def test_range_bring_in_choices() -> None:
    out = run3("casinos_austria", [], stakes=RANGE_STAKES)
    assert to_act(out) == (1, ["complete", "bring_in"])
    refused(run3("casinos_austria", [(1, "fold")], stakes=RANGE_STAKES), "ILLEGAL_ACTION", 0)
    for amount in (0, 5):
        refused(
            run3("casinos_austria", [(1, "bring_in", amount)], stakes=RANGE_STAKES),
            "ILLEGAL_ACTION",
            0,
        )


@pytest.mark.parametrize("amount", [1, 2, 3])
def test_range_bring_in_any_amount_from_the_ante(amount: int) -> None:
    hand = hand3("casinos_austria", [(1, "bring_in", amount)], stakes=RANGE_STAKES)
    assert hand.to_act == 2
    assert legal_kinds(hand) == ["fold", "call", "complete"]
    assert legal(hand, "call")[:2] == (amount, amount)
    assert legal(hand, "complete")[:2] == (4, 4)
    out = ok(
        run3(
            "casinos_austria",
            [(1, "bring_in", amount), (2, "fold"), (3, "fold")],
            stakes=RANGE_STAKES,
        )
    )
    assert out["bring_in"] == {"seat": 1, "card": "2c", "amount": amount}


@pytest.mark.parametrize("action", [(1, "complete"), (1, "bring_in", 4)])
def test_range_bring_in_of_the_small_bet_is_a_completion(action: Action) -> None:
    hand = hand3("casinos_austria", [action], stakes=RANGE_STAKES)
    assert legal_kinds(hand) == ["fold", "call", "raise"]
    assert legal(hand, "raise")[:2] == (8, 8)


@pytest.mark.parametrize(
    ("stakes", "smallest"), [({"ante": 2, "small_bet": 8}, 2), ({"ante": 0, "small_bet": 4}, 1)]
)
def test_range_bring_in_timeout_posts_the_ante_or_at_least_one(
    stakes: dict[str, int], smallest: int
) -> None:
    hand = hand3("casinos_austria", [(1, "timeout")], stakes=stakes)
    assert hand.to_act == 2
    assert legal(hand, "call")[:2] == (smallest, smallest)
    if smallest == 1:
        refused(run3("casinos_austria", [(1, "bring_in", 0)], stakes=stakes), "ILLEGAL_ACTION", 0)


@pytest.mark.parametrize("profile", OTHERS)
def test_no_bring_in_last_turn_when_everyone_calls(profile: str) -> None:
    hand = hand3(profile, third(profile))
    assert hand.street is Street.FOURTH
    assert hand.to_act == 2


def test_bring_in_last_option_setting_overridden_by_name() -> None:
    rules = {"profile": "house", "bring_in_last_option": False}
    deck = slot_deck([T1, T2, T3])
    hand = hand_after(
        rules,
        seats={1: 100, 2: 100, 3: 100},
        button=3,
        deck=deck,
        actions=[(2, "call"), (3, "call")],
    )
    assert hand.street is Street.FOURTH
    rules = {"profile": "multipoker", "bring_in_last_option": True}
    out = run3("multipoker", [(2, "call"), (3, "call")], rules=rules)
    assert to_act(out) == (1, ["fold", "check", "complete"])


def test_bring_in_setting_overridden_by_name() -> None:
    out = run3("house", [], rules={"profile": "house", "dealing": "top", "bring_in": "choice"})
    assert to_act(out) == (1, ["complete", "bring_in"])


# ------------------------------------------------------------- open pair


@pytest.mark.parametrize("profile", OTHERS)
def test_open_pair_on_fourth_street_opening_bet_small_or_big(profile: str) -> None:
    hand = hand3(profile, third(profile), hands=(T1, T2_OPEN_PAIR, T3))
    assert hand.street is Street.FOURTH and hand.to_act == 2
    assert legal(hand, "bet") == (2, 4, (2, 4))
    # Without a pair showing, only the small bet.
    hand = hand3(profile, third(profile))
    assert legal(hand, "bet") == (2, 2, ())


def open_pair(actions: list[Action], profile: str = "multipoker") -> Any:
    return hand3(profile, third(profile) + actions, hands=(T1, T2_OPEN_PAIR, T3))


def test_open_pair_raise_after_a_small_bet_is_small_or_big() -> None:
    assert legal(open_pair([(2, "bet", 2)]), "raise") == (4, 6, (4, 6))
    # Still no big bet made after a small raise.
    assert legal(open_pair([(2, "bet", 2), (3, "raise", 4)]), "raise") == (6, 8, (6, 8))


def test_open_pair_once_big_every_later_raise_is_big() -> None:
    assert legal(open_pair([(2, "bet", 4)]), "raise") == (8, 8, ())
    assert legal(open_pair([(2, "bet", 2), (3, "raise", 6)]), "raise") == (10, 10, ())
    assert legal(open_pair([(2, "bet", 2), (3, "raise", 4), (1, "raise", 8)]), "raise") == (
        12,
        12,
        (),
    )


def test_open_pair_sizes_outside_small_or_big_are_illegal() -> None:
    actions = third("multipoker")
    out = run3("multipoker", [*actions, (2, "bet", 3)], hands=(T1, T2_OPEN_PAIR, T3))
    refused(out, "ILLEGAL_ACTION", len(actions))
    out = run3(
        "multipoker", [*actions, (2, "bet", 4), (3, "raise", 6)], hands=(T1, T2_OPEN_PAIR, T3)
    )
    refused(out, "ILLEGAL_ACTION", len(actions) + 1)


def test_open_pair_cap_unchanged() -> None:
    hand = open_pair([(2, "bet", 4), (3, "raise"), (1, "raise"), (2, "raise")])
    assert hand.current_bet == 16
    assert legal_kinds(hand) == ["fold", "call"]


def test_open_pair_option_for_a_player_who_has_no_pair() -> None:
    hand = open_pair([(2, "check")])
    assert hand.to_act == 3
    assert legal(hand, "bet") == (2, 4, (2, 4))


def test_open_pair_only_on_fourth_street() -> None:
    hand = open_pair(every("check", [1, 2, 3], 2))
    assert hand.street is Street.FIFTH
    assert legal(hand, "bet") == (4, 4, ())


def test_open_pair_setting_overridden_by_name() -> None:
    deck = slot_deck([T1, T2_OPEN_PAIR, T3])
    seats = {1: 100, 2: 100, 3: 100}
    actions: list[Action] = [(2, "call"), (3, "call"), (1, "check")]
    rules = {"profile": "house", "open_pair_big_bet": True}
    hand = hand_after(rules, seats=seats, button=3, deck=deck, actions=actions)
    assert legal(hand, "bet") == (2, 4, (2, 4))


# Open-pair all-ins between the small and the big bet, worked by hand with a small bet of 10
# (bring-in 5, big bet 20): seat 1 brings in 5, seats 2 and 3 call it; on fourth street seat 2
# (As Ah showing) acts first, then 3, then 1. docs/rules.md §2.7: an all-in that reaches a full size
# counts as a full bet or raise, and the next full raise goes to the last full level plus one
# full increment; the last full level such an all-in reaches is the full size below it.

OPEN_PAIR_PROFILES = [name for name, rules in PROFILES.items() if rules.open_pair_big_bet]
TENS = {"ante": 1, "small_bet": 10}
T4 = "Jc Js 4c 6d 7d 9c Tc"


def open_pair_tens(profile: str, stacks: tuple[int, ...], actions: list[Action]) -> Any:
    """Seats 1-3 (T1, T2_OPEN_PAIR, T3) and, with a fourth stack, seat 4 (T4: 4c door, no
    pair showing), button on the last seat; third street called (bring-in 5), then
    ``actions`` on fourth street."""
    seats = dict(enumerate(stacks, start=1))
    hands = [T1, T2_OPEN_PAIR, T3, T4][: len(stacks)]
    pre: list[Action] = [] if PROFILES[profile].bring_in.value == "forced" else [(1, "bring_in")]
    pre += [(seat, "call") for seat in seats if seat != 1]
    return hand_after(
        profile,
        seats=seats,
        button=len(stacks),
        deck=top_deck(hands, burns=BURNS[profile]),
        actions=[*pre, *actions],
        stakes=TENS,
    )


def test_every_open_pair_profile_is_checked() -> None:
    assert set(OPEN_PAIR_PROFILES) == {*OTHERS, "casinos_austria_hilo"}


@pytest.mark.parametrize("profile", OPEN_PAIR_PROFILES)
def test_open_pair_all_in_bet_between_the_sizes_counts_as_the_small_bet(profile: str) -> None:
    # Seat 2 has 15 left on fourth street (21 - ante 1 - call 5): his bet may be 10, or 15
    # all in (short of the big bet 20).
    hand = open_pair_tens(profile, (100, 21, 100), [])
    assert hand.street is Street.FOURTH and hand.to_act == 2
    assert legal(hand, "bet") == (10, 15, (10, 15))
    hand.bet(2, 15)
    # A full bet (it reaches 10) at the level of the small bet: the next raise is to 10 + 10
    # or 10 + 20, not to 15 + 10 or 15 + 20.
    assert hand.to_act == 3 and hand.current_bet == 15
    assert legal(hand, "call") == (15, 15, ())
    assert legal(hand, "raise") == (20, 30, (20, 30))
    hand.raise_to(3, 20)
    # A small raise over the small bet: no big bet made yet, seat 1 may raise small or big.
    assert hand.to_act == 1
    assert legal(hand, "raise") == (30, 40, (30, 40))


@pytest.mark.parametrize("profile", OPEN_PAIR_PROFILES)
def test_open_pair_big_raise_over_an_all_in_between_the_sizes(profile: str) -> None:
    hand = open_pair_tens(profile, (100, 21, 100), [(2, "bet", 15), (3, "raise", 30)])
    # 10 to 30 is a big raise: every later raise is big.
    assert hand.to_act == 1
    assert legal(hand, "raise") == (50, 50, ())


@pytest.mark.parametrize("profile", OPEN_PAIR_PROFILES)
def test_open_pair_short_all_in_raise_over_an_all_in_between_the_sizes(profile: str) -> None:
    # Four seats (fourth street asks 2, 3, 4, 1). Seat 3 has 18 left: over seat 2's all-in
    # 15 (the small bet's level, 10) he can raise only all in to 18, short of the small raise
    # to 20: it does not count as a raise.
    hand = open_pair_tens(profile, (100, 21, 24, 100), [(2, "bet", 15)])
    assert hand.to_act == 3
    assert legal(hand, "raise") == (18, 18, ())
    hand.raise_to(3, 18)
    assert hand.to_act == 4 and hand.current_bet == 18
    assert legal(hand, "call") == (18, 18, ())
    # The last full level is still 10: a raise to 20 or 30.
    assert legal(hand, "raise") == (20, 30, (20, 30))
    hand.raise_to(4, 20)
    assert hand.to_act == 1
    assert legal(hand, "raise") == (30, 40, (30, 40))


@pytest.mark.parametrize("profile", OPEN_PAIR_PROFILES)
def test_open_pair_all_in_raise_between_the_sizes_counts_as_the_small_raise(profile: str) -> None:
    # Seat 3 has 25 left: over a small bet of 10 his raise may be 20, or 25 all in (short
    # of the big raise to 30). It reaches 20: a full raise at the level of 20.
    hand = open_pair_tens(profile, (100, 100, 31), [(2, "bet", 10)])
    assert legal(hand, "raise") == (20, 25, (20, 25))
    hand.raise_to(3, 25)
    assert hand.to_act == 1 and hand.current_bet == 25
    assert legal(hand, "raise") == (30, 40, (30, 40))
    hand.raise_to(1, 30)
    # A full raise reopens the betting for seat 2 (the bettor): 30 + 10 or 30 + 20.
    assert hand.to_act == 2
    assert legal(hand, "raise") == (40, 50, (40, 50))


@pytest.mark.parametrize("profile", OPEN_PAIR_PROFILES)
def test_open_pair_short_all_in_raise_over_a_small_bet(profile: str) -> None:
    # Seat 3 has 15 left: all in to 15 over a bet of 10 is short of a raise (20).
    hand = open_pair_tens(profile, (100, 100, 21), [(2, "bet", 10), (3, "raise", 15)])
    assert hand.to_act == 1 and hand.current_bet == 15
    assert legal(hand, "raise") == (20, 30, (20, 30))
    hand.call(1)
    # Seat 2 bet and was not raised in full: he may only call the 5 more, or fold.
    assert hand.to_act == 2
    assert legal_kinds(hand) == ["fold", "call"]


def test_open_pair_all_in_over_the_small_raise_when_the_big_bet_is_three_small_bets() -> None:
    # Big bet 30: seat 2 all in for 25 counts as the small bet (10); a raise to 10 + 10
    # would not even reach his 25, so the only raise is the big one, to 10 + 30.
    stakes = {"ante": 1, "small_bet": 10, "big_bet": 30}
    hand = hand3(
        "multipoker",
        [(2, "call"), (3, "call"), (2, "bet", 25)],
        stacks=(100, 31, 100),
        hands=(T1, T2_OPEN_PAIR, T3),
        stakes=stakes,
    )
    assert hand.to_act == 3 and hand.current_bet == 25
    assert legal(hand, "raise") == (40, 40, ())


# ---------------------------------------------------------------------- cap


def seventh(profile: str, seats: dict[int, int], actions: list[Action], rules: Any = None) -> Any:
    """T1/T2 (and T3 with three seats) to seventh street, then ``actions``.

    Seat 1 brings in, the others call; seats that are not all in check
    fourth to sixth street, seat 2 (best showing) first.
    """
    hands = [T1, T2, T3][: len(seats)]
    pre = [*post(profile, 1), *[(s, "call") for s in sorted(seats) if s != 1]]
    checkers = [s for s, stack in seats.items() if stack > 2]
    pre += every("check", checkers, 2) * 3
    return hand_after(
        rules or profile,
        seats=seats,
        button=max(seats),
        deck=top_deck(hands, burns=BURNS[profile]),
        actions=pre + actions,
    )


FIVE_RAISES: list[Action] = [
    (2, "bet"),
    (1, "raise"),
    (2, "raise"),
    (1, "raise"),
    (2, "raise"),
    (1, "raise"),
]


def test_casinos_austria_no_cap_heads_up_on_seventh() -> None:
    hand = seventh("casinos_austria", {1: 200, 2: 200}, FIVE_RAISES[:4])
    assert hand.street is Street.SEVENTH and hand.current_bet == 16
    assert legal_kinds(hand) == ["fold", "call", "raise"]
    hand = seventh("casinos_austria", {1: 200, 2: 200}, FIVE_RAISES)
    assert hand.current_bet == 24
    assert legal_kinds(hand) == ["fold", "call", "raise"]
    assert legal(hand, "raise")[:2] == (28, 28)


def test_casinos_austria_cap_with_three_on_seventh() -> None:
    seats = {1: 200, 2: 200, 3: 200}
    hand = seventh("casinos_austria", seats, [(2, "bet"), (3, "raise"), (1, "raise"), (2, "raise")])
    assert hand.to_act == 3 and hand.current_bet == 16
    assert legal_kinds(hand) == ["fold", "call"]


def test_casinos_austria_cap_when_an_all_in_player_makes_three() -> None:
    # Seat 3 is all in from third street (stack 2): three players have not
    # folded, so seventh street is capped.
    seats = {1: 200, 2: 200, 3: 2}
    hand = seventh("casinos_austria", seats, [])
    assert hand.street is Street.SEVENTH and hand.to_act == 2
    hand.bet(2)
    hand.raise_to(1)
    hand.raise_to(2)
    hand.raise_to(1)
    assert hand.to_act == 2 and hand.current_bet == 16
    assert legal_kinds(hand) == ["fold", "call"]


def test_casinos_austria_cap_heads_up_before_seventh() -> None:
    seats = {1: 200, 2: 200}
    deck = top_deck([T1, T2], burns=ALL_STREETS)
    actions: list[Action] = [(1, "bring_in"), (2, "call")] + [(2, "check"), (1, "check")] * 2
    actions += [(2, "bet"), (1, "raise"), (2, "raise"), (1, "raise")]
    hand = hand_after("casinos_austria", seats=seats, button=2, deck=deck, actions=actions)
    assert hand.street is Street.SIXTH and hand.current_bet == 16
    assert legal_kinds(hand) == ["fold", "call"]


@pytest.mark.parametrize("profile", ["multipoker", "memaid", "swedish"])
def test_other_profiles_cap_heads_up_on_seventh(profile: str) -> None:
    hand = seventh(profile, {1: 200, 2: 200}, FIVE_RAISES[:4])
    assert hand.current_bet == 16
    assert legal_kinds(hand) == ["fold", "call"]


def test_heads_up_uncapped_seventh_setting_overridden_by_name() -> None:
    rules = {"profile": "multipoker", "heads_up_uncapped_seventh": True}
    hand = seventh("multipoker", {1: 200, 2: 200}, FIVE_RAISES[:4], rules=rules)
    assert legal_kinds(hand) == ["fold", "call", "raise"]


def test_max_raises_setting_overridden_by_name() -> None:
    rules = {"profile": "multipoker", "max_raises": 1}
    hand = hand3("multipoker", [*third("multipoker"), (2, "bet"), (3, "raise")], rules=rules)
    assert hand.to_act == 1
    assert legal_kinds(hand) == ["fold", "call"]


# ------------------------------------------------------------ clocks, timeouts


SETTINGS_TABLE: dict[str, dict[str, Any]] = {
    "house": {
        "max_players": 7, "dealing": "slot", "burns": [], "bring_in": "forced",
        "bring_in_last_option": True, "open_pair_big_bet": False, "max_raises": 3,
        "heads_up_uncapped_seventh": False, "timeout": "check_or_fold", "showdown": "all",
        "short_deck": None, "rake": None, "hi_lo": False, "action_seconds": 30,
    },
    "multipoker": {
        "max_players": 8, "dealing": "top", "burns": [], "bring_in": "forced",
        "bring_in_last_option": False, "open_pair_big_bet": True, "max_raises": 3,
        "heads_up_uncapped_seventh": False, "timeout": "all_in_protection_if_contributed",
        "showdown": "all", "short_deck": "community", "rake": None, "hi_lo": False,
        "action_seconds": 30,
    },
    "memaid": {
        "max_players": 8, "dealing": "top", "burns": LATER_STREETS, "bring_in": "choice",
        "bring_in_last_option": False, "open_pair_big_bet": True, "max_raises": 3,
        "heads_up_uncapped_seventh": False, "timeout": "all_in_protection",
        "showdown": "last_aggressor", "short_deck": "memaid", "rake": None, "hi_lo": False,
        "action_seconds": 10,
    },
    "casinos_austria": {
        "max_players": 9, "dealing": "top", "burns": ALL_STREETS, "bring_in": "range",
        "bring_in_last_option": False, "open_pair_big_bet": True, "max_raises": 3,
        "heads_up_uncapped_seventh": True, "timeout": "check_or_fold",
        "showdown": "last_aggressor", "short_deck": "casinos_austria",
        "rake": {"percent": 5, "per_round": True, "cap": None}, "hi_lo": False,
        "action_seconds": 30,
    },
    "swedish": {
        "max_players": 8, "dealing": "top", "burns": [], "bring_in": "choice",
        "bring_in_last_option": False, "open_pair_big_bet": True, "max_raises": 3,
        "heads_up_uncapped_seventh": False, "timeout": "check_or_fold",
        "showdown": "last_aggressor_or_best_showing", "short_deck": "community", "rake": None,
        "hi_lo": False, "action_seconds": 30,
    },
}  # fmt: skip
SETTINGS_TABLE["casinos_austria_hilo"] = SETTINGS_TABLE["casinos_austria"] | {"hi_lo": True}


@pytest.mark.parametrize("name", list(SETTINGS_TABLE))
def test_stud_rules_prints_every_setting(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert stud(["rules", name]) == 0
    printed = json.loads(capsys.readouterr().out)
    for setting, value in SETTINGS_TABLE[name].items():
        assert printed[setting] == value, setting


def test_every_setting_can_be_given_in_a_script() -> None:
    deck = slot_deck([])
    for setting, value in SETTINGS_TABLE["memaid"].items():
        rules = {"profile": "house", "dealing": "top", setting: value}
        parse_script(script(rules, seats={1: 50, 2: 50}, button=1, deck=deck))


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("colour", "red"),
        ("reconnect_extra_seconds", 20),
        ("dealing", "bottom"),
        ("max_players", 10),
    ],
)
def test_unknown_setting_or_value_is_invalid(setting: str, value: Any) -> None:
    rules = {"profile": "house", setting: value}
    with pytest.raises(ScriptError) as error:
        parse_script(script(rules, seats={1: 50, 2: 50}, button=1, deck=slot_deck([])))
    assert setting in error.value.field


def test_multipoker_timeout_after_the_ante_is_all_in_protection() -> None:
    # Seat 2 times out facing the bring-in: his ante is in, so he is all in
    # for 1. Seats 3 and 1 play on; seat 2 is never asked again.
    actions: list[Action] = [
        (2, "timeout"),
        (3, "complete"), (1, "call"),
        (3, "bet"), (1, "call"),  # fourth: seat 2's A-K is best but he cannot act
    ]  # fmt: skip
    actions += [(3, "check"), (1, "check")] * 3
    out = ok(run3("multipoker", actions))
    assert out["first_to_act"] == {"third": 2, "fourth": 3, "fifth": 3, "sixth": 3, "seventh": 3}
    # Main pot: 1 from each; the rest (4 + 4) is a side pot he cannot win.
    assert out["pots"] == [
        {"amount": 3, "eligible": [1, 2, 3], "winners": [2], "awards": {"2": 3}},
        {"amount": 8, "eligible": [1, 3], "winners": [1], "awards": {"1": 8}},
    ]
    # His remaining 99 come back to him.
    assert out["final_stacks"] == {"1": 103, "2": 102, "3": 95}
    assert set(out["shown"]) == {"1", "2", "3"}


def test_multipoker_timeout_with_nothing_in_the_pot_folds() -> None:
    # No ante: seat 2 has put nothing in when his clock runs out.
    actions: list[Action] = [(2, "timeout"), (3, "call")] + [(3, "check"), (1, "check")] * 4
    hands = (T1, "Ac Ad As", T3)  # seat 2 folds: no more cards for him
    out = ok(run3("multipoker", actions, stakes={"ante": 0, "small_bet": 2}, hands=hands))
    assert "2" not in out["shown"]
    assert out["pots"] == [{"amount": 2, "eligible": [1, 3], "winners": [1], "awards": {"1": 2}}]
    assert out["final_stacks"] == {"1": 101, "2": 100, "3": 99}


def test_multipoker_timeout_after_calling_without_ante_is_protection() -> None:
    stakes = {"ante": 0, "small_bet": 2}
    actions: list[Action] = [(2, "call"), (3, "call"), (2, "bet"), (3, "timeout"), (1, "call")]
    actions += [(2, "check"), (1, "check")] * 3
    out = ok(run3("multipoker", actions, stakes=stakes))
    # Seat 3 is all in for his 1; seats 1 and 2 put 2 more each into a side pot.
    assert out["pots"] == [
        {"amount": 3, "eligible": [1, 2, 3], "winners": [2], "awards": {"2": 3}},
        {"amount": 4, "eligible": [1, 2], "winners": [2], "awards": {"2": 4}},
    ]
    assert out["final_stacks"] == {"1": 97, "2": 104, "3": 99}


MEMAID_PROTECTED: list[Action] = [
    *third("memaid"),
    (2, "timeout"),  # fourth street, a free check: protected all the same
    (3, "bet"), (1, "call"),
    (3, "check"), (1, "check"),
    (3, "check"), (1, "check"),
    (3, "bet"), (1, "call"),  # seventh: seat 3 is the last bettor
]  # fmt: skip


def test_memaid_timeout_is_always_all_in_protection_and_he_keeps_his_show_turn() -> None:
    assert to_act(run3("memaid", MEMAID_PROTECTED)) == (3, ["show"])
    out = ok(run3("memaid", [*MEMAID_PROTECTED, (3, "show"), (1, "show"), (2, "show")]))
    assert out["first_to_act"] == {"third": 2, "fourth": 2, "fifth": 3, "sixth": 3, "seventh": 3}
    # Seat 2 put in 2 (ante, call); seats 1 and 3 put in 8.
    assert out["pots"] == [
        {"amount": 6, "eligible": [1, 2, 3], "winners": [2], "awards": {"2": 6}},
        {"amount": 12, "eligible": [1, 3], "winners": [1], "awards": {"1": 12}},
    ]
    assert out["final_stacks"] == {"1": 104, "2": 104, "3": 92}


def test_memaid_protected_player_who_mucks_wins_nothing() -> None:
    out = ok(run3("memaid", [*MEMAID_PROTECTED, (3, "show"), (1, "show"), (2, "muck")]))
    assert out["pots"][0]["winners"] == [1]
    assert out["final_stacks"] == {"1": 110, "2": 98, "3": 92}
    assert set(out["shown"]) == {"1", "3"}


@pytest.mark.parametrize("profile", ["casinos_austria", "swedish"])
def test_check_or_fold_timeout_in_other_profiles(profile: str) -> None:
    actions = [*third(profile), (2, "timeout"), (3, "bet"), (1, "timeout"), (2, "timeout")]
    out = ok(run3(profile, actions))
    # Seat 2 checked, then folded with seat 1 to seat 3's bet; 2 returned.
    assert out["returned"] == {"3": 2}
    assert out["final_stacks"] == {"1": 98, "2": 98, "3": 104}
    assert out["pots"][0]["eligible"] == [3]


def test_timeout_setting_overridden_by_name() -> None:
    rules = {"profile": "swedish", "timeout": "all_in_protection"}
    hand = hand3("swedish", [*third("swedish"), (2, "timeout")], rules=rules)
    player = hand.player(2)
    assert player.protected and not player.folded
    assert hand.to_act == 3


# ------------------------------------------------------------- ordered showdown


SEVENTH_BET: list[Action] = [
    *third("memaid"),
    *every("check", [1, 2, 3], 2) * 3,
    (2, "check"), (3, "bet"), (1, "call"), (2, "call"),
]  # fmt: skip


@pytest.mark.parametrize("profile", ORDERED)
def test_last_bettor_shows_first_and_may_only_show(profile: str) -> None:
    assert to_act(run3(profile, SEVENTH_BET)) == (3, ["show"])
    refused(run3(profile, [*SEVENTH_BET, (3, "muck")]), "ILLEGAL_ACTION", len(SEVENTH_BET))
    assert to_act(run3(profile, [*SEVENTH_BET, (3, "show")])) == (1, ["show", "muck"])
    # Then clockwise from him: 1, then 2.
    out = run3(profile, [*SEVENTH_BET, (3, "show"), (2, "show")])
    refused(out, "NOT_YOUR_TURN", len(SEVENTH_BET) + 1)
    out = ok(run3(profile, [*SEVENTH_BET, (3, "show"), (1, "show"), (2, "show")]))
    # 2 on third + 4 on seventh from each (casinos_austria: 6 and 12 chips
    # in the two rounds, 5 % of each rounds down to 0).
    assert out["rake"] == 0
    assert out["pots"] == [
        {"amount": 18, "eligible": [1, 2, 3], "winners": [2], "awards": {"2": 18}}
    ]
    assert out["final_stacks"] == {"1": 94, "2": 112, "3": 94}


def test_a_mucked_hand_wins_nothing() -> None:
    out = ok(run3("memaid", [*SEVENTH_BET, (3, "show"), (1, "show"), (2, "muck")]))
    # Seat 2's four aces are mucked: seat 1's kings beat seat 3's queens.
    assert out["pots"][0]["winners"] == [1]
    assert out["final_stacks"] == {"1": 112, "2": 94, "3": 94}
    assert set(out["shown"]) == {"1", "3"}
    assert set(out["hands"]) == {"1", "3"}


def test_a_timeout_at_the_showdown_shows() -> None:
    out = ok(run3("memaid", [*SEVENTH_BET, (3, "show"), (1, "timeout"), (2, "timeout")]))
    assert set(out["shown"]) == {"1", "2", "3"}
    assert out["pots"][0]["winners"] == [2]


def test_short_all_in_raise_makes_the_first_to_show() -> None:
    # Seat 3 has 6 left on seventh: bet 4, seat 3 all in to 6 (short), calls.
    actions: list[Action] = [
        *third("memaid"),
        *every("check", [1, 2, 3], 2) * 3,
        (2, "bet"), (3, "raise"), (1, "call"), (2, "call"),
    ]  # fmt: skip
    assert to_act(run3("memaid", actions, stacks=(100, 100, 8))) == (3, ["show"])


@pytest.mark.parametrize("profile", ORDERED)
def test_third_street_bring_in_is_the_aggressor_when_nobody_completed(profile: str) -> None:
    # Heads-up: seat 2 calls the bring-in all in; no later round has a decision.
    deck = top_deck([T1, T2], burns=BURNS[profile])
    seats = {1: 100, 2: 2}
    actions: list[Action] = [(1, "bring_in"), (2, "call")]
    out = run(profile, seats=seats, button=2, deck=deck, actions=actions)
    assert to_act(out) == (1, ["show"])
    out = ok(
        run(profile, seats=seats, button=2, deck=deck, actions=[*actions, (1, "show"), (2, "show")])
    )
    assert out["first_to_act"] == {"third": 2}
    assert out["final_stacks"] == {"1": 98, "2": 4}


ALL_IN_BEST_SHOWING: list[Action] = [(2, "call"), (3, "call")] + [(3, "check"), (1, "check")] * 4


@pytest.mark.parametrize(
    ("profile", "first"), [("memaid", 3), ("casinos_austria", 3), ("swedish", 2)]
)
def test_nobody_bet_first_asked_or_best_showing(profile: str, first: int) -> None:
    # Seat 2 (best showing) is all in from third street; seats 3 and 1 check
    # every later street. memaid/casinos_austria: the first asked on seventh
    # (seat 3, next after seat 2); swedish: the best showing hand (seat 2).
    actions = [(1, "bring_in"), *ALL_IN_BEST_SHOWING]
    assert to_act(run3(profile, actions, stacks=(100, 2, 100))) == (first, ["show"])
    order = clockwise([1, 2, 3], first)
    out = ok(run3(profile, actions + [(s, "show") for s in order], stacks=(100, 2, 100)))
    assert out["first_to_act"] == {"third": 2, "fourth": 3, "fifth": 3, "sixth": 3, "seventh": 3}
    assert out["pots"] == [{"amount": 6, "eligible": [1, 2, 3], "winners": [2], "awards": {"2": 6}}]


def test_every_claimant_of_a_pot_mucked_it_goes_to_the_best_of_them() -> None:
    # swedish: seat 2 (all in, best showing) shows first; 3 and 1 both muck.
    actions: list[Action] = [
        (1, "bring_in"), (2, "call"), (3, "call"),
        (3, "bet"), (1, "call"),
        *[(3, "check"), (1, "check")] * 3,
        (2, "show"), (3, "muck"), (1, "muck"),
    ]  # fmt: skip
    out = ok(run3("swedish", actions, stacks=(100, 2, 100)))
    assert out["pots"] == [
        {"amount": 6, "eligible": [1, 2, 3], "winners": [2], "awards": {"2": 6}},
        # Both claimants mucked: kings beat queens anyway.
        {"amount": 4, "eligible": [1, 3], "winners": [1], "awards": {"1": 4}},
    ]
    assert out["final_stacks"] == {"1": 100, "2": 6, "3": 96}
    assert set(out["shown"]) == {"2"}


def test_showdown_setting_overridden_by_name() -> None:
    rules = {"profile": "multipoker", "showdown": "last_aggressor"}
    actions = [*third("multipoker"), *CHECK_DOWN]
    assert to_act(run3("multipoker", actions, rules=rules)) == (2, ["show"])
    out = ok(run3("multipoker", [*actions, (2, "show"), (3, "muck"), (1, "muck")], rules=rules))
    assert set(out["shown"]) == {"2"}


@pytest.mark.parametrize("profile", ["memaid", "multipoker"])
def test_win_by_folds_shows_nothing(profile: str) -> None:
    actions = [*post(profile, 1), (2, "fold"), (3, "fold")]
    out = ok(run3(profile, actions))
    assert out["shown"] == {} and out["hands"] == {}
    assert out["pots"] == [{"amount": 3, "eligible": [1], "winners": [1], "awards": {"1": 3}}]
    refused(run3(profile, [*actions, (1, "show")]), "HAND_OVER", len(actions))


# --------------------------------------------------------------------- rake


def test_casinos_austria_rake_five_percent_per_round() -> None:
    # Ante 15, small bet 40, big bet 80. Seat 2 (5d) brings in 19.
    s1 = "3c 4d Kh Kc 9d 7s 2h"  # kings, shows Kh Kc on fourth: first
    s2 = "Ac Ad 5d 6h 8c Ts Jc"  # aces
    deck = top_deck([s1, s2], burns=ALL_STREETS)
    actions: list[Action] = [
        (2, "bring_in", 19), (1, "call"),
        (1, "bet", 40), (2, "call"),
        (1, "bet"), (2, "call"),  # seat 2 all in for 59 of the 80
        (1, "show"), (2, "show"),
    ]  # fmt: skip
    stakes = {"ante": 15, "small_bet": 40}
    out = ok(
        run(
            "casinos_austria",
            seats={1: 500, 2: 133},
            button=2,
            deck=deck,
            actions=actions,
            stakes=stakes,
        )
    )
    # Rounds: third 30 + 19 + 19 = 68 -> 3; fourth 80 -> 4; fifth 59 + 59 = 118
    # after 21 returned -> 5. 5 % of the whole 266 would be 13.
    assert out["returned"] == {"1": 21}
    assert out["rake"] == 12
    assert out["pots"] == [
        {"amount": 266, "eligible": [1, 2], "winners": [2], "awards": {"2": 254}}
    ]
    assert out["final_stacks"] == {"1": 367, "2": 254}
    # The same hand with a cap on the rake, and with no rake.
    capped = {**stakes, "rake": {"percent": 5, "per_round": True, "cap": 10}}
    out = ok(
        run(
            "casinos_austria",
            seats={1: 500, 2: 133},
            button=2,
            deck=deck,
            actions=actions,
            stakes=capped,
        )
    )
    assert out["rake"] == 10 and out["final_stacks"] == {"1": 367, "2": 256}
    none = {**stakes, "rake": {"none": True}}
    out = ok(
        run(
            "casinos_austria",
            seats={1: 500, 2: 133},
            button=2,
            deck=deck,
            actions=actions,
            stakes=none,
        )
    )
    assert out["rake"] == 0 and out["final_stacks"] == {"1": 367, "2": 266}


def test_schedule_rake_by_final_pot() -> None:
    deck = split("Ah 3c Ad 4c 9c 5d Kh 7h Ks 8s Qc Jd 2d Th")
    stakes = {"ante": 1, "small_bet": 2, "rake": {"schedule": [[1, 1], [4, 2], [10, 3]]}}
    out = ok(
        run(
            "multipoker",
            seats={1: 100, 2: 100},
            button=2,
            deck=deck,
            actions=heads_up_check_down(first_show=False),
            stakes=stakes,
        )
    )
    # Final pot 4 reaches the threshold 4: rake 2.
    assert out["rake"] == 2
    assert out["pots"] == [{"amount": 4, "eligible": [1, 2], "winners": [1], "awards": {"1": 2}}]
    assert out["final_stacks"] == {"1": 100, "2": 98}


def test_rake_comes_from_the_main_pot_first() -> None:
    # The house side-pot hand: main 6 (seat 1), side 6 (seat 2), 4 returned.
    deck = slot_deck(["Ac Ad 9c As 4h 6s 8d", "Kc Kd Qh Qs 7h 7c 3c", "Jc Jd 2c 5d 8h Ts 9d"])
    actions: list[Action] = [
        (1, "call"), (2, "complete"), (3, "call"),
        (2, "bet"), (3, "call"),
        (2, "check"), (3, "check"), (2, "check"), (3, "check"),
        (2, "bet"), (3, "fold"),
    ]  # fmt: skip
    stakes = {"ante": 1, "small_bet": 2, "rake": {"schedule": [[1, 4]]}}
    out = ok(
        run(
            "house",
            seats={1: 2, 2: 100, 3: 100},
            button=3,
            deck=deck,
            actions=actions,
            stakes=stakes,
        )
    )
    assert out["rake"] == 4
    assert out["pots"] == [
        {"amount": 6, "eligible": [1, 2], "winners": [1], "awards": {"1": 2}},
        {"amount": 6, "eligible": [2], "winners": [2], "awards": {"2": 6}},
    ]
    assert out["final_stacks"] == {"1": 2, "2": 101, "3": 95}


def test_rake_setting_overridden_by_name() -> None:
    # 50 % of the final pot (4), taken once: 2.
    deck = split("Ah 3c Ad 4c 9c 5d Kh 7h Ks 8s Qc Jd 2d Th")
    rules = {"profile": "multipoker", "rake": {"percent": 50, "per_round": False, "cap": None}}
    out = ok(
        run(rules, seats={1: 100, 2: 100}, button=2, deck=deck, actions=heads_up_check_down(False))
    )
    assert out["rake"] == 2 and out["final_stacks"] == {"1": 100, "2": 98}


# --------------------------------------------------------------- short deck


# Eight players, six cards each (down, down, door, 4th, 5th, 6th). Seat 1
# shows Ah Ad on fourth, trips on fifth: first every street; seat 2's 2c
# brings in. Nobody else shows a pair; no five cards of a suit anywhere.
EIGHT = {
    1: "Kc Kd Ah Ad Ac 9s",
    2: "3c 4c 2c 7d 8h Th",
    3: "3d 4d 2d 7h 8s Jc",
    4: "3h 4h 2h 7s 9c Jd",
    5: "3s 4s 2s 8c 9d Jh",
    6: "5c 6c Qc 8d 9h Js",
    7: "5d 6d Qd Tc 7c Ks",
    8: "5h 6h Qh Td 6s Kh",
}  # left: As 5s Ts Qs
EIGHT_SEATS = {s: 100 for s in EIGHT}


def eight_actions(
    profile: str, *, sixth: list[Action] | None = None, live_7th: Sequence[int] = tuple(EIGHT)
) -> list[Action]:
    """Button 8: dealing order 1..8. Seat 2 brings in; calls; checks; seat 1 first."""
    actions: list[Action] = [*post(profile, 2), *every("call", list(EIGHT), 3)[:-1]]
    actions += every("check", list(EIGHT), 1) * 2
    actions += sixth if sixth is not None else every("check", list(EIGHT), 1)
    actions += every("check", list(live_7th), 1)
    if profile != "multipoker":
        # Nobody bet on seventh: seat 1, asked first, shows first.
        actions += every("show", list(live_7th), 1)
    return actions


@pytest.mark.parametrize("profile", ["multipoker", "swedish"])
def test_community_card_when_the_stub_is_short(profile: str) -> None:
    # 48 cards dealt by sixth street leave 4 for 8 players: deck[48] is
    # turned face up for everyone.
    deck = top_deck([EIGHT[s] for s in sorted(EIGHT)], tail="As")
    assert deck[48] == "As"
    out = ok(run(profile, seats=EIGHT_SEATS, button=8, deck=deck, actions=eight_actions(profile)))
    assert out["community_cards"] == ["As"]
    assert out["shown"] == {str(s): split(c) for s, c in EIGHT.items()}
    assert out["hands"]["1"]["category"] == "four_of_a_kind"
    assert ranks(out["hands"]["1"]["cards"]) == ranks(split("Ac Ad Ah As Kc"))
    assert out["first_to_act"] == {"third": 3, "fourth": 1, "fifth": 1, "sixth": 1, "seventh": 1}
    assert out["pots"] == [
        {"amount": 16, "eligible": list(EIGHT), "winners": [1], "awards": {"1": 16}}
    ]


def test_memaid_short_deck_community_card_after_shuffling_burns_back() -> None:
    # 24 + 3 x (burn + 8) = 51 cards: one left for eight players. The burns go
    # back (stub: deck[51], then the burns in order): still 4 < 8, so the
    # first card, deck[51], is turned for everyone.
    deck = top_deck(
        [EIGHT[s] for s in sorted(EIGHT)],
        burns=["fourth", "fifth", "sixth"],
        burn_cards={"fourth": "5s", "fifth": "Ts", "sixth": "Qs"},
        tail="As",
    )
    assert len(deck) == 52 and deck[51] == "As"
    out = ok(run("memaid", seats=EIGHT_SEATS, button=8, deck=deck, actions=eight_actions("memaid")))
    assert out["community_cards"] == ["As"]
    assert out["hands"]["1"]["category"] == "four_of_a_kind"
    assert out["final_stacks"]["1"] == 114


def test_memaid_short_deck_burns_shuffled_back_are_enough() -> None:
    # Seats 2-5 fold on sixth street: 4 players for 1 card. The stub becomes
    # deck[51], then the burns 5s, Ts, Qs: one card each, in dealing order.
    deck = top_deck(
        [EIGHT[s] for s in sorted(EIGHT)],
        burns=["fourth", "fifth", "sixth"],
        burn_cards={"fourth": "5s", "fifth": "Ts", "sixth": "Qs"},
        tail="As",
    )
    sixth: list[Action] = [(1, "check"), (2, "fold"), (3, "fold"), (4, "fold"), (5, "fold")]
    sixth += [(6, "check"), (7, "check"), (8, "check")]
    actions = eight_actions("memaid", sixth=sixth, live_7th=(1, 6, 7, 8))
    out = ok(run("memaid", seats=EIGHT_SEATS, button=8, deck=deck, actions=actions))
    assert out["community_cards"] == []
    assert out["shown"] == {
        "1": split(EIGHT[1] + " As"),
        "6": split(EIGHT[6] + " 5s"),
        "7": split(EIGHT[7] + " Ts"),
        "8": split(EIGHT[8] + " Qs"),
    }
    assert out["hands"]["8"]["category"] == "two_pair"
    assert out["pots"][0]["winners"] == [1]
    assert out["final_stacks"] == {"1": 114} | {str(s): 98 for s in range(2, 9)}


def test_casinos_austria_eight_players_burns_back_then_community_card() -> None:
    # Burns before third (As), fourth (5s), fifth (Ts): 1 + 24 + 9 + 9 = 43
    # cards, 9 left < 8 + 2: the burns go back (12 cards), a card is burned
    # (Qs, deck[43]) and 8 dealt. Seventh: 3 left < 10, the sixth-street burn
    # goes back too: deck[0], deck[25], deck[34], deck[43]; 4 < 8 + 1, so one
    # community card, deck[0] = As.
    deck = top_deck(
        [EIGHT[s] for s in sorted(EIGHT)],
        burns=["third", "fourth", "fifth", "sixth"],
        burn_cards={"third": "As", "fourth": "5s", "fifth": "Ts", "sixth": "Qs"},
    )
    assert len(deck) == 52 and deck[43] == "Qs"
    actions = eight_actions("casinos_austria")
    out = ok(run("casinos_austria", seats=EIGHT_SEATS, button=8, deck=deck, actions=actions))
    assert out["community_cards"] == ["As"]
    assert out["shown"] == {str(s): split(c) for s, c in EIGHT.items()}
    assert out["hands"]["1"]["category"] == "four_of_a_kind"
    # 8 antes + 8 x 1 = 16; 5 % rounds down to 0.
    assert out["rake"] == 0
    assert out["final_stacks"] == {"1": 114} | {str(s): 98 for s in range(2, 9)}


NINE = {
    1: "Kc Kd Ah Ad 9s",
    2: "3c 4c 2c 7d 8h",
    3: "3d 4d 2d 7h 8s",
    4: "3h 4h 2h 7s 9c",
    5: "3s 4s 2s 8c 9d",
    6: "5c 6c Qc 8d 9h",
    7: "5d 6d Qd Tc 7c",
    8: "5h 6h Qh Td Jc",
    9: "5s 6s Qs Th Jd",
}  # left: Ac As Ts Jh Js Kh Ks
NINE_SEATS = {s: 100 for s in NINE}


def test_casinos_austria_nine_players_community_card_on_sixth_and_seventh() -> None:
    # Burn + 27, burn + 9, burn + 9 = 48 cards. Sixth: 4 left, burns back: 7 <
    # 9 + 1, so deck[48] is turned; seventh: 6 left, deck[49].
    deck = top_deck(
        [NINE[s] for s in sorted(NINE)],
        burns=["third", "fourth", "fifth"],
        burn_cards={"third": "Ts", "fourth": "Jh", "fifth": "Js"},
        tail="Ac As Kh Ks",
    )
    assert deck[48:] == split("Ac As Kh Ks")
    seats = list(NINE)
    actions: list[Action] = [(2, "bring_in", 1), *every("call", seats, 3)[:-1]]
    actions += every("check", seats, 1) * 4 + every("show", seats, 1)
    out = ok(run("casinos_austria", seats=NINE_SEATS, button=9, deck=deck, actions=actions))
    assert out["community_cards"] == ["Ac", "As"]
    assert out["shown"] == {str(s): split(c) for s, c in NINE.items()}
    assert out["hands"]["1"]["category"] == "four_of_a_kind"
    assert ranks(out["hands"]["1"]["cards"]) == ranks(split("Ac Ad Ah As Kc"))
    assert out["first_to_act"] == {"third": 3, "fourth": 1, "fifth": 1, "sixth": 1, "seventh": 1}
    assert out["final_stacks"] == {"1": 116} | {str(s): 98 for s in range(2, 10)}


def test_casinos_austria_no_burn_when_exactly_players_plus_one_remain() -> None:
    # Nine dealt, seat 9 folds on third. Burn + 27, burn + 8, burn + 8 = 46
    # cards: 6 left < 8 + 2, the three burns go back: 9 = 8 + 1, so no burn:
    # deck[46..51], then deck[0] and deck[28] (the first two burns).
    hands = [NINE[s] for s in range(1, 9)] + ["5s 6s Qs"]
    deck = top_deck(
        hands,
        burns=["third", "fourth", "fifth"],
        burn_cards={"third": "Ts", "fourth": "Jh", "fifth": "Js"},
        tail="Kh Ks Th Jd Ac As",
    )
    assert (deck[0], deck[28], deck[37]) == ("Ts", "Jh", "Js")
    seats = list(NINE)
    actions: list[Action] = [(2, "bring_in", 1)]
    actions += [(s, "fold" if s == 9 else "call") for s in clockwise(seats, 3)[:-1]]
    actions += every("check", seats[:-1], 1) * 2
    hand = hand_after("casinos_austria", seats=NINE_SEATS, button=9, deck=deck, actions=actions)
    assert hand.street is Street.SIXTH
    sixth = {p.seat: p.cards[5] for p in hand.players if not p.folded}
    expected = dict(zip(range(1, 9), split("Kh Ks Th Jd Ac As Ts Jh"), strict=True))
    assert sixth == {s: parse_card(c) for s, c in expected.items()}
    burned_streets = [e.street for e in hand.events if isinstance(e, CardBurned)]
    assert burned_streets == [Street.THIRD, Street.FOURTH, Street.FIFTH]


def test_short_deck_setting_overridden_by_name() -> None:
    # Without a short-deck rule the eight-player deck simply runs out on
    # seventh street.
    deck = top_deck([EIGHT[s] for s in sorted(EIGHT)], tail="As")
    rules = {"profile": "multipoker", "short_deck": None}
    actions = eight_actions("multipoker")
    out = run(rules, seats=EIGHT_SEATS, button=8, deck=deck, actions=actions)
    # The last check of sixth street deals seventh: action 7 + 3 x 8 - 1.
    refused(out, "DECK_EXHAUSTED", 7 + 3 * 8 - 1)


# ------------------------------------------------------------------ hi-lo


HL_HIGH = "Kc Kd Ks 9h 9d Qh Jc"  # kings full of nines, no low
HL_LOW_75 = "2c 3d 4h 5s 7c Td Jh"  # 7-5-4-3-2
HL_LOW_75B = "2s 3c 4d 5h 7d 8c Qs"  # 7-5-4-3-2 too
HL_WHEEL_ACE = "Ac 2d 3h 4s 6c Td Jh"  # A-2-3-4-6: a low only if aces are low
HL_NO_LOW = "2c 3d 4h 5s 9c Td Jh"  # four low ranks only
HL_STRAIGHT = "2c 3d 4h 5s 6c Td Jh"  # a straight, and 6-5-4-3-2 low


def hilo(
    hands: Sequence[str], bringer: int, actions_after: list[Action] | None = None
) -> dict[str, Any]:
    """Seats 1-3 (button 3); everyone still in checks down, seat 1 (Ks 9h, then
    a pair of nines) first from fourth street on and first to show."""
    live = [s for s, h in zip((1, 2, 3), hands, strict=True) if len(split(h)) == 7]
    actions: list[Action] = [(bringer, "bring_in", 1)]
    for s in clockwise([1, 2, 3], bringer)[1:]:
        actions.append((s, "call" if s in live else "fold"))
    actions += every("check", live, 1) * 4 + every("show", live, 1)
    if actions_after:
        actions += actions_after
    seats = {1: 100, 2: 100, 3: 100}
    deck = top_deck(hands, burns=ALL_STREETS)
    return ok(run("casinos_austria_hilo", seats=seats, button=3, deck=deck, actions=actions))


def test_hilo_split_odd_chip_to_the_high_half() -> None:
    # Seat 3 folds after his ante: pot 3 + 1 + 1 = 5, high 3, low 2.
    out = hilo([HL_HIGH, HL_LOW_75, "8h 8s As"], bringer=2)
    assert out["pots"] == [
        {"amount": 5, "eligible": [1, 2], "winners": [1, 2], "awards": {"1": 3, "2": 2}}
    ]
    assert out["final_stacks"] == {"1": 101, "2": 100, "3": 99}
    assert out["hands"]["1"]["high"]["category"] == "full_house"
    assert out["hands"]["1"]["low"] is None
    assert out["hands"]["2"]["high"]["category"] == "high_card"
    assert ranks(out["hands"]["2"]["low"]["cards"]) == ranks(split("7c 5s 4h 3d 2c"))
    assert out["rake"] == 0


def test_hilo_no_qualifying_low_high_takes_all() -> None:
    out = hilo([HL_HIGH, HL_NO_LOW, "8h 8s As"], bringer=2)
    assert out["pots"] == [{"amount": 5, "eligible": [1, 2], "winners": [1], "awards": {"1": 5}}]
    assert out["hands"]["2"]["low"] is None


def test_hilo_aces_are_low() -> None:
    # A-2-3-4-6 beats 7-5-4-3-2 for low. Doors Ks, 3h, 4d: seat 2 brings in.
    out = hilo([HL_HIGH, HL_WHEEL_ACE, HL_LOW_75B], bringer=2)
    assert out["pots"] == [
        {"amount": 6, "eligible": [1, 2, 3], "winners": [1, 2], "awards": {"1": 3, "2": 3}}
    ]
    assert ranks(out["hands"]["2"]["low"]["cards"]) == ranks(split("Ac 2d 3h 4s 6c"))


def test_hilo_straights_do_not_spoil_a_low() -> None:
    # Seat 2's 2-3-4-5-6 is a straight and the best low (6 < 7).
    out = hilo([HL_HIGH, HL_STRAIGHT, HL_LOW_75B], bringer=3)
    assert out["hands"]["2"]["high"]["category"] == "straight"
    assert out["pots"][0]["awards"] == {"1": 3, "2": 3}


def test_hilo_tied_lows_split_the_low_half() -> None:
    # Low half 3 split between seats 2 and 3: the odd chip to seat 2, the
    # first of them left of the button.
    out = hilo([HL_HIGH, HL_LOW_75, HL_LOW_75B], bringer=3)
    assert out["pots"] == [
        {
            "amount": 6,
            "eligible": [1, 2, 3],
            "winners": [1, 2, 3],
            "awards": {"1": 3, "2": 2, "3": 1},
        }
    ]
    assert out["final_stacks"] == {"1": 101, "2": 100, "3": 99}


def test_hi_lo_setting_overridden_by_name() -> None:
    deck = slot_deck([HL_HIGH, HL_LOW_75, "8h 8s As"])
    actions: list[Action] = [(3, "fold"), (1, "call"), (2, "check")] + [
        (1, "check"),
        (2, "check"),
    ] * 4
    out = ok(
        run(
            {"profile": "house", "hi_lo": True},
            seats={1: 100, 2: 100, 3: 100},
            button=3,
            deck=deck,
            actions=actions,
        )
    )
    assert out["pots"][0]["awards"] == {"1": 3, "2": 2}


def test_hilo_each_pot_splits_on_its_own() -> None:
    # Seat 3 (A-2-3-4-6 low, 3h brings in) is all in for 2. Seats 1 and 2 put
    # 2 more each into a side pot on fourth street, then check down.
    s3 = "Ac 2d 3h 4s 6c Tc Qd"
    deck = top_deck([HL_HIGH, HL_LOW_75, s3], burns=ALL_STREETS)
    actions: list[Action] = [
        (3, "bring_in", 1), (1, "call"), (2, "call"),
        (1, "bet"), (2, "call"),
        *[(1, "check"), (2, "check")] * 3,
        (1, "show"), (2, "show"), (3, "show"),
    ]  # fmt: skip
    seats = {1: 100, 2: 100, 3: 2}
    out = ok(run("casinos_austria_hilo", seats=seats, button=3, deck=deck, actions=actions))
    # Main 6: high (kings full) 3, low (A-2-3-4-6) 3. Side 4: high 2, and
    # 7-5-4-3-2 is the best low among seats 1 and 2: 2.
    assert out["pots"] == [
        {"amount": 6, "eligible": [1, 2, 3], "winners": [1, 3], "awards": {"1": 3, "3": 3}},
        {"amount": 4, "eligible": [1, 2], "winners": [1, 2], "awards": {"1": 2, "2": 2}},
    ]
    assert out["final_stacks"] == {"1": 101, "2": 98, "3": 3}


def test_protected_player_left_with_one_bettor_goes_to_showdown() -> None:
    # memaid: seat 2 is protected on fourth street; seat 3 bets, seat 1 folds.
    # Seat 3's 2 cannot be matched (returned); the rest is dealt out and the
    # protected seat 2 shows down against seat 3 (the last bettor shows first).
    actions: list[Action] = [*third("memaid"), (2, "timeout"), (3, "bet"), (1, "fold")]
    hands = ("Kc Kd 2c 3d", T2, T3)  # seat 1 folds on fourth street: four cards
    out = run3("memaid", actions, hands=hands)
    assert to_act(out) == (3, ["show"])
    out = ok(run3("memaid", [*actions, (3, "show"), (2, "show")], hands=hands))
    assert out["returned"] == {"3": 2}
    assert out["pots"] == [{"amount": 6, "eligible": [2, 3], "winners": [2], "awards": {"2": 6}}]
    assert out["final_stacks"] == {"1": 98, "2": 104, "3": 98}
    assert out["first_to_act"] == {"third": 2, "fourth": 2}


def test_choice_completion_is_the_bet_for_the_cap() -> None:
    # memaid: the bring-in completes (the bet); three raises cap third street.
    hand = hand3("memaid", [(1, "complete"), (2, "raise"), (3, "raise")])
    assert legal_kinds(hand) == ["fold", "call", "raise"]
    hand.raise_to(1)
    assert hand.to_act == 2 and hand.current_bet == 8
    assert legal_kinds(hand) == ["fold", "call"]


def test_memaid_protection_with_nothing_in_wins_nothing() -> None:
    # No ante: seat 2 times out facing the bring-in with nothing in the pot.
    # He is all in for 0: every chip goes to pots he cannot win, though he
    # keeps his turn to show. Seat 3 (next after seat 2's best showing hand)
    # is first every later street and, nobody betting, shows first.
    actions: list[Action] = [(1, "bring_in"), (2, "timeout"), (3, "call")]
    actions += [(3, "check"), (1, "check")] * 4 + [(3, "show"), (1, "show"), (2, "show")]
    out = ok(run3("memaid", actions, stakes={"ante": 0, "small_bet": 2}))
    assert out["pots"] == [{"amount": 2, "eligible": [1, 3], "winners": [1], "awards": {"1": 2}}]
    assert out["final_stacks"] == {"1": 101, "2": 100, "3": 99}
    assert set(out["shown"]) == {"1", "2", "3"}


def test_hilo_rake_first_then_the_split_odd_chip_high() -> None:
    # Ante 15, small bet 40. Seat 2 (4h) brings in 19, seat 1 calls; fourth
    # street seat 1 bets 40, called; then checks. Rake: third 30 + 38 = 68
    # -> 3, fourth 80 -> 4. 148 - 7 = 141: high 71, low 70.
    deck = top_deck([HL_HIGH, HL_LOW_75], burns=ALL_STREETS)
    actions: list[Action] = [
        (2, "bring_in", 19), (1, "call"),
        (1, "bet"), (2, "call"),
        *[(1, "check"), (2, "check")] * 3,
        (1, "show"), (2, "show"),
    ]  # fmt: skip
    out = ok(
        run(
            "casinos_austria_hilo",
            seats={1: 500, 2: 500},
            button=2,
            deck=deck,
            actions=actions,
            stakes={"ante": 15, "small_bet": 40},
        )
    )
    assert out["rake"] == 7
    assert out["pots"] == [
        {"amount": 148, "eligible": [1, 2], "winners": [1, 2], "awards": {"1": 71, "2": 70}}
    ]
    assert out["final_stacks"] == {"1": 497, "2": 496}


def test_top_dealing_deck_exhausted_in_the_first_deal() -> None:
    # Three players need nine cards for third street (ten with a burn).
    for profile, cards in (("multipoker", 8), ("casinos_austria", 9)):
        out = run(
            profile,
            seats={1: 50, 2: 50, 3: 50},
            button=3,
            deck=split("Ac Kd Qh Js Tc 9d 8h 7s 6c")[:cards],
        )
        refused(out, "DECK_EXHAUSTED", None)
    ok_start = run(
        "multipoker",
        seats={1: 50, 2: 50, 3: 50},
        button=3,
        deck=split("Ac Kd Qh Js Tc 9d 8h 7s 6c"),
    )
    refused(ok_start, "INCOMPLETE", 0)
