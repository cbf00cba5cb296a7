"""Rate limits counted in the database: shared by every lobby replica, on SQLite and PostgreSQL.

Each test talks from a client address of its own (the limits' databases are shared by the
session's tests), so no test meets another's log-in window.
"""

from __future__ import annotations

import asyncio
import doctest
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import httpx
import pytest
from litestar import Litestar

from lobby_api.db import Database
from lobby_api.ratelimit import limiter
from lobby_api.ratelimit.limiter import RateLimits, bucket_key
from lobby_api.settings import LobbySettings
from tests.lobby_api.conftest import add_test_levels, build_app, running
from tests.lobby_api.support import PASSWORD, Player, register, rows, scalar


def _address() -> str:
    return "10." + ".".join(str(secrets.randbelow(250) + 1) for _ in range(3))


@asynccontextmanager
async def _replicas(
    settings: LobbySettings, count: int, address: str, **limits: int
) -> AsyncIterator[list[tuple[Litestar, httpx.AsyncClient]]]:
    """``count`` lobby apps over the same database (each with its own connection pool, as
    separate processes would have), each with a client calling from ``address``."""
    async with AsyncExitStack() as stack:
        replicas = []
        for _ in range(count):
            app = build_app(settings, None, **limits)
            await stack.enter_async_context(running(app))
            stack.push_async_callback(app.state.engine.close)
            transport = httpx.ASGITransport(app=app, client=(address, 40_000))  # type: ignore[arg-type]
            http = httpx.AsyncClient(transport=transport, base_url="http://lobby")
            await stack.enter_async_context(http)
            replicas.append((app, http))
        await add_test_levels(replicas[0][0].state.db)
        yield replicas


async def _log_in(http: httpx.AsyncClient, username: str) -> httpx.Response:
    return await http.post("/auth/login", json={"username": username, "password": PASSWORD})


async def test_over_the_limit_is_a_429_problem_with_retry_after(
    settings: LobbySettings, city: str
) -> None:
    address = _address()
    async with _replicas(settings, 1, address, login_rate_per_minute=2) as [(app, http)]:
        ann = await register(http, city)  # one log-in from this address
        answers = [await _log_in(http, ann.username) for _ in range(2)]
        assert [a.status_code for a in answers] == [200, 429]
        assert answers[0].headers["ratelimit-limit"] == "2"
        assert answers[0].headers["ratelimit-remaining"] == "0"
        assert answers[0].headers["ratelimit-policy"] == "2; w=60"
        refused = answers[1]
        assert refused.headers["content-type"].startswith("application/problem+json")
        problem = refused.json()
        assert (problem["status"], problem["code"]) == (429, "rate_limited")
        assert problem["type"] == "urn:problem:stud:rate_limited"
        assert problem["instance"] == "/auth/login"
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        assert 0 <= int(refused.headers["ratelimit-reset"]) <= 60
        # The count is in the database, not in the process.
        db: Database = app.state.db
        assert (
            await scalar(
                db, "SELECT hits FROM rate_limits WHERE bucket = :b", b=bucket_key("login", address)
            )
            == 3
        )
        # Another address has a window of its own; routes without a limit are not counted.
        other = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app, client=(_address(), 40_000)),  # type: ignore[arg-type]
            base_url="http://lobby",
        )
        async with other:
            assert (await _log_in(other, ann.username)).status_code == 200
        assert (await ann.get("/wallet")).status_code == 200
        assert "ratelimit-limit" not in (await ann.get("/wallet")).headers


async def test_two_replicas_sharing_a_database_share_the_limits(
    settings: LobbySettings, city: str
) -> None:
    address = _address()
    limits = {"login_rate_per_minute": 4, "money_rate_per_minute": 3}
    async with _replicas(settings, 2, address, **limits) as [(app, first), (_, second)]:
        ann = await register(first, city)  # log-in 1 (first replica)
        bob = await register(second, city)  # log-in 2 (second replica)
        alternating = [
            await _log_in(first, ann.username),  # 3
            await _log_in(second, ann.username),  # 4
            await _log_in(first, bob.username),  # 5: over, whichever replica answers
            await _log_in(second, bob.username),
        ]
        assert [a.status_code for a in alternating] == [200, 200, 429, 429]
        assert [a.headers["ratelimit-remaining"] for a in alternating[:2]] == ["1", "0"]
        # Money requests, per player: Ann's three go to both replicas, her fourth is refused
        # by either; Bob's own limit is untouched.
        ticket = {"stake_level": "t-austria", "buy_in": 50}
        ann_second = Player(second, ann.id, ann.username, city, ann.token)
        answers = [
            await ann.post("/tickets", ticket),
            await ann_second.post("/tickets", ticket),
            await ann.post("/tickets", ticket),
            await ann_second.post("/tickets", ticket),
            await ann.post("/tickets", ticket),
        ]
        assert [a.status_code for a in answers[:3]] == [201, 201, 201]
        assert [a.status_code for a in answers[3:]] == [429, 429]
        assert all(a.json()["code"] == "rate_limited" for a in answers[3:])
        assert int(answers[3].headers["retry-after"]) >= 1
        # A refused money request moved nothing: three holds, not five.
        tickets = await scalar(
            app.state.db, "SELECT count(*) FROM tickets WHERE player_id = :p", p=ann.id
        )
        assert tickets == 3
        assert (await bob.post("/tickets", ticket)).status_code == 201


