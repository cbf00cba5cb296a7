"""SQLite write transactions run in the event loop, from ``BEGIN IMMEDIATE`` to ``COMMIT``.

SQLite takes one writer at a time for the whole file, and the lobby and the engine share
the file. Through aiosqlite every statement of a transaction was a trip to the driver's
thread and back, each waiting for a turn of an event loop busy with other requests: a quick
game's money transaction of a dozen statements held the file's lock for 2-10 ms while its
statements took a tenth of that, and every other writer, in either process, waited the
rest (issue 16: in the quick-game benchmark the lock was held about 85 % of the time, and
the engine's writers, polling it with SQLite's sleeps, waited up to 100 ms). Here the
statements of a write transaction run on the loop's thread as they come, so the lock is
held for as long as they take. Only ``BEGIN`` waits for the lock, and it waits in the
loop (asyncio sleeps, the connection's busy timeout 0 meanwhile), never blocking it: the
loop goes on serving while another writer finishes.

Two things a statement in the loop must not do:

- **wait for a lock**: a statement refused with ``SQLITE_BUSY`` inside the transaction (it
  holds the write lock; WAL readers never wait) is run again on the driver's thread with
  the connection's busy timeout, as every statement was before;
- **copy the log into the file**: SQLite's automatic checkpoint runs inside the ``COMMIT``
  that crosses 1,000 pages of log, an fsync included. Connections that write in the loop
  check nothing in at commit (``wal_autocheckpoint=0``); :class:`WalCheckpoints` does it,
  one passive checkpoint in a thread of its own every :data:`CHECKPOINT_EVERY` commits.

A transaction that may run a long statement (pruning old hands' actions) begins with the
execution option ``sqlite_in_loop=False`` and runs on the driver's thread as before.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Final, TypeVar

__all__ = [
    "CHECKPOINT_EVERY",
    "IN_LOOP_OPTION",
    "LoopWrites",
    "WalCheckpoints",
    "is_busy",
    "loop_writes",
    "run_in_loop",
    "wal_checkpoints",
    "write_in_loop",
]

log = logging.getLogger("stud.store")

_T = TypeVar("_T")

#: The execution option that keeps a ``BEGIN IMMEDIATE`` transaction on the driver's thread.
IN_LOOP_OPTION: Final = "sqlite_in_loop"
#: Commits written in the loop between two checkpoints of the file's log (a quick game's
#: three write transactions add about 30 pages: the log stays near SQLite's own 1,000).
CHECKPOINT_EVERY: Final = 100
#: The waits between two tries of ``BEGIN IMMEDIATE`` while another connection writes: the
#: first try again after one turn of the loop, then doubling up to the last.
_PAUSES: Final = (0.0, 0.0005, 0.001, 0.002, 0.004)


def is_busy(error: BaseException) -> bool:
    """Whether SQLite refused because another connection holds its lock."""
    if not isinstance(error, sqlite3.OperationalError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "locked" in str(error) or "busy" in str(error)


class WalCheckpoints:
    """Passive checkpoints of one SQLite file's write-ahead log, in a thread (one for every
    file of the process), never two of a file at once: one after every ``every`` commits
    :meth:`committed` is told of. A passive checkpoint waits for no lock and blocks no
    writer; what it cannot copy yet (a reader still uses it) is copied by the next one."""

    _thread: ThreadPoolExecutor | None = None
    _thread_made = threading.Lock()

    def __init__(self, path: str, *, every: int = CHECKPOINT_EVERY) -> None:
        self.path = path
        self.every = every
        self._commits = 0
        self._running: Future[None] | None = None
        self._lock = threading.Lock()
        #: checkpoints finished (for tests and logs)
        self.done = 0

    @classmethod
    def _executor(cls) -> ThreadPoolExecutor:
        with cls._thread_made:
            if cls._thread is None:
                cls._thread = ThreadPoolExecutor(1, thread_name_prefix="stud-sqlite-checkpoint")
            return cls._thread

    def committed(self) -> None:
        """One more commit of this process's writes to the file (from any thread)."""
        with self._lock:
            self._commits += 1
            if self._commits < self.every or self._running is not None:
                return
            self._commits = 0
            self._running = self._executor().submit(self._checkpoint)
        self._running.add_done_callback(self._finished)

    def _checkpoint(self) -> None:
        connection = sqlite3.connect(self.path, timeout=0, isolation_level=None)
        try:
            _, logged, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            log.debug("checkpoint of %s: %s of %s log pages copied", self.path, copied, logged)
        finally:
            connection.close()

    def _finished(self, future: Future[None]) -> None:
        with self._lock:
            self._running = None
            self.done += 1
        error = future.exception()
        if error is not None:
            # The next commits try again: another process checking in (busy), or a file gone
            # read-only or away, whose writers fail on their own.
            level = logging.DEBUG if is_busy(error) else logging.WARNING
            log.log(level, "checkpoint of %s failed: %s", self.path, error)


