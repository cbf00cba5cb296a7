"""The app's plumbing: health, errors as problem documents, rate limits, settings."""

from __future__ import annotations

import doctest

import httpx
import pytest

from engine_server.auth import Scope, mint_token
from lobby_api import problems
from lobby_api import settings as settings_module
from lobby_api.quickgame.tickets import Matchmaking
from lobby_api.settings import LobbySettings, SettingsError
from tests.engine_server.api.conftest import SECRET
from tests.lobby_api.conftest import add_test_levels, build_app, running
from tests.lobby_api.support import PASSWORD, Player, register


async def test_health_and_errors_are_problem_documents(client: httpx.AsyncClient) -> None:
    health = await client.get("/health")
    assert health.status_code == 200 and health.json() == {"status": "ok"}
    missing = await client.get("/no/such/thing")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
    assert missing.json()["code"] == "not_found" and missing.json()["instance"] == "/no/such/thing"
    wrong = await client.delete("/wallet")
    assert wrong.status_code == 405 and wrong.json()["code"] == "method_not_allowed"
    assert "GET" in wrong.headers["allow"]


async def test_an_unexpected_failure_is_a_500_problem_that_leaks_nothing(
    client: httpx.AsyncClient, city: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = await register(client, city)

    async def broken(*args: object) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(Matchmaking, "get_ticket", broken)
    answer = await player.get("/tickets/tk-1")
    assert answer.status_code == 500
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["code"] == "internal_error"
    assert "secret" not in answer.text


async def _limited_client(
    settings: LobbySettings, **limits: int
) -> tuple[object, httpx.AsyncClient]:
    app = build_app(settings, None, **limits)
    return app, httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://lobby")


async def test_log_in_and_money_requests_are_rate_limited(
    settings: LobbySettings, city: str
) -> None:
    app, http = await _limited_client(settings, login_rate_per_minute=3, money_rate_per_minute=2)
    async with running(app), http:  # type: ignore[arg-type]
        await add_test_levels(app.state.db)  # type: ignore[attr-defined]
        ann = await register(http, city)  # one log-in
        logins = [
            await http.post("/auth/login", json={"username": ann.username, "password": PASSWORD})
            for _ in range(3)
        ]
        assert [r.status_code for r in logins] == [200, 200, 429]
        limited = logins[-1]
        assert limited.headers["content-type"].startswith("application/problem+json")
        assert limited.json()["code"] == "rate_limited"
        assert limited.headers["ratelimit-limit"] == "3"
        # Money requests are limited per player: Ann's third is refused, Bob's first is not.
        ticket = {"stake_level": "t-austria", "buy_in": 50}
        answers = [await ann.post("/tickets", ticket) for _ in range(3)]
        assert [a.status_code for a in answers] == [201, 201, 429]
        assert answers[-1].json()["code"] == "rate_limited"
        bob = Player(http, "p-bob", "bob", city, mint_token(SECRET, "p-bob", [Scope.PLAYER]))
        not_limited = await bob.post("/tickets", ticket)
        assert not_limited.status_code == 401  # unknown player, but not rate limited
        assert (await ann.get("/wallet")).status_code == 200  # reading is not limited
    await app.state.engine.close()  # type: ignore[attr-defined]


def test_settings_from_the_environment() -> None:
    secret = {"STUD_JWT_SECRET": "z" * 40}
    configured = LobbySettings.from_env(
        {
            **secret,
            "STUD_DATABASE_URL": "postgresql://db/stud",
            "STUD_LOBBY_ENGINE": "engine:7000",
            "STUD_LOBBY_ENGINE_WEB": "https://play.example/grpc",
            "STUD_LOBBY_SIGNUP_GRANT": "500",
            "STUD_LOBBY_TICKET_SECONDS": "2.5",
            "STUD_LOBBY_DB_POOL": "7",
        }
    )
    assert configured.db_pool_size == 7
    assert LobbySettings.from_env(secret).db_pool_size == 20
    assert configured.engine_grpc == configured.engine_grpc_public == "engine:7000"
    assert configured.engine_grpc_web == "https://play.example/grpc"
    assert (configured.signup_grant, configured.ticket_seconds) == (500, 2.5)
    for bad in (
        {"STUD_DATABASE_URL": "mysql://x/y"},
        {"STUD_LOBBY_PORT": "http"},
        {"STUD_LOBBY_SWEEP_SECONDS": "-1"},
        {"STUD_LOBBY_TOKEN_SECONDS": "4"},
        {"STUD_JWT_SECRET": "short"},
        {"STUD_LOBBY_DB_POOL": "0"},
        {"STUD_LOBBY_DB_POOL": "many"},
    ):
        with pytest.raises(SettingsError, match=next(iter(bad))):
            LobbySettings.from_env({**secret, **bad})


@pytest.mark.parametrize("module", [problems, settings_module])
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0
