"""``GET /wallet``: the balance and the statement, newest first, page by page."""

from __future__ import annotations

import httpx

from lobby_api.db import Database
from lobby_api.wallet.ledger import ISSUER, post, wallet_account
from tests.lobby_api.support import counts, register


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
