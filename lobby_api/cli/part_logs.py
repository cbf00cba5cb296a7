"""What ``stud run`` reads of its parts while they start and stop: the JSON line each prints
when ready, the records each adds to its log (``var/{part}.log``) that the terminal shows, and
the reason a part that died logged last."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lobby_api.cli.failure import Failed

__all__ = ["LogTail", "log_reason", "read_ready_line", "worth_telling"]


def log_reason(log_path: Path, offset: int) -> str:
    """What a part that died said last: the last error line it logged since ``offset``.

    Its log holds JSON records (``STUD_LOG_FORMAT=json``) and the plain one-line refusals
    of ``stud`` commands; a plain line or an ERROR/CRITICAL record counts, else the last
    line does.
    """
    try:
        with log_path.open(encoding="utf-8", errors="replace") as log:
            log.seek(offset)
            lines = [line.strip() for line in log.read().splitlines() if line.strip()]
    except OSError:
        return ""
    chosen = ""
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            chosen = line
            continue
        if not isinstance(record, dict):
            continue
        if record.get("level") in ("ERROR", "CRITICAL"):
            error = str(record.get("error") or "").strip().splitlines()
            chosen = str(record.get("message", line)) + (f" ({error[-1]})" if error else "")
        elif record.get("event") == "error":  # stud bots' events ({"event": "error", ...})
            bot = f"{record['bot']}: " if record.get("bot") else ""
            chosen = bot + str(record.get("detail", line))
    if not chosen and lines:
        chosen = lines[-1]
    return chosen[:500]


class LogTail:
    """The lines a part adds to its log (``var/{part}.log``) from ``offset`` on, as they come
    (only whole lines: one being written is read once it ends)."""

    def __init__(self, path: Path, offset: int) -> None:
        self.path = path
        self.offset = offset

    def records(self) -> list[dict[str, Any]]:
        """The JSON records among the new lines (others are skipped)."""
        try:
            with self.path.open("rb") as log:
                log.seek(self.offset)
                data = log.read()
        except OSError:
            return []
        whole, newline, _ = data.rpartition(b"\n")
        if not newline:
            return []
        self.offset += len(whole) + 1
        found = []
        for line in whole.decode("utf-8", errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict):
                    found.append(record)
        return found


def worth_telling(record: dict[str, Any]) -> str | None:
    """What the terminal shows of a part's log record while the part starts or stops: its
    warnings, and how the engine's drain goes (records counting hands); None for the rest.
    Errors are not: a part that dies of one is reported with it (:func:`log_reason`)."""
    if "message" not in record:
        return None
    if record.get("level") == "WARNING" or "hands_running" in record or "hands_finished" in record:
        return str(record["message"])
    return None


def read_ready_line(
    process: subprocess.Popen[str], name: str, timeout: float, watch: Callable[[], object]
) -> dict[str, Any]:
    """The JSON line a child prints on stdout when it is ready; ``watch()`` runs several times
    a second meanwhile (it tells what the part logs, and raises when it died or stud run is
    interrupted)."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    pending = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        watch()
        readable, _, _ = select.select([fd], [], [], 0.2)
        if not readable:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:  # its stdout closed: it is exiting, which watch() reports
            time.sleep(0.1)
            continue
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            with contextlib.suppress(ValueError):
                value = json.loads(line)
                if isinstance(value, dict):
                    return value
    raise Failed(f"the {name} did not report ready within {timeout:.0f} s")
