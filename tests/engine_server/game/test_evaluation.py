"""Tests for engine_server.game.evaluation and the C evaluator behind it."""

from __future__ import annotations

import doctest
import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations, pairwise

import eval7
import pytest
import treys
from pokerkit import EightOrBetterLowHand

from engine_server.game import _evaluator
from engine_server.game.cards import Card, format_cards, parse_cards, rank_of, suit_of
from engine_server.game.evaluation import (
    HandCategory,
    _reference_high,
    best_high_five,
    best_low_five,
    category_of,
    evaluate_high,
    evaluate_low8,
    showing_strength,
)

C = HandCategory


def high(text: str) -> int:
    return evaluate_high(parse_cards(text.split()))


def low(text: str) -> int | None:
    return evaluate_low8(parse_cards(text.split()))


def showing(text: str) -> int:
    return showing_strength(parse_cards(text.split()))


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def random_hands(seed: int, count: int, size: int = 7) -> list[list[Card]]:
    rng = random.Random(seed)
    return [rng.sample(range(52), size) for _ in range(count)]


# --- High hands: categories and encoding ------------------------------------------

CATEGORY_EXAMPLES = [
    ("Ah Kh Qh Jh Th", C.STRAIGHT_FLUSH, [12, 11, 10, 9, 8]),
    ("5s 4s 3s 2s As", C.STRAIGHT_FLUSH, [3, 2, 1, 0, 12]),  # steel wheel
    ("9c 9d 9h 9s Kd", C.FOUR_OF_A_KIND, [7, 7, 7, 7, 11]),
    ("Kd Kh Kc 7s 7c", C.FULL_HOUSE, [11, 11, 11, 5, 5]),
    ("Ac 9c 7c 4c 2c", C.FLUSH, [12, 7, 5, 2, 0]),
    ("Tc 9d 8h 7s 6c", C.STRAIGHT, [8, 7, 6, 5, 4]),
    ("Ac Kd Qh Js Tc", C.STRAIGHT, [12, 11, 10, 9, 8]),
    ("5c 4d 3h 2s Ac", C.STRAIGHT, [3, 2, 1, 0, 12]),  # wheel
    ("Qc Qd Qh 5s 3c", C.THREE_OF_A_KIND, [10, 10, 10, 3, 1]),
    ("Jc Jd 4h 4s Ac", C.TWO_PAIR, [9, 9, 2, 2, 12]),
    ("8c 8d Ah Ks 2c", C.ONE_PAIR, [6, 6, 12, 11, 0]),
    ("Ac Qd 9h 6s 3c", C.HIGH_CARD, [12, 10, 7, 4, 1]),
]


@pytest.mark.parametrize(("text", "category", "ranks"), CATEGORY_EXAMPLES)
def test_every_category_and_its_encoding(
    text: str, category: HandCategory, ranks: list[int]
) -> None:
    strength = high(text)
    assert category_of(strength) is category
    expected = list(C).index(category)
    for rank in ranks:
        expected = expected << 4 | rank
    assert strength == expected
    assert strength == _reference_high(parse_cards(text.split()))


def test_categories_rank_in_order() -> None:
    strengths = [high(text) for text, _, _ in CATEGORY_EXAMPLES]
    categories = [category_of(s) for s in strengths]
    order = list(C)
    for (s1, c1), (s2, c2) in combinations(zip(strengths, categories, strict=True), 2):
        if c1 is not c2:
            assert sign(s1 - s2) == sign(order.index(c1) - order.index(c2))


def test_hand_category_values() -> None:
    assert [c.value for c in C] == [
        "high_card",
        "one_pair",
        "two_pair",
        "three_of_a_kind",
        "straight",
        "flush",
        "full_house",
        "four_of_a_kind",
        "straight_flush",
    ]


