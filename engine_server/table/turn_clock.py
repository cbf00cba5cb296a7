"""The clock of the seat to act: its deadline, and the time the engine's own stalls give back.

When the event loop was stalled (the process stopped, the loop blocked: see
:mod:`engine_server.table.stalls`) nobody could be heard, but the monotonic clock ran on.
The turn's clock notes the node's stall counter when it is set, and when the heartbeat
wakes from a stall (or the deadline passes first) it moves the deadline on by what the
counter gained since, and tells the table (``TurnExtended``), as docs/operations.md,
"Freezes and stalls" says.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from engine_server.table.actor import TableActor
from engine_server.table.broadcast import Broadcaster
from engine_server.table.events import TurnExtended
from engine_server.table.stalls import StallWatch
from engine_server.table.state import TableState

__all__ = ["TurnClock"]

log = logging.getLogger("stud.table")


class TurnClock:
    """One table's turn deadline (loop time) and the stalls owed to it."""

    def __init__(
        self,
        state: TableState,
        stalls: StallWatch,
        broadcast: Broadcaster,
        actor: TableActor,
        log_ids: Callable[..., dict[str, Any]],
    ) -> None:
        self._state = state
        self._stalls = stalls
        self._broadcast = broadcast
        self._actor = actor
        self._log_ids = log_ids
        #: loop time when the turn's clock runs out (None: nobody's clock runs)
        self.ends_at: float | None = None
        #: the node's stall counter when the turn's clock was last set (or given time back)
        self._mark = 0.0

    def subscribe(self) -> None:
        """Hear of the heartbeat's stalls (while the table runs)."""
        self._stalls.subscribe(self._stalled)

    def unsubscribe(self) -> None:
        self._stalls.unsubscribe(self._stalled)

    def set(self, seconds: float) -> None:
        """The seat to act has ``seconds`` from now."""
        now = asyncio.get_running_loop().time()
        self.ends_at = now + seconds
        self._mark = self._stalls.stalled(now)
        self._state.turn_deadline = datetime.now(UTC) + timedelta(seconds=seconds)

    def stop(self) -> None:
        """Nobody's clock runs (the hand is over)."""
        self.ends_at = None
        self._state.turn_deadline = None

    def _stalled(self, seconds: float) -> None:
        """The heartbeat woke from a stall: the turn's clock gets it back (in the owner task)."""
        if self.ends_at is not None:
            self._actor.post("stall", self._after_stall)

    async def _after_stall(self) -> None:
        self.give_back(asyncio.get_running_loop().time())

    def give_back(self, now: float) -> bool:
        """Move the turn's deadline on by the seconds the loop was stalled since its clock was
        set (nobody could be heard then), and tell the table. Returns whether it moved."""
        stalled = self._stalls.stalled(now)
        owed = stalled - self._mark
        state = self._state
        hand = state.hand
        if (
            owed <= 0
            or self.ends_at is None
            or hand is None
            or hand.to_act is None
            or state.turn_deadline is None
        ):
            return False
        self._mark = stalled
        self.ends_at += owed
        state.turn_deadline += timedelta(seconds=owed)
        log.warning(
            "table %s hand %d: seat %d gets %.1f s back on his clock (the engine was stalled)",
            state.table_id,
            state.hand_number,
            hand.to_act,
            owed,
            extra=self._log_ids(seat=hand.to_act, stalled_seconds=round(owed, 3)),
        )
        self._broadcast.publish([TurnExtended(hand.to_act, state.turn_deadline, owed)])
        return True
