"""A quick table nobody joins: the lobby says so, and bots come only on request, where a
bot desk serves the city, and only as many as the desks say they can send.

Every test runs against a real engine on loopback; each keeps to a city of its own.
"""

from __future__ import annotations

import doctest
from types import ModuleType
from typing import Any

import httpx
import pytest

from engine_server.auth import Scope, mint_token
from lobby_api.db import Database
from lobby_api.quickgame import bots as bots_module
from lobby_api.quickgame import opponents
from lobby_api.settings import LobbySettings
from tests.engine_server.api.conftest import Engine
from tests.lobby_api.support import Player, register

SLOW = "t-austria"  # a 30 s clock: nothing moves by itself


def _desk_token(settings: LobbySettings, scopes: list[Scope] | None = None) -> dict[str, str]:
    token = mint_token(settings.jwt_secret, "bots-test", scopes or [Scope.LOBBY], ttl_seconds=600)
    return {"Authorization": f"Bearer {token}"}


async def _poll_desk(
    client: httpx.AsyncClient,
    settings: LobbySettings,
    city: str,
    desk: str = "desk-1",
    bots: int = 3,
    bots_at: list[dict[str, Any]] | None = None,
) -> httpx.Response:
    body: dict[str, Any] = {"desk": desk, "cities": [city], "stake_levels": [SLOW], "bots": bots}
    if bots_at is not None:
        body["bots_at"] = bots_at
    return await client.post("/bots/desk", json=body, headers=_desk_token(settings))


async def _bot_seated(client: httpx.AsyncClient, city: str, table_id: str) -> None:
    """A bot of ``city`` answers the table's request: a ticket for that table only."""
    bot = await register(client, city)
    ticket = await bot.post("/tickets", {"stake_level": SLOW, "buy_in": 60, "table_id": table_id})
    assert ticket.status_code == 201, ticket.text
    assert ticket.json()["status"] == "seated", ticket.text


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
        "bots_can_fill_to": None,
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
        json={"desk": "d", "cities": [city], "stake_levels": [SLOW], "bots": 2},
        headers=opener.auth,
    )
    assert refused.status_code == 403 and refused.json()["code"] == "not_a_bot_desk"
    assert (
        await client.post(
            "/bots/desk", json={"desk": "d", "cities": [city], "stake_levels": ["*"], "bots": 2}
        )
    ).status_code == 401

    # The desk can send 2 bots to a table here: the table can be filled to 3 players.
    polled = await _poll_desk(client, settings, city, bots=2)
    assert polled.status_code == 200, polled.text
    assert polled.json()["requests"] == []
    view = (await opener.get(f"/tables/{table_id}")).json()["opponents"]
    assert view["bots"] == "available" and view["bots_can_fill_to"] == 3
    assert view["message"].endswith(
        f"Keep waiting, or play with bots (POST /tables/{table_id}/bots): they can fill the "
        "table to 3 players."
    )

    # A ticket for that table is refused while it has not asked.
    bot_1 = await register(client, city)
    early = await bot_1.post("/tickets", {"stake_level": SLOW, "buy_in": 60, "table_id": table_id})
    assert early.status_code == 409 and early.json()["code"] == "no_bot_request", early.text

    # More than the desk can send is refused, naming the field, and asks nobody for bots.
    beyond = await opener.post(f"/tables/{table_id}/bots", {"players": 4}, idempotency=None)
    assert beyond.status_code == 409, beyond.text
    assert beyond.headers["content-type"].startswith("application/problem+json")
    problem = beyond.json()
    assert (problem["code"], problem["field"]) == ("not_enough_bots", "players"), problem
    assert problem["detail"].startswith("bots can fill this table to 3 players now"), problem
    assert (await _poll_desk(client, settings, city, bots=2)).json()["requests"] == []

    asked = await opener.post(f"/tables/{table_id}/bots", {"players": 3}, idempotency=None)
    assert asked.status_code == 200, asked.text
    assert asked.json()["opponents"]["bots"] == "requested"
    assert asked.json()["opponents"]["bots_fill_to"] == 3
    assert "Bots are on their way (to fill the table to 3 players)." in asked.text
    too_many = await opener.post(f"/tables/{table_id}/bots", {"players": 8}, idempotency=None)
    assert too_many.status_code == 400, too_many.text  # at most 7: the schema says so

    [request] = (await _poll_desk(client, settings, city, bots=2)).json()["requests"]
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
    assert (await _poll_desk(client, settings, city, bots=2)).json()["requests"] == []
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
    # Both of the desk's bots sit here: no more can come (asking for 4 now is refused).
    assert now["bots_fill_to"] == 3 and now["bots_can_fill_to"] is None, now
    more = await opener.post(f"/tables/{table_id}/bots", {"players": 4}, idempotency=None)
    assert more.status_code == 409 and more.json()["code"] == "not_enough_bots", more.text

    # Keep waiting after all: the request is withdrawn (the bots seated stay).
    kept = await opener.client.delete(f"/tables/{table_id}/bots", headers=opener.auth)
    assert kept.status_code == 200, kept.text
    assert kept.json()["opponents"]["bots"] == "unavailable"
    assert kept.json()["opponents"]["players"] == 3
    # The desk has a bot more to send: one more can come.
    await _poll_desk(client, settings, city, bots=3)
    view = (await opener.get(f"/tables/{table_id}")).json()["opponents"]
    assert view["bots"] == "available" and view["bots_can_fill_to"] == 4, view


