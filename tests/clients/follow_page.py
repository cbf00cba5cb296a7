"""Ann at the web table page in headless Chromium while her table leaves its node (issue 15).

The set-up shared by tests/clients/test_web_follow.py (the table is moved between hands) and
tests/clients/test_web_dead_node.py (its node is killed): two ``stud bots`` of Oslo as her
opponents, Ann signed up in Oslo, clients/web/test/follow-table.mjs playing her. Once she has
played a hand, the test's ``on_played`` takes her table away from its node; what the page
reported at the end, and what the bots printed, are returned for the test to check.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from tests.clients.room import BotsProcess, sign_up
from tests.clients.test_web_table import ARTIFACTS, CHROMIUM, WEB

__all__ = ["PASSWORD", "PageRun", "json_lines", "play_while_the_table_leaves"]

PASSWORD = "ann-password"

T = TypeVar("T")


@dataclass
class PageRun(Generic[T]):
    #: the page's last ``ok`` line, with its ``exit`` status and the tail of its ``stderr``
    report: dict[str, Any]
    #: what ``on_played`` returned (None: she never played a hand)
    left: T | None
    bots: BotsProcess
    #: the bots' exit status
    bots_exit: int


async def json_lines(stream: asyncio.StreamReader) -> AsyncIterator[dict[str, Any]]:
    """The JSON objects among a child's output lines (anything else is skipped)."""
    async for raw in stream:
        with contextlib.suppress(ValueError):
            line = json.loads(raw)
            if isinstance(line, dict):
                yield line


async def play_while_the_table_leaves(
    lobby_url: str,
    on_played: Callable[[str, str], Awaitable[T]],
    *,
    seed: int,
    env: dict[str, str],
    timeout: float,
    bots_timeout: float = 30,
) -> PageRun[T]:
    """Ann plays at the page until it reports; ``on_played(table_id, her_token)`` is awaited
    once, after her first played hand. ``env`` adds to the page's environment (at least
    ``STUD_PLAY_DEADLINE``); ``timeout`` bounds the page's whole run."""
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: scripts/install-system-deps installs it"
    ARTIFACTS.mkdir(exist_ok=True)
    bots = await BotsProcess.start(
        lobby_url,
        *("--cities", "oslo", "--per-city", "2", "--tables-per-bot", "1"),
        *("--think", "0.05", "--seed", str(seed)),
    )
    report: dict[str, Any] = {}
    left: T | None = None
    try:
        await bots.wait_for("waiting", 2, timeout=bots_timeout)
        token = await sign_up(lobby_url, "ann", PASSWORD, "oslo")
        browser = await asyncio.create_subprocess_exec(
            *("node", "test/follow-table.mjs", lobby_url, "ann", PASSWORD),
            cwd=WEB,
            env={
                **os.environ,
                "STUD_CHROMIUM": str(CHROMIUM),
                "STUD_ARTIFACTS": str(ARTIFACTS),
                **env,
            },
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert browser.stdout is not None and browser.stderr is not None
        errors = asyncio.create_task(browser.stderr.read())
        seat: dict[str, Any] | None = None
        try:
            async with asyncio.timeout(timeout):
                async for line in json_lines(browser.stdout):
                    if "seated" in line:
                        seat = line["seated"]
                    elif "played" in line and left is None:
                        assert seat is not None, f"played before seated: {line}"
                        left = await on_played(seat["tableId"], token)
                    elif "ok" in line:
                        report = line
                await browser.wait()
        finally:
            if browser.returncode is None:
                browser.kill()
                await browser.wait()
        report["exit"] = browser.returncode
        report["stderr"] = (await errors).decode()[-2000:]
    finally:
        code = await bots.stop()
    return PageRun(report, left, bots, code)
