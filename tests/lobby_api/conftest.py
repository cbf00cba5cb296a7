"""Fixtures: the lobby app over a migrated SQLite file and a PostgreSQL database of its own.

Every test gets a fresh database, copied from a template migrated once per session:
a SQLite file, or ``CREATE DATABASE stud_lobby_test_<random> TEMPLATE …`` on the
PostgreSQL server at ``$STUD_TEST_POSTGRES_URL`` (default
``postgresql://postgres@127.0.0.1:5432/postgres``), dropped after the test. When the
server cannot be reached the PostgreSQL cases are skipped with the reason.

``client`` is an :class:`httpx.AsyncClient` on :func:`lobby_api.app.create_app` over ASGI
(lifespan run in the test's loop: the seeds are loaded). A test that also asks for ``engine`` gets a real engine on
loopback sharing the test's database, and the app talks to it.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import psycopg2
import pytest
from argon2 import PasswordHasher
from litestar import Litestar
from sqlalchemy.engine import make_url

from engine_server.store.migrate import upgrade_to_head
from lobby_api.app import create_app
from lobby_api.catalog.models import CityRow, StakeLevelRow
from lobby_api.db import Database
from lobby_api.engine_client import EngineClient
from lobby_api.settings import LobbySettings
from tests.engine_server.api.conftest import SECRET, Engine, launch, shut
from tests.postgres import postgres_unreachable

POSTGRES_URL = os.environ.get(
    "STUD_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
BACKENDS = ("sqlite", "postgresql")
#: Where nothing listens: the app's engine when a test has no engine.
NO_ENGINE = "127.0.0.1:9"

#: Test stake levels: a fast clock, and a rake on every pot of 5 chips or more.
TEST_LEVELS = [
    StakeLevelRow(
        id="t-fast",
        name="test: fast house table with rake",
        profile="house",
        ante=1,
        bring_in=1,
        small_bet=2,
        big_bet=4,
        min_buy_in=40,
        max_buy_in=400,
        action_seconds=0.3,
        rake={"by_players": [{"min_players": 2, "max_players": 10, "schedule": [[5, 1], [20, 2]]}]},
        position=100,
    ),
    StakeLevelRow(
        id="t-austria",
        name="test: casinos_austria, slow clock",
        profile="casinos_austria",
        ante=1,
        bring_in=1,
        small_bet=2,
        big_bet=4,
        min_buy_in=40,
        max_buy_in=400,
        action_seconds=30,
        rake=None,
        position=101,
    ),
]


def _admin(url: str) -> psycopg2.extensions.connection:
    connection = psycopg2.connect(url, connect_timeout=3)
    connection.autocommit = True
    return connection


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lobby-template") / "template.sqlite3"
    upgrade_to_head(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    try:
        admin = _admin(POSTGRES_URL)
    except psycopg2.OperationalError as error:
        postgres_unreachable(POSTGRES_URL, error)
    name = f"stud_lobby_tmpl_{os.getpid()}_{secrets.token_hex(3)}"
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    try:
        upgrade_to_head(make_url(POSTGRES_URL).set(database=name).render_as_string(False))
        yield name
    finally:
        with admin.cursor() as cursor:
            for leftover in [*_TO_DROP, name]:
                cursor.execute(f'DROP DATABASE IF EXISTS "{leftover}" WITH (FORCE)')
        _TO_DROP.clear()
        admin.close()


@pytest.fixture(scope="session")
def shared_postgres(postgres_template: str) -> Iterator[str]:
    """One PostgreSQL database for the session's tests that need no engine."""
    yield from _postgres_copy(postgres_template)


#: Databases made for single tests, dropped together at the end of the session (dropping
#: one takes as long as creating it).
_TO_DROP: list[str] = []


def _postgres_copy(template_name: str, *, drop_now: bool = True) -> Iterator[str]:
    name = f"stud_lobby_test_{os.getpid()}_{secrets.token_hex(4)}"
    admin = _admin(POSTGRES_URL)
    try:
        with admin.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template_name}"')
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(False)
    finally:
        if drop_now:
            with admin.cursor() as cursor:
                cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        else:
            _TO_DROP.append(name)
        admin.close()


def _sqlite_copy(template: Path, target: Path) -> str:
    for suffix in ("", "-wal"):
        if Path(f"{template}{suffix}").exists():
            shutil.copy(f"{template}{suffix}", f"{target}{suffix}")
    return f"sqlite:///{target}"


