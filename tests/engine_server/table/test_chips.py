"""Chip rules on a table state: buy-ins, and chips added between hands."""

from __future__ import annotations

from engine_server.table.events import ChipsAdded, PlayerSatIn
from engine_server.table.model import SessionSnapshot
from engine_server.table.rules import CASH_RULES, chips
from tests.engine_server.table.states import deal, refused, seat, table_state


def _session(stack: int, chips_in: int, table_id: str = "t1") -> SessionSnapshot:
    return SessionSnapshot("ss1", table_id, "p1", 1, chips_in, stack, open=True)


def test_a_buy_in_must_be_within_the_tables_range() -> None:
    ranged = table_state(min_buy_in=40, max_buy_in=200).config
    chips.check_buy_in(ranged, 40, "buy_in")
    chips.check_buy_in(ranged, 200, "buy_in")
    for amount in (0, -5, 39, 201):
        assert refused(chips.check_buy_in, ranged, amount, "buy_in") == "BUY_IN_OUT_OF_RANGE"
    open_ended = table_state(min_buy_in=0, max_buy_in=0).config
    chips.check_buy_in(open_ended, 10**9, "buy_in")
    assert refused(chips.check_buy_in, open_ended, 0, "buy_in") == "BUY_IN_OUT_OF_RANGE"
    # The cash table's rules are these.
    assert refused(CASH_RULES.check_buy_in, ranged, 39, "buy_in") == "BUY_IN_OUT_OF_RANGE"


def test_chips_are_added_only_between_hands_to_an_open_session() -> None:
    state = table_state(seat(1), seat(2))
    assert chips.addition_seat(state, "ss1", 50) is state.seats[1]
    assert refused(chips.addition_seat, state, "ss7", 50) == "SEAT_SESSION_NOT_FOUND"
    assert refused(chips.addition_seat, state, "ss1", 0) == "BUY_IN_OUT_OF_RANGE"
    deal(state)
    assert refused(chips.addition_seat, state, "ss1", 50) == "HAND_IN_PROGRESS"


def test_chips_added_grow_the_stack_and_bring_a_player_with_none_back_in() -> None:
    state = table_state(seat(1, 0, sitting_out=True))
    taken = state.seats[1]
    assert chips.chips_added(taken, _session(150, 250)) == [ChipsAdded(1, 150, 150), PlayerSatIn(1)]
    assert (taken.stack, taken.chips_in, taken.sitting_out) == (150, 250, False)
    # A player who asked to sit out stays out; an addition that added nothing says nothing.
    taken.sitting_out, taken.pending_sit_out = True, True
    assert chips.chips_added(taken, _session(200, 300)) == [ChipsAdded(1, 50, 200)]
    assert taken.sitting_out
    assert chips.chips_added(taken, _session(200, 300)) == []


def test_a_retried_addition_gets_its_answer_only_at_its_own_table() -> None:
    state = table_state(seat(1))
    earlier = _session(150, 250)
    assert chips.repeated_addition(state, earlier, "r1") is earlier
    elsewhere = _session(150, 250, table_id="t2")
    assert refused(chips.repeated_addition, state, elsewhere, "r1") == "IDEMPOTENCY_KEY_REUSED"


def test_a_stack_above_the_maximum_buy_in_is_noticed() -> None:
    state = table_state(seat(1, 180), max_buy_in=200)
    taken = state.seats[1]
    assert chips.above_maximum(state.config, taken, _session(230, 230))
    assert not chips.above_maximum(state.config, taken, _session(200, 200))
    assert not chips.above_maximum(table_state().config, taken, _session(10**6, 10**6))
