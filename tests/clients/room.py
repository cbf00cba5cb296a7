"""A whole card room on loopback for client tests: a real engine and the lobby (uvicorn) in the
test's event loop, over a fresh SQLite file; bots and browsers run as child processes.

The lobby loads ``seeds/`` at start (the cities and the stake levels ``stud run`` has), runs
its settlement sweep every second and knows the engine's real addresses.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from litestar import Litestar
from stud.v1 import admin_service_pb2, settings_pb2

from engine_server.store.migrate import prepare_database
from lobby_api.settings import LobbySettings
from tests.engine_server.api.conftest import SECRET, Engine, fresh_sqlite, launch, shut
from tests.lobby_api.conftest import build_app

__all__ = [
    "ROOT",
    "BotsProcess",
    "Room",
    "card_room",
    "seat_player",
    "serve_lobby",
    "sign_up",
    "tournament_table",
]

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Room:
    engine: Engine
    app: Litestar
    lobby_url: str


@asynccontextmanager
async def card_room(
    tmp_path: Path, *, between_hands_seconds: float = 0.05, token_seconds: int = 15 * 60
) -> AsyncIterator[Room]:
    database_url = f"sqlite:///{tmp_path}/room.sqlite3"
    await fresh_sqlite(database_url)  # a copy of a migrated file: no migrations to run
    await prepare_database(database_url)
    engine = await launch(database_url, between_hands_seconds=between_hands_seconds)
    settings = LobbySettings(
        database_url=database_url,
        jwt_secret=SECRET,
        sweep_seconds=1,
        login_rate_per_minute=0,
        money_rate_per_minute=0,
        token_seconds=token_seconds,
    )
    app = build_app(settings, engine)
    try:
        async with serve_lobby(app) as lobby_url:
            yield Room(engine, app, lobby_url)
    finally:
        await app.state.engine.close()
        await shut(engine)


@asynccontextmanager
async def serve_lobby(app: Litestar) -> AsyncIterator[str]:
    """Serve the lobby app with uvicorn in this event loop on a free loopback port (its
    lifespan run: the seeds loaded); yields its URL. Closing it leaves the app's engine
    client to the caller (it may outlive the server)."""
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", access_log=False
    )
    server = uvicorn.Server(config)
    # The test's process keeps its own signal handlers (pytest's Ctrl-C).
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if serving.done():
                serving.result()
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(serving, 10)


async def sign_up(lobby_url: str, username: str, password: str, city: str) -> str:
    """Register an account and log in; returns its token."""
    async with httpx.AsyncClient(base_url=lobby_url, timeout=10) as http:
        created = await http.post(
            "/accounts", json={"username": username, "password": password, "city": city}
        )
        assert created.status_code == 201, created.text
        login = await http.post("/auth/login", json={"username": username, "password": password})
        assert login.status_code == 200, login.text
        return str(login.json()["access_token"])


async def open_quick_game(
    http: httpx.AsyncClient, name: str, stake_level: str = "house-2-4"
) -> dict[str, Any]:
    """Open a quick game as the player ``http`` is signed in as (``name``: buy-in 100, client
    seed ``{name}-seed``, Idempotency-Key ``{name}-1``); the lobby's answer."""
    answer = await http.post(
        "/quickgame",
        json={"stake_level": stake_level, "buy_in": 100, "client_seed": f"{name}-seed"},
        headers={"Idempotency-Key": f"{name}-1"},
    )
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


async def tournament_table(engine: Engine, tournament_id: str, number: int) -> str:
    """A tournament table of the engine with its next hand held, made as the director makes
    one (CreateTable with ``tournament``, level 1's stakes); returns its id."""
    table_id = f"tt-{number}-{uuid.uuid4().hex[:8]}"
    await engine.admin.CreateTable(
        admin_service_pb2.CreateTableRequest(
            request_id=f"create-{table_id}",
            table_id=table_id,
            stakes=settings_pb2.Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10),
            client_seed="tournament-test",
            tournament=settings_pb2.TournamentTable(
                tournament_id=tournament_id, table_name=f"Table {number}", table_number=number
            ),
        ),
        metadata=engine.admin_md,
    )
    await engine.admin.SetHandHold(
        admin_service_pb2.SetHandHoldRequest(name=f"tables/{table_id}", held=True),
        metadata=engine.admin_md,
    )
    return table_id


async def seat_player(
    engine: Engine, table: str, player_id: str, name: str, chips: int, seat: int = 1
) -> str:
    """Seat ``player_id`` at ``table`` with ``chips`` as the director does; his session id."""
    session_id = f"ss-{uuid.uuid4().hex[:8]}"
    await engine.admin.SeatPlayer(
        admin_service_pb2.SeatPlayerRequest(
            table=table,
            seat_session_id=session_id,
            player_id=player_id,
            display_name=name,
            seat=seat,
            buy_in=chips,
        ),
        metadata=engine.admin_md,
    )
    return session_id


@dataclass
class BotsProcess:
    """``stud bots`` as a child process; its JSON lines are collected as they come."""

    process: asyncio.subprocess.Process
    events: list[dict[str, Any]] = field(default_factory=list)
    stderr: bytes = b""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _reader: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, lobby_url: str, *args: str) -> BotsProcess:
        env = {**os.environ, "STUD_BOTS_PASSWORD": "bot-password-for-tests"}
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "engine_server",
            "bots",
            "--lobby",
            lobby_url,
            *args,
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        bots = cls(process)
        bots._reader = asyncio.create_task(bots._read())
        return bots

    async def _read(self) -> None:
        assert self.process.stdout is not None and self.process.stderr is not None
        stderr = asyncio.create_task(self.process.stderr.read())
        async for raw in self.process.stdout:
            with contextlib.suppress(ValueError):
                self.events.append(json.loads(raw))
                self._changed.set()
        self.stderr = await stderr
        self._changed.set()

    def named(self, event: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == event]

    async def wait_for(
        self, event: str, count: int = 1, timeout: float = 30
    ) -> list[dict[str, Any]]:
        """Wait until ``count`` lines of ``event`` were printed."""

        async def reached() -> None:
            while len(self.named(event)) < count:
                if self._reader is not None and self._reader.done():
                    raise AssertionError(f"stud bots exited: {self}")
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(reached(), timeout)
        return self.named(event)

    async def stop(self, timeout: float = 30) -> int:
        """SIGTERM, then wait for a clean exit."""
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = await asyncio.wait_for(self.process.wait(), timeout)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            raise
        if self._reader is not None:
            await self._reader
        return code

    def __str__(self) -> str:
        lines = "\n".join(json.dumps(e) for e in self.events)
        return f"exit {self.process.returncode}\n{lines}\n--- stderr\n{self.stderr.decode()}"
