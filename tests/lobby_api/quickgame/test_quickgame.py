"""POST /quickgame: escrow the buy-in, open a private table on the engine, seat the opener."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import uuid

import grpc
import httpx
import pytest
from litestar import Litestar
from stud.v1 import admin_service_pb2, table_service_pb2

from engine_server.api.convert import rake_from_message
from engine_server.auth import Scope, verify_token
from engine_server.game.profiles import Rake
from lobby_api.catalog.models import StakeLevelRow
from lobby_api.db import Database
from lobby_api.engine_client import EngineClient, TableSpec
from tests.engine_server.api.conftest import SECRET, Engine, bearer
from tests.lobby_api.conftest import build_app, running
from tests.lobby_api.support import (
    Player,
    assert_ledger_consistent,
    counts,
    key,
    register,
    rows,
    scalar,
)

HEX64 = re.compile(r"^[0-9a-f]{64}$")
#: Concurrency is shown on PostgreSQL (SQLite serialises every writer anyway).
POSTGRES_ONLY = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)

# These tests share the session's engine (each keeps to a city of its own).


def quick(level: str = "t-fast", buy_in: int = 100, seed: str = "alice_01") -> dict[str, object]:
    return {"stake_level": level, "buy_in": buy_in, "client_seed": seed}


async def test_a_quick_game_opens_a_private_table_dealt_from_the_players_seed(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    player = await register(client, city)
    answer = await player.post("/quickgame", quick())
    assert answer.status_code == 201, answer.text
    body = answer.json()
    table_id = body["table_id"]
    assert body["table"] == f"tables/{table_id}"
    assert body["engine_grpc"] == engine.grpc_address
    assert body["engine_grpc_web"] == engine.web_url
    assert HEX64.match(body["commitment"]) and HEX64.match(body["next_commitment"])
    assert body["commitment"] != body["next_commitment"]
    assert (body["city"], body["stake_level"], body["buy_in"]) == (city, "t-fast", 100)
    assert verify_token(body["token"], SECRET).subject == player.id
    # The engine's side: a private table of the opener, dealt from his client seed.
    table = (
        await rows(db, "SELECT private, opener_player_id FROM tables WHERE id = :t", t=table_id)
    )[0]
    assert tuple(table) == (True, player.id)
    pair = await rows(
        db,
        "SELECT commitment, client_seed FROM seed_pairs WHERE table_id = :t AND state = 'current'",
        t=table_id,
    )
    assert tuple(pair[0]) == (body["commitment"], "alice_01")
    sessions = await rows(
        db, "SELECT player_id, stack, seat FROM seat_sessions WHERE table_id = :t", t=table_id
    )
    assert [tuple(s) for s in sessions] == [(player.id, 100, body["seat"])]
    # The money: out of the wallet into the table's escrow.
    assert await player.balance() == 10_000 - 100
    assert (
        await scalar(
            db, "SELECT balance FROM ledger_accounts WHERE id = :a", a=f"escrow:tables/{table_id}"
        )
        == 100
    )
    await assert_ledger_consistent(db)
    # The lobby's side, written with the answer: his seat taken, the table open, the answer
    # kept for a retry.
    seat = await rows(
        db,
        "SELECT state, seat FROM lobby_seats WHERE seat_session_id = :s",
        s=body["seat_session_id"],
    )
    assert [tuple(s) for s in seat] == [("seated", body["seat"])]
    status = await scalar(db, "SELECT status FROM quick_tables WHERE table_id = :t", t=table_id)
    assert status == "open"
    kept = await rows(
        db, "SELECT state, status_code FROM idempotency_keys WHERE player_id = :p", p=player.id
    )
    assert [tuple(k) for k in kept] == [("done", 201)]
    # Never listed: the lobby's token does not see private tables.
    listed = await engine.admin.ListTables(
        admin_service_pb2.ListTablesRequest(), metadata=bearer("lobby", Scope.LOBBY)
    )
    assert table_id not in {t.name.removeprefix("tables/") for t in listed.tables}
    # The answer's token opens the player's own view on the engine.
    async with grpc.aio.insecure_channel(body["engine_grpc"]) as channel:
        from stud.v1 import table_service_pb2_grpc

        stub = table_service_pb2_grpc.TableServiceStub(channel)
        stream = stub.WatchTable(
            table_service_pb2.WatchTableRequest(table=body["table"]),
            metadata=(("authorization", f"Bearer {body['token']}"),),
        )
        first = await anext(aiter(stream))
        stream.cancel()
    assert first.snapshot.viewer_seat == body["seat"]
    assert first.snapshot.seed.commitment == body["commitment"]


def engine_calls(monkeypatch: pytest.MonkeyPatch, *, seat_at_creation: bool = True) -> list[str]:
    """The lobby's CreateTable and SeatPlayer calls from now on, by name (as an engine older
    than CreateTable's opener_seat would see them when not ``seat_at_creation``)."""
    called: list[str] = []
    open_table, seat_player = EngineClient.open_table, EngineClient.seat_player

    async def opening(client: EngineClient, spec: TableSpec) -> object:
        called.append("CreateTable")
        return await open_table(
            client, spec if seat_at_creation else dataclasses.replace(spec, opener_seat=None)
        )

    async def seating(client: EngineClient, *args: object, **kwargs: object) -> object:
        called.append("SeatPlayer")
        return await seat_player(client, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(EngineClient, "open_table", opening)
    monkeypatch.setattr(EngineClient, "seat_player", seating)
    return called


async def test_a_quick_game_creates_and_seats_in_one_engine_call(
    client: httpx.AsyncClient,
    engine: Engine,
    db: Database,
    city: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    called = engine_calls(monkeypatch)
    player = await register(client, city)
    answer = await player.post("/quickgame", quick())
    assert answer.status_code == 201, answer.text
    assert called == ["CreateTable"]
    body = answer.json()
    sessions = await rows(
        db, "SELECT id, stack, seat FROM seat_sessions WHERE table_id = :t", t=body["table_id"]
    )
    assert [tuple(s) for s in sessions] == [(body["seat_session_id"], 100, body["seat"])]
    assert body["seat"] == 1
    await assert_ledger_consistent(db)


async def test_an_engine_that_does_not_seat_at_creation_gets_seat_player(
    client: httpx.AsyncClient,
    engine: Engine,
    db: Database,
    city: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    called = engine_calls(monkeypatch, seat_at_creation=False)
    player = await register(client, city)
    answer = await player.post("/quickgame", quick())
    assert answer.status_code == 201, answer.text
    assert called == ["CreateTable", "SeatPlayer"]
    body = answer.json()
    stacks = await rows(
        db, "SELECT stack FROM seat_sessions WHERE id = :s", s=body["seat_session_id"]
    )
    assert [tuple(s) for s in stacks] == [(100,)]
    await assert_ledger_consistent(db)


async def test_bad_quick_games_name_the_field_and_write_nothing(
    client: httpx.AsyncClient, db: Database, city: str
) -> None:
    player = await register(client, city)
    before = await counts(db)
    cases = [
        (quick(level="no-such-level"), 422, "stake_level"),
        (quick(buy_in=39), 422, "buy_in"),
        (quick(buy_in=401), 422, "buy_in"),
        (quick(buy_in=0), 400, "buy_in"),
        (quick(seed="has space"), 422, "client_seed"),
        (quick(seed="x" * 65), 422, "client_seed"),
        (quick(seed=""), 400, "client_seed"),
        (quick(level="mp-15-30", buy_in=30_000), 409, "buy_in"),  # more than the wallet holds
        ({"stake_level": "t-fast", "buy_in": 100}, 400, "client_seed"),
    ]
    for body, status, field in cases:
        answer = await player.post("/quickgame", body)
        assert answer.status_code == status, (body, answer.text)
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert answer.json()["field"] == field, answer.json()
    malformed = await client.post(
        "/quickgame",
        content=b"{not json",
        headers={**player.auth, **key(), "Content-Type": "application/json"},
    )
    assert malformed.status_code == 400 and malformed.json()["field"] == "body"
    no_key = await player.post("/quickgame", quick(), idempotency=None)
    assert no_key.status_code == 400 and no_key.json()["field"] == "Idempotency-Key"
    bad_key = await player.post("/quickgame", quick(), idempotency="has space")
    assert bad_key.status_code == 400 and bad_key.json()["field"] == "Idempotency-Key"
    anonymous = await client.post("/quickgame", json=quick(), headers=key())
    assert anonymous.status_code == 401
    assert await counts(db) == before
    assert await player.balance() == 10_000


async def test_a_retry_with_the_same_key_gets_the_first_answer_and_moves_nothing(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    player = await register(client, city)
    idempotency = uuid.uuid4().hex
    first = await player.post("/quickgame", quick(), idempotency=idempotency)
    again = await player.post("/quickgame", quick(), idempotency=idempotency)
    assert first.status_code == again.status_code == 201
    assert again.headers.get("idempotent-replayed") == "true"
    strip = lambda b: {k: v for k, v in b.items() if k != "token"}  # noqa: E731
    assert strip(again.json()) == strip(first.json())
    other = await player.post("/quickgame", quick(buy_in=50), idempotency=idempotency)
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"
    assert await player.balance() == 10_000 - 100
    assert (
        await scalar(
            db, "SELECT count(*) FROM quick_tables WHERE opener_player_id = :p", p=player.id
        )
        == 1
    )


@POSTGRES_ONLY
async def test_one_key_sent_ten_times_at_once_opens_one_table(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    player = await register(client, city)
    idempotency = uuid.uuid4().hex
    answers = await asyncio.gather(
        *(player.post("/quickgame", quick(), idempotency=idempotency) for _ in range(10))
    )
    assert [a.status_code for a in answers] == [201] * 10, [a.text for a in answers]
    assert len({a.json()["table_id"] for a in answers}) == 1
    assert await player.balance() == 10_000 - 100
    assert (
        await scalar(
            db, "SELECT count(*) FROM quick_tables WHERE opener_player_id = :p", p=player.id
        )
        == 1
    )
    assert (
        await scalar(db, "SELECT count(*) FROM tables WHERE opener_player_id = :p", p=player.id)
        == 1
    )
    await assert_ledger_consistent(db)


@pytest.mark.many_connections
@POSTGRES_ONLY
async def test_fifty_buy_ins_at_once_from_a_wallet_that_pays_for_ten(
    settings: object, engine: Engine, city: str
) -> None:
    app = build_app(settings, engine, signup_grant=1000)  # type: ignore[arg-type]
    async with (
        running(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://lobby") as http,
    ):
        from tests.lobby_api.conftest import add_test_levels

        await add_test_levels(app.state.db)
        player = await register(http, city)
        answers = await asyncio.gather(
            *(player.post("/quickgame", quick(seed=f"s{n}")) for n in range(50))
        )
        statuses = sorted(a.status_code for a in answers)
        assert statuses == [201] * 10 + [409] * 40, [
            a.text for a in answers if a.status_code not in (201, 409)
        ]
        assert {a.json()["code"] for a in answers if a.status_code == 409} == {"insufficient_funds"}
        assert await player.balance() == 0
        db: Database = app.state.db
        await assert_ledger_consistent(db)
        assert (
            await scalar(db, "SELECT count(*) FROM tables WHERE opener_player_id = :p", p=player.id)
            == 10
        )
        # Never negative, at any point of the statement.
        assert (
            await scalar(
                db,
                "SELECT min(balance_after) FROM ledger_entries WHERE account_id = :a",
                a=f"wallet:{player.id}",
            )
            == 0
        )
    await app.state.engine.close()


async def test_an_unreachable_engine_keeps_the_money_in_escrow_until_a_retry_finishes(
    settings: object, engine: Engine, client: httpx.AsyncClient, db: Database, city: str
) -> None:
    # A second replica that cannot reach the engine: neither at STUD_LOBBY_ENGINE (nothing
    # listens there) nor at the address the engine node registered.
    cut_off = build_app(settings, None)  # type: ignore[arg-type]
    cut_off.state.engines.client = lambda address: cut_off.state.engine
    async with (
        running(cut_off),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=cut_off), base_url="http://lobby"
        ) as http,
    ):
        player = await register(http, city)
        stranded = Player(http, player.id, player.username, city, player.token)
        idempotency = uuid.uuid4().hex
        failed = await stranded.post("/quickgame", quick(), idempotency=idempotency)
        assert failed.status_code == 503, failed.text
        assert failed.json()["code"] == "engine_unavailable"
        assert failed.headers["retry-after"] == "1"
        assert await stranded.balance() == 10_000 - 100  # held in escrow, not lost
        second = await stranded.post("/quickgame", quick(seed="bob_02"))
        assert second.status_code == 503
    await cut_off.state.engine.close()
    # The same key on a replica that reaches the engine finishes the first request.
    player.client = client
    resumed = await player.post("/quickgame", quick(), idempotency=idempotency)
    assert resumed.status_code == 201, resumed.text
    # The sweep finishes the other one (nobody retried it).
    app: Litestar = client._transport.app  # type: ignore[attr-defined]
    await app.state.sweep.once()
    assert (
        await scalar(
            db,
            "SELECT count(*) FROM idempotency_keys WHERE player_id = :p AND state = 'done'",
            p=player.id,
        )
        == 2
    )
    assert (
        await scalar(db, "SELECT count(*) FROM seat_sessions WHERE player_id = :p", p=player.id)
        == 2
    )
    assert await player.balance() == 10_000 - 200
    await assert_ledger_consistent(db)


async def test_an_engine_refusal_gives_the_buy_in_back(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    async with db.write() as session:
        session.add(
            StakeLevelRow(
                id="t-broken-" + uuid.uuid4().hex[:6],
                name="a level whose rake the engine refuses",
                profile="house",
                ante=1,
                bring_in=1,
                small_bet=2,
                big_bet=4,
                min_buy_in=40,
                max_buy_in=400,
                action_seconds=30,
                rake={"by_players": [{"min_players": 2, "max_players": 9, "schedule": [[5, -1]]}]},
            )
        )
    level = await scalar(
        db, "SELECT id FROM stake_levels WHERE id LIKE 't-broken-%' ORDER BY id DESC"
    )
    player = await register(client, city)
    answer = await player.post("/quickgame", quick(level=level))
    assert answer.status_code == 502, answer.text
    assert answer.json()["code"] == "engine_refused"
    assert await player.balance() == 10_000
    status = await scalar(
        db, "SELECT status FROM quick_tables WHERE opener_player_id = :p", p=player.id
    )
    assert status == "failed"
    await assert_ledger_consistent(db)


async def test_a_multipoker_quick_game_carries_the_levels_whole_rake_by_players(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    # mp-3-6 from seeds/: 2-3, 4-5 and 6-10 players, each bracket with its own steps.
    async with db.read() as session:
        level = await session.get(StakeLevelRow, "mp-3-6")
    assert level is not None
    seeded = level.rake
    assert seeded is not None and len(seeded["by_players"]) == 3
    listed = {s["id"]: s for s in (await client.get("/stakes")).json()}
    assert listed["mp-3-6"]["rake"] == seeded
    player = await register(client, city)
    answer = await player.post("/quickgame", quick(level="mp-3-6", buy_in=6000))
    assert answer.status_code == 201, answer.text
    table = (
        await engine.admin.GetTable(
            admin_service_pb2.GetTableRequest(name=answer.json()["table"], reason="test"),
            metadata=engine.admin_md,
        )
    ).table
    assert table.settings.profile == "multipoker"
    rake = table.settings.rules.rake
    assert rake.WhichOneof("kind") == "by_players"
    assert rake_from_message(rake) == Rake.from_json(seeded, "rake")
    assert [
        (b.min_players, b.max_players, [[s.pot_at_least, s.rake] for s in b.schedule.steps])
        for b in rake.by_players.brackets
    ] == [(b["min_players"], b["max_players"], b["schedule"]) for b in seeded["by_players"]]
