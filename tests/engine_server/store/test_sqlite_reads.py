"""A read-only SQLite engine's lone reads run in the event loop (issue 16): no trip to the
driver's thread, the same answers, and a read refused for a lock waits on the thread."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from engine_server.store import sqlite_trips
from engine_server.store.database import LONG_READ, create_engine_for
from engine_server.store.sqlite_reads import loop_reads
from tests.engine_server.store.support import sqlite_with_table_t, write_three_rows


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "reads.sqlite3"


@pytest.fixture
async def reader(path: Path) -> AsyncIterator[AsyncEngine]:
    writer = await sqlite_with_table_t(path)
    async with writer.begin() as connection:
        await write_three_rows(connection, lambda: None)
    await writer.dispose()
    made = create_engine_for(f"sqlite:///{path}", read_only=True, busy_timeout_ms=3_000)
    try:
        yield made
    finally:
        await made.dispose()


async def _busy_timeout(connection: Any) -> int:
    raw = await connection.get_raw_connection()
    sqlite_connection = raw.dbapi_connection._connection._conn
    return int(sqlite_connection.execute("PRAGMA busy_timeout").fetchone()[0])


async def test_a_lone_read_makes_no_trip_and_answers_as_before(
    reader: AsyncEngine, trips: list[Any]
) -> None:
    async with reader.connect() as connection:
        await connection.execute(sa.text("SELECT 1"))  # the connection made (its PRAGMAs)
        trips.clear()
        rows = await connection.execute(sa.text("SELECT id, v FROM t ORDER BY id"))
        assert list(rows.keys()) == ["id", "v"]
        assert rows.all() == [(1, "a"), (2, "b!"), (3, "c!")]
        none = await connection.execute(sa.text("SELECT v FROM t WHERE id = :id"), {"id": 9})
        assert none.first() is None
        # In the loop nothing waits for a lock; what would wait goes to the thread.
        assert await _busy_timeout(connection) == 0
        raw = await connection.get_raw_connection()
        reads = loop_reads(raw.dbapi_connection._connection)
        assert reads is not None and reads.busy_timeout_ms == 3_000
    assert trips == []


async def test_a_read_refused_for_a_lock_waits_on_the_drivers_thread(
    reader: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite refuses the statement in the loop (SQLITE_BUSY: a reader finding the log being
    recovered, simulated): it is run again on the driver's thread with the busy timeout, and
    its answer kept."""
    seen: list[tuple[str, int]] = []
    execute = sqlite_trips._execute

    def refused_once(connection: sqlite3.Connection, operation: str, parameters: Any) -> Any:
        timeout = int(connection.execute("PRAGMA busy_timeout").fetchone()[0])
        seen.append((threading.current_thread().name, timeout))
        if len(seen) == 1:
            raise sqlite3.OperationalError("database is locked")
        return execute(connection, operation, parameters)

    async with reader.connect() as connection:
        await connection.execute(sa.text("SELECT 1"))
        monkeypatch.setattr(sqlite_trips, "_execute", refused_once)
        rows = await connection.execute(sa.text("SELECT v FROM t ORDER BY id"))
        assert rows.scalars().all() == ["a", "b!", "c!"]
        monkeypatch.undo()
        loop_thread = threading.current_thread().name
        assert seen[0] == (loop_thread, 0)
        assert seen[1][0] != loop_thread and seen[1][1] == 3_000
        assert await _busy_timeout(connection) == 0


async def test_a_read_refused_for_another_reason_fails_as_before(reader: AsyncEngine) -> None:
    async with reader.connect() as connection:
        with pytest.raises(OperationalError, match="no such table"):
            await connection.execute(sa.text("SELECT * FROM nowhere"))
        with pytest.raises(OperationalError, match="readonly"):
            await connection.execute(sa.text("INSERT INTO t (v) VALUES ('never')"))
        assert (await connection.execute(sa.text("SELECT count(*) FROM t"))).scalar_one() == 3


async def test_a_long_read_runs_on_the_drivers_thread(
    reader: AsyncEngine, trips: list[Any]
) -> None:
    async with reader.connect() as connection:
        await connection.execute(sa.text("SELECT 1"))
        trips.clear()
        long = sa.text("SELECT count(*) FROM t").execution_options(**LONG_READ)
        assert (await connection.execute(long)).scalar_one() == 3
        assert [fn.__name__ for fn in trips] == ["_execute"]
        trips.clear()
        # The next statement of the same connection reads in the loop again.
        assert (await connection.execute(sa.text("SELECT count(*) FROM t"))).scalar_one() == 3
        assert trips == []
