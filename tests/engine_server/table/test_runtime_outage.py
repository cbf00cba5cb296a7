"""A table whose database goes away: it neither spins nor sticks, and stores the hand's end
once the database answers again, before anyone is told the result."""

from __future__ import annotations

import asyncio
from typing import Any

from engine_server.game.events import HandEnded
from engine_server.game.profiles import PROFILES, Stakes
from engine_server.table.errors import TableError
from engine_server.table.model import SeatState, SeedPair, TableConfig, TableStatus
from engine_server.table.ports import StartedHand
from engine_server.table.runtime import TableRuntime, Timing
from tests.engine_server.table.stubs import drain


class _FlakyStore:
    """A store whose writes fail as a database that is away fails them, while ``down``."""

    def __init__(self) -> None:
        self.down = False
        self.attempts: dict[str, int] = {}
        self.finished: list[dict[str, int]] = []
        self.hands = 0

    def _write(self, name: str) -> None:
        self.attempts[name] = self.attempts.get(name, 0) + 1
        if self.down:
            raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")

    async def start_hand(self, *args: Any, **kwargs: Any) -> StartedHand:
        self._write("start_hand")
        self.hands += 1
        return StartedHand(f"h{self.hands}", self.hands)

    async def finish_hand(
        self, hand_id: str, record: Any, stacks: dict[str, int], *rest: Any
    ) -> None:
        self._write("finish_hand")
        self.finished.append(stacks)

    async def set_table_status(self, *args: Any) -> None:
        # As the store adapter refuses a call the database did not answer.
        try:
            self._write("set_table_status")
        except ConnectionRefusedError as error:
            raise TableError.database_unavailable(str(error)) from None


def _runtime(store: _FlakyStore, action_seconds: float = 30.0) -> TableRuntime:
    config = TableConfig(
        "t1", PROFILES["house"], Stakes(1, 1, 2, 4), min_buy_in=10, action_seconds=action_seconds
    )
    seed = SeedPair("s1", "0" * 64, "c" * 64, "client", 0, "d" * 64)
    seats = [SeatState(n, f"p{n}", f"P{n}", f"ss{n}", 100, 100) for n in (1, 2)]
    return TableRuntime(
        config,
        seed,
        store,  # type: ignore[arg-type]
        status=TableStatus.WAITING,
        seats=seats,
        timing=Timing(between_hands_seconds=0.0, retry_seconds=0.05, retry_max_seconds=0.2),
    )


async def _until(condition: Any, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def test_a_hand_that_cannot_start_is_tried_again_with_pauses_that_grow() -> None:
    store = _FlakyStore()
    store.down = True
    runtime = _runtime(store)
    runtime.start()
    try:
        await asyncio.sleep(1.0)
        # 0.05, 0.1, then every 0.2 s: a handful of tries, not a spinning loop.
        tries = store.attempts["set_table_status"]
        assert 3 <= tries <= 10, store.attempts
        assert not runtime.hand_running and store.hands == 0
        store.down = False
        await _until(lambda: runtime.hand_running)
        assert runtime.status is TableStatus.PLAYING and store.hands == 1
    finally:
        await runtime.stop()


async def test_the_end_of_a_hand_is_stored_when_the_database_is_back_and_only_then_told() -> None:
    store = _FlakyStore()
    runtime = _runtime(store, action_seconds=0.1)
    runtime.start()
    try:
        await _until(lambda: runtime.hand_running)
        watcher = await runtime.watch(None)
        drain(watcher)
        store.down = True
        # The clock runs out for the player to act: the hand ends, its write fails.
        await _until(lambda: store.attempts.get("finish_hand", 0) >= 3)
        assert runtime.hand_running and runtime.hand_number == 1
        assert store.finished == []
        told = [e for u in drain(watcher) for e in u.events if isinstance(e, HandEnded)]
        assert told == []  # nobody saw a result the database does not hold
        store.down = False
        await _until(lambda: len(store.finished) >= 1)
        stacks = store.finished[0]
        assert sum(stacks.values()) == 200  # every chip of the hand is in the stacks stored
        await _until(
            lambda: any(isinstance(e, HandEnded) for u in drain(watcher) for e in u.events)
        )
        # The table deals on by itself.
        await _until(lambda: runtime.hand_number >= 2)
    finally:
        await runtime.stop()
