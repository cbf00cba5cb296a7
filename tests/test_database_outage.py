"""The database goes away in the middle of play, and comes back: nothing is lost or made.

A real ``stud engine`` and a real ``stud lobby`` (child processes) share one database; three
players sit at a quick game through the lobby and play through the engine's gRPC port. Then
the database goes away for a few seconds — a private PostgreSQL server stopped and started
again (the suite's shared server is never restarted), or the SQLite file made read-only:

- meanwhile the lobby answers ``503 database_unavailable`` with ``Retry-After``;
- the engine's lease runs out (it is kept short here), so it stops serving as the lease
  demands, and claims its node back by itself once the database answers;
- afterwards play goes on without anyone's help, the lobby answers again (its pool
  reconnects, its sweep still settles), and once the players leave every chip is accounted
  for: wallets + house = what was granted, the table's escrow is empty, and each hand is
  complete or was cancelled with every chip back.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from stud.v1 import table_service_pb2, table_service_pb2_grpc

from benchmarks.processes import ReadyProcess, start_stud
from engine_server.store.migrate import prepare_database
from lobby_api.db import Database
from tests.engine_server.api.conftest import SECRET
from tests.lobby_api.conftest import add_test_levels
from tests.lobby_api.support import (
    PASSWORD,
    Player,
    assert_ledger_consistent,
    register,
    rows,
    scalar,
)
from tests.outage import PrivatePostgres, free_port, read_only_sqlite

GRANT = 10_000


@dataclass(frozen=True)
class Outage:
    """How long the database is away, against the engine's lease (an outage longer than
    about two thirds of the lease loses it)."""

    seconds: float
    lease_seconds: float

    @property
    def loses_the_lease(self) -> bool:
        return self.seconds > self.lease_seconds


OUTAGES = [
    # Shorter than the lease: the engine keeps serving, its tables retry their writes.
    pytest.param(Outage(1.0, 10.0), id="brief"),
    # Longer: the engine stops serving as the lease demands and claims its node back.
    pytest.param(Outage(5.0, 3.0), id="past-the-lease"),
]


@dataclass
class Table:
    """Three players at one quick game, playing until :attr:`stop` is set."""

    table_id: str
    table: str
    address: str
    players: list[Player]
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    #: hand numbers each player saw end
    seen: dict[str, int] = field(default_factory=dict)


async def _player(table: Table, player: Player, seed: int) -> None:
    """Watch the table and act when it is his turn; ride out an engine that goes away (its
    stream ends, or it refuses calls) by watching again."""
    rng = random.Random(seed)
    metadata = (("authorization", f"Bearer {player.token}"),)
    while not table.stop.is_set():
        try:
            async with grpc.aio.insecure_channel(table.address) as channel:
                stub = table_service_pb2_grpc.TableServiceStub(channel)
                stream = stub.WatchTable(
                    table_service_pb2.WatchTableRequest(table=table.table), metadata=metadata
                )
                async for message in stream:
                    if table.stop.is_set():
                        stream.cancel()
                        return
                    snap = message.snapshot
                    if not snap.hand_in_progress:
                        table.seen[player.id] = snap.hand_number
                    if snap.turn_seat and snap.turn_seat == snap.viewer_seat and snap.legal_actions:
                        choice = rng.choice(list(snap.legal_actions))
                        request = table_service_pb2.ActRequest(
                            table=table.table,
                            hand_number=snap.hand_number,
                            kind=choice.kind,
                            action_id=uuid.uuid4().hex,
                        )
                        if choice.amounts:
                            request.amount = rng.choice(list(choice.amounts))
                        elif choice.max_amount != choice.min_amount:
                            request.amount = choice.min_amount
                        # A refusal (a stale view) or an engine going away: the next view
                        # decides again.
                        with contextlib.suppress(grpc.aio.AioRpcError):
                            await stub.Act(request, metadata=metadata, timeout=10)
        except grpc.aio.AioRpcError:
            pass
        await asyncio.sleep(0.3)


async def _hands(db: Database, table_id: str, state: str) -> int:
    return int(
        await scalar(
            db, "SELECT count(*) FROM hands WHERE table_id = :t AND state = :s", t=table_id, s=state
        )
    )


async def _until(check: Callable[[], Any], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(httpx.HTTPError, OSError):
            if await check():
                return
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.2)


@contextlib.asynccontextmanager
async def _room(
    tmp_path: Path, database_url: str, lease_seconds: float
) -> AsyncIterator[tuple[Database, str, str]]:
    """The engine and the lobby as processes on ``database_url``: the lobby's database
    (for checks), its URL and the engine's gRPC address."""
    await prepare_database(database_url)
    db = Database.from_url(database_url, pool_size=2, max_overflow=2)
    await add_test_levels(db)
    grpc_port, web_port, lobby_port = free_port(), free_port(), free_port()
    env = {
        **os.environ,
        "STUD_DATABASE_URL": database_url,
        "STUD_JWT_SECRET": SECRET,
        "STUD_LOG_FORMAT": "text",
        "STUD_LOG_LEVEL": "INFO",
        "STUD_ENGINE_GRPC_PORT": str(grpc_port),
        "STUD_ENGINE_WEB_PORT": str(web_port),
        "STUD_ENGINE_METRICS_PORT": "0",
        "STUD_ENGINE_BETWEEN_HANDS": "0.2",
        "STUD_ENGINE_LEASE_SECONDS": str(lease_seconds),
        "STUD_LOBBY_PORT": str(lobby_port),
        "STUD_LOBBY_ENGINE": f"127.0.0.1:{grpc_port}",
        "STUD_LOBBY_ENGINE_WEB": f"http://127.0.0.1:{web_port}",
        "STUD_LOBBY_SWEEP_SECONDS": "1",
        "STUD_LOBBY_LOGIN_RATE": "0",
        "STUD_LOBBY_MONEY_RATE": "0",
        "STUD_LOBBY_LOGIN_FAILURES": "0",
        "STUD_LOBBY_DB_POOL": "4",
    }
    processes: list[ReadyProcess] = []
    try:
        processes.append(await start_stud("engine", env=env, log=tmp_path / "engine.log"))
        processes.append(await start_stud("lobby", env=env, log=tmp_path / "lobby.log"))
        yield db, processes[1].ready["http"], f"127.0.0.1:{grpc_port}"
        for process in processes:
            # Neither gave up: each still runs, and stops cleanly.
            assert process.returncode is None, process.log_tail()
    finally:
        for process in reversed(processes):
            await process.stop()
        await db.dispose()


