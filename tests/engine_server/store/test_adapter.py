"""StoreTables over SQLite: the engine's writes reach the database one at a time."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from engine_server.game.profiles import Stakes
from engine_server.store.adapter import StoreTables, open_store
from engine_server.table.errors import ErrorKind, TableError
from engine_server.table.manager import TableSpec, build_config
from engine_server.table.model import TableStatus
from tests.outage import read_only_sqlite


async def _most_at_once(tables: StoreTables, writes: int) -> int:
    """Run ``writes`` status changes at once; how many were inside the repository together."""
    inside = most = 0
    write = tables.store.tables.set_table_status

    async def counted(*args: Any) -> None:
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        try:
            await asyncio.sleep(0.005)  # the transaction's awaits, where the loop runs others
            await write(*args)
        finally:
            inside -= 1

    tables.store.tables.set_table_status = counted  # type: ignore[method-assign,assignment]
    try:
        statuses = [TableStatus.PAUSED, TableStatus.WAITING] * (writes // 2)
        await asyncio.gather(*(tables.set_table_status("t1", s) for s in statuses))
    finally:
        del tables.store.tables.set_table_status
    return most


async def test_sqlite_writes_queue_in_the_engine_instead_of_on_sqlites_lock(
    tmp_path: Path,
) -> None:
    # Concurrent writers used to wait on SQLite's lock, polling it with growing sleeps; under
    # load that wait passed the busy timeout and hands failed with "database is locked".
    tables, _, close = await open_store(f"sqlite:///{tmp_path}/engine.sqlite3")
    try:
        config = build_config(
            table_id="t1",
            profile="house",
            overrides={},
            stakes=Stakes(1, 1, 2, 4),
            private=False,
            min_buy_in=10,
            max_buy_in=1000,
            opener_player_id=None,
            labels={},
        )
        await tables.create_table(TableSpec("create-t1", config, "seed"))
        assert await _most_at_once(tables, 20) == 1
        # The same repository without the queue lets them in together (what SQLite saw).
        assert await _most_at_once(StoreTables(tables.store), 20) > 1
    finally:
        await close()


async def test_a_database_that_cannot_be_written_refuses_as_unavailable_until_it_can(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "db"
    directory.mkdir()
    database = directory / "engine.sqlite3"
    tables, _, close = await open_store(f"sqlite:///{database}")
    try:
        config = build_config(
            table_id="t1",
            profile="house",
            overrides={},
            stakes=Stakes(1, 1, 2, 4),
            private=False,
            min_buy_in=10,
            max_buy_in=1000,
            opener_player_id=None,
            labels={},
        )
        await tables.create_table(TableSpec("create-t1", config, "seed"))
        with read_only_sqlite(database):
            with pytest.raises(TableError) as refused:
                await tables.seat_player("t1", "ss-1", "p1", "P1", 1, 100)
            assert refused.value.kind is ErrorKind.UNAVAILABLE
            assert refused.value.reason == "DATABASE_UNAVAILABLE"
            assert refused.value.database_outage
        # The pool does not keep a connection that could not write: the same call now works.
        seated = await tables.seat_player("t1", "ss-1", "p1", "P1", 1, 100)
        assert seated.stack == 100 and seated.seat == 1
    finally:
        await close()
