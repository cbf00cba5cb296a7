"""The lobby's database access: one async engine, sessions to read and sessions to write.

The lobby shares the engine's database (one SQLite file or one PostgreSQL
database) and its engine set-up (:func:`engine_server.store.database.create_engine_for`:
WAL, foreign keys and a busy timeout on SQLite). A writing transaction begins
with ``BEGIN IMMEDIATE`` on SQLite (:data:`~engine_server.store.database.WRITE_OPTIONS`),
so a read-then-write transaction never fails on a snapshot another writer moved
past. SQLite takes one writer at a time; the lobby's own writers queue for it in
the process, first come first served (:class:`WriteQueue`), as the engine's do:
left to SQLite's busy handler, each waiting connection polls the lock with sleeps
that grow to 100 ms, so under load a write waited seconds while the lock was free
most of the time (issue 16: quick game p99 1.1-2.9 s). A write transaction's
statements run in the event loop, from BEGIN to COMMIT, so it holds the file's
lock only as long as they take; the other process's writer (the engine's) is
waited for in the loop too (:mod:`engine_server.store.sqlite_writes`). On
PostgreSQL, writes that depend on what they read lock the rows they read
(``SELECT … FOR UPDATE``).

Handlers get two dependencies: ``db`` (the :class:`Database`, to open their own
transactions) and ``db_session`` (a reading :class:`AsyncSession` for the
request, closed after it).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import sqlalchemy as sa
from litestar.datastructures import State
from sqlalchemy import Row
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.sql import Executable
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.store.database import (
    LONG_READ,
    WRITE_OPTIONS,
    async_url,
    create_engine_for,
    is_sqlite,
)

__all__ = [
    "LONG_READ",
    "PING_AFTER_IDLE_SECONDS",
    "Database",
    "WriteQueue",
    "insert_ignore",
    "ping_when_idle",
    "provide_db",
    "provide_db_session",
]


class WriteQueue:
    """One writer at a time, in the order they came (an :class:`asyncio.Lock` per event
    loop: a database object may outlive the loop it was first used on, as in tests).

    Not reentrant: a write transaction never opens another (on SQLite the inner one would
    wait for the outer's lock forever), which :meth:`hold` refuses at once.
    """

    def __init__(self) -> None:
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self._holder: asyncio.Task[Any] | None = None

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        lock = self._locks.get(loop)
        if lock is None:
            lock = self._locks[loop] = asyncio.Lock()
        task = asyncio.current_task()
        if lock.locked() and task is not None and self._holder is task:
            raise RuntimeError("a write transaction inside a write transaction of the same task")
        async with lock:
            self._holder = task
            try:
                yield
            finally:
                self._holder = None


class Database:
    """The engine and its two session makers (``read`` and ``write``)."""

    def __init__(self, engine: AsyncEngine, *, reads: AsyncEngine | None = None) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self._reader = async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)
        self._write_engine = engine.execution_options(**WRITE_OPTIONS)
        self._writer = async_sessionmaker(
            self._write_engine, class_=AsyncSession, expire_on_commit=False
        )
        self._autocommit = (
            engine.execution_options(isolation_level="AUTOCOMMIT")
            if self.dialect == "postgresql"
            else engine
        )
        # Lone SELECTs: PostgreSQL's AUTOCOMMIT connections; on SQLite a read-only engine
        # of its own (no BEGIN/ROLLBACK), else read transactions on the main engine.
        self._reads = reads
        self._lone_reads = reads or self._autocommit
        #: SQLite's writers queue here (see the module's docstring); PostgreSQL's run at once.
        self._queue = WriteQueue() if self.dialect == "sqlite" else None

    def _queued(self) -> contextlib.AbstractAsyncContextManager[None]:
        """A turn to write (on SQLite; at once on PostgreSQL)."""
        return self._queue.hold() if self._queue is not None else contextlib.nullcontext()

    @classmethod
    def from_url(cls, url: str, *, pool_size: int = 20, max_overflow: int = 20) -> Database:
        """The database at ``url``, with a pool of ``pool_size`` connections (+ ``max_overflow``
        in bursts; a connection beyond the pool is closed when returned, and opening one costs
        more than a read)."""
        if is_sqlite(url):
            main = create_engine_for(url, pool_size=pool_size, max_overflow=max_overflow)
            if make_url(url).database in {None, "", ":memory:"}:
                return cls(main)  # a second engine would open a second, empty database
            reads = create_engine_for(
                url, read_only=True, pool_size=pool_size, max_overflow=max_overflow
            )
            return cls(main, reads=reads)
        # PostgreSQL: enough connections for bursts of concurrent money requests; a
        # connection that sat in the pool is checked as it leaves (ping_when_idle).
        engine = create_async_engine(async_url(url), pool_size=pool_size, max_overflow=max_overflow)
        ping_when_idle(engine)
        return cls(engine)

    async def fetch(
        self, statement: Executable, parameters: Mapping[str, Any] | None = None
    ) -> list[Row[Any]]:
        """The rows of one read-only statement, in as few round trips as the database allows.

        One statement is atomic by itself: on PostgreSQL it runs in autocommit mode (no BEGIN
        and COMMIT round trips), on a SQLite file through the read-only engine (no BEGIN and
        ROLLBACK), in the event loop unless the statement carries :data:`LONG_READ`
        (:mod:`engine_server.store.sqlite_reads`); in-memory SQLite uses a read transaction.
        """
        async with self._lone_reads.connect() as connection:
            rows = list((await connection.execute(statement, parameters)).all())
            if self._reads is None and not self.is_postgres:
                await connection.rollback()
            return rows

    async def write_statement(self, statement: Executable) -> list[Row[Any]]:
        """The rows one writing statement returns (``RETURNING``), in its own transaction.

        On PostgreSQL the statement runs in autocommit mode (atomic by itself); on SQLite in
        a ``BEGIN IMMEDIATE`` transaction, committed at once.
        """
        if self.is_postgres:
            async with self._autocommit.connect() as connection:
                return list((await connection.execute(statement)).all())
        async with self._queued(), self._write_engine.begin() as connection:
            return list((await connection.execute(statement)).all())

    async def execute_write(
        self, statement: Executable, parameters: Mapping[str, Any] | None = None
    ) -> int:
        """Run one writing statement that returns no rows, as :meth:`write_statement` does;
        the number of rows it touched."""
        engine = self._autocommit if self.is_postgres else self._write_engine
        async with self._queued(), engine.begin() as connection:
            result: Any = await connection.execute(statement, parameters)
            return int(result.rowcount)

    @property
    def is_postgres(self) -> bool:
        return self.dialect == "postgresql"

    def session(self) -> AsyncSession:
        """A reading session (the caller closes it)."""
        return self._reader()

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A read transaction."""
        async with self._reader() as session, session.begin():
            yield session

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """A write transaction: committed when the block ends, rolled back on an exception
        (on SQLite it waits for its turn first: :class:`WriteQueue`)."""
        async with self._queued(), self._writer() as session, session.begin():
            yield session

    @asynccontextmanager
    async def write_connection(self) -> AsyncIterator[AsyncConnection]:
        """A write transaction on a bare connection, as :meth:`write` (queued on SQLite),
        for a few Core statements on a hot path: no ORM session around them, whose own cost
        per statement is larger than the statement's (issue 16: log-in)."""
        async with self._queued(), self._write_engine.begin() as connection:
            yield connection

    async def dispose(self) -> None:
        if self._reads is not None:
            await self._reads.dispose()
        await self.engine.dispose()


#: A pooled connection unused for this long is pinged before it is handed out.
PING_AFTER_IDLE_SECONDS = 1.0


def ping_when_idle(engine: AsyncEngine) -> None:
    """Check a connection that sat idle in ``engine``'s pool (a round trip) before handing
    it out, and replace it if it is dead: after a restart of the server the pool holds dead
    connections, and a request must get a fresh one, not a failure.

    Not every checkout, as SQLAlchemy's ``pool_pre_ping`` does: that round trip came before
    every transaction and every lone read, a tenth of the lobby's CPU per quick game under
    load (issue 16), while connections in steady use are known alive. One in use when the
    server goes away fails its statement, and SQLAlchemy then invalidates the whole pool.
    """
    pool = engine.sync_engine.pool
    dialect = engine.sync_engine.dialect

    @sa.event.listens_for(pool, "connect")
    def connected(dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @sa.event.listens_for(pool, "checkin")
    def returned(dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @sa.event.listens_for(pool, "checkout")
    def leaving(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        idle_since = record.info.get("idle_since")
        if idle_since is not None and time.monotonic() - idle_since < PING_AFTER_IDLE_SECONDS:
            return
        try:
            alive = dialect.do_ping(dbapi_connection)
        except Exception as error:
            raise sa.exc.DisconnectionError(f"a pooled connection is dead: {error}") from error
        if not alive:
            raise sa.exc.DisconnectionError("a pooled connection is dead")


def insert_ignore(session: AsyncSession, table: sa.Table) -> sa.Insert:
    """``INSERT … ON CONFLICT DO NOTHING`` for the session's database."""
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    if dialect == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing()
    return sqlite.insert(table).on_conflict_do_nothing()


def provide_db(state: State) -> Database:
    return state.db  # type: ignore[no-any-return]


async def provide_db_session(state: State) -> AsyncIterator[AsyncSession]:
    session: AsyncSession = state.db.session()
    try:
        yield session
    finally:
        await session.close()
