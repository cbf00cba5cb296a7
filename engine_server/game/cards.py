"""Cards as small integers.

A card is an ``int`` from 0 to 51 in the canonical order of docs/fairness.md §2.3,
``2c 2d 2h 2s 3c … As``: ``rank * 4 + suit``, with ranks 0 (deuce) to 12 (ace)
and suits 0 to 3 for clubs, diamonds, hearts and spades. That order is also the
bring-in order of docs/rules.md §2.4 (rank first, then clubs < diamonds < hearts <
spades), so the lowest door card is simply the smallest integer.

>>> parse_card("As")
51
>>> format_card(0)
'2c'
>>> [format_card(c) for c in parse_cards(["Td", "2c"])]
['Td', '2c']
>>> rank_of(parse_card("Kh")), suit_of(parse_card("Kh"))
(11, 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, TypeAlias

__all__ = [
    "CANONICAL_DECK",
    "RANKS",
    "SUITS",
    "Card",
    "CardError",
    "format_card",
    "format_cards",
    "is_card_text",
    "parse_card",
    "parse_cards",
    "rank_of",
    "suit_of",
]

Card: TypeAlias = int

RANKS: Final = "23456789TJQKA"
SUITS: Final = "cdhs"

CANONICAL_DECK: Final[tuple[Card, ...]] = tuple(range(52))

_TEXT: Final[tuple[str, ...]] = tuple(rank + suit for rank in RANKS for suit in SUITS)
_BY_TEXT: Final[dict[str, Card]] = {text: card for card, text in enumerate(_TEXT)}


class CardError(ValueError):
    """A text that does not name a card."""


def is_card_text(text: object) -> bool:
    """Whether ``text`` is a card's name such as ``"Ah"``."""
    return isinstance(text, str) and text in _BY_TEXT


def parse_card(text: str) -> Card:
    """The card a two-character name such as ``"Ah"`` or ``"Td"`` stands for."""
    try:
        return _BY_TEXT[text]
    except (KeyError, TypeError):
        raise CardError(f"not a card: {text!r}") from None


def parse_cards(texts: Iterable[str]) -> list[Card]:
    """Parse several card names, keeping their order."""
    return [parse_card(text) for text in texts]


def format_card(card: Card) -> str:
    """The two-character name of ``card``."""
    return _TEXT[card]


def format_cards(cards: Sequence[Card]) -> list[str]:
    """The names of ``cards``, in order."""
    return [_TEXT[card] for card in cards]


def rank_of(card: Card) -> int:
    """The card's rank, 0 (deuce) to 12 (ace)."""
    return card >> 2


def suit_of(card: Card) -> int:
    """The card's suit, 0 to 3 for clubs, diamonds, hearts and spades."""
    return card & 3
