"""Actions written to a SQLite file at once, in the event loop, unless the file is busy.

Through SQLAlchemy and aiosqlite a write transaction is five hops between the event loop and
the driver's thread (BEGIN IMMEDIATE, the fence's read, the insert, COMMIT, the connection's
return), each waiting for a turn of a loop that serves hundreds of tables: for every action
of every table that cost the engine about half a millisecond of CPU and the player several
milliseconds (BENCHMARKS.md, "Recording every action"). A thread of its own doing the whole
transaction in one hop was no better: each of its sqlite3 calls takes the GIL back from a busy
loop, up to the switch interval (5 ms) each time.

A batch of a few rows appended to the write-ahead log (WAL, ``synchronous=NORMAL``: no fsync
at commit, as the engine's other connections) takes tens of microseconds: it is written in
the loop, on a connection that never waits for SQLite's lock (busy timeout 0). When another
connection (the lobby's, say) holds the lock, the batch goes to a thread whose connection
waits for it (the busy timeout), and the loop runs on. Its commits check nothing into the
file: the file's :class:`~engine_server.store.sqlite_writes.WalCheckpoints` does, as for
every write transaction of the process.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from engine_server.store.sqlite_writes import is_busy, wal_checkpoints

__all__ = ["SqliteActionWriter"]

_FENCE = "SELECT epoch FROM engine_nodes WHERE id = ?"
_INSERT = (
    "INSERT INTO hand_actions (hand_id, seq, action, recorded_at) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (hand_id, seq) DO NOTHING"
)


class SqliteActionWriter:
    """Writes batches of ``hand_actions`` rows to the SQLite file at ``path``."""

    def __init__(self, path: str, *, busy_timeout_ms: int = 10_000) -> None:
        self._path = path
        self._busy_timeout_ms = busy_timeout_ms
        #: by busy timeout: 0 (in the loop) and ``busy_timeout_ms`` (in the thread)
        self._connections: dict[int, sqlite3.Connection] = {}
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="stud-actions")
        self._checkpoints = wal_checkpoints(os.path.abspath(path))
        #: batches the file's lock sent to the thread (for tests and metrics)
        self.waited = 0

    async def write(
        self,
        rows: Sequence[tuple[str, int, dict[str, Any]]],
        now: datetime,
        fence: tuple[str, int] | None,
    ) -> int | None:
        """Insert ``rows`` (hand id, seq, record) in one transaction, those already there left
        as they are. ``fence``: (node id, epoch) the node's row must hold, else nothing is
        written. Returns the epoch the node's row holds (None without a fence or a row)."""
        try:
            return self._write(rows, now, fence, 0)
        except sqlite3.OperationalError as error:
            if not is_busy(error):
                raise
        self.waited += 1
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._thread, self._write, rows, now, fence, self._busy_timeout_ms
        )

    def _connect(self, busy_timeout_ms: int) -> sqlite3.Connection:
        connection = self._connections.get(busy_timeout_ms)
        if connection is None:
            connection = sqlite3.connect(
                self._path, isolation_level=None, check_same_thread=False, timeout=0
            )
            connection.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA foreign_keys=ON")
            # Never a checkpoint at commit: copying the log into the file (about 4 MiB every
            # 1,000 pages, with an fsync) is the file's WalCheckpoints' job, in its thread.
            connection.execute("PRAGMA wal_autocheckpoint=0")
            self._connections[busy_timeout_ms] = connection
        return connection

    def _write(
        self,
        rows: Sequence[tuple[str, int, dict[str, Any]]],
        now: datetime,
        fence: tuple[str, int] | None,
        busy_timeout_ms: int,
    ) -> int | None:
        stamp = now.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
        values = [(hand_id, seq, json.dumps(action), stamp) for hand_id, seq, action in rows]
        connection = self._connect(busy_timeout_ms)
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                epoch = None
                if fence is not None:
                    found = connection.execute(_FENCE, (fence[0],)).fetchone()
                    epoch = None if found is None else int(found[0])
                    if epoch != fence[1]:
                        connection.execute("ROLLBACK")
                        return epoch
                connection.executemany(_INSERT, values)
                connection.execute("COMMIT")
                self._checkpoints.committed()
                return epoch
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
        except sqlite3.Error as error:
            if not is_busy(error):
                # A connection that could not write (a read-only file, a full disk) is not
                # kept.
                del self._connections[busy_timeout_ms]
                connection.close()
            raise

    def close(self) -> None:
        """Close the connection and end the thread (after the write under way)."""
        self._thread.submit(self._close).result()
        self._thread.shutdown()

    def _close(self) -> None:
        for connection in self._connections.values():
            connection.close()
        self._connections.clear()
