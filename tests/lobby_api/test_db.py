"""The lobby's database access: lone reads in one statement, no transaction around them;
SQLite's writers queued in the process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from engine_server.store.database import create_engine_for
from lobby_api import db as lobby_db
from lobby_api.app import create_app
from lobby_api.db import Database
from lobby_api.settings import LobbySettings
from lobby_api.wallet.models import LedgerAccountRow


@pytest.fixture
async def sqlite_db(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[Database]:
    target = tmp_path / "lobby.sqlite3"
    target.write_bytes(sqlite_template.read_bytes())
    db = Database.from_url(f"sqlite:///{target}")
    try:
        yield db
    finally:
        await db.dispose()


def _record_sql(db: Database) -> list[str]:
    """Every statement sent to SQLite by any of ``db``'s engines, in order."""
    sent: list[str] = []
    engines = {db.engine.sync_engine, db._lone_reads.sync_engine}

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(statement.split()[0].upper())

    for engine in engines:
        event.listen(engine, "before_cursor_execute", record)
    return sent


async def _open_account(db: Database, account_id: str, balance: int) -> None:
    async with db.write() as session:
        session.add(
            LedgerAccountRow(
                id=account_id, kind="wallet", balance=balance, created_at=datetime.now(UTC)
            )
        )


async def test_a_lone_read_on_a_sqlite_file_sends_only_its_select(sqlite_db: Database) -> None:
    await _open_account(sqlite_db, "wallet:reader", 70)
    sent = _record_sql(sqlite_db)
    statement = sa.select(LedgerAccountRow.balance).where(
        LedgerAccountRow.id == sa.bindparam("account")
    )

    rows = await sqlite_db.fetch(statement, {"account": "wallet:reader"})

    assert [row.balance for row in rows] == [70]
    assert sent == ["SELECT"]  # no BEGIN before it, no ROLLBACK after it


async def test_a_lone_read_sees_what_was_committed_just_before(sqlite_db: Database) -> None:
    statement = sa.select(LedgerAccountRow.balance).where(LedgerAccountRow.id == "wallet:fresh")
    assert await sqlite_db.fetch(statement) == []

    await _open_account(sqlite_db, "wallet:fresh", 5)
    assert [row.balance for row in await sqlite_db.fetch(statement)] == [5]

    async with sqlite_db.write() as session:
        account = await session.get(LedgerAccountRow, "wallet:fresh")
        assert account is not None
        account.balance = 9
    assert [row.balance for row in await sqlite_db.fetch(statement)] == [9]


async def test_the_read_only_connections_refuse_a_write(sqlite_db: Database) -> None:
    await _open_account(sqlite_db, "wallet:guarded", 1)
    update = (
        sa.update(LedgerAccountRow)
        .where(LedgerAccountRow.id == "wallet:guarded")
        .values(balance=1_000_000)
        .returning(LedgerAccountRow.balance)
    )

    with pytest.raises(OperationalError, match="readonly"):
        await sqlite_db.fetch(update)

    async with sqlite_db.read() as session:
        account = await session.get(LedgerAccountRow, "wallet:guarded")
        assert account is not None and account.balance == 1


async def test_in_memory_sqlite_reads_through_its_one_engine() -> None:
    db = Database.from_url("sqlite://")
    try:
        async with db.engine.begin() as connection:
            await connection.execute(sa.text("CREATE TABLE t (n INTEGER)"))
            await connection.execute(sa.text("INSERT INTO t VALUES (3)"))
        assert [row.n for row in await db.fetch(sa.text("SELECT n FROM t"))] == [3]
    finally:
        await db.dispose()


def test_the_pool_keeps_the_connections_it_was_asked_for(tmp_path: Path) -> None:
    db = Database.from_url(f"sqlite:///{tmp_path / 'pool.sqlite3'}", pool_size=12, max_overflow=3)
    assert db.engine.pool.size() == 12  # type: ignore[attr-defined]
    assert db._lone_reads.pool.size() == 12  # type: ignore[attr-defined]


