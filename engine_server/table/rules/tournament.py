"""The director's commands at a tournament table: stakes, moves, the hold, info and places.

Each rule checks a command against the table's state (a :class:`TableError`, nothing
changed) or applies it and returns the events that say so, and what the store must keep
(the JSON of ``tables.tournament``), for the runtime to write before it publishes. The
table's own differences (busts, no cash-out, the hold's effect) are
:class:`~engine_server.table.rules.cash.TournamentRules`.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from engine_server.game.profiles import Stakes
from engine_server.table.errors import TableError
from engine_server.table.events import (
    HandHoldChanged,
    PlayerLeaving,
    PlayerMoved,
    StakesChanged,
    TournamentInfoChanged,
    TournamentPlaced,
    UpdateEvent,
)
from engine_server.table.model import (
    Destination,
    SeatState,
    TableStatus,
    TournamentInfo,
    TournamentTable,
)
from engine_server.table.state import TableState

__all__ = [
    "award_place",
    "check_move",
    "check_tournament",
    "info_from_json",
    "info_to_json",
    "move_after_hand",
    "moved",
    "set_hold",
    "set_info",
    "set_stakes",
    "stakes_from_json",
]


def check_tournament(state: TableState) -> TournamentTable:
    """The table's tournament (``NOT_A_TOURNAMENT_TABLE`` at a cash table; ``TABLE_CLOSED``
    once closed)."""
    tournament = state.config.tournament
    if tournament is None:
        raise TableError.precondition(
            "NOT_A_TOURNAMENT_TABLE", f"{state.config.name} is a cash table"
        )
    if state.status is TableStatus.CLOSED:
        raise TableError.precondition("TABLE_CLOSED", f"{state.config.name} is closed")
    return tournament


# ------------------------------------------------------------------------------ stakes


def set_stakes(
    state: TableState, level: int, stakes: Stakes
) -> tuple[int, list[UpdateEvent], dict[str, Any]]:
    """SetStakes: ``level``'s ``stakes`` from the next hand on (at once between hands).

    Returns the first hand dealt at them, the events (none when nothing changes) and what
    the store keeps (empty when nothing changes).
    """
    check_tournament(state)
    if level < 1:
        raise TableError.invalid("INVALID_ARGUMENT", "level must be 1 or more", field="level")
    if state.hand is not None:
        first = state.hand_number + 1
        upcoming = state.next_level or (state.level, state.config.stakes)
        if upcoming == (level, stakes):
            return first, [], {}
        state.next_level = (level, stakes)
    else:
        first = state.hands_started + 1
        if (state.level, state.config.stakes) == (level, stakes) and state.next_level is None:
            return first, [], {}
        state.config = replace(state.config, stakes=stakes)
        state.level = level
        state.next_level = None
    stored = {"level": level, "stakes": stakes.to_json()}
    return first, [StakesChanged(level, stakes, first)], stored


def stakes_from_json(value: Any) -> Stakes | None:
    if not isinstance(value, dict):
        return None
    return Stakes(
        int(value["ante"]), int(value["bring_in"]), int(value["small_bet"]), int(value["big_bet"])
    )


# ------------------------------------------------------------------------------- the hold


def set_hold(state: TableState, held: bool) -> tuple[list[UpdateEvent], dict[str, Any]]:
    """SetHandHold: hold the next hand (hand-for-hand) or release it; nothing if so already."""
    check_tournament(state)
    if state.hand_held == held:
        return [], {}
    state.hand_held = held
    return [HandHoldChanged(held)], {"hand_held": held}


# ------------------------------------------------------------------------------ the info


def set_info(state: TableState, info: TournamentInfo) -> tuple[list[UpdateEvent], dict[str, Any]]:
    """SetTournamentInfo: what the director says of the tournament, shown as given."""
    check_tournament(state)
    counts = {
        "level": info.level,
        "hands_to_next_level": info.hands_to_next_level,
        "players_left": info.players_left,
        "entrants": info.entrants,
        "average_stack": info.average_stack,
        "prize_pool": info.prize_pool,
        "places_paid": info.places_paid,
    }
    for name, value in counts.items():
        if value < 0:
            raise TableError.invalid(
                "INVALID_ARGUMENT", f"info.{name} must not be negative", field=f"info.{name}"
            )
    if state.tournament_info == info:
        return [], {}
    state.tournament_info = info
    return [TournamentInfoChanged(info)], {"info": info_to_json(info)}


def info_to_json(info: TournamentInfo) -> dict[str, Any]:
    return {
        "level": info.level,
        "stakes": None if info.stakes is None else info.stakes.to_json(),
        "next_level_time": None
        if info.next_level_time is None
        else info.next_level_time.isoformat(),
        "hands_to_next_level": info.hands_to_next_level,
        "next_stakes": None if info.next_stakes is None else info.next_stakes.to_json(),
        "players_left": info.players_left,
        "entrants": info.entrants,
        "average_stack": info.average_stack,
        "prize_pool": info.prize_pool,
        "hand_for_hand": info.hand_for_hand,
        "places_paid": info.places_paid,
    }


def info_from_json(value: Any) -> TournamentInfo | None:
    if not isinstance(value, dict):
        return None
    when = value.get("next_level_time")
    return TournamentInfo(
        level=int(value.get("level", 0)),
        stakes=stakes_from_json(value.get("stakes")),
        next_level_time=datetime.fromisoformat(when) if when else None,
        hands_to_next_level=int(value.get("hands_to_next_level", 0)),
        next_stakes=stakes_from_json(value.get("next_stakes")),
        players_left=int(value.get("players_left", 0)),
        entrants=int(value.get("entrants", 0)),
        average_stack=int(value.get("average_stack", 0)),
        prize_pool=int(value.get("prize_pool", 0)),
        hand_for_hand=bool(value.get("hand_for_hand", False)),
        places_paid=int(value.get("places_paid", 0)),
    )


# ----------------------------------------------------------------------------- the places


def award_place(
    state: TableState, player_id: str, display_name: str, place: int, prize: int
) -> tuple[list[UpdateEvent], dict[str, Any]]:
    """AwardPlace: tell the table a player's final place and prize, once (the same again
    changes nothing; another place or prize for him is ``IDEMPOTENCY_KEY_REUSED``)."""
    check_tournament(state)
    if place < 1:
        raise TableError.invalid("INVALID_ARGUMENT", "place must be 1 or more", field="place")
    if prize < 0:
        raise TableError.invalid("INVALID_ARGUMENT", "prize must not be negative", field="prize")
    told = state.places.get(player_id)
    if told is not None:
        if told != (place, prize):
            raise TableError.invalid(
                "IDEMPOTENCY_KEY_REUSED",
                f"player {player_id} was told place {told[0]} and prize {told[1]} already",
                field="player_id",
            )
        return [], {}
    state.places[player_id] = (place, prize)
    places = {pid: list(value) for pid, value in state.places.items()}
    return [TournamentPlaced(player_id, display_name, place, prize)], {"places": places}


# ------------------------------------------------------------------------------- the moves


def check_move(state: TableState, seat: SeatState) -> None:
    """A seat a new MovePlayer may move: not already leaving (moved by another request,
    ``IDEMPOTENCY_KEY_REUSED``, or leaving otherwise)."""
    if seat.leaving:
        raise TableError.invalid(
            "IDEMPOTENCY_KEY_REUSED",
            f"seat session {seat.session_id} is already being moved",
            field="request_id",
        )


def move_after_hand(seat: SeatState, destination: Destination) -> list[UpdateEvent]:
    """A player dealt into the running hand is moved when it ends."""
    seat.leaving = True
    seat.leave_reason = "moved"
    seat.move_to = destination
    return [PlayerLeaving(seat.seat)]


def moved(state: TableState, seat: SeatState, destination: Destination) -> list[UpdateEvent]:
    """A player not in a hand is moved now: his seat frees, with his chips going along."""
    state.seats.pop(seat.seat, None)
    return [PlayerMoved(seat.seat, seat.player_id, seat.display_name, seat.stack, destination)]
