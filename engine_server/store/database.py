"""Async engines for the store: SQLite (the default, one file) or PostgreSQL.

:func:`create_engine_for` takes any of the usual spellings of a URL and picks
the async driver:

>>> str(async_url("sqlite:///var/stud.sqlite3"))
'sqlite+aiosqlite:///var/stud.sqlite3'
>>> async_url("postgres://postgres@127.0.0.1:5432/test").render_as_string()
'postgresql+asyncpg://postgres@127.0.0.1:5432/test'
>>> async_url("postgresql+psycopg2://u:secret@db/stud").drivername
'postgresql+asyncpg'

SQLite connections are set up on connect: write-ahead logging (readers never
block the writer), foreign keys enforced, and a busy timeout so a second
writer waits instead of failing. SQLAlchemy, not the ``sqlite3`` module,
emits ``BEGIN``, so a transaction covers its reads too; a connection with the
execution option ``sqlite_begin="IMMEDIATE"`` takes the write lock at BEGIN
(see :data:`WRITE_OPTIONS`), which a read-then-write transaction needs under
WAL — upgrading a read snapshot to a write fails at once when another
connection committed in between, without waiting for the busy timeout.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

from sqlalchemy import event, exc
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from engine_server.store.sqlite_reads import read_in_loop
from engine_server.store.sqlite_trips import (
    OneTripConnection,
    one_trip_per_statement,
    read_on_thread,
)
from engine_server.store.sqlite_writes import IN_LOOP_OPTION

__all__ = [
    "DATABASE_URL_ENV",
    "DEFAULT_SQLITE_PATH",
    "LONG_READ",
    "WRITE_OPTIONS",
    "async_url",
    "create_engine_for",
    "database_url",
    "default_database_url",
    "is_outage",
    "is_sqlite",
]

#: The environment variable naming the database (any URL :func:`async_url` accepts).
DATABASE_URL_ENV: Final = "STUD_DATABASE_URL"
#: The default SQLite file, relative to the working directory.
DEFAULT_SQLITE_PATH: Final = Path("var") / "stud.sqlite3"
#: Execution options for a transaction that writes (``BEGIN IMMEDIATE`` on SQLite).
WRITE_OPTIONS: Final[dict[str, Any]] = {"sqlite_begin": "IMMEDIATE"}
#: Execution options of a lone read whose work grows with the data (a count over every open
#: table of a city, say): on SQLite it runs on the driver's thread, not in the event loop
#: (:mod:`engine_server.store.sqlite_reads`). Elsewhere they change nothing.
LONG_READ: Final[dict[str, Any]] = {IN_LOOP_OPTION: False}

_BEGIN_MODES: Final = frozenset({"DEFERRED", "IMMEDIATE", "EXCLUSIVE"})
#: SQLite's words for a connection that cannot write its file (read-only, deleted, unreadable).
_DEAD_CONNECTION_SIGNS: Final = (
    "attempt to write a readonly database",
    "unable to open database file",
    "disk I/O error",
)
#: The execution option of read-only SQLite engines: no ``BEGIN`` on their connections.
_AUTOCOMMIT_OPTION: Final = "stud_sqlite_autocommit"
#: Where a connection's ``begin`` event leaves the BEGIN its dialect sends next (the pooled
#: connection's ``info``).
_BEGIN_KEY: Final = "stud_sqlite_begin"


def async_url(url: str | URL) -> URL:
    """The URL with the async driver of its database (aiosqlite or asyncpg).

    >>> async_url("sqlite+aiosqlite:///x.db").drivername
    'sqlite+aiosqlite'
    >>> async_url("mysql://h/db")
    Traceback (most recent call last):
    ...
    ValueError: unsupported database 'mysql': use sqlite or postgresql
    """
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return parsed.set(drivername="sqlite+aiosqlite")
    if backend in {"postgresql", "postgres"}:
        return parsed.set(drivername="postgresql+asyncpg")
    raise ValueError(f"unsupported database {backend!r}: use sqlite or postgresql")


def is_sqlite(url: str | URL) -> bool:
    """Whether the URL names a SQLite database.

    >>> is_sqlite("sqlite:///x.db"), is_sqlite("postgresql://h/db")
    (True, False)
    """
    return make_url(url).get_backend_name() == "sqlite"


def default_database_url() -> str:
    """The default SQLite file ``./var/stud.sqlite3`` as a URL, creating ``./var``."""
    path = DEFAULT_SQLITE_PATH.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{path}"


def database_url() -> str:
    """``$STUD_DATABASE_URL`` if set, else :func:`default_database_url`."""
    return os.environ.get(DATABASE_URL_ENV) or default_database_url()


def is_outage(error: BaseException) -> bool:
    """Whether ``error`` says the database is away (not that a statement was wrong): it could
    not be reached or dropped the connection (PostgreSQL restarting or shutting down), the
    pool timed out waiting for a connection, or SQLite could not write its file (read-only,
    locked past the busy timeout, disk full). Such a failure passes: the same work may be
    tried again later.

    >>> is_outage(ConnectionRefusedError(111, "Connection refused"))
    True
    >>> is_outage(ValueError("no"))
    False
    """
    if isinstance(error, exc.DBAPIError):
        if error.connection_invalidated or isinstance(
            error, (exc.OperationalError, exc.InterfaceError)
        ):
            return True
        # SQLAlchemy's asyncpg adapter wraps some of asyncpg's connection errors (too many
        # clients, say) as a plain DBAPIError: look at what the driver raised.
        return any(_asyncpg_connection_error(cause) for cause in _causes(error.orig))
    if isinstance(error, (exc.TimeoutError, ConnectionError, TimeoutError)):
        return True
    # asyncpg's own errors while connecting (the server is starting up or shutting down, or
    # the connection died) reach here unwrapped: SQLAlchemy wraps only the driver's DB-API
    # errors.
    if _asyncpg_connection_error(error):
        return True
    return isinstance(error, OSError) and error.errno is not None


_ASYNCPG_UNAVAILABLE: Final = frozenset(
    {"CannotConnectNowError", "AdminShutdownError", "CrashShutdownError", "TooManyConnectionsError"}
)


def _asyncpg_connection_error(error: BaseException) -> bool:
    name = type(error).__name__
    return type(error).__module__.startswith("asyncpg") and (
        "Connection" in name or name in _ASYNCPG_UNAVAILABLE
    )


def _causes(error: BaseException | None) -> list[BaseException]:
    """``error`` and what caused it, in order (a few levels at most)."""
    found: list[BaseException] = []
    while error is not None and len(found) < 5:
        found.append(error)
        error = error.__cause__ or error.__context__
    return found


def create_engine_for(
    url: str | URL,
    *,
    foreign_keys: bool = True,
    busy_timeout_ms: int = 10_000,
    null_pool: bool = False,
    pool_size: int | None = None,
    max_overflow: int | None = None,
    read_only: bool = False,
    echo: bool = False,
) -> AsyncEngine:
    """An :class:`AsyncEngine` for ``url``, set up for its database.

    ``foreign_keys=False`` is for migrations only (SQLite's batch mode copies
    tables, which enforced foreign keys would refuse or cascade).
    ``null_pool`` opens a connection per use (short-lived engines, migrations);
    ``pool_size`` and ``max_overflow`` size the pool otherwise (SQLAlchemy's
    defaults, 5 and 10, when not given).

    ``read_only`` (SQLite only) is for lone ``SELECT`` statements: its
    connections refuse writes (``PRAGMA query_only``) and run each statement in
    SQLite's autocommit mode (one statement is atomic on its own), so a read
    costs no ``BEGIN`` and no ``ROLLBACK``, and runs in the event loop
    (:mod:`engine_server.store.sqlite_reads`).
    """
    target = async_url(url)
    sqlite = target.get_backend_name() == "sqlite"
    if read_only and not sqlite:
        raise ValueError("read_only engines are for SQLite; PostgreSQL reads use AUTOCOMMIT")
    kwargs: dict[str, Any] = {"echo": echo}
    if null_pool:
        kwargs["poolclass"] = NullPool
    elif not (sqlite and target.database in {None, "", ":memory:"}):  # that one: StaticPool
        if pool_size is not None:
            kwargs["pool_size"] = pool_size
        if max_overflow is not None:
            kwargs["max_overflow"] = max_overflow
    if read_only:
        # No transaction is ever open on these connections: nothing to roll back.
        kwargs.update(
            skip_autocommit_rollback=True,
            pool_reset_on_return=None,
            execution_options={_AUTOCOMMIT_OPTION: True},
        )
    engine = create_async_engine(target, **kwargs)
    if sqlite:
        _set_up_sqlite(
            engine, foreign_keys=foreign_keys, busy_timeout_ms=busy_timeout_ms, read_only=read_only
        )
    return engine


def _set_up_sqlite(
    engine: AsyncEngine, *, foreign_keys: bool, busy_timeout_ms: int, read_only: bool = False
) -> None:
    sync_engine = engine.sync_engine
    memory = sync_engine.url.database in {None, "", ":memory:"}
    wal_path = None if memory else os.path.abspath(str(sync_engine.url.database))

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Each statement one trip to aiosqlite's thread, not four, and write transactions in
        # the loop (issue 16; a read-only engine writes nothing).
        one_trip_per_statement(
            dbapi_connection,
            busy_timeout_ms=None if read_only else int(busy_timeout_ms),
            wal_path=wal_path,
        )
        # SQLAlchemy emits BEGIN itself (below): the sqlite3 module's own transaction handling
        # skips BEGIN before SELECT and DDL.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            # First: what follows may wait for another process (a new file turned to WAL
            # while another engine migrates it), for as long as any write would.
            cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            if not memory:
                cursor.execute("PRAGMA journal_mode=WAL")
                # WAL makes NORMAL durable against application crashes; only a power loss may
                # drop the last commits.
                cursor.execute("PRAGMA synchronous=NORMAL")
                if not read_only:
                    # Its commits run in the loop: the log is checked into the file in a
                    # thread (engine_server.store.sqlite_writes.WalCheckpoints).
                    cursor.execute("PRAGMA wal_autocheckpoint=0")
            cursor.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
            if read_only:
                cursor.execute("PRAGMA query_only=ON")
                # Its reads run in the loop from here on, where nothing may wait for a lock
                # (engine_server.store.sqlite_reads).
                cursor.execute("PRAGMA busy_timeout=0")
        finally:
            cursor.close()
        if read_only:
            read_in_loop(dbapi_connection._connection, int(busy_timeout_ms))

    if read_only:

        @event.listens_for(sync_engine, "before_cursor_execute")
        def _on_execute(
            _connection: Any, cursor: Any, _statement: Any, _parameters: Any, context: Any, *_: Any
        ) -> None:
            # A statement marked LONG_READ: on the driver's thread (engine_server.store.sqlite_reads).
            if context is not None and context.execution_options.get(IN_LOOP_OPTION) is False:
                read_on_thread(cursor)

    @event.listens_for(sync_engine, "handle_error")
    def _on_error(context: Any) -> None:
        # A connection that opened the file while it (or its directory) was read-only, or
        # whose file went away, stays unable to write for good: drop it as if the connection
        # were lost, so the pool opens a fresh one once the file is writable again.
        message = str(context.original_exception)
        if any(sign in message for sign in _DEAD_CONNECTION_SIGNS) and not read_only:
            context.is_disconnect = True

    @event.listens_for(sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        options = connection.get_execution_options()
        if options.get(_AUTOCOMMIT_OPTION):
            return
        mode = str(options.get("sqlite_begin", "DEFERRED")).upper()
        if mode not in _BEGIN_MODES:
            raise ValueError(f"sqlite_begin must be one of {sorted(_BEGIN_MODES)}, not {mode!r}")
        proxied = connection.connection
        if mode == "IMMEDIATE" and options.get(IN_LOOP_OPTION, True):
            dbapi_connection = proxied.dbapi_connection
            if isinstance(dbapi_connection, OneTripConnection):
                # This BEGIN and what follows up to COMMIT run in the loop
                # (engine_server.store.sqlite_writes).
                dbapi_connection.begin_in_loop()
        proxied.info[_BEGIN_KEY] = f"BEGIN {mode}"

    def _do_begin(proxied: Any) -> None:
        # The BEGIN the event chose, sent here: SQLAlchemy turns what this raises into its own
        # errors, as any statement's (an outage is told by them), and a statement through the
        # connection's machinery cost a write transaction a third of its time (issue 16).
        statement = proxied.info.pop(_BEGIN_KEY, None)
        if statement is not None:
            cursor = proxied.cursor()
            try:
                cursor.execute(statement)
            finally:
                cursor.close()

    # This engine's dialect alone (each engine has its own): the BEGIN is SQLite's here.
    sync_engine.dialect.do_begin = _do_begin  # type: ignore[method-assign,assignment]
