"""Seating rules on a table state: seats taken and left, sitting out and in, connections."""

from __future__ import annotations

from engine_server.game.profiles import PROFILES
from engine_server.table.events import (
    ConnectionChanged,
    PlayerJoined,
    PlayerLeaving,
    PlayerLeft,
    PlayerSatIn,
    PlayerSatOut,
)
from engine_server.table.model import Removal, SessionSnapshot, TableStatus
from engine_server.table.rules import seating
from tests.engine_server.table.states import deal, refused, seat, table_state


def _snapshot(number: int, session_id: str = "ss9", stack: int = 200) -> SessionSnapshot:
    return SessionSnapshot(session_id, "t1", f"p{number}", number, stack, stack, open=True)


def test_a_new_player_takes_the_seat_asked_or_the_lowest_free_one() -> None:
    state = table_state(seat(1), seat(3))
    assert seating.seat_to_take(state, "p9", 0) == 2
    assert seating.seat_to_take(state, "p9", 5) == 5
    assert refused(seating.seat_to_take, state, "p9", 3) == "SEAT_TAKEN"
    assert refused(seating.seat_to_take, state, "p9", 8) == "INVALID_SEAT"  # house: 7 seats
    assert refused(seating.seat_to_take, state, "p1", 0) == "ALREADY_SEATED"
    full = table_state(*(seat(n) for n in range(1, PROFILES["house"].max_players + 1)))
    assert refused(seating.seat_to_take, full, "p9", 0) == "TABLE_FULL"


def test_a_seat_played_from_in_the_running_hand_stays_taken_after_its_player_left() -> None:
    state = table_state(seat(1), seat(2))
    deal(state)
    state.seats.pop(2)  # left; his hand plays on
    assert refused(seating.seat_to_take, state, "p9", 2) == "SEAT_TAKEN"
    assert seating.seat_to_take(state, "p9", 0) == 3


def test_the_player_sits_down_once_the_store_opened_his_session() -> None:
    state = table_state(seat(1))
    events = seating.seated(state, _snapshot(4), "ss9", "p4", "Dora")
    assert events == [PlayerJoined(4)]
    taken = state.seats[4]
    assert (taken.player_id, taken.display_name, taken.session_id, taken.stack) == (
        "p4",
        "Dora",
        "ss9",
        200,
    )
    closed = SessionSnapshot("ss8", "t1", "p5", 5, 200, 0, open=False)
    assert refused(seating.seated, state, closed, "ss8", "p5", "Eve") == "SEAT_SESSION_CLOSED"
    assert 5 not in state.seats


def test_a_retried_seating_gets_its_answer_and_another_use_of_the_session_isrefused() -> None:
    state = table_state(seat(1), seat(2))
    assert seating.repeated_seating(state, "ss9", "p9", 0) is None
    answer = seating.repeated_seating(state, "ss2", "p2", 0)
    assert answer is not None and (answer.seat, answer.open, answer.closing) == (2, True, False)
    assert seating.repeated_seating(state, "ss2", "p2", 2) == answer
    assert refused(seating.repeated_seating, state, "ss2", "p2", 3) == "IDEMPOTENCY_KEY_REUSED"
    assert refused(seating.repeated_seating, state, "ss2", "p7", 0) == "IDEMPOTENCY_KEY_REUSED"


def test_no_one_is_seated_at_a_table_closing_or_closed() -> None:
    for status in (TableStatus.CLOSING, TableStatus.CLOSED):
        state = table_state(status=status)
        assert refused(seating.check_open_for_seating, state) == "TABLE_CLOSED"
    seating.check_open_for_seating(table_state(status=TableStatus.PAUSED))


def test_leaving_between_hands_frees_the_seat_and_in_a_hand_after_it() -> None:
    state = table_state(seat(1), seat(2), seat(3))
    assert seating.left(state, state.seats[3], "left") == [PlayerLeft(3, "p3", "P3", 100, "left")]
    assert 3 not in state.seats
    deal(state)
    leaver = state.seats[2]
    assert state.in_running_hand(leaver)
    assert seating.leave_after_hand(state, leaver, "removed") == [PlayerLeaving(2)]
    assert leaver.leaving and leaver.leave_reason == "removed"
    assert seating.session(state, leaver).closing
    assert seating.remove_leavers(state, [leaver]) == [PlayerLeft(2, "p2", "P2", 100, "removed")]
    assert list(state.seats) == [1]


