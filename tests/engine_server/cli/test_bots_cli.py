"""``stud bots``' events on stdout when nobody reads them any more.

Piped into a reader that goes away (``stud bots | head -5``), the bots stop as on SIGTERM
(they leave their tables) instead of logging a BrokenPipeError traceback per bot and playing
on: the emitter stops them once, and what they still report goes to /dev/null.
"""

from __future__ import annotations

import subprocess
import sys

CHILD = """
import sys
from engine_server.cli.bots import _emitter

calls = []
emit = _emitter(lambda: calls.append("stopped"))
emit("ready", bots=["bot_oslo_1"])
emit("seated", bot="bot_oslo_1")
emit("left", bot="bot_oslo_1")
print(f"on_closed ran {len(calls)} time(s)", file=sys.stderr)
"""


def test_a_reader_gone_stops_the_bots_once_and_quietly() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    child.stdout.close()  # the reader is gone before the first event
    _, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert err == "on_closed ran 1 time(s)\n"


def test_events_are_one_json_line_each() -> None:
    child = subprocess.run(
        [sys.executable, "-c", CHILD],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == 0, child.stderr
    lines = child.stdout.splitlines()
    assert [line.split('"event": ')[1].split('"')[1] for line in lines] == [
        "ready",
        "seated",
        "left",
    ]
    assert child.stderr == "on_closed ran 0 time(s)\n"
