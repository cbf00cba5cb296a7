"""What the history endpoints answer: a player's hands and one hand, redacted for him.

Every card in these shapes is one the caller may see (docs/rules.md §2.12): up cards, his own
down cards unless he folded, and the cards shown at the showdown. A card he may not see
is never sent, not even masked with its deck position.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

__all__ = [
    "HandPage",
    "HandSummary",
    "HandView",
    "MyCard",
    "SeatView",
]


class HandSummary(msgspec.Struct, kw_only=True):
    """One line of GET /hands."""

    hand_id: str
    #: The table's id.
    table: str
    hand_number: int
    started_at: datetime
    #: None while the hand runs.
    ended_at: datetime | None
    #: running, complete or cancelled.
    state: str
    my_seat: int
    #: His final stack minus his start stack (None while the hand runs; 0 when cancelled).
    my_result: int | None


class HandPage(msgspec.Struct, kw_only=True):
    """GET /hands: newest first; pass ``next_page_token`` back for more ("" on the last page)."""

    hands: list[HandSummary]
    next_page_token: str


class SeatView(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A seat dealt into the hand.

    ``player_id`` is given for the caller's own seat only: other players are known to him by
    the name they sat down with.
    """

    seat: int
    start_stack: int
    #: None while the hand runs.
    final_stack: int | None
    display_name: str | None = None
    player_id: str | None = None


class MyCard(msgspec.Struct, kw_only=True):
    """One of the caller's cards, in dealing order.

    ``card`` and ``deck_index`` are None for a down card of a hand he folded: folded cards
    are never shown, not even to the player who folded them (docs/rules.md §2.12).
    """

    card: str | None
    up: bool
    street: str | None
    deck_index: int | None


class HandView(msgspec.Struct, kw_only=True):
    """GET /hands/{hand_id}: the hand as the caller may see it."""

    hand_id: str
    table: str
    hand_number: int
    state: str
    started_at: datetime
    ended_at: datetime | None
    cancel_reason: str | None
    profile: str
    #: ante, bring_in, small_bet, big_bet.
    stakes: dict[str, int]
    button: int
    seats: list[SeatView]
    my_seat: int
    my_cards: list[MyCard]
    #: Every seat's up cards in dealing order, by seat number ("3": ["7c", "Kd"]); folded
    #: seats keep the up cards they were dealt before folding (everyone saw them).
    up_cards: dict[str, list[str]]
    #: Face-up cards for everyone (short deck only; usually empty).
    community_cards: list[str]
    #: Every card of each hand turned over at the showdown, by seat number, in dealing order.
    shown: dict[str, list[str]]
    #: The betting and showdown decisions in order (no cards in them).
    actions: list[dict[str, Any]]
    pots: list[dict[str, Any]]
    rake: int | None
    #: The engine's result with only what the caller may see (None while running or when
    #: cancelled).
    result: dict[str, Any] | None
