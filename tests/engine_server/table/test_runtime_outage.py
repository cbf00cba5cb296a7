"""A table whose database goes away: it neither spins nor sticks, and stores the hand's end
once the database answers again, before anyone is told the result; an action the database
did not store is not taken (the player is told so) and the hand stays as it was."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine_server.game.actions import ActionKind
from engine_server.game.events import ActionTaken, HandEnded
from engine_server.game.profiles import PROFILES, Stakes
from engine_server.game.replay import hand_trail
from engine_server.table.errors import TableError
from engine_server.table.model import SeatState, SeedPair, TableConfig, TableStatus
from engine_server.table.ports import StartedHand
from engine_server.table.runtime import TableRuntime, Timing
from tests.engine_server.table.stubs import drain


class _FlakyStore:
    """A store whose writes fail as a database that is away fails them, while ``down``."""

    def __init__(self) -> None:
        self.down = False
        #: the actions' writes fail too (``down`` alone fails the others)
        self.actions_down = False
        #: the actions stored, by hand: (seq, record)
        self.actions: dict[str, list[tuple[int, dict[str, Any]]]] = {}
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

    async def record_actions(
        self, hand_id: str, first_seq: int, actions: list[dict[str, Any]]
    ) -> None:
        self.attempts["record_actions"] = self.attempts.get("record_actions", 0) + 1
        if self.actions_down:
            # As the store adapter refuses a call the database did not answer.
            raise TableError.database_unavailable("connection refused")
        stored = self.actions.setdefault(hand_id, [])
        assert [seq for seq, _ in stored] == list(range(first_seq)), "a gap or a rewrite"
        stored.extend((first_seq + n, a) for n, a in enumerate(actions))

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


async def test_an_action_the_database_did_not_store_is_refused_and_the_hand_is_unchanged() -> None:
    store = _FlakyStore()
    runtime = _runtime(store)
    runtime.start()
    try:
        await _until(lambda: runtime.hand_running)
        watcher = await runtime.watch(None)
        drain(watcher)
        hand = runtime.state.hand
        assert hand is not None and hand.to_act is not None
        seat, number = hand.to_act, runtime.hand_number
        before_events = len(hand.events)
        before_legal = hand.legal_actions()
        _, before_actions = hand_trail(hand)
        store.actions_down = True
        with pytest.raises(TableError) as refused:
            await runtime.act(seat, number, ActionKind.CALL, None, "a1")
        assert refused.value.reason == "DATABASE_UNAVAILABLE"
        # Not taken: the same hand, the same turn, the same choices; nobody heard of it.
        hand = runtime.state.hand
        assert hand is not None
        assert (hand.to_act, len(hand.events)) == (seat, before_events)
        assert hand.legal_actions() == before_legal
        assert hand_trail(hand)[1] == before_actions
        assert not [e for u in drain(watcher) for e in u.events if isinstance(e, ActionTaken)]
        # Back: the retry under the same action id is a new attempt, and it is taken.
        store.actions_down = False
        answer = await runtime.act(seat, number, ActionKind.CALL, None, "a1")
        assert answer.kind is ActionKind.CALL
        hand = runtime.state.hand
        assert hand is not None
        stored = store.actions[runtime.state.hand_id or ""]
        assert [seq for seq, _ in stored] == list(range(len(stored)))
        assert [a for _, a in stored] == hand_trail(hand)[1]
        assert stored[-1][1]["seat"] == seat and stored[-1][1]["do"] == "call"
    finally:
        await runtime.stop()


async def test_a_timeout_the_database_did_not_store_is_taken_again_once_it_is_back() -> None:
    store = _FlakyStore()
    runtime = _runtime(store, action_seconds=0.1)
    runtime.start()
    try:
        await _until(lambda: runtime.hand_running)
        watcher = await runtime.watch(None)
        drain(watcher)
        hand = runtime.state.hand
        assert hand is not None and hand.to_act is not None
        seat, events = hand.to_act, len(hand.events)
        store.actions_down = True
        await _until(lambda: store.attempts.get("record_actions", 0) >= 3)
        hand = runtime.state.hand
        assert hand is not None and (hand.to_act, len(hand.events)) == (seat, events)
        assert not [e for u in drain(watcher) for e in u.events if isinstance(e, ActionTaken)]
        store.actions_down = False
        await _until(lambda: store.finished)
        # Stored once, in its place: the forced actions of the deal, then his timeout.
        stored = [a for _, a in store.actions["h1"]]
        timeouts = [a for a in stored if a.get("timeout") is True]
        assert timeouts and timeouts[0]["seat"] == seat
        assert stored.index(timeouts[0]) == len([a for a in stored if a["do"] in ("bring_in",)])
    finally:
        await runtime.stop()
