"""GET /quickgame/waiting: players of my city waiting for a quick game, per stake level."""

from __future__ import annotations

import httpx

from tests.lobby_api.support import register

SLOW = "t-austria"


async def test_counts_waiting_players_of_my_city_per_level(
    client: httpx.AsyncClient, city: str
) -> None:
    me = await register(client, city)
    before = await me.get("/quickgame/waiting")
    assert before.status_code == 200, before.text
    body = before.json()
    assert body["city"] == city
    stakes = (await client.get("/stakes")).json()
    assert [lv["stake_level"] for lv in body["levels"]] == [s["id"] for s in stakes]
    assert all(lv["waiting"] == 0 for lv in body["levels"])
    assert {lv["name"] for lv in body["levels"]} == {s["name"] for s in stakes}

    # No table is open in this city: tickets wait. One player with two tickets counts once.
    waiting = [await register(client, city) for _ in range(2)]
    tickets = []
    for player in waiting:
        ticket = await player.post("/tickets", {"stake_level": SLOW, "buy_in": 60})
        assert ticket.status_code == 201 and ticket.json()["status"] == "waiting", ticket.text
        tickets.append(ticket.json()["id"])
    again = await waiting[0].post("/tickets", {"stake_level": SLOW, "buy_in": 60})
    assert again.status_code == 201, again.text
    elsewhere = await register(client, "berlin" if city != "berlin" else "vienna")
    await elsewhere.post("/tickets", {"stake_level": SLOW, "buy_in": 60})

    after = (await me.get("/quickgame/waiting")).json()
    counts = {lv["stake_level"]: lv["waiting"] for lv in after["levels"]}
    assert counts[SLOW] == 2
    assert sum(counts.values()) == 2
    # Only counts: nobody's name or id.
    assert set(after) == {"city", "levels"}
    assert all(set(lv) == {"stake_level", "name", "waiting"} for lv in after["levels"])

    # Withdrawn tickets no longer wait.
    withdrawn = await waiting[1].client.delete(f"/tickets/{tickets[1]}", headers=waiting[1].auth)
    assert withdrawn.status_code == 200, withdrawn.text
    last = (await me.get("/quickgame/waiting")).json()
    assert {lv["stake_level"]: lv["waiting"] for lv in last["levels"]}[SLOW] == 1


async def test_needs_a_token(client: httpx.AsyncClient) -> None:
    response = await client.get("/quickgame/waiting")
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("application/problem+json")
