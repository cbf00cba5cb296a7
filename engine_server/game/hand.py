"""The hand state machine: one hand of Seven-Card Stud from the antes to the pots.

A :class:`Hand` is built with everything that fixes a hand (rules, stakes,
seats, button, deck) and at once posts the antes, deals third street and
posts a forced bring-in. Then it waits for the seat in :attr:`Hand.to_act`.
Each action comes as a ``can_x()`` / ``x()`` pair (or :meth:`Hand.act`): an
illegal one raises :class:`~engine_server.game.actions.ActionRefused` and
changes nothing; a legal one appends events to :attr:`Hand.events` and moves
the hand on to the next decision, dealing streets and settling pots by itself.

>>> from engine_server.game.cards import parse_cards
>>> from engine_server.game.profiles import PROFILES, Stakes
>>> deck = parse_cards("Kh Qs As Ah Ad Ks Kc Kd Js Qh Qd Qc Jh Jd 7c 4h Jc Ts".split())
>>> hand = Hand(PROFILES["house"], Stakes(1, 1, 2, 4), [(3, 100), (5, 100)], button=5, deck=deck)
>>> hand.to_act, [str(a.kind) for a in hand.legal_actions()]
(3, ['fold', 'call', 'complete'])
>>> hand.fold(3)
>>> hand.is_over, hand.result().final_stacks
(True, {3: 99, 5: 101})
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from engine_server.game.actions import ActionKind, ActionRefused, LegalAction, RefusalCode
from engine_server.game.cards import Card
from engine_server.game.evaluation import (
    HandCategory,
    evaluate_high,
    evaluate_low8,
    showing_key_of,
    strength_of_showing_key,
)
from engine_server.game.events import (
    ActionTaken,
    AntePosted,
    BetReturned,
    BringInPosted,
    CardBurned,
    CardDealt,
    CommunityCardDealt,
    Event,
    HandCancelled,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    PotAwarded,
    ProtectionApplied,
    RakeTaken,
    StreetStarted,
    StubReshuffled,
)
from engine_server.game.fairness import FairnessStream, shuffle
from engine_server.game.pots import layer_pots
from engine_server.game.profiles import (
    BringInMode,
    Dealing,
    Rake,
    RuleSettings,
    ShortDeckRule,
    ShowdownRule,
    Stakes,
    Street,
    TimeoutRule,
)

__all__ = [
    "BringIn",
    "DeckExhausted",
    "Hand",
    "HandResult",
    "Phase",
    "PlayerState",
    "PotResult",
    "ShownHand",
]

_STREETS = tuple(Street)
#: the actions whose "to" may exceed the stack (they go all in for it)
_SIZED = frozenset(
    {ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE, ActionKind.CALL, ActionKind.BRING_IN}
)
_FOLD: Final = ActionKind.FOLD
_CHECK: Final = ActionKind.CHECK
_CALL: Final = ActionKind.CALL
#: legal actions that never change (they are frozen, so every decision can share them)
_FOLD_ACTION: Final = LegalAction(ActionKind.FOLD)
_CHECK_ACTION: Final = LegalAction(ActionKind.CHECK, 0, 0)


class DeckExhausted(Exception):
    """The deck ran out of cards (only an explicit short deck can do this)."""


class Phase(StrEnum):
    BRING_IN = "bring_in"  # the bring-in chooses the size of his forced bet
    BETTING = "betting"
    SHOWDOWN = "showdown"  # ordered showdown: show or muck in turn
    COMPLETE = "complete"
    CANCELLED = "cancelled"


@dataclass(slots=True, eq=False, init=False)
class PlayerState:
    """One seat dealt into the hand."""

    seat: int
    position: int
    stack: int
    start_stack: int
    cards: list[Card] = field(default_factory=list)
    up: list[bool] = field(default_factory=list)
    bet: int = 0
    contributed: int = 0
    round_contributed: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])
    folded: bool = False
    all_in: bool = False
    protected: bool = False
    acted: bool = False
    shown: bool = False
    mucked: bool = False
    #: still able to put chips in: not folded, not all in, not protected (kept as a
    #: field because every decision asks it of every seat)
    active: bool = True
    up_list: list[Card] = field(default_factory=list)
    #: the up cards' key for :func:`~engine_server.game.evaluation.strength_of_showing_key`,
    #: kept up to date as they are dealt
    showing_key: int = 0
    #: the best high hand's score, once the showdown needed it (-1 before)
    high: int = -1

    def __init__(self, seat: int, position: int, stack: int, start_stack: int) -> None:
        # Written out: mypyc compiles it to direct stores, where the dataclass's own
        # __init__ (with its default factories) runs as Python, about 1.7 µs a seat.
        self.seat = seat
        self.position = position
        self.stack = stack
        self.start_stack = start_stack
        self.cards = []
        self.up = []
        self.bet = 0
        self.contributed = 0
        self.round_contributed = [0, 0, 0, 0, 0]
        self.folded = False
        self.all_in = False
        self.protected = False
        self.acted = False
        self.shown = False
        self.mucked = False
        self.active = True
        self.up_list = []
        self.showing_key = 0
        self.high = -1

    @property
    def can_bet(self) -> bool:
        """Still able to put chips in: not folded, not all in, not protected."""
        return self.active

    @property
    def up_cards(self) -> list[Card]:
        return list(self.up_list)

    @property
    def down_cards(self) -> list[Card]:
        return [card for card, up in zip(self.cards, self.up, strict=True) if not up]


@dataclass(frozen=True, slots=True, init=False)
class BringIn:
    seat: int
    card: Card
    amount: int

    # The frozen dataclasses here set their fields with object.__setattr__ and literal
    # names: mypyc compiles that to direct stores (see engine_server.game.events).
    def __init__(self, seat: int, card: Card, amount: int) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "amount", amount)


@dataclass(frozen=True, slots=True, init=False)
class PotResult:
    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    awards: dict[int, int]

    def __init__(
        self,
        amount: int,
        eligible: tuple[int, ...],
        winners: tuple[int, ...],
        awards: dict[int, int],
    ) -> None:
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "eligible", eligible)
        object.__setattr__(self, "winners", winners)
        object.__setattr__(self, "awards", awards)


@dataclass(frozen=True, slots=True, init=False)
class ShownHand:
    """A shown hand's category, best five and (high-low) best low, derived when asked."""

    shown: HandShown

    def __init__(self, shown: HandShown) -> None:
        object.__setattr__(self, "shown", shown)

    @classmethod
    def of(cls, shown: HandShown) -> ShownHand:
        return cls(shown)

    @property
    def category(self) -> HandCategory:
        return self.shown.category

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.shown.best_five

    @property
    def low(self) -> tuple[Card, ...] | None:
        return self.shown.low_five