def test_a_removal_retried_gets_its_first_answer() -> None:
    state = table_state(seat(1))
    answer = _snapshot(1, "ss1")
    ops = Removal("collusion")
    assert seating.repeated_removal(state, "ss1", None, Removal("x")) is None
    assert seating.repeated_removal(state, "ss1", (ops, answer), Removal("collusion")) is answer
    assert (
        refused(seating.repeated_removal, state, "ss1", (ops, answer), Removal("other"))
        == "IDEMPOTENCY_KEY_REUSED"
    )
    # The same reason as the player's own leave is another request too.
    leave = Removal("collusion", by_player=True)
    assert refused(seating.repeated_removal, state, "ss1", (ops, answer), leave) == (
        "IDEMPOTENCY_KEY_REUSED"
    )
    assert seating.repeated_removal(state, "ss1", (leave, answer), leave) is answer
    elsewhere = SessionSnapshot("ss1", "t2", "p1", 1, 100, 100, open=True)
    assert seating.repeated_removal(state, "ss1", (ops, elsewhere), Removal("other")) is None


def test_a_removal_closes_as_removed_and_a_relayed_leave_as_left() -> None:
    assert Removal("rude").close_reason == "removed"
    assert Removal("left through the lobby", by_player=True).close_reason == "left"


def test_sitting_out_takes_effect_at_once_between_hands_and_from_the_next_hand_in_one() -> None:
    state = table_state(seat(1), seat(2), seat(3))
    sat, events = seating.sit_out(state, 3, True)
    assert events == [PlayerSatOut(3)] and sat.sitting_out and sat.pending_sit_out is None
    assert seating.ready_seats(state) == [1, 2]
    assert refused(seating.sit_out, state, 6, True) == "NOT_SEATED"
    deal(state)
    sat, events = seating.sit_out(state, 3, False)
    assert events == [PlayerSatIn(3)] and sat.sitting_out and sat.pending_sit_out is False
    _, events = seating.sit_out(state, 1, True)
    assert not state.seats[1].sitting_out
    # The next hand's start applies both.
    state.hand = None
    assert seating.ready_seats(state) == [2, 3]
    assert state.seats[1].sitting_out and not state.seats[3].sitting_out


def test_no_chips_no_cards_and_the_button_moves_to_the_next_seat_dealt_in() -> None:
    state = table_state(seat(1, 0), seat(2), seat(4), seat(6))
    assert seating.ready_seats(state) == [2, 4, 6]
    assert seating.next_button(None, [2, 4, 6]) == 2
    assert seating.next_button(2, [2, 4, 6]) == 4
    assert seating.next_button(5, [2, 4, 6]) == 6
    assert seating.next_button(6, [2, 4, 6]) == 2


def test_connecting_is_told_once_and_a_reconnect_on_his_turn_buys_time_once_a_hand() -> None:
    state = table_state(seat(1), seat(2), seat(3), profile="multipoker")
    assert seating.connect(state, 5, True, False) == ([], 0)
    assert seating.connect(state, 1, True, False) == ([ConnectionChanged(1, True)], 0)
    assert seating.connect(state, 1, True, False) == ([], 0)
    deal(state)
    assert state.hand is not None and state.hand.to_act is not None
    turn = state.hand.to_act
    extra = state.config.settings.reconnect_extra_seconds
    assert extra > 0
    if state.seats[turn].connected:
        seating.connect(state, turn, False, True)
    # No clock running: nothing to extend.
    assert seating.connect(state, turn, True, False)[1] == 0
    seating.connect(state, turn, False, True)
    assert seating.connect(state, turn, True, True) == ([ConnectionChanged(turn, True)], extra)
    seating.connect(state, turn, False, True)
    assert seating.connect(state, turn, True, True)[1] == 0  # once a hand


def test_only_a_seated_player_or_ops_may_watch_an_open_table() -> None:
    state = table_state(seat(1))
    seating.check_may_watch(state, 1)
    seating.check_may_watch(state, None)
    assert refused(seating.check_may_watch, state, 2) == "NOT_SEATED"
    closed = table_state(seat(1), status=TableStatus.CLOSED)
    assert refused(seating.check_may_watch, closed, 1) == "TABLE_CLOSED"
    assert refused(seating.check_may_watch, closed, None) == "TABLE_CLOSED"