async def _sit_down(client: httpx.AsyncClient, address: str) -> Table:
    opener = await register(client, "oslo")
    opened = await opener.post(
        "/quickgame", {"stake_level": "t-fast", "buy_in": 200, "client_seed": "outage"}
    )
    assert opened.status_code == 201, opened.text
    game = opened.json()
    players = [opener]
    for _ in range(2):
        guest = await register(client, "oslo")
        ticket = await guest.post("/tickets", {"stake_level": "t-fast", "buy_in": 100})
        assert ticket.status_code == 201 and ticket.json()["status"] == "seated", ticket.text
        players.append(guest)
    return Table(game["table_id"], game["table"], address, players)


async def _expect_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert int(response.headers["retry-after"]) > 0
    problem = response.json()
    assert problem["code"] == "database_unavailable", problem
    assert problem["type"] == "urn:problem:stud:database_unavailable"


async def _outage_in_play(
    tmp_path: Path,
    database_url: str,
    outage: Outage,
    away: Callable[[], contextlib.AbstractContextManager[None]],
    during: Callable[[httpx.AsyncClient, Table], Any],
) -> None:
    async with (
        _room(tmp_path, database_url, outage.lease_seconds) as (db, lobby_url, address),
        httpx.AsyncClient(base_url=lobby_url, timeout=15) as client,
    ):
        table = await _sit_down(client, address)
        playing = [asyncio.create_task(_player(table, p, n)) for n, p in enumerate(table.players)]
        try:
            await _until(lambda: _completed_at_least(db, table.table_id, 2), 40, "two hands before")
            # Mid-hand, as far as timing allows: the next hand starts 0.2 s after one ends.
            await _until(_running(db, table.table_id), 10, "a running hand")
            before = await _hands(db, table.table_id, "complete")
            with away():
                started = time.monotonic()
                await during(client, table)
                await asyncio.sleep(max(0.0, outage.seconds - (time.monotonic() - started)))
            # Everything resumes by itself: the lobby answers, the engine deals on.
            await _until(lambda: _ok(client.get("/health")), 60, "the lobby to answer again")
            await _until(
                lambda: _completed_at_least(db, table.table_id, before + 2),
                60,
                "two hands after the outage",
            )
        finally:
            table.stop.set()
            await asyncio.gather(*playing, return_exceptions=True)
        await _leave_and_check(client, db, table)
        engine_log = (tmp_path / "engine.log").read_text()
        if outage.loses_the_lease:
            # It stopped serving, and served again by itself: the same process, a new epoch.
            assert "it serves them again once the database answers" in engine_log
            assert "node main claimed (epoch 2)" in engine_log
        else:
            assert "lost its lease" not in engine_log
            assert "left running by a previous engine" not in engine_log


