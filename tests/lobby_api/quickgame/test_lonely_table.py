"""A quick table nobody joins: the lobby says so, and bots come only on request, where a
bot desk serves the city.

Every test runs against a real engine on loopback; each keeps to a city of its own.
"""

from __future__ import annotations

import httpx

from engine_server.auth import Scope, mint_token
from lobby_api.db import Database
from lobby_api.settings import LobbySettings
from tests.engine_server.api.conftest import Engine
from tests.lobby_api.support import Player, register

SLOW = "t-austria"  # a 30 s clock: nothing moves by itself


def _desk_token(settings: LobbySettings, scopes: list[Scope] | None = None) -> dict[str, str]:
    token = mint_token(settings.jwt_secret, "bots-test", scopes or [Scope.LOBBY], ttl_seconds=600)
    return {"Authorization": f"Bearer {token}"}


async def _poll_desk(
    client: httpx.AsyncClient, settings: LobbySettings, city: str, desk: str = "desk-1"
) -> httpx.Response:
    return await client.post(
        "/bots/desk",
        json={"desk": desk, "cities": [city], "stake_levels": [SLOW]},
        headers=_desk_token(settings),
    )


async def _open(client: httpx.AsyncClient, city: str) -> tuple[Player, dict[str, object]]:
    opener = await register(client, city)
    opened = await opener.post(
        "/quickgame", {"stake_level": SLOW, "buy_in": 100, "client_seed": "seed_1"}
    )
    assert opened.status_code == 201, opened.text
    return opener, opened.json()


async def test_a_lonely_table_says_why_it_waits_and_offers_no_bots_where_none_run(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    opener, game = await _open(client, city)
    table_id = game["table_id"]
    opponents = game["opponents"]
    assert opponents == {
        "state": "waiting",
        "players": 1,
        "waiting": 0,
        "bots": "unavailable",
        "bots_fill_to": None,
        "message": f"Waiting for players of {city.upper()} at test: casinos_austria, slow "
        "clock: nobody else is looking for a game there now. No bots serve "
        f"{city.upper()} at this level: keep waiting, or leave (POST /tables/{table_id}/leave).",
    }
    asked = await opener.post(f"/tables/{table_id}/bots", {"players": 3}, idempotency=None)
    assert asked.status_code == 409, asked.text
    assert asked.headers["content-type"].startswith("application/problem+json")
    assert asked.json()["code"] == "bots_unavailable"

    # A second player of the city opens his own table: each learns the other waits.
    second, other = await _open(client, city)
    assert other["opponents"]["waiting"] == 1
    assert "1 other player is looking for a game there" in other["opponents"]["message"]
    view = await opener.get(f"/tables/{table_id}")
    assert view.status_code == 200, view.text
    assert view.json()["opponents"]["waiting"] == 1
    # Only a player seated at the table may look at it.
    assert (await second.get(f"/tables/{table_id}")).status_code == 404


async def test_bots_come_on_request_where_a_desk_serves_and_only_as_many_as_asked(
    client: httpx.AsyncClient,
    engine: Engine,
    db: Database,
    city: str,
    settings: LobbySettings,
) -> None:
    opener, game = await _open(client, city)
    table_id = str(game["table_id"])

    # Only a service token may act as a bot desk.
    refused = await client.post(
        "/bots/desk",
        json={"desk": "d", "cities": [city], "stake_levels": [SLOW]},
        headers=opener.auth,
    )
    assert refused.status_code == 403 and refused.json()["code"] == "not_a_bot_desk"
    assert (
        await client.post("/bots/desk", json={"desk": "d", "cities": [city], "stake_levels": ["*"]})
    ).status_code == 401

    polled = await _poll_desk(client, settings, city)
    assert polled.status_code == 200, polled.text
    assert polled.json()["requests"] == []
    view = (await opener.get(f"/tables/{table_id}")).json()["opponents"]
    assert view["bots"] == "available"
    assert view["message"].endswith(
        f"Keep waiting, or play with bots (POST /tables/{table_id}/bots)."
    )

    # A ticket for that table is refused while it has not asked.
    bot_1 = await register(client, city)
    early = await bot_1.post("/tickets", {"stake_level": SLOW, "buy_in": 60, "table_id": table_id})
    assert early.status_code == 409 and early.json()["code"] == "no_bot_request", early.text

    asked = await opener.post(f"/tables/{table_id}/bots", {"players": 3}, idempotency=None)
    assert asked.status_code == 200, asked.text
    assert asked.json()["opponents"]["bots"] == "requested"
    assert asked.json()["opponents"]["bots_fill_to"] == 3
    assert "Bots are on their way (to fill the table to 3 players)." in asked.text
    too_many = await opener.post(f"/tables/{table_id}/bots", {"players": 8}, idempotency=None)
    assert too_many.status_code == 400, too_many.text  # at most 7: the schema says so

    [request] = (await _poll_desk(client, settings, city)).json()["requests"]
    assert request["table_id"] == table_id and request["missing"] == 2
    assert request["city"] == city and request["players"] == 3

    # Bots answer with tickets for that table: seated there, until it has its 3 players.
    seated = []
    for bot in (bot_1, await register(client, city)):
        ticket = await bot.post(
            "/tickets", {"stake_level": SLOW, "buy_in": 60, "table_id": table_id}
        )
        assert ticket.status_code == 201, ticket.text
        assert ticket.json()["status"] == "seated", ticket.text
        assert ticket.json()["table_id"] == ticket.json()["for_table_id"] == table_id
        seated.append(bot)
    assert (await _poll_desk(client, settings, city)).json()["requests"] == []
    late = await (await register(client, city)).post(
        "/tickets", {"stake_level": SLOW, "buy_in": 60, "table_id": table_id}
    )
    assert late.status_code == 409 and late.json()["code"] == "no_bot_request"
    # A player of another city cannot answer it.
    stranger = await register(client, "berlin" if city != "berlin" else "vienna")
    far = await stranger.post("/tickets", {"stake_level": SLOW, "buy_in": 60, "table_id": table_id})
    assert far.status_code == 409 and far.json()["code"] == "no_bot_request"

    now = (await opener.get(f"/tables/{table_id}")).json()["opponents"]
    assert now["state"] == "playing" and now["players"] == 3
    assert now["message"] == "3 players at the table: the game is on."

    # Keep waiting after all: the request is withdrawn (the bots seated stay).
    kept = await opener.client.delete(f"/tables/{table_id}/bots", headers=opener.auth)
    assert kept.status_code == 200, kept.text
    assert kept.json()["opponents"]["bots"] == "available"
    assert kept.json()["opponents"]["players"] == 3
