"""The follow-up commands and a ``var/room.json`` left by a ``stud run`` that is gone.

``stud describe``, ``stud admin`` and ``stud bots`` ignore such a file (its process is dead,
its parts stopped with it) and fall back to their defaults; when they then cannot reach
anything, their one line says why they did not use the file and where that room was, so an
operator who ran the room on other ports is not left wondering why they asked the default.
A file of a live ``stud run`` is used, and a missing one adds nothing to the message.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from engine_server.cli import main
from engine_server.cli.room import gone_note, left_behind, read_room, write_room

ROOM = {
    "lobby": "http://127.0.0.1:18000",
    "grpc": "127.0.0.1:18051",
    "web": "http://127.0.0.1:18081",
    "metrics": "http://127.0.0.1:18464/metrics",
}


def _dead_pid() -> int:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    return gone.pid


def _unused_address() -> str:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


@pytest.fixture
def room_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory holding a room file whose stud run is gone, as the working directory, with
    the defaults pointed at a port nothing listens on and no address in the environment."""
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "room.json").write_text(json.dumps({**ROOM, "pid": _dead_pid()}))
    monkeypatch.chdir(tmp_path)
    for name in ("STUD_ENGINE_ADDRESS", "STUD_BOTS_LOBBY", "STUD_ADMIN_TOKEN", "STUD_LOG_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("STUD_JWT_SECRET", "room-file-test-" + "s" * 40)
    unused = _unused_address()
    monkeypatch.setattr("engine_server.cli.describe.DEFAULT_ENGINE", unused)
    monkeypatch.setattr("engine_server.cli.describe.TIMEOUT_SECONDS", 0.5)
    monkeypatch.setattr("engine_server.cli.admin.DEFAULT_ENGINE", unused)
    return tmp_path


def _one_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    return code, lines[0]


def test_the_file_of_a_stud_run_that_is_gone_is_named(
    room_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    room = json.loads((room_dir / "var" / "room.json").read_text())
    assert read_room() == {} and left_behind() == room
    note = f"(var/room.json is left by a stud run that is no longer running, pid {room['pid']}"

    code, line = _one_error(capsys, ["describe"])
    assert code == 1
    assert line.startswith("stud describe: cannot reach the engine at 127.0.0.1:")
    assert line.endswith(f"{note}, which served it at 127.0.0.1:18051)")

    code, line = _one_error(capsys, ["admin", "--timeout", "2", "tables"])
    assert code == 1
    assert line.startswith("stud admin: cannot reach the engine at 127.0.0.1:")
    assert f"{note}, which served it at 127.0.0.1:18051): " in line

    code, line = _one_error(capsys, ["bots"])
    assert code == 2
    assert line == (
        "stud bots: --lobby URL is required (or STUD_BOTS_LOBBY, or a stud run running from "
        f"here) {note}, which served it at http://127.0.0.1:18000)"
    )


def test_an_address_given_or_a_live_room_gets_no_note(
    room_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An address given on the command line: the file had no part in the choice.
    unused = _unused_address()
    code, line = _one_error(capsys, ["describe", "--engine", unused])
    assert (code, line) == (1, f"stud describe: cannot reach the engine at {unused}")
    # The file of a live stud run (this process) is used as it is, and is not "left".
    write_room({**ROOM, "grpc": unused})
    assert left_behind() is None and gone_note("grpc") == ""
    code, line = _one_error(capsys, ["describe"])
    assert (code, line) == (1, f"stud describe: cannot reach the engine at {unused}")
    # No file: nothing to say.
    (room_dir / "var" / "room.json").unlink()
    assert left_behind() is None and gone_note("lobby") == ""
    code, line = _one_error(capsys, ["bots"])
    assert line == (
        "stud bots: --lobby URL is required (or STUD_BOTS_LOBBY, or a stud run running from here)"
    )