def test_wheel_is_the_lowest_straight() -> None:
    wheel = high("5c 4d 3h 2s Ac")
    assert wheel < high("6c 5d 4h 3s 2c") < high("Ac Kd Qh Js Tc")
    assert wheel > high("Ac Ad Ah Ks Qc")  # still beats trips
    steel = high("5s 4s 3s 2s As")
    assert steel < high("6s 5s 4s 3s 2s")
    assert steel > high("Ac Ad Ah As Kc")


def test_wheel_is_not_taken_over_a_higher_straight() -> None:
    assert high("Ac 2d 3h 4s 5c 6d Kh") == high("6d 5c 4s 3h 2d")


def test_kickers_decide() -> None:
    assert high("Ac Ad Kh Qs Jc") > high("Ac Ad Kh Qs Tc")
    assert high("Ac Ad Kh Qs 3c") > high("Kc Kd Ah Qs Jc")
    assert high("Jc Jd 4h 4s Ac") > high("Jc Jd 4h 4s Kc")
    assert high("Jc Jd 4h 4s 2c") > high("Tc Td 9h 9s Ac")
    assert high("Jc Jd 4h 4s 2c") > high("Jc Jd 3h 3s Ac")
    assert high("Qc Qd Qh 5s 4c") > high("Qc Qd Qh 5s 3c")
    assert high("9c 9d 9h 9s Kd") > high("9c 9d 9h 9s Qd")
    assert high("Kd Kh Kc 2s 2c") > high("Qd Qh Qc As Ac")
    assert high("Kd Kh Kc 8s 8c") > high("Kd Kh Kc 7s 7c")
    assert high("Ac 9c 7c 4c 3c") > high("Ac 9c 7c 4c 2c")
    assert high("Ac Qd 9h 6s 3c") > high("Ac Qd 9h 5s 4c")


def test_ties_are_equal_whatever_the_suits() -> None:
    assert high("Ac Qd 9h 6s 3c") == high("As Qh 9c 6d 3s")
    assert high("Ah Kh Qh Jh Th") == high("As Ks Qs Js Ts")
    assert high("Jc Jd 4h 4s Ac 2c 3d") == high("Jh Js 4c 4d As 2d 3c")
    # Only the best five play: the sixth and seventh cards cannot split a tie.
    assert high("Ac Ad Ah Ks Qc 3d 2c") == high("Ac Ad Ah Ks Qc 4d 2h")