@dataclass(frozen=True, slots=True, init=False)
class HandResult:
    """What a finished hand came to (the output of docs/hand-scripts.md §4, as values)."""

    bring_in: BringIn | None
    first_to_act: dict[Street, int]
    community_cards: tuple[Card, ...]
    pots: tuple[PotResult, ...]
    returned: dict[int, int]
    rake: int
    shown: dict[int, tuple[Card, ...]]
    hands: dict[int, ShownHand]
    final_stacks: dict[int, int]
    won_by_fold: bool

    def __init__(
        self,
        bring_in: BringIn | None,
        first_to_act: dict[Street, int],
        community_cards: tuple[Card, ...],
        pots: tuple[PotResult, ...],
        returned: dict[int, int],
        rake: int,
        shown: dict[int, tuple[Card, ...]],
        hands: dict[int, ShownHand],
        final_stacks: dict[int, int],
        won_by_fold: bool,
    ) -> None:
        object.__setattr__(self, "bring_in", bring_in)
        object.__setattr__(self, "first_to_act", first_to_act)
        object.__setattr__(self, "community_cards", community_cards)
        object.__setattr__(self, "pots", pots)
        object.__setattr__(self, "returned", returned)
        object.__setattr__(self, "rake", rake)
        object.__setattr__(self, "shown", shown)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "final_stacks", final_stacks)
        object.__setattr__(self, "won_by_fold", won_by_fold)


def _lowest(values: tuple[int, ...]) -> int:
    """The smallest of ``values`` (the builtin min() is a slow call from compiled code)."""
    lowest = values[0]
    for value in values:
        if value < lowest:
            lowest = value
    return lowest


def _full_level(targets: tuple[int, ...], reached: int) -> int:
    """The largest of ``targets`` that ``reached`` attains (it attains the smallest).

    An all-in between two full sizes (an open pair's small and big bet on fourth street)
    counts as the full size below it: the next raise goes from that level (docs/rules.md §2.7).
    """
    level = targets[0]
    for value in targets:
        if level < value <= reached:
            level = value
    return level


def _best_showing(live: list[PlayerState]) -> PlayerState:
    """The best hand showing; between equal ones, the first from the button's left."""
    best = live[0]
    top = strength_of_showing_key(best.showing_key)
    for q in live:
        # ``live`` is in dealing order: only a strictly better hand takes the lead.
        strength = strength_of_showing_key(q.showing_key)
        if strength > top:
            best, top = q, strength
    return best


