"""The running card room's addresses: ``var/room.json``, written by ``stud run``.

``stud run`` writes the file once every part is up and removes it when it stops, so the
follow-up commands run from the same directory (``stud admin``, ``stud describe``,
``stud bots``) find the room on whatever ports it was given, without flags. A file left
behind by a ``stud run`` that was killed names a process that is gone: it is ignored, and a
command that then cannot reach the default address says so (:func:`gone_note`).

The precedence stays what each command documents first: a flag, then its environment
variable, then this file, then the built-in default.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

__all__ = [
    "ROOM_FILE",
    "gone_note",
    "left_behind",
    "read_room",
    "remove_room",
    "room_address",
    "write_room",
]

#: Relative to the working directory, like ``var/jwt-secret`` and the SQLite database.
ROOM_FILE = Path("var") / "room.json"


def write_room(addresses: dict[str, Any], path: Path = ROOM_FILE) -> None:
    """Write the room's addresses (and this process's id) atomically: a reader never sees
    half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps({**addresses, "pid": os.getpid()}, indent=2) + "\n")
    partial.replace(path)


def remove_room(path: Path = ROOM_FILE) -> None:
    """Remove the file if it is this process's (another ``stud run`` may have replaced it)."""
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()


def _read(path: Path) -> dict[str, Any] | None:
    """The file's addresses and writer's pid, or None when it cannot be read as such."""
    try:
        room = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(room, dict) or not isinstance(room.get("pid"), int):
        return None
    return room


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    return True


def read_room(path: Path = ROOM_FILE) -> dict[str, Any]:
    """The running room's addresses, or ``{}`` when there is no file, it cannot be read, or
    the ``stud run`` that wrote it is gone."""
    room = _read(path)
    return room if room is not None and _alive(room["pid"]) else {}


def left_behind(path: Path = ROOM_FILE) -> dict[str, Any] | None:
    """The file's addresses when the ``stud run`` that wrote it is gone (killed, or its
    machine restarted), else None."""
    room = _read(path)
    return room if room is not None and not _alive(room["pid"]) else None


def gone_note(key: str, path: Path = ROOM_FILE) -> str:
    """For a command that could not reach its default address: why ``path`` was not used,
    when it was left by a ``stud run`` that is gone (``""`` otherwise)."""
    room = left_behind(path)
    if room is None:
        return ""
    where = room.get(key)
    served = f", which served it at {where}" if isinstance(where, str) and where else ""
    return f" ({path} is left by a stud run that is no longer running, pid {room['pid']}{served})"


def room_address(key: str, path: Path = ROOM_FILE) -> str | None:
    """One address of the running room (``grpc``, ``web``, ``lobby``, ``metrics``), or None."""
    value = read_room(path).get(key)
    return value if isinstance(value, str) and value else None
