"""Lone SQLite reads run in the event loop, not on aiosqlite's thread.

A read-only engine (:func:`~engine_server.store.database.create_engine_for` with
``read_only``) serves lone ``SELECT`` statements on hot paths: the lobby's
``Database.fetch`` reads the player behind a request, what settlement owes him, the tickets
waiting at a city, a table's opponents. Each is one indexed statement that SQLite answers
in tens of microseconds. On aiosqlite's thread each was a trip — a future, the thread woken,
the GIL handed over and back, the loop woken through its self-pipe — that cost the loop
several times what the statement did (issue 16: four such reads in every quick game).
Here they run in the loop, as write transactions do (:mod:`engine_server.store.sqlite_writes`).

A reader of a WAL file takes no lock a writer holds, so it does not wait; in the rare case
SQLite still answers ``SQLITE_BUSY`` (a reader that finds the log being recovered), the
statement is run again on the driver's thread with the connection's busy timeout
(:func:`~engine_server.store.sqlite_writes.run_in_loop`).

A long statement in the loop would stall every request under way. So reads inside a
transaction — snapshots over several statements, some of them long (hand history, fairness
pages, the tournament director's pass) — stay on the thread, and so does a lone read whose
work grows with the data, marked with the execution options
:data:`~engine_server.store.database.LONG_READ` (the players waiting at a city, counted over
its open tables).
"""

from __future__ import annotations

import weakref
from typing import Any

__all__ = ["LoopReads", "loop_reads", "read_in_loop"]


class LoopReads:
    """One read-only aiosqlite connection's statements in the loop: the busy timeout of
    what falls back to the driver's thread (the connection's own is 0)."""

    __slots__ = ("busy_timeout_ms",)

    def __init__(self, busy_timeout_ms: int) -> None:
        self.busy_timeout_ms = busy_timeout_ms


_READS: weakref.WeakKeyDictionary[Any, LoopReads] = weakref.WeakKeyDictionary()


def read_in_loop(aio: Any, busy_timeout_ms: int) -> None:
    """Let the read-only aiosqlite connection ``aio`` run its statements in the loop; its
    sqlite3 connection's busy timeout must be 0 (a statement that would wait falls back to
    the thread, waiting up to ``busy_timeout_ms`` there)."""
    _READS[aio] = LoopReads(busy_timeout_ms)


def loop_reads(aio: Any) -> LoopReads | None:
    """The connection's :class:`LoopReads` (None: its reads go to the driver's thread)."""
    return _READS.get(aio)
