"""Ops: a table's status (pause, resume, drain, close) as ops and the node move it."""

from __future__ import annotations

from dataclasses import dataclass

from engine_server.table.errors import TableError
from engine_server.table.events import PlayerLeft, SeedRotated, TableStatusChanged, UpdateEvent
from engine_server.table.model import DrainHold, SessionSnapshot, TableStatus
from engine_server.table.state import OPEN_STATUSES, TableState

__all__ = ["StatusChange", "change_status", "closed", "drain", "pause", "resume"]


@dataclass(frozen=True, slots=True)
class StatusChange:
    """What an ops command does to the status: move it to ``status`` (for ``reason``), or,
    ``status`` None, keep it and only store the drain hold now on it."""

    status: TableStatus | None
    reason: str = ""


def change_status(state: TableState, status: TableStatus, reason: str) -> TableStatusChanged:
    """The table moves to ``status`` (not its status now): the event shows it with the drain
    holding it, if any (store it with :attr:`TableState.held_by_drain`)."""
    state.status = status
    if status not in (TableStatus.PAUSING, TableStatus.PAUSED):
        state.held_by_drain = None
    if state.held_by_drain is not None:
        reason = "the engine node is draining"
    return TableStatusChanged(status, reason)


def drain(state: TableState, kept: bool) -> StatusChange | None:
    """This node drains: no hand starts here any more. An open table shows PAUSING while its
    hand plays out, then PAUSED. ``kept`` (ops' Drain): the pause outlasts a restart; else
    (the node stopping) the next start deals again."""
    hold = DrainHold.DRAIN if kept else DrainHold.SHUTDOWN
    state.draining = True
    if state.status in OPEN_STATUSES:
        state.held_by_drain = hold
        return StatusChange(_paused(state))
    if kept and state.held_by_drain is DrainHold.SHUTDOWN:
        # Ops drain a node that is stopping: their drain's pause outlasts the restart.
        state.held_by_drain = hold
        return StatusChange(None)
    return None


def pause(state: TableState, reason: str) -> StatusChange:
    if state.held_by_drain is not None:
        # Ops pause a table the drain holds: the pause becomes theirs, and is kept.
        state.held_by_drain = None
        return StatusChange(None)
    if state.status in (TableStatus.PAUSED, TableStatus.PAUSING):
        raise TableError.precondition("TABLE_STATE", "the table is already paused")
    if state.status in (TableStatus.CLOSING, TableStatus.CLOSED):
        raise TableError.precondition("TABLE_STATE", "the table is closed")
    return StatusChange(_paused(state), reason or "paused by ops")


def resume(state: TableState) -> StatusChange:
    if state.status not in (TableStatus.PAUSED, TableStatus.PAUSING):
        raise TableError.precondition("TABLE_STATE", "the table is not paused")
    if state.draining:
        raise TableError.precondition(
            "DRAINING", "this engine node is draining: it starts no new hands"
        )
    playing = TableStatus.PLAYING if state.hand is not None else TableStatus.WAITING
    return StatusChange(playing, "resumed by ops")


def closed(
    state: TableState, sessions: list[SessionSnapshot], revealed: SeedRotated, reason: str
) -> list[UpdateEvent]:
    """The store closed the table (``sessions``: every seat session, paid out): everyone
    leaves, the dealer seed is revealed (``revealed``), and the table is closed."""
    events: list[UpdateEvent] = []
    for session in sessions:
        seat = state.seats.pop(session.seat, None)
        if seat is not None:
            events.append(
                PlayerLeft(
                    seat.seat, seat.player_id, seat.display_name, session.stack, "table_closed"
                )
            )
    state.seats.clear()
    events.append(revealed)
    state.status = TableStatus.CLOSED
    events.append(TableStatusChanged(TableStatus.CLOSED, reason))
    return events


def _paused(state: TableState) -> TableStatus:
    """Paused at once between hands; while a hand runs, pausing until it ends."""
    return TableStatus.PAUSING if state.hand is not None else TableStatus.PAUSED
