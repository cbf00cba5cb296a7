"""Seating: taking a seat, leaving it, sitting out and in, and being connected.

Each rule checks a command against the table's state (raising :class:`TableError`, with
nothing changed), or applies what the store has recorded to the state and returns the
events that say so.
"""

from __future__ import annotations

from engine_server.table.errors import TableError
from engine_server.table.events import (
    ConnectionChanged,
    PlayerBusted,
    PlayerJoined,
    PlayerLeaving,
    PlayerLeft,
    PlayerMoved,
    PlayerSatIn,
    PlayerSatOut,
    UpdateEvent,
)
from engine_server.table.model import Removal, SeatState, SessionSnapshot, TableStatus
from engine_server.table.state import TableState

__all__ = [
    "check_may_watch",
    "check_open_for_seating",
    "connect",
    "leave_after_hand",
    "left",
    "next_button",
    "ready_seats",
    "remove_leavers",
    "repeated_removal",
    "repeated_seating",
    "seat_of_session",
    "seat_to_take",
    "seated",
    "seated_at",
    "session",
    "sit_out",
]


def session(state: TableState, seat: SeatState) -> SessionSnapshot:
    """``seat``'s session as the lobby sees it: open (closing when he leaves after the hand)."""
    return SessionSnapshot(
        session_id=seat.session_id,
        table_id=state.table_id,
        player_id=seat.player_id,
        seat=seat.seat,
        chips_in=seat.chips_in,
        stack=seat.stack,
        open=True,
        closing=seat.leaving,
        display_name=seat.display_name,
    )


def seated_at(state: TableState, number: int) -> SeatState:
    """Who sits in seat ``number`` (``NOT_SEATED`` if nobody does)."""
    seat = state.seats.get(number)
    if seat is None:
        raise TableError.denied("NOT_SEATED", f"nobody sits in seat {number}")
    return seat


def seat_of_session(state: TableState, session_id: str) -> SeatState:
    """The seat of an open seat session (``SEAT_SESSION_NOT_FOUND`` if none is here)."""
    seat = state.seat_of_session(session_id)
    if seat is None:
        raise TableError.not_found(
            "SEAT_SESSION_NOT_FOUND", f"no open seat session {session_id} here"
        )
    return seat


# --------------------------------------------------------------- taking a seat


def repeated_seating(
    state: TableState, session_id: str, player_id: str, number: int
) -> SessionSnapshot | None:
    """A retry of a SeatPlayer that seated this session: its answer (None: a new request).

    Raises ``IDEMPOTENCY_KEY_REUSED`` when the session was seated for another player or in
    another seat (``number`` 0: any seat).
    """
    for seat in state.seats.values():
        if seat.session_id == session_id:
            if seat.player_id != player_id or (number and seat.seat != number):
                raise TableError.invalid(
                    "IDEMPOTENCY_KEY_REUSED",
                    f"seat session {session_id} was opened with other parameters",
                    field="seat_session_id",
                )
            return session(state, seat)
    return None


def check_open_for_seating(state: TableState) -> None:
    if state.status in (TableStatus.CLOSING, TableStatus.CLOSED):
        raise TableError.precondition("TABLE_CLOSED", f"{state.config.name} is closed")


def seat_to_take(state: TableState, player_id: str, number: int) -> int:
    """The seat a new player takes: ``number``, or the lowest free one (``number`` 0)."""
    if state.seat_of_player(player_id) is not None:
        raise TableError.precondition(
            "ALREADY_SEATED", f"player {player_id} already sits at this table"
        )
    max_players = state.config.settings.max_players
    if number:
        if not 1 <= number <= max_players:
            raise TableError.invalid(
                "INVALID_SEAT", f"seat {number} is outside 1..{max_players}", field="seat"
            )
        if state.is_taken(number):
            raise TableError.precondition("SEAT_TAKEN", f"seat {number} is taken")
        return number
    free = [n for n in range(1, max_players + 1) if not state.is_taken(n)]
    if not free:
        raise TableError.precondition("TABLE_FULL", "every seat is taken")
    return free[0]


def seated(
    state: TableState,
    snapshot: SessionSnapshot,
    session_id: str,
    player_id: str,
    display_name: str,
) -> list[UpdateEvent]:
    """The store opened seat session ``session_id`` (``snapshot``): the player sits down."""
    if not snapshot.open:
        raise TableError.precondition("SEAT_SESSION_CLOSED", f"seat session {session_id} is closed")
    seat = SeatState(
        seat=snapshot.seat,
        player_id=player_id,
        display_name=display_name,
        session_id=session_id,
        stack=snapshot.stack,
        chips_in=snapshot.chips_in,
    )
    state.seats[seat.seat] = seat
    return [PlayerJoined(seat.seat)]


# --------------------------------------------------------------------- leaving


