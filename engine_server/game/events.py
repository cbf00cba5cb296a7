"""Everything that happens in a hand, as frozen events.

A :class:`~engine_server.game.hand.Hand` appends one event per change to its
``events`` list. They drive the live table views (after redaction by
:mod:`engine_server.game.views`) and the hand record. Card fields hold the
real card; views decide who may see it.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine_server.game.actions import ActionKind
from engine_server.game.cards import Card
from engine_server.game.evaluation import HandCategory, best_high_five, best_low_five
from engine_server.game.profiles import Street

__all__ = [
    "ActionTaken",
    "AntePosted",
    "BetReturned",
    "BringInPosted",
    "CardBurned",
    "CardDealt",
    "CommunityCardDealt",
    "Event",
    "HandCancelled",
    "HandEnded",
    "HandMucked",
    "HandShown",
    "HandStarted",
    "PotAwarded",
    "ProtectionApplied",
    "RakeTaken",
    "StreetStarted",
    "StubReshuffled",
]


@dataclass(frozen=True, slots=True)
class HandStarted:
    button: int
    #: seats dealt in, in dealing order (dealing position 0 first)
    dealing_order: tuple[int, ...]
    stacks: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class AntePosted:
    seat: int
    amount: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class CardBurned:
    card: Card
    deck_index: int
    street: Street


@dataclass(frozen=True, slots=True)
class StubReshuffled:
    """Burned cards went back into the stub (a short-deck rule)."""

    street: Street
    stub_size: int


@dataclass(frozen=True, slots=True)
class CardDealt:
    seat: int
    card: Card
    up: bool
    street: Street
    deck_index: int


@dataclass(frozen=True, slots=True)
class CommunityCardDealt:
    card: Card
    street: Street
    deck_index: int


@dataclass(frozen=True, slots=True)
class StreetStarted:
    street: Street
    #: the first seat asked, or ``None`` when the street has no betting
    first_to_act: int | None


@dataclass(frozen=True, slots=True)
class BringInPosted:
    seat: int
    card: Card
    amount: int
    all_in: bool
    completed: bool


@dataclass(frozen=True, slots=True)
class ActionTaken:
    seat: int
    kind: ActionKind
    #: chips the action moved from the stack into the pot
    amount: int
    #: the seat's bet on this street after the action
    to: int
    all_in: bool
    by_timeout: bool = False


@dataclass(frozen=True, slots=True)
class ProtectionApplied:
    """The clock ran out and the seat is now treated as all in (all-in protection)."""

    seat: int
    contributed: int


@dataclass(frozen=True, slots=True)
class BetReturned:
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class HandShown:
    """A hand turned over at the showdown: the seat's own cards in dealing order.

    The category and best five (and, high-low, the best low) are derived from
    the cards and the community cards when asked for: the showdown itself only
    needs the hands' strengths.
    """

    seat: int
    cards: tuple[Card, ...]
    community: tuple[Card, ...] = ()
    hi_lo: bool = False

    @property
    def category(self) -> HandCategory:
        return best_high_five(self.cards + self.community)[0]

    @property
    def best_five(self) -> tuple[Card, ...]:
        return tuple(best_high_five(self.cards + self.community)[1])

    @property
    def low_five(self) -> tuple[Card, ...] | None:
        if not self.hi_lo:
            return None
        low = best_low_five(self.cards + self.community)
        return tuple(low) if low else None


@dataclass(frozen=True, slots=True)
class HandMucked:
    seat: int


@dataclass(frozen=True, slots=True)
class RakeTaken:
    amount: int


@dataclass(frozen=True, slots=True)
class PotAwarded:
    index: int
    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    awards: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class HandEnded:
    final_stacks: tuple[tuple[int, int], ...]
    won_by_fold: bool


@dataclass(frozen=True, slots=True)
class HandCancelled:
    """Every chip put in went back; the stacks are those the hand started with."""

    final_stacks: tuple[tuple[int, int], ...]


Event = (
    HandStarted
    | AntePosted
    | CardBurned
    | StubReshuffled
    | CardDealt
    | CommunityCardDealt
    | StreetStarted
    | BringInPosted
    | ActionTaken
    | ProtectionApplied
    | BetReturned
    | HandShown
    | HandMucked
    | RakeTaken
    | PotAwarded
    | HandEnded
    | HandCancelled
)
