"""Hand rules on a table state: a hand dealt in, cancelled, ended, and shown after."""

from __future__ import annotations

from datetime import UTC, datetime

from engine_server.game.actions import ActionKind
from engine_server.game.fairness import deck_stream
from engine_server.game.hand import Hand
from engine_server.table.events import CardsShownAfter, HandBegan, PlayerSatOut
from engine_server.table.ports import StartedHand
from engine_server.table.rules import CASH_RULES, hands, seating
from engine_server.table.state import TableState
from tests.engine_server.table.states import deal, refused, seat, table_state


def _fold_to_the_end(state: TableState) -> Hand:
    """Everyone to act folds until the hand is won by folds."""
    hand = state.hand
    assert hand is not None
    while not hand.is_over:
        assert hand.to_act is not None
        kinds = [a.kind for a in hand.legal_actions()]
        hand.act(hand.to_act, ActionKind.FOLD if ActionKind.FOLD in kinds else kinds[0], None)
    return hand


def test_a_hand_begins_with_the_next_number_and_the_seed_pairs_next_nonce() -> None:
    state = table_state(seat(1), seat(2), seat(4, 0), seat(5, sitting_out=True))
    state.hands_started = 6
    state.button = 2
    ready = seating.ready_seats(state)
    assert ready == [1, 2]
    assert hands.players(state, ready) == [(1, "ss1", "p1", 100), (2, "ss2", "p2", 100)]
    began = hands.begin(state, StartedHand("h7", 41), ready, 1, CASH_RULES.stakes(state))
    assert began == HandBegan(7, 41, "c" * 64, "client", 1, (1, 2), state.config.stakes)
    assert (state.hands_started, state.hand_number, state.nonce, state.hand_id) == (7, 7, 41, "h7")
    assert state.seed.next_nonce == 42 and state.button == 1
    assert list(state.hand_seats) == [1, 2]
    # Dealt from the table's seed pair at that nonce (docs/fairness.md §2).
    assert state.hand is not None
    deck, _ = deck_stream("0" * 64, "client", 41)
    dealt = {card for _, card, _ in state.hand.dealt_cards}
    assert dealt <= set(deck)
    assert state.hand.stakes == state.config.stakes


def test_a_cancelled_hand_gives_every_chip_back() -> None:
    state = table_state(seat(1), seat(2), seat(3))
    assert refused(hands.cancel, state, 0, "") == "NO_HAND_IN_PROGRESS"
    deal(state)
    assert refused(hands.cancel, state, 2, "") == "STALE_HAND"
    assert state.hand is not None and state.hand.bring_in_info is not None
    bring_in = state.hand.bring_in_info.seat
    hand = hands.cancel(state, 1, "")
    assert hand.is_over and state.cancel_reason == "cancelled by ops"
    # What each put in: his ante, and the bring-in's.
    assert state.cancel_returned == {n: 2 if n == bring_in else 1 for n in (1, 2, 3)}
    final = hands.final_stacks(hand, cancelled=True)
    assert final == {1: 100, 2: 100, 3: 100}
    last = hands.finished(state, hand, final, None, datetime.now(UTC))
    assert last.cancelled and last.result is None
    assert last.returned == state.cancel_returned and last.final_stacks == final
    assert state.last_hand is last and state.last_hand_played is hand


def test_a_finished_hand_leaves_the_seats_their_stacks_and_a_bust_sits_out() -> None:
    state = table_state(seat(1), seat(2))
    deal(state)
    hand = _fold_to_the_end(state)
    final = hands.final_stacks(hand, cancelled=False)
    assert sum(final.values()) == 200 and final != {1: 100, 2: 100}
    last = hands.finished(state, hand, final, hand.result(), datetime.now(UTC))
    assert {n: s.stack for n, s in state.seats.items()} == final
    assert not last.cancelled and last.final_stacks == {} and last.hand_number == 1
    # A cash table sits out a player with no chips left, once.
    state.seats[1].stack = 0
    assert CASH_RULES.after_hand(state) == [PlayerSatOut(1)]
    assert CASH_RULES.after_hand(state) == []


def test_only_the_winner_by_folds_shows_and_only_where_the_rules_let_him() -> None:
    house = table_state(seat(1), seat(2))
    deal(house)
    hand = _fold_to_the_end(house)
    hands.finished(house, hand, hands.final_stacks(hand, False), hand.result(), datetime.now(UTC))
    house.hand = None
    winner = hand.result().pots[0].winners[0]
    assert refused(hands.show_after, house, winner, 1) == "SHOW_NOT_ALLOWED"

    state = table_state(seat(1), seat(2), profile="memaid")
    assert refused(hands.show_after, state, 1, 1) == "SHOW_NOT_ALLOWED"
    deal(state)
    hand = _fold_to_the_end(state)
    hands.finished(state, hand, hands.final_stacks(hand, False), hand.result(), datetime.now(UTC))
    state.hand = None
    winner = hand.result().pots[0].winners[0]
    loser = 3 - winner
    assert refused(hands.show_after, state, loser, 1) == "SHOW_NOT_ALLOWED"
    assert refused(hands.show_after, state, winner, 2) == "SHOW_NOT_ALLOWED"
    cards, events = hands.show_after(state, winner, 1)
    player = hand.player(winner)
    assert player is not None and cards == tuple(player.cards)
    assert events == [CardsShownAfter(winner, 1, cards)]
    assert state.last_hand is not None and state.last_hand.shown_after == {winner: cards}
