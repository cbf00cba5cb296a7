"""Registration, log-in and the profile, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import httpx

from engine_server.auth import Scope, mint_token, verify_token
from lobby_api.db import Database
from tests.engine_server.api.conftest import SECRET
from tests.lobby_api.support import PASSWORD, assert_ledger_consistent, counts, register, rows


async def test_register_creates_a_player_with_the_signup_grant(
    client: httpx.AsyncClient, db: Database
) -> None:
    created = await client.post(
        "/accounts", json={"username": "Ann_01", "password": PASSWORD, "city": "oslo"}
    )
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["username"] == "Ann_01" and body["city"] == "oslo"
    assert body["id"].startswith("p-")
    stored = await rows(db, "SELECT password_hash FROM players WHERE id = :i", i=body["id"])
    assert stored[0][0].startswith("$argon2id$") and PASSWORD not in stored[0][0]
    login = await client.post("/auth/login", json={"username": "ann_01", "password": PASSWORD})
    assert login.status_code == 200
    token = login.json()
    assert token["token_type"] == "bearer" and token["expires_in"] == 15 * 60
    wallet = await client.get(
        "/wallet", headers={"Authorization": f"Bearer {token['access_token']}"}
    )
    assert wallet.json()["balance"] == 10_000
    assert [e["kind"] for e in wallet.json()["entries"]] == ["signup_grant"]
    await assert_ledger_consistent(db)
    grant = await rows(
        db,
        "SELECT e.account_id, e.amount FROM ledger_entries e JOIN ledger_transactions t "
        "ON t.id = e.transaction_id WHERE t.idempotency_key = :k ORDER BY e.amount",
        k=f"grant:{body['id']}",
    )
    assert [tuple(g) for g in grant] == [
        ("house:play-money", -10_000),
        (f"wallet:{body['id']}", 10_000),
    ]


async def test_the_token_is_one_the_engine_accepts(client: httpx.AsyncClient) -> None:
    player = await register(client)
    identity = verify_token(player.token, SECRET)
    assert identity.subject == player.id
    assert identity.has(Scope.PLAYER) and not identity.has(Scope.LOBBY)
    me = await player.get("/me")
    assert me.status_code == 200
    assert me.json()["id"] == player.id and me.json()["username"] == player.username


async def test_a_taken_username_is_refused_whatever_its_case_and_nothing_is_written(
    client: httpx.AsyncClient, db: Database
) -> None:
    await register(client, name="Bob_7")
    before = await counts(db)
    again = await client.post(
        "/accounts", json={"username": "bOB_7", "password": PASSWORD, "city": "berlin"}
    )
    assert again.status_code == 409
    assert again.headers["content-type"].startswith("application/problem+json")
    problem = again.json()
    assert problem["code"] == "username_taken" and problem["field"] == "username"
    assert problem["errors"] == [{"field": "username", "message": problem["detail"]}]
    assert await counts(db) == before


async def test_concurrent_registrations_of_one_name_make_one_account(
    client: httpx.AsyncClient, db: Database
) -> None:
    names = ["Race_1", "race_1", "RACE_1", "rAce_1", "racE_1", "Race_1"]
    answers = await asyncio.gather(
        *(
            client.post("/accounts", json={"username": n, "password": PASSWORD, "city": "oslo"})
            for n in names
        )
    )
    assert sorted(a.status_code for a in answers) == [201] + [409] * 5
    assert await rows(db, "SELECT count(*) FROM players WHERE username_key = 'race_1'") == [(1,)]
    await assert_ledger_consistent(db)


BAD_REGISTRATIONS = [
    ({"username": "ab", "password": PASSWORD, "city": "oslo"}, 400, "username"),
    ({"username": "has space", "password": PASSWORD, "city": "oslo"}, 400, "username"),
    ({"username": "x" * 33, "password": PASSWORD, "city": "oslo"}, 400, "username"),
    ({"username": "fine_name", "password": "short", "city": "oslo"}, 400, "password"),
    ({"username": "fine_name", "password": PASSWORD, "city": "paris"}, 422, "city"),
    ({"username": "fine_name", "password": PASSWORD}, 400, "city"),
    ({"username": 12345, "password": PASSWORD, "city": "oslo"}, 400, "username"),
    ([1, 2, 3], 400, "body"),
]


async def test_bad_registrations_name_the_field_and_write_nothing(
    client: httpx.AsyncClient, db: Database
) -> None:
    before = await counts(db)
    for body, status, field in BAD_REGISTRATIONS:
        answer = await client.post("/accounts", json=body)
        assert answer.status_code == status, (body, answer.text)
        assert answer.headers["content-type"].startswith("application/problem+json")
        problem = answer.json()
        assert problem["status"] == status and problem["field"] == field, (body, problem)
        assert {"type", "title", "detail"} <= problem.keys()
        assert problem["errors"][0]["field"] == field
    assert await counts(db) == before


async def test_malformed_json_is_a_problem_naming_the_body(
    client: httpx.AsyncClient, db: Database
) -> None:
    before = await counts(db)
    answer = await client.post(
        "/accounts", content=b'{"username": "x",', headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 400
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["field"] == "body" and answer.json()["code"] == "malformed_body"
    assert await counts(db) == before


async def test_a_wrong_password_or_unknown_name_is_refused_alike(
    client: httpx.AsyncClient, db: Database
) -> None:
    player = await register(client)
    before = await counts(db)
    wrong = await client.post(
        "/auth/login", json={"username": player.username, "password": "not-the-password"}
    )
    unknown = await client.post(
        "/auth/login", json={"username": "nobody_here", "password": PASSWORD}
    )
    for answer in (wrong, unknown):
        assert answer.status_code == 401
        assert answer.json()["code"] == "wrong_credentials"
        assert answer.json()["field"] == "password"
    assert wrong.json()["detail"] == unknown.json()["detail"]
    assert await counts(db) == before


async def test_me_needs_a_valid_player_token(client: httpx.AsyncClient) -> None:
    refused = [
        None,
        "Basic dXNlcjpwdw==",
        "Bearer not-a-jwt",
        "Bearer " + mint_token(SECRET, "p-1", [Scope.LOBBY]),
        "Bearer " + mint_token("another-secret-" + "y" * 40, "p-1", [Scope.PLAYER]),
        "Bearer " + mint_token(SECRET, "p-1", [Scope.PLAYER], ttl_seconds=-10),
        "Bearer " + mint_token(SECRET, "p-nobody", [Scope.PLAYER]),
    ]
    for authorization in refused:
        headers = {"Authorization": authorization} if authorization else {}
        answer = await client.get("/me", headers=headers)
        assert answer.status_code == 401, authorization
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert answer.json()["field"] == "Authorization"