_CHECKPOINTS: dict[str, WalCheckpoints] = {}
_CHECKPOINTS_LOCK = threading.Lock()


def wal_checkpoints(path: str) -> WalCheckpoints:
    """The process's checkpoints of the SQLite file at ``path`` (one object per file)."""
    with _CHECKPOINTS_LOCK:
        found = _CHECKPOINTS.get(path)
        if found is None:
            found = _CHECKPOINTS[path] = WalCheckpoints(path)
        return found


class LoopWrites:
    """One aiosqlite connection's write transactions in the loop (see the module's
    docstring): its busy timeout for what waits on the driver's thread, whether a write
    transaction is under way, and the file's checkpoints (None: an in-memory database)."""

    __slots__ = ("beginning", "busy_timeout_ms", "checkpoints", "writing")

    def __init__(self, busy_timeout_ms: int, checkpoints: WalCheckpoints | None) -> None:
        self.busy_timeout_ms = busy_timeout_ms
        self.checkpoints = checkpoints
        #: the next statement is the write transaction's BEGIN (:meth:`begin` runs it)
        self.beginning = False
        self.writing = False

    async def begin(self, connection: sqlite3.Connection) -> None:
        """``BEGIN IMMEDIATE`` once the file's lock is free: tried at once, then again after
        short sleeps in the loop until the busy timeout has passed (then SQLite's error)."""
        self.beginning = False
        connection.execute("PRAGMA busy_timeout=0")
        deadline: float | None = None
        tries = 0
        try:
            while True:
                try:
                    connection.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as error:
                    if not is_busy(error):
                        raise
                    now = time.monotonic()
                    if deadline is None:
                        deadline = now + self.busy_timeout_ms / 1000
                    elif now >= deadline:
                        raise
                    await asyncio.sleep(_PAUSES[min(tries, len(_PAUSES) - 1)])
                    tries += 1
                else:
                    self.writing = True
                    return
        finally:
            if not self.writing:
                connection.execute(f"PRAGMA busy_timeout={self.busy_timeout_ms}")

    async def run(
        self,
        aio: Any,
        step: Callable[..., _T],
        *args: Any,
    ) -> _T:
        """``step(connection, *args)`` in the loop (:func:`run_in_loop`)."""
        return await run_in_loop(aio, self.busy_timeout_ms, step, *args)

    async def end(self, aio: Any, *, commit: bool) -> None:
        """``COMMIT`` (or ``ROLLBACK``) the transaction, and the busy timeout back."""
        connection: sqlite3.Connection = aio._conn
        try:
            await self.run(aio, _commit if commit else _rollback)
        finally:
            self.writing = False
            connection.execute(f"PRAGMA busy_timeout={self.busy_timeout_ms}")
        if commit and self.checkpoints is not None:
            self.checkpoints.committed()


async def run_in_loop(aio: Any, busy_timeout_ms: int, step: Callable[..., _T], *args: Any) -> _T:
    """``step(connection, *args)`` on the aiosqlite connection ``aio``'s sqlite3 connection,
    in the loop (its busy timeout 0: nothing waits there); on the driver's thread, waiting up
    to ``busy_timeout_ms``, if SQLite refuses it for a lock."""
    try:
        return step(aio._conn, *args)
    except sqlite3.OperationalError as error:
        if not is_busy(error):
            raise
    result: _T = await aio._execute(_waiting, aio._conn, busy_timeout_ms, step, *args)
    return result


def _commit(connection: sqlite3.Connection) -> None:
    connection.commit()


def _rollback(connection: sqlite3.Connection) -> None:
    connection.rollback()


def _waiting(
    connection: sqlite3.Connection, busy_timeout_ms: int, step: Callable[..., _T], *args: Any
) -> _T:
    """On the driver's thread: ``step`` with the busy timeout (0 again after it)."""
    connection.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
    try:
        return step(connection, *args)
    finally:
        connection.execute("PRAGMA busy_timeout=0")


_WRITES: weakref.WeakKeyDictionary[Any, LoopWrites] = weakref.WeakKeyDictionary()


def write_in_loop(aio: Any, busy_timeout_ms: int, wal_path: str | None) -> None:
    """Let the aiosqlite connection ``aio`` run its write transactions in the loop
    (``wal_path``: its file, whose log :func:`wal_checkpoints` then checks in; None for an
    in-memory database)."""
    checkpoints = None if wal_path is None else wal_checkpoints(wal_path)
    _WRITES[aio] = LoopWrites(busy_timeout_ms, checkpoints)


def loop_writes(aio: Any) -> LoopWrites | None:
    """The connection's :class:`LoopWrites` (None: it writes on the driver's thread)."""
    return _WRITES.get(aio)
