"""At the table: top-up between hands, leaving, rotating the seed pair."""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid

import httpx
import sqlalchemy as sa
from stud.v1 import admin_service_pb2
from stud.v1.table_pb2 import SEAT_SESSION_CLOSE_REASON_LEFT, SeatSession

from lobby_api.db import Database
from tests.engine_server.api.conftest import Engine
from tests.lobby_api.support import Player, assert_ledger_consistent, counts, register, rows, scalar

SLOW = "t-austria"

# These tests share the session's engine (each keeps to a city of its own).


async def _open(
    client: httpx.AsyncClient, city: str, level: str = SLOW, buy_in: int = 100
) -> tuple[Player, dict]:
    opener = await register(client, city)
    opened = await opener.post(
        "/quickgame", {"stake_level": level, "buy_in": buy_in, "client_seed": "seed_1"}
    )
    assert opened.status_code == 201, opened.text
    return opener, opened.json()


async def _engine_session(engine: Engine, table_id: str, seat_session_id: str) -> SeatSession:
    """The seat session as the engine's AdminService reports it to ops."""
    listed = await engine.admin.ListSeatSessions(
        admin_service_pb2.ListSeatSessionsRequest(table=f"tables/{table_id}"),
        metadata=engine.admin_md,
    )
    return next(s for s in listed.sessions if s.seat_session_id == seat_session_id)


async def _wait_for_running_hand(db: Database, table_id: str) -> None:
    deadline = time.monotonic() + 10
    while not await scalar(
        db, "SELECT count(*) FROM hands WHERE table_id = :t AND state = 'running'", t=table_id
    ):
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)


