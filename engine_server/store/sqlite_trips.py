"""SQLite statements in one trip to aiosqlite's thread each.

aiosqlite runs every call on a sqlite3 connection in a thread of its own, one queued call at
a time, each a round trip from the event loop (a future, the thread woken, the loop woken
back). SQLAlchemy's adapter makes four of them per statement: open a cursor, execute, fetch
the rows, close the cursor. Measured on this project's machine: 117 µs of CPU per one-row
SELECT through the async engine against 16 µs through SQLAlchemy's sync engine (issue 16:
the lobby and the engine send a few dozen statements per quick game). :class:`OneTripCursor`
does the four steps in one call on the thread; :func:`one_trip_per_statement` gives a newly
made connection that cursor (server-side cursors, which fetch as they go, are left as they
are). A write transaction makes no trips at all: its statements run in the loop
(:mod:`engine_server.store.sqlite_writes`), and so do a read-only engine's lone reads
(:mod:`engine_server.store.sqlite_reads`).
"""

from __future__ import annotations

import collections
import sqlite3
from typing import Any

from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
)
from sqlalchemy.util import EMPTY_DICT
from sqlalchemy.util.concurrency import await_

from engine_server.store.sqlite_reads import loop_reads
from engine_server.store.sqlite_writes import loop_writes, run_in_loop, write_in_loop

__all__ = ["OneTripConnection", "OneTripCursor", "one_trip_per_statement", "read_on_thread"]

#: What one trip answers: the description, the rows, the row count and the last row id.
_Outcome = tuple[Any, list[Any], int, int | None]
#: What BEGIN answers.
_BEGUN: _Outcome = (None, [], -1, None)


def _execute(connection: sqlite3.Connection, operation: str, parameters: Any) -> _Outcome:
    """On aiosqlite's thread: the statement run, its rows fetched, its cursor closed."""
    cursor = connection.cursor()
    try:
        if parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return description, rows, cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


def _executemany(connection: sqlite3.Connection, operation: str, parameters: Any) -> _Outcome:
    cursor = connection.cursor()
    try:
        cursor.executemany(operation, parameters)
        return cursor.description, [], cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


class OneTripCursor(AsyncAdapt_aiosqlite_cursor):
    """SQLAlchemy's aiosqlite cursor, each statement one call on aiosqlite's thread: no
    cursor lives between the calls (what a statement answers is kept here)."""

    __slots__ = ("_description", "_lastrowid", "_on_thread", "_rowcount")

    def __init__(self, adapt_connection: AsyncAdapt_aiosqlite_connection) -> None:
        # The base class opens an aiosqlite cursor here (a trip of its own): none is needed.
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._cursor = None  # type: ignore[assignment]
        self._soft_closed_memoized = EMPTY_DICT
        self._rows = collections.deque()
        self._description: Any = None
        self._rowcount = -1
        self._lastrowid: int | None = None
        #: A lone read that asked to run on the driver's thread (:func:`read_on_thread`).
        self._on_thread = False

    @property
    def description(self) -> Any:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> int:
        return self._lastrowid  # type: ignore[return-value]

    @property
    def arraysize(self) -> int:
        return 1

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        """Rows are all fetched at once: nothing to size."""

    async def _async_soft_close(self) -> None:
        """Nothing stays open on the thread."""

    def close(self) -> None:
        self._rows.clear()

    def _keep(self, outcome: _Outcome) -> None:
        self._description, rows, self._rowcount, self._lastrowid = outcome
        self._rows = collections.deque(rows)

    async def _execute_async(self, operation: Any, parameters: Any) -> Any:
        async with self._adapt_connection._execute_mutex:
            self._keep(await self._trip(_execute, operation, parameters))

    async def _executemany_async(self, operation: Any, seq_of_parameters: Any) -> Any:
        async with self._adapt_connection._execute_mutex:
            self._keep(await self._trip(_executemany, operation, seq_of_parameters))

    async def _trip(self, step: Any, operation: Any, parameters: Any) -> _Outcome:
        aio = self._connection
        writes = loop_writes(aio)
        if writes is not None:
            # A write transaction's statements: in the loop (engine_server.store.sqlite_writes).
            if writes.writing:
                return await writes.run(aio, step, operation, parameters)
            if writes.beginning:
                writes.beginning = False
                if operation == "BEGIN IMMEDIATE":
                    await writes.begin(aio._conn)
                    return _BEGUN
        reads = loop_reads(aio)
        if reads is not None and not self._on_thread:
            # A lone read of a read-only engine: in the loop (engine_server.store.sqlite_reads).
            return await run_in_loop(aio, reads.busy_timeout_ms, step, operation, parameters)
        # aiosqlite's own queue (as SQLAlchemy's isolation-level setter uses it).
        outcome: _Outcome = await aio._execute(step, aio._conn, operation, parameters)
        return outcome


class OneTripConnection(AsyncAdapt_aiosqlite_connection):
    """SQLAlchemy's aiosqlite connection with :class:`OneTripCursor`."""

    __slots__ = ()
    _cursor_cls = OneTripCursor  # type: ignore[assignment]

    def begin_in_loop(self) -> None:
        """Run the ``BEGIN IMMEDIATE`` that comes next, and the transaction's statements up to
        its end, in the loop (:mod:`engine_server.store.sqlite_writes`), if this connection
        writes there."""
        writes = loop_writes(self._connection)
        if writes is not None:
            writes.beginning = True

    def commit(self) -> None:
        if not self._end_in_loop(commit=True):
            super().commit()

    def rollback(self) -> None:
        if self._end_in_loop(commit=False):
            return
        connection = self._connection._connection
        if connection is not None and not connection.in_transaction:
            # Nothing to roll back: the sqlite3 module would do nothing either. The pool
            # rolls back every connection handed back to it, most of them after a COMMIT or
            # a lone read: each a trip to the thread for nothing (issue 16).
            return
        super().rollback()

    def _end_in_loop(self, *, commit: bool) -> bool:
        """End the write transaction under way in the loop (False: none is)."""
        writes = loop_writes(self._connection)
        if writes is None or not writes.writing:
            return False
        try:
            await_(writes.end(self._connection, commit=commit))
        except Exception as error:
            self._handle_exception(error)
        return True


def read_on_thread(cursor: Any) -> None:
    """Send the statement ``cursor`` is about to run to the driver's thread, though its
    connection reads in the loop (a statement whose work grows with the data)."""
    if isinstance(cursor, OneTripCursor):
        cursor._on_thread = True


def one_trip_per_statement(
    dbapi_connection: Any, *, busy_timeout_ms: int | None = None, wal_path: str | None = None
) -> None:
    """Give a connection SQLAlchemy has just made (its ``connect`` event) the one-trip
    cursor. The adapter class is fixed by SQLAlchemy's dialect; the subclass adds no state.

    ``busy_timeout_ms`` (the connection's): its write transactions run in the loop
    (:func:`~engine_server.store.sqlite_writes.write_in_loop`; ``wal_path``: the file)."""
    if type(dbapi_connection) is AsyncAdapt_aiosqlite_connection:
        dbapi_connection.__class__ = OneTripConnection
        if busy_timeout_ms is not None:
            write_in_loop(dbapi_connection._connection, busy_timeout_ms, wal_path)