def test_a_read_only_engine_is_for_sqlite_only() -> None:
    with pytest.raises(ValueError, match="read_only engines are for SQLite"):
        create_engine_for("postgresql://postgres@127.0.0.1:5432/test", read_only=True)


async def test_the_app_sizes_its_pool_from_the_settings(settings: LobbySettings) -> None:
    app = create_app(replace(settings, db_pool_size=3))
    db: Database = app.state.db
    try:
        assert db.engine.pool.size() == 3  # type: ignore[attr-defined]
    finally:
        await db.dispose()


async def test_sqlite_writers_take_turns_in_the_order_they_came(sqlite_db: Database) -> None:
    await _open_account(sqlite_db, "wallet:counter", 0)
    inside = 0
    most_inside = 0
    order: list[int] = []

    async def add_one(n: int) -> None:
        nonlocal inside, most_inside
        async with sqlite_db.write() as session:
            inside += 1
            most_inside = max(most_inside, inside)
            order.append(n)
            account = await session.get(LedgerAccountRow, "wallet:counter")
            assert account is not None
            await asyncio.sleep(0.001)  # others come meanwhile: they wait for their turn
            account.balance += 1
            session.add(account)
            inside -= 1

    loop = asyncio.get_running_loop()
    started = loop.time()
    await asyncio.gather(*(add_one(n) for n in range(30)))

    assert order == list(range(30))
    assert most_inside == 1
    # Queued in the process, not left to SQLite's busy handler (sleeps of up to 100 ms).
    assert loop.time() - started < 5
    statement = sa.select(LedgerAccountRow.balance).where(LedgerAccountRow.id == "wallet:counter")
    assert [row.balance for row in await sqlite_db.fetch(statement)] == [30]


async def test_a_write_inside_a_write_is_refused_at_once_on_sqlite(sqlite_db: Database) -> None:
    async with sqlite_db.write():
        with pytest.raises(RuntimeError, match="inside a write transaction"):
            async with sqlite_db.write():
                pass
    # The queue is free again.
    await _open_account(sqlite_db, "wallet:after", 1)
    statement = sa.select(LedgerAccountRow.balance).where(LedgerAccountRow.id == "wallet:after")
    assert [row.balance for row in await sqlite_db.fetch(statement)] == [1]


async def test_postgres_pings_only_connections_that_sat_idle_and_replaces_dead_ones(
    shared_postgres: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = Database.from_url(shared_postgres, pool_size=1, max_overflow=0)
    dialect = db.engine.sync_engine.dialect
    pings: list[Any] = []
    ping = dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(dbapi_connection)
        return bool(ping(dbapi_connection))

    monkeypatch.setattr(dialect, "do_ping", counted)
    backend_pid = sa.text("SELECT pg_backend_pid()")
    try:
        # In steady use (returned a moment ago): handed out without a round trip.
        monkeypatch.setattr(lobby_db, "PING_AFTER_IDLE_SECONDS", 60.0)
        first = (await db.fetch(backend_pid))[0][0]
        async with db.write() as session:
            await session.exec(sa.text("SELECT 1"))  # type: ignore[call-overload]
        assert (await db.fetch(backend_pid))[0][0] == first
        assert pings == []

        # The server drops the connection while it sits in the pool (as at a restart): once
        # it has sat idle, it is pinged, found dead and replaced, and the read succeeds.
        admin = Database.from_url(shared_postgres, pool_size=1, max_overflow=0)
        try:
            await admin.fetch(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
        finally:
            await admin.dispose()
        monkeypatch.setattr(lobby_db, "PING_AFTER_IDLE_SECONDS", 0.0)
        again = (await db.fetch(backend_pid))[0][0]
        assert again != first
        assert pings
    finally:
        await db.dispose()