async def test_fewer_bots_than_asked_came_and_no_more_can_the_table_is_told_so(
    client: httpx.AsyncClient,
    engine: Engine,
    db: Database,
    city: str,
    settings: LobbySettings,
) -> None:
    opener, game = await _open(client, city)
    table_id = str(game["table_id"])
    await _poll_desk(client, settings, city, bots=3)
    asked = await opener.post(f"/tables/{table_id}/bots", {"players": 4}, idempotency=None)
    assert asked.status_code == 200, asked.text
    for _ in range(2):
        await _bot_seated(client, city, table_id)
    coming = (await opener.get(f"/tables/{table_id}")).json()["opponents"]
    assert coming["players"] == 3 and coming["bots_fill_to"] == 4, coming
    assert coming["message"] == (
        "3 players at the table: the game is on. More bots are on their way (to 4 players)."
    )

    # The desk's third bot cannot come after all (it says it can send 2 to a table): the
    # table hears no more promises, and is told it got fewer than it asked for.
    await _poll_desk(client, settings, city, bots=2)
    now = (await opener.get(f"/tables/{table_id}")).json()["opponents"]
    assert now["state"] == "playing" and now["bots"] == "requested", now
    assert now["players"] == 3 and now["bots_fill_to"] == 3, now
    assert now["bots_can_fill_to"] is None, now
    assert now["message"] == (
        f"3 players at the table: the game is on. No more bots can come now (you asked for 4 "
        f"players: the bot services serving {city.upper()} at this level have no more to send "
        "here)."
    )
    # No desk at all: the same, never "on their way".
    await _poll_desk(client, settings, city, bots=0)
    gone = (await opener.get(f"/tables/{table_id}")).json()["opponents"]
    assert gone["bots_fill_to"] == 3 and "No more bots can come now" in gone["message"], gone


async def test_desks_add_up_per_city_and_level_and_players_who_came_alone_do_not_count(
    client: httpx.AsyncClient,
    engine: Engine,
    db: Database,
    city: str,
    settings: LobbySettings,
) -> None:
    opener, game = await _open(client, city)
    table_id = str(game["table_id"])

    # A desk says how many bots it sends: a poll without that number is refused, and so is
    # a number for a place it does not serve.
    unsaid = await client.post(
        "/bots/desk",
        json={"desk": "desk-a", "cities": [city], "stake_levels": [SLOW]},
        headers=_desk_token(settings),
    )
    assert unsaid.status_code == 400, unsaid.text
    assert "bots" in unsaid.json()["detail"], unsaid.text
    elsewhere = await _poll_desk(
        client, settings, city, "desk-a", bots_at=[{"city": "oslo", "stake_level": "*", "bots": 1}]
    )
    assert elsewhere.status_code == 422, elsewhere.text
    assert (elsewhere.json()["code"], elsewhere.json()["field"]) == ("not_served", "bots_at")
    assert (await opener.get(f"/tables/{table_id}")).json()["opponents"]["bots"] == "unavailable"

    # Desk A sends none in general but 2 here (bots_at), desk B 1: 3 together.
    polled = await _poll_desk(
        client,
        settings,
        city,
        "desk-a",
        bots=0,
        bots_at=[{"city": city, "stake_level": "*", "bots": 2}],
    )
    assert polled.status_code == 200, polled.text
    await _poll_desk(client, settings, city, "desk-b", bots=1)
    view = (await opener.get(f"/tables/{table_id}")).json()["opponents"]
    assert view["bots"] == "available" and view["bots_can_fill_to"] == 4, view

    # A player of the city who looks for a game sits in by himself: he takes no desk's bot.
    other = await register(client, city)
    ticket = await other.post("/tickets", {"stake_level": SLOW, "buy_in": 60})
    assert ticket.status_code == 201 and ticket.json()["table_id"] == table_id, ticket.text
    view = (await opener.get(f"/tables/{table_id}")).json()["opponents"]
    assert view["players"] == 2 and view["bots_can_fill_to"] == 5, view
    beyond = await opener.post(f"/tables/{table_id}/bots", {"players": 6}, idempotency=None)
    assert beyond.status_code == 409 and beyond.json()["code"] == "not_enough_bots", beyond.text
    asked = await opener.post(f"/tables/{table_id}/bots", {"players": 5}, idempotency=None)
    assert asked.status_code == 200, asked.text
    assert asked.json()["opponents"]["bots_fill_to"] == 5


async def test_asked_without_a_number_bots_fill_the_table_to_what_can_come(
    client: httpx.AsyncClient,
    engine: Engine,
    db: Database,
    city: str,
    settings: LobbySettings,
) -> None:
    opener, game = await _open(client, city)
    table_id = str(game["table_id"])
    await _poll_desk(client, settings, city, bots=0)
    none = await opener.post(f"/tables/{table_id}/bots", None, idempotency=None)
    assert none.status_code == 409 and none.json()["code"] == "bots_unavailable", none.text

    # One bot to send: 3 players (the default) cannot be, 2 can.
    await _poll_desk(client, settings, city, bots=1)
    asked = await opener.post(f"/tables/{table_id}/bots", None, idempotency=None)
    assert asked.status_code == 200, asked.text
    assert asked.json()["opponents"]["bots_fill_to"] == 2, asked.text
    assert "Bots are on their way (to fill the table to 2 players)." in asked.text

    # A desk that stops sending (0): the player alone is not told bots are coming.
    await _poll_desk(client, settings, city, bots=0)
    alone = (await opener.get(f"/tables/{table_id}")).json()["opponents"]
    assert alone["state"] == "waiting" and alone["bots_fill_to"] == 1, alone
    assert "on their way" not in alone["message"], alone
    assert alone["message"].endswith(
        f"No bots can come to {city.upper()} at this level now (you asked for 2 players): "
        f"keep waiting, or leave (POST /tables/{table_id}/leave)."
    ), alone


@pytest.mark.parametrize("module", [bots_module, opponents])
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
