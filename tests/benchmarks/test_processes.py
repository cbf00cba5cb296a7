"""benchmarks.processes: a child process's ready line, its signals, and a clear error when it
exits or stays silent instead (small Python scripts stand in for ``stud``)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from benchmarks.processes import (
    NotReady,
    start_ready,
    start_ready_blocking,
    start_stud,
)

#: Other lines first (as ``stud run`` prints), then the ready line, then one more line.
SERVES = (
    "import json, sys, time\n"
    "print('starting', flush=True)\n"
    "print(json.dumps({'web': 'w'}), flush=True)\n"
    "print(json.dumps({'grpc': '127.0.0.1:1', 'pid': 7}), flush=True)\n"
    "print(json.dumps({'after': 'ready'}), flush=True)\n"
    "time.sleep(60)\n"
)
FAILS = "import sys\nprint('not json', flush=True)\nsys.stderr.write('no database here\\n')\nsys.exit(3)\n"
SILENT = "import time\ntime.sleep(60)\n"


def _python(script: str) -> list[str]:
    return [sys.executable, "-c", script]


def _state(pid: int) -> str:
    """The process's state letter in /proc (``T``: stopped)."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]


async def test_the_ready_line_is_the_first_object_with_the_key(tmp_path: Path) -> None:
    started = await start_ready(
        _python(SERVES), name="server", env=os.environ, ready_key="grpc", log=tmp_path / "log"
    )
    try:
        assert started.ready == {"grpc": "127.0.0.1:1", "pid": 7}
        assert started.returncode is None and started.pid > 0
        # Without a key the first JSON object is the ready line.
        assert await started.wait_ready() == {"after": "ready"}
    finally:
        await started.close()
    assert started.returncode == -signal.SIGKILL


async def test_pause_resume_and_a_stop_that_resumes_first(tmp_path: Path) -> None:
    started = await start_ready(_python(SERVES), name="server", env=os.environ, ready_key="grpc")
    try:
        started.pause()
        for _ in range(100):
            if _state(started.pid) == "T":
                break
            await asyncio.sleep(0.01)
        assert _state(started.pid) == "T"
        # A stopped process hears no SIGTERM until SIGCONT: stop() sends both.
        assert await started.stop(timeout=10) == -signal.SIGTERM
    finally:
        await started.close()


async def test_kill_9_returns_the_crash_status() -> None:
    started = await start_ready(_python(SERVES), name="server", env=os.environ, ready_key="grpc")
    assert await started.kill_9() == -signal.SIGKILL
    assert await started.kill_9() == -signal.SIGKILL  # twice: no error for a dead process
    await started.close()


@pytest.mark.parametrize("logged", [True, False], ids=["log-file", "piped"])
async def test_an_early_exit_names_what_was_awaited_and_the_stderr_tail(
    tmp_path: Path, logged: bool
) -> None:
    log = tmp_path / "failing.log" if logged else None
    with pytest.raises(NotReady) as raised:
        await start_ready(
            _python(FAILS), name="stud engine", env=os.environ, ready_key="grpc", log=log
        )
    message = str(raised.value)
    assert message.startswith("stud engine exited before its ready line"), message
    assert "a JSON object with 'grpc'" in message
    assert "exit status 3" in message
    assert message.endswith("no database here\n"), message


async def test_silence_times_out_and_the_process_is_killed(tmp_path: Path) -> None:
    with pytest.raises(NotReady, match=r"quiet printed no ready line in 0\.5 s") as raised:
        await start_ready(
            _python(SILENT), name="quiet", env=os.environ, log=tmp_path / "q.log", timeout=0.5
        )
    # Killed (not left running), and its empty stderr said so.
    assert "exit status -9" in str(raised.value)
    assert str(raised.value).endswith("(nothing)")


async def test_start_stud_names_the_subcommand(tmp_path: Path) -> None:
    # An unknown subcommand: stud exits at once with its usage on stderr.
    with pytest.raises(NotReady, match="stud no-such-command exited before its ready line"):
        await start_stud("no-such-command", env=os.environ, log=tmp_path / "stud.log")


def test_the_blocking_variant_leaves_the_lines_after_the_ready_line(tmp_path: Path) -> None:
    started = start_ready_blocking(
        _python(SERVES), name="server", env=os.environ, ready_key="grpc", log=tmp_path / "log"
    )
    try:
        assert started.ready["grpc"] == "127.0.0.1:1"
        assert started.process.stdout is not None
        assert started.process.stdout.readline() == b'{"after": "ready"}\n'
        assert started.stop(timeout=10) == -signal.SIGTERM
    finally:
        started.close()


def test_the_blocking_variant_reports_an_early_exit(tmp_path: Path) -> None:
    log = tmp_path / "failing.log"
    with pytest.raises(
        NotReady, match=r"(?s)exited before its ready line.*exit status 3.*no database"
    ):
        start_ready_blocking(_python(FAILS), name="bad", env=os.environ, ready_key="grpc", log=log)
    with pytest.raises(NotReady, match=r"printed no ready line in 0\.3 s"):
        start_ready_blocking(_python(SILENT), name="quiet", env=os.environ, timeout=0.3)