async def _ok(request: Any) -> bool:
    return bool((await request).status_code == 200)


async def _completed_at_least(db: Database, table_id: str, count: int) -> bool:
    return await _hands(db, table_id, "complete") >= count


def _running(db: Database, table_id: str) -> Callable[[], Any]:
    async def check() -> bool:
        return await _hands(db, table_id, "running") == 1

    return check


async def _leave_and_check(client: httpx.AsyncClient, db: Database, table: Table) -> None:
    for player in table.players:
        left = await player.post(f"/tables/{table.table_id}/leave", idempotency=None)
        assert left.status_code == 200, left.text

    async def settled() -> bool:
        for player in table.players:
            await player.balance()  # a wallet read settles a closed seat session
        states = await rows(
            db, "SELECT state FROM seat_sessions WHERE table_id = :t", t=table.table_id
        )
        escrow = await scalar(
            db,
            "SELECT balance FROM ledger_accounts WHERE id = :a",
            a=f"escrow:tables/{table.table_id}",
        )
        return {s.state for s in states} == {"closed"} and escrow == 0

    await _until(settled, 60, "every seat to be paid out")
    # No hand is left running; every hand is complete or was cancelled.
    states = await rows(
        db,
        "SELECT state, count(*) AS n FROM hands WHERE table_id = :t GROUP BY state",
        t=table.table_id,
    )
    assert {s.state for s in states} <= {"complete", "cancelled"}, states
    # Conservation: what the players were granted is in their wallets or is the house's rake
    # of this table's hands (a cancelled hand raked nothing and moved no chip).
    wallets = sum([await p.balance() for p in table.players])
    rake = await scalar(
        db,
        "SELECT coalesce(sum(e.amount), 0) FROM ledger_entries e WHERE e.account_id = "
        "'house:rake' AND e.reference IN (SELECT 'hands/' || id FROM hands WHERE table_id = :t)",
        t=table.table_id,
    )
    stored_rake = await scalar(
        db, "SELECT coalesce(sum(rake), 0) FROM hands WHERE table_id = :t", t=table.table_id
    )
    assert rake == stored_rake
    assert wallets + rake == GRANT * len(table.players)
    await assert_ledger_consistent(db)


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    """A PostgreSQL server of the test's own, running (stop and start it at will)."""
    server = PrivatePostgres()
    try:
        server.start()
        yield server
    finally:
        server.destroy()


@pytest.mark.parametrize("outage", OUTAGES)
async def test_postgresql_restarting_mid_play_loses_and_makes_nothing(
    tmp_path: Path, private_postgres: PrivatePostgres, outage: Outage
) -> None:
    @contextlib.contextmanager
    def restart() -> Iterator[None]:
        private_postgres.stop("fast")
        try:
            yield
        finally:
            private_postgres.start()

    async def during(client: httpx.AsyncClient, table: Table) -> None:
        await _expect_unavailable(await client.get("/health"))
        await _expect_unavailable(await table.players[0].get("/wallet"))
        await _expect_unavailable(
            await client.post(
                "/auth/login",
                json={"username": table.players[1].username, "password": PASSWORD},
            )
        )

    await _outage_in_play(tmp_path, private_postgres.url, outage, restart, during)


@pytest.mark.parametrize("outage", OUTAGES)
async def test_a_read_only_sqlite_file_mid_play_loses_and_makes_nothing(
    tmp_path: Path, outage: Outage
) -> None:
    directory = tmp_path / "db"
    directory.mkdir()
    database = directory / "room.sqlite3"

    async def during(client: httpx.AsyncClient, table: Table) -> None:
        # Reads go on; a request that writes is refused, as retryable, changing nothing.
        await _expect_unavailable(
            await client.post(
                "/auth/login",
                json={"username": table.players[1].username, "password": PASSWORD},
            )
        )

    await _outage_in_play(
        tmp_path, f"sqlite:///{database}", outage, lambda: read_only_sqlite(database), during
    )