async def test_a_top_up_between_hands_adds_chips_once(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    opener, game = await _open(client, city)
    table_id = game["table_id"]
    idempotency = uuid.uuid4().hex
    first = await opener.post(f"/tables/{table_id}/topup", {"amount": 50}, idempotency=idempotency)
    again = await opener.post(f"/tables/{table_id}/topup", {"amount": 50}, idempotency=idempotency)
    assert first.status_code == again.status_code == 200, first.text
    assert first.json()["stack"] == 150 and again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    assert await opener.balance() == 10_000 - 150
    assert (
        await scalar(db, "SELECT stack FROM seat_sessions WHERE id = :s", s=game["seat_session_id"])
        == 150
    )
    assert (
        await scalar(
            db, "SELECT balance FROM ledger_accounts WHERE id = :a", a=f"escrow:tables/{table_id}"
        )
        == 150
    )
    before = await counts(db)
    over = await opener.post(f"/tables/{table_id}/topup", {"amount": 251})
    assert over.status_code == 422 and over.json()["field"] == "amount"
    stranger = await register(client, city)
    before = await counts(db)
    nowhere = await stranger.post(f"/tables/{table_id}/topup", {"amount": 10})
    assert nowhere.status_code == 404 and nowhere.json()["code"] == "not_seated"
    assert await counts(db) == before
    await assert_ledger_consistent(db)


async def test_no_top_up_during_a_hand(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    opener, game = await _open(client, city)
    guest = await register(client, city)
    assert (await guest.post("/tickets", {"stake_level": SLOW, "buy_in": 100})).json()[
        "status"
    ] == "seated"
    await _wait_for_running_hand(db, game["table_id"])
    before = await counts(db)
    refused = await opener.post(f"/tables/{game['table_id']}/topup", {"amount": 10})
    assert refused.status_code == 409 and refused.json()["code"] == "hand_in_progress"
    assert await counts(db) == before
    assert await opener.balance() == 9_900


async def test_casinos_austria_top_ups_reach_the_minimum_buy_in(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    # docs/rules.md §2.1: casinos_austria re-buys "only up to at least the minimum buy-in"
    # (40 here).
    austrian, game = await _open(client, city, SLOW, 40)
    house, house_game = await _open(client, city, "t-fast", 40)
    # As if hands had taken them down to 20 chips (only the lobby's check reads this).
    for seat_session in (game["seat_session_id"], house_game["seat_session_id"]):
        async with db.write() as session:
            await session.exec(  # type: ignore[call-overload]
                sa.text("UPDATE seat_sessions SET stack = 20 WHERE id = :s"),
                params={"s": seat_session},
            )
    short = await austrian.post(f"/tables/{game['table_id']}/topup", {"amount": 10})
    assert short.status_code == 422 and short.json()["field"] == "amount"
    assert "minimum buy-in 40" in short.json()["detail"]
    enough = await austrian.post(f"/tables/{game['table_id']}/topup", {"amount": 20})
    assert enough.status_code == 200, enough.text
    anything = await house.post(f"/tables/{house_game['table_id']}/topup", {"amount": 10})
    assert anything.status_code == 200, anything.text


async def test_leaving_between_hands_pays_out_once_and_closes_the_empty_table(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    opener, game = await _open(client, city)
    table_id = game["table_id"]
    left = await opener.post(f"/tables/{table_id}/leave", idempotency=None)
    assert left.status_code == 200, left.text
    assert left.json() == {
        "table": f"tables/{table_id}",
        "seat_session_id": game["seat_session_id"],
        "state": "closed",
        "final_stack": 100,
        "credited": 100,
    }
    again = await opener.post(f"/tables/{table_id}/leave", idempotency=None)
    assert again.json() == left.json()
    assert await opener.balance() == 10_000
    # The engine was told it was his own leave (not ops' removal), under his username.
    session = await _engine_session(engine, table_id, game["seat_session_id"])
    assert session.close_reason == SEAT_SESSION_CLOSE_REASON_LEFT
    assert (session.player_id, session.display_name) == (opener.id, opener.username)
    assert (
        await scalar(
            db,
            "SELECT count(*) FROM ledger_transactions WHERE idempotency_key = :k",
            k=f"settle:{game['seat_session_id']}",
        )
        == 1
    )
    assert await scalar(db, "SELECT status FROM tables WHERE id = :t", t=table_id) == "closed"
    revealed = await rows(
        db,
        "SELECT dealer_seed, commitment FROM seed_pairs WHERE table_id = :t AND revealed_at IS NOT NULL",
        t=table_id,
    )
    assert [hashlib.sha256(r.dealer_seed.encode()).hexdigest() for r in revealed] == [
        game["commitment"]
    ]
    finished = await scalar(
        db, "SELECT finished_at FROM quick_tables WHERE table_id = :t", t=table_id
    )
    assert finished is not None
    assert (await opener.post(f"/tables/{table_id}/topup", {"amount": 10})).status_code == 404
    await assert_ledger_consistent(db)


async def test_leaving_during_a_hand_pays_out_when_it_ends(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    opener, game = await _open(client, city, "t-fast")
    guest = await register(client, city)
    assert (await guest.post("/tickets", {"stake_level": "t-fast", "buy_in": 100})).json()[
        "status"
    ] == "seated"
    await _wait_for_running_hand(db, game["table_id"])
    left = await opener.post(f"/tables/{game['table_id']}/leave", idempotency=None)
    assert left.status_code == 200
    if left.json()["state"] == "leaving":
        assert await opener.balance() == 9_900  # not paid while he plays the hand out
    deadline = time.monotonic() + 20
    while (
        await scalar(db, "SELECT state FROM seat_sessions WHERE id = :s", s=game["seat_session_id"])
        != "closed"
    ):
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    stack = await scalar(
        db, "SELECT stack FROM seat_sessions WHERE id = :s", s=game["seat_session_id"]
    )
    assert await opener.balance() == 9_900 + stack  # touching the wallet settled it
    assert await opener.balance() == 9_900 + stack
    session = await _engine_session(engine, game["table_id"], game["seat_session_id"])
    assert session.close_reason == SEAT_SESSION_CLOSE_REASON_LEFT
    assert session.display_name == opener.username
    await assert_ledger_consistent(db)


async def test_the_opener_rotates_the_seed_pair(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    opener, game = await _open(client, city)
    path = f"/tables/{game['table_id']}/rotate-seed"
    guest = await register(client, city)
    stranger = await register(client, city)
    bad = await opener.post(path, {"client_seed": "not ok"}, idempotency=None)
    assert bad.status_code == 422 and bad.json()["field"] == "client_seed"
    rotated = await opener.post(path, {"client_seed": "fresh_seed"}, idempotency=None)
    assert rotated.status_code == 200, rotated.text
    body = rotated.json()
    assert body["revealed"]["commitment"] == game["commitment"]
    assert (
        hashlib.sha256(body["revealed"]["dealer_seed"].encode()).hexdigest() == game["commitment"]
    )
    assert body["current"]["commitment"] == game["next_commitment"]
    assert body["current"]["client_seed"] == "fresh_seed"
    assert (await stranger.post(path, {}, idempotency=None)).status_code == 404
    assert (await guest.post("/tickets", {"stake_level": SLOW, "buy_in": 100})).json()[
        "status"
    ] == "seated"
    assert (await guest.post(path, {}, idempotency=None)).status_code == 403
    await _wait_for_running_hand(db, game["table_id"])
    busy = await opener.post(path, {}, idempotency=None)
    assert busy.status_code == 409 and busy.json()["code"] == "hand_in_progress"
