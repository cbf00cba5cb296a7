"""Client addresses behind proxies: ``X-Forwarded-For`` counts only from the proxies named in
``STUD_LOBBY_TRUSTED_PROXIES`` (none by default), in the app and in ``stud lobby`` itself
(whose server must not believe the header from loopback on its own).
"""

from __future__ import annotations

import doctest
import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from benchmarks.processes import start_stud_blocking
from lobby_api import forwarded
from lobby_api.db import Database
from lobby_api.ratelimit.limiter import bucket_key
from lobby_api.settings import LobbySettings
from tests.lobby_api.conftest import build_app, running
from tests.lobby_api.support import rows

WRONG = {"password": "not-the-password"}


async def _log_ins(
    settings: LobbySettings, peer: str, forwarded_for: list[str], **overrides: object
) -> tuple[list[int], Database]:
    """Log-ins (of unknown names) from ``peer``, each claiming to forward one address."""
    app = build_app(settings, None, login_rate_per_minute=2, **overrides)
    codes = []
    async with running(app):
        transport = httpx.ASGITransport(app=app, client=(peer, 40_000))  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://lobby") as http:
            for n, hops in enumerate(forwarded_for):
                answer = await http.post(
                    "/auth/login",
                    json={"username": f"nobody_{n}", **WRONG},
                    headers={"X-Forwarded-For": hops},
                )
                codes.append(answer.status_code)
        await app.state.engine.close()
    return codes, app.state.db


def _peer() -> str:
    return "127.7." + ".".join(str(b) for b in os.urandom(2))


async def test_the_header_is_ignored_by_default(settings: LobbySettings) -> None:
    peer = _peer()
    claims = ["203.0.113.1", "203.0.113.2", "203.0.113.3"]
    codes, db = await _log_ins(settings, peer, claims)
    # Every log-in counts against the connection's own address: the third is over.
    assert codes == [401, 401, 429]
    counted = await rows(
        db, "SELECT hits FROM rate_limits WHERE bucket = :b", b=bucket_key("login", peer)
    )
    assert counted == [(3,)]


async def test_a_trusted_proxy_names_the_client(settings: LobbySettings) -> None:
    peer = _peer()
    # Three different clients (three random bytes met once in a hundred runs: 429 too soon).
    clients = [f"198.51.100.{n}" for n in random.sample(range(256), 3)]
    codes, db = await _log_ins(
        settings,
        peer,
        [
            clients[0],
            f"{clients[1]}, 10.9.0.1",  # the client, then a second trusted proxy
            f"6.6.6.6, {clients[2]}",  # what the client wrote itself is not believed
            clients[0],
            clients[0],
        ],
        trusted_proxies=("127.7.0.0/16", "10.9.0.0/16"),
    )
    assert codes == [401, 401, 401, 401, 429]
    for client, hits in ((clients[0], 3), (clients[1], 1), (clients[2], 1)):
        counted = await rows(
            db, "SELECT hits FROM rate_limits WHERE bucket = :b", b=bucket_key("login", client)
        )
        assert counted == [(hits,)], client
    assert not await rows(
        db, "SELECT hits FROM rate_limits WHERE bucket = :b", b=bucket_key("login", peer)
    )


async def test_a_connection_from_elsewhere_is_not_a_proxy(settings: LobbySettings) -> None:
    peer = "192.0.2.77"
    claims = ["203.0.113.1", "203.0.113.2", "203.0.113.3"]
    codes, _ = await _log_ins(settings, peer, claims, trusted_proxies=("127.0.0.0/8",))
    assert codes == [401, 401, 429]


@contextmanager
def _stud_lobby(tmp_path: Path, **env: str) -> Iterator[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
    environment.update(
        STUD_JWT_SECRET="proxy-test-secret-" + "p" * 40,
        STUD_LOG_FORMAT="json",
        STUD_LOBBY_LOGIN_RATE="2",
        STUD_LOBBY_SWEEP_SECONDS="0",
        **env,
    )
    url = f"sqlite:///{tmp_path}/lobby.sqlite3"
    lobby = start_stud_blocking(
        *("lobby", "--port", "0", "--database-url", url, "--engine", "127.0.0.1:9"),
        env=environment,
        log=tmp_path / "lobby.log",
    )
    try:
        yield lobby.ready["http"]
    finally:
        assert lobby.stop(timeout=30) == 0, lobby.log_tail()


def _through_the_server(lobby: str) -> list[int]:
    with httpx.Client(base_url=lobby, timeout=10) as http:
        return [
            http.post(
                "/auth/login",
                json={"username": f"nobody_{n}", **WRONG},
                headers={"X-Forwarded-For": f"203.0.113.{n}"},
            ).status_code
            for n in range(3)
        ]


def test_stud_lobby_on_loopback_believes_no_forwarded_header(tmp_path: Path) -> None:
    with _stud_lobby(tmp_path) as lobby:
        assert _through_the_server(lobby) == [401, 401, 429]


def test_stud_lobby_believes_the_proxies_it_is_told_of(tmp_path: Path) -> None:
    with _stud_lobby(tmp_path, STUD_LOBBY_TRUSTED_PROXIES="127.0.0.1") as lobby:
        assert _through_the_server(lobby) == [401, 401, 401]


def test_doctests() -> None:
    result = doctest.testmod(forwarded)
    assert result.attempted > 0 and result.failed == 0
