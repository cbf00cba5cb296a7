"""The web table page keeps its session by itself: with 5-second access tokens it plays on for
several of their lifetimes in headless Chromium (clients/web/test/refresh-table.mjs), renewing
the token by ``POST /auth/refresh`` (one session, rotated, never a second log-in) with no
refusal shown, and its sign-out ends the session at the lobby."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import col, select

from lobby_api.accounts.models import PlayerRow
from lobby_api.sessions.models import RefreshTokenRow
from tests.clients.room import BotsProcess, card_room
from tests.clients.test_web_table import CHROMIUM, WEB, npm_packages

__all__ = ["npm_packages"]  # the fixture, shared with test_web_table

PASSWORD = "kim-password"
TOKEN_SECONDS = 5
PLAY_SECONDS = 24


async def _play_in_chromium(lobby_url: str) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        "node",
        "test/refresh-table.mjs",
        lobby_url,
        "kim",
        PASSWORD,
        str(PLAY_SECONDS),
        cwd=WEB,
        env={**os.environ, "STUD_CHROMIUM": str(CHROMIUM)},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), PLAY_SECONDS + 120)
    except TimeoutError:
        process.kill()
        stdout, stderr = await process.communicate()
    lines = stdout.decode().strip().splitlines()
    assert lines, f"exit {process.returncode}, no report\n{stderr.decode()}"
    report: dict[str, Any] = json.loads(lines[-1])
    report["exit"] = process.returncode
    report["stderr"] = stderr.decode()[-2000:]
    return report


@pytest.mark.usefixtures("npm_packages")
async def test_the_page_renews_its_token_while_he_plays_and_signs_out(tmp_path: Path) -> None:
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: scripts/install-system-deps installs it"
    async with card_room(tmp_path, between_hands_seconds=0.3, token_seconds=TOKEN_SECONDS) as room:
        bots = await BotsProcess.start(
            room.lobby_url,
            *("--cities", "oslo", "--per-city", "2", "--tables-per-bot", "1"),
            *("--think", "0.05", "--seed", "5"),
        )
        try:
            await bots.wait_for("waiting", 2)
            async with httpx.AsyncClient(base_url=room.lobby_url) as http:
                account = {"username": "kim", "password": PASSWORD, "city": "oslo"}
                created = await http.post("/accounts", json=account)
                assert created.status_code == 201, created.text
            report = await _play_in_chromium(room.lobby_url)
        finally:
            code = await bots.stop()
        assert code == 0, bots
        assert report["exit"] == 0 and report["ok"], json.dumps(report, indent=1)

        async with room.app.state.db.read() as session:
            tokens = (
                await session.exec(
                    select(RefreshTokenRow)
                    .join(PlayerRow, col(PlayerRow.id) == col(RefreshTokenRow.player_id))
                    .where(PlayerRow.username == "kim")
                )
            ).all()

    # He played on, well past several token lifetimes, and nothing was refused.
    clicks = report["clicks"]
    assert clicks and clicks[-1]["at"] - report["seatedAt"] >= 3 * TOKEN_SECONDS, clicks
    assert len({c["hand"] for c in clicks}) >= 2, clicks
    assert report["tableErrors"] == [], report["tableErrors"]
    assert report["link"] == "connected"
    # Renewed by refresh, each answered 200, one log-in; then the log-out.
    paths = [a["path"] for a in report["auth"]]
    assert paths[0] == "/auth/login" and paths[-1] == "/auth/logout", paths
    refreshes = [a for a in report["auth"] if a["path"] == "/auth/refresh"]
    assert len(refreshes) >= 3 and all(a["status"] == 200 for a in refreshes), refreshes
    assert paths.count("/auth/login") == 1, paths
    assert report["renewals"] == len(refreshes)
    assert report["kept"]["refreshToken"].startswith("rt_") and report["keptAfter"] is None
    # The lobby's side: one session, its tokens rotated, all revoked by the sign-out.
    assert len({t.session_id for t in tokens}) == 1, tokens
    assert sum(t.retired_at is not None for t in tokens) == len(refreshes)
    assert {t.revoked_reason for t in tokens} == {"logout"}
