"""Fixtures: a migrated database per test, on SQLite (a temp file) and on PostgreSQL.

PostgreSQL tests run in a database of their own, created for the test session
(``stud_test_store_<pid>_<random>``) and dropped after it, so they never touch
the shared ``test`` database; each test gets an empty ``public`` schema. The
server is ``$STUD_TEST_POSTGRES_URL`` (default
``postgresql://postgres@127.0.0.1:5432/test``, used only to create and drop
that database); when it cannot be reached the PostgreSQL cases are skipped
with the reason.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta

import psycopg2
import pytest
from sqlalchemy.engine import make_url

from engine_server.store.database import create_engine_for
from engine_server.store.migrate import upgrade_to_head
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


@pytest.fixture(params=BACKENDS)
def empty_url(request: pytest.FixtureRequest, tmp_path: os.PathLike[str]) -> str:
    """The URL of an empty database (plain, driverless spelling)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/store.sqlite3"
    url: str = request.getfixturevalue("postgres_database")
    connection = _admin_connection(url)
    try:
        with connection.cursor() as cursor:
            cursor.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
    finally:
        connection.close()
    return url


@pytest.fixture
def url(empty_url: str) -> str:
    """The URL of a database migrated to head."""
    upgrade_to_head(empty_url)
    return empty_url


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
