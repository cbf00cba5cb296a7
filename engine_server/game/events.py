"""Everything that happens in a hand, as frozen events.

A :class:`~engine_server.game.hand.Hand` appends one event per change to its
``events`` list. They drive the live table views (after redaction by
:mod:`engine_server.game.views`) and the hand record. Card fields hold the
real card; views decide who may see it.

Each event writes its own ``__init__`` with ``object.__setattr__`` and a
literal field name: mypyc compiles that to a direct store (about 60 ns an
event), where the ``__init__`` a frozen dataclass generates runs as Python
and costs about 2 µs, the largest share of a hand's time when every card
dealt and every action is an event. Run uncompiled, it is the usual way to
set a frozen dataclass's fields.
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


@dataclass(frozen=True, slots=True, init=False)
class HandStarted:
    button: int
    #: seats dealt in, in dealing order (dealing position 0 first)
    dealing_order: tuple[int, ...]
    stacks: tuple[tuple[int, int], ...]

    def __init__(
        self, button: int, dealing_order: tuple[int, ...], stacks: tuple[tuple[int, int], ...]
    ) -> None:
        object.__setattr__(self, "button", button)
        object.__setattr__(self, "dealing_order", dealing_order)
        object.__setattr__(self, "stacks", stacks)


@dataclass(frozen=True, slots=True, init=False)
class AntePosted:
    seat: int
    amount: int
    all_in: bool

    def __init__(self, seat: int, amount: int, all_in: bool) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "all_in", all_in)


@dataclass(frozen=True, slots=True, init=False)
class CardBurned:
    card: Card
    deck_index: int
    street: Street

    def __init__(self, card: Card, deck_index: int, street: Street) -> None:
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "deck_index", deck_index)
        object.__setattr__(self, "street", street)


@dataclass(frozen=True, slots=True, init=False)
class StubReshuffled:
    """Burned cards went back into the stub (a short-deck rule)."""

    street: Street
    stub_size: int

    def __init__(self, street: Street, stub_size: int) -> None:
        object.__setattr__(self, "street", street)
        object.__setattr__(self, "stub_size", stub_size)


@dataclass(frozen=True, slots=True, init=False)
class CardDealt:
    seat: int
    card: Card
    up: bool
    street: Street
    deck_index: int

    def __init__(self, seat: int, card: Card, up: bool, street: Street, deck_index: int) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "up", up)
        object.__setattr__(self, "street", street)
        object.__setattr__(self, "deck_index", deck_index)


@dataclass(frozen=True, slots=True, init=False)
class CommunityCardDealt:
    card: Card
    street: Street
    deck_index: int

    def __init__(self, card: Card, street: Street, deck_index: int) -> None:
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "street", street)
        object.__setattr__(self, "deck_index", deck_index)


@dataclass(frozen=True, slots=True, init=False)
class StreetStarted:
    street: Street
    #: the first seat asked, or ``None`` when the street has no betting
    first_to_act: int | None

    def __init__(self, street: Street, first_to_act: int | None) -> None:
        object.__setattr__(self, "street", street)
        object.__setattr__(self, "first_to_act", first_to_act)


@dataclass(frozen=True, slots=True, init=False)
class BringInPosted:
    seat: int
    card: Card
    amount: int
    all_in: bool
    completed: bool

    def __init__(self, seat: int, card: Card, amount: int, all_in: bool, completed: bool) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "all_in", all_in)
        object.__setattr__(self, "completed", completed)


@dataclass(frozen=True, slots=True, init=False)
class ActionTaken:
    seat: int
    kind: ActionKind
    #: chips the action moved from the stack into the pot
    amount: int
    #: the seat's bet on this street after the action
    to: int
    all_in: bool
    by_timeout: bool = False

    def __init__(
        self,
        seat: int,
        kind: ActionKind,
        amount: int,
        to: int,
        all_in: bool,
        by_timeout: bool = False,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "to", to)
        object.__setattr__(self, "all_in", all_in)
        object.__setattr__(self, "by_timeout", by_timeout)


@dataclass(frozen=True, slots=True, init=False)
class ProtectionApplied:
    """The clock ran out and the seat is now treated as all in (all-in protection)."""

    seat: int
    contributed: int

    def __init__(self, seat: int, contributed: int) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "contributed", contributed)


@dataclass(frozen=True, slots=True, init=False)
class BetReturned:
    seat: int
    amount: int

    def __init__(self, seat: int, amount: int) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "amount", amount)


@dataclass(frozen=True, slots=True, init=False)
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

    def __init__(
        self,
        seat: int,
        cards: tuple[Card, ...],
        community: tuple[Card, ...] = (),
        hi_lo: bool = False,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "community", community)
        object.__setattr__(self, "hi_lo", hi_lo)

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


@dataclass(frozen=True, slots=True, init=False)
class HandMucked:
    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True, init=False)
class RakeTaken:
    amount: int

    def __init__(self, amount: int) -> None:
        object.__setattr__(self, "amount", amount)


@dataclass(frozen=True, slots=True, init=False)
class PotAwarded:
    index: int
    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    awards: tuple[tuple[int, int], ...]

    def __init__(
        self,
        index: int,
        amount: int,
        eligible: tuple[int, ...],
        winners: tuple[int, ...],
        awards: tuple[tuple[int, int], ...],
    ) -> None:
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "eligible", eligible)
        object.__setattr__(self, "winners", winners)
        object.__setattr__(self, "awards", awards)


@dataclass(frozen=True, slots=True, init=False)
class HandEnded:
    final_stacks: tuple[tuple[int, int], ...]
    won_by_fold: bool

    def __init__(self, final_stacks: tuple[tuple[int, int], ...], won_by_fold: bool) -> None:
        object.__setattr__(self, "final_stacks", final_stacks)
        object.__setattr__(self, "won_by_fold", won_by_fold)


@dataclass(frozen=True, slots=True, init=False)
class HandCancelled:
    """Every chip put in went back; the stacks are those the hand started with."""

    final_stacks: tuple[tuple[int, int], ...]

    def __init__(self, final_stacks: tuple[tuple[int, int], ...]) -> None:
        object.__setattr__(self, "final_stacks", final_stacks)


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
