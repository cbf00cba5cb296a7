"""The per-account limit on failed log-ins: a wait that doubles, whatever address the
attempts come from and whichever replica answers, kept in the database (SQLite and
PostgreSQL).

Each attempt here comes from an address of its own (rotating addresses is what the limit is
for), to one of two lobby replicas sharing the database.
"""

from __future__ import annotations

import asyncio
import doctest
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import httpx
from litestar import Litestar

from lobby_api.db import Database
from lobby_api.ratelimit import logins
from lobby_api.ratelimit.logins import LoginFailures
from lobby_api.settings import LobbySettings
from tests.lobby_api.conftest import add_test_levels, build_app, running
from tests.lobby_api.support import PASSWORD, register, rows, scalar

WRONG = "not-the-password"


class _Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@asynccontextmanager
async def _replicas(settings: LobbySettings, **overrides: int) -> AsyncIterator[list[Litestar]]:
    """Two lobby apps over the test's database (each with its own pool, as two processes)."""
    async with AsyncExitStack() as stack:
        apps = []
        for _ in range(2):
            app = build_app(settings, None, **overrides)
            await stack.enter_async_context(running(app))
            stack.push_async_callback(app.state.engine.close)
            apps.append(app)
        await add_test_levels(apps[0].state.db)
        yield apps


class _Attempts:
    """Log-ins from a new address each, to the replicas in turn, on one clock."""

    def __init__(self, apps: list[Litestar], clock: _Clock) -> None:
        self.apps = apps
        self.clock = clock
        self.count = 0
        for app in apps:
            app.state.login_failures.clock = clock

    async def log_in(self, username: str, password: str) -> httpx.Response:
        app = self.apps[self.count % len(self.apps)]
        self.count += 1
        address = "198.51." + ".".join(str(secrets.randbelow(250) + 1) for _ in range(2))
        transport = httpx.ASGITransport(app=app, client=(address, 40_000))  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://lobby") as http:
            return await http.post("/auth/login", json={"username": username, "password": password})


def _waits(answer: httpx.Response, seconds: int) -> None:
    assert answer.status_code == 429, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    problem = answer.json()
    assert (problem["code"], problem["field"]) == ("too_many_failed_logins", "username")
    assert answer.headers["retry-after"] == str(seconds)


async def test_failed_log_ins_make_the_account_wait_longer_and_longer(
    settings: LobbySettings, city: str
) -> None:
    limits = {"login_failures": 2, "login_backoff_max_seconds": 4}
    async with _replicas(settings, **limits) as apps:
        transport = httpx.ASGITransport(app=apps[0])
        async with httpx.AsyncClient(transport=transport, base_url="http://lobby") as http:
            ann = await register(http, city)
        clock = _Clock()
        tries = _Attempts(apps, clock)
        # Two failures are free.
        assert [(await tries.log_in(ann.username, WRONG)).status_code for _ in range(2)] == [
            401,
            401,
        ]
        # The third makes the account wait 1 s: meanwhile even the right password is refused
        # (it is not looked at), from any address, on either replica.
        assert (await tries.log_in(ann.username, WRONG)).status_code == 401
        _waits(await tries.log_in(ann.username, PASSWORD), 1)
        _waits(await tries.log_in(ann.username.upper(), WRONG), 1)  # names regardless of case
        # The refusals moved nothing: after 1 s the next failure makes it 2 s, then 4 s, and
        # 4 s stays the longest.
        clock.now += 1
        assert (await tries.log_in(ann.username, WRONG)).status_code == 401
        clock.now += 1.5
        _waits(await tries.log_in(ann.username, WRONG), 1)
        clock.now += 0.5
        assert (await tries.log_in(ann.username, WRONG)).status_code == 401
        _waits(await tries.log_in(ann.username, WRONG), 4)
        for _ in range(2):
            clock.now += 4
            assert (await tries.log_in(ann.username, WRONG)).status_code == 401
            _waits(await tries.log_in(ann.username, PASSWORD), 4)
        db: Database = apps[0].state.db
        assert (
            await scalar(
                db, "SELECT failures FROM login_failures WHERE account = :a", a=ann.username.lower()
            )
            == 7
        )
        # Once the wait is over the right password logs in, and the count starts again.
        clock.now += 4
        answer = await tries.log_in(ann.username, PASSWORD)
        assert answer.status_code == 200, answer.text
        assert not await rows(
            db, "SELECT * FROM login_failures WHERE account = :a", a=ann.username.lower()
        )
        assert [(await tries.log_in(ann.username, WRONG)).status_code for _ in range(3)] == [
            401,
            401,
            401,
        ]
        _waits(await tries.log_in(ann.username, PASSWORD), 1)


