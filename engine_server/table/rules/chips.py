"""Chips: buy-ins and chips added to a seat between hands."""

from __future__ import annotations

from engine_server.table.errors import TableError
from engine_server.table.events import ChipsAdded, PlayerSatIn, UpdateEvent
from engine_server.table.model import SeatState, SessionSnapshot, TableConfig
from engine_server.table.state import TableState

__all__ = [
    "above_maximum",
    "addition_seat",
    "check_buy_in",
    "chips_added",
    "repeated_addition",
]


def check_buy_in(config: TableConfig, amount: int, field_name: str) -> None:
    """``amount`` must be within the table's buy-in range (``BUY_IN_OUT_OF_RANGE``)."""
    low, high = config.min_buy_in, config.max_buy_in
    if amount <= 0 or amount < low or (high and amount > high):
        limits = f"{low}..{high}" if high else f"at least {max(low, 1)}"
        raise TableError.invalid(
            "BUY_IN_OUT_OF_RANGE",
            f"{field_name} {amount} is outside the table's buy-in {limits}",
            field=field_name,
        )


def repeated_addition(
    state: TableState, earlier: SessionSnapshot, request_id: str
) -> SessionSnapshot:
    """A retry of an AddChips the store already applied: its first answer, if it was at
    this table (else ``IDEMPOTENCY_KEY_REUSED``)."""
    if earlier.table_id != state.table_id:
        raise TableError.invalid(
            "IDEMPOTENCY_KEY_REUSED",
            f"request_id {request_id!r} added chips at another table",
            field="request_id",
        )
    return earlier


def addition_seat(state: TableState, session_id: str, amount: int) -> SeatState:
    """The seat a new AddChips adds ``amount`` to: chips are added only between hands."""
    seat = state.seat_of_session(session_id)
    if seat is None:
        raise TableError.not_found(
            "SEAT_SESSION_NOT_FOUND", f"no open seat session {session_id} here"
        )
    if amount <= 0:
        raise TableError.invalid(
            "BUY_IN_OUT_OF_RANGE", "amount must be a positive integer", field="amount"
        )
    if state.in_running_hand(seat):
        raise TableError.precondition("HAND_IN_PROGRESS", "chips are added only between hands")
    return seat


def above_maximum(config: TableConfig, seat: SeatState, snapshot: SessionSnapshot) -> bool:
    """Whether the addition the store made leaves a stack above the maximum buy-in (allowed,
    and logged)."""
    high = config.max_buy_in
    return bool(high and snapshot.stack > high and snapshot.stack != seat.stack)


def chips_added(seat: SeatState, snapshot: SessionSnapshot) -> list[UpdateEvent]:
    """The store added chips (``snapshot``: the session after it): a player sitting out for
    want of chips sits back in, unless he asked to sit out."""
    added = snapshot.stack - seat.stack
    seat.stack = snapshot.stack
    seat.chips_in = snapshot.chips_in
    if not added:
        return []
    if seat.sitting_out and seat.pending_sit_out is None and seat.stack > 0:
        seat.sitting_out = False
        return [ChipsAdded(seat.seat, added, seat.stack), PlayerSatIn(seat.seat)]
    return [ChipsAdded(seat.seat, added, seat.stack)]
