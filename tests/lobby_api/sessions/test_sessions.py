"""Sessions: log-in's pair of tokens, refresh rotation, reuse detection, log-out and the
password change that ends every session, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from datetime import datetime
from typing import Any

import httpx
import pytest
from litestar import Litestar
from prometheus_client import REGISTRY
from sqlalchemy import text

from engine_server.auth import Scope, mint_token, verify_token
from lobby_api.db import Database
from lobby_api.settings import LobbySettings, SettingsError
from tests.engine_server.api.conftest import SECRET
from tests.lobby_api.support import PASSWORD, rows, scalar

NEW_PASSWORD = "another-long-secret"


async def sign_up(client: httpx.AsyncClient) -> str:
    username = "s_" + uuid.uuid4().hex[:10]
    created = await client.post(
        "/accounts", json={"username": username, "password": PASSWORD, "city": "oslo"}
    )
    assert created.status_code == 201, created.text
    return username


async def log_in(client: httpx.AsyncClient, username: str, password: str = PASSWORD) -> Any:
    answer = await client.post("/auth/login", json={"username": username, "password": password})
    assert answer.status_code == 200, answer.text
    return answer.json()


async def refresh(client: httpx.AsyncClient, token: str) -> httpx.Response:
    return await client.post("/auth/refresh", json={"refresh_token": token})


def bearer(pair: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {pair['access_token']}"}


def problem(answer: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = answer.json()
    assert body["code"] == code, body
    assert body["type"] == f"urn:problem:stud:{code}"
    return body


async def test_log_in_answers_a_short_access_token_and_a_refresh_token_kept_as_a_hash(
    client: httpx.AsyncClient, db: Database
) -> None:
    username = await sign_up(client)
    before = time.time()
    pair = await log_in(client, username)
    assert pair["token_type"] == "bearer"
    assert pair["expires_in"] == 15 * 60 and pair["refresh_expires_in"] == 30 * 24 * 3600
    expires_at = datetime.fromisoformat(pair["expires_at"]).timestamp()
    assert before + 15 * 60 - 1 <= expires_at <= time.time() + 15 * 60
    identity = verify_token(pair["access_token"], SECRET)
    assert identity.subject == pair["player_id"] and identity.has(Scope.PLAYER)
    assert identity.expires == expires_at
    assert pair["session_id"].startswith("s-")
    assert pair["refresh_token"].startswith("rt_") and len(pair["refresh_token"]) > 40

    stored = await rows(
        db,
        "SELECT token_hash, session_id, player_id, revoked, retired_at, expires_at - issued_at "
        "FROM refresh_tokens WHERE player_id = :p",
        p=pair["player_id"],
    )
    digest = hashlib.sha256(pair["refresh_token"].encode()).hexdigest()
    assert [tuple(r) for r in stored] == [
        (digest, pair["session_id"], pair["player_id"], False, None, 30 * 24 * 3600 * 1000)
    ]
    assert (
        await scalar(
            db, "SELECT count(*) FROM refresh_tokens WHERE token_hash = :t", t=pair["refresh_token"]
        )
        == 0
    )
    me = await client.get("/me", headers=bearer(pair))
    assert me.status_code == 200 and me.json()["id"] == pair["player_id"]


async def test_a_refresh_rotates_the_token_and_a_reused_one_revokes_its_session(
    client: httpx.AsyncClient, db: Database
) -> None:
    username = await sign_up(client)
    first = await log_in(client, username)
    other = await log_in(client, username)  # another device: a session of its own

    renewed = await refresh(client, first["refresh_token"])
    assert renewed.status_code == 200, renewed.text
    second = renewed.json()
    assert second["session_id"] == first["session_id"]
    assert second["refresh_token"] != first["refresh_token"]
    assert (await client.get("/me", headers=bearer(second))).status_code == 200
    third = (await refresh(client, second["refresh_token"])).json()

    # The first token again: two parties hold it, so the whole session ends.
    reuses = REGISTRY.get_sample_value("stud_lobby_refresh_token_reuses_total") or 0.0
    reused = problem(await refresh(client, first["refresh_token"]), 401, "refresh_token_reused")
    assert reused["field"] == "refresh_token" and "log in again" in reused["detail"]
    revoked = problem(await refresh(client, third["refresh_token"]), 401, "refresh_token_revoked")
    assert "used twice" in revoked["detail"]
    assert REGISTRY.get_sample_value("stud_lobby_refresh_token_reuses_total") == reuses + 1
    assert (
        await scalar(
            db,
            "SELECT count(*) FROM refresh_tokens WHERE session_id = :s AND NOT revoked",
            s=first["session_id"],
        )
        == 0
    )
    reasons = await rows(
        db,
        "SELECT DISTINCT revoked_reason FROM refresh_tokens WHERE session_id = :s",
        s=first["session_id"],
    )
    assert [r[0] for r in reasons] == ["reuse"]
    # The other session goes on.
    assert (await refresh(client, other["refresh_token"])).status_code == 200


async def test_of_two_concurrent_refreshes_of_one_token_one_wins_and_the_session_ends(
    client: httpx.AsyncClient, db: Database
) -> None:
    pair = await log_in(client, await sign_up(client))
    answers = await asyncio.gather(*(refresh(client, pair["refresh_token"]) for _ in range(2)))
    assert sorted(a.status_code for a in answers) == [200, 401]
    winner = next(a for a in answers if a.status_code == 200).json()
    loser = next(a for a in answers if a.status_code == 401)
    problem(loser, 401, "refresh_token_reused")
    # The winner's new token belongs to the revoked session too.
    problem(await refresh(client, winner["refresh_token"]), 401, "refresh_token_revoked")
    assert (
        await scalar(
            db, "SELECT count(*) FROM refresh_tokens WHERE session_id = :s", s=pair["session_id"]
        )
        == 2
    )


async def test_unknown_expired_and_malformed_refresh_tokens_are_refused_and_change_nothing(
    client: httpx.AsyncClient, app: Litestar, db: Database
) -> None:
    pair = await log_in(client, await sign_up(client))
    problem(await refresh(client, "rt_" + "x" * 43), 401, "refresh_token_invalid")
    empty = await client.post("/auth/refresh", json={"refresh_token": ""})
    assert problem(empty, 400, "invalid_request")["field"] == "refresh_token"
    problem(
        await client.post("/auth/refresh", json={"token": pair["refresh_token"]}),
        400,
        "invalid_request",
    )

    async with db.write() as session:
        await session.exec(  # type: ignore[call-overload]
            text("UPDATE refresh_tokens SET expires_at = :t WHERE session_id = :s"),
            params={"t": int(time.time() * 1000) - 1, "s": pair["session_id"]},
        )
    expired = problem(await refresh(client, pair["refresh_token"]), 401, "refresh_token_expired")
    assert "log in again" in expired["detail"]
    # Not retired by the refusal: still expired, not reused.
    problem(await refresh(client, pair["refresh_token"]), 401, "refresh_token_expired")
    assert (
        await scalar(
            db,
            "SELECT count(*) FROM refresh_tokens WHERE session_id = :s AND NOT revoked",
            s=pair["session_id"],
        )
        == 1
    )
    # A day after its expiry the sweep forgets it (and only it).
    sessions = app.state.sessions
    async with db.write() as session:
        await session.exec(  # type: ignore[call-overload]
            text("UPDATE refresh_tokens SET expires_at = :t WHERE session_id = :s"),
            params={"t": int(time.time() * 1000) - 25 * 3600 * 1000, "s": pair["session_id"]},
        )
    assert await sessions.forget_expired() >= 1
    assert (
        await scalar(
            db, "SELECT count(*) FROM refresh_tokens WHERE session_id = :s", s=pair["session_id"]
        )
        == 0
    )
    problem(await refresh(client, pair["refresh_token"]), 401, "refresh_token_invalid")


async def test_log_out_revokes_the_session_and_only_it(
    client: httpx.AsyncClient, db: Database
) -> None:
    username = await sign_up(client)
    pair = await log_in(client, username)
    other = await log_in(client, username)
    rotated = (await refresh(client, pair["refresh_token"])).json()

    out = await client.post("/auth/logout", json={"refresh_token": rotated["refresh_token"]})
    assert out.status_code == 204 and out.content == b""
    revoked = problem(await refresh(client, rotated["refresh_token"]), 401, "refresh_token_revoked")
    assert "logged out" in revoked["detail"]
    # Every token of the session is revoked, the retired one too: no reuse alarm to raise.
    problem(await refresh(client, pair["refresh_token"]), 401, "refresh_token_revoked")
    # Logging out again changes nothing; an unknown token is refused.
    again = await client.post("/auth/logout", json={"refresh_token": rotated["refresh_token"]})
    assert again.status_code == 204
    problem(
        await client.post("/auth/logout", json={"refresh_token": "rt_unknown"}),
        401,
        "refresh_token_invalid",
    )
    assert (await refresh(client, other["refresh_token"])).status_code == 200
    reasons = await rows(
        db,
        "SELECT DISTINCT revoked_reason FROM refresh_tokens WHERE session_id = :s",
        s=pair["session_id"],
    )
    assert [r[0] for r in reasons] == ["logout"]


async def test_a_password_change_revokes_every_session_and_starts_a_new_one(
    client: httpx.AsyncClient, db: Database
) -> None:
    username = await sign_up(client)
    first = await log_in(client, username)
    second = await log_in(client, username)
    url = "/accounts/me/password"

    wrong = await client.post(
        url,
        json={"current_password": "not-my-password", "new_password": NEW_PASSWORD},
        headers=bearer(first),
    )
    assert problem(wrong, 403, "wrong_password")["field"] == "current_password"
    weak = await client.post(
        url, json={"current_password": PASSWORD, "new_password": "short"}, headers=bearer(first)
    )
    assert problem(weak, 400, "invalid_request")["field"] == "new_password"
    same = await client.post(
        url, json={"current_password": PASSWORD, "new_password": PASSWORD}, headers=bearer(first)
    )
    assert problem(same, 422, "password_unchanged")["field"] == "new_password"
    anonymous = await client.post(
        url, json={"current_password": PASSWORD, "new_password": NEW_PASSWORD}
    )
    assert anonymous.status_code == 401
    # None of the refusals changed anything.
    assert (
        await scalar(
            db,
            "SELECT count(*) FROM refresh_tokens WHERE player_id = :p AND NOT revoked",
            p=first["player_id"],
        )
        == 2
    )

    changed = await client.post(
        url,
        json={"current_password": PASSWORD, "new_password": NEW_PASSWORD},
        headers=bearer(first),
    )
    assert changed.status_code == 200, changed.text
    fresh = changed.json()
    assert fresh["player_id"] == first["player_id"]
    assert fresh["session_id"] not in {first["session_id"], second["session_id"]}
    for old in (first, second):
        body = problem(await refresh(client, old["refresh_token"]), 401, "refresh_token_revoked")
        assert "password" in body["detail"]
    assert (await refresh(client, fresh["refresh_token"])).status_code == 200
    old_password = await client.post(
        "/auth/login", json={"username": username, "password": PASSWORD}
    )
    problem(old_password, 401, "wrong_credentials")
    await log_in(client, username, NEW_PASSWORD)


async def test_an_expired_access_token_is_refused_as_expired(client: httpx.AsyncClient) -> None:
    pair = await log_in(client, await sign_up(client))
    stale = mint_token(
        SECRET, pair["player_id"], [Scope.PLAYER], ttl_seconds=60, now=time.time() - 120
    )
    answer = await client.get("/me", headers={"Authorization": f"Bearer {stale}"})
    body = problem(answer, 401, "token_expired")
    assert answer.headers["www-authenticate"].startswith("Bearer")
    assert "expired" in body["detail"]
    renewed = (await refresh(client, pair["refresh_token"])).json()
    assert (await client.get("/me", headers=bearer(renewed))).status_code == 200


def test_the_token_lifetimes_are_settings() -> None:
    env = {"STUD_JWT_SECRET": "x" * 32}
    settings = LobbySettings.from_env(env)
    assert (settings.token_seconds, settings.refresh_seconds) == (900, 30 * 24 * 3600)
    short = LobbySettings.from_env(
        {**env, "STUD_LOBBY_TOKEN_SECONDS": "5", "STUD_LOBBY_REFRESH_SECONDS": "60"}
    )
    assert (short.token_seconds, short.refresh_seconds) == (5, 60)
    with pytest.raises(SettingsError, match="at least 5"):
        LobbySettings.from_env({**env, "STUD_LOBBY_TOKEN_SECONDS": "4"})
    with pytest.raises(SettingsError, match="STUD_LOBBY_REFRESH_SECONDS"):
        LobbySettings.from_env(
            {**env, "STUD_LOBBY_TOKEN_SECONDS": "600", "STUD_LOBBY_REFRESH_SECONDS": "600"}
        )
