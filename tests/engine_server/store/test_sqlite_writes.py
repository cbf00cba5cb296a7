"""SQLite write transactions in the event loop (issue 16): no trip to the driver's thread from
BEGIN to COMMIT, a BEGIN that waits for another writer without blocking the loop, the log
checked in by a thread of its own."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from engine_server.store.database import WRITE_OPTIONS, create_engine_for
from engine_server.store.sqlite_writes import (
    IN_LOOP_OPTION,
    LoopWrites,
    WalCheckpoints,
    is_busy,
    loop_writes,
    wal_checkpoints,
)
from tests.engine_server.store.support import sqlite_with_table_t, write_three_rows


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "writes.sqlite3"


@pytest.fixture
async def engine(path: Path) -> AsyncIterator[AsyncEngine]:
    made = await sqlite_with_table_t(path, busy_timeout_ms=2_000)
    try:
        yield made
    finally:
        await made.dispose()


def _busy_timeout(engine: AsyncEngine, raw: Any) -> int:
    return int(raw.dbapi_connection._connection._conn.execute("PRAGMA busy_timeout").fetchone()[0])


async def test_a_write_transaction_makes_no_trip_and_answers_as_before(
    engine: AsyncEngine, trips: list[Any]
) -> None:
    writer = engine.execution_options(**WRITE_OPTIONS)
    async with writer.connect() as connection:
        raw = await connection.get_raw_connection()
        trips.clear()
        async with connection.begin():
            await write_three_rows(connection, lambda: None)
            # Inside the transaction the connection waits for no lock: busy timeout 0.
            assert _busy_timeout(engine, raw) == 0
        assert trips == []  # BEGIN, four statements, COMMIT: all in the loop
        assert _busy_timeout(engine, raw) == 2_000
    async with engine.connect() as connection:
        rows = await connection.execute(sa.text("SELECT id, v FROM t ORDER BY id"))
        assert rows.all() == [(1, "a"), (2, "b!"), (3, "c!")]


async def test_a_failed_write_rolls_back_in_the_loop(engine: AsyncEngine, trips: list[Any]) -> None:
    writer = engine.execution_options(**WRITE_OPTIONS)
    trips.clear()
    with pytest.raises(IntegrityError):
        async with writer.begin() as connection:
            await connection.execute(sa.text("INSERT INTO t (v) VALUES ('x')"))
            await connection.execute(sa.text("INSERT INTO t (v) VALUES ('x')"))
    # Only the pool's own rollback when the connection came back: no transaction is open.
    assert all(fn.__name__ != "_execute" for fn in trips)
    async with engine.connect() as connection:
        assert (await connection.execute(sa.text("SELECT count(*) FROM t"))).scalar_one() == 0
        raw = await connection.get_raw_connection()
        assert _busy_timeout(engine, raw) == 2_000


async def test_a_long_write_runs_on_the_drivers_thread(
    engine: AsyncEngine, trips: list[Any]
) -> None:
    long = engine.execution_options(**WRITE_OPTIONS, **{IN_LOOP_OPTION: False})
    trips.clear()
    async with long.begin() as connection:
        await connection.execute(sa.text("INSERT INTO t (v) VALUES ('slow')"))
    assert len(trips) >= 2  # BEGIN IMMEDIATE and the INSERT, each a trip
    async with engine.connect() as connection:
        assert (await connection.execute(sa.text("SELECT v FROM t"))).scalars().all() == ["slow"]


async def test_begin_waits_for_another_writer_without_blocking_the_loop(
    engine: AsyncEngine, path: Path
) -> None:
    """Another process's writer (a plain sqlite3 connection here) holds the lock for 0.3 s:
    the transaction begins once it is free, and the loop keeps running meanwhile."""
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO t (v) VALUES ('first')")
    released = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticking = asyncio.create_task(ticker())
    released.start()
    try:
        writer = engine.execution_options(**WRITE_OPTIONS)
        async with writer.begin() as connection:
            before = ticks
            await connection.execute(sa.text("INSERT INTO t (v) VALUES ('second')"))
        # The ticker ran through the wait (about 30 ticks of 10 ms), not after it.
        assert before >= 10
    finally:
        ticking.cancel()
        released.join()
        other.close()
    async with engine.connect() as connection:
        rows = await connection.execute(sa.text("SELECT v FROM t ORDER BY id"))
        assert rows.scalars().all() == ["first", "second"]


async def test_begin_gives_up_after_the_busy_timeout(path: Path) -> None:
    made = create_engine_for(f"sqlite:///{path}", busy_timeout_ms=200)
    try:
        async with made.begin() as connection:
            await connection.execute(sa.text("CREATE TABLE t (v TEXT)"))
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            loop = asyncio.get_running_loop()
            started = loop.time()
            with pytest.raises(OperationalError, match="locked"):
                async with made.execution_options(**WRITE_OPTIONS).begin() as connection:
                    await connection.execute(sa.text("INSERT INTO t VALUES ('never')"))
            assert 0.2 <= loop.time() - started < 2
        finally:
            other.execute("ROLLBACK")
            other.close()
        # The connection is usable again, with its busy timeout back.
        async with made.execution_options(**WRITE_OPTIONS).begin() as connection:
            await connection.execute(sa.text("INSERT INTO t VALUES ('later')"))
        async with made.connect() as connection:
            assert _busy_timeout(made, await connection.get_raw_connection()) == 200
    finally:
        await made.dispose()


async def test_a_statement_refused_for_a_lock_waits_on_the_drivers_thread(path: Path) -> None:
    """What is refused with SQLITE_BUSY in the loop is run again on aiosqlite's thread, with
    the connection's busy timeout, and its answer kept."""
    connection = await aiosqlite.connect(path, isolation_level=None, check_same_thread=False)
    try:
        writes = LoopWrites(1_500, None)
        seen: list[tuple[str, int]] = []

        def step(raw: sqlite3.Connection, value: str) -> str:
            timeout = int(raw.execute("PRAGMA busy_timeout").fetchone()[0])
            seen.append((threading.current_thread().name, timeout))
            if len(seen) == 1:
                raise sqlite3.OperationalError("database is locked")
            return value

        raw = connection._conn
        raw.execute("PRAGMA busy_timeout=0")
        assert await writes.run(connection, step, "kept") == "kept"
        loop_thread = threading.current_thread().name
        assert seen[0] == (loop_thread, 0)
        assert seen[1][0] != loop_thread and seen[1][1] == 1_500
        assert int(raw.execute("PRAGMA busy_timeout").fetchone()[0]) == 0
    finally:
        await connection.close()


