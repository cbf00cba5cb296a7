"""Settlement: a session closed on the engine is credited once, by whoever gets there first —
the wallet being touched, or the sweeps of several lobby replicas at once."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from litestar import Litestar
from stud.v1 import table_service_pb2

from lobby_api.db import Database
from lobby_api.quickgame.tables import QuickTables
from tests.engine_server.api.conftest import Engine
from tests.lobby_api.conftest import build_app, running
from tests.lobby_api.support import assert_ledger_consistent, play, register, rows, scalar

# These tests share the session's engine (each keeps to a city of its own).


async def test_replicas_sweeping_at_once_credit_a_closed_session_once(
    client: httpx.AsyncClient,
    app: Litestar,
    settings: object,
    engine: Engine,
    db: Database,
    city: str,
) -> None:
    player = await register(client, city)
    opened = await player.post(
        "/quickgame", {"stake_level": "t-austria", "buy_in": 120, "client_seed": "s_1"}
    )
    game = opened.json()
    # He leaves through the engine itself, not through the lobby.
    left = await engine.tables.Leave(
        table_service_pb2.LeaveRequest(table=game["table"]),
        metadata=(("authorization", f"Bearer {player.token}"),),
    )
    assert left.session.stack == 120
    assert (
        await scalar(
            db,
            "SELECT settled_at FROM lobby_seats WHERE seat_session_id = :s",
            s=game["seat_session_id"],
        )
        is None
    )

    replicas = [build_app(settings, engine) for _ in range(2)]  # type: ignore[arg-type]
    async with running(replicas[0]), running(replicas[1]):
        await asyncio.gather(
            app.state.sweep.once(),
            *(r.state.sweep.once() for r in replicas),
        )
    for replica in replicas:
        await replica.state.engine.close()

    assert (
        await scalar(
            db,
            "SELECT count(*) FROM ledger_transactions WHERE idempotency_key = :k",
            k=f"settle:{game['seat_session_id']}",
        )
        == 1
    )
    assert await player.balance() == 10_000
    assert (
        await scalar(
            db,
            "SELECT settled_amount FROM lobby_seats WHERE seat_session_id = :s",
            s=game["seat_session_id"],
        )
        == 120
    )
    # Nobody is left: the sweep closed the table on the engine and finished it.
    assert (
        await scalar(db, "SELECT status FROM tables WHERE id = :t", t=game["table_id"]) == "closed"
    )
    assert (
        await scalar(
            db, "SELECT finished_at FROM quick_tables WHERE table_id = :t", t=game["table_id"]
        )
        is not None
    )
    assert (
        await scalar(
            db,
            "SELECT balance FROM ledger_accounts WHERE id = :a",
            a=f"escrow:tables/{game['table_id']}",
        )
        == 0
    )
    await assert_ledger_consistent(db)


async def test_touching_the_wallet_settles(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    player = await register(client, city)
    game = (
        await player.post(
            "/quickgame", {"stake_level": "t-austria", "buy_in": 120, "client_seed": "s_1"}
        )
    ).json()
    await engine.tables.Leave(
        table_service_pb2.LeaveRequest(table=game["table"]),
        metadata=(("authorization", f"Bearer {player.token}"),),
    )
    wallet = (await player.get("/wallet")).json()
    assert wallet["balance"] == 10_000
    assert wallet["entries"][0]["kind"] == "settlement" and wallet["entries"][0]["amount"] == 120


async def test_the_sweep_winds_up_only_the_tables_with_something_to_do(
    client: httpx.AsyncClient,
    app: Litestar,
    engine: Engine,
    db: Database,
    city: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A: two players play a hand (its rake is to move); B: its opener waits alone (nothing
    # to do); C: its opener left through the engine (to settle, close and finish).
    opener, guest, lonely, leaver = [await register(client, city) for _ in range(4)]
    a = (
        await opener.post(
            "/quickgame", {"stake_level": "t-fast", "buy_in": 200, "client_seed": "a"}
        )
    ).json()
    seated = await guest.post("/tickets", {"stake_level": "t-fast", "buy_in": 200})
    assert seated.json()["status"] == "seated" and seated.json()["table_id"] == a["table_id"]
    await asyncio.wait_for(
        asyncio.gather(
            *(
                play(engine.grpc_address, a["table"], p.token, until_hand=1, seed=n)
                for n, p in enumerate((opener, guest))
            )
        ),
        60,
    )
    # B and C: t-austria (another stake level: nobody sits in at them).
    b = (
        await lonely.post(
            "/quickgame", {"stake_level": "t-austria", "buy_in": 120, "client_seed": "b"}
        )
    ).json()
    c = (
        await leaver.post(
            "/quickgame", {"stake_level": "t-austria", "buy_in": 120, "client_seed": "c"}
        )
    ).json()
    assert b["table_id"] != c["table_id"]
    await engine.tables.Leave(
        table_service_pb2.LeaveRequest(table=c["table"]),
        metadata=(("authorization", f"Bearer {leaver.token}"),),
    )
    wound_up: list[str] = []
    original = QuickTables.wind_up

    async def wind_up(self: QuickTables, table_id: str) -> None:
        wound_up.append(table_id)
        await original(self, table_id)

    monkeypatch.setattr(QuickTables, "wind_up", wind_up)

    await app.state.sweep.once()

    assert a["table_id"] in wound_up and c["table_id"] in wound_up
    assert b["table_id"] not in wound_up
    raked = "SELECT raked_through FROM quick_tables WHERE table_id = :t"
    assert await scalar(db, raked, t=a["table_id"]) >= 1
    assert await scalar(db, raked, t=b["table_id"]) == 0
    finished = "SELECT status, finished_at FROM quick_tables WHERE table_id = :t"
    assert (await rows(db, finished, t=b["table_id"]))[0].finished_at is None
    closed = (await rows(db, finished, t=c["table_id"]))[0]
    assert closed.status == "closed" and closed.finished_at is not None
    assert await leaver.balance() == 10_000
    # A finished table is left alone, and so is B still.
    wound_up.clear()
    await app.state.sweep.once()
    assert b["table_id"] not in wound_up and c["table_id"] not in wound_up
    await assert_ledger_consistent(db)
