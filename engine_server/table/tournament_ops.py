"""The tournament director's commands on one table, over its :class:`TableState`.

Each checks and changes the state through the rules (:mod:`engine_server.table.rules.tournament`),
stores what must outlast a restart, and publishes the events; the table's runtime runs them in
its owner task (one at a time, as every command). What they do is in docs/tournaments.md.
"""

from __future__ import annotations

from engine_server.game.profiles import Stakes
from engine_server.table.broadcast import Broadcaster
from engine_server.table.errors import TableError
from engine_server.table.model import Destination, SessionSnapshot, TournamentInfo
from engine_server.table.ports import MoveOrder, TableStore
from engine_server.table.rules import seating, tournament
from engine_server.table.state import TableState

__all__ = ["award_place", "move_player", "set_hand_hold", "set_info", "set_stakes"]


async def set_stakes(
    state: TableState, store: TableStore, broadcast: Broadcaster, level: int, stakes: Stakes
) -> int:
    """SetStakes: ``level``'s stakes from the next hand on; returns that hand's number."""
    first, events, stored = tournament.set_stakes(state, level, stakes)
    if stored:
        await store.update_tournament(state.table_id, stored)
    broadcast.publish(events)
    return first


async def set_hand_hold(
    state: TableState, store: TableStore, broadcast: Broadcaster, held: bool
) -> bool:
    """SetHandHold: hold the next hand (hand-for-hand), or release it. Returns whether the
    table was released (the tables of a hand-for-hand round then start together, now)."""
    events, stored = tournament.set_hold(state, held)
    if stored:
        await store.update_tournament(state.table_id, stored)
    broadcast.publish(events)
    return bool(events) and not held


async def set_info(
    state: TableState, store: TableStore, broadcast: Broadcaster, info: TournamentInfo
) -> None:
    events, stored = tournament.set_info(state, info)
    if stored:
        await store.update_tournament(state.table_id, stored)
    broadcast.publish(events)


async def award_place(
    state: TableState,
    store: TableStore,
    broadcast: Broadcaster,
    player_id: str,
    display_name: str,
    place: int,
    prize: int,
) -> None:
    events, stored = tournament.award_place(state, player_id, display_name, place, prize)
    if stored:
        await store.update_tournament(state.table_id, stored)
    broadcast.publish(events)


async def move_player(
    state: TableState,
    store: TableStore,
    broadcast: Broadcaster,
    session_id: str,
    request_id: str,
    destination: Destination,
) -> SessionSnapshot:
    """MovePlayer: off this table for a seat elsewhere, now or when his hand ends."""
    if state.config.tournament is None:
        tournament.check_tournament(state)  # NOT_A_TOURNAMENT_TABLE
    # Idempotent by request_id: a retry gets the session as it is now and moves nothing,
    # however late it comes (the table closed since included).
    earlier = await store.recorded_move(request_id)
    if earlier is not None:
        if (earlier.session_id, earlier.destination) != (session_id, destination):
            raise TableError.invalid(
                "IDEMPOTENCY_KEY_REUSED",
                f"request_id {request_id!r} moved another session or elsewhere",
                field="request_id",
            )
        seat = state.seat_of_session(session_id)
        return earlier.session if seat is None else seating.session(state, seat)
    tournament.check_tournament(state)
    seat = seating.seat_of_session(state, session_id)
    tournament.check_move(state, seat)
    order = MoveOrder(request_id, destination)
    if state.in_running_hand(seat):
        await store.mark_closing(seat.session_id, move=order)
        broadcast.publish(tournament.move_after_hand(seat, destination))
        return seating.session(state, seat)
    closed = await store.close_session(seat.session_id, seat.stack, "moved", move=order)
    broadcast.publish(tournament.moved(state, seat, destination))
    broadcast.end_seats([seat.seat])
    return closed
