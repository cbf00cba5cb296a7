"""A quick game nobody joins, on the web page (/play), in headless Chromium.

A real engine and the lobby run in this test's loop (tests/clients/room.py); the real bot
service runs as ``stud bots --on-request berlin`` (its bot desk serves Berlin);
clients/web/test/lonely-table.mjs drives Debian's Chromium with playwright-core:

- Cleo of Copenhagen sits alone; the page says she waits for players of Copenhagen, that
  nobody else looks for a game there, that bots could come (a desk, played by this test,
  serves Copenhagen and can send 2 bots to a table), and offers "Play with bots" (a table of
  2 or 3 players: no more than can come) and "Keep waiting". She asks for bots — the lobby
  lists her table to the desk; the desk then says it can send none, and the page stops
  saying bots are coming — then keeps waiting: the request is gone.
- Bea of Berlin sits alone, plays with bots: the page offers what ``stud bots --per-city 2``
  can send (a table of 2 or 3); two Berlin bots sit in and the hand starts. After a hand she played, the seed pair is rotated between hands, and the
  page tells her which of her past hands the revealed seed made public, before she plays on.

Screenshots in test-artifacts/ (web-lonely-waiting.png, web-lonely-phone.png (390x844),
web-lonely-kept.png, web-lonely-bots.png, web-seed-notice.png).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from engine_server.auth import Scope, mint_token
from tests.clients.room import BotsProcess, card_room, sign_up
from tests.clients.test_web_table import ARTIFACTS, CHROMIUM, WEB, _png_size, npm_packages
from tests.engine_server.api.conftest import SECRET

__all__ = ["npm_packages"]

STAKE = "house-2-4"


class Page:
    """lonely-table.mjs as a child process: its step lines as they come, answers on stdin."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[dict[str, Any]] = []

    @classmethod
    async def start(cls, lobby_url: str, user: str, password: str, mode: str) -> Page:
        process = await asyncio.create_subprocess_exec(
            "node",
            "test/lonely-table.mjs",
            lobby_url,
            user,
            password,
            str(ARTIFACTS),
            mode,
            STAKE,
            cwd=WEB,
            env={**os.environ, "STUD_CHROMIUM": str(CHROMIUM), "STUD_PLAY_DEADLINE": "120"},
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        return cls(process)

    async def next_line(self, timeout: float = 130) -> dict[str, Any]:
        assert self.process.stdout is not None
        raw = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        if not raw:
            stderr = await self.stderr()
            raise AssertionError(f"the page script ended early: {self.lines}\n{stderr}")
        line: dict[str, Any] = json.loads(raw)
        self.lines.append(line)
        return line

    async def expect(self, step: str) -> dict[str, Any]:
        line = await self.next_line()
        assert line.get("step") == step, (step, json.dumps(line, indent=1), await self.stderr())
        return line

    async def go(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"go\n")
        await self.process.stdin.drain()

    async def stderr(self) -> str:
        assert self.process.stderr is not None
        with contextlib.suppress(TimeoutError):
            return (await asyncio.wait_for(self.process.stderr.read(), 5)).decode()[-3000:]
        return ""

    async def report(self) -> dict[str, Any]:
        line = await self.next_line()
        assert "ok" in line, line
        await asyncio.wait_for(self.process.wait(), 30)
        line["exit"] = self.process.returncode
        return line

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()


class Desk:
    """A bot desk that serves one city, says it can send ``bots`` to a table (changed by the
    test as it goes) and sends none: nobody answers a request."""

    def __init__(self, http: httpx.AsyncClient, city: str, bots: int) -> None:
        self.http = http
        self.city = city
        self.bots = bots

    async def poll(self) -> list[dict[str, Any]]:
        answer = await self.http.post(
            "/bots/desk",
            json={
                "desk": "web-test-desk",
                "cities": [self.city],
                "stake_levels": [STAKE],
                "bots": self.bots,
            },
        )
        assert answer.status_code == 200, answer.text
        requests: list[dict[str, Any]] = answer.json()["requests"]
        return requests


@contextlib.asynccontextmanager
async def desk_serving(lobby_url: str, city: str, bots: int) -> AsyncIterator[Desk]:
    """A :class:`Desk` polling as ``stud bots`` does (twice a second)."""
    token = mint_token(SECRET, "web-test-desk", [Scope.LOBBY], ttl_seconds=600)

    async def poll(desk: Desk) -> None:
        while True:
            await desk.poll()
            await asyncio.sleep(0.5)

    async with httpx.AsyncClient(
        base_url=lobby_url, headers={"Authorization": f"Bearer {token}"}, timeout=10
    ) as http:
        desk = Desk(http, city, bots)
        await desk.poll()
        task = asyncio.create_task(poll(desk))
        try:
            yield desk
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def _keep_waiting(lobby_url: str) -> dict[str, Any]:
    token = await sign_up(lobby_url, "cleo", "cleo-password", "copenhagen")
    async with (
        desk_serving(lobby_url, "copenhagen", bots=2) as desk,
        httpx.AsyncClient(
            base_url=lobby_url, headers={"Authorization": f"Bearer {token}"}, timeout=10
        ) as http,
    ):
        page = await Page.start(lobby_url, "cleo", "cleo-password", "keep-waiting")
        try:
            table_id = (await page.expect("requested"))["table"]
            # The page's "Play with bots" is a request the bot desks see: to 3 players.
            [request] = [r for r in await desk.poll() if r["table_id"] == table_id]
            assert request["players"] == 3 and request["missing"] == 2, request
            # The desk can send none now (its bots went elsewhere, say): no bot can come.
            desk.bots = 0
            await desk.poll()
            await page.go()

            assert (await page.expect("short"))["table"] == table_id
            view = (await http.get(f"/tables/{table_id}")).json()["opponents"]
            assert view["bots"] == "requested" and view["bots_fill_to"] == 1, view
            desk.bots = 2
            await desk.poll()
            await page.go()

            assert (await page.expect("kept_waiting"))["table"] == table_id
            # "Keep waiting" took it back: no desk is asked for bots there any more.
            assert not [r for r in await desk.poll() if r["table_id"] == table_id]
            view = (await http.get(f"/tables/{table_id}")).json()["opponents"]
            assert view["state"] == "waiting" and view["bots"] == "available", view
            assert view["bots_fill_to"] is None
            await page.go()
            report = await page.report()
        finally:
            page.kill()
    report["table_checked"] = table_id
    return report


def _check_keep_waiting(report: dict[str, Any]) -> None:
    assert report["exit"] == 0 and report["ok"], json.dumps(report, indent=1)
    waiting = report["waiting"]
    assert waiting["visible"] and waiting["state"] == "waiting" and waiting["bots"] == "available"
    assert waiting["players"] == 1 and waiting["waiting"] == 0
    assert waiting["title"] == "Waiting for players of Copenhagen"
    assert waiting["waitingText"] == (
        "Nobody else of Copenhagen is looking for a game at 2/4 (house rules) now."
    )
    assert waiting["botsText"] == (
        "Bots play in Copenhagen at this level (up to 2 bots can join you): play with them "
        "now, or keep waiting for people."
    )
    assert waiting["playWithBots"] and waiting["keepWaiting"]
    # The house level seats 7, but the desk can send 2: a table of 3 at most is offered.
    assert waiting["choices"] == [2, 3] and waiting["canFillTo"] == "3", waiting
    assert waiting["error"] == ""
    phone = report["phone"]
    assert phone["scrollWidth"] <= 390 and phone["panelRight"] <= 390, phone
    assert phone["controlsInside"], phone

    requested = report["requested"]
    assert requested["bots"] == "requested" and requested["fillTo"] == "3"
    assert requested["botsText"] == "Bots are on their way: the table fills to 3 players."
    assert not requested["playWithBots"] and requested["keepWaiting"]
    assert requested["keepWaitingLabel"] == "Keep waiting instead"

    # The desk can send none now: nothing is said to be on its way, nothing offered.
    short = report["short"]
    assert short["bots"] == "requested" and short["fillTo"] == "1", short
    assert short["canFillTo"] is None, short
    assert short["botsText"] == (
        "No bots can come to Copenhagen at this level now: keep waiting for people, or leave "
        "the table."
    )
    assert not short["playWithBots"] and short["keepWaiting"]

    for kept in (report["kept"], report["later"]):
        assert kept["state"] == "waiting" and kept["bots"] == "available", kept
        assert kept["fillTo"] is None and kept["players"] == 1
        assert kept["botsText"] == (
            "You keep waiting for players of Copenhagen. Bots can still come if you change "
            "your mind."
        )
        assert kept["playWithBots"] and not kept["keepWaiting"]
    assert report["left"] and not report["panelAfterLeaving"]


async def _play_with_bots(lobby_url: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    token = await sign_up(lobby_url, "bea", "bea-password", "berlin")
    page = await Page.start(lobby_url, "bea", "bea-password", "bots")
    try:
        table_id = (await page.expect("started"))["table"]
        hand = (await page.expect("hand_over"))["hand"]
        async with httpx.AsyncClient(
            base_url=lobby_url, headers={"Authorization": f"Bearer {token}"}, timeout=10
        ) as http:
            # She opened the table: she may rotate its seed pair, between hands.
            for _ in range(600):
                rotated = await http.post(f"/tables/{table_id}/rotate-seed", json={})
                if rotated.status_code != 409:
                    break
                assert rotated.json()["code"] == "hand_in_progress", rotated.text
                await asyncio.sleep(0.05)
            assert rotated.status_code == 200, rotated.text
            reveal = rotated.json()["reveal"]
            assert hand in reveal["your_hands"], (hand, reveal)
            await page.go()
            report = await page.report()
    finally:
        page.kill()
    return report, reveal, table_id


def _check_play_with_bots(report: dict[str, Any], reveal: dict[str, Any]) -> None:
    assert report["exit"] == 0 and report["ok"], json.dumps(report, indent=1)
    waiting = report["waiting"]
    assert waiting["state"] == "waiting" and waiting["bots"] == "available", waiting
    assert waiting["title"] == "Waiting for players of Berlin"
    assert waiting["playWithBots"]
    assert waiting["choices"] == [2, 3], waiting  # stud bots --per-city 2: 2 bots at most
    assert report["felt"]["handNumber"] == 0  # alone: no hand is dealt

    started = report["started"]
    assert not started["visible"] and started["state"] == "playing", started
    assert started["players"] >= 2 and started["fillTo"] == "3"
    assert sorted(started["seats"]) == ["bea", "bot_berlin_r1", "bot_berlin_r2"], started

    # The notice: the hands of the revealed seed, which of them were hers, before she plays on.
    assert not report["noticeBefore"]
    notice = report["notice"]
    assert notice["title"] == "Your past hands are now public"
    assert notice["commitments"] == reveal["commitment"]
    assert notice["hands"] == ",".join(map(str, reveal["your_hands"]))
    [item] = notice["items"]
    assert item["text"] == reveal["message"]
    assert item["hands"] == ",".join(map(str, reveal["hands"]))
    assert "can be recomputed by anyone, every player's down cards included" in item["text"]
    assert notice["button"] == "I understand — play on"
    dealt = len(reveal["hands"])
    words = "hand" if dealt == 1 else f"{dealt} hands"
    assert f"Seed pair rotated: the dealer seed of the last {words} is revealed" in report["log"]
    assert report["noticeAfterReload"] is False
    assert report["left"]

    # The fairness box: the new pair, and the nonce said for what it is (the revealed pair's
    # last nonce is not this pair's; before its first hand there is none).
    fairness = report["fairness"]
    assert fairness["commitment"] != reveal["commitment"], fairness
    hands_dealt = int(fairness["handsDealt"])
    if fairness["handInProgress"] == "true":
        assert fairness["nonce"] == str(hands_dealt - 1), fairness
        assert f"this hand's nonce {hands_dealt - 1}." in fairness["text"], fairness
    elif hands_dealt > 0:
        assert fairness["nonce"] == str(hands_dealt - 1), fairness
        assert f"last hand's nonce {hands_dealt - 1}." in fairness["text"], fairness
    else:
        assert fairness["nonce"] == "", fairness
        assert "no hand dealt from it yet (the first is nonce 0)." in fairness["text"], fairness


async def test_a_lonely_player_keeps_waiting_or_plays_with_bots_in_chromium(
    npm_packages: None, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: scripts/install-system-deps installs it"
    ARTIFACTS.mkdir(exist_ok=True)
    monkeypatch.setenv("STUD_JWT_SECRET", SECRET)  # the bot desk's service token
    async with card_room(tmp_path, between_hands_seconds=1.5) as room:
        bots = await BotsProcess.start(
            room.lobby_url,
            *("--cities", "oslo", "--per-city", "2", "--tables-per-bot", "1"),
            *("--think", "0.05", "--seed", "17", "--on-request", "berlin"),
        )
        try:
            [ready] = await bots.wait_for("ready")
            assert ready["on_request"] == ["berlin"], ready
            kept = await _keep_waiting(room.lobby_url)
            assert not [s for s in bots.named("seated") if s["table"] == kept["table_checked"]]
            played, reveal, table_id = await _play_with_bots(room.lobby_url)
            seated = [s for s in bots.named("seated") if s["table"] == table_id]
            assert {s["bot"] for s in seated} == {"bot_berlin_r1", "bot_berlin_r2"}, bots
        finally:
            code = await bots.stop()
        assert code == 0, bots

    _check_keep_waiting(kept)
    _check_play_with_bots(played, reveal)
    for name in ("web-lonely-waiting.png", "web-lonely-kept.png", "web-lonely-bots.png"):
        assert (ARTIFACTS / name).stat().st_size > 20_000, name
    assert (ARTIFACTS / "web-seed-notice.png").stat().st_size > 30_000
    assert _png_size(ARTIFACTS / "web-lonely-phone.png") == (390, 844)
