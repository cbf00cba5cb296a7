"""Tests of engine_server.game.phh: PHH hand histories, read back by pokerkit 0.7.7.

A corpus of random hands (every profile, random decks, random legal play with
timeouts and a few cancellations) is exported full, public and for every seat;
every export must load in pokerkit, say only what its reader may see, and,
where pokerkit's rules can play the hand at all, replay in pokerkit to the
engine's final stacks.

Where pokerkit's rules differ from docs/rules.md (so a replay could not agree), the
hand is left out of the replay set, for a reason :func:`not_replayable` names:

* rake (pokerkit replays a history without rake), all-in protection, a
  community card: nothing in pokerkit plays them;
* the house bring-in folding or completing on his last turn (pokerkit has no
  such turn; a check there is exported as a no-op comment and stays in);
* a short all-in bet, completion or raise (pokerkit reopens the betting and
  moves the next raise's base), a big bet on fourth street (pokerkit's fourth
  street is all small bets), more than a bet and three raises (the uncapped
  heads-up seventh street), a raise no other player could answer with more
  chips than the current bet (pokerkit refuses it);
* a player all in from the ante holding the lowest door card (pokerkit would
  name him the bring-in and have the next seat post it);
* a pot won by a mucked hand (pokerkit kills mucked hands; docs/rules.md §2.9 gives a pot
  whose claimants all mucked to the best of them);
* a split pot with odd chips (pokerkit gives the whole remainder to the first
  winner and merges pots once losing hands are killed) and high-low hands with
  side pots (pokerkit splits a side pot's low half even when no one in it has
  a low).
"""

from __future__ import annotations

import datetime
import doctest
import random
import re
import tomllib
import warnings
from collections import Counter
from collections.abc import Sequence
from functools import cache
from typing import Any

import pytest
from pokerkit import (
    AntePosting,
    BetCollection,
    CardBurning,
    CheckingOrCalling,
    ChipsPulling,
    ChipsPushing,
    HandHistory,
    HandKilling,
    HoleCardsShowingOrMucking,
    NoOperation,
    Operation,
    State,
)

from engine_server.game import phh
from engine_server.game.actions import ActionKind
from engine_server.game.cards import Card, format_card, parse_card, parse_cards
from engine_server.game.events import (
    ActionTaken,
    AntePosted,
    BringInPosted,
    CardBurned,
    CardDealt,
    CommunityCardDealt,
    HandMucked,
    HandShown,
    PotAwarded,
    ProtectionApplied,
    RakeTaken,
    StreetStarted,
)
from engine_server.game.hand import Hand, Phase
from engine_server.game.phh import (
    BRING_IN_LAST_TURN_NOTE,
    UNKNOWN_CARD,
    export_phh,
    phh_seat_order,
)
from engine_server.game.profiles import (
    PROFILES,
    Dealing,
    RuleSettings,
    Stakes,
    Street,
    apply_overrides,
)

# --- random hands -------------------------------------------------------------

_WEIGHTS = {
    ActionKind.FOLD: 1,
    ActionKind.CHECK: 6,
    ActionKind.CALL: 6,
    ActionKind.BET: 3,
    ActionKind.RAISE: 2,
    ActionKind.COMPLETE: 2,
    ActionKind.BRING_IN: 3,
    ActionKind.SHOW: 8,
    ActionKind.MUCK: 2,
}

CORPUS_SIZE = 640
HOUSE_SHARE = 0.55