class _Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


async def test_a_window_ends_and_the_count_starts_again(database_url: str) -> None:
    db = Database.from_url(database_url)
    clock = _Clock()
    limits = RateLimits(db, clock)
    bucket = bucket_key("login", _address())
    try:
        first = [await limits.hit(bucket, 60) for _ in range(3)]
        assert [w.hits for w in first] == [1, 2, 3]
        # One window: it ends 60 s after its first request, whatever came later.
        assert {w.ends_ms for w in first} == {int(clock.now * 1000) + 60_000}
        clock.now += 59.5
        assert (await limits.hit(bucket, 60)).hits == 4
        assert (await limits.hit(bucket, 60)).retry_after() == "1"
        clock.now += 0.5  # the window is over: a new one opens with this request
        fresh = await limits.hit(bucket, 60)
        assert fresh.hits == 1 and fresh.ends_ms == int(clock.now * 1000) + 60_000
        # Windows that are over are forgotten; a current one is kept.
        other = bucket_key("money", _address())
        await limits.hit(other, 60)
        clock.now += 61
        await limits.hit(bucket, 60)
        assert await limits.forget_expired() >= 1
        remaining = await rows(
            db,
            "SELECT bucket FROM rate_limits WHERE bucket IN (:a, :b)",
            a=bucket,
            b=other,
        )
        assert [r[0] for r in remaining] == [bucket]
    finally:
        await db.dispose()


@pytest.mark.many_connections
async def test_concurrent_hits_are_each_counted_once(database_url: str) -> None:
    # Two "replicas" (two engines, two pools) hitting one bucket at once.
    replicas = [Database.from_url(database_url) for _ in range(2)]
    bucket = bucket_key("money", _address())
    try:
        windows = await asyncio.gather(
            *(RateLimits(replicas[n % 2]).hit(bucket, 60) for n in range(40))
        )
    finally:
        for db in replicas:
            await db.dispose()
    assert sorted(w.hits for w in windows) == list(range(1, 41))
    assert len({w.ends_ms for w in windows}) == 1


async def test_a_limit_of_zero_counts_nothing(settings: LobbySettings, city: str) -> None:
    address = _address()
    async with _replicas(settings, 1, address, login_rate_per_minute=0) as [(app, http)]:
        ann = await register(http, city)
        assert (await _log_in(http, ann.username)).status_code == 200
        assert "ratelimit-limit" not in (await _log_in(http, ann.username)).headers
        count = await scalar(
            app.state.db,
            "SELECT count(*) FROM rate_limits WHERE bucket = :b",
            b=bucket_key("login", address),
        )
        assert count == 0


async def test_the_sweep_forgets_windows_that_are_over(settings: LobbySettings) -> None:
    address = _address()
    async with _replicas(settings, 1, address, sweep_seconds=0.05) as [(app, _)]:
        db: Database = app.state.db
        clock = _Clock()
        clock.now -= 120  # a window that ended a minute ago
        over = bucket_key("login", address)
        await RateLimits(db, clock).hit(over, 60)
        current = bucket_key("money", _address())
        await RateLimits(db).hit(current, 60)
        deadline = time.monotonic() + 10
        while await scalar(db, "SELECT count(*) FROM rate_limits WHERE bucket = :b", b=over):
            assert time.monotonic() < deadline, "the sweep kept a window that is over"
            await asyncio.sleep(0.05)
        assert await scalar(db, "SELECT hits FROM rate_limits WHERE bucket = :b", b=current) == 1


def test_doctests() -> None:
    result = doctest.testmod(limiter)
    assert result.attempted > 0 and result.failed == 0
