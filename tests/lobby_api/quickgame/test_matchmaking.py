"""Matchmaking: tickets are placed at quick games of their city and stake, at most six
besides the opener; others wait (polled), expire or are withdrawn."""

from __future__ import annotations

import asyncio
import time

import httpx

from lobby_api.db import Database
from tests.engine_server.api.conftest import Engine
from tests.lobby_api.conftest import add_test_levels, build_app, running
from tests.lobby_api.support import assert_ledger_consistent, counts, register, rows, scalar

SLOW = "t-austria"  # a 30 s clock: a running hand waits, nothing moves by itself

# These tests share the session's engine (each keeps to a city of its own).


async def _open(client: httpx.AsyncClient, city: str, level: str = SLOW) -> tuple[object, str]:
    opener = await register(client, city)
    opened = await opener.post(
        "/quickgame", {"stake_level": level, "buy_in": 100, "client_seed": "seed_1"}
    )
    assert opened.status_code == 201, opened.text
    return opener, opened.json()["table_id"]


async def test_six_besides_the_opener_then_tickets_wait_until_a_seat_frees(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    _opener, table_id = await _open(client, city)
    guests = []
    for _ in range(6):
        guest = await register(client, city)
        ticket = await guest.post("/tickets", {"stake_level": SLOW, "buy_in": 60})
        assert ticket.status_code == 201, ticket.text
        assert ticket.json()["status"] == "seated" and ticket.json()["table_id"] == table_id
        guests.append(guest)
    seventh = await register(client, city)
    waiting = await seventh.post("/tickets", {"stake_level": SLOW, "buy_in": 60})
    assert waiting.status_code == 201 and waiting.json()["status"] == "waiting"
    ticket_id = waiting.json()["id"]
    assert await seventh.balance() == 10_000 - 60  # held while it waits
    other = await register(client, "berlin" if city != "berlin" else "vienna")
    elsewhere = await other.post("/tickets", {"stake_level": SLOW, "buy_in": 60})
    assert elsewhere.json()["status"] == "waiting"
    assert (
        await scalar(
            db,
            "SELECT count(*) FROM seat_sessions WHERE table_id = :t AND state <> 'closed'",
            t=table_id,
        )
        == 7
    )
    polled = await seventh.get(f"/tickets/{ticket_id}")
    assert polled.status_code == 200 and polled.json()["status"] == "waiting"

    # A seated player who is not in the running hand leaves: paid out at once, seat freed.
    in_hand = {
        r.seat_session_id
        for r in await rows(
            db,
            "SELECT hp.seat_session_id FROM hand_players hp JOIN hands h ON h.id = hp.hand_id "
            "WHERE h.table_id = :t AND h.state = 'running'",
            t=table_id,
        )
    }
    sessions = {
        r.player_id: r.id
        for r in await rows(
            db, "SELECT id, player_id FROM seat_sessions WHERE table_id = :t", t=table_id
        )
    }
    leaver = next(g for g in reversed(guests) if sessions[g.id] not in in_hand)
    left = await leaver.post(f"/tables/{table_id}/leave", idempotency=None)
    assert left.status_code == 200 and left.json()["state"] == "closed", left.text
    assert await leaver.balance() == 10_000

    # The waiting ticket of the same city takes the seat; the other city's still waits.
    deadline = time.monotonic() + 10
    while (await seventh.get(f"/tickets/{ticket_id}")).json()["status"] != "seated":
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    assert (await seventh.get(f"/tickets/{ticket_id}")).json()["table_id"] == table_id
    assert (await other.get(f"/tickets/{elsewhere.json()['id']}")).json()["status"] == "waiting"
    assert (
        await scalar(
            db,
            "SELECT count(*) FROM seat_sessions WHERE table_id = :t AND state <> 'closed'",
            t=table_id,
        )
        == 7
    )
    await assert_ledger_consistent(db)


async def test_the_opener_is_not_placed_at_his_own_table(
    client: httpx.AsyncClient, engine: Engine, city: str
) -> None:
    opener, _table_id = await _open(client, city)
    again = await opener.post("/tickets", {"stake_level": SLOW, "buy_in": 60})
    assert again.status_code == 201 and again.json()["status"] == "waiting"


async def test_a_ticket_expires_and_its_buy_in_comes_back(
    settings: object, db: Database, city: str
) -> None:
    # Long enough that a loaded machine still answers the POST before the ticket expires.
    lifetime = 2.0
    app = build_app(settings, None, ticket_seconds=lifetime)  # type: ignore[arg-type]
    async with (
        running(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://lobby") as http,
    ):
        await add_test_levels(app.state.db)
        player = await register(http, city)
        posted_at = time.monotonic()
        ticket = await player.post("/tickets", {"stake_level": SLOW, "buy_in": 100})
        assert ticket.json()["status"] == "waiting"
        assert await player.balance() == 9_900
        async with asyncio.timeout(lifetime + 10):
            while True:
                polled = await player.get(f"/tickets/{ticket.json()['id']}")
                if polled.json()["status"] != "waiting":
                    break
                await asyncio.sleep(0.1)
        assert polled.json()["status"] == "expired"
        assert time.monotonic() - posted_at >= lifetime  # not before its time
        assert await player.balance() == 10_000
        assert (
            await scalar(
                db,
                "SELECT balance FROM ledger_accounts WHERE id = :a",
                a=f"hold:tickets/{ticket.json()['id']}",
            )
            == 0
        )
    await app.state.engine.close()


async def test_a_waiting_ticket_is_withdrawn_once(
    client: httpx.AsyncClient, db: Database, city: str
) -> None:
    player = await register(client, city)
    ticket = (await player.post("/tickets", {"stake_level": SLOW, "buy_in": 100})).json()
    path = f"/tickets/{ticket['id']}"
    first = await client.delete(path, headers=player.auth)
    again = await client.delete(path, headers=player.auth)
    assert first.status_code == again.status_code == 200
    assert first.json()["status"] == again.json()["status"] == "cancelled"
    assert await player.balance() == 10_000
    someone = await register(client, city)
    assert (await someone.get(path)).status_code == 404
    assert (await client.delete(path, headers=someone.auth)).status_code == 404
    await assert_ledger_consistent(db)


async def test_bad_tickets_name_the_field_and_write_nothing(
    client: httpx.AsyncClient, db: Database, city: str
) -> None:
    player = await register(client, city)
    before = await counts(db)
    for body, status, field in (
        ({"stake_level": "nope", "buy_in": 100}, 422, "stake_level"),
        ({"stake_level": SLOW, "buy_in": 10}, 422, "buy_in"),
        ({"stake_level": SLOW, "buy_in": 401}, 422, "buy_in"),
        ({"stake_level": "mp-15-30", "buy_in": 30_000}, 409, "buy_in"),
        ({"stake_level": SLOW}, 400, "buy_in"),
        ({"stake_level": SLOW, "buy_in": "lots"}, 400, "buy_in"),
    ):
        answer = await player.post("/tickets", body)
        assert answer.status_code == status, (body, answer.text)
        assert answer.json()["field"] == field
    assert (await player.get("/tickets/tk-nope")).status_code == 404
    assert await counts(db) == before