async def test_an_unknown_name_waits_alike(settings: LobbySettings) -> None:
    """The answers do not tell which names have an account."""
    async with _replicas(settings, login_failures=1, login_backoff_max_seconds=60) as apps:
        tries = _Attempts(apps, _Clock())
        nobody = "nobody_" + secrets.token_hex(4)
        answers = [await tries.log_in(nobody, WRONG) for _ in range(3)]
        assert [a.status_code for a in answers] == [401, 401, 429]
        assert answers[0].json()["code"] == "wrong_credentials"
        assert (
            await scalar(
                apps[0].state.db, "SELECT count(*) FROM players WHERE username_key = :u", u=nobody
            )
            == 0
        )


async def test_concurrent_attempts_never_slip_past_a_wait(settings: LobbySettings) -> None:
    """Twenty attempts at once from twenty addresses, on two replicas: the free failures and
    the one that starts the wait are checked; every other one is refused unread."""
    async with _replicas(settings, login_failures=3, login_backoff_max_seconds=60) as apps:
        tries = _Attempts(apps, _Clock())
        name = "burst_" + secrets.token_hex(4)
        answers = await asyncio.gather(*(tries.log_in(name, WRONG) for _ in range(20)))
        codes = sorted(a.status_code for a in answers)
        assert codes == [401] * 4 + [429] * 16, codes


async def test_zero_failures_means_no_per_account_limit(settings: LobbySettings, city: str) -> None:
    async with _replicas(settings, login_failures=0) as apps:
        assert apps[0].state.login_failures is None
        tries = _Attempts.__new__(_Attempts)
        tries.apps, tries.count = apps, 0
        transport = httpx.ASGITransport(app=apps[0])
        async with httpx.AsyncClient(transport=transport, base_url="http://lobby") as http:
            ann = await register(http, city)
        assert {(await tries.log_in(ann.username, WRONG)).status_code for _ in range(8)} == {401}
        assert (await tries.log_in(ann.username, PASSWORD)).status_code == 200


async def test_quiet_accounts_are_forgotten(database_url: str) -> None:
    db = Database.from_url(database_url)
    clock = _Clock()
    failures = LoginFailures(db, 1, 60, forget_after_seconds=600, clock=clock)
    old, waiting, recent = (f"acct_{secrets.token_hex(4)}" for _ in range(3))
    try:
        for name in (old, waiting):
            await failures.attempt(name)
        await failures.attempt(waiting)  # waits 1 s from now
        clock.now += 601
        await failures.attempt(recent)
        # A quiet account starts again from nothing, even before the sweep.
        await failures.attempt(old)
        assert (
            await scalar(db, "SELECT failures FROM login_failures WHERE account = :a", a=old) == 1
        )
        clock.now += 601
        await failures.attempt(recent)
        assert await failures.forget_stale() >= 2
        left = await rows(
            db,
            "SELECT account FROM login_failures WHERE account IN (:a, :b, :c)",
            a=old,
            b=waiting,
            c=recent,
        )
        assert [r[0] for r in left] == [recent]
    finally:
        await db.dispose()


def test_doctests() -> None:
    result = doctest.testmod(logins)
    assert result.attempted > 0 and result.failed == 0
