"""The house rules (docs/rules.md §2) as hand-worked hand scripts.

Every expected value here is worked out from docs/rules.md and docs/hand-scripts.md by
hand, not taken from the engine. Stakes are ante 1, small bet 2 (bring-in 1,
big bet 4) unless a test says otherwise.

Most tests use ``BASE``: seats 1, 2, 3 with the button on 3, so dealing
positions are seat 1 (p0), seat 2 (p1), seat 3 (p2).

- seat 1: Kc Kd | 2c | 3d 5h 7s | Jd — door 2c is the lowest: the bring-in.
- seat 2: Ac Ad | As | Kh Ah 6s | 8d — shows A-K on fourth street, then a pair
  of aces, so acts first on fourth to seventh street; four aces win a
  showdown. (No open pair on fourth street.)
- seat 3: Qc Qd | Th | 9h 3h 5c | 8c — a pair of queens.

Third street is asked 2, 3, then the bring-in 1; later streets 2, 3, 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from engine_server.game.actions import ActionRefused, RefusalCode
from engine_server.game.cards import parse_card
from engine_server.game.profiles import Street
from tests.engine_server.game.scripting import (
    Action,
    hand_after,
    legal,
    legal_kinds,
    run,
    slot_deck,
    split,
)

S1 = "Kc Kd 2c 3d 5h 7s Jd"
S2 = "Ac Ad As Kh Ah 6s 8d"
S3 = "Qc Qd Th 9h 3h 5c 8c"
BASE_DECK = slot_deck([S1, S2, S3])
THIRD_CALLS: list[Action] = [(2, "call"), (3, "call"), (1, "check")]
SMALL4 = {"ante": 1, "small_bet": 4}  # bring-in 2, big bet 8


def base(
    actions: Sequence[Action], *, stacks: tuple[int, int, int] = (100, 100, 100), **kw: Any
) -> dict[str, Any]:
    """Replay ``BASE`` with these actions."""
    seats = dict(zip((1, 2, 3), stacks, strict=True))
    return run("house", seats=seats, button=3, deck=BASE_DECK, actions=actions, **kw)


def base_hand(
    actions: Sequence[Action], *, stacks: tuple[int, int, int] = (100, 100, 100), **kw: Any
) -> Any:
    seats = dict(zip((1, 2, 3), stacks, strict=True))
    return hand_after("house", seats=seats, button=3, deck=BASE_DECK, actions=actions, **kw)


def clockwise(seats: list[int], first: int) -> list[int]:
    """``seats`` in clockwise order (increasing, wrapping) starting at ``first``."""
    ordered = sorted(seats)
    i = ordered.index(first)
    return ordered[i:] + ordered[:i]


def checks(seats: list[int], first: int) -> list[Action]:
    return [(s, "check") for s in clockwise(seats, first)]


def ranks(cards: list[str]) -> list[str]:
    """Cards compared by rank only (docs/hand-scripts.md §4: any equal choice is right)."""
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


# ---------------------------------------------------------------- table, dealing


def test_slot_dealing_gives_position_p_the_cards_at_7k_plus_p() -> None:
    # Seats 3 and 5, button 5: dealing starts at the button's left, which wraps
    # to seat 3 (p0); seat 5 is p1. The deck is written out index by index.
    deck = [""] * 44
    for k, card in enumerate(split("Ah Ad 9c Kh Ks Qc 2d")):
        deck[7 * k] = card  # seat 3
    for k, card in enumerate(split("3c 4c 5d 7h 8s Jd Th")):
        deck[7 * k + 1] = card  # seat 5
    spare = iter(
        c
        for c in split(
            "2c 2h 2s 3d 3h 3s 4d 4h 4s 5c 5h 5s 6c 6d 6h 6s 7c 7d 7s"
            " 8c 8d 8h 9d 9h 9s Tc Td Ts Jc Jh"
        )
    )
    deck = [c or next(spare) for c in deck]
    # 5d < 9c: seat 5 brings in; seat 3 calls; seat 5 checks his last turn.
    # Seat 3 shows K-high (9c Kh), then a pair of kings: he is first every street.
    actions: list[Action] = [(3, "call"), (5, "check")] + [(3, "check"), (5, "check")] * 4
    out = ok(run("house", seats={3: 100, 5: 100}, button=5, deck=deck, actions=actions))
    assert out["shown"] == {
        "3": split("Ah Ad 9c Kh Ks Qc 2d"),
        "5": split("3c 4c 5d 7h 8s Jd Th"),
    }
    assert out["bring_in"] == {"seat": 5, "card": "5d", "amount": 1}
    assert out["first_to_act"] == {s: 3 for s in ("third", "fourth", "fifth", "sixth", "seventh")}
    # Aces and kings up beat jack-high; the pot is 2 antes + 1 + 1.
    assert out["hands"]["3"]["category"] == "two_pair"
    assert ranks(out["hands"]["3"]["cards"]) == ranks(["Ah", "Ad", "Kh", "Ks", "Qc"])
    assert out["hands"]["5"]["category"] == "high_card"
    assert out["pots"] == [{"amount": 4, "eligible": [3, 5], "winners": [3], "awards": {"3": 4}}]
    assert out["final_stacks"] == {"3": 102, "5": 98}
    assert out["returned"] == {} and out["rake"] == 0 and out["community_cards"] == []


def test_a_fold_never_moves_a_card_toward_anyone_else() -> None:
    # Seat 2 (p1) folds on third street; seat 3 (p2) still gets deck[7k + 2].
    s1 = "Kc Kd 8c 2h 5s 9d Jc"
    s2 = "3c 3d Qs"
    s3 = "Ac Ad 4c As 6h Th 7d"
    deck = slot_deck([s1, s2, s3])
    # 4c brings in (seat 3). Seat 3 shows ace-high from fourth street on
    # (4c As > 8c 2h), so he is first every later street.
    actions: list[Action] = [(1, "call"), (2, "fold"), (3, "check")]
    actions += [(3, "check"), (1, "check")] * 4
    out = ok(run("house", seats={1: 100, 2: 100, 3: 100}, button=3, deck=deck, actions=actions))
    assert out["shown"] == {"1": s1.split(), "3": s3.split()}
    # Three aces beat kings; pot = 3 antes + bring-in + call.
    assert out["pots"] == [{"amount": 5, "eligible": [1, 3], "winners": [3], "awards": {"3": 5}}]
    assert out["final_stacks"] == {"1": 98, "2": 99, "3": 103}


def test_no_chips_no_cards_and_dealing_wraps_past_the_button() -> None:
    # Seat 4 has no chips: not dealt in. Button 6: seat 1 is p0, seat 6 is p1.
    deck = slot_deck(["Ah Ad 9c Kh Ks Qc 2d", "3c 4c 5d 7h 8s Jd Th"])
    actions: list[Action] = [(1, "call"), (6, "check")] + [(1, "check"), (6, "check")] * 4
    out = ok(run("house", seats={1: 100, 4: 0, 6: 100}, button=6, deck=deck, actions=actions))
    assert out["bring_in"] == {"seat": 6, "card": "5d", "amount": 1}
    assert out["shown"] == {
        "1": split("Ah Ad 9c Kh Ks Qc 2d"),
        "6": split("3c 4c 5d 7h 8s Jd Th"),
    }
    assert out["final_stacks"] == {"1": 102, "4": 0, "6": 98}


def test_base_check_down_showdown() -> None:
    actions = THIRD_CALLS + checks([1, 2, 3], 2) * 4
    out = ok(base(actions))
    assert out["bring_in"] == {"seat": 1, "card": "2c", "amount": 1}
    assert out["first_to_act"] == {"third": 2, "fourth": 2, "fifth": 2, "sixth": 2, "seventh": 2}
    assert out["shown"] == {"1": S1.split(), "2": S2.split(), "3": S3.split()}
    assert out["hands"]["2"]["category"] == "four_of_a_kind"
    assert ranks(out["hands"]["2"]["cards"]) == ranks(["Ac", "Ad", "As", "Ah", "Kh"])
    assert out["hands"]["1"]["category"] == "one_pair"
    assert ranks(out["hands"]["1"]["cards"]) == ranks(["Kc", "Kd", "Jd", "7s", "5h"])
    assert out["hands"]["3"]["category"] == "one_pair"
    assert ranks(out["hands"]["3"]["cards"]) == ranks(["Qc", "Qd", "Th", "9h", "8c"])
    assert out["pots"] == [{"amount": 6, "eligible": [1, 2, 3], "winners": [2], "awards": {"2": 6}}]
    assert out["final_stacks"] == {"1": 98, "2": 104, "3": 98}


# ------------------------------------------------------------------------ antes


def test_antes_and_a_bring_in_nobody_calls() -> None:
    out = ok(base([(2, "fold"), (3, "fold")]))
    # The bring-in's chip over everyone else's ante is a bet nobody matched:
    # returned before the pot (3 antes) is awarded.
    assert out["returned"] == {"1": 1}
    assert out["pots"] == [{"amount": 3, "eligible": [1], "winners": [1], "awards": {"1": 3}}]
    assert out["final_stacks"] == {"1": 102, "2": 99, "3": 99}
    assert out["shown"] == {} and out["hands"] == {}
    assert out["first_to_act"] == {"third": 2}


def test_short_ante_is_all_in_and_cannot_bring_in() -> None:
    # Seat 1 has 1 chip: the ante puts him all in. His 2c is the lowest door,
    # but only players with chips after the antes bring in: seat 2 (5d < 9h).
    deck = slot_deck(["Ac Ad 2c Ah 3s 4d 9c", "Kc Kd 5d 6s 8h Ts Jh", "Qc Qd 9h"])
    # Seat 3 folds: seat 2 is the only one who can bet, so no last turn for the
    # bring-in and the cards are dealt out.
    out = ok(run("house", seats={1: 1, 2: 100, 3: 100}, button=3, deck=deck, actions=[(3, "fold")]))
    assert out["bring_in"] == {"seat": 2, "card": "5d", "amount": 1}
    assert out["first_to_act"] == {"third": 3}
    # Contributions 1, 2, 1: seat 2's second chip is unmatched and returned.
    assert out["returned"] == {"2": 1}
    # Three aces beat two kings.
    assert out["pots"] == [{"amount": 3, "eligible": [1, 2], "winners": [1], "awards": {"1": 3}}]
    assert out["final_stacks"] == {"1": 3, "2": 99, "3": 99}


# --------------------------------------------------------------------- bring-in


@pytest.mark.parametrize(
    ("doors", "bringer"),
    [
        (("Ac", "Kd", "Qh"), 3),  # ace is high
        (("Ks", "Kd", "Kh"), 2),  # rank tie: diamonds below hearts and spades
        (("2h", "2s", "2c"), 3),  # 2c is the lowest card
        (("2d", "2h", "2s"), 1),
        (("3c", "2s", "Ah"), 2),  # rank first, suit only on a tie
        (("Ac", "As", "Ad"), 1),  # clubs lowest
    ],
)
def test_lowest_door_card_brings_in(doors: tuple[str, str, str], bringer: int) -> None:
    deck = slot_deck([f"?? ?? {d}" for d in doors])
    folds = [(s, "fold") for s in clockwise([1, 2, 3], bringer)[1:]]
    out = ok(run("house", seats={1: 100, 2: 100, 3: 100}, button=3, deck=deck, actions=folds))
    assert out["bring_in"] == {"seat": bringer, "card": doors[bringer - 1], "amount": 1}
    # Action goes to the bring-in's left.
    assert out["first_to_act"] == {"third": clockwise([1, 2, 3], bringer)[1]}
    assert out["final_stacks"][str(bringer)] == 102


def test_short_bring_in_is_all_in_and_others_call_what_he_posted() -> None:
    # Bring-in 2, but seat 1 (2c) has 1 chip after his ante: all in for 1.
    hand = base_hand([], stacks=(2, 100, 100), stakes=SMALL4)
    assert hand.to_act == 2
    assert legal_kinds(hand) == ["fold", "call", "complete"]
    assert legal(hand, "call")[:2] == (1, 1)
    assert legal(hand, "complete")[:2] == (4, 4)
    # Both call 1; the all-in bring-in has no last turn. Seat 2 shows the best
    # hand (pair of aces) on every later street: he acts first.
    actions = [(2, "call"), (3, "call")] + [(2, "check"), (3, "check")] * 4
    out = ok(base(actions, stacks=(2, 100, 100), stakes=SMALL4))
    assert out["bring_in"] == {"seat": 1, "card": "2c", "amount": 1}
    # Everyone put in 2: one pot of 6, four aces win.
    assert out["pots"] == [{"amount": 6, "eligible": [1, 2, 3], "winners": [2], "awards": {"2": 6}}]
    assert out["final_stacks"] == {"1": 0, "2": 104, "3": 98}


def test_short_bring_in_best_showing_all_in_next_who_can_act_is_first() -> None:
    # Small bet 4 (bring-in 2). Seat 2 (door 2c) has 1 chip after the ante and
    # brings in all in for 1; later he shows ace-high (2c As ...), the best,
    # but cannot act: seat 3, next clockwise, is asked first.
    deck = slot_deck(["Kc Kd 9c 3d 5h 7s Jd", "Ac Ad 2c As 4h 6s 8d", "Qc Qd Th 3h 5c 8c 9h"])
    # 2c brings in (seat 2, all in for 1 of the 2). Seat 3 and seat 1 call.
    actions: list[Action] = [(3, "call"), (1, "call")] + [(3, "check"), (1, "check")] * 4
    out = ok(
        run(
            "house",
            seats={1: 100, 2: 2, 3: 100},
            button=3,
            deck=deck,
            stakes=SMALL4,
            actions=actions,
        )
    )
    # Fourth street on: seat 2 shows the best (2c As ace-high, then a pair...
    # 2c As 4h: ace-high), but is all in; seat 3 is next clockwise.
    assert out["first_to_act"] == {"third": 3, "fourth": 3, "fifth": 3, "sixth": 3, "seventh": 3}
    assert out["pots"][0]["winners"] == [2]
    assert out["final_stacks"] == {"1": 98, "2": 6, "3": 98}


def test_completion_then_raises_by_the_small_bet() -> None:
    hand = base_hand([(2, "complete")])
    assert hand.to_act == 3
    assert legal_kinds(hand) == ["fold", "call", "raise"]
    assert legal(hand, "call")[:2] == (2, 2)
    assert legal(hand, "raise")[:2] == (4, 4)


def test_bring_in_gets_a_last_turn_when_everyone_only_called() -> None:
    out = refused(base([(2, "call"), (3, "call")]), "INCOMPLETE", 2)
    assert out["to_act"] == {"seat": 1, "legal": ["fold", "check", "complete"]}


def test_bring_in_completing_on_his_last_turn_reopens_the_action() -> None:
    out = refused(base([(2, "call"), (3, "call"), (1, "complete")]), "INCOMPLETE", 3)
    assert out["to_act"] == {"seat": 2, "legal": ["fold", "call", "raise"]}
    hand = base_hand([(2, "call"), (3, "call"), (1, "complete"), (2, "call"), (3, "call")])
    assert hand.street is Street.FOURTH


def test_bring_in_may_fold_on_his_last_turn() -> None:
    # Folding is legal even with a free check; seats 2 and 3 play on.
    actions = [(2, "call"), (3, "call"), (1, "fold")] + [(2, "check"), (3, "check")] * 4
    out = ok(base(actions))
    # 3 antes + bring-in + two calls.
    assert out["pots"] == [{"amount": 6, "eligible": [2, 3], "winners": [2], "awards": {"2": 6}}]
    assert out["final_stacks"] == {"1": 98, "2": 104, "3": 98}


def test_no_last_turn_when_the_only_caller_is_all_in() -> None:
    # Heads-up: seat 2 has ante + bring-in exactly and calls all in.
    deck = slot_deck(["Kc Kd 2c 3d 5h 7s Jd", "Ac Ad 9c As 4h 6s 8d"])
    out = ok(run("house", seats={1: 100, 2: 2}, button=2, deck=deck, actions=[(2, "call")]))
    assert out["first_to_act"] == {"third": 2}
    assert out["pots"] == [{"amount": 4, "eligible": [1, 2], "winners": [2], "awards": {"2": 4}}]
    assert out["final_stacks"] == {"1": 98, "2": 4}


def test_no_last_turn_when_every_caller_is_all_in_and_the_rest_fold() -> None:
    out = ok(base([(2, "call"), (3, "fold")], stacks=(100, 2, 100)))
    # Seat 1 (bring-in) cannot bet against anyone: dealt out, four aces win.
    assert out["first_to_act"] == {"third": 2}
    assert out["pots"] == [{"amount": 5, "eligible": [1, 2], "winners": [2], "awards": {"2": 5}}]
    assert out["final_stacks"] == {"1": 98, "2": 5, "3": 99}


def test_last_turn_given_while_some_caller_can_still_bet() -> None:
    out = refused(base([(2, "call"), (3, "call")], stacks=(100, 2, 100)), "INCOMPLETE", 2)
    assert out["to_act"] == {"seat": 1, "legal": ["fold", "check", "complete"]}


# ------------------------------------------------------------- who acts first


SHOWING_CASES = [
    # (p0 up cards, p1 up cards, first position on 4th, 5th, 6th, 7th street)
    ("Ah 9d 9c 2h", "As Kd Qc Qh", (1, 0, 1, 1)),  # A-K > A-9; 99 > AKQ; QQ > 99
    ("7d 7h Kc Ks", "7c 7s Ac Qd", (0, 1, 0, 0)),  # tie; 77A > 77K; KK77 > 77AQ
    ("Kc 2d Kd 2h", "Qc Qd Jc Jd", (1, 0, 0, 0)),  # two pair: higher pair first
    ("Ac Kd Ad Kh", "3c 3d 3h 9s", (1, 1, 1, 1)),  # trips > two pair
    ("5c 5d 5h 5s", "Ac Ad Ah Kc", (1, 1, 0, 0)),  # quads > trips
    ("5h 6h 7h 8h", "2c 2d Kc 3s", (1, 1, 1, 1)),  # straight flush draw does not count
    ("Ah Kh 9h 4h", "2c 2d 3s 5c", (1, 1, 1, 1)),  # four flush does not count
    ("Ah Qd 9c 3s", "As Qc 9d 4h", (0, 0, 1, 1)),  # kickers from the top down
    ("Kc 9c 4c 2d", "Ks 9s 4s 2h", (0, 0, 0, 0)),  # suits never count: button's left
]


@pytest.mark.parametrize("button", [1, 2])
@pytest.mark.parametrize(("up0", "up1", "firsts"), SHOWING_CASES)
def test_best_showing_hand_acts_first(
    up0: str, up1: str, firsts: tuple[int, int, int, int], button: int
) -> None:
    # Heads-up; button 2 makes seat 1 p0, button 1 makes seat 2 p0.
    seat_of = (1, 2) if button == 2 else (2, 1)
    hands = []
    for up in (up0, up1):
        door, c4, c5, c6 = up.split()
        hands.append(f"?? ?? {door} {c4} {c5} {c6} ??")
    deck = slot_deck(hands)
    doors = [parse_card(up0.split()[0]), parse_card(up1.split()[0])]
    bringer = seat_of[doors.index(min(doors))]
    other = 3 - bringer
    actions: list[Action] = [(other, "call"), (bringer, "check")]
    for pos in firsts:
        first = seat_of[pos]
        actions += [(first, "check"), (3 - first, "check")]
    out = ok(run("house", seats={1: 100, 2: 100}, button=button, deck=deck, actions=actions))
    expected = {"third": other} | {
        street: seat_of[pos]
        for street, pos in zip(("fourth", "fifth", "sixth", "seventh"), firsts, strict=True)
    }
    assert out["first_to_act"] == expected


def test_best_showing_all_in_passes_to_next_seat_that_can_act() -> None:
    # Seats 1-4, button 4. Seat 2 calls all in on third and shows Ah As on
    # fourth; seat 3 (next clockwise) folded, so seat 4 is asked first.
    deck = slot_deck(["?? ?? 9c 3d", "?? ?? Ah As", "?? ?? Kd", "?? ?? 2c 5h"])
    actions: list[Action] = [(1, "call"), (2, "call"), (3, "fold"), (4, "check")]
    out = run("house", seats={1: 100, 2: 2, 3: 100, 4: 100}, button=4, deck=deck, actions=actions)
    refused(out, "INCOMPLETE", 4)
    assert out["to_act"] == {"seat": 4, "legal": ["fold", "check", "bet"]}


# --------------------------------------------------------------------- betting


def test_fixed_limit_sizes_small_on_third_and_fourth_big_from_fifth() -> None:
    hand = base_hand(THIRD_CALLS)
    assert hand.street is Street.FOURTH and hand.to_act == 2
    assert legal(hand, "bet") == (2, 2, ())
    refused(base([*THIRD_CALLS, (2, "bet", 4)]), "ILLEGAL_ACTION", 3)
    hand.bet(2)
    assert legal(hand, "raise")[:2] == (4, 4)
    # Fifth street: big bets.
    hand = base_hand(THIRD_CALLS + checks([1, 2, 3], 2))
    assert hand.street is Street.FIFTH
    assert legal(hand, "bet") == (4, 4, ())
    hand.bet(2)
    assert legal(hand, "raise")[:2] == (8, 8)


def test_cap_is_a_bet_and_three_raises() -> None:
    actions = [*THIRD_CALLS, (2, "bet"), (3, "raise"), (1, "raise"), (2, "raise")]
    out = refused(base(actions), "INCOMPLETE", 7)
    assert out["to_act"] == {"seat": 3, "legal": ["fold", "call"]}
    refused(base([*actions, (3, "raise")]), "ILLEGAL_ACTION", 7)


def test_bring_in_does_not_count_toward_the_cap_but_the_completion_does() -> None:
    # Completion 2, raises to 4, 6, 8: capped after the third raise.
    actions: list[Action] = [(2, "complete"), (3, "raise"), (1, "raise"), (2, "raise")]
    out = refused(base(actions), "INCOMPLETE", 4)
    assert out["to_act"] == {"seat": 3, "legal": ["fold", "call"]}
    hand = base_hand([*actions, (3, "call"), (1, "call")])
    assert hand.street is Street.FOURTH
    assert [p.contributed for p in hand.players] == [9, 9, 9]


def test_a_player_may_not_raise_his_own_bet() -> None:
    hand = base_hand([*THIRD_CALLS, (2, "bet"), (3, "call"), (1, "call")])
    assert hand.street is Street.FIFTH and hand.to_act == 2
    hand = base_hand([*THIRD_CALLS, (2, "bet"), (3, "raise"), (1, "call"), (2, "call")])
    assert hand.street is Street.FIFTH and hand.to_act == 2


def test_no_raise_when_nobody_else_could_put_in_more() -> None:
    # Heads-up. Seat 2 has 4 left on fourth street and raises all in to 4 (a
    # full raise); seat 1 may only call or fold.
    deck = slot_deck(["?? ?? 9c 9d", "?? ?? 2c 5h"])
    actions: list[Action] = [(1, "call"), (2, "check"), (1, "bet"), (2, "raise")]
    out = run("house", seats={1: 100, 2: 6}, button=2, deck=deck, actions=actions)
    refused(out, "INCOMPLETE", 4)
    assert out["to_act"] == {"seat": 1, "legal": ["fold", "call"]}


def test_raise_allowed_while_another_player_can_still_bet() -> None:
    # Seat 3 raises all in to 4 (6 - ante - call leaves 4); seat 1 may raise
    # because seat 2 can still put in more.
    actions = [*THIRD_CALLS, (2, "bet"), (3, "raise")]
    out = refused(base(actions, stacks=(100, 100, 6)), "INCOMPLETE", 5)
    assert out["to_act"] == {"seat": 1, "legal": ["fold", "call", "raise"]}
    hand = base_hand(actions, stacks=(100, 100, 6))
    assert legal(hand, "raise")[:2] == (6, 6)


def test_fold_is_legal_when_checking_is_free() -> None:
    hand = base_hand(THIRD_CALLS)
    assert legal_kinds(hand) == ["fold", "check", "bet"]
    out = refused(base([*THIRD_CALLS, (2, "fold")]), "INCOMPLETE", 4)
    assert out["to_act"] == {"seat": 3, "legal": ["fold", "check", "bet"]}


# ------------------------------------------------------------- short all-ins


def test_short_all_in_raise_does_not_reopen_and_next_raise_is_to_8() -> None:
    # Small bet 4. Seat 3 has 9: ante 1, calls the bring-in 2, 6 left.
    # Fourth: seat 2 bets 4, seat 3 raises all in to 6 (a full raise is 8).
    actions = [*THIRD_CALLS, (2, "bet"), (3, "raise")]
    hand = base_hand(actions, stacks=(100, 100, 9), stakes=SMALL4)
    assert hand.to_act == 1
    assert legal_kinds(hand) == ["fold", "call", "raise"]
    assert legal(hand, "call")[:2] == (6, 6)
    assert legal(hand, "raise")[:2] == (8, 8)
    refused(
        base([*actions, (1, "raise", 10)], stacks=(100, 100, 9), stakes=SMALL4), "ILLEGAL_ACTION", 5
    )
    # Seat 1 only calls: seat 2 acted since the last full bet, may only call or fold.
    out = refused(
        base([*actions, (1, "call")], stacks=(100, 100, 9), stakes=SMALL4), "INCOMPLETE", 6
    )
    assert out["to_act"] == {"seat": 2, "legal": ["fold", "call"]}
    hand = base_hand([*actions, (1, "call"), (2, "call")], stacks=(100, 100, 9), stakes=SMALL4)
    assert hand.street is Street.FIFTH


def test_full_raise_after_a_short_all_in_reopens() -> None:
    actions = [*THIRD_CALLS, (2, "bet"), (3, "raise"), (1, "raise", 8)]
    hand = base_hand(actions, stacks=(100, 100, 9), stakes=SMALL4)
    assert hand.to_act == 2
    assert legal_kinds(hand) == ["fold", "call", "raise"]
    assert legal(hand, "raise")[:2] == (12, 12)


def test_short_all_in_bet_makes_the_next_full_action_a_raise_to_one_bet() -> None:
    # Small bet 4; seat 2 has 3 left on fourth street and bets them.
    stacks = (100, 6, 100)
    hand = base_hand([*THIRD_CALLS, (2, "bet")], stacks=stacks, stakes=SMALL4)
    assert hand.to_act == 3
    assert legal_kinds(hand) == ["fold", "call", "raise"]
    assert legal(hand, "call")[:2] == (3, 3)
    assert legal(hand, "raise")[:2] == (4, 4)
    # The short bet does not count toward the cap: 4, 8, 12, 16 are the bet
    # and three raises, then only calls.
    actions = [*THIRD_CALLS, (2, "bet"), (3, "raise"), (1, "raise"), (3, "raise"), (1, "raise")]
    hand = base_hand(actions, stacks=stacks, stakes=SMALL4)
    assert hand.to_act == 3 and hand.current_bet == 16
    assert legal_kinds(hand) == ["fold", "call"]


def test_short_completion_leaves_the_completion_as_the_next_full_action() -> None:
    # Small bet 4, bring-in 2 (seat 1). Seat 2 has 3 after the ante and
    # "completes" all in to 3.
    hand = base_hand([(2, "complete")], stacks=(100, 4, 100), stakes=SMALL4)
    assert hand.to_act == 3
    assert legal_kinds(hand) == ["fold", "call", "complete"]
    assert legal(hand, "call")[:2] == (3, 3)
    assert legal(hand, "complete")[:2] == (4, 4)
    hand.complete(3)
    assert legal_kinds(hand) == ["fold", "call", "raise"]
    assert legal(hand, "raise")[:2] == (8, 8)


def test_short_completion_does_not_reopen_for_a_caller() -> None:
    # Seat 2 calls the bring-in (2); seat 3 completes all in to 3. The
    # bring-in has not acted yet and may complete; seat 2 may only call.
    actions: list[Action] = [(2, "call"), (3, "complete")]
    hand = base_hand(actions, stacks=(100, 100, 4), stakes=SMALL4)
    assert hand.to_act == 1
    assert legal_kinds(hand) == ["fold", "call", "complete"]
    hand.call(1)
    assert hand.to_act == 2
    assert legal_kinds(hand) == ["fold", "call"]


def test_short_all_in_raise_does_not_count_toward_the_cap() -> None:
    # Seats 1-4, button 4; seat 1 shows Ah Kd (best) on fourth and is first.
    # Seat 4 (2c, bring-in) has 7 left on fourth street.
    deck = slot_deck(["?? ?? Ah Kd", "?? ?? Kc 7d", "?? ?? Qc 8d", "?? ?? 2c 9s"])
    third: list[Action] = [(1, "call"), (2, "call"), (3, "call"), (4, "check")]
    fourth: list[Action] = [(1, "bet"), (2, "raise"), (3, "raise"), (4, "raise")]
    seats = {1: 100, 2: 100, 3: 100, 4: 9}
    hand = hand_after("house", seats=seats, button=4, deck=deck, actions=third + fourth)
    # Bet 2, raises to 4 and 6, seat 4 short to 7: seat 1 may still make the
    # third raise, to 6 + 2 = 8.
    assert hand.to_act == 1 and hand.current_bet == 7
    assert legal(hand, "raise")[:2] == (8, 8)
    hand.raise_to(1)
    assert hand.to_act == 2
    assert legal_kinds(hand) == ["fold", "call"]


def test_an_all_in_reaching_a_full_size_counts_as_a_full_raise() -> None:
    # Seat 3 has exactly 4 on fourth street and raises all in to 4 (2 + 2).
    actions = [*THIRD_CALLS, (2, "bet"), (3, "raise"), (1, "call")]
    out = refused(base(actions, stacks=(100, 100, 6)), "INCOMPLETE", 6)
    assert out["to_act"] == {"seat": 2, "legal": ["fold", "call", "raise"]}


# ---------------------------------------------------------------- side pots


def test_side_pot_and_an_uncalled_bet_returned() -> None:
    s1 = "Ac Ad 9c As 4h 6s 8d"  # three aces
    s2 = "Kc Kd Qh Qs 7h 7c 3c"  # kings and queens, shows QQ from fourth on
    s3 = "Jc Jd 2c 5d 8h Ts 9d"  # bring-in (2c)
    deck = slot_deck([s1, s2, s3])
    actions: list[Action] = [
        (1, "call"),  # all in: 2 - ante 1 - 1
        (2, "complete"),
        (3, "call"),
        (2, "bet"), (3, "call"),  # fourth
        (2, "check"), (3, "check"),
        (2, "check"), (3, "check"),
        (2, "bet"), (3, "fold"),  # seventh: nobody can match seat 2's 4
    ]  # fmt: skip
    out = ok(run("house", seats={1: 2, 2: 100, 3: 100}, button=3, deck=deck, actions=actions))
    assert out["bring_in"] == {"seat": 3, "card": "2c", "amount": 1}
    assert out["first_to_act"] == {"third": 1, "fourth": 2, "fifth": 2, "sixth": 2, "seventh": 2}
    assert out["returned"] == {"2": 4}
    # Contributions 2, 5 (after the return), 5: main 3 x 2, side 3 + 3.
    assert out["pots"] == [
        {"amount": 6, "eligible": [1, 2], "winners": [1], "awards": {"1": 6}},
        {"amount": 6, "eligible": [2], "winners": [2], "awards": {"2": 6}},
    ]
    assert out["final_stacks"] == {"1": 6, "2": 101, "3": 95}
    assert set(out["shown"]) == {"1", "2"}
    assert out["hands"]["1"]["category"] == "three_of_a_kind"
    assert out["hands"]["2"]["category"] == "two_pair"
    assert ranks(out["hands"]["2"]["cards"]) == ranks(["Kc", "Kd", "Qh", "Qs", "7h"])


def test_two_side_pots_each_to_its_best_eligible_hand() -> None:
    s1 = "Ac Ad 3c 4d 6h 8s Ah"  # three aces
    s2 = "Kc Kd 5c 7d 9h Js Kh"  # three kings
    s3 = "Qc Qd Qh Ts 2d 3h 4c"  # three queens, Q-high showing: first from fourth on
    s4 = "Jc Jd 2c 5d 7s 9c Th"  # a pair of jacks; 2c brings in
    deck = slot_deck([s1, s2, s3, s4])
    actions: list[Action] = [
        (1, "call"),  # all in for 1 (stack 2)
        (2, "complete"),  # to 2, 1 left
        (3, "raise"),  # to 4
        (4, "call"),
        (2, "call"),  # all in: bet 3
    ]
    actions += [(3, "check"), (4, "check")] * 4
    seats = {1: 2, 2: 4, 3: 100, 4: 100}
    out = ok(run("house", seats=seats, button=4, deck=deck, actions=actions))
    # Contributions 2, 4, 5, 5.
    assert out["pots"] == [
        {"amount": 8, "eligible": [1, 2, 3, 4], "winners": [1], "awards": {"1": 8}},
        {"amount": 6, "eligible": [2, 3, 4], "winners": [2], "awards": {"2": 6}},
        {"amount": 2, "eligible": [3, 4], "winners": [3], "awards": {"3": 2}},
    ]
    assert out["final_stacks"] == {"1": 8, "2": 6, "3": 97, "4": 95}
    assert out["first_to_act"] == {"third": 1, "fourth": 3, "fifth": 3, "sixth": 3, "seventh": 3}


def test_cards_dealt_out_without_betting_when_one_player_can_bet() -> None:
    # Heads-up, seat 2 has 6: ante, call 1, bet 2 on fourth, then calls all in
    # for 2 against a 4 bet on fifth. Sixth and seventh have no betting.
    deck = slot_deck([S1, S2])
    actions: list[Action] = [
        (2, "call"), (1, "check"),
        (2, "bet"), (1, "call"),
        (2, "check"), (1, "bet"), (2, "call"),
    ]  # fmt: skip
    out = ok(run("house", seats={1: 100, 2: 6}, button=2, deck=deck, actions=actions))
    assert out["first_to_act"] == {"third": 2, "fourth": 2, "fifth": 2}
    assert out["returned"] == {"1": 2}
    assert out["pots"] == [{"amount": 12, "eligible": [1, 2], "winners": [2], "awards": {"2": 12}}]
    assert out["final_stacks"] == {"1": 94, "2": 12}
    assert out["shown"] == {"1": S1.split(), "2": S2.split()}


# ---------------------------------------------------------------- hand's end


def test_win_by_folds_one_pot_nothing_shown() -> None:
    out = ok(base([(2, "call"), (3, "fold"), (1, "check"), (2, "bet"), (1, "fold")]))
    # Contributions 2, 4, 1: seat 2's 2 over seat 1's 2 is returned.
    assert out["returned"] == {"2": 2}
    assert out["pots"] == [{"amount": 5, "eligible": [2], "winners": [2], "awards": {"2": 5}}]
    assert out["shown"] == {} and out["hands"] == {}
    assert out["final_stacks"] == {"1": 98, "2": 103, "3": 99}
    assert out["first_to_act"] == {"third": 2, "fourth": 2}


def test_split_pot_odd_chip_to_first_winner_left_of_button_suits_ignored() -> None:
    # Button 1: dealing order 2 (p0), 3 (p1), 1 (p2). Seats 3 and 1 hold
    # A K Q J 9 in different suits; seat 2 folds after his ante.
    s2 = "8c 8d Kc"
    s3 = "Jc 9s Qh As Kd 4d 3c"
    s1 = "Jh 9c Qd Ah Ks 4h 3s"
    deck = slot_deck([s2, s3, s1])
    # Qd < Qh < Kc: seat 1 brings in; seat 2 folds, seat 3 calls, seat 1 checks.
    # Equal showing hands every street: seat 3 is nearer the button's left.
    actions: list[Action] = [(2, "fold"), (3, "call"), (1, "check")]
    actions += [(3, "check"), (1, "check")] * 4
    out = ok(run("house", seats={1: 100, 2: 100, 3: 100}, button=1, deck=deck, actions=actions))
    assert out["first_to_act"] == {"third": 2, "fourth": 3, "fifth": 3, "sixth": 3, "seventh": 3}
    # Pot 3 antes + 1 + 1 = 5: 2 each, the odd chip to seat 3 (first winner
    # clockwise from the button).
    assert out["pots"] == [
        {"amount": 5, "eligible": [1, 3], "winners": [1, 3], "awards": {"1": 2, "3": 3}}
    ]
    assert out["final_stacks"] == {"1": 100, "2": 99, "3": 101}
    for seat in ("1", "3"):
        assert out["hands"][seat]["category"] == "high_card"
        assert ranks(out["hands"][seat]["cards"]) == ranks(split("A K Q J 9"))


@pytest.mark.parametrize(
    ("button", "order", "first", "awards"),
    [
        # Winners 2, 3, 5 split 8: 2 each and two odd chips, one at a time
        # from the first winner left of the button.
        (5, [1, 2, 3, 4, 5], 2, {"2": 3, "3": 3, "5": 2}),
        (3, [4, 5, 1, 2, 3], 5, {"2": 3, "3": 2, "5": 3}),
    ],
)
def test_three_way_split_odd_chips_go_around_from_the_button(
    button: int, order: list[int], first: int, awards: dict[str, int]
) -> None:
    cards = {
        1: "Tc Td Kc",
        2: "Jc 9s Qh As Kd 4d 3c",
        3: "Jh 9c Qd Ah Ks 4h 3s",
        4: "Th Ts Ad",
        5: "Jd 9d Qc Ac Kh 4s 3h",
    }
    deck = slot_deck([cards[s] for s in order])
    # Qc is the lowest door: seat 5 brings in. Seats 1 and 4 fold.
    actions: list[Action] = [(1, "fold"), (2, "call"), (3, "call"), (4, "fold"), (5, "check")]
    actions += [(s, "check") for s in clockwise([2, 3, 5], first)] * 4
    seats = {s: 100 for s in range(1, 6)}
    out = ok(run("house", seats=seats, button=button, deck=deck, actions=actions))
    assert out["first_to_act"]["fourth"] == first
    assert out["pots"] == [
        {"amount": 8, "eligible": [2, 3, 5], "winners": [2, 3, 5], "awards": awards}
    ]


def test_timeout_checks_when_free_otherwise_folds() -> None:
    actions: list[Action] = [
        (2, "call"), (3, "call"),
        (1, "timeout"),  # the bring-in's last turn: a check
        (2, "timeout"),  # fourth street, nothing owed: check
        (3, "bet"),
        (1, "timeout"),  # facing a bet: fold
        (2, "timeout"),
    ]  # fmt: skip
    out = ok(base(actions))
    assert out["first_to_act"] == {"third": 2, "fourth": 2}
    assert out["returned"] == {"3": 2}
    assert out["pots"] == [{"amount": 6, "eligible": [3], "winners": [3], "awards": {"3": 6}}]
    assert out["final_stacks"] == {"1": 98, "2": 98, "3": 104}


# ---------------------------------------------------------------- outputs


def test_not_your_turn() -> None:
    out = refused(base([(3, "call")]), "NOT_YOUR_TURN", 0)
    assert out["to_act"] == {"seat": 2, "legal": ["fold", "call", "complete"]}


@pytest.mark.parametrize(
    ("actions", "index"),
    [
        ([(2, "check")], 0),  # check facing the bring-in
        ([(2, "raise")], 0),  # nothing to raise before the completion
        ([(2, "bet")], 0),
        ([(2, "complete", 4)], 0),  # the completion is to 2
        ([(2, "call"), (3, "call"), (1, "call")], 2),  # nothing to call
        ([*THIRD_CALLS, (2, "bet"), (3, "bet")], 4),  # a bet is already in
        ([*THIRD_CALLS, (2, "raise")], 3),
        ([*THIRD_CALLS, (2, "bet", 3)], 3),
        ([*THIRD_CALLS, (2, "show")], 3),  # house has no show/muck decisions
    ],
)
def test_illegal_action(actions: list[Action], index: int) -> None:
    refused(base(actions), "ILLEGAL_ACTION", index)


def test_incomplete_reports_the_seat_to_act() -> None:
    out = refused(base([(2, "call")]), "INCOMPLETE", 1)
    assert out["to_act"] == {"seat": 3, "legal": ["fold", "call", "complete"]}
    out = refused(base([]), "INCOMPLETE", 0)
    assert out["to_act"] == {"seat": 2, "legal": ["fold", "call", "complete"]}


def test_hand_over() -> None:
    refused(base([(2, "fold"), (3, "fold"), (1, "check")]), "HAND_OVER", 2)


def test_deck_exhausted_in_the_first_deal_has_no_action_index() -> None:
    # Heads-up slot dealing needs deck[15] for the second door card.
    deck = slot_deck(["Kc Kd 2c", "Ac Ad 9c"], fill=False)[:15]
    out = refused(
        run("house", seats={1: 100, 2: 100}, button=2, deck=deck, actions=[(2, "fold")]),
        "DECK_EXHAUSTED",
        None,
    )
    assert out["to_act"] is None


def test_deck_exhausted_later_names_the_action() -> None:
    # The deck stops after fourth street (index 22); fifth street needs 28.
    deck = slot_deck(["Kc Kd 2c 3d", "Ac Ad As Ah"], fill=False)
    assert len(deck) == 23
    actions: list[Action] = [(2, "call"), (1, "check"), (2, "check"), (1, "check")]
    refused(
        run("house", seats={1: 100, 2: 100}, button=2, deck=deck, actions=actions),
        "DECK_EXHAUSTED",
        3,
    )


def test_refused_action_changes_nothing() -> None:
    hand = base_hand([(2, "call")])
    before = (hand.to_act, [(p.stack, p.bet) for p in hand.players], len(hand.events))
    with pytest.raises(ActionRefused) as refusal:
        hand.check(3)
    assert refusal.value.code is RefusalCode.ILLEGAL_ACTION
    with pytest.raises(ActionRefused) as refusal:
        hand.call(1)
    assert refusal.value.code is RefusalCode.NOT_YOUR_TURN
    after = (hand.to_act, [(p.stack, p.bet) for p in hand.players], len(hand.events))
    assert after == before


def test_nobody_left_to_bet_against_after_the_antes() -> None:
    # Seat 2's ante puts him all in: no betting round has a decision.
    deck = slot_deck([S1, S2])
    out = ok(run("house", seats={1: 100, 2: 1}, button=2, deck=deck, actions=[]))
    assert out["first_to_act"] == {}
    assert out["pots"] == [{"amount": 2, "eligible": [1, 2], "winners": [2], "awards": {"2": 2}}]
    assert out["final_stacks"] == {"1": 99, "2": 2}


def test_first_asked_on_third_skips_a_player_all_in_on_his_ante() -> None:
    # Seat 2 has only his ante: seat 3 is the first asked after the bring-in,
    # and from fourth street on (seat 2's A-K is best but all in).
    actions: list[Action] = [(3, "call"), (1, "check")] + [(3, "check"), (1, "check")] * 4
    out = ok(base(actions, stacks=(100, 1, 100)))
    assert out["first_to_act"] == {"third": 3, "fourth": 3, "fifth": 3, "sixth": 3, "seventh": 3}
    # Main pot 1 from each (four aces); side pot 1 + 1 (kings over queens).
    assert out["pots"] == [
        {"amount": 3, "eligible": [1, 2, 3], "winners": [2], "awards": {"2": 3}},
        {"amount": 2, "eligible": [1, 3], "winners": [1], "awards": {"1": 2}},
    ]
    assert out["final_stacks"] == {"1": 100, "2": 3, "3": 98}


def test_a_bet_of_the_whole_stack_is_an_all_in_bet() -> None:
    # Seat 2 has 3 left on fourth street (small bet 4): "to": 3 is his all in.
    out = refused(
        base([*THIRD_CALLS, (2, "bet", 3)], stacks=(100, 6, 100), stakes=SMALL4), "INCOMPLETE", 4
    )
    assert out["to_act"] == {"seat": 3, "legal": ["fold", "call", "raise"]}
