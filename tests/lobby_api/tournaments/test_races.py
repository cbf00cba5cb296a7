"""Races through the real app on a real database (SQLite and PostgreSQL): concurrent
registrations for the last seats, the same Idempotency-Key sent at once, and unregistering
while the registration that fills the tournament comes in."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import httpx
import sqlalchemy as sa
from litestar import Litestar

from lobby_api.db import Database
from lobby_api.tournaments.director import Director
from tests.lobby_api.support import Player, assert_ledger_consistent, register, scalar
from tests.lobby_api.tournaments.support import Ops, entries, fees, money_in_play, pool


async def _players(client: httpx.AsyncClient, city: str, n: int) -> list[Player]:
    return [await register(client, city) for _ in range(n)]


async def test_concurrent_registrations_for_the_last_seats_exactly_max_succeed(
    client: httpx.AsyncClient, city: str, db: Database
) -> None:
    starts = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    made = await Ops(client).create(
        city=city, kind="scheduled", starts_at=starts, min_players=2, max_players=5
    )
    players = await _players(client, city, 9)
    total = await money_in_play(db, [p.id for p in players], [made["id"]])

    answers = await asyncio.gather(*(p.post(f"/tournaments/{made['id']}/entries") for p in players))

    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201] * 5 + [409] * 4, [a.text for a in answers]
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"tournament_full"}
    assert len(await entries(db, made["id"])) == 5
    assert await pool(db, made["id"]) == 500
    assert await money_in_play(db, [p.id for p in players], [made["id"]]) == total
    await assert_ledger_consistent(db)


async def test_a_sit_and_go_filled_by_a_crowd_starts_once(
    client: httpx.AsyncClient, city: str, db: Database
) -> None:
    made = await Ops(client).create(city=city, max_players=4)
    players = await _players(client, city, 8)

    answers = await asyncio.gather(*(p.post(f"/tournaments/{made['id']}/entries") for p in players))

    won = [a for a in answers if a.status_code == 201]
    assert len(won) == 4, [a.text for a in answers]
    assert {a.json()["code"] for a in answers if a.status_code != 201} == {"tournament_started"}
    page = (await client.get(f"/tournaments/{made['id']}")).json()
    assert page["status"] == "running" and page["entries"] == 4 and page["prize_pool"] == 400
    assert await pool(db, made["id"]) == 400


async def test_the_same_idempotency_key_sent_at_once_moves_money_once(
    client: httpx.AsyncClient, city: str, db: Database
) -> None:
    made = await Ops(client).create(city=city, max_players=3)
    ann = (await _players(client, city, 1))[0]
    before = await ann.balance()
    key = uuid.uuid4().hex

    answers = await asyncio.gather(
        *(ann.post(f"/tournaments/{made['id']}/entries", idempotency=key) for _ in range(6))
    )

    assert [a.status_code for a in answers] == [201] * 6, [a.text for a in answers]
    assert len({a.json()["entry_id"] for a in answers}) == 1
    assert await ann.balance() == before - 110
    assert len(await entries(db, made["id"])) == 1
    moved = await scalar(
        db,
        "SELECT count(*) FROM ledger_transactions WHERE idempotency_key LIKE 'tentry:%' "
        "AND idempotency_key = :k",
        k=f"tentry:{answers[0].json()['entry_id']}",
    )
    assert moved == 1


async def test_unregistering_races_the_registration_that_starts_it(
    client: httpx.AsyncClient, city: str, db: Database
) -> None:
    outcomes = set()
    for _ in range(4):
        made = await Ops(client).create(city=city, max_players=3)
        ann, bob, cy = await _players(client, city, 3)
        ids = [ann.id, bob.id, cy.id]
        total = await money_in_play(db, ids, [made["id"]])
        for p in (ann, bob):
            assert (await p.post(f"/tournaments/{made['id']}/entries")).status_code == 201
        ann_paid = await ann.balance()
        fees_before = await fees(db)

        leaving, joining = await asyncio.gather(
            client.delete(f"/tournaments/{made['id']}/entries/me", headers=ann.auth),
            cy.post(f"/tournaments/{made['id']}/entries"),
        )

        assert joining.status_code == 201, joining.text
        page = (await client.get(f"/tournaments/{made['id']}")).json()
        if leaving.status_code == 200:
            # Ann left first: two entries, still registering, her money back.
            outcomes.add("left")
            assert page["status"] == "registering" and page["entries"] == 2
            assert await ann.balance() == ann_paid + 110
            assert await fees(db) == fees_before
        else:
            # Cy filled it first: it started and Ann stays in, her money in the pool.
            outcomes.add("started")
            assert leaving.status_code == 409, leaving.text
            assert leaving.json()["code"] == "tournament_started"
            assert page["status"] == "running" and page["entries"] == 3
            assert await ann.balance() == ann_paid
            assert await fees(db) == fees_before + 10
        assert await pool(db, made["id"]) == 100 * page["entries"]
        assert await money_in_play(db, ids, [made["id"]]) == total
    assert outcomes  # each round was one of the two outcomes, never a mix
    await assert_ledger_consistent(db)


async def test_unregistering_races_the_director_starting_a_scheduled_tournament(
    client: httpx.AsyncClient, app: Litestar, city: str, db: Database
) -> None:
    outcomes = set()
    for round_ in range(4):
        starts = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
        made = await Ops(client).create(
            city=city, kind="scheduled", starts_at=starts, min_players=2, max_players=9
        )
        players = await _players(client, city, 3)
        ids = [p.id for p in players]
        total = await money_in_play(db, ids, [made["id"]])
        for p in players:
            assert (await p.post(f"/tournaments/{made['id']}/entries")).status_code == 201
        await db.execute_write(
            sa.text("UPDATE tournaments SET starts_at = :t WHERE id = :i").bindparams(
                t=datetime.now(UTC) - timedelta(seconds=1), i=made["id"]
            )
        )
        director = Director(app.state.db, app.state.engines, holder=f"race-{round_}")
        ann = players[0]
        paid = await ann.balance()

        leaving, _ = await asyncio.gather(
            client.delete(f"/tournaments/{made['id']}/entries/me", headers=ann.auth),
            director.start_due(),
        )

        page = (await client.get(f"/tournaments/{made['id']}")).json()
        assert page["status"] == "running"
        if leaving.status_code == 200:
            outcomes.add("left")
            assert page["entries"] == 2 and await ann.balance() == paid + 110
        else:
            outcomes.add("started")
            assert leaving.json()["code"] == "tournament_started"
            assert page["entries"] == 3 and await ann.balance() == paid
        assert await pool(db, made["id"]) == 100 * page["entries"]
        assert await money_in_play(db, ids, [made["id"]]) == total
    assert outcomes
    await assert_ledger_consistent(db)
