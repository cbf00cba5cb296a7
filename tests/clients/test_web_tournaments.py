"""Tournaments on the web page (/play), in headless Chromium.

A real engine and the lobby run in this test's loop (tests/clients/room.py); two Oslo bots run
as ``stud bots --tournaments with-humans``; clients/web/test/tournaments.mjs drives Debian's
Chromium with playwright-core. Three tournaments are made through ``POST /admin/tournaments``
with an ops token. Ann, of Oslo:

- sees them in the Tournaments tab, filtered by kind and by city;
- is refused the Stockholm one (the lobby's ``not_your_city`` problem shown in words);
- registers for the scheduled one (the wallet pays buy-in + fee once) and unregisters
  (both come back);
- registers for the sit & go of three: the bots fill it, the director seats it, and her table
  opens from her entry;
- at a tournament table of the engine (this test makes and seats it as the director does —
  the lobby's director creates its tables through ``lobby_api/tournaments/engine_calls.py``,
  which gives them the tournament's engine side separately), opened as the page reopens his
  table after a reload: the test pushes the tournament's info (SetTournamentInfo) and holds
  the next hand (SetHandHold), Bob watches as a railbird, and the panel shows level, stakes,
  hands to the next level, players left, average stack, prize pool, the hold and one watcher;
- is moved to a second table of the tournament (MovePlayer, then SeatPlayer there with her
  chips): the page follows the PlayerMoved event to the destination by itself.

Screenshots in test-artifacts/ (web-tournaments.png, web-tournament.png,
web-tournament-panel.png).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import httpx
from stud.v1 import (
    admin_service_pb2,
    settings_pb2,
    table_pb2,
    table_service_pb2,
    table_service_pb2_grpc,
)

from engine_server.auth import Scope, mint_token
from tests.clients.room import BotsProcess, card_room, seat_player, sign_up, tournament_table
from tests.clients.test_web_table import ARTIFACTS, CHROMIUM, WEB, npm_packages
from tests.engine_server.api.conftest import SECRET

__all__ = ["npm_packages"]

A = admin_service_pb2
PASSWORD = "ann-password"
LEVELS = [
    {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10, "hands": 50},
    {"ante": 2, "bring_in": 5, "small_bet": 10, "big_bet": 20, "hands": 50},
]


class Page:
    """tournaments.mjs as a child process: its step lines as they come, answers on stdin."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[dict[str, Any]] = []

    @classmethod
    async def start(cls, lobby_url: str) -> Page:
        process = await asyncio.create_subprocess_exec(
            "node",
            "test/tournaments.mjs",
            lobby_url,
            "ann",
            PASSWORD,
            str(ARTIFACTS),
            cwd=WEB,
            env={**os.environ, "STUD_CHROMIUM": str(CHROMIUM), "STUD_PLAY_DEADLINE": "150"},
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        return cls(process)

    async def expect(self, step: str) -> dict[str, Any]:
        assert self.process.stdout is not None
        raw = await asyncio.wait_for(self.process.stdout.readline(), 160)
        line: dict[str, Any] = json.loads(raw) if raw else {}
        self.lines.append(line)
        assert line.get("step") == step, (step, json.dumps(line, indent=1), await self.stderr())
        return line

    async def go(self, answer: dict[str, Any] | None = None) -> None:
        assert self.process.stdin is not None
        line = "go" if answer is None else json.dumps(answer)
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def report(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        raw = await asyncio.wait_for(self.process.stdout.readline(), 60)
        await asyncio.wait_for(self.process.wait(), 30)
        line: dict[str, Any] = json.loads(raw)
        line["exit"] = self.process.returncode
        return line

    async def stderr(self) -> str:
        assert self.process.stderr is not None
        with contextlib.suppress(TimeoutError):
            return (await asyncio.wait_for(self.process.stderr.read(), 5)).decode()[-3000:]
        return ""

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()


async def _railbird(address: str, table: str, token: str, seen: list[int]) -> None:
    """Bob watches the table without a seat: he sees the public view only."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        stream = stub.WatchTable(
            table_service_pb2.WatchTableRequest(table=table),
            metadata=(("authorization", f"Bearer {token}"),),
        )
        async for message in stream:
            assert message.snapshot.viewer_seat == 0
            seen.append(message.snapshot.watchers)


async def test_tournaments_tab_register_unregister_and_the_table_panel_in_chromium(
    npm_packages: None, tmp_path: Any
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    async with card_room(tmp_path) as room:
        engine = room.engine
        ann_token = await sign_up(room.lobby_url, "ann", PASSWORD, "oslo")
        bob_token = await sign_up(room.lobby_url, "bob", "bob-password", "oslo")
        ann = {"Authorization": f"Bearer {ann_token}"}
        ops = {"Authorization": f"Bearer {mint_token(SECRET, 'ops', [Scope.ADMIN])}"}
        async with httpx.AsyncClient(base_url=room.lobby_url, timeout=15) as http:
            ann_id = (await http.get("/me", headers=ann)).json()["id"]

            async def create(**fields: Any) -> str:
                answer = await http.post("/admin/tournaments", headers=ops, json=fields)
                assert answer.status_code == 201, answer.text
                return str(answer.json()["id"])

            async def wallet() -> int:
                return int((await http.get("/wallet", headers=ann)).json()["balance"])

            async def mine(tournament_id: str) -> dict[str, Any]:
                answer = await http.get(f"/tournaments/{tournament_id}/entries/me", headers=ann)
                return dict(answer.json())

            await create(name="Stockholm Only", city="stockholm", max_players=6)
            scheduled = await create(
                name="Sunday Scheduled",
                kind="scheduled",
                starts_at=(datetime.now(UTC) + timedelta(hours=2)).isoformat(),
                min_players=2,
                max_players=20,
                buy_in=100,
                fee=10,
            )
            freezeout = await create(
                name="Web Freezeout",
                city="oslo",
                buy_in=100,
                fee=10,
                starting_chips=1000,
                max_players=3,
                rule_overrides={"action_seconds": 2},
                levels=LEVELS,
            )
            bots = await BotsProcess.start(
                room.lobby_url,
                "--cities",
                "oslo",
                "--per-city",
                "2",
                "--tables-per-bot",
                "1",
                "--think",
                "0.2",
                "--tournaments",
                "with-humans",
            )
            page = await Page.start(room.lobby_url)
            railbird: asyncio.Task[None] | None = None
            try:
                listed = await page.expect("listed")
                names = {row["name"]: row for row in listed["rows"]}
                assert names["Web Freezeout"]["kind"] == "sit_and_go"
                assert names["Sunday Scheduled"]["kind"] == "scheduled"
                assert names["Stockholm Only"]["city"] == "stockholm"
                filtered = await page.expect("filtered")
                assert "Sunday Scheduled" in {r["name"] for r in filtered["scheduled"]}
                assert {r["kind"] for r in filtered["scheduled"]} == {"scheduled"}
                assert [r["name"] for r in filtered["stockholm"]] == ["Stockholm Only"]

                refused = await page.expect("refused")
                assert "players of stockholm" in refused["error"], refused
                assert refused["entry"] == "none"
                assert await wallet() == 10_000

                registered = await page.expect("registered")
                assert (await mine(scheduled))["status"] == "registered"
                assert await wallet() == 10_000 - 110
                assert "ann" in registered["standings"]
                await page.go()
                await page.expect("unregistered")
                assert (await mine(scheduled))["status"] == "unregistered"
                assert await wallet() == 10_000
                await page.go()

                # The bots filled the sit & go, the director seated it: her table is open.
                at_table = await page.expect("at_table")
                entry = await mine(freezeout)
                assert entry["status"] == "playing", entry
                table = f"tables/{entry['table_id']}"
                assert at_table["table"] == table and at_table["viewerSeat"] == entry["seat"]
                assert at_table["tournament"] == freezeout
                assert at_table["leave"] == "Back to the lobby" and at_table["topUpHidden"]
                assert at_table["opponentsHidden"] and at_table["panel"]

                # A tournament table of the engine, Ann seated there as the director seats.
                source = await tournament_table(engine, freezeout, 1)
                table = f"tables/{source}"
                session_id = await seat_player(engine, table, ann_id, "ann", 1000)
                # What the director pushes to its tables, and a railbird.
                info = table_pb2.TournamentInfo(
                    level=1,
                    stakes=settings_pb2.Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10),
                    hands_to_next_level=42,
                    next_stakes=settings_pb2.Stakes(ante=2, bring_in=5, small_bet=10, big_bet=20),
                    players_left=3,
                    entrants=3,
                    average_stack=1000,
                    prize_pool=300,
                    places_paid=2,
                )
                await engine.admin.SetTournamentInfo(
                    A.SetTournamentInfoRequest(name=table, info=info), metadata=engine.admin_md
                )
                watchers: list[int] = []
                railbird = asyncio.create_task(
                    _railbird(engine.grpc_address, table, bob_token, watchers)
                )
                await page.go(
                    {
                        "table": table,
                        "tableId": source,
                        "engineUrl": engine.web_url,
                        "tournamentId": freezeout,
                    }
                )
                panel = await page.expect("panel")
                assert panel["visible"] and panel["level"] == "1", panel
                assert panel["stakes"] == "ante 1 · bring-in 2 · 5/10", panel
                assert panel["next"] == "after 42 hands", panel
                assert panel["nextStakes"] == "ante 2 · bring-in 5 · 10/20", panel
                assert panel["players"] == "3 of 3" and panel["average"] == "1,000", panel
                assert panel["pool"] == "300 · 2 paid" and panel["watchers"] == "1", panel
                assert panel["hold"].startswith("Hand-for-hand"), panel
                assert watchers and watchers[-1] == 1

                # A second table of the tournament; Ann is moved there (after the running
                # hand, if any) and seated with exactly her chips.
                destination = await tournament_table(engine, freezeout, 2)
                await engine.admin.MovePlayer(
                    A.MovePlayerRequest(
                        table=table,
                        seat_session_id=session_id,
                        request_id=f"move-{destination}",
                        destination_table=f"tables/{destination}",
                        grpc_address=engine.grpc_address,
                        web_url=engine.web_url,
                    ),
                    metadata=engine.admin_md,
                )
                stack = -1
                for _ in range(120):
                    sessions = await engine.admin.ListSeatSessions(
                        A.ListSeatSessionsRequest(table=table), metadata=engine.admin_md
                    )
                    moved = [
                        s
                        for s in sessions.sessions
                        if s.seat_session_id == session_id
                        and s.state == table_pb2.SEAT_SESSION_STATE_CLOSED
                    ]
                    if moved:
                        stack = moved[0].stack
                        break
                    await asyncio.sleep(0.5)
                assert stack > 0
                assert stack == 1000  # no hand was dealt: held, and she sits alone
                await seat_player(engine, f"tables/{destination}", ann_id, "ann", stack)
                await page.go()
                followed = await page.expect("moved")
                assert followed["table"] == f"tables/{destination}", followed
                assert followed["viewerSeat"] == 1 and followed["tournament"] == freezeout
                assert followed["stored"]["tableId"] == destination, followed
                assert any("move to another table" in line for line in followed["log"]), followed
                report = await page.report()
                assert report["exit"] == 0 and report["ok"], json.dumps(report, indent=1)
            finally:
                page.kill()
                if railbird is not None:
                    railbird.cancel()
                    await asyncio.gather(railbird, return_exceptions=True)
                code = await bots.stop()
            assert code == 0, bots
