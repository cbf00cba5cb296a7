"""Hand evaluation: high hands, eight-or-better lows and showing hands.

Cards are the ints of :mod:`engine_server.game.cards`.

**High hands.** :func:`evaluate_high` scores the best five-card hand among five
to seven cards (the C extension :mod:`engine_server.game._evaluator` does the
work). The score is an ``int``, larger = better, equal = tie::

    category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

``category`` is the index of the :class:`HandCategory` (0 high card … 8
straight flush) and ``r1 … r5`` are the ranks (0 deuce … 12 ace) of the five
cards in significance order: sets before kickers, larger sets first, higher
before lower. A full house of kings over sevens is ``K K K 7 7``; two pair is
``high high low low kicker``. A straight lists its ranks from the top down;
in the wheel 5-4-3-2-A the ace plays low and is listed last (``3 2 1 0 12``),
and since straights are decided by ``r1`` alone the wheel ranks below the
six-high straight.

**Low hands** (eight or better, for high-low split) are scored by
:func:`evaluate_low8`, where *smaller* is better; **showing hands** (who acts
first from fourth street on) by :func:`showing_strength`.

>>> from engine_server.game.cards import parse_cards
>>> wheel = evaluate_high(parse_cards(["5d", "4c", "3h", "2s", "Ac"]))
>>> six_high = evaluate_high(parse_cards(["6d", "5d", "4c", "3h", "2s"]))
>>> category_of(wheel), wheel < six_high
(<HandCategory.STRAIGHT: 'straight'>, True)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import StrEnum
from itertools import combinations
from typing import Final

from engine_server.game._evaluator import evaluate as _c_evaluate
from engine_server.game.cards import Card

__all__ = [
    "HandCategory",
    "best_high_five",
    "best_low_five",
    "category_of",
    "evaluate_high",
    "evaluate_low8",
    "showing_key_of",
    "showing_strength",
    "strength_of_showing_key",
]


class HandCategory(StrEnum):
    """The nine high-hand categories, weakest first (the order is the score's)."""

    HIGH_CARD = "high_card"
    ONE_PAIR = "one_pair"
    TWO_PAIR = "two_pair"
    THREE_OF_A_KIND = "three_of_a_kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    FULL_HOUSE = "full_house"
    FOUR_OF_A_KIND = "four_of_a_kind"
    STRAIGHT_FLUSH = "straight_flush"


_CATEGORIES: Final[tuple[HandCategory, ...]] = tuple(HandCategory)
_CATEGORY_SHIFT: Final = 20
_RANK_SHIFTS: Final = (16, 12, 8, 4, 0)


def evaluate_high(cards: Sequence[Card]) -> int:
    """Score the best five-card high hand among 5 to 7 distinct cards.

    Raises ``ValueError`` for a wrong number of cards, a non-card or a repeated
    card. See the module docstring for the encoding.

    >>> from engine_server.game.cards import parse_cards
    >>> trips = evaluate_high(parse_cards(["9c", "9d", "9h", "Ks", "2c"]))
    >>> two_pair = evaluate_high(parse_cards(["Ac", "Ad", "Kh", "Ks", "Qc", "Jd", "2c"]))
    >>> hex(trips), hex(two_pair), trips > two_pair
    ('0x3777b0', '0x2ccbba', True)
    """
    # A plain call into C: this sits on the engine's hot path.
    return _c_evaluate(cards)


def category_of(strength: int) -> HandCategory:
    """The category of a score from :func:`evaluate_high`.

    >>> from engine_server.game.cards import parse_cards
    >>> category_of(evaluate_high(parse_cards(["Ah", "Kh", "Qh", "Jh", "Th", "2c"])))
    <HandCategory.STRAIGHT_FLUSH: 'straight_flush'>
    """
    return _CATEGORIES[strength >> _CATEGORY_SHIFT]


def best_high_five(cards: Sequence[Card]) -> tuple[HandCategory, list[Card]]:
    """The category and the five cards of the best high hand among 5 to 7 cards.

    The five cards come most significant first, in the order of the score
    (sets, then kickers high to low; a wheel ends with its ace). Among cards of
    equal rank the higher suit comes first, so the answer does not depend on the
    order of ``cards``.

    >>> from engine_server.game.cards import format_cards, parse_cards
    >>> category, five = best_high_five(parse_cards(["Kd", "7s", "Kh", "2c", "7c", "Kc", "9d"]))
    >>> category, format_cards(five)
    (<HandCategory.FULL_HOUSE: 'full_house'>, ['Kh', 'Kd', 'Kc', '7s', '7c'])
    >>> category, five = best_high_five(parse_cards(["As", "2d", "3d", "4h", "5c", "9d", "Kd"]))
    >>> category, format_cards(five)
    (<HandCategory.STRAIGHT: 'straight'>, ['5c', '4h', '3d', '2d', 'As'])
    """
    strength = _c_evaluate(cards)
    category = _CATEGORIES[strength >> _CATEGORY_SHIFT]
    pool = sorted(cards, reverse=True)
    if category is HandCategory.FLUSH or category is HandCategory.STRAIGHT_FLUSH:
        # With at most seven cards only one suit can hold five of them, and the
        # flush must be drawn from it even when other suits share its ranks.
        suit = Counter(card & 3 for card in pool).most_common(1)[0][0]
        pool = [card for card in pool if card & 3 == suit]
    five: list[Card] = []
    for shift in _RANK_SHIFTS:
        rank = (strength >> shift) & 15
        for index, card in enumerate(pool):
            if card >> 2 == rank:
                five.append(pool.pop(index))
                break
    return category, five


# --- Eight-or-better low ---------------------------------------------------

# Low ranks count the ace as one: ace 0, deuce 1, … eight 7; nines and up have
# no low rank.
_LOW_RANK_OF_CARD: Final[tuple[int, ...]] = tuple(((card >> 2) + 1) % 13 for card in range(52))


def _low8_value(mask: int) -> int | None:
    """Score of the best low in a mask of low ranks (bit ``l`` = low rank ``l``)."""
    if mask.bit_count() < 5:
        return None
    value = 0
    taken = 0
    # The five smallest ranks make the best low; they are packed highest first
    # so that comparing ints compares from the top card down.
    for low in range(8):
        if mask >> low & 1 and taken < 5:
            value |= low << (4 * taken)
            taken += 1
    return value


# Every set of low ranks fits in a byte, so all 256 answers are precomputed.
_LOW8_BY_MASK: Final[tuple[int | None, ...]] = tuple(_low8_value(mask) for mask in range(256))


def evaluate_low8(cards: Sequence[Card]) -> int | None:
    """Score the best eight-or-better low among ``cards``; ``None`` if none qualifies.

    A low is five cards of different ranks, eight or lower, aces low; straights
    and flushes do not count against it. *Smaller is better*: the score packs
    the five low ranks (ace 0, deuce 1, … eight 7) highest first, four bits
    each, so hands compare from the highest card down. The best low,
    5-4-3-2-A, scores ``0x43210``.

    >>> from engine_server.game.cards import parse_cards
    >>> hex(evaluate_low8(parse_cards(["5h", "4h", "3h", "2h", "Ah", "Kc", "Kd"])))
    '0x43210'
    >>> a = evaluate_low8(parse_cards(["8c", "6d", "4h", "3s", "2c"]))
    >>> b = evaluate_low8(parse_cards(["8d", "7c", "3h", "2s", "Ac"]))
    >>> a < b
    True
    >>> evaluate_low8(parse_cards(["8c", "8d", "4h", "3s", "2c", "Kc", "Kd"])) is None
    True
    """
    mask = 0
    for card in cards:
        mask |= 1 << _LOW_RANK_OF_CARD[card]
    return _LOW8_BY_MASK[mask & 0xFF]


def best_low_five(cards: Sequence[Card]) -> list[Card] | None:
    """The five cards of the best eight-or-better low, highest first; ``None`` if none.

    Among cards of equal rank the higher suit is chosen.

    >>> from engine_server.game.cards import format_cards, parse_cards
    >>> format_cards(best_low_five(parse_cards(["7c", "Ad", "3h", "Ks", "2c", "3c", "6d"])))
    ['7c', '6d', '3h', '2c', 'Ad']
    """
    value = evaluate_low8(cards)
    if value is None:
        return None
    chosen: dict[int, Card] = {}
    for card in cards:
        low = _LOW_RANK_OF_CARD[card]
        if low < 8 and chosen.get(low, -1) < card:
            chosen[low] = card
    return [chosen[(value >> shift) & 15] for shift in _RANK_SHIFTS]


# --- Showing hands ---------------------------------------------------------

_SHOWING_MAX_CARDS: Final = 4
_SHOWING_CATEGORY_SHIFT: Final = 16


def showing_strength(up_cards: Sequence[Card]) -> int:
    """Score the up cards that decide who acts first on fourth to seventh street.

    For 0 to 4 up cards, larger = better: four of a kind > three of a kind >
    two pair > one pair > high card. Within a category the sets compare first
    (the higher pair first for two pair), then the kickers from the highest
    down. Straights and flushes do not count and suits never do, so equal
    showings score equal ints (seat order breaks those ties elsewhere).

    The score is ``category << 16`` plus four 4-bit slots holding ``rank + 1``
    of the cards in significance order, empty slots 0. Showings with different
    numbers of cards never meet in play; if compared, the one that runs out of
    cards first loses a tie on the common cards.

    >>> from engine_server.game.cards import parse_cards
    >>> pair = showing_strength(parse_cards(["7c", "7d", "Ah", "Ks"]))
    >>> ace_king = showing_strength(parse_cards(["Ac", "Kd", "Qh", "Js"]))
    >>> pair > ace_king
    True
    >>> showing_strength(parse_cards(["Qc", "Jc"])) == showing_strength(parse_cards(["Qd", "Jh"]))
    True
    """
    if len(up_cards) > _SHOWING_MAX_CARDS:
        raise ValueError(f"a showing hand has at most 4 cards ({len(up_cards)} given)")
    key = 0
    for card in up_cards:
        key += showing_key_of(card)
    return strength_of_showing_key(key)


def showing_key_of(card: Card) -> int:
    """What ``card`` adds to the key of the up cards it joins.

    Only the ranks of a showing hand matter: its key counts the cards of each
    rank, three bits a rank (at most four cards), so it is the sum of its
    cards' parts in any order and a hand can keep it up to date card by card.

    >>> from engine_server.game.cards import parse_cards
    >>> pair = parse_cards(["7c", "7d"])
    >>> strength_of_showing_key(sum(map(showing_key_of, pair))) == showing_strength(pair)
    True
    """
    return 1 << 3 * (card >> 2)


def strength_of_showing_key(key: int) -> int:
    """:func:`showing_strength` of the up cards whose parts (:func:`showing_key_of`) sum to ``key``."""
    # There are few rank multisets: score each once.
    score = _SHOWING_SCORES.get(key)
    if score is None:
        score = _SHOWING_SCORES[key] = _showing_score(key)
    return score


_SHOWING_SCORES: Final[dict[int, int]] = {}


def _showing_score(key: int) -> int:
    counts = {rank: key >> 3 * rank & 7 for rank in range(13) if key >> 3 * rank & 7}
    if sum(counts.values()) > _SHOWING_MAX_CARDS:
        raise ValueError(f"a showing hand has at most 4 cards (key {key:#x})")
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    shape = [count for _, count in groups]
    if shape[:1] == [4]:
        category = 4
    elif shape[:1] == [3]:
        category = 3
    elif shape[:2] == [2, 2]:
        category = 2
    elif shape[:1] == [2]:
        category = 1
    else:
        category = 0
    value = category
    slots = 0
    for rank, count in groups:
        for _ in range(count):
            value = value << 4 | (rank + 1)
            slots += 1
    return value << (4 * (_SHOWING_MAX_CARDS - slots))


# --- Reference --------------------------------------------------------------


def _reference_five(five: Sequence[Card]) -> int:
    """Straightforward score of exactly five cards, in :func:`evaluate_high`'s encoding."""
    counts = Counter(card >> 2 for card in five)
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    ordered = [rank for rank, count in groups for _ in range(count)]
    shape = [count for _, count in groups]
    flush = len({card & 3 for card in five}) == 1
    straight = False
    if len(counts) == 5:
        if ordered[0] - ordered[4] == 4:
            straight = True
        elif ordered == [12, 3, 2, 1, 0]:
            straight = True
            ordered = [3, 2, 1, 0, 12]
    if straight and flush:
        category = HandCategory.STRAIGHT_FLUSH
    elif shape == [4, 1]:
        category = HandCategory.FOUR_OF_A_KIND
    elif shape == [3, 2]:
        category = HandCategory.FULL_HOUSE
    elif flush:
        category = HandCategory.FLUSH
    elif straight:
        category = HandCategory.STRAIGHT
    elif shape == [3, 1, 1]:
        category = HandCategory.THREE_OF_A_KIND
    elif shape == [2, 2, 1]:
        category = HandCategory.TWO_PAIR
    elif shape == [2, 1, 1, 1]:
        category = HandCategory.ONE_PAIR
    else:
        category = HandCategory.HIGH_CARD
    value = _CATEGORIES.index(category)
    for rank in ordered:
        value = value << 4 | rank
    return value


def _reference_high(cards: Sequence[Card]) -> int:
    """Slow pure-Python :func:`evaluate_high`, for cross-checking the C code.

    >>> from engine_server.game.cards import parse_cards
    >>> hand = parse_cards(["Ac", "Ad", "Kh", "Ks", "Qc", "Jd", "2c"])
    >>> _reference_high(hand) == evaluate_high(hand)
    True
    """
    if not 5 <= len(cards) <= 7 or len(set(cards)) != len(cards):
        raise ValueError("need 5 to 7 distinct cards")
    return max(_reference_five(five) for five in combinations(cards, 5))