class Hand:
    """One hand of Seven-Card Stud under a rule profile."""

    def __init__(
        self,
        settings: RuleSettings,
        stakes: Stakes,
        seats: Iterable[tuple[int, int]],
        button: int,
        deck: Sequence[Card],
        *,
        stream: FairnessStream | None = None,
        rake: Rake | None = None,
        use_profile_rake: bool = True,
    ) -> None:
        """Start a hand: antes, third street, the forced bring-in.

        ``seats`` are ``(seat, stack)`` pairs; seats with no chips are not
        dealt in. ``deck`` is the deck in index order (docs/fairness.md §2 or a
        script's). ``stream`` continues the deck's fairness stream when a
        short-deck rule shuffles burned cards back; without it they go back
        in order. ``rake`` overrides the profile's rake.
        """
        self.settings = settings
        self.stakes = stakes
        self.button = button
        self.events: list[Event] = []
        self._deck = list(deck)
        self._stream = stream
        self._rake = rake if rake is not None or not use_profile_rake else settings.rake
        self._start_stacks = dict(seats)
        if button not in self._start_stacks:
            raise ValueError(f"button {button} is not at the table")
        order = sorted(self._start_stacks)
        # Dealing starts at the button's left: the first seat above it, wrapping.
        order = [s for s in order if s > button] + [s for s in order if s <= button]
        self.players: list[PlayerState] = []
        for seat in order:
            stack = self._start_stacks[seat]
            if stack < 0:
                raise ValueError(f"seat {seat} has a negative stack")
            if stack > 0:
                self.players.append(
                    PlayerState(
                        seat=seat, position=len(self.players), stack=stack, start_stack=stack
                    )
                )
        if len(self.players) < 2:
            raise ValueError("a hand needs at least two players with chips")
        if len(self.players) > settings.max_players:
            raise ValueError(
                f"{len(self.players)} players, the profile seats {settings.max_players}"
            )
        if settings.dealing is Dealing.SLOT and len(self.players) > 7:
            raise ValueError("slot dealing deals to at most seven players")
        self._by_seat = {p.seat: p for p in self.players}

        self.phase = Phase.BETTING
        self._over = False
        self.street = Street.THIRD
        self._round = 0  # the street's index, 0 for third street
        self._live = len(self.players)  # seats not folded
        self.to_act: int | None = None
        self._actor: PlayerState | None = None  # the player of to_act
        self.community: list[Card] = []
        self.bring_in_info: BringIn | None = None
        self.first_to_act: dict[Street, int] = {}
        self._top = 0  # next undealt card under top dealing
        # Deck indexes, top first: top dealing draws from it, slot dealing has no use for it.
        self._stub: list[int] = (
            list(range(len(self._deck))) if settings.dealing is Dealing.TOP else []
        )
        self._burned: list[int] = []
        # Betting-round state.
        self._current_to = 0
        self._last_full_to = 0
        self._full_bets = 0
        self._completed = False
        self._big_made = False
        self._aggressor: PlayerState | None = None
        self._round_first: PlayerState | None = None
        self._last_round_aggressor: PlayerState | None = None
        self._last_round_first: PlayerState | None = None
        self._bring_in_player: PlayerState | None = None
        self._result: HandResult | None = None
        self._showdown_order: list[PlayerState] = []
        self._cursor = 0  # dealing position of the last seat asked
        self._open_pair = False
        # The legal actions of the current decision, computed once per decision.
        self._legal_cache: tuple[LegalAction, ...] | None = None
        self._raise_targets: tuple[int, ...] = ()
        self._shown_events: list[HandShown] = []

        self.events.append(
            HandStarted(
                button=button,
                dealing_order=tuple(p.seat for p in self.players),
                stacks=tuple((p.seat, p.stack) for p in self.players),
            )
        )
        self._post_antes()
        self._start_street(0)
        self._advance()

    # ------------------------------------------------------------------ views

    @property
    def is_over(self) -> bool:
        return self._over

    def player(self, seat: int) -> PlayerState | None:
        return self._by_seat.get(seat)

    @property
    def pot_total(self) -> int:
        """Chips put in by everyone this hand (before returns and rake)."""
        return sum(p.contributed for p in self.players)

    @property
    def current_bet(self) -> int:
        return self._current_to

    @property
    def dealt_cards(self) -> list[tuple[int | None, Card, int]]:
        """``(seat or None for a community card, card, deck index)`` in dealing order."""
        dealt: list[tuple[int | None, Card, int]] = []
        for e in self.events:
            if isinstance(e, CardDealt):
                dealt.append((e.seat, e.card, e.deck_index))
            elif isinstance(e, CommunityCardDealt):
                dealt.append((None, e.card, e.deck_index))
        return dealt

    @property
    def burned_cards(self) -> list[tuple[Card, int]]:
        return [(e.card, e.deck_index) for e in self.events if isinstance(e, CardBurned)]

    def live_pots(self) -> list[tuple[int, tuple[int, ...]]]:
        """The pots as they stand now: ``(amount, eligible seats)``, main pot first.

        Only chips gathered from finished betting rounds (antes included) are in
        the pots; this street's bets stand in front of the players until the
        round ends. Nothing is returned yet.
        """
        live = [q for q in self.players if not q.folded]
        gathered = [q.contributed - q.bet for q in self.players]
        if len(live) == 1:
            return [(sum(gathered), (live[0].seat,))]
        live_gathered = [q.contributed - q.bet for q in live]
        # Players all in before this street split the pots; later all-ins only at its end.
        caps = [
            chips
            for q, chips in zip(live, live_gathered, strict=True)
            if (q.all_in or q.protected) and q.bet == 0
        ]
        return [
            (amount, tuple(sorted(live[i].seat for i in eligible)))
            for amount, eligible in layer_pots(gathered, live_gathered, caps)
        ]

    def result(self) -> HandResult:
        if self._result is None:
            raise RuntimeError("the hand is not over")
        return self._result

    # ---------------------------------------------------------------- actions

    def legal_actions(self) -> tuple[LegalAction, ...]:
        """The legal actions of the seat to act, in the order of docs/hand-scripts.md §5."""
        cached = self._legal_cache
        if cached is None:
            if self._actor is None:
                return ()
            cached = self._legal_cache = self._legal(self._actor)
        return cached

    def refusal(self, seat: int, kind: ActionKind, to: int | None = None) -> ActionRefused | None:
        """Why ``seat`` may not do ``kind`` now, or ``None`` when it may."""
        if self.is_over:
            return ActionRefused(RefusalCode.HAND_OVER, "the hand is over")
        if seat != self.to_act:
            return ActionRefused(
                RefusalCode.NOT_YOUR_TURN, f"seat {seat} acted, seat {self.to_act} is to act"
            )
        if kind is ActionKind.TIMEOUT:
            return None
        legal_now = self.legal_actions()
        for legal in legal_now:
            if legal.kind is kind:
                if (
                    to is None
                    or legal.allows(to)
                    or self._beyond_stack(seat, legal, to)
                    or (
                        kind is ActionKind.BRING_IN
                        and to == self.stakes.small_bet
                        and self.settings.bring_in is BringInMode.RANGE
                    )
                ):
                    return None
                sizes = legal.sizes or (legal.min_to, legal.max_to)
                return ActionRefused(
                    RefusalCode.ILLEGAL_ACTION,
                    f"seat {seat} cannot {kind} to {to} (legal: {', '.join(map(str, sizes))})",
                )
        legal_names = ", ".join(str(a.kind) for a in legal_now)
        return ActionRefused(
            RefusalCode.ILLEGAL_ACTION, f"seat {seat} cannot {kind} now (legal: {legal_names})"
        )

    def _beyond_stack(self, seat: int, legal: LegalAction, to: int) -> bool:
        """A bet, raise, call or bring-in larger than the stack is all in for the stack."""
        p = self._by_seat[seat]
        return legal.kind in _SIZED and legal.max_to == p.bet + p.stack and to > legal.max_to

    def can_act(self, seat: int, kind: ActionKind, to: int | None = None) -> bool:
        return self.refusal(seat, kind, to) is None

    def act(self, seat: int, kind: ActionKind, to: int | None = None) -> None:
        """Apply an action, or raise :class:`ActionRefused` and change nothing.

        ``to`` is the total the seat's bet on this street becomes (for
        ``bring_in`` its amount); ``None`` takes the fixed size.
        """
        player = self._actor
        if (
            player is not None
            and player.seat == seat
            and self.phase is Phase.BETTING
            and (kind is _FOLD or kind is _CHECK or kind is _CALL)
            and to is None
        ):
            # The common decisions need no list of legal actions to be checked.
            if kind is ActionKind.FOLD:
                self._legal_cache = None
                self._bet_action(player, kind, None)
                self._advance()
                return
            owes = player.bet < self._current_to
            if owes is (kind is ActionKind.CALL):
                self._legal_cache = None
                self._bet_action(player, kind, None)
                self._advance()
                return
        refused = self.refusal(seat, kind, to)
        if refused is not None:
            raise refused
        # refusal() let it through: the seat is the one to act.
        assert player is not None
        self._legal_cache = None
        if self.phase is Phase.SHOWDOWN:
            self._showdown_decision(player, show=kind is not ActionKind.MUCK)
        elif self.phase is Phase.BRING_IN:
            self._choose_bring_in(player, kind, to, by_timeout=kind is ActionKind.TIMEOUT)
        elif kind is ActionKind.TIMEOUT:
            self._timeout(player)
        else:
            self._bet_action(player, kind, to)
        self._advance()

    def fold(self, seat: int) -> None:
        self.act(seat, ActionKind.FOLD)

    def can_fold(self, seat: int) -> bool:
        return self.can_act(seat, ActionKind.FOLD)

    def check(self, seat: int) -> None:
        self.act(seat, ActionKind.CHECK)

    def can_check(self, seat: int) -> bool:
        return self.can_act(seat, ActionKind.CHECK)

    def call(self, seat: int) -> None:
        self.act(seat, ActionKind.CALL)

    def can_call(self, seat: int) -> bool:
        return self.can_act(seat, ActionKind.CALL)

    def bet(self, seat: int, to: int | None = None) -> None:
        self.act(seat, ActionKind.BET, to)

    def can_bet(self, seat: int, to: int | None = None) -> bool:
        return self.can_act(seat, ActionKind.BET, to)

    def raise_to(self, seat: int, to: int | None = None) -> None:
        self.act(seat, ActionKind.RAISE, to)

    def can_raise_to(self, seat: int, to: int | None = None) -> bool:
        return self.can_act(seat, ActionKind.RAISE, to)

    def complete(self, seat: int) -> None:
        self.act(seat, ActionKind.COMPLETE)

    def can_complete(self, seat: int) -> bool:
        return self.can_act(seat, ActionKind.COMPLETE)

    def bring_in(self, seat: int, amount: int | None = None) -> None:
        self.act(seat, ActionKind.BRING_IN, amount)

    def can_bring_in(self, seat: int, amount: int | None = None) -> bool:
        return self.can_act(seat, ActionKind.BRING_IN, amount)

    def show(self, seat: int) -> None:
        self.act(seat, ActionKind.SHOW)

    def can_show(self, seat: int) -> bool:
        return self.can_act(seat, ActionKind.SHOW)

    def muck(self, seat: int) -> None:
        self.act(seat, ActionKind.MUCK)

    def can_muck(self, seat: int) -> bool:
        return self.can_act(seat, ActionKind.MUCK)

    def timeout(self, seat: int) -> None:
        """The seat's clock ran out: the profile's timeout rule acts for it."""
        self.act(seat, ActionKind.TIMEOUT)

    def cancel(self) -> None:
        """Cancel the hand: every chip put in goes back; the stacks are as they began."""
        if self.is_over:
            raise ActionRefused(RefusalCode.HAND_OVER, "the hand is over")
        for p in self.players:
            p.stack = p.start_stack
            p.contributed = 0
        self.phase = Phase.CANCELLED
        self._over = True
        self.to_act = None
        self._actor = None
        self._legal_cache = None
        self.events.append(HandCancelled(final_stacks=tuple(sorted(self._start_stacks.items()))))

    # ---------------------------------------------------------- legal actions

    def _legal(self, p: PlayerState) -> tuple[LegalAction, ...]:
        if self.phase is Phase.SHOWDOWN:
            if (
                self._showdown_order
                and p is self._showdown_order[0]
                and not any(q.shown for q in self.players)
            ):
                return (LegalAction(ActionKind.SHOW),)
            return (LegalAction(ActionKind.SHOW), LegalAction(ActionKind.MUCK))
        if self.phase is Phase.BRING_IN:
            return self._bring_in_choices(p)
        owed = self._current_to - p.bet
        all_in_to = p.bet + p.stack
        raise_kind, targets = self._raise_options(p, owed)
        # bet_action() reads the targets when the seat bets, completes or raises.
        self._raise_targets = targets
        # In the order of docs/hand-scripts.md §5: fold, check, bet, call, complete or
        # raise. A bet is only possible when nothing is owed (nobody has bet), so at most one
        # of check and call comes, and the aggressive action, if any, always comes last.
        if owed <= 0:
            middle = _CHECK_ACTION if p.bet == 0 else LegalAction(ActionKind.CHECK, p.bet, p.bet)
        else:
            call_to = min(self._current_to, all_in_to)
            middle = LegalAction(ActionKind.CALL, call_to, call_to)
        if raise_kind is None:
            return (_FOLD_ACTION, middle)
        return (_FOLD_ACTION, middle, self._sized(raise_kind, targets, all_in_to))

    @staticmethod
    def _sized(kind: ActionKind, targets: tuple[int, ...], all_in_to: int) -> LegalAction:
        if len(targets) == 1:
            to = min(targets[0], all_in_to)
            return LegalAction(kind, to, to)
        sizes = tuple(sorted({min(t, all_in_to) for t in targets}))
        return LegalAction(kind, sizes[0], sizes[-1], sizes if len(sizes) > 1 else ())

    def _raise_options(
        self, p: PlayerState, owed: int
    ) -> tuple[ActionKind | None, tuple[int, ...]]:
        """Which aggressive action ``p`` may take, and the totals it may go to."""
        if p.acted or p.stack <= owed or self._capped():
            return None, ()
        if not any(q.active for q in self.players if q is not p):
            return None, ()
        if self.street is Street.THIRD and not self._completed:
            return ActionKind.COMPLETE, (self.stakes.small_bet,)
        kind = ActionKind.BET if self._current_to == 0 else ActionKind.RAISE
        targets = self._targets(self._last_full_to)
        if targets[0] <= self._current_to:
            # After an all-in between two full sizes the smaller raise over the last full
            # level may not exceed it (a big bet above two small bets): only the larger.
            targets = tuple([t for t in targets if t > self._current_to])
        return kind, targets

    def _targets(self, base: int) -> tuple[int, ...]:
        """The totals a bet or raise over ``base`` may go to: base plus each legal size."""
        small, big = self.stakes.small_bet, self.stakes.big_bet
        if self._round >= 2:  # fifth street on: big bets (Street.is_big)
            return (base + big,)
        if self.street is Street.FOURTH and self._open_pair and not self._big_made:
            return (base + small, base + big)
        if self.street is Street.FOURTH and self._big_made:
            return (base + big,)
        return (base + small,)

    def _capped(self) -> bool:
        if (
            self.settings.heads_up_uncapped_seventh
            and self.street is Street.SEVENTH
            and sum(1 for q in self.players if not q.folded) == 2
        ):
            return False
        return self._full_bets >= 1 + self.settings.max_raises

    def _bring_in_choices(self, p: PlayerState) -> tuple[LegalAction, ...]:
        small = self.stakes.small_bet
        all_in_to = p.stack
        complete_to = min(small, all_in_to)
        complete = LegalAction(ActionKind.COMPLETE, complete_to, complete_to)
        if self.settings.bring_in is BringInMode.RANGE:
            low = max(self.stakes.ante, 1)
            high = small - 1
            if high < low:
                # No amount lies between the ante and the small bet: only the completion.
                return (complete,)
            bring = LegalAction(ActionKind.BRING_IN, min(low, all_in_to), min(high, all_in_to))
        else:
            amount = min(self.stakes.bring_in, all_in_to)
            if amount <= 0:
                return (complete,)
            bring = LegalAction(ActionKind.BRING_IN, amount, amount)
        return (complete, bring)

    # --------------------------------------------------------------- applying

    def _put(self, p: PlayerState, amount: int) -> int:
        amount = min(amount, p.stack)
        p.stack -= amount
        p.bet += amount
        p.contributed += amount
        p.round_contributed[self._round] += amount
        if p.stack == 0:
            p.all_in = True
            p.active = False
        return amount

    def _bet_action(self, p: PlayerState, kind: ActionKind, to: int | None) -> None:
        if kind is ActionKind.FOLD:
            p.folded = True
            p.active = False
            p.acted = True
            self._live -= 1
            self.events.append(ActionTaken(p.seat, kind, 0, p.bet, False))
        elif kind is ActionKind.CHECK:
            p.acted = True
            self.events.append(ActionTaken(p.seat, kind, 0, p.bet, False))
        elif kind is ActionKind.CALL:
            moved = self._put(p, self._current_to - p.bet)
            p.acted = True
            self.events.append(ActionTaken(p.seat, kind, moved, p.bet, p.all_in))
        else:
            # refusal() computed this decision's legal actions, and with them the targets.
            targets = self._raise_targets
            target = _lowest(targets) if to is None else to
            self._aggress(p, kind, target, targets)

    def _aggress(
        self, p: PlayerState, kind: ActionKind, target: int, targets: tuple[int, ...]
    ) -> None:
        previous_full = self._last_full_to
        moved = self._put(p, target - p.bet)
        reached = p.bet
        full = reached >= _lowest(targets)
        if full:
            # The last full level: what the action reached, or, for an all-in between two
            # full sizes, the full size below it.
            level = _full_level(targets, reached)
            self._full_bets += 1
            self._last_full_to = level
            if self.street is Street.THIRD:
                self._completed = True
            if level - previous_full >= self.stakes.big_bet and self.street is Street.FOURTH:
                self._big_made = True
            for q in self.players:
                if q is not p:
                    q.acted = False
        self._current_to = max(self._current_to, reached)
        p.acted = True
        self._aggressor = p
        self.events.append(ActionTaken(p.seat, kind, moved, p.bet, p.all_in))

    def _choose_bring_in(
        self, p: PlayerState, kind: ActionKind, to: int | None, *, by_timeout: bool
    ) -> None:
        choices = self._bring_in_choices(p)
        complete, bring = choices[0], choices[-1]
        if by_timeout:
            amount = bring.min_to  # the smallest bring-in (the completion when it is the only one)
        elif kind is ActionKind.COMPLETE:
            amount = complete.min_to
        elif to is None:
            amount = min(max(self.stakes.bring_in, bring.min_to), bring.max_to)
        else:
            amount = to
        self._post_bring_in(p, amount)
        self.phase = Phase.BETTING

    def _post_bring_in(self, p: PlayerState, amount: int) -> None:
        moved = self._put(p, amount)
        small = self.stakes.small_bet
        completed = p.bet >= small
        self._current_to = p.bet
        self._aggressor = p
        if completed:
            self._completed = True
            self._full_bets = 1
            self._last_full_to = p.bet
        # The house bring-in keeps a last turn; elsewhere posting is his action.
        p.acted = completed or not self.settings.bring_in_last_option
        door = p.cards[2]
        self.bring_in_info = BringIn(p.seat, door, moved)
        self.events.append(BringInPosted(p.seat, door, moved, p.all_in, completed))

    def _timeout(self, p: PlayerState) -> None:
        rule = self.settings.timeout
        protect = rule is TimeoutRule.ALL_IN_PROTECTION or (
            rule is TimeoutRule.ALL_IN_PROTECTION_IF_CONTRIBUTED and p.contributed > 0
        )
        if protect:
            p.protected = True
            p.active = False
            p.acted = True
            self.events.append(ProtectionApplied(p.seat, p.contributed))
            return
        kind = (
            ActionKind.CHECK
            if (rule is TimeoutRule.CHECK_OR_FOLD and p.bet >= self._current_to)
            else ActionKind.FOLD
        )
        if kind is ActionKind.CHECK:
            p.acted = True
        else:
            p.folded = True
            p.active = False
            p.acted = True
            self._live -= 1
        self.events.append(ActionTaken(p.seat, kind, 0, p.bet, False, by_timeout=True))

    # ------------------------------------------------------------- flow

    def _advance(self) -> None:
        """Move to the next decision, dealing and settling as the rules say."""
        while not self._over:
            phase = self.phase
            if phase is Phase.SHOWDOWN:
                nxt = next((q for q in self._showdown_order if not (q.shown or q.mucked)), None)
                if nxt is not None:
                    self.to_act = nxt.seat
                    self._actor = nxt
                    return
                self._finish(won_by_fold=False)
                return
            if phase is Phase.BRING_IN:
                return
            if self._live == 1:
                self._finish(won_by_fold=True)
                return
            nxt = self._next_to_act()
            if nxt is not None:
                if self._round_first is None:
                    self._round_first = nxt
                    self.first_to_act[self.street] = nxt.seat
                self.to_act = nxt.seat
                self._actor = nxt
                return
            self.to_act = None
            self._actor = None
            if self._round_first is not None:
                self._last_round_aggressor = self._aggressor
                self._last_round_first = self._round_first
            if self.street is Street.SEVENTH:
                self._start_showdown()
                continue
            self._start_street(self._round + 1)

    def _next_to_act(self) -> PlayerState | None:
        """The next seat clockwise from the last to act that still owes a decision.

        A seat owes one while it can bet and either owes chips or has not acted
        since the last full bet — the latter only while someone else could still
        put chips in.
        """
        players = self.players
        n = len(players)
        able = 0
        for q in players:
            if q.active:
                able += 1
        if not able:
            return None
        current = self._current_to
        i = self._cursor
        for _ in range(n):
            i += 1
            if i == n:
                i = 0
            q = players[i]
            if q.active and (q.bet < current or (not q.acted and able > 1)):
                self._cursor = i
                return q
        return None

    def _start_street(self, round_index: int) -> None:
        """Start the street of this index (0 for third street)."""
        # By index: Street.order looks the enum up in a dict, and an enum hashes in Python.
        street = _STREETS[round_index]
        self.street = street
        self._round = round_index
        for q in self.players:
            q.bet = 0
            q.acted = False
        self._current_to = 0
        self._last_full_to = 0
        self._full_bets = 0
        self._completed = False
        self._big_made = False
        self._aggressor = None
        self._round_first = None
        if street is Street.THIRD:
            self._deal_third()
        else:
            self._deal_street(street)
        able = [q for q in self.players if q.active]
        if len(able) <= 1:
            self._cursor = 0
            self.events.append(StreetStarted(street, None))
            return
        if street is Street.THIRD:
            self._start_third(able)
            return
        live = [q for q in self.players if not q.folded]
        # An open pair allows a big bet on fourth street only where the profile says so.
        self._open_pair = (
            street is Street.FOURTH
            and self.settings.open_pair_big_bet
            and any(len(up := q.up_list) == 2 and up[0] >> 2 == up[1] >> 2 for q in live)
        )
        best = _best_showing(live)
        # The best hand showing is asked first; if he cannot act, the next seat that can.
        self._cursor = (best.position - 1) % len(self.players)
        first = self._peek_next_to_act()
        self.events.append(StreetStarted(street, first.seat if first else None))

    def _peek_next_to_act(self) -> PlayerState | None:
        cursor = self._cursor
        nxt = self._next_to_act()
        self._cursor = cursor
        return nxt

    def _start_third(self, able: list[PlayerState]) -> None:
        self._open_pair = False
        # The lowest door card brings it in (cards are distinct: no ties).
        bringer = able[0]
        for q in able:
            if q.cards[2] < bringer.cards[2]:
                bringer = q
        self._bring_in_player = bringer
        self._cursor = bringer.position
        if self.settings.bring_in is BringInMode.FORCED:
            self._post_bring_in(bringer, self.stakes.bring_in)
            first = self._peek_next_to_act()
            self.events.append(StreetStarted(Street.THIRD, first.seat if first else None))
        else:
            self.phase = Phase.BRING_IN
            self.to_act = bringer.seat
            self._actor = bringer
            self.events.append(StreetStarted(Street.THIRD, None))

    # ------------------------------------------------------------- dealing

    def _post_antes(self) -> None:
        for p in self.players:
            if self.stakes.ante > 0:
                moved = self._put(p, self.stakes.ante)
                p.bet = 0
                self.events.append(AntePosted(p.seat, moved, p.all_in))

    def _card_at(self, index: int) -> Card:
        if index >= len(self._deck):
            raise DeckExhausted("the deck ran out of cards")
        return self._deck[index]

    def _give(self, p: PlayerState, index: int, up: bool, street: Street) -> None:
        if index >= len(self._deck):
            raise DeckExhausted("the deck ran out of cards")
        card = self._deck[index]
        p.cards.append(card)
        p.up.append(up)
        if up:
            p.up_list.append(card)
            p.showing_key += showing_key_of(card)
        self.events.append(CardDealt(p.seat, card, up, street, index))

    def _draw(self) -> int:
        if self._top >= len(self._stub):
            raise DeckExhausted("the deck ran out of cards")
        index = self._stub[self._top]
        self._top += 1
        return index

    def _burn(self, street: Street) -> None:
        index = self._draw()
        self._burned.append(index)
        self.events.append(CardBurned(self._deck[index], index, street))

    def _deal_third(self) -> None:
        if self.settings.dealing is Dealing.SLOT:
            for k, up in ((0, False), (1, False), (2, True)):
                for p in self.players:
                    self._give(p, 7 * k + p.position, up, Street.THIRD)
            return
        if Street.THIRD in self.settings.burns:
            self._burn(Street.THIRD)
        for up in (False, False, True):
            for p in self.players:
                self._give(p, self._draw(), up, Street.THIRD)

    def _deal_street(self, street: Street) -> None:
        up = street is not Street.SEVENTH
        live = [p for p in self.players if not p.folded]
        if self.settings.dealing is Dealing.SLOT:
            k = self._round + 2
            for p in live:
                self._give(p, 7 * k + p.position, up, street)
            return
        burn = street in self.settings.burns
        n = len(live)
        rule = self.settings.short_deck
        stub = len(self._stub) - self._top
        deal_with_burn = stub >= n + burn
        community = False
        if rule is ShortDeckRule.CASINOS_AUSTRIA:
            # The bottom card is never dealt: keep one card back at all times.
            if stub < n + 2 and self._burned:
                self._reshuffle(street)
                stub = len(self._stub) - self._top
            deal_with_burn = stub >= n + 1 + burn
            if not deal_with_burn:
                burn = False
                community = stub < n + 1
        elif rule is ShortDeckRule.MEMAID:
            if not deal_with_burn:
                if self._burned:
                    self._reshuffle(street)
                    stub = len(self._stub) - self._top
                burn = False
                community = stub < n
        elif rule is ShortDeckRule.COMMUNITY and not deal_with_burn:
            burn = False
            community = stub < n
        if community:
            index = self._draw()
            card = self._deck[index]
            self.community.append(card)
            self.events.append(CommunityCardDealt(card, street, index))
            return
        if burn:
            self._burn(street)
        for p in live:
            self._give(p, self._draw(), up, street)

    def _reshuffle(self, street: Street) -> None:
        rest = self._stub[self._top :] + self._burned
        if self._stream is not None:
            rest = shuffle(rest, self._stream)
        self._stub = rest
        self._top = 0
        self._burned = []
        self.events.append(StubReshuffled(street, len(rest)))

    # ------------------------------------------------------------- showdown

    def _start_showdown(self) -> None:
        live = [q for q in self.players if not q.folded]
        if self.settings.showdown is ShowdownRule.ALL:
            for q in live:
                self._reveal(q)
            self._finish(won_by_fold=False)
            return
        first = self._first_to_show(live)
        n = len(self.players)
        self._showdown_order = [
            q for step in range(n) if not (q := self.players[(first.position + step) % n]).folded
        ]
        self.phase = Phase.SHOWDOWN

    def _first_to_show(self, live: list[PlayerState]) -> PlayerState:
        aggressor = self._last_round_aggressor
        if aggressor is not None and not aggressor.folded:
            return aggressor
        if self.settings.showdown is ShowdownRule.LAST_AGGRESSOR:
            first = self._last_round_first
            if first is not None and not first.folded:
                return first
        return _best_showing(live)

    def _showdown_decision(self, p: PlayerState, *, show: bool) -> None:
        if show:
            self._reveal(p)
        else:
            p.mucked = True
            self.events.append(HandMucked(p.seat))

    def _full_hand(self, p: PlayerState) -> list[Card]:
        return p.cards + self.community

    def _reveal(self, p: PlayerState) -> None:
        p.shown = True
        event = HandShown(p.seat, tuple(p.cards), tuple(self.community), self.settings.hi_lo)
        self._shown_events.append(event)
        self.events.append(event)

    # ------------------------------------------------------------- settling

    def _finish(self, *, won_by_fold: bool) -> None:
        self.to_act = None
        self._actor = None
        returned = self._return_uncalled()
        pots = self._build_pots(won_by_fold)
        rake = 0
        if self._rake is not None:
            round_chips = [0, 0, 0, 0, 0]
            for p in self.players:
                for i, chips in enumerate(p.round_contributed):
                    round_chips[i] += chips
            rake = self._rake.of_rounds(round_chips, len(self.players))
        if rake:
            self.events.append(RakeTaken(rake))
        results: list[PotResult] = []
        left_to_rake = rake
        for index, (amount, eligible) in enumerate(pots):
            taken = min(left_to_rake, amount)
            left_to_rake -= taken
            winners, awards = self._award(amount - taken, eligible)
            for seat, chips in awards.items():
                self._by_seat[seat].stack += chips
            seats = [q.seat for q in eligible]
            seats.sort()
            eligible_seats = tuple(seats)
            results.append(PotResult(amount, eligible_seats, winners, awards))
            self.events.append(
                PotAwarded(index, amount, eligible_seats, winners, tuple(sorted(awards.items())))
            )
        final = dict(self._start_stacks)
        for p in self.players:
            final[p.seat] = p.stack
        shown: dict[int, tuple[Card, ...]] = {}
        hands: dict[int, ShownHand] = {}
        for event in self._shown_events:
            shown[event.seat] = event.cards
            hands[event.seat] = ShownHand(event)
        self.events.append(HandEnded(tuple(sorted(final.items())), won_by_fold))
        self.phase = Phase.COMPLETE
        self._over = True
        self._result = HandResult(
            bring_in=self.bring_in_info,
            first_to_act=dict(self.first_to_act),
            community_cards=tuple(self.community),
            pots=tuple(results),
            returned=returned,
            rake=rake,
            shown=shown,
            hands=hands,
            final_stacks=final,
            won_by_fold=won_by_fold,
        )

    def _return_uncalled(self) -> dict[int, int]:
        top = self.players[0]
        second_most = -1
        for q in self.players[1:]:
            if q.contributed > top.contributed:
                second_most = top.contributed
                top = q
            elif q.contributed > second_most:
                second_most = q.contributed
        excess = top.contributed - second_most
        if excess <= 0:
            return {}
        top.contributed -= excess
        top.stack += excess
        left = excess
        for i in range(4, -1, -1):
            taken = min(left, top.round_contributed[i])
            top.round_contributed[i] -= taken
            left -= taken
        self.events.append(BetReturned(top.seat, excess))
        return {top.seat: excess}

    def _build_pots(self, won_by_fold: bool) -> list[tuple[int, list[PlayerState]]]:
        live = [q for q in self.players if not q.folded]
        if won_by_fold:
            return [(sum(q.contributed for q in self.players), live)]
        caps = [q.contributed for q in live if q.all_in or q.protected]
        return [
            (amount, [live[i] for i in eligible])
            for amount, eligible in layer_pots(
                [q.contributed for q in self.players], [q.contributed for q in live], caps
            )
        ]

    def _award(
        self, amount: int, eligible: list[PlayerState]
    ) -> tuple[tuple[int, ...], dict[int, int]]:
        if len(eligible) == 1:
            return (eligible[0].seat,), {eligible[0].seat: amount} if amount else {}
        claimants = [q for q in eligible if not q.mucked] or eligible
        awards: dict[int, int] = {}
        high_winners: list[PlayerState] = []
        top = -1
        for q in claimants:
            # Each hand is scored once, however many side pots it contends for.
            value = q.high
            if value < 0:
                value = q.high = evaluate_high(self._full_hand(q))
            if value > top:
                top = value
                high_winners = [q]
            elif value == top:
                high_winners.append(q)
        low_winners: list[PlayerState] = []
        if self.settings.hi_lo:
            lows = [(q, evaluate_low8(self._full_hand(q))) for q in claimants]
            qualified = [(q, v) for q, v in lows if v is not None]
            if qualified:
                best_low = min(v for _, v in qualified)
                low_winners = [q for q, v in qualified if v == best_low]
        if low_winners:
            low_half = amount // 2
            self._split(amount - low_half, high_winners, awards)
            self._split(low_half, low_winners, awards)
        else:
            self._split(amount, high_winners, awards)
        seats = [q.seat for q in high_winners]
        for q in low_winners:
            if q.seat not in seats:
                seats.append(q.seat)
        seats.sort()
        return tuple(seats), awards

    @staticmethod
    def _split(amount: int, winners: list[PlayerState], awards: dict[int, int]) -> None:
        """Split ``amount`` between ``winners``, who come in dealing order."""
        if amount <= 0:
            return
        # Odd chips go one at a time from the first winner left of the button: the
        # winners are in dealing order (every list of players here keeps self.players').
        share, odd = divmod(amount, len(winners))
        for i, q in enumerate(winners):
            awards[q.seat] = awards.get(q.seat, 0) + share + (1 if i < odd else 0)
