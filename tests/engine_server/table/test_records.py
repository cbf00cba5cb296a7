"""A hand's record as the store keeps it, finished or cancelled, with its trail."""

from __future__ import annotations

from engine_server.game.actions import ActionKind
from engine_server.game.cards import format_card
from engine_server.game.replay import hand_trail, result_to_json
from engine_server.table.records import hand_record
from engine_server.table.rules import hands
from tests.engine_server.table.states import deal, seat, table_state


def test_a_finished_hands_record_has_its_trail_result_and_phh() -> None:
    state = table_state(seat(1), seat(2))
    deal(state)
    hand = state.hand
    assert hand is not None and hand.to_act is not None
    folder = hand.to_act
    hand.act(folder, ActionKind.FOLD, None)
    record = hand_record(state, hand)
    cards, actions = hand_trail(hand)
    assert (record.cards, record.actions) == (cards, actions)
    # Every card dealt, with its deck position; the bring-in and the fold.
    assert [c["deck_index"] for c in cards] == sorted(c["deck_index"] for c in cards)
    assert {c["card"] for c in cards} == {format_card(card) for _, card, _ in hand.dealt_cards}
    assert [a["do"] for a in actions] == ["bring_in", "fold"]
    assert actions[1] == {
        "seat": folder,
        "do": "fold",
        "amount": 0,
        "to": 0,
        "all_in": False,
        "timeout": False,
    }
    assert record.result == result_to_json(hand.result())
    assert record.pots == record.result["pots"] and record.rake == record.result["rake"]
    assert record.phh is not None and "P1" in record.phh and "tables/t1" in record.phh


def test_a_cancelled_hands_record_says_what_went_back() -> None:
    state = table_state(seat(1), seat(2), seat(3))
    deal(state)
    hand = hands.cancel(state, 1, "audit")
    record = hand_record(state, hand)
    assert record.result == {
        "cancelled": True,
        "pots": [],
        "rake": 0,
        "returned": {str(n): c for n, c in sorted(state.cancel_returned.items())},
    }
    assert (record.pots, record.rake) == ([], 0)
    assert len(record.cards) == 9  # third street: two down and one up each
    assert [a["do"] for a in record.actions] == ["bring_in"]
