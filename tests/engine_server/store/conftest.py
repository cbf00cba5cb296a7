"""Fixtures: a migrated database per test, on SQLite (a temp file) and on PostgreSQL.

PostgreSQL tests run in a database of their own, created for the test session
(``stud_test_store_<pid>_<random>``) and dropped after it, so they never touch
the shared ``test`` database. The server is ``$STUD_TEST_POSTGRES_URL`` (default
``postgresql://postgres@127.0.0.1:5432/test``, used only to create and drop
that database); when it cannot be reached the PostgreSQL cases are skipped
with the reason.

Migrating takes a second or more per database, so it is done once per backend: a SQLite test
gets a copy of a file migrated once per session, a PostgreSQL test the session's schema at
head with every table emptied (it is migrated again only after a test that wanted it empty).
``empty_url`` gives an unmigrated database, for the migration tests.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiosqlite
import psycopg2
import pytest
from sqlalchemy.engine import make_url

from engine_server.store.database import create_engine_for
from engine_server.store.migrate import current_revisions, head_revisions, upgrade_to_head
from engine_server.store.repository import EngineStore
from tests.postgres import postgres_unreachable

ADMIN_URL = os.environ.get("STUD_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = ("sqlite", "postgresql")


class StepClock:
    """A clock that moves on by ``step`` each time it is read (deterministic ordering)."""

    def __init__(self, start: datetime | None = None, step: timedelta = timedelta(seconds=1)):
        self.now = start or datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


def _admin_connection(url: str) -> psycopg2.extensions.connection:
    connection = psycopg2.connect(url, connect_timeout=3)
    connection.autocommit = True
    return connection


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """A database of this test session's own, dropped at the end."""
    try:
        admin = _admin_connection(ADMIN_URL)
    except psycopg2.OperationalError as error:
        postgres_unreachable(ADMIN_URL, error)
    name = f"stud_test_store_{os.getpid()}_{secrets.token_hex(3)}"
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store-template") / "template.sqlite3"
    upgrade_to_head(f"sqlite:///{path}")
    return path


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _empty_schema(url: str) -> None:
    connection = _admin_connection(url)
    try:
        with connection.cursor() as cursor:
            cursor.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
    finally:
        connection.close()


def _empty_tables(url: str) -> None:
    """Every table of the schema emptied (alembic's version row kept), its sequences reset."""
    connection = _admin_connection(url)
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT tablename FROM pg_tables "
                "WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
            )
            names = ", ".join(f'public."{name}"' for (name,) in cursor.fetchall())
            if names:
                cursor.execute(f"TRUNCATE {names} RESTART IDENTITY CASCADE")
    finally:
        connection.close()


@pytest.fixture
def empty_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database (plain, driverless spelling). On PostgreSQL the schema
    is dropped again after the test (it may have changed it), so ``url`` migrates afresh."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path}/store.sqlite3"
        return
    url: str = request.getfixturevalue("postgres_database")
    _empty_schema(url)
    yield url
    _empty_schema(url)


@pytest.fixture
def url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a database at head, with no rows."""
    if backend == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        target = tmp_path / "store.sqlite3"
        for suffix in ("", "-wal"):
            if Path(f"{template}{suffix}").exists():
                shutil.copy(f"{template}{suffix}", f"{target}{suffix}")
        return f"sqlite:///{target}"
    url: str = request.getfixturevalue("postgres_database")
    if current_revisions(url) == head_revisions():
        _empty_tables(url)
    else:  # empty, or left behind by a test that changed the schema: migrated afresh
        _empty_schema(url)
        upgrade_to_head(url)
    return url


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
async def store(url: str, clock: StepClock) -> AsyncIterator[EngineStore]:
    engine = create_engine_for(url)
    store = EngineStore(engine, clock=clock)
    try:
        yield store
    finally:
        await store.dispose()


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every call queued for aiosqlite's thread (the functions, in order)."""
    made: list[Any] = []
    queued = aiosqlite.Connection._execute

    async def counted(self: aiosqlite.Connection, fn: Any, *args: Any, **kwargs: Any) -> Any:
        made.append(fn)
        return await queued(self, fn, *args, **kwargs)  # type: ignore[no-untyped-call]

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    return made
