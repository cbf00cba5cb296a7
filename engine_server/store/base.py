"""What every aggregate store shares: transactions, the epoch fence and the table-first locks.

:class:`Transactions` is the one object the stores of :mod:`engine_server.store` share (see
:class:`~engine_server.store.repository.EngineStore`): the engine, the clock the stores write
their timestamps with, and the node's :class:`~engine_server.store.nodes.WriteFence`, checked at
the start of every write transaction of every store.

Locks. A write that depends on what it reads locks the table's row first
(:func:`table_row` with ``lock=True``; ``SELECT … FOR UPDATE`` on PostgreSQL, while on SQLite
``BEGIN IMMEDIATE`` has taken the database's write lock), then the table's hands, sessions and
seed pairs, each with :func:`for_update`. Two writes on one table never interleave.

>>> query = for_update(select(TableRow.status).where(TableRow.id == "t-1"))
>>> " ".join(str(query).split())
'SELECT tables.status FROM tables WHERE tables.id = :id_1 FOR UPDATE'
>>> query.get_execution_options()["populate_existing"]
True
>>> check_id("table_id", "")
Traceback (most recent call last):
...
engine_server.store.errors.StoreError: table_id must be 1-64 characters, not ''
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, async_sessionmaker
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import SelectOfScalar

from engine_server.store.database import WRITE_OPTIONS
from engine_server.store.errors import StoreError, TableNotFound
from engine_server.store.models import ID_LENGTH, HandRow, HandState, TableRow
from engine_server.store.nodes import WriteFence
from engine_server.store.sqlite_writes import IN_LOOP_OPTION
from engine_server.store.types import utc_now

__all__ = ["Transactions", "check_id", "for_update", "running_hand", "table_row"]

Q = TypeVar("Q", bound="SelectOfScalar[Any]")

#: where a fenced write transaction keeps its fence (``session.info``)
FENCE = "stud.fence"


class Transactions:
    """Read and write transactions on ``engine``, the write ones fenced.

    Every store call is one transaction: it happens entirely or not at all, and a refusal
    (:mod:`engine_server.store.errors`) writes nothing. Rows read are detached from their
    session when it ends (``expire_on_commit=False``): snapshots as of the commit.
    ``clock`` gives the timestamps the stores write (aware UTC; replaceable in tests).
    """

    def __init__(self, engine: AsyncEngine, *, clock: Callable[[], datetime] = utc_now) -> None:
        self.engine = engine
        self.clock = clock
        #: checked at the start of every write (engine nodes: :class:`WriteFence`)
        self.fence: WriteFence | None = None
        self._reader = async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)
        self._write_engine = engine.execution_options(**WRITE_OPTIONS)
        self._long_write_engine = engine.execution_options(
            **WRITE_OPTIONS, **{IN_LOOP_OPTION: False}
        )
        self._writer = async_sessionmaker(
            self._write_engine,
            class_=AsyncSession,
            expire_on_commit=False,
        )

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite), once the fence lets it."""
        async with self._writer() as session, session.begin():
            if self.fence is not None:
                await self.fence.check(session)
                # For the per-table check under each table's row lock (table_row).
                session.info[FENCE] = self.fence
            yield session

    @asynccontextmanager
    async def write_connection(self, *, long: bool = False) -> AsyncIterator[AsyncConnection]:
        """A write transaction on a bare connection, fenced as :meth:`write`: for statements
        on the hot path that need no ORM session (its cost is the session's, per call).
        ``long``: its statements may take long (on SQLite they run on the driver's thread,
        not in the loop: :mod:`engine_server.store.sqlite_writes`)."""
        engine = self._long_write_engine if long else self._write_engine
        async with engine.begin() as connection:
            if self.fence is not None:
                await self.fence.check_connection(connection)
            yield connection

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A read-only transaction."""
        async with self._reader() as session, session.begin():
            yield session


def for_update(query: Q) -> Q:
    """``query`` locking the rows it selects, and refreshing them if the session holds them
    already (what was read before the lock may be stale)."""
    return query.with_for_update().execution_options(populate_existing=True)


async def table_row(session: AsyncSession, table_id: str, *, lock: bool = False) -> TableRow:
    """The table's row (``TableNotFound`` when there is none); ``lock``: locked, the first
    lock a write takes, and in a fenced write checked to be still this process's
    (``TableMoved`` when it changed hands since it was loaded here)."""
    query = select(TableRow).where(TableRow.id == table_id)
    if lock:
        query = for_update(query)
    table = (await session.exec(query)).first()
    if table is None:
        raise TableNotFound(f"no table {table_id}")
    fence: WriteFence | None = session.info.get(FENCE) if lock else None
    if fence is not None:
        fence.check_table(table.id, table.node_id, table.owner_epoch)
    return table


async def running_hand(session: AsyncSession, table_id: str) -> HandRow | None:
    """The table's running hand, if any (what a between-hands write checks first)."""
    query = select(HandRow).where(
        HandRow.table_id == table_id, HandRow.state == HandState.RUNNING.value
    )
    return (await session.exec(query)).first()


def check_id(kind: str, value: str) -> str:
    """``value`` if it is an id the store takes (1-64 characters), else ``StoreError``."""
    if not isinstance(value, str) or not 1 <= len(value) <= ID_LENGTH:
        raise StoreError(f"{kind} must be 1-{ID_LENGTH} characters, not {value!r}")
    return value
