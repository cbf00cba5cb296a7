"""A real ``stud engine`` says what it waits for, and how long: at a restart after kill -9 (the
dead process's lease), and on SIGTERM (the running hands, up to the drain's limit)."""

from __future__ import annotations

import asyncio
import re
import signal
from pathlib import Path

from tests.engine_server.api.players import is_event
from tests.engine_server.api.test_crash_recovery import (
    EngineProcess,
    create_table,
    resume,
    start,
)

#: Long enough that the dead process's lease still runs when the next process (a new Python
#: process: a few seconds on a busy machine) asks for the node.
LEASE = 10.0


async def test_a_restart_after_kill_9_says_whose_lease_it_waits_for_and_until_when(
    tmp_path: Path,
) -> None:
    database = tmp_path / "engine.sqlite3"
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    first = await start(database, first_log, log_level="INFO", lease_seconds=LEASE)
    second: EngineProcess | None = None
    try:
        assert first.ready["lease_waited_seconds"] == 0, first.ready
        assert first.ready["drain_seconds"] == 30
        await first.process.kill_9()
        second = await start(database, second_log, log_level="INFO", lease_seconds=LEASE)
        text = second_log.read_text()
        waiting = re.search(
            r"node main is held by another process \(epoch 1, serving, last renewed at \S+\): "
            r"waiting up to (\d+\.\d) s, until its lease runs out at (\S+), to see whether",
            text,
        )
        assert waiting, text
        assert 0 < float(waiting.group(1)) <= LEASE
        claimed = re.search(
            r"node main claimed \(epoch 2\) after waiting (\d+\.\d) s: the lease of the process "
            r"that held it \(epoch 1\) ran out without a renewal",
            text,
        )
        assert claimed, text
        # The ready line says it too: how long the start waited for that lease.
        waited = second.ready["lease_waited_seconds"]
        assert 0 < waited <= LEASE + 1 and abs(waited - float(claimed.group(1))) <= 0.1
    finally:
        await first.close()
        if second is not None:
            await second.close()


async def test_sigterm_says_it_drains_which_hands_for_how_long_and_how_it_ended(
    tmp_path: Path,
) -> None:
    database, log = tmp_path / "engine.sqlite3", tmp_path / "engine.log"
    engine = await start(database, log, log_level="INFO")
    # Nobody acts: each of the two players facing the bring-in folds on a 3 s clock, so the
    # hand outlasts the drain's first progress report (every 5 s).
    await create_table(engine, "drain", action_seconds=3)
    players = [engine.player(f"p{seat}", "tables/drain") for seat in (1, 2, 3)]
    try:
        for player in players:
            await player.connect()
        await resume(engine, "drain")
        await players[0].wait_for(is_event("turn_started", 1), timeout=10)
        engine.process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            assert await engine.process.wait() == 0, log.read_text()
    finally:
        for player in players:
            await player.close()
        await engine.close()
    text = log.read_text()
    lines = [
        "SIGTERM: stopping; running hands finish first (up to 30 s)",
        "draining: waiting up to 30 s for 1 running hand(s) to finish (no new hand starts; a "
        "hand still running then is cancelled at the next start, every chip back)",
        "draining: 1 hand(s) still running, 25 s left of 30 s",
        "stopped: node main is free for the next start",
    ]
    for line in lines:
        assert line in text, (line, text)
    drained = re.search(r"drained in (\d+\.\d) s: 1 hand\(s\) finished", text)
    assert drained and 5 <= float(drained.group(1)) < 30, text
    positions = [text.index(line) for line in lines[:3]] + [drained.start(), text.index(lines[3])]
    assert positions == sorted(positions), "in the order they happen"
