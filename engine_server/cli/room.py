"""The running card room's addresses: ``var/room.json``, written by ``stud run``.

``stud run`` writes the file once every part is up and removes it when it stops, so the
follow-up commands run from the same directory (``stud admin``, ``stud describe``,
``stud bots``) find the room on whatever ports it was given, without flags. A file left
behind by a ``stud run`` that was killed names a process that is gone: it is ignored.

The precedence stays what each command documents first: a flag, then its environment
variable, then this file, then the built-in default.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

__all__ = ["ROOM_FILE", "read_room", "remove_room", "room_address", "write_room"]

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


def read_room(path: Path = ROOM_FILE) -> dict[str, Any]:
    """The running room's addresses, or ``{}`` when there is no file, it cannot be read, or
    the ``stud run`` that wrote it is gone."""
    try:
        room = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(room, dict) or not isinstance(room.get("pid"), int):
        return {}
    try:
        os.kill(room["pid"], 0)
    except ProcessLookupError:
        return {}
    except PermissionError:
        pass  # alive, another user's
    return room


def room_address(key: str, path: Path = ROOM_FILE) -> str | None:
    """One address of the running room (``grpc``, ``web``, ``lobby``, ``metrics``), or None."""
    value = read_room(path).get(key)
    return value if isinstance(value, str) and value else None
