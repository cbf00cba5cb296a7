"""A seed rotation makes the hands it dealt recomputable, every down card included: the
rotation's answer and the table's answer (GET /tables/{id}) tell the players at the table
which hands, from which seed, and when — before they play on.

A real engine on loopback deals the hands (a 0.3 s clock plays them out by itself).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import datetime

import httpx

from lobby_api.db import Database
from lobby_api.quickgame.reveals import hand_list
from tests.engine_server.api.conftest import Engine
from tests.lobby_api.support import register, rows, scalar

FAST = "t-fast"


async def _until(check: Callable[[], Awaitable[bool]], what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not await check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def test_hand_numbers_are_said_in_runs() -> None:
    assert hand_list([3]) == "#3"
    assert hand_list([1, 2, 3, 4, 7, 9, 10]) == "#1\u2013#4, #7, #9\u2013#10"
    assert hand_list([5, 4, 4]) == "#4\u2013#5"


async def test_a_rotation_tells_the_players_which_hands_it_made_public(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    opener = await register(client, city)
    opened = await opener.post(
        "/quickgame", {"stake_level": FAST, "buy_in": 100, "client_seed": "seed_1"}
    )
    assert opened.status_code == 201, opened.text
    game = opened.json()
    table_id = game["table_id"]
    view = await opener.get(f"/tables/{table_id}")
    assert view.status_code == 200 and view.json()["seed_reveals"] == [], view.text

    # A second player sits in; the clock plays hands out; he leaves after the first is over.
    guest = await register(client, city)
    ticket = await guest.post("/tickets", {"stake_level": FAST, "buy_in": 100})
    assert ticket.json()["status"] == "seated", ticket.text

    async def a_hand_ended() -> bool:
        return bool(
            await scalar(
                db,
                "SELECT count(*) FROM hands WHERE table_id = :t AND state <> 'running'",
                t=table_id,
            )
        )

    await _until(a_hand_ended, "a finished hand")
    left = await guest.post(f"/tables/{table_id}/leave", idempotency=None)
    assert left.status_code == 200, left.text

    async def alone_between_hands() -> bool:
        running = await scalar(
            db, "SELECT count(*) FROM hands WHERE table_id = :t AND state = 'running'", t=table_id
        )
        open_seats = await scalar(
            db,
            "SELECT count(*) FROM seat_sessions WHERE table_id = :t AND state <> 'closed'",
            t=table_id,
        )
        return not running and open_seats == 1

    await _until(alone_between_hands, "the guest gone and no hand running")
    dealt = await rows(
        db,
        "SELECT h.hand_number, h.commitment, "
        " (SELECT count(*) FROM hand_players p WHERE p.hand_id = h.id AND p.player_id = :o) "
        "FROM hands h WHERE h.table_id = :t ORDER BY h.hand_number",
        t=table_id,
        o=opener.id,
    )
    numbers = [row[0] for row in dealt]
    assert numbers and {row[1] for row in dealt} == {game["commitment"]}
    mine = [row[0] for row in dealt if row[2]]

    before = datetime.now().astimezone()
    rotated = await opener.post(f"/tables/{table_id}/rotate-seed", {}, idempotency=None)
    assert rotated.status_code == 200, rotated.text
    reveal = rotated.json()["reveal"]
    assert reveal["commitment"] == game["commitment"]
    assert reveal["hands"] == numbers and reveal["your_hands"] == mine == numbers
    revealed_at = datetime.fromisoformat(reveal["revealed_at"])
    assert abs((revealed_at - before).total_seconds()) < 10
    shown = hand_list(numbers)
    assert f"so the deck{'s' if len(numbers) > 1 else ''} of " in reveal["message"]
    assert (
        f" {shown} can be recomputed by anyone, every player's down cards included"
        in (reveal["message"])
    )
    assert reveal["message"].endswith(
        f"You were dealt into {shown}: your down cards there can be seen."
    )
    assert game["commitment"][:12] in reveal["message"]

    # The table's answer tells him too (and keeps telling, for a page opened later).
    view = (await opener.get(f"/tables/{table_id}")).json()
    assert view["seed_reveals"] == [reveal]

    # A player who sits in after the rotation learns of it, and that none of it was his.
    late = await register(client, city)
    sat = await late.post("/tickets", {"stake_level": FAST, "buy_in": 100})
    assert sat.json()["status"] == "seated", sat.text
    [told] = (await late.get(f"/tables/{table_id}")).json()["seed_reveals"]
    assert told["hands"] == numbers and told["your_hands"] == []
    assert told["message"].endswith("You were dealt into none of them.")

    # Hands dealt after the rotation come from the new seed and are not listed.
    async def dealt_from_the_new_seed() -> bool:
        return bool(
            await scalar(
                db,
                "SELECT count(*) FROM hands WHERE table_id = :t AND commitment = :c",
                t=table_id,
                c=game["next_commitment"],
            )
        )

    await _until(dealt_from_the_new_seed, "a hand from the new seed pair")
    again = (await opener.get(f"/tables/{table_id}")).json()["seed_reveals"]
    assert [r["hands"] for r in again] == [numbers]
