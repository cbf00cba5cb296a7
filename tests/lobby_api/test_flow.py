"""The whole flow over HTTP with a real engine on loopback, on SQLite and PostgreSQL.

register → quick game → two more players of the same city sit in (a player of another
city does not) → they play hands through the engine → they leave → every wallet is
credited exactly once, the table's escrow is back to zero, the rake is the house's, and
the ledger sums to zero.
"""

from __future__ import annotations

import asyncio
import time

import httpx

from lobby_api.db import Database
from tests.engine_server.api.conftest import Engine
from tests.lobby_api.support import Player, assert_ledger_consistent, play, register, rows, scalar

HANDS = 3

# These tests share the session's engine (each keeps to a city of its own).


async def _leave_and_settle(player: Player, table_id: str, db: Database) -> dict[str, object]:
    """Leave; if a hand is running he plays it out (his clock acts), then his wallet settles."""
    left = await player.post(f"/tables/{table_id}/leave", idempotency=None)
    assert left.status_code == 200, left.text
    body: dict[str, object] = left.json()
    deadline = time.monotonic() + 30
    while body["state"] != "closed":
        assert time.monotonic() < deadline, "the seat session never closed"
        await asyncio.sleep(0.1)
        await player.balance()  # touching the wallet settles a closed session
        again = await player.post(f"/tables/{table_id}/leave", idempotency=None)
        assert again.status_code == 200, again.text
        body = again.json()
    return body


async def test_register_quick_game_sit_in_play_leave_settle(
    client: httpx.AsyncClient, engine: Engine, db: Database, city: str
) -> None:
    opener = await register(client, city)
    opened = await opener.post(
        "/quickgame", {"stake_level": "t-fast", "buy_in": 200, "client_seed": "opener_seed"}
    )
    assert opened.status_code == 201, opened.text
    game = opened.json()
    table_id = game["table_id"]

    stranger = await register(client, "stockholm" if city != "stockholm" else "berlin")
    waiting = await stranger.post("/tickets", {"stake_level": "t-fast", "buy_in": 100})
    assert waiting.status_code == 201 and waiting.json()["status"] == "waiting"

    guests = [await register(client, city) for _ in range(2)]
    for guest in guests:
        ticket = await guest.post("/tickets", {"stake_level": "t-fast", "buy_in": 150})
        assert ticket.status_code == 201, ticket.text
        placed = ticket.json()
        assert placed["status"] == "seated" and placed["table_id"] == table_id
        assert placed["engine_grpc"] == engine.grpc_address

    players = [opener, *guests]
    buy_ins = {opener.id: 200, guests[0].id: 150, guests[1].id: 150}
    for player in players:
        assert await player.balance() == 10_000 - buy_ins[player.id]
    escrow = f"escrow:tables/{table_id}"
    assert await scalar(db, "SELECT balance FROM ledger_accounts WHERE id = :a", a=escrow) == 500

    # They play through the engine, each with the token the lobby gave.
    await asyncio.wait_for(
        asyncio.gather(
            *(
                play(engine.grpc_address, game["table"], p.token, until_hand=HANDS, seed=n)
                for n, p in enumerate(players)
            )
        ),
        90,
    )
    finished = await rows(
        db,
        "SELECT id, rake FROM hands WHERE table_id = :t AND state = 'complete'",
        t=table_id,
    )
    assert len(finished) >= HANDS

    # The stranger of another city was never placed at this table.
    poll = await stranger.get(f"/tickets/{waiting.json()['id']}")
    assert poll.json()["status"] == "waiting" and poll.json()["table_id"] is None

    # They leave (a hand may be running: then they play it out first).
    left = {p.id: await _leave_and_settle(p, table_id, db) for p in players}

    # Every wallet credited exactly once, with the session's final stack.
    sessions = await rows(
        db,
        "SELECT id, player_id, stack, state FROM seat_sessions WHERE table_id = :t",
        t=table_id,
    )
    assert len(sessions) == 3 and {s.state for s in sessions} == {"closed"}
    for session in sessions:
        credits = await rows(
            db,
            "SELECT e.amount FROM ledger_entries e JOIN ledger_transactions t "
            "ON t.id = e.transaction_id WHERE t.idempotency_key = :k AND e.account_id = :w",
            k=f"settle:{session.id}",
            w=f"wallet:{session.player_id}",
        )
        assert [c.amount for c in credits] == ([session.stack] if session.stack else [])
        assert left[session.player_id]["credited"] == session.stack
    for player in players:
        stack = next(s.stack for s in sessions if s.player_id == player.id)
        assert await player.balance() == 10_000 - buy_ins[player.id] + stack
        # Touching the wallet again credits nothing more.
        assert await player.balance() == 10_000 - buy_ins[player.id] + stack

    # The rake went to the house; the escrow is back to zero; the table is closed.
    rake = sum(
        h.rake or 0
        for h in await rows(db, "SELECT rake FROM hands WHERE table_id = :t", t=table_id)
    )
    assert rake > 0
    moved = await scalar(
        db,
        "SELECT coalesce(sum(e.amount), 0) FROM ledger_entries e WHERE e.account_id = 'house:rake' "
        "AND e.reference IN (SELECT 'hands/' || id FROM hands WHERE table_id = :t)",
        t=table_id,
    )
    assert moved == rake
    assert sum(s.stack for s in sessions) + rake == 500
    assert await scalar(db, "SELECT balance FROM ledger_accounts WHERE id = :a", a=escrow) == 0
    table = (
        await rows(
            db, "SELECT status, finished_at FROM quick_tables WHERE table_id = :t", t=table_id
        )
    )[0]
    assert table.status == "closed" and table.finished_at is not None
    assert await scalar(db, "SELECT status FROM tables WHERE id = :t", t=table_id) == "closed"
    await assert_ledger_consistent(db)
