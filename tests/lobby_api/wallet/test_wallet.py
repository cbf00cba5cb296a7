"""``GET /wallet``: the balance and the statement, newest first, page by page."""

from __future__ import annotations

from typing import Any

import httpx

from lobby_api.db import Database
from lobby_api.wallet.ledger import ISSUER, post, wallet_account
from tests.engine_server.api.conftest import Engine
from tests.lobby_api.support import Player, counts, register

SLOW = "t-austria"  # a 30 s clock: no hand runs before two players sit


async def test_the_statement_pages_newest_first(client: httpx.AsyncClient, db: Database) -> None:
    player = await register(client)
    for n in range(1, 8):
        async with db.write() as session:
            await post(
                session,
                f"gift:{player.id}:{n}",
                "gift",
                [(ISSUER, -n), (wallet_account(player.id), n)],
            )
    seen: list[int] = []
    token = None
    while True:
        params = {"page_size": 3, **({"page_token": token} if token else {})}
        page = await player.get("/wallet", params=params)
        assert page.status_code == 200, page.text
        body = page.json()
        assert body["balance"] == 10_000 + 28 and body["account"] == f"wallet:{player.id}"
        seen += [e["amount"] for e in body["entries"]]
        token = body["next_page_token"]
        if token is None:
            break
    assert seen == [7, 6, 5, 4, 3, 2, 1, 10_000]
    first = (await player.get("/wallet")).json()["entries"][0]
    assert first["balance_after"] == 10_028 and first["kind"] == "gift"


async def test_bad_paging_parameters_are_problems(client: httpx.AsyncClient, db: Database) -> None:
    player = await register(client)
    before = await counts(db)
    for params, field in (
        ({"page_token": "garbage!"}, "page_token"),
        ({"page_size": 0}, "page_size"),
        ({"page_size": 101}, "page_size"),
        ({"page_size": "many"}, "page_size"),
    ):
        answer = await player.get("/wallet", params=params)
        assert answer.status_code == 400, answer.text
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert answer.json()["field"] == field
    assert await counts(db) == before


async def _entries(player: Player) -> list[tuple[str, int, str | None, str | None]]:
    """His statement: (kind, amount, table_id, reference) of each entry, newest first."""
    answer = await player.get("/wallet")
    assert answer.status_code == 200, answer.text
    entries: list[dict[str, Any]] = answer.json()["entries"]
    return [(e["kind"], e["amount"], e["table_id"], e["reference"]) for e in entries]


async def test_every_entry_names_its_table_where_it_has_one(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    """A buy-in, the cash-out of that seat (its reference names the seat session) and the hold
    of a ticket that found a seat (its reference names the ticket) each name their table; a
    grant, and a ticket withdrawn while it waited, name none. The references stay as posted."""
    # Ann opens a table and leaves it before anyone comes: paid out at once.
    ann = await register(client, city)
    opened = await ann.post("/quickgame", {"stake_level": SLOW, "buy_in": 100, "client_seed": "a"})
    assert opened.status_code == 201, opened.text
    first = opened.json()
    left = await ann.post(f"/tables/{first['table_id']}/leave", idempotency=None)
    assert left.status_code == 200 and left.json()["state"] == "closed", left.text
    assert await _entries(ann) == [
        ("settlement", 100, first["table_id"], f"seat_sessions/{first['seat_session_id']}"),
        ("buy_in", -100, first["table_id"], f"tables/{first['table_id']}"),
        ("signup_grant", 10_000, None, f"players/{ann.id}"),
    ]

    # Bob opens another; Cid's ticket finds a seat there.
    bob = await register(client, city)
    opened = await bob.post("/quickgame", {"stake_level": SLOW, "buy_in": 100, "client_seed": "b"})
    second = opened.json()["table_id"]
    cid = await register(client, city)
    ticket = await cid.post("/tickets", {"stake_level": SLOW, "buy_in": 60})
    assert ticket.status_code == 201 and ticket.json()["status"] == "seated", ticket.text
    assert ticket.json()["table_id"] == second
    assert await _entries(cid) == [
        ("ticket_hold", -60, second, f"tickets/{ticket.json()['id']}"),
        ("signup_grant", 10_000, None, f"players/{cid.id}"),
    ]
    assert (await _entries(bob))[0][:3] == ("buy_in", -100, second)

    # Dee's ticket waits (no table of that level in the city) and is withdrawn: no table.
    dee = await register(client, city)
    waiting = await dee.post("/tickets", {"stake_level": "t-fast", "buy_in": 60})
    assert waiting.status_code == 201 and waiting.json()["status"] == "waiting", waiting.text
    withdrawn = await dee.client.delete(f"/tickets/{waiting.json()['id']}", headers=dee.auth)
    assert withdrawn.status_code == 200, withdrawn.text
    assert [e[:3] for e in await _entries(dee)] == [
        ("ticket_release", 60, None),
        ("ticket_hold", -60, None),
        ("signup_grant", 10_000, None),
    ]
