"""A live table's state as one plain value: what the rules read and change.

The rules (:mod:`engine_server.table.rules`) take a :class:`TableState` and a command's
inputs, change the state and return the events saying what changed; the views
(:mod:`engine_server.table.views`) read it. Neither needs a loop, a clock or a store, so
each is tested on a :class:`TableState` built by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from engine_server.game.hand import Hand
from engine_server.game.profiles import Stakes
from engine_server.table.model import (
    DrainHold,
    LastHand,
    SeatState,
    SeedPair,
    TableConfig,
    TableStatus,
    TournamentInfo,
)

__all__ = ["OPEN_STATUSES", "TableState"]

#: the statuses in which hands are dealt
OPEN_STATUSES = (TableStatus.WAITING, TableStatus.PLAYING)


@dataclass(slots=True, eq=False)
class TableState:
    """One table: its settings and seed pair, its seats, and the running and last hands."""

    config: TableConfig
    seed: SeedPair
    status: TableStatus = TableStatus.WAITING
    #: hands started at this table so far (the next one is numbered one more)
    hands_started: int = 0
    button: int | None = None
    #: the occupied seats, by number
    seats: dict[int, SeatState] = field(default_factory=dict)
    #: this node drains: no hand starts here any more
    draining: bool = False
    #: paused by a drain (not by ops), and which one (stored with the status)
    held_by_drain: DrainHold | None = None
    #: railbirds watching without a seat (the broadcaster keeps it)
    watchers: int = 0

    # A tournament table's own state (see rules/tournament.py); the running level's stakes
    # are ``config.stakes``.
    level: int = 0
    #: SetStakes during a hand: the level and stakes the next hand is dealt at
    next_level: tuple[int, Stakes] | None = None
    #: hand-for-hand: no hand starts until the director releases the table
    hand_held: bool = False
    tournament_info: TournamentInfo | None = None
    #: AwardPlace: each player's place and prize, as first told
    places: dict[str, tuple[int, int]] = field(default_factory=dict)

    # The running hand (``hand`` None between hands).
    hand: Hand | None = None
    hand_id: str | None = None
    #: the running hand's number, or the last one's between hands
    hand_number: int = 0
    nonce: int | None = None
    #: the seats dealt into the running hand (a leaver's stays until the hand ends)
    hand_seats: dict[int, SeatState] = field(default_factory=dict)
    #: when the seat to act runs out of time (wall clock, as views show it)
    turn_deadline: datetime | None = None
    #: CancelHand: its reason, and what each seat had put into the hand it cancels
    cancel_reason: str = "cancelled"
    cancel_returned: dict[int, int] = field(default_factory=dict)

    # The last hand (a winner by folds may still show his cards).
    last_hand: LastHand | None = None
    last_hand_played: Hand | None = None

    @property
    def table_id(self) -> str:
        return self.config.table_id

    def seat_state(self, number: int) -> SeatState | None:
        """Who sits in seat ``number``, or still plays the running hand from it."""
        return self.seats.get(number) or self.hand_seats.get(number)

    def is_taken(self, number: int) -> bool:
        return number in self.seats or number in self.hand_seats

    def in_running_hand(self, state: SeatState) -> bool:
        """Whether the seat plays the running hand (its chips are in play)."""
        return self.hand is not None and state.seat in self.hand_seats

    def seat_of_session(self, session_id: str) -> SeatState | None:
        return next((s for s in self.seats.values() if s.session_id == session_id), None)

    def seat_of_player(self, player_id: str) -> SeatState | None:
        for state in self.seats.values():
            if state.player_id == player_id:
                return state
        return None
