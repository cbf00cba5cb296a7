"""Ops rules on a table state: pause, resume, drain and close, and the drain's hold."""

from __future__ import annotations

from engine_server.table.events import PlayerLeft, SeedRotated, TableStatusChanged
from engine_server.table.model import DrainHold, SessionSnapshot, TableStatus
from engine_server.table.rules import ops
from engine_server.table.rules.ops import StatusChange
from tests.engine_server.table.states import deal, refused, seat, table_state


def test_a_pause_waits_for_the_running_hand_and_is_refused_twice() -> None:
    state = table_state(seat(1), seat(2), status=TableStatus.PLAYING)
    assert ops.pause(state, "") == StatusChange(TableStatus.PAUSED, "paused by ops")
    deal(state)
    assert ops.pause(state, "audit") == StatusChange(TableStatus.PAUSING, "audit")
    for status in (TableStatus.PAUSED, TableStatus.PAUSING):
        state.status = status
        assert refused(ops.pause, state, "") == "TABLE_STATE"
    for status in (TableStatus.CLOSING, TableStatus.CLOSED):
        state.status = status
        assert refused(ops.pause, state, "") == "TABLE_STATE"


def test_resume_reopens_a_paused_table_unless_the_node_drains() -> None:
    state = table_state(seat(1), seat(2), status=TableStatus.PAUSED)
    assert ops.resume(state) == StatusChange(TableStatus.WAITING, "resumed by ops")
    deal(state)
    state.status = TableStatus.PAUSING
    assert ops.resume(state) == StatusChange(TableStatus.PLAYING, "resumed by ops")
    state.draining = True
    assert refused(ops.resume, state) == "DRAINING"
    state.status = TableStatus.WAITING
    assert refused(ops.resume, state) == "TABLE_STATE"


def test_a_drain_pauses_an_open_table_and_holds_it() -> None:
    state = table_state(seat(1), seat(2), status=TableStatus.WAITING)
    assert ops.drain(state, kept=False) == StatusChange(TableStatus.PAUSED)
    assert state.draining and state.held_by_drain is DrainHold.SHUTDOWN
    # The status change shows the drain as its reason, and keeps the hold while paused.
    event = ops.change_status(state, TableStatus.PAUSED, "")
    assert event == TableStatusChanged(TableStatus.PAUSED, "the engine node is draining")
    assert state.held_by_drain is DrainHold.SHUTDOWN
    # Ops drain the stopping node: their drain's hold is stored, the status stays.
    assert ops.drain(state, kept=True) == StatusChange(None)
    assert state.held_by_drain is DrainHold.DRAIN
    assert ops.drain(state, kept=True) is None
    # Ops pause a table the drain holds: the pause becomes theirs.
    assert ops.pause(state, "") == StatusChange(None)
    assert state.held_by_drain is None


def test_a_drain_during_a_hand_pauses_after_it_and_leaves_a_paused_table_as_it_is() -> None:
    state = table_state(seat(1), seat(2), status=TableStatus.PLAYING)
    deal(state)
    assert ops.drain(state, kept=True) == StatusChange(TableStatus.PAUSING)
    paused = table_state(status=TableStatus.PAUSED)
    assert ops.drain(paused, kept=False) is None
    assert paused.draining and paused.held_by_drain is None


def test_leaving_the_paused_statuses_drops_the_drains_hold() -> None:
    state = table_state(status=TableStatus.PAUSED)
    state.held_by_drain = DrainHold.DRAIN
    event = ops.change_status(state, TableStatus.WAITING, "resumed by ops")
    assert event == TableStatusChanged(TableStatus.WAITING, "resumed by ops")
    assert state.status is TableStatus.WAITING and state.held_by_drain is None


def test_closing_pays_everyone_out_reveals_the_seed_and_closes() -> None:
    state = table_state(seat(1), seat(2), status=TableStatus.WAITING)
    sessions = [
        SessionSnapshot("ss1", "t1", "p1", 1, 100, 130, open=False, close_reason="table_closed"),
        SessionSnapshot("ss2", "t1", "p2", 2, 100, 70, open=False, close_reason="table_closed"),
    ]
    revealed = SeedRotated("0" * 64, "c" * 64, "client", 3, state.seed)
    events = ops.closed(state, sessions, revealed, "closed by ops")
    assert events == [
        PlayerLeft(1, "p1", "P1", 130, "table_closed"),
        PlayerLeft(2, "p2", "P2", 70, "table_closed"),
        revealed,
        TableStatusChanged(TableStatus.CLOSED, "closed by ops"),
    ]
    assert state.seats == {} and state.status is TableStatus.CLOSED
