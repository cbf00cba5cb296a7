"""Actions written to a SQLite file in one hop to a thread of their own.

Through SQLAlchemy and aiosqlite a write transaction is five hops between the event loop and
the driver's thread (BEGIN IMMEDIATE, the fence's read, the insert, COMMIT, the connection's
return), each waiting for a turn of a loop that serves hundreds of tables: for every action
of every table that cost the engine about half a millisecond of CPU and the player several
milliseconds. Here the whole transaction is one call in one thread, on a connection of its own
(WAL, ``synchronous=NORMAL`` and the busy timeout, as the engine's other connections).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

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
        self._connection: sqlite3.Connection | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="stud-actions")

    async def write(
        self,
        rows: Sequence[tuple[str, int, dict[str, Any]]],
        now: datetime,
        fence: tuple[str, int] | None,
    ) -> int | None:
        """Insert ``rows`` (hand id, seq, record) in one transaction, those already there left
        as they are. ``fence``: (node id, epoch) the node's row must hold, else nothing is
        written. Returns the epoch the node's row holds (None without a fence or a row)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, self._write, rows, now, fence)

    def _connect(self) -> sqlite3.Connection:
        connection = self._connection
        if connection is None:
            connection = sqlite3.connect(
                self._path, isolation_level=None, check_same_thread=False, timeout=0
            )
            connection.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_ms)}")
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA foreign_keys=ON")
            self._connection = connection
        return connection

    def _write(
        self,
        rows: Sequence[tuple[str, int, dict[str, Any]]],
        now: datetime,
        fence: tuple[str, int] | None,
    ) -> int | None:
        stamp = now.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
        values = [(hand_id, seq, json.dumps(action), stamp) for hand_id, seq, action in rows]
        connection = self._connect()
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
                return epoch
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
        except sqlite3.Error:
            # A connection that could not write (a read-only file, a full disk) is not kept.
            self._connection = None
            connection.close()
            raise

    def close(self) -> None:
        """Close the connection and end the thread (after the write under way)."""
        self._thread.submit(self._close).result()
        self._thread.shutdown()

    def _close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