def random_hand(rng: random.Random, settings: RuleSettings) -> Hand:
    """A hand dealt from a random deck and played by random legal actions."""
    most = settings.max_players if settings.dealing is Dealing.TOP else 7
    count = rng.randint(2, min(most, settings.max_players))
    seats = sorted(rng.sample(range(1, settings.max_players + 1), count))
    small = rng.choice([2, 4, 10])
    stakes = Stakes.from_small_bet(ante=rng.choice([0, 1, small // 2]), small_bet=small)
    stacks = [
        (
            seat,
            rng.randint(1, 4 * stakes.big_bet)
            if rng.random() < 0.25
            else rng.randint(10 * stakes.big_bet, 40 * stakes.big_bet),
        )
        for seat in seats
    ]
    hand = Hand(settings, stakes, stacks, rng.choice(seats), rng.sample(range(52), 52))
    cancel_at = rng.randint(0, 25) if rng.random() < 0.03 else None
    decisions = 0
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        if decisions == cancel_at:
            hand.cancel()
            break
        decisions += 1
        if rng.random() < 0.02:
            hand.timeout(seat)
            continue
        legal = hand.legal_actions()
        choice = rng.choices(legal, [_WEIGHTS[a.kind] for a in legal])[0]
        to = None
        if choice.sizes:
            # Mostly the smallest size, so that most hands stay replayable.
            to = choice.sizes[0] if rng.random() < 0.7 else rng.choice(choice.sizes)
        elif choice.kind is ActionKind.BRING_IN and choice.max_to > choice.min_to:
            to = rng.randint(choice.min_to, choice.max_to)
        hand.act(seat, choice.kind, to)
    return hand


@cache
def corpus() -> tuple[Hand, ...]:
    rng = random.Random("phh-corpus")
    others = [name for name in PROFILES if name != "house"]
    hands = []
    for _ in range(CORPUS_SIZE):
        name = "house" if rng.random() < HOUSE_SHARE else rng.choice(others)
        hands.append(random_hand(rng, PROFILES[name]))
    return tuple(hands)


def views(hand: Hand) -> list[dict[str, Any]]:
    """The export options of every view of a hand: full, public, each seat."""
    seat_views: list[dict[str, Any]] = [{"redact_for": seat} for seat in phh_seat_order(hand)]
    return [{"reveal_all": True}, {"redact_for": None}, *seat_views]


# --- which hands pokerkit can replay ------------------------------------------


def not_replayable(hand: Hand) -> str | None:
    """Why pokerkit's rules cannot replay ``hand``, or ``None`` (see the module text)."""
    if hand.phase is Phase.CANCELLED:
        return "cancelled"
    events = hand.events
    if any(isinstance(e, RakeTaken | ProtectionApplied | CommunityCardDealt) for e in events):
        return "rake, protection or community card"
    doors = {
        e.seat: e.card
        for e in events
        if isinstance(e, CardDealt) and e.up and e.street is Street.THIRD
    }
    lowest = min(doors, key=lambda seat: doors[seat])
    if any(isinstance(e, AntePosted) and e.all_in and e.seat == lowest for e in events):
        return "all in from the ante with the lowest door card"
    stakes = hand.stakes
    stacks = dict(events[0].stacks)  # type: ignore[union-attr]
    bets: dict[int, int] = dict.fromkeys(stacks, 0)
    folded: set[int] = set()
    street = Street.THIRD
    last_full = full_bets = 0
    bring_in: int | None = None
    bring_in_acted = False
    for e in events:
        if isinstance(e, AntePosted):
            stacks[e.seat] -= e.amount
        elif isinstance(e, StreetStarted) and e.street is not Street.THIRD:
            # (Third street's comes after a forced bring-in: nothing to reset.)
            street, last_full, full_bets = e.street, 0, 0
            bets = dict.fromkeys(bets, 0)
        elif isinstance(e, BringInPosted):
            bring_in = e.seat
            stacks[e.seat] -= e.amount
            bets[e.seat] = e.amount
            if e.completed:
                last_full, full_bets = e.amount, 1
            elif e.all_in and e.amount > stakes.bring_in:
                return "short all-in completion"
        elif isinstance(e, ActionTaken):
            level = max(bets.values())
            if street is Street.THIRD and e.seat == bring_in and not bring_in_acted:
                bring_in_acted = True
                if bets[e.seat] == level and e.kind is not ActionKind.CHECK:
                    return "bring-in folded or completed on his last turn"
            if e.kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
                step = stakes.big_bet if street.is_big else stakes.small_bet
                if e.to < last_full + step:
                    return "short all-in bet, completion or raise"
                if e.to > last_full + step:
                    return "big bet on fourth street"
                if not any(
                    stacks[s] + bets[s] > level for s in stacks if s != e.seat and s not in folded
                ):
                    return "a raise nobody could answer"
                last_full = e.to
                full_bets += 1
                if full_bets > 4:
                    return "uncapped raising"
            stacks[e.seat] -= e.amount
            bets[e.seat] = e.to
            if e.kind is ActionKind.FOLD:
                folded.add(e.seat)
    mucked = {e.seat for e in events if isinstance(e, HandMucked)}
    pots = [e for e in events if isinstance(e, PotAwarded)]
    for pot in pots:
        if mucked & set(pot.winners):
            return "a pot won by a mucked hand"
        if len({chips for _, chips in pot.awards}) > 1 and len(pot.winners) > 1:
            return "a split with odd chips"
    if hand.settings.hi_lo and len(pots) > 1:
        return "high-low side pots"
    return None


# Operations pokerkit's reader performs by itself between the history's actions.
_AUTOMATIC = (
    AntePosting,
    BetCollection,
    CardBurning,
    HandKilling,
    ChipsPushing,
    ChipsPulling,
    NoOperation,
)


def _filled_in(state: State, operation: Operation) -> bool:
    """Whether pokerkit's reader may add ``operation`` without the history saying so."""
    if isinstance(operation, _AUTOMATIC):
        return True
    if isinstance(operation, HoleCardsShowingOrMucking):
        # An all-in showdown before seventh street, passed with nothing shown.
        return not any(operation.hole_cards)
    if isinstance(operation, CheckingOrCalling) and operation.amount == 0:
        # The lone turn of the only player with chips left (docs/rules.md §2.7 deals on).
        with_chips = [i for i, stack in enumerate(state.stacks) if state.statuses[i] and stack > 0]
        return with_chips == [operation.player_index]
    return False


def replay_in_pokerkit(text: str) -> list[int]:
    """pokerkit's final stacks after every action of the history, applied in order."""
    history = HandHistory.loads(text)
    applied: list[str] = []
    seen = 0
    state: State | None = None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # docs/rules.md §2.6 lets a player fold when checking is free; pokerkit warns.
        warnings.filterwarnings("ignore", message="There is no reason for this player to fold")
        for state, action in history.state_actions:
            added = state.operations[seen:]
            seen = len(state.operations)
            if action is not None:
                applied.append(action)
                continue
            for operation in added:
                assert _filled_in(state, operation), (operation, text)
    # Every action of the history was applied, in order, none skipped or repaired.
    assert applied == history.actions
    assert state is not None and not state.status
    return list(state.stacks)


def final_stacks(hand: Hand) -> list[int]:
    final = hand.result().final_stacks
    return [final[seat] for seat in phh_seat_order(hand)]


# --- reading exports back -------------------------------------------------------

_CARD = r"(?:[2-9TJQKA][cdhs]|\?\?)"
_ACTION = re.compile(
    rf"(?:d dh p\d+ {_CARD}+|d db [2-9TJQKA][cdhs]"
    r"|p\d+ (?:pb|f|cc|cbr \d+|sm(?: (?:[2-9TJQKA][cdhs])+)?))(?: # .+)?"
    r"|# .+"
)


def load(text: str) -> HandHistory:
    """pokerkit's reading of the text, with any warning an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return HandHistory.loads(text)


def tokens(cards: str) -> list[str]:
    return [cards[i : i + 2] for i in range(0, len(cards), 2)]


def dealt_by_player(actions: Sequence[str]) -> dict[int, list[str]]:
    """Each player's dealt cards, as written, in the order dealt."""
    dealt: dict[int, list[str]] = {}
    for action in actions:
        if action.startswith("d dh p"):
            _, _, player, cards = action.split()
            dealt.setdefault(int(player[1:]), []).extend(tokens(cards))
    return dealt


def shown_by_player(actions: Sequence[str]) -> dict[int, list[str]]:
    """The ``sm`` actions: player → cards shown (empty for a muck)."""
    shown: dict[int, list[str]] = {}
    for action in actions:
        words = action.split("#")[0].split()
        if len(words) >= 2 and words[1] == "sm":
            shown[int(words[0][1:])] = tokens(words[2]) if len(words) > 2 else []
    return shown


# --- the corpus: everything loads -----------------------------------------------


def test_corpus_covers_the_profiles_and_situations() -> None:
    hands = corpus()
    names = Counter(hand.settings.name for hand in hands)
    assert set(names) == set(PROFILES)
    events = [e for hand in hands for e in hand.events]
    assert any(isinstance(e, HandShown) for e in events)
    assert any(isinstance(e, HandMucked) for e in events)
    assert any(isinstance(e, ProtectionApplied) for e in events)
    assert any(isinstance(e, ActionTaken) and e.by_timeout for e in events)
    assert any(isinstance(e, CardBurned) for e in events)
    assert any(hand.phase is Phase.CANCELLED for hand in hands)
    assert any(isinstance(e, PotAwarded) and e.index > 0 for e in events)


def test_every_export_loads_in_pokerkit() -> None:
    for hand in corpus():
        order = phh_seat_order(hand)
        for options in views(hand):
            text = export_phh(hand, **options)
            history = load(text)
            assert history.variant == ("F7S/8" if hand.settings.hi_lo else "F7S")
            assert history.seats == list(order)
            assert history.starting_stacks == [
                dict(hand.events[0].stacks)[seat]  # type: ignore[union-attr]
                for seat in order
            ]
            assert history.antes == [hand.stakes.ante] * len(order)
            assert (history.small_bet, history.big_bet) == (
                hand.stakes.small_bet,
                hand.stakes.big_bet,
            )
            if hand.phase is Phase.CANCELLED:
                assert history.user_defined_fields["_cancelled"] is True
                assert history.finishing_stacks == history.starting_stacks
            else:
                assert history.finishing_stacks == final_stacks(hand)
                assert history.user_defined_fields["_rake"] == hand.result().rake
            assert history.user_defined_fields["_profile"] == hand.settings.name
            assert history.user_defined_fields["_button"] == hand.button
            # Every action is one pokerkit's parser knows (or a comment).
            for action in history.actions:
                assert _ACTION.fullmatch(action), action
        # pokerkit builds the game from the header fields.
        assert history.create_state().player_count == len(order)


def test_full_export_has_every_card_where_it_was_dealt() -> None:
    for hand in corpus():
        data = tomllib.loads(export_phh(hand, reveal_all=True))
        order = phh_seat_order(hand)
        dealt = dealt_by_player(data["actions"])
        for player, seat in enumerate(order, start=1):
            cards = [format_card(c) for s, c, _ in hand.dealt_cards if s == seat]
            assert dealt.get(player, []) == cards
        assert data["_burn_cards"] == [format_card(card) for card, _ in hand.burned_cards]
        assert data["_community_cards"] == [
            format_card(c) for s, c, _ in hand.dealt_cards if s is None
        ]
        assert UNKNOWN_CARD not in "".join(data["actions"])


# --- round trip -----------------------------------------------------------------


@cache
def replayable() -> tuple[Hand, ...]:
    return tuple(hand for hand in corpus() if not_replayable(hand) is None)


def test_replay_set_is_large_enough() -> None:
    house = [hand for hand in replayable() if hand.settings == PROFILES["house"]]
    assert len(house) >= 200
    # The set still holds the cases the export has to get right.
    events = [e for hand in house for e in hand.events]
    last_turn_checks = [
        e
        for hand in house
        for e, street in _with_streets(hand)
        if isinstance(e, ActionTaken) and e.kind is ActionKind.CHECK and street is Street.THIRD
    ]
    assert last_turn_checks
    assert any(isinstance(e, ActionTaken) and e.all_in for e in events)
    assert any(isinstance(e, PotAwarded) and e.index > 0 for e in events)
    assert any(isinstance(e, ActionTaken) and e.by_timeout for e in events)
    assert any(isinstance(e, ActionTaken) and e.kind is ActionKind.FOLD for e in events)
    others = {hand.settings.name for hand in replayable()} - {"house"}
    assert {"multipoker", "memaid", "swedish"} <= others


def _with_streets(hand: Hand) -> list[tuple[object, Street]]:
    street = Street.THIRD
    out: list[tuple[object, Street]] = []
    for e in hand.events:
        if isinstance(e, StreetStarted):
            street = e.street
        out.append((e, street))
    return out


@pytest.mark.parametrize("part", range(4))
def test_replayable_hands_replay_in_pokerkit_to_the_same_stacks(part: int) -> None:
    hands = replayable()[part::4]
    for hand in hands:
        expected = final_stacks(hand)
        order = phh_seat_order(hand)
        for options in ({"reveal_all": True}, {"redact_for": None}, {"redact_for": order[-1]}):
            assert replay_in_pokerkit(export_phh(hand, **options)) == expected


# --- redaction --------------------------------------------------------------------


def test_redacted_exports_show_only_what_the_viewer_may_see() -> None:
    for hand in corpus():
        order = phh_seat_order(hand)
        shown = {e.seat for e in hand.events if isinstance(e, HandShown)}
        for viewer in (None, *order):
            text = export_phh(hand, redact_for=viewer)
            data = tomllib.loads(text)
            dealt = dealt_by_player(data["actions"])
            hidden: list[Card] = []
            for player, p in enumerate(hand.players, start=1):
                may_see = not p.folded and (p.seat == viewer or p.seat in shown)
                expected = [
                    format_card(card) if up or may_see else UNKNOWN_CARD
                    for card, up in zip(p.cards, p.up, strict=True)
                ]
                assert dealt.get(player, []) == expected
                hidden += [
                    card for card, up in zip(p.cards, p.up, strict=True) if not (up or may_see)
                ]
            # Burned cards stay hidden, unless a short-deck reshuffle dealt one again.
            dealt_again = {card for _, card, _ in hand.dealt_cards}
            hidden += [card for card, _ in hand.burned_cards if card not in dealt_again]
            # No hidden card anywhere in the text (no names given: no other card-like text).
            for card in hidden:
                assert format_card(card) not in text, (viewer, format_card(card))
            assert "_burn_cards" not in data
            # Shown hands in full, mucks with no card.
            expected_shown: dict[int, list[str]] = {}
            for e in hand.events:
                if isinstance(e, HandShown):
                    expected_shown[order.index(e.seat) + 1] = [format_card(c) for c in e.cards]
                elif isinstance(e, HandMucked):
                    expected_shown[order.index(e.seat) + 1] = []
            assert shown_by_player(data["actions"]) == expected_shown


def test_a_folded_hand_is_hidden_even_from_its_owner() -> None:
    # The doctest's hand: seat 3 (p1) folds Kh Kd under a 7c door to seat 5's bring-in.
    deck = top_deck("Kh Qs As Ah Ad Ks Kc Kd Js Qh Qd Qc Jh Jd 7c 4h Jc Ts")
    hand = Hand(PROFILES["house"], Stakes(1, 1, 2, 4), [(3, 100), (5, 100)], 5, deck)
    hand.fold(3)
    mine = tomllib.loads(export_phh(hand, redact_for=3))["actions"]
    assert mine[:2] == ["d dh p1 ????7c", "d dh p2 ????4h"]
    theirs = tomllib.loads(export_phh(hand, redact_for=5))["actions"]
    assert theirs[:2] == ["d dh p1 ????7c", "d dh p2 QsJs4h"]
    full = tomllib.loads(export_phh(hand, reveal_all=True))["actions"]
    assert full == ["d dh p1 KhKd7c", "d dh p2 QsJs4h", "p2 pb", "p1 f"]


def test_a_mucked_hand_is_seen_by_its_owner_only() -> None:
    # memaid: both check every street; the first asked on seventh street shows
    # first and the other mucks.
    deck = top_deck("Ah Kd 2c 3d 9s 8h")
    hand = Hand(PROFILES["memaid"], Stakes(1, 1, 2, 4), [(1, 50), (2, 50)], 2, deck)
    hand.bring_in(hand.to_act or 0)
    while hand.phase is Phase.BETTING:
        seat = hand.to_act or 0
        hand.act(seat, ActionKind.CALL if hand.can_call(seat) else ActionKind.CHECK)
    shower = hand.to_act or 0
    hand.show(shower)
    mucker = hand.to_act or 0
    hand.muck(mucker)
    assert hand.is_over
    order = phh_seat_order(hand)
    down = [format_card(c) for c in hand.players[order.index(mucker)].down_cards]
    number = order.index(mucker) + 1
    own = tomllib.loads(export_phh(hand, redact_for=mucker))["actions"]
    assert f"p{number} sm" in own
    assert all(card in "".join(own) for card in down)
    for other in (shower, None):
        text = export_phh(hand, redact_for=other)
        assert f"p{number} sm" in tomllib.loads(text)["actions"]
        assert not any(card in text for card in down)


# --- hands worked out by hand -------------------------------------------------------


def slot_deck(cards: Sequence[Sequence[str]]) -> list[Card]:
    """A deck giving dealing position ``p`` the cards ``cards[p]`` (slot dealing)."""
    placed = {
        7 * k + p: parse_card(card) for p, row in enumerate(cards) for k, card in enumerate(row)
    }
    rest = iter(c for c in range(52) if c not in placed.values())
    return [placed[i] if i in placed else next(rest) for i in range(52)]


def top_deck(cards: str) -> list[Card]:
    """A deck starting with ``cards``, then the other cards in canonical order."""
    head = parse_cards(cards.split())
    return head + [c for c in range(52) if c not in head]


def test_house_bring_in_standing_on_his_last_turn() -> None:
    # Seats 1, 2, 3, button 3: p1 = seat 1. Seat 2's 2c door brings it in (1);
    # seats 3 and 1 call, seat 2 stands. Fourth street: seat 1's A-K shows best,
    # bets 2; seat 2 folds, seat 3 times out facing the bet (folds).
    # Pot: antes 3 + 2 each on third = 6; seat 1's bet of 2 comes back.
    deck = slot_deck(
        [
            ["Qc", "Jc", "Ah", "Kd", "5c", "6c", "7c"],
            ["Qd", "Jd", "2c", "3d", "5d", "6d", "7d"],
            ["Qh", "Jh", "9s", "8s", "5h", "6h", "7h"],
        ]
    )
    hand = Hand(PROFILES["house"], Stakes(1, 1, 2, 4), [(1, 50), (2, 50), (3, 50)], 3, deck)
    hand.call(3)
    hand.call(1)
    hand.check(2)
    hand.bet(1)
    hand.fold(2)
    hand.timeout(3)
    text = export_phh(hand, reveal_all=True)
    data = tomllib.loads(text)
    assert data["actions"] == [
        "d dh p1 QcJcAh",
        "d dh p2 QdJd2c",
        "d dh p3 QhJh9s",
        "p2 pb",
        "p3 cc",
        "p1 cc",
        f"# p2 cc {BRING_IN_LAST_TURN_NOTE}",
        "d dh p1 Kd",
        "d dh p2 3d",
        "d dh p3 8s",
        "p1 cbr 2",
        "p2 f",
        "p3 f # timeout",
    ]
    assert data["finishing_stacks"] == [54, 48, 48]
    assert data["_pots"] == [{"amount": 6, "eligible": [1], "winners": [1], "awards": [6, 0, 0]}]
    assert replay_in_pokerkit(text) == [54, 48, 48]
    # pokerkit reads the stand as a no-operation carrying the check as its comment.
    state = list(load(text))[-1]
    notes = [op.commentary for op in state.operations if isinstance(op, NoOperation)]
    assert notes == [f"p2 cc {BRING_IN_LAST_TURN_NOTE}"]


def test_choice_bring_in_that_completes_is_a_cbr() -> None:
    # swedish, top dealing, no burns: p1 = seat 1 gets cards 0, 2, 4; seat 2
    # gets 1, 3, 5 (door 2c) and completes to 2; seat 1 folds. Seat 2's
    # completion beyond seat 1's ante comes back: he wins the two antes.
    deck = top_deck("Ah Kd As Qd 9s 2c")
    hand = Hand(PROFILES["swedish"], Stakes(1, 1, 2, 4), [(1, 50), (2, 50)], 2, deck)
    hand.complete(2)
    hand.fold(1)
    text = export_phh(hand, redact_for=2)
    data = tomllib.loads(text)
    assert data["actions"] == ["d dh p1 ????9s", "d dh p2 KdQd2c", "p2 cbr 2", "p1 f"]
    assert data["bring_in"] == 1
    assert replay_in_pokerkit(text) == [49, 51]


@pytest.mark.parametrize(
    ("stack", "choice", "expected"),
    [
        # 8 chips after the ante, the bring-in is 5 and the small bet 10: a
        # completion all in for 8 is more than the bring-in, pokerkit's cbr 8.
        (9, ActionKind.COMPLETE, "p2 cbr 8"),
        # The bring-in itself, 5: pokerkit's pb posts the bring_in field, 5.
        (9, ActionKind.BRING_IN, "p2 pb"),
        # 4 chips after the ante: all in for 4 either way, which is what pb
        # posts in pokerkit too (the bring-in or the stack, whichever is less).
        (5, ActionKind.COMPLETE, "p2 pb"),
    ],
)
def test_choice_bring_in_all_in(stack: int, choice: ActionKind, expected: str) -> None:
    # memaid, top dealing: seat 2 has the 2c door and chooses the bring-in's size.
    deck = top_deck("Ah Kd As Qd 9s 2c")
    hand = Hand(PROFILES["memaid"], Stakes(1, 5, 10, 20), [(1, 100), (2, stack)], 2, deck)
    hand.act(2, choice)
    hand.fold(1)
    data = tomllib.loads(export_phh(hand, reveal_all=True))
    assert data["actions"][2:] == [expected, "p1 f"]
    assert data["bring_in"] == 5


def test_range_bring_in_of_another_size_sets_the_bring_in_field() -> None:
    # casinos_austria burns before third street: card 0 is burned, then seat 1
    # gets cards 1, 3, 5 and seat 2 cards 2, 4, 6 (door 2c). Stakes 1/2/4/8:
    # seat 2 brings it in for 3 (any size from the ante up to 3), seat 1 folds;
    # 3 - 1 comes back, the two antes stay: 2 chips, 5 % rake of 2 rounds to 0.
    deck = top_deck("Ts Ah Kd As Qd 9s 2c")
    hand = Hand(PROFILES["casinos_austria"], Stakes(1, 2, 4, 8), [(1, 50), (2, 50)], 2, deck)
    hand.bring_in(2, 3)
    hand.fold(1)
    text = export_phh(hand, reveal_all=True)
    data = tomllib.loads(text)
    assert data["actions"] == ["d dh p1 AhAs9s", "d dh p2 KdQd2c", "p2 pb", "p1 f"]
    assert (data["bring_in"], data["_bring_in_stake"]) == (3, 2)
    assert data["_burn_cards"] == ["Ts"]
    assert data["_rake"] == 0
    assert replay_in_pokerkit(text) == [49, 51]


def test_protection_is_a_comment_and_listed() -> None:
    # multipoker: seat 2 (door 2c) brings in 1; seat 1 times out having put in
    # his ante: all-in protection for 1 chip. Nobody else can bet: the cards run
    # out and seat 1's aces win the pot of 2 (seat 2's bring-in beyond the
    # antes comes back).
    deck = top_deck("Ah 3c As 4d Ad 2c Ac 5h Kd 7s Ks 8h Kh 9c")
    hand = Hand(PROFILES["multipoker"], Stakes(1, 1, 2, 4), [(1, 50), (2, 50)], 2, deck)
    hand.timeout(1)
    assert hand.is_over
    data = tomllib.loads(export_phh(hand, redact_for=2))
    assert "# p1 protected (timeout): all in for 1" in data["actions"]
    assert data["_protected"] == [1]
    assert data["finishing_stacks"] == [51, 49]
    assert data["actions"][-2:] == ["p1 sm AhAsAdAcKdKsKh", "p2 sm 3c4d2c5h7s8h9c"]


def test_cancelled_hand() -> None:
    deck = slot_deck([["Qc", "Jc", "Ah"], ["Qd", "Jd", "2c"]])
    hand = Hand(PROFILES["house"], Stakes(1, 1, 2, 4), [(1, 50), (2, 40)], 2, deck)
    hand.call(1)
    hand.cancel()
    text = export_phh(hand, redact_for=1)
    data = tomllib.loads(text)
    assert data["actions"] == ["d dh p1 QcJcAh", "d dh p2 ????2c", "p2 pb", "p1 cc"]
    assert data["_cancelled"] is True
    assert data["finishing_stacks"] == data["starting_stacks"] == [50, 40]
    assert "_cancelled" not in tomllib.loads(export_phh(corpus_house_hand()))
    load(text)


def corpus_house_hand() -> Hand:
    return next(h for h in corpus() if h.settings.name == "house" and h.phase is Phase.COMPLETE)


def test_seats_map_to_players_from_the_buttons_left() -> None:
    deck = list(range(52))
    for button, order in ((7, (2, 5, 7)), (2, (5, 7, 2)), (5, (7, 2, 5))):
        hand = Hand(PROFILES["house"], Stakes(1, 1, 2, 4), [(2, 9), (5, 9), (7, 9)], button, deck)
        assert phh_seat_order(hand) == order
        while not hand.is_over:
            hand.fold(hand.to_act or 0)
        data = tomllib.loads(export_phh(hand, reveal_all=True))
        assert data["seats"] == list(order)
        assert data["_button"] == button
        # Slot dealing: the first player left of the button gets deck[0], deck[7], deck[14].
        assert data["actions"][0] == "d dh p1 " + "".join(format_card(c) for c in (0, 7, 14))


def test_equal_showing_hands_replay_with_the_buttons_left_first() -> None:
    # Seats 1, 2, 3, button 1: p1 = seat 2, p2 = seat 3, p3 = seat 1. Seat 2's
    # 2c door brings it in; seats 3 and 1 call, seat 2 stands. On fourth street
    # seats 3 and 1 both show K-7: the tie goes to seat 3, nearer the button's
    # left. pokerkit breaks the tie towards the lower player number, so the
    # replay holds only if p2 is seat 3. Seat 3 bets 2, both others fold: he
    # wins the 6 chips of third street (antes 3, 1 each on third street).
    deck = slot_deck(
        [
            ["Qd", "Jd", "2c", "3d"],  # seat 2
            ["Qh", "Jh", "Kc", "7c"],  # seat 3
            ["Qs", "Js", "Kd", "7d"],  # seat 1
        ]
    )
    hand = Hand(PROFILES["house"], Stakes(1, 1, 2, 4), [(1, 50), (2, 50), (3, 50)], 1, deck)
    hand.call(3)
    hand.call(1)
    hand.check(2)
    assert hand.to_act == 3
    hand.bet(3)
    hand.fold(1)
    hand.fold(2)
    text = export_phh(hand, redact_for=1)
    assert tomllib.loads(text)["actions"][-3:] == ["p2 cbr 2", "p3 f", "p1 f"]
    assert replay_in_pokerkit(text) == [48, 54, 48]


def test_high_low_variant_and_header_fields() -> None:
    hand = next(h for h in corpus() if h.settings.hi_lo)
    text = export_phh(
        hand,
        reveal_all=True,
        table="Graz 2",
        hand_number=41,
        seat_count=9,
        started_at=datetime.datetime(2024, 5, 17, 20, 15, 7, 999, tzinfo=datetime.UTC),
    )
    history = load(text)
    assert history.variant == "F7S/8"
    assert (history.table, history.hand, history.seat_count) == ("Graz 2", 41, 9)
    assert (history.year, history.month, history.day) == (2024, 5, 17)
    assert history.time == datetime.time(20, 15, 7)
    assert history.time_zone == "UTC"
    assert history.time_limit == hand.settings.action_seconds
    naive = tomllib.loads(
        export_phh(hand, reveal_all=True, started_at=datetime.datetime(2024, 5, 17, 20, 15))
    )
    assert "time_zone" not in naive
    assert naive["_rules"]["hi_lo"] is True
    assert naive["_rules"]["rake"] == {"percent": 5, "per_round": True}


def test_player_names_survive_any_text() -> None:
    hand = corpus_house_hand()
    # Every player gets every awkward piece: quotes, backslash, control
    # characters (newline, tab, DEL, NUL, BEL), non-ASCII, TOML syntax.
    awkward = 'a "quoted" back\\slash new\nline\ttab del\x7f nul\x00 bel\x07 Zoë 😀 # = [ \''
    seats = phh_seat_order(hand)
    players = {seat: f"{awkward}{i}" for i, seat in enumerate(seats)}
    text = export_phh(hand, players=players)
    expected = [players[seat] for seat in seats]
    assert tomllib.loads(text)["players"] == expected
    assert load(text).players == expected
    with pytest.raises(ValueError, match="surrogate"):
        export_phh(hand, players=dict.fromkeys(seats, "bad\udc80"))


def test_rules_keep_their_values() -> None:
    # A table's own rake of 2.5 % of the pot (a float in TOML), no cap (null: left out).
    settings = apply_overrides(PROFILES["house"], {"rake": {"percent": 2.5, "per_round": False}})
    deck = slot_deck([["Qc", "Jc", "Ah"], ["Qd", "Jd", "2c"]])
    hand = Hand(settings, Stakes(1, 1, 2, 4), [(1, 50), (2, 40)], 2, deck)
    hand.fold(1)
    rules = load(export_phh(hand)).user_defined_fields["_rules"]
    assert rules["rake"] == {"percent": 2.5, "per_round": False}
    assert rules["profile"] == "house"
    assert "short_deck" not in rules
    assert tomllib.loads(export_phh(hand))["_rules"]["rake"]["percent"] == 2.5


def test_refusals() -> None:
    deck = slot_deck([["Qc", "Jc", "Ah"], ["Qd", "Jd", "2c"]])
    hand = Hand(PROFILES["house"], Stakes(1, 1, 2, 4), [(1, 50), (2, 40)], 2, deck)
    with pytest.raises(ValueError, match="still being played"):
        export_phh(hand)
    hand.fold(1)
    with pytest.raises(ValueError, match="exclude each other"):
        export_phh(hand, reveal_all=True, redact_for=1)
    with pytest.raises(ValueError, match="not dealt into"):
        export_phh(hand, redact_for=3)
    with pytest.raises(ValueError, match="no player name for seat 2"):
        export_phh(hand, players={1: "ann"})


def test_doctests() -> None:
    result = doctest.testmod(phh)
    assert result.attempted > 0
    assert result.failed == 0
