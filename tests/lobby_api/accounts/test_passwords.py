"""Passwords: argon2id at no less than OWASP's minimum by default, and a hash made with other
parameters upgraded at the player's next successful log-in (on SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from argon2 import PasswordHasher, Type, extract_parameters
from litestar import Litestar

from lobby_api.accounts.passwords import default_hasher, needs_upgrade
from lobby_api.app import create_app
from lobby_api.db import Database
from lobby_api.settings import LobbySettings
from tests.lobby_api.conftest import CHEAP_HASHER, running
from tests.lobby_api.support import PASSWORD, register, scalar

#: OWASP Password Storage Cheat Sheet: argon2id, m=19 MiB, t=2, p=1 at the least.
OWASP_MEMORY_KIB, OWASP_TIME, OWASP_LANES = 19 * 1024, 2, 1


def assert_at_least_owasp(password_hash: str) -> None:
    parameters = extract_parameters(password_hash)
    assert parameters.type is Type.ID
    assert parameters.memory_cost >= OWASP_MEMORY_KIB
    assert parameters.time_cost >= OWASP_TIME
    assert parameters.parallelism >= OWASP_LANES


def test_the_default_hasher_is_argon2id_at_no_less_than_owasps_minimum() -> None:
    hasher = default_hasher()
    made = hasher.hash(PASSWORD)
    assert_at_least_owasp(made)
    assert made.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert hasher.verify(made, PASSWORD)
    assert not needs_upgrade(hasher, made)
    # argon2-cffi's own defaults (64 MiB, t=3, p=4) and cheaper ones are other parameters.
    assert needs_upgrade(hasher, PasswordHasher().hash(PASSWORD))
    assert needs_upgrade(hasher, CHEAP_HASHER.hash(PASSWORD))
    assert needs_upgrade(hasher, "not a hash")


@pytest.fixture
async def lobby(settings: LobbySettings) -> AsyncIterator[httpx.AsyncClient]:
    """The lobby as it runs by default: no hasher given (tests otherwise use a cheap one)."""
    app: Litestar = create_app(settings)
    async with running(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://lobby") as http:
            yield http
    await app.state.engine.close()


async def test_the_lobby_hashes_new_passwords_at_no_less_than_owasps_minimum(
    lobby: httpx.AsyncClient, db: Database
) -> None:
    player = await register(lobby)
    stored = await scalar(db, "SELECT password_hash FROM players WHERE id = :i", i=player.id)
    assert_at_least_owasp(stored)


async def test_an_older_hash_is_upgraded_at_the_next_successful_log_in(
    client: httpx.AsyncClient, lobby: httpx.AsyncClient, db: Database
) -> None:
    # Registered where passwords were hashed with other (here cheaper) parameters.
    player = await register(client)
    query = "SELECT password_hash FROM players WHERE id = :i"
    old = await scalar(db, query, i=player.id)
    assert extract_parameters(old).memory_cost == CHEAP_HASHER.memory_cost

    wrong = await lobby.post(
        "/auth/login", json={"username": player.username, "password": PASSWORD + "x"}
    )
    assert wrong.status_code == 401
    assert await scalar(db, query, i=player.id) == old  # a failed log-in upgrades nothing

    right = await lobby.post(
        "/auth/login", json={"username": player.username, "password": PASSWORD}
    )
    assert right.status_code == 200, right.text
    upgraded = await scalar(db, query, i=player.id)
    assert upgraded != old
    assert_at_least_owasp(upgraded)
    assert default_hasher().verify(upgraded, PASSWORD)

    # The upgraded hash logs in as before, and is kept as it is.
    again = await lobby.post(
        "/auth/login", json={"username": player.username, "password": PASSWORD}
    )
    assert again.status_code == 200
    assert await scalar(db, query, i=player.id) == upgraded
