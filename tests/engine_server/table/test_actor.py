"""The table actor alone: a handler that knows nothing of poker, commands in order, a clock."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest

from engine_server.table.actor import TableActor
from engine_server.table.errors import TableError


class Recorder:
    """A handler that records what the actor asks of it; its deadline is set by the test."""

    def __init__(self) -> None:
        self.calls: list[Any] = []
        self.wake_at: float | None = None
        self.timer_arrivals: list[float] = []
        self.actor: TableActor | None = None

    async def on_start(self) -> None:
        self.calls.append("start")

    def next_wakeup(self) -> float | None:
        return self.wake_at

    async def on_timer(self, now: float) -> None:
        self.wake_at = None
        assert self.actor is not None
        self.timer_arrivals.append(self.actor.arrived)
        self.calls.append("timer")

    async def after_command(self) -> None:
        self.calls.append("after")

    def log_ids(self, **more: Any) -> dict[str, Any]:
        return {"table": "t1", **more}


def _actor(inline: bool = False) -> tuple[TableActor, Recorder]:
    handler = Recorder()
    actor = TableActor("t1", handler, inline=inline)
    handler.actor = actor
    return actor, handler


async def test_commands_run_one_at_a_time_in_the_order_sent() -> None:
    actor, handler = _actor()
    actor.start()
    try:
        running = 0

        async def command(n: int) -> int:
            nonlocal running
            running += 1
            assert running == 1, "two commands ran at once"
            await asyncio.sleep(0)
            handler.calls.append(n)
            running -= 1
            return n * 10

        answers = await asyncio.gather(*(actor.call("cmd", command, n) for n in range(5)))
        assert answers == [0, 10, 20, 30, 40]
        # Started first; each command is followed by the handler's after-command step.
        assert handler.calls == [
            "start",
            0,
            "after",
            1,
            "after",
            2,
            "after",
            3,
            "after",
            4,
            "after",
        ]
    finally:
        await actor.stop()


async def test_a_refusal_reaches_its_caller_and_the_loop_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    actor, handler = _actor()
    actor.start()
    try:

        async def refused() -> None:
            raise TableError.precondition("NOT_YOUR_TURN", "not now")

        async def broken() -> None:
            raise RuntimeError("boom")

        async def fine() -> str:
            return "ok"

        with caplog.at_level(logging.DEBUG, logger="stud.table"):
            with pytest.raises(TableError) as error:
                await actor.call("act", refused)
            assert error.value.reason == "NOT_YOUR_TURN"
            with pytest.raises(RuntimeError):
                await actor.call("pause", broken)
            assert await actor.call("leave", fine) == "ok"
        # Each command is logged under the name it was sent with.
        messages = [r.getMessage() for r in caplog.records]
        assert "table t1: act refused: NOT_YOUR_TURN" in messages
        assert "table t1: pause failed" in messages
        assert handler.calls.count("after") == 3
    finally:
        await actor.stop()


async def test_the_actor_wakes_at_the_handlers_deadline() -> None:
    actor, handler = _actor()
    handler.wake_at = asyncio.get_running_loop().time() + 0.02
    before = time.perf_counter()
    actor.start()
    try:
        async with asyncio.timeout(5):
            while "timer" not in handler.calls:
                await asyncio.sleep(0.005)
        # The wake-up is the cause of what the timer does: it is timed from then.
        assert handler.timer_arrivals[0] >= before
        # No deadline: it sleeps until a command comes.
        await asyncio.sleep(0.05)
        assert handler.calls.count("timer") == 1
    finally:
        await actor.stop()


async def test_a_command_is_timed_from_its_arrival() -> None:
    actor, _ = _actor()
    actor.start()
    try:

        async def arrived() -> float:
            return actor.arrived

        before = time.perf_counter()
        seen = await actor.call("cmd", arrived)
        assert before <= seen <= time.perf_counter()
    finally:
        await actor.stop()


async def test_a_table_not_running_refuses_its_commands() -> None:
    actor, _ = _actor()

    async def command() -> str:
        return "ran"

    with pytest.raises(TableError) as error:
        await actor.call("cmd", command)
    assert error.value.reason == "TABLE_MOVED"
    actor.start()
    await actor.stop()
    with pytest.raises(TableError) as error:
        await actor.call("cmd", command)
    assert error.value.reason == "TABLE_MOVED"


async def test_an_inline_table_runs_its_commands_in_the_callers_task() -> None:
    actor, handler = _actor(inline=True)

    async def command() -> asyncio.Task[Any] | None:
        return asyncio.current_task()

    assert await actor.call("cmd", command) is asyncio.current_task()
    assert handler.calls == []  # no owner task: no start, no after-command step
