"""Settlement: a session closed on the engine is credited once, by whoever gets there first —
the wallet being touched, or the sweeps of several lobby replicas at once."""

from __future__ import annotations

import asyncio

import httpx
from litestar import Litestar
from stud.v1 import table_service_pb2

from lobby_api.db import Database
from tests.engine_server.api.conftest import Engine
from tests.lobby_api.conftest import build_app, running
from tests.lobby_api.support import assert_ledger_consistent, register, scalar

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