def repeated_removal(
    state: TableState,
    session_id: str,
    earlier: tuple[Removal, SessionSnapshot] | None,
    removal: Removal,
) -> SessionSnapshot | None:
    """The first answer to a RemovePlayer of this session here (``earlier``: the removal and
    answer the store recorded), or None: a new removal. Another reason, or a removal where
    the first relayed the player's leave (or the other way round), is another request
    (``IDEMPOTENCY_KEY_REUSED``)."""
    if earlier is None or earlier[1].table_id != state.table_id:
        return None
    first, answer = earlier
    if first.reason != removal.reason:
        raise TableError.invalid(
            "IDEMPOTENCY_KEY_REUSED",
            f"seat session {session_id} was removed with another reason",
            field="reason",
        )
    if first.by_player != removal.by_player:
        raise TableError.invalid(
            "IDEMPOTENCY_KEY_REUSED",
            f"seat session {session_id} was removed "
            + ("as his own leave" if first.by_player else "by ops, not as his own leave"),
            field="by_player",
        )
    return answer


def leave_after_hand(state: TableState, seat: SeatState, reason: str) -> list[UpdateEvent]:
    """A player in the running hand leaves when it ends (docs/rules.md §2.8)."""
    seat.leaving = True
    seat.leave_reason = reason
    return [PlayerLeaving(seat.seat)]


def left(state: TableState, seat: SeatState, reason: str) -> list[UpdateEvent]:
    """A player not in a hand leaves: paid out (by the store) with his stack."""
    state.seats.pop(seat.seat, None)
    return [PlayerLeft(seat.seat, seat.player_id, seat.display_name, seat.stack, reason)]


def remove_leavers(
    state: TableState, leaving: list[SeatState], start_stacks: dict[int, int] | None = None
) -> list[UpdateEvent]:
    """The hand is over: those leaving after it leave, with the stacks it left them (at a
    tournament table: those moved go to their next table, those busted are out;
    ``start_stacks``: each seat's chips at the hand's start)."""
    events: list[UpdateEvent] = []
    for seat in leaving:
        state.seats.pop(seat.seat, None)
        if seat.leave_reason == "busted":
            start = (start_stacks or {}).get(seat.seat, 0)
            events.append(
                PlayerBusted(seat.seat, seat.player_id, seat.display_name, state.hand_number, start)
            )
        elif seat.move_to is not None:
            events.append(
                PlayerMoved(seat.seat, seat.player_id, seat.display_name, seat.stack, seat.move_to)
            )
        else:
            events.append(
                PlayerLeft(
                    seat.seat, seat.player_id, seat.display_name, seat.stack, seat.leave_reason
                )
            )
    return events


# ------------------------------------------------------------- sitting out and in


def sit_out(state: TableState, number: int, out: bool) -> tuple[SeatState, list[UpdateEvent]]:
    """Sit out (``out``) or back in: at once between hands, else from the next hand."""
    seat = seated_at(state, number)
    if state.hand is None:
        seat.sitting_out = out
        seat.pending_sit_out = None
    else:
        seat.pending_sit_out = out
    return seat, [PlayerSatOut(number) if out else PlayerSatIn(number)]


def ready_seats(state: TableState) -> list[int]:
    """At a hand's start: the sit-outs and sit-ins asked during the last hand take effect;
    the seats that will be dealt in, in order."""
    for seat in state.seats.values():
        if seat.pending_sit_out is not None:
            seat.sitting_out = seat.pending_sit_out
            seat.pending_sit_out = None
    return sorted(
        s.seat for s in state.seats.values() if not s.sitting_out and not s.leaving and s.stack > 0
    )


def next_button(button: int | None, ready: list[int]) -> int:
    """The button moves to the next seat dealt in after it (the first seat at first)."""
    if button is None:
        return ready[0]
    later = [n for n in ready if n > button]
    return later[0] if later else ready[0]


# ------------------------------------------------------------------- connection


def check_may_watch(state: TableState, number: int | None) -> None:
    """A stream may watch an open table, as a seated player or (``number`` None) as ops."""
    if state.status is TableStatus.CLOSED:
        raise TableError.precondition("TABLE_CLOSED", f"{state.config.name} is closed")
    if number is not None and not state.is_taken(number):
        raise TableError.denied("NOT_SEATED", f"nobody sits in seat {number}")


def connect(
    state: TableState, number: int, connected: bool, clock_running: bool
) -> tuple[list[UpdateEvent], float]:
    """Seat ``number``'s player has (or no longer has) a stream open: the events (none if no
    one sits there, or it was so already), and the extra seconds his turn's clock gets.

    A player reconnecting on his turn gets ``reconnect_extra_seconds`` more (multipoker's
    rule), once per hand, while the clock runs (``clock_running``).
    """
    seat = state.seat_state(number)
    if seat is None or seat.connected == connected:
        return [], 0
    seat.connected = connected
    extra = state.config.settings.reconnect_extra_seconds if connected else 0
    hand = state.hand
    if (
        extra
        and hand is not None
        and hand.to_act == seat.seat
        and clock_running
        and not seat.reconnect_bonus_used
    ):
        seat.reconnect_bonus_used = True
    else:
        extra = 0
    return [ConnectionChanged(number, connected)], extra
