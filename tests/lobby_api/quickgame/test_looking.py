"""The players of a city looking for a game at a stake level, as a replica counts them
(lobby_api.quickgame.looking): each player once, the asker left out; one count for every
asker at once; a count stands for its freshness, and what happens on this replica shows at
once. Every test runs against a real engine on loopback, in a city of its own."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from litestar import Litestar

from lobby_api.db import Database
from lobby_api.quickgame.looking import PlayersLooking
from tests.engine_server.api.conftest import Engine
from tests.lobby_api.support import Player, register

SLOW = "t-austria"  # a 30 s clock: nothing moves by itself
OTHER_LEVEL = "t-fast"  # no table of it opens in these tests


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _open(player: Player, level: str = SLOW) -> dict[str, Any]:
    opened = await player.post(
        "/quickgame", {"stake_level": level, "buy_in": 100, "client_seed": "seed_1"}
    )
    assert opened.status_code == 201, opened.text
    return dict(opened.json())


async def test_each_player_looking_counts_once_and_the_asker_not_at_all(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    looking = PlayersLooking(db, fresh_seconds=0)
    alone, twice, holder = [await register(client, city) for _ in range(3)]
    # No table of the other level in the city: his ticket waits.
    waits = await alone.post("/tickets", {"stake_level": OTHER_LEVEL, "buy_in": 100})
    assert waits.status_code == 201 and waits.json()["status"] == "waiting", waits.text
    await _open(alone)
    await _open(twice)
    await _open(twice)  # alone at two tables: one player
    held = await holder.post("/tickets", {"stake_level": OTHER_LEVEL, "buy_in": 100})
    assert held.status_code == 201 and held.json()["status"] == "waiting", held.text

    assert await looking.count(city, SLOW, besides="nobody") == 2
    assert await looking.count(city, SLOW, besides=twice.id) == 1
    assert await looking.count(city, OTHER_LEVEL, besides="nobody") == 2
    assert await looking.count(city, OTHER_LEVEL, besides=holder.id) == 1
    assert await looking.count("another-city", SLOW, besides="nobody") == 0


async def test_a_count_stands_until_it_is_stale_or_something_changed_here(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    clock = Clock()
    looking = PlayersLooking(db, fresh_seconds=1.0, clock=clock)
    first, second = await register(client, city), await register(client, city)
    await _open(first)
    assert await looking.count(city, SLOW, besides="nobody") == 1
    assert looking.counts == 1

    await _open(second)  # through the app's own view, not this one
    clock.now += 0.9
    assert await looking.count(city, SLOW, besides="nobody") == 1  # still fresh
    clock.now += 0.2
    assert await looking.count(city, SLOW, besides="nobody") == 2
    assert looking.counts == 2

    looking.started(city, SLOW, "someone-here")
    assert await looking.count(city, SLOW, besides="nobody") == 3
    assert looking.counts == 2  # added, not counted again
    looking.changed(city, SLOW)
    assert await looking.count(city, SLOW, besides="nobody") == 2
    assert looking.counts == 3


async def test_askers_at_once_share_one_count(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    looking = PlayersLooking(db, fresh_seconds=60)
    await _open(await register(client, city))
    answers = await asyncio.gather(*(looking.count(city, SLOW, besides=f"p{n}") for n in range(5)))
    assert answers == [1] * 5
    assert looking.counts == 1


async def test_what_happens_here_during_a_count_is_not_lost(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player who starts looking while a count runs is in its answer; a change while it
    runs leaves its answer stale (the next asker counts again)."""
    looking = PlayersLooking(db, fresh_seconds=60)
    release = asyncio.Event()
    fetched = 0

    async def slow_fetch(statement: Any, parameters: Any = None) -> list[Any]:
        nonlocal fetched
        fetched += 1
        await release.wait()
        return []

    monkeypatch.setattr(db, "fetch", slow_fetch)
    counting = asyncio.create_task(looking.count("c", "l", besides="nobody"))
    while fetched == 0:
        await asyncio.sleep(0)
    looking.started("c", "l", "newcomer")
    looking.changed("c", "l")
    release.set()
    assert await counting == 1  # the newcomer, whom the database did not know of yet
    assert fetched == 1
    assert await looking.count("c", "l", besides="nobody") == 0  # stale: counted again
    assert fetched == 2


async def test_the_app_tells_its_view_who_opens_and_who_leaves(
    client: httpx.AsyncClient, engine: Engine, app: Litestar, city: str
) -> None:
    """With the app's own view fresh for a minute, what the players do through this replica
    still shows at once."""
    looking: PlayersLooking = app.state.looking
    looking.fresh_seconds = 60
    first, second = await register(client, city), await register(client, city)
    game = await _open(first)
    assert game["opponents"]["waiting"] == 0
    other = await _open(second)
    assert other["opponents"]["waiting"] == 1  # the first, who sits alone
    mine = await first.get(f"/tables/{game['table_id']}")
    assert mine.json()["opponents"]["waiting"] == 1  # the second, added as he opened
    left = await first.post(f"/tables/{game['table_id']}/leave", idempotency=None)
    assert left.status_code == 200, left.text
    view = await second.get(f"/tables/{other['table_id']}")
    assert view.json()["opponents"]["waiting"] == 0
