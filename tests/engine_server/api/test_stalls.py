"""A stalled engine gives the player to act back the time it could not hear him.

Two ways to stall it: the event loop blocked in-process (a 3 s ``time.sleep`` in the loop the
server runs on), and a real ``stud engine`` process frozen with SIGSTOP for 3 s, then SIGCONT.
Each time the player's clock is 2 s and had started before the freeze: without the time given
back, his clock would act for him the moment the engine runs again.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from google.protobuf import timestamp_pb2
from stud.v1 import table_pb2, table_service_pb2

from tests.engine_server.api.conftest import Engine, launch, shut
from tests.engine_server.api.players import Player, is_event, open_table, passive, pause
from tests.engine_server.api.test_crash_recovery import (
    EngineProcess,
    create_table,
    resume,
    start,
)

K = table_pb2
CLOCK = 2.0
FREEZE = 3.0


def seconds(stamp: timestamp_pb2.Timestamp) -> float:
    return stamp.seconds + stamp.nanos / 1e9


async def first_turn(players: list[Player]) -> tuple[Player, table_service_pb2.WatchTableResponse]:
    """The player whose clock runs first in hand 1, and the update that started it."""
    watcher = players[0]
    started = await watcher.wait_for(is_event("turn_started", 1), timeout=20)
    seat = started.snapshot.turn_seat
    return next(p for p in players if p.seat == seat), started


async def check_time_given_back(
    players: list[Player], to_act: Player, started: table_service_pb2.WatchTableResponse
) -> None:
    """After the freeze: the table is told his clock moved on by the freeze, he was not acted
    for, and he still acts himself, in time."""
    watcher = players[0]
    extended = await watcher.wait_for(is_event("turn_extended", 1), timeout=5)
    event = next(e for e in extended.events if e.WhichOneof("kind") == "turn_extended")
    assert event.turn_extended.seat == to_act.seat
    # The freeze, less the heartbeat's tolerance of scheduling noise at most.
    assert FREEZE - 0.5 <= event.turn_extended.added_ms / 1000 <= FREEZE + 1.5, event
    old_deadline = seconds(started.snapshot.turn_deadline)
    new_deadline = seconds(event.turn_extended.deadline)
    assert new_deadline - old_deadline == pytest.approx(
        event.turn_extended.added_ms / 1000, abs=0.01
    )
    assert seconds(extended.snapshot.turn_deadline) == pytest.approx(new_deadline, abs=0.001)
    assert extended.snapshot.turn_seat == to_act.seat
    # The clock did not act for him.
    timed_out = [e for e in watcher.events("action_taken", 1) if e.action_taken.timed_out]
    assert not timed_out, timed_out
    # He acts himself, and it is taken (his own view has his legal actions).
    snapshot = (await to_act.wait_for(is_event("turn_extended", 1), timeout=5)).snapshot
    legal = {a.kind for a in snapshot.legal_actions}
    kind = next(
        k for k in (K.ACTION_KIND_CHECK, K.ACTION_KIND_CALL, K.ACTION_KIND_FOLD) if k in legal
    )
    answer = await to_act.act(1, kind)
    assert answer is not None and not to_act.refusals, to_act.refusal_reasons()
    assert not answer.action.timed_out


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[Engine]:
    running = await launch(f"sqlite:///{tmp_path}/stalls.sqlite3")
    try:
        yield running
    finally:
        await shut(running)


async def test_a_blocked_event_loop_gives_the_player_to_act_his_time_back(engine: Engine) -> None:
    players = await open_table(
        engine, "stalled", [passive, passive, passive], overrides={"action_seconds": CLOCK}
    )
    try:
        to_act, started = await first_turn(players)
        # The server's loop is this test's: block it as a freeze would (nothing runs).
        time.sleep(FREEZE)
        await check_time_given_back(players, to_act, started)
        await pause(engine, "stalled")
    finally:
        for player in players:
            await player.close()


async def test_a_sigstopped_engine_gives_the_player_to_act_his_time_back(tmp_path: Path) -> None:
    database, log = tmp_path / "engine.sqlite3", tmp_path / "engine.log"
    engine = await start(database, log)
    try:
        await sigstop_and_play(engine, log)
    finally:
        await engine.close()


async def sigstop_and_play(engine: EngineProcess, log: Path) -> None:
    await create_table(engine, "frozen", action_seconds=CLOCK)
    players = [engine.player(f"p{seat}", "tables/frozen") for seat in (1, 2, 3)]
    try:
        for player in players:
            await player.connect()
        await resume(engine, "frozen")
        to_act, started = await first_turn(players)
        os.kill(engine.process.pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(FREEZE)
        finally:
            os.kill(engine.process.pid, signal.SIGCONT)
        await check_time_given_back(players, to_act, started)
        # The engine says what happened, in its log.
        async with asyncio.timeout(5):
            while "stalled" not in log.read_text():
                await asyncio.sleep(0.05)
        assert "players' clocks are given that time back" in log.read_text()
    finally:
        for player in players:
            await player.close()
