"""``stud lobby``: migrates an empty database, serves the API, stops cleanly on SIGTERM."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from benchmarks.processes import STUD, start_stud_blocking
from engine_server.store.migrate import current_revisions, head_revisions
from tests.ipv6 import needs_ipv6_loopback


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
    env["STUD_JWT_SECRET"] = "cli-test-secret-" + "q" * 40
    env["STUD_LOG_FORMAT"] = "text"
    return env


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_stud_lobby_migrates_serves_and_stops(tmp_path: Path, loop: str) -> None:
    url = f"sqlite:///{tmp_path}/cli.sqlite3"
    lobby = start_stud_blocking(
        *("lobby", "--port", "0", "--database-url", url, "--engine", "127.0.0.1:9"),
        env={**_environment(), "STUD_LOBBY_LOOP": loop},
        log=tmp_path / "lobby.log",
    )
    try:
        ready = lobby.ready
        assert ready["engine"] == "127.0.0.1:9" and ready["database"] == url
        assert ready["loop"] == loop
        with httpx.Client(base_url=ready["http"], timeout=10) as http:
            assert http.get("/health").json() == {"status": "ok"}
            assert {c["id"] for c in http.get("/cities").json()} >= {"oslo", "vienna"}
            assert http.get("/schema/openapi.json").status_code == 200
        assert current_revisions(url) == head_revisions()
    finally:
        code = lobby.stop(timeout=30)
    assert code == 0, lobby.log_tail()
    # Once up, what it holds is frozen out of the collector's walks (issue 16).
    said = (tmp_path / "lobby.log").read_text()
    settled = re.search(r"garbage collector settled: (\d+) objects", said)
    assert settled is not None and int(settled.group(1)) > 10_000, said


@needs_ipv6_loopback
@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_stud_lobby_on_an_ipv6_host_says_its_url_in_brackets(tmp_path: Path, host: str) -> None:
    url = f"sqlite:///{tmp_path}/v6.sqlite3"
    lobby = start_stud_blocking(
        *("lobby", "--host", host, "--port", "0", "--database-url", url),
        *("--engine", "[::1]:9"),
        env=_environment(),
        log=tmp_path / "lobby.log",
    )
    try:
        ready = lobby.ready
        address = urlsplit(ready["http"])
        assert (address.hostname, ready["http"]) == ("::1", f"http://[::1]:{address.port}")
        with httpx.Client(base_url=ready["http"], timeout=10) as http:
            assert http.get("/health").json() == {"status": "ok"}
    finally:
        code = lobby.stop(timeout=30)
    assert code == 0, lobby.log_tail()


def test_stud_lobby_refuses_bad_settings_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [STUD, "lobby", "--database-url", "mysql://somewhere/db"],
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("stud lobby: STUD_DATABASE_URL")
    assert len(done.stderr.strip().splitlines()) == 1


def test_stud_lobby_refuses_an_unknown_event_loop() -> None:
    done = subprocess.run(
        [STUD, "lobby"],
        env={**_environment(), "STUD_LOBBY_LOOP": "trio"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "stud lobby: STUD_LOBBY_LOOP: expected uvloop or asyncio, got 'trio'"
    )
