"""The tournament REST API through the real app on SQLite and PostgreSQL: the lobby's list,
a tournament's page, registering and unregistering with their money, the refusals, and the
ops routes."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from litestar import Litestar

from engine_server.auth import Scope
from lobby_api.accounts.models import PlayerRow
from lobby_api.db import Database
from lobby_api.idempotency import Answer, fingerprint
from lobby_api.tournaments.services import Registrations
from tests.lobby_api.support import assert_ledger_consistent, counts, register, scalar
from tests.lobby_api.tournaments.support import (
    LEVELS,
    Ops,
    fees,
    money_in_play,
    ops_headers,
    pool,
)


async def test_ops_create_a_tournament_and_players_find_it(
    client: httpx.AsyncClient, city: str
) -> None:
    ops = Ops(client)
    made = await ops.create(name="Lunch Turbo", city=city, max_players=4, table_size=4)
    assert made["status"] == "registering" and made["kind"] == "sit_and_go"
    assert (made["min_players"], made["max_players"], made["entries"]) == (4, 4, 0)
    assert made["levels"][0] == {
        "ante": 1,
        "bring_in": 2,
        "small_bet": 5,
        "big_bet": 10,
        "minutes": None,
        "hands": 5,
    }
    assert made["levels"][1]["minutes"] == 1 and made["levels"][1]["hands"] is None
    assert made["profile"] == "house" and made["city"] == city
    assert made["current_level"] == 0 and made["standings"] == [] and made["tables"] == []

    listed = await client.get("/tournaments", params={"city": city})
    assert listed.status_code == 200
    [item] = listed.json()
    assert item["id"] == made["id"] and item["name"] == "Lunch Turbo"
    assert set(item) >= {
        "id",
        "name",
        "kind",
        "status",
        "profile",
        "buy_in",
        "fee",
        "starting_chips",
        "min_players",
        "max_players",
        "entries",
        "city",
        "starts_at",
        "prize_pool",
    }
    assert (
        await client.get("/tournaments", params={"city": city, "kind": "scheduled"})
    ).json() == []
    assert (
        await client.get("/tournaments", params={"city": city, "status": "running"})
    ).json() == []
    bad = await client.get("/tournaments", params={"status": "paused"})
    assert bad.status_code == 400 and bad.json()["field"] == "status"


async def test_registering_moves_buy_in_to_the_pool_and_fee_to_the_house(
    client: httpx.AsyncClient, city: str, db: Database
) -> None:
    made = await Ops(client).create(city=city, max_players=3)
    ann = await register(client, city)
    before = await ann.balance()
    fees_before = await fees(db)
    total = await money_in_play(db, [ann.id], [made["id"]])

    key = uuid.uuid4().hex
    first = await ann.post(f"/tournaments/{made['id']}/entries", idempotency=key)
    assert first.status_code == 201, first.text
    entry = first.json()
    assert entry["status"] == "registered" and entry["tournament_id"] == made["id"]
    assert await ann.balance() == before - 110
    assert await pool(db, made["id"]) == 100
    assert await fees(db) == fees_before + 10
    # The same key again: the first answer, nothing moves.
    again = await ann.post(f"/tournaments/{made['id']}/entries", idempotency=key)
    assert again.status_code == 201 and again.json() == entry
    assert again.headers["Idempotent-Replayed"] == "true"
    assert await ann.balance() == before - 110
    # A new key: already registered.
    twice = await ann.post(f"/tournaments/{made['id']}/entries")
    assert twice.status_code == 409 and twice.json()["code"] == "already_registered"

    mine = await ann.get(f"/tournaments/{made['id']}/entries/me")
    assert mine.status_code == 200 and mine.json()["status"] == "registered"
    assert mine.json()["token"] is None and mine.json()["table_id"] is None
    page = (await client.get(f"/tournaments/{made['id']}")).json()
    assert page["entries"] == 1 and page["prize_pool"] == 100
    assert page["payouts"] == [{"place": 1, "amount": 100}]
    assert page["standings"][0]["username"] == ann.username

    # Unregistering: both back, once.
    out = await client.delete(f"/tournaments/{made['id']}/entries/me", headers=ann.auth)
    assert out.status_code == 200 and out.json()["status"] == "unregistered"
    assert await ann.balance() == before
    assert await pool(db, made["id"]) == 0 and await fees(db) == fees_before
    again_out = await client.delete(f"/tournaments/{made['id']}/entries/me", headers=ann.auth)
    assert again_out.status_code == 404 and again_out.json()["code"] == "not_registered"
    assert await ann.balance() == before
    assert await money_in_play(db, [ann.id], [made["id"]]) == total
    # He may register again (a new entry, a new ledger transaction).
    back = await ann.post(f"/tournaments/{made['id']}/entries")
    assert back.status_code == 201 and back.json()["entry_id"] != entry["entry_id"]
    assert await ann.balance() == before - 110
    assert await money_in_play(db, [ann.id], [made["id"]]) == total
    await assert_ledger_consistent(db)


async def test_refusals_are_problems_and_change_nothing(
    client: httpx.AsyncClient, city: str, db: Database
) -> None:
    ops = Ops(client)
    elsewhere = await ops.create(city="oslo" if city != "oslo" else "berlin", max_players=2)
    dear = await ops.create(city=city, buy_in=1_000_000, max_players=2)
    ann = await register(client, city)
    before = await counts(db)
    balance = await ann.balance()

    cases = [
        (f"/tournaments/{elsewhere['id']}/entries", 403, "not_your_city"),
        (f"/tournaments/{dear['id']}/entries", 409, "insufficient_funds"),
        ("/tournaments/tn-nope/entries", 404, "unknown_tournament"),
    ]
    for path, status, code in cases:
        response = await ann.post(path)
        assert response.status_code == status, response.text
        body = response.json()
        assert body["code"] == code and response.headers["content-type"].startswith(
            "application/problem+json"
        )
    assert await counts(db) == before
    assert await ann.balance() == balance

    missing_key = await ann.post(f"/tournaments/{dear['id']}/entries", idempotency=None)
    assert missing_key.status_code == 400 and missing_key.json()["field"] == "Idempotency-Key"
    anonymous = await client.post(
        f"/tournaments/{dear['id']}/entries", headers={"Idempotency-Key": "k1"}
    )
    assert anonymous.status_code == 401
    assert (await client.get("/tournaments/tn-nope")).json()["code"] == "unknown_tournament"


async def test_a_full_sit_and_go_starts_and_refuses_more(
    client: httpx.AsyncClient, city: str, db: Database
) -> None:
    made = await Ops(client).create(city=city, max_players=2)
    ann, bob, cy = [await register(client, city) for _ in range(3)]
    assert (await ann.post(f"/tournaments/{made['id']}/entries")).status_code == 201
    assert (await bob.post(f"/tournaments/{made['id']}/entries")).status_code == 201
    page = (await client.get(f"/tournaments/{made['id']}")).json()
    assert page["status"] == "running" and page["started_at"] is not None
    late = await cy.post(f"/tournaments/{made['id']}/entries")
    assert late.status_code == 409 and late.json()["code"] == "tournament_started"
    leave = await client.delete(f"/tournaments/{made['id']}/entries/me", headers=ann.auth)
    assert leave.status_code == 409 and leave.json()["code"] == "tournament_started"
    assert await pool(db, made["id"]) == 200
    assert page["payouts"] == [{"place": 1, "amount": 130}, {"place": 2, "amount": 70}]


async def test_ops_cancel_before_the_start_refunds_everyone(
    client: httpx.AsyncClient, city: str, db: Database
) -> None:
    made = await Ops(client).create(city=city, max_players=5)
    players = [await register(client, city) for _ in range(3)]
    total = await money_in_play(db, [p.id for p in players], [made["id"]])
    balances = [await p.balance() for p in players]
    for p in players:
        assert (await p.post(f"/tournaments/{made['id']}/entries")).status_code == 201
    assert await money_in_play(db, [p.id for p in players], [made["id"]]) == total

    cancelled = await Ops(client).cancel(made["id"], "no dealer tonight")
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    assert cancelled.json()["cancel_reason"] == "no dealer tonight"
    assert [await p.balance() for p in players] == balances
    assert await pool(db, made["id"]) == 0
    assert await money_in_play(db, [p.id for p in players], [made["id"]]) == total
    again = await Ops(client).cancel(made["id"])
    assert again.status_code == 409 and again.json()["code"] == "tournament_over"
    assert [await p.balance() for p in players] == balances
    mine = await players[0].get(f"/tournaments/{made['id']}/entries/me")
    assert mine.json()["status"] == "unregistered"
    refused = await players[0].post(f"/tournaments/{made['id']}/entries")
    assert refused.status_code == 409 and refused.json()["code"] == "tournament_over"
    await assert_ledger_consistent(db)


async def test_admin_routes_take_an_ops_token_only(client: httpx.AsyncClient, city: str) -> None:
    ann = await register(client, city)
    body = {"name": "Mine", "levels": LEVELS, "starting_chips": 500}
    as_player = await client.post("/admin/tournaments", json=body, headers=ann.auth)
    assert as_player.status_code == 403 and as_player.json()["code"] == "not_ops"
    as_desk = await client.post("/admin/tournaments", json=body, headers=ops_headers(Scope.LOBBY))
    assert as_desk.status_code == 403
    nobody = await client.post("/admin/tournaments", json=body)
    assert nobody.status_code == 401
    cancel = await client.post("/admin/tournaments/tn-x/cancel", headers=ann.auth)
    assert cancel.status_code == 403
    unknown = await client.post("/admin/tournaments/tn-x/cancel", headers=ops_headers())
    assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_tournament"


async def test_a_bad_structure_names_the_field(client: httpx.AsyncClient, city: str) -> None:
    future = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    cases = [
        (
            {
                "name": "x",
                "levels": [{"ante": 0, "bring_in": 2, "small_bet": 1, "big_bet": 4, "hands": 1}],
            },
            "levels[0]",
        ),
        (
            {"name": "x", "levels": [{"ante": 0, "bring_in": 1, "small_bet": 2, "big_bet": 4}]},
            "levels[0]",
        ),
        ({"name": "x", "kind": "scheduled"}, "starts_at"),
        ({"name": "x", "starts_at": future}, "starts_at"),
        ({"name": "x", "min_players": 3, "max_players": 2}, "min_players"),
        ({"name": "x", "table_size": 12}, "table_size"),
        ({"name": "x", "profile": "nope"}, "profile"),
        ({"name": "x", "rule_overrides": {"colour": 1}}, "rule_overrides.colour"),
        ({"name": "x", "city": "atlantis"}, "city"),
        ({"name": "x", "starting_chips": 1}, "starting_chips"),
        ({"name": "x", "payouts": [{"max_entrants": 9, "percentages": [60, 30]}]}, "payouts"),
        ({"template": "no-such-template"}, "template"),
        ({"kind": "sit_and_go"}, "name"),
        ({"name": "x", "kind": "scheduled", "starts_at": "2001-01-01T00:00:00Z"}, "starts_at"),
    ]
    for body, field in cases:
        response = await client.post("/admin/tournaments", json=body, headers=ops_headers())
        assert response.status_code in (400, 422), (body, response.text)
        assert response.json()["field"] == field, (body, response.json())
    listed = await client.get("/tournaments", params={"city": "atlantis"})
    assert listed.json() == []


async def test_a_template_with_overrides_and_a_scheduled_tournament(
    client: httpx.AsyncClient, city: str
) -> None:
    made = await Ops(client).create(city=city, name="Turbo for my city", max_players=7)
    assert made["template"] is None
    from_template = await client.post(
        "/admin/tournaments",
        json={"template": "turbo-7", "city": city, "buy_in": 40},
        headers=ops_headers(),
    )
    assert from_template.status_code == 201, from_template.text
    body = from_template.json()
    assert (body["name"], body["template"], body["buy_in"], body["fee"]) == (
        "Turbo 7",
        "turbo-7",
        40,
        10,
    )
    assert body["levels"][0]["minutes"] == 3
    starts = datetime.now(UTC) + timedelta(hours=2)
    scheduled = await client.post(
        "/admin/tournaments",
        json={
            "template": "evening-mtt",
            "city": city,
            "starts_at": starts.isoformat(),
        },
        headers=ops_headers(),
    )
    assert scheduled.status_code == 201, scheduled.text
    mtt = scheduled.json()
    assert mtt["kind"] == "scheduled" and mtt["late_registration_levels"] == 2
    assert datetime.fromisoformat(mtt["starts_at"]) == starts.replace(
        microsecond=starts.microsecond
    )
    assert (mtt["min_players"], mtt["max_players"], mtt["table_size"]) == (8, 200, 7)
    # Every default of a bare structure.
    bare = await client.post(
        "/admin/tournaments", json={"name": "Bare", "city": city}, headers=ops_headers()
    )
    assert bare.status_code == 201
    b = bare.json()
    assert (b["kind"], b["profile"], b["buy_in"], b["fee"], b["starting_chips"]) == (
        "sit_and_go",
        "house",
        100,
        10,
        1500,
    )
    assert (b["min_players"], b["max_players"], b["table_size"], len(b["levels"])) == (7, 7, 7, 8)


async def test_a_registration_cut_off_after_its_money_moved_is_finished_by_the_sweep(
    client: httpx.AsyncClient, app: Litestar, city: str, db: Database
) -> None:
    made = await Ops(client).create(city=city, max_players=3)
    ann = await register(client, city)
    before = await ann.balance()
    registrations = Registrations(app.state.db, app.state.engines, app.state.settings)

    async def dies(entry_id: str) -> Answer:
        raise RuntimeError("the replica died after the money moved")

    registrations.complete_registration = dies  # type: ignore[method-assign]
    async with db.read() as session:
        player = await session.get(PlayerRow, ann.id)
    assert player is not None
    key = uuid.uuid4().hex
    path = f"/tournaments/{made['id']}/entries"
    with pytest.raises(RuntimeError):
        await registrations.register(
            player, made["id"], key, fingerprint("tournament_entry", "POST", path, None)
        )
    assert await ann.balance() == before - 110
    pending = await scalar(db, "SELECT state FROM idempotency_keys WHERE key = :k", k=key)
    assert pending == "pending"

    await app.state.sweep.once()

    assert await scalar(db, "SELECT state FROM idempotency_keys WHERE key = :k", k=key) == "done"
    replay = await ann.post(path, idempotency=key)
    assert replay.status_code == 201 and replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json()["status"] == "registered"
    assert await ann.balance() == before - 110


@pytest.mark.parametrize("city", ["x\x00y", "Oslo", "", "a" * 33])
async def test_a_city_filter_that_is_no_city_id_is_a_problem(
    client: httpx.AsyncClient, city: str
) -> None:
    # A NUL character reached PostgreSQL and failed there (500) before the filter had a pattern.
    answer = await client.get("/tournaments", params={"city": city})
    assert answer.status_code == 400, answer.text
    problem = answer.json()
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert "city" in problem["detail"] or problem.get("field") == "city", problem
