"""The node's heartbeat: it counts the seconds its event loop was stalled, and only those."""

from __future__ import annotations

import asyncio
import doctest
import time

from engine_server.table import stalls
from engine_server.table.stalls import StallWatch


def test_doctests() -> None:
    assert doctest.testmod(stalls, raise_on_error=False).failed == 0


async def test_a_blocked_loop_is_counted_once_and_listeners_hear_of_it() -> None:
    watch = StallWatch(interval=0.05, threshold=0.5)
    heard: list[float] = []
    watch.subscribe(heard.append)
    watch.start()
    watch.start()  # a second start changes nothing
    try:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(0.2)
        assert watch.stalled(loop.time()) == 0.0, "ordinary scheduling is no stall"
        time.sleep(1.0)  # the loop is blocked: nothing runs
        # Read before the heartbeat runs again: the stall it wakes from is already counted.
        pending = watch.stalled(loop.time())
        assert 0.8 <= pending <= 1.2
        await asyncio.sleep(0.2)
        assert len(heard) == 1 and 0.8 <= heard[0] <= 1.3
        assert watch.stalled(loop.time()) == heard[0] >= pending
        watch.unsubscribe(heard.append)
        time.sleep(0.6)
        await asyncio.sleep(0.2)
        assert len(heard) == 1, "an unsubscribed listener hears no more"
        assert watch.stalled(loop.time()) > heard[0]
    finally:
        await watch.stop()