async def test_commits_in_the_loop_leave_the_log_to_the_checkpoints(
    engine: AsyncEngine, path: Path
) -> None:
    checkpoints = wal_checkpoints(str(path.resolve()))
    done = checkpoints.done
    writer = engine.execution_options(**WRITE_OPTIONS)
    async with writer.connect() as connection:
        raw = await connection.get_raw_connection()
        automatic = raw.dbapi_connection._connection._conn.execute("PRAGMA wal_autocheckpoint")
        assert automatic.fetchone()[0] == 0
    for n in range(checkpoints.every * 2 + 1):
        async with writer.begin() as connection:
            await connection.execute(sa.text("INSERT INTO t (v) VALUES (:v)"), {"v": str(n)})
    for _ in range(100):
        if checkpoints.done >= done + 2:
            break
        await asyncio.sleep(0.02)
    assert checkpoints.done >= done + 2
    # Everything the log held before the last commits is in the file now: a checkpoint from
    # here copies at most the commits since the last one.
    probe = sqlite3.connect(path, isolation_level=None)
    try:
        busy, logged, copied = probe.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        assert busy == 0 and copied == logged
    finally:
        probe.close()


def test_a_checkpoint_of_a_file_that_cannot_be_opened_is_logged_and_retried(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    checkpoints = WalCheckpoints(str(tmp_path / "missing" / "x.sqlite3"), every=1)
    with caplog.at_level("WARNING", logger="stud.store"):
        checkpoints.committed()
        for _ in range(100):
            if checkpoints.done:
                break
            threading.Event().wait(0.02)
    assert checkpoints.done == 1
    assert "checkpoint of" in caplog.text and "failed" in caplog.text


def test_busy_errors_are_told_from_others() -> None:
    assert is_busy(sqlite3.OperationalError("database is locked"))
    assert not is_busy(sqlite3.OperationalError("no such table: t"))
    assert not is_busy(ValueError("database is locked"))
    refused = sqlite3.connect(":memory:")
    try:
        with pytest.raises(sqlite3.OperationalError) as caught:
            refused.execute("SELECT * FROM nowhere")
        assert not is_busy(caught.value)
    finally:
        refused.close()


async def test_only_the_begin_it_was_told_of_begins_in_the_loop(engine: AsyncEngine) -> None:
    """A BEGIN announced but never sent (its statement failed before the driver) leaves the
    next statement as it is: run on the driver's thread, no write transaction begun."""
    async with engine.connect() as connection:
        raw = await connection.get_raw_connection()
        aio = raw.dbapi_connection._connection
        writes = loop_writes(aio)
        assert writes is not None
        writes.beginning = True
        assert (await connection.execute(sa.text("SELECT count(*) FROM t"))).scalar_one() == 0
        assert not writes.beginning and not writes.writing
        await connection.rollback()
