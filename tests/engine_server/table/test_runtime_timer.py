"""The table's owner task sleeps while no hand can start (paused, closing, draining)."""

from __future__ import annotations

import asyncio
from typing import Any

from engine_server.game.profiles import PROFILES, Stakes
from engine_server.table.model import DrainHold, SeatState, SeedPair, TableConfig, TableStatus
from engine_server.table.runtime import TableRuntime, Timing


class _StatusOnlyStore:
    """A store for a table that never deals: only status changes reach it."""

    def __init__(self) -> None:
        self.statuses: list[TableStatus] = []

    async def set_table_status(
        self, table_id: str, status: TableStatus, drain_hold: DrainHold | None = None
    ) -> None:
        self.statuses.append(status)

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a table that deals no hand called the store's {name}")


def _runtime(store: _StatusOnlyStore, status: TableStatus) -> TableRuntime:
    config = TableConfig("t1", PROFILES["house"], Stakes(1, 1, 2, 4), min_buy_in=10)
    seed = SeedPair("s1", "0" * 64, "c" * 64, "client", 0, "d" * 64)
    seats = [SeatState(n, f"p{n}", f"P{n}", f"ss{n}", 100, 100) for n in (1, 2)]
    return TableRuntime(
        config,
        seed,
        store,
        status=status,
        seats=seats,
        timing=Timing(between_hands_seconds=0.0),
    )


async def _timer_wakeups(runtime: TableRuntime, seconds: float) -> int:
    """How often the owner task woke for its timer in ``seconds``."""
    wakeups = 0
    on_timer = runtime.on_timer

    async def counting(now: float) -> None:
        nonlocal wakeups
        wakeups += 1
        await on_timer(now)

    runtime.on_timer = counting  # type: ignore[method-assign]
    await asyncio.sleep(seconds)
    return wakeups


async def test_a_paused_table_with_players_does_not_wake_for_its_next_hand() -> None:
    store = _StatusOnlyStore()
    runtime = _runtime(store, TableStatus.PAUSED)
    runtime.start()
    try:
        # The next hand was due at once (no pause between hands), but the table is paused:
        # its owner task used to wake for that past time again and again, spinning the loop.
        assert await _timer_wakeups(runtime, 0.2) <= 1
        assert runtime.hand_number == 0
    finally:
        await runtime.stop()


async def test_a_draining_table_does_not_wake_for_its_next_hand() -> None:
    store = _StatusOnlyStore()
    runtime = _runtime(store, TableStatus.WAITING)
    runtime.draining = True
    runtime.start()
    try:
        assert await _timer_wakeups(runtime, 0.2) <= 1
    finally:
        await runtime.stop()
