"""The event loop's own stalls, seen from inside: a heartbeat that notices when it ran late.

When the whole process stops (SIGSTOP and SIGCONT, a VM paused, a swap storm) or the loop is
blocked, no player can be heard, but the monotonic clock runs on: every turn's deadline
passes while nobody could act. The loop cannot prevent that, but it can see it afterwards —
a task that sleeps ``interval`` seconds and wakes ``interval + lag`` later has lost ``lag``
seconds — and the tables give those seconds back to the players whose clocks ran
(:class:`engine_server.table.turn_clock.TurnClock`), as docs/operations.md, "Freezes and
stalls" says.

:meth:`StallWatch.stalled` is a counter of stalled seconds: a table marks it when a clock
starts and, when the clock runs out, owes the player what the counter gained since. It
counts a stall the heartbeat has not yet woken from too (the table's own timer may run
first on the loop's first turn after a freeze), and the heartbeat's later account of the
same stall adds nothing twice.

>>> watch = StallWatch(interval=0.1, threshold=1.0)
>>> watch._beat(10.0, 10.0)  # started at 10.0
0.0
>>> watch.stalled(10.15)  # a little late: ordinary load, not a stall
0.0
>>> round(watch.stalled(13.6), 3)  # the loop woke 3.5 s late; the heartbeat has not run yet
3.5
>>> round(watch._beat(13.7, 10.0), 3)  # the heartbeat's own wake-up: counted once
3.6
>>> round(watch.stalled(13.8), 3)
3.6
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

__all__ = ["STALL_SECONDS", "StallWatch"]

log = logging.getLogger("stud.table")

#: A loop that ran this many seconds late was stalled. Well above a full collection or a
#: busy moment at 1,000 tables (BENCHMARKS.md: below a second), so ordinary load gives no
#: one extra time; a freeze of the process always counts.
STALL_SECONDS = 1.0
#: How often the heartbeat looks at the loop's clock.
HEARTBEAT_SECONDS = 0.1


class StallWatch:
    """One node's heartbeat, counting the seconds its event loop was stalled."""

    def __init__(
        self, interval: float = HEARTBEAT_SECONDS, threshold: float = STALL_SECONDS
    ) -> None:
        self.interval = interval
        self.threshold = threshold
        self._total = 0.0
        self._last: float | None = None
        self._task: asyncio.Task[None] | None = None
        self._listeners: list[Callable[[float], None]] = []
        #: called at every beat with how late it woke and the CPU time the loop's thread used
        #: since the last beat (seconds): the loop's lag, and whether its own work (CPU time
        #: about the beat's length) or waiting (for a core, the GIL) made it late; for metrics
        self.on_beat: Callable[[float, float], None] | None = None

    def start(self) -> None:
        """Start the heartbeat (in the running loop); starting it again does nothing."""
        if self._task is None or self._task.done():
            loop = asyncio.get_running_loop()
            self._last = loop.time()
            self._task = loop.create_task(self._run(), name="stall-watch")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def subscribe(self, listener: Callable[[float], None]) -> None:
        """Call ``listener(seconds)`` after each stall the heartbeat wakes from."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[float], None]) -> None:
        with contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    def stalled(self, now: float) -> float:
        """Seconds the loop has been stalled so far (a counter: compare two readings), the
        stall it is waking from at ``now`` (loop time) included."""
        return self._total + self._pending(now)

    def _pending(self, now: float) -> float:
        if self._last is None:
            return 0.0
        late = now - self._last - self.interval
        return late if late >= self.threshold else 0.0

    def _beat(self, now: float, started: float) -> float:
        """The heartbeat woke at ``now``: count a stall since its last beat (the seconds
        it adds; ``started``: the first beat's time when none came before)."""
        if self._last is None:
            self._last = started
        late = self._pending(now)
        # A stall the tables already read as pending is the same stall: the counter only
        # ever moves to what stalled() said, or a little past it (the heartbeat wakes later).
        self._total += late
        self._last = now
        return late

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        cpu = time.thread_time()
        while True:
            await asyncio.sleep(self.interval)
            now = loop.time()
            if self.on_beat is not None and self._last is not None:
                spent = time.thread_time()
                self.on_beat(max(0.0, now - self._last - self.interval), spent - cpu)
                cpu = spent
            late = self._beat(now, started)
            if late:
                log.warning(
                    "the event loop was stalled for %.1f s (the process was stopped or "
                    "blocked); players' clocks are given that time back",
                    late,
                    extra={"stalled_seconds": round(late, 3)},
                )
                for listener in list(self._listeners):
                    try:
                        listener(late)
                    except Exception:
                        log.exception("a stall listener failed")
