"""SQLite statements in one trip to aiosqlite's thread each (issue 16), answering as before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from engine_server.store.sqlite_trips import OneTripConnection
from tests.engine_server.store.support import sqlite_with_table_t, write_three_rows


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    made = await sqlite_with_table_t(tmp_path / "trips.sqlite3")
    try:
        yield made
    finally:
        await made.dispose()


async def test_a_statement_is_one_trip_and_answers_as_before(
    engine: AsyncEngine, trips: list[Any]
) -> None:
    async with engine.connect() as connection:
        raw = await connection.get_raw_connection()
        assert isinstance(raw.dbapi_connection, OneTripConnection)
        trips.clear()
        first: list[int] = []
        await write_three_rows(connection, lambda: first.append(len(trips)))
        assert first == [2]  # BEGIN (the transaction starts here), the INSERT
        trips.clear()
        rows = await connection.execute(sa.text("SELECT id, v FROM t ORDER BY id"))
        assert list(rows.keys()) == ["id", "v"]
        assert rows.all() == [(1, "a"), (2, "b!"), (3, "c!")]
        assert len(trips) == 1
        assert (await connection.execute(sa.text("SELECT v FROM t WHERE id = 9"))).first() is None
        await connection.commit()


async def test_errors_are_translated_and_the_transaction_rolls_back(engine: AsyncEngine) -> None:
    with pytest.raises(IntegrityError):
        async with engine.begin() as connection:
            await connection.execute(sa.text("INSERT INTO t (v) VALUES ('x')"))
            await connection.execute(sa.text("INSERT INTO t (v) VALUES ('x')"))
    async with engine.connect() as connection:
        assert (await connection.execute(sa.text("SELECT count(*) FROM t"))).scalar_one() == 0


async def test_server_side_cursors_still_fetch_as_they_go(engine: AsyncEngine) -> None:
    async with engine.begin() as connection:
        await connection.execute(
            sa.text("INSERT INTO t (v) VALUES (:v)"), [{"v": str(n)} for n in range(50)]
        )
    async with engine.connect() as connection:
        streamed = await connection.stream(sa.text("SELECT v FROM t ORDER BY id"))
        assert [row[0] async for row in streamed] == [str(n) for n in range(50)]


async def test_a_connection_with_nothing_open_goes_back_to_the_pool_without_a_trip(
    engine: AsyncEngine, trips: list[Any]
) -> None:
    async with engine.connect() as connection:
        await connection.execute(sa.text("INSERT INTO t (v) VALUES ('kept')"))
        await connection.commit()
        trips.clear()
    assert trips == []  # the pool's rollback on return: nothing is open, nothing to do
    async with engine.connect() as connection:
        assert (await connection.execute(sa.text("SELECT v FROM t"))).scalars().all() == ["kept"]
        trips.clear()
    # A transaction still open (the SELECT began one) is rolled back on the thread.
    assert [fn.__name__ for fn in trips] == ["rollback"]