def test_five_six_and_seven_cards() -> None:
    assert category_of(high("Ac Ad Ah Ks Qc")) is C.THREE_OF_A_KIND
    assert category_of(high("Ac Ad Ah Ks Qc Kd")) is C.FULL_HOUSE
    assert category_of(high("Ac Ad Ah Ks Qc Kd As")) is C.FOUR_OF_A_KIND
    # Two trips: the lower set plays as the pair.
    assert high("7c 7d 7h 5s 5c 5d Ac") == high("7c 7d 7h 5s 5c")
    # Three pairs: the third pair's card can still be the kicker.
    assert high("Kc Kd 8h 8s 6c 6d 2c") == high("Kc Kd 8h 8s 6c")
    assert high("Kc Kd 8h 8s 2c 2d Ac") == high("Kc Kd 8h 8s Ac")
    # Six or seven suited cards: the five highest make the flush.
    assert high("Ac 9c 7c 4c 3c 2c Kd") == high("Ac 9c 7c 4c 3c")
    # A straight flush inside a longer flush.
    assert high("9h 8h 7h 6h 5h 2h Ah") == high("9h 8h 7h 6h 5h")
    # A straight and a flush, but no straight flush.
    assert category_of(high("9h 8h 7h 6h 2h 5c Kd")) is C.FLUSH


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError):
        evaluate_high([0, 1, 2, 3])
    with pytest.raises(ValueError):
        evaluate_high(list(range(8)))
    with pytest.raises(ValueError):
        evaluate_high([0, 1, 2, 3, 52])
    with pytest.raises(ValueError):
        evaluate_high([0, 1, 2, 3, -1])
    with pytest.raises(ValueError):
        evaluate_high([0, 1, 2, 3, 3])
    with pytest.raises(TypeError):
        evaluate_high(["As", "Ks", "Qs", "Js", "Ts"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        _evaluator.evaluate7(0, 1, 2, 3, 4, 5)  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        _evaluator.evaluate7(0, 1, 2, 3, 4, 5, 5)


def test_evaluate7_and_tuples_agree_with_evaluate() -> None:
    for hand in random_hands(7, 2_000):
        assert _evaluator.evaluate7(*hand) == evaluate_high(hand) == evaluate_high(tuple(hand))


# --- High hands: cross-checks -------------------------------------------------------


def test_c_matches_reference_on_random_seven_card_hands() -> None:
    seen: Counter[HandCategory] = Counter()
    for hand in random_hands(2024, 20_000):
        strength = evaluate_high(hand)
        assert strength == _reference_high(hand), format_cards(hand)
        seen[category_of(strength)] += 1
    # Random deals miss straight flushes and rarely give quads; cover them below.
    assert set(seen) >= set(C) - {C.STRAIGHT_FLUSH}


def test_c_matches_reference_on_five_and_six_cards() -> None:
    for size in (5, 6):
        for hand in random_hands(size, 5_000, size):
            assert evaluate_high(hand) == _reference_high(hand)


def _hands_of_each_category(seed: int, per_category: int) -> list[list[Card]]:
    """Seven-card hands built around a five-card core of each category."""
    rng = random.Random(seed)
    hands = []
    for _ in range(per_category):
        suit = rng.randrange(4)
        top = rng.randrange(3, 13)
        run = [(top - i) % 13 for i in range(5)]  # top == 3 gives the wheel
        rank_a, rank_b = rng.sample(range(13), 2)
        cores = [
            [rank * 4 + suit for rank in run],  # straight flush
            [rank_a * 4 + s for s in range(4)],  # quads
            [rank_a * 4 + s for s in rng.sample(range(4), 3)]
            + [rank_b * 4 + s for s in rng.sample(range(4), 2)],  # full house
            [rank * 4 + suit for rank in rng.sample(range(13), 5)],  # flush (or better)
            [rank * 4 + rng.randrange(4) for rank in run],  # straight (or better)
            [rank_a * 4 + s for s in rng.sample(range(4), 3)],  # trips
        ]
        for core in cores:
            rest = [card for card in range(52) if card not in core]
            hands.append(core + rng.sample(rest, 7 - len(core)))
    return hands


def test_c_matches_reference_in_every_category() -> None:
    seen: Counter[HandCategory] = Counter()
    for hand in _hands_of_each_category(99, 400):
        strength = evaluate_high(hand)
        assert strength == _reference_high(hand), format_cards(hand)
        seen[category_of(strength)] += 1
    strong = {
        C.STRAIGHT_FLUSH,
        C.FOUR_OF_A_KIND,
        C.FULL_HOUSE,
        C.FLUSH,
        C.STRAIGHT,
        C.THREE_OF_A_KIND,
    }
    assert set(seen) >= strong
    assert min(seen[category] for category in strong) >= 20


def test_all_five_card_hands_have_the_known_frequencies() -> None:
    strengths = [evaluate_high(hand) for hand in combinations(range(52), 5)]
    counts = Counter(category_of(s) for s in strengths)
    assert counts == {
        C.STRAIGHT_FLUSH: 40,
        C.FOUR_OF_A_KIND: 624,
        C.FULL_HOUSE: 3_744,
        C.FLUSH: 5_108,
        C.STRAIGHT: 10_200,
        C.THREE_OF_A_KIND: 54_912,
        C.TWO_PAIR: 123_552,
        C.ONE_PAIR: 1_098_240,
        C.HIGH_CARD: 1_302_540,
    }
    # Exactly the 7,462 classes of equal five-card hands.
    assert len(set(strengths)) == 7_462


def _treys_cards(hand: Sequence[Card]) -> list[int]:
    return [treys.Card.new(text) for text in format_cards(hand)]


def test_ordering_agrees_with_treys() -> None:
    evaluator = treys.Evaluator()
    hands = random_hands(5, 20_001) + _hands_of_each_category(6, 200)
    ours = [evaluate_high(hand) for hand in hands]
    theirs = []
    for hand in hands:
        converted = _treys_cards(hand)
        theirs.append(evaluator.evaluate(converted[:2], converted[2:]))
    for i in range(len(hands) - 1):
        # treys ranks 1 (royal flush) to 7462: smaller is better.
        assert sign(ours[i] - ours[i + 1]) == sign(theirs[i + 1] - theirs[i]), (
            format_cards(hands[i]),
            format_cards(hands[i + 1]),
        )


def test_ordering_agrees_with_eval7() -> None:
    hands = random_hands(8, 20_001) + _hands_of_each_category(9, 200)
    ours = [evaluate_high(hand) for hand in hands]
    theirs = [eval7.evaluate([eval7.Card(text) for text in format_cards(hand)]) for hand in hands]
    for i in range(len(hands) - 1):
        assert sign(ours[i] - ours[i + 1]) == sign(theirs[i] - theirs[i + 1])


# --- best_high_five -----------------------------------------------------------------


def test_best_high_five_examples() -> None:
    def best(text: str) -> tuple[HandCategory, list[str]]:
        category, five = best_high_five(parse_cards(text.split()))
        return category, format_cards(five)

    assert best("Qc 5d Qd 2h Qh 9s 3c") == (C.THREE_OF_A_KIND, ["Qh", "Qd", "Qc", "9s", "5d"])
    assert best("As 2d 3d 4h 5c 9d Kd") == (C.STRAIGHT, ["5c", "4h", "3d", "2d", "As"])
    assert best("5s 4s 3s 2s As Ad 9d") == (C.STRAIGHT_FLUSH, ["5s", "4s", "3s", "2s", "As"])
    # The flush must come from its suit although other suits hold higher ranks.
    assert best("Ac Kc 9h 7h 5h 3h 2h") == (C.FLUSH, ["9h", "7h", "5h", "3h", "2h"])
    assert best("Kd Kh 8s 8c 6c 6d Ac") == (C.TWO_PAIR, ["Kh", "Kd", "8s", "8c", "Ac"])
    assert best("9c 9d 9h 9s Kd Kh Kc") == (C.FOUR_OF_A_KIND, ["9s", "9h", "9d", "9c", "Kh"])


def test_best_high_five_is_a_subset_scoring_the_same() -> None:
    hands = random_hands(11, 5_000) + _hands_of_each_category(12, 100)
    for hand in hands:
        category, five = best_high_five(hand)
        assert len(five) == 5
        assert set(five) <= set(hand)
        assert evaluate_high(five) == evaluate_high(hand)
        assert category is category_of(evaluate_high(hand))
        # Significance order: the ranks read back the score's r1..r5.
        strength = evaluate_high(hand)
        assert [rank_of(c) for c in five] == [(strength >> s) & 15 for s in (16, 12, 8, 4, 0)]


def test_best_high_five_ignores_input_order() -> None:
    rng = random.Random(13)
    for hand in random_hands(14, 500):
        shuffled = hand[:]
        rng.shuffle(shuffled)
        assert best_high_five(hand) == best_high_five(shuffled)


# --- Eight-or-better low ------------------------------------------------------------


def test_low_qualifying_and_not() -> None:
    assert low("8c 7d 6h 5s 4c") is not None
    assert low("9c 7d 6h 5s 4c") is None
    assert low("8c 7d 6h 5s 4c 9d Kh") is not None
    assert low("Kc Qd Jh Ts 9c 8d 7h") is None
    assert low("Ac 2d 3h 4s") is None  # four cards only


def test_low_pairs_counterfeit() -> None:
    # Seven cards, but only four different low ranks.
    assert low("Ac Ad 2h 2s 3c 4d Kh") is None
    assert low("Ac Ad 2h 3s 4c 4d 8h") == low("8h 4c 3s 2h Ac")
    # A pair falls back on the next low card.
    assert low("Ac 2d 3h 3s 4c 7d Kh") == low("7d 4c 3h 2d Ac")


def test_low_aces_count_low_and_straights_flushes_do_not_matter() -> None:
    assert low("5h 4h 3h 2h Ah") == 0x43210  # the best low, although a straight flush
    assert low("5h 4h 3h 2h Ah") == low("5c 4d 3h 2s Ac")
    assert low("Ac 2d 3h 4s 6c") is not None
    assert low("Kc 2d 3h 4s 6c") is None  # a king is no low card


def test_low_ordering() -> None:
    ordered = [
        "5c 4d 3h 2s Ac",
        "6c 4d 3h 2s Ac",
        "6c 5d 3h 2s Ac",
        "6c 5d 4h 3s 2c",
        "7c 4d 3h 2s Ac",
        "7c 6d 5h 4s 2c",
        "8c 4d 3h 2s Ac",
        "8c 6d 4h 3s 2c",
        "8c 7d 3h 2s Ac",
        "8c 7d 6h 5s 4c",
    ]
    values = [low(text) for text in ordered]
    assert all(v is not None for v in values)
    assert values == sorted(values)  # type: ignore[type-var]
    assert len(set(values)) == len(values)
    # The best five are kept from seven cards.
    assert low("8c 7d 6h 5s 4c 3d 2h") == low("6h 5s 4c 3d 2h")


def test_low_agrees_with_pokerkit() -> None:
    hands = random_hands(21, 1_500)
    # Bias towards low cards so that most hands qualify.
    rng = random.Random(22)
    small_cards = list(range(32)) + list(range(48, 52))  # aces to nines
    hands += [rng.sample(small_cards, 7) for _ in range(1_500)]
    ours = [evaluate_low8(hand) for hand in hands]
    theirs = [EightOrBetterLowHand.from_game_or_none("".join(format_cards(hand))) for hand in hands]
    assert sum(v is not None for v in ours) > 1_000
    for a, b in zip(ours, theirs, strict=True):
        assert (a is None) == (b is None)
    qualifying = [(a, b) for a, b in zip(ours, theirs, strict=True) if a is not None]
    for (a1, b1), (a2, b2) in pairwise(qualifying):
        assert b1 is not None and b2 is not None
        # pokerkit: the greater hand is the better low; ours: the smaller int.
        assert sign(a2 - a1) == (b1 > b2) - (b1 < b2)


def test_best_low_five() -> None:
    def best(text: str) -> list[str] | None:
        five = best_low_five(parse_cards(text.split()))
        return None if five is None else format_cards(five)

    assert best("7c Ad 3h Ks 2c 3c 6d") == ["7c", "6d", "3h", "2c", "Ad"]
    assert best("Ac Ad 2h 2s 3c 4d Kh") is None
    assert best("8c 7d 6h 5s 4c 3d 2h") == ["6h", "5s", "4c", "3d", "2h"]
    for hand in random_hands(31, 3_000):
        five = best_low_five(hand)
        value = evaluate_low8(hand)
        assert (five is None) == (value is None)
        if five is not None:
            assert set(five) <= set(hand)
            assert len({rank_of(c) for c in five}) == 5
            assert evaluate_low8(five) == value
            low_ranks = [(rank_of(c) + 1) % 13 for c in five]
            assert low_ranks == sorted(low_ranks, reverse=True)


# --- Showing hands ------------------------------------------------------------------


def test_showing_every_category_in_order() -> None:
    ordered = [
        "Kc Qd Jh 9s",
        "Ac Kd Qh Js",
        "2c 2d 3h 4s",
        "2c 2d Ah Ks",
        "Ac Ad 3h 4s",
        "Ac Ad Kh Qs",
        "3c 3d 2h 2s",
        "Kc Kd 2h 2s",
        "Kc Kd Qh Qs",
        "Ac Ad 2h 2s",
        "2c 2d 2h As",
        "Ac Ad Ah 2s",
        "Ac Ad Ah Ks",
        "2c 2d 2h 2s",
        "Ac Ad Ah As",
    ]
    values = [showing(text) for text in ordered]
    assert values == sorted(values)
    assert len(set(values)) == len(values)


def test_showing_with_fewer_cards() -> None:
    assert showing("") == 0
    assert showing("Ac") > showing("Kc")
    assert showing("2c 2d") > showing("Ac Kd")
    assert showing("Ac Qd") > showing("Ac Jd")
    assert showing("Ac Ad Ah") > showing("Kc Kd Kh")
    assert showing("7c 7d Ah") > showing("7c 7d Kh")
    assert showing("7c 7d 2h") > showing("6c 6d Ah")
    assert showing("Ac Kd 2h") > showing("Ac Qd Jh")
    assert showing("Ac Kd 3h") > showing("Ac Kd 2h")


def test_showing_suits_never_count() -> None:
    assert showing("Ac Kd") == showing("As Kh")
    assert showing("9c 9d 4h") == showing("9h 9s 4c")
    assert showing("Jc Jd 5h 5s") == showing("Jh Js 5c 5d")
    for hand in random_hands(41, 500, 4):
        # The same ranks in other suits; the showing order is irrelevant too.
        moved = [rank_of(c) * 4 + (suit_of(c) + 1) % 4 for c in reversed(hand)]
        assert showing_strength(hand) == showing_strength(moved)


def test_showing_ignores_straights_and_flushes() -> None:
    assert showing("9c 8c 7c 6c") == showing("9d 8h 7s 6c")
    assert showing("9c 8c 7c 6c") < showing("2c 2d 3h 4s")
    assert showing("5c 4d 3h 2s") < showing("6c 4d 3h 2s")
    assert showing("Ac Kc Qc Jc") < showing("2c 2d 3h 4s")


def test_showing_equal_hands_are_equal_and_refuses_five_cards() -> None:
    for hand in random_hands(42, 2_000, 4):
        for size in range(5):
            part = hand[:size]
            assert showing_strength(part) == showing_strength(sorted(part))
    with pytest.raises(ValueError):
        showing("Ac Kd Qh Js Tc")


def test_showing_agrees_with_brute_force_order() -> None:
    def key(up: Sequence[Card]) -> tuple[int, list[tuple[int, int]]]:
        counts = Counter(rank_of(c) for c in up)
        shape = sorted(counts.values(), reverse=True)
        category = {4: 4, 3: 3}.get(shape[0], 0) if shape else 0
        if shape[:2] == [2, 2]:
            category = 2
        elif shape[:1] == [2]:
            category = 1
        return category, sorted(((n, r) for r, n in counts.items()), reverse=True)

    for hand_a, hand_b in zip(random_hands(43, 3_000, 4), random_hands(44, 3_000, 4), strict=True):
        a, b = showing_strength(hand_a), showing_strength(hand_b)
        ka, kb = key(hand_a), key(hand_b)
        assert sign(a - b) == (ka > kb) - (ka < kb)


# --- Doctests -----------------------------------------------------------------------


@pytest.mark.parametrize("module", [_evaluator])
def test_doctests(module: object) -> None:
    # The Python modules' examples run from source in test_docs.py.
    result = doctest.testmod(module, raise_on_error=False)  # type: ignore[arg-type]
    assert result.failed == 0
    assert result.attempted > 0