@pytest.fixture(scope="session")
def shared_sqlite(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    return _sqlite_copy(sqlite_template, tmp_path_factory.mktemp("lobby-shared") / "lobby.sqlite3")


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database at head, of each backend.

    Tests without an engine share one database per backend (they use cities of their own,
    see ``city``, so they never meet each other's tables and tickets); a test with a real
    engine gets a fresh one, so the engine does not bring back other tests' tables.
    """
    fresh = "engine" in request.fixturenames or "fresh_database" in request.fixturenames
    if request.param == "sqlite":
        if not fresh:
            yield request.getfixturevalue("shared_sqlite")
            return
        yield _sqlite_copy(request.getfixturevalue("sqlite_template"), tmp_path / "lobby.sqlite3")
        return
    if not fresh:
        yield request.getfixturevalue("shared_postgres")
        return
    yield from _postgres_copy(request.getfixturevalue("postgres_template"), drop_now=False)


@pytest.fixture
def backend(database_url: str) -> str:
    return "sqlite" if database_url.startswith("sqlite") else "postgresql"


@pytest.fixture
def settings(database_url: str) -> LobbySettings:
    return LobbySettings(
        database_url=database_url,
        jwt_secret=SECRET,
        engine_grpc=NO_ENGINE,
        engine_grpc_public=NO_ENGINE,
        engine_grpc_web="http://127.0.0.1:9",
        sweep_seconds=0,
        login_rate_per_minute=0,
        money_rate_per_minute=0,
        ticket_seconds=60,
        engine_timeout_seconds=5,
    )


#: argon2 at its cheapest: the tests check behaviour, not the cost parameters.
CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[Engine]:
    """A real engine on loopback sharing the test's database."""
    running = await launch(database_url)
    try:
        yield running
    finally:
        await shut(running)


async def add_test_levels(db: Database) -> None:
    async with db.write() as session:
        for level in TEST_LEVELS:
            if await session.get(StakeLevelRow, level.id) is None:
                session.add(StakeLevelRow.model_validate(level.model_dump()))


def build_app(settings: LobbySettings, engine: Engine | None = None, **overrides: Any) -> Litestar:
    values = {
        **{f: getattr(settings, f) for f in settings.__dataclass_fields__},
        **overrides,
    }
    if engine is not None:
        values["engine_grpc"] = values["engine_grpc_public"] = engine.grpc_address
        values["engine_grpc_web"] = engine.web_url
    final = LobbySettings(**values)
    client = EngineClient(final.engine_grpc, final.jwt_secret, timeout=final.engine_timeout_seconds)
    return create_app(final, engine_client=client, password_hasher=CHEAP_HASHER)


async def _close_engine_client(app: Litestar) -> None:
    await app.state.engine.close()


@pytest.fixture
def app(request: pytest.FixtureRequest, settings: LobbySettings) -> Litestar:
    # Sync on purpose: an async fixture cannot ask for the (async) engine fixture on demand.
    engine = request.getfixturevalue("engine") if "engine" in request.fixturenames else None
    return build_app(settings, engine)


@asynccontextmanager
async def running(app: Litestar) -> AsyncIterator[None]:
    """Run the app's lifespan in this event loop (Litestar's test client runs it in another
    loop, whose database connections this loop could not use)."""
    to_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    from_app: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    task = asyncio.create_task(app(scope, to_app.get, from_app.put))  # type: ignore[arg-type]
    await to_app.put({"type": "lifespan.startup"})
    started = await from_app.get()
    assert started["type"] == "lifespan.startup.complete", started
    try:
        yield
    finally:
        await to_app.put({"type": "lifespan.shutdown"})
        await from_app.get()
        await task


@pytest.fixture
async def client(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    async with running(app):
        await add_test_levels(app.state.db)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://lobby") as http:
            yield http
    await _close_engine_client(app)


@pytest.fixture
async def city(client: httpx.AsyncClient, app: Litestar) -> str:
    """A city of this test's own (so its tables and tickets meet no other test's)."""
    name = "c-" + secrets.token_hex(5)
    async with app.state.db.write() as session:
        session.add(CityRow(id=name, name=name.upper()))
    return name


@pytest.fixture
async def db(app: Litestar) -> AsyncIterator[Database]:
    database: Database = app.state.db
    yield database
    # A test without ``client`` never runs the lifespan that disposes of the database: its
    # pooled connections would be left to the garbage collector (ResourceWarning).
    await database.dispose()
