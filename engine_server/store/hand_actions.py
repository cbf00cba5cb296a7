"""Hands' actions, stored one by one as they are taken (issue 17).

A hand's row gets its whole trail when it ends; until then these rows are its record, so a
hand a crash cancels still shows every action its players were told was accepted. Once it has
ended (finished, or cancelled: its trail is then in its row, with those actions) they are
only a copy: :meth:`HandActions.prune` deletes them after the time the engine keeps them
(docs/operations.md, "Crashes"). Nothing reads an ended hand's rows here. One call
writes the actions many tables took in one turn of the event loop (a group commit); each is
keyed by ``(hand_id, seq)``, and writing a key again changes nothing (a retried write after
an answer that was lost).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import datetime
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, select

from engine_server.store.base import Transactions, check_id
from engine_server.store.errors import InvalidRecord
from engine_server.store.models import HandActionRow, HandRow, HandState
from engine_server.store.sqlite_actions import SqliteActionWriter

__all__ = ["HandAction", "HandActions", "Pruned"]

_ACTIONS: sa.Table = HandActionRow.__table__  # type: ignore[attr-defined]


class Pruned(NamedTuple):
    """What a prune deleted: the ended hands whose copies went, and their rows."""

    hands: int = 0
    rows: int = 0


class HandAction(NamedTuple):
    """One action to store: its hand, its place in the hand's trail (from 0), its record."""

    hand_id: str
    seq: int
    action: dict[str, Any]


class HandActions:
    """The store of the actions of hands, as they are taken."""

    def __init__(self, tx: Transactions) -> None:
        self._tx = tx
        self._statement: Any = None
        url = tx.engine.url
        #: on a SQLite file, the whole write in one hop to a thread (see sqlite_actions)
        self._sqlite = (
            SqliteActionWriter(url.database)
            if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:")
            else None
        )

    async def record(self, actions: Iterable[HandAction]) -> int:
        """Store ``actions`` (of any hands) in one transaction; those already stored under
        their ``(hand_id, seq)`` are left as they are. Returns how many were given."""
        rows = list(actions)
        if not rows:
            return 0
        for row in rows:
            check_id("hand_id", row.hand_id)
            if row.seq < 0:
                raise InvalidRecord(f"an action's seq must not be negative, not {row.seq}")
        now = self._tx.clock()
        values = [
            {"hand_id": r.hand_id, "seq": r.seq, "action": r.action, "recorded_at": now}
            for r in rows
        ]
        if self._sqlite is not None:
            fence = self._tx.fence
            try:
                epoch = await self._sqlite.write(
                    rows, now, None if fence is None else (fence.node_id, fence.epoch)
                )
            except sqlite3.Error as error:
                # As SQLAlchemy wraps the driver's errors (is_outage reads them so).
                raise sa.exc.DBAPIError.instance(
                    "INSERT INTO hand_actions", None, error, sqlite3.Error
                ) from error
            if fence is not None:
                fence.verify(epoch)
            return len(rows)
        # On the hot path (every action): a bare connection and one statement, compiled
        # once, run for every row (no ORM session).
        async with self._tx.write_connection() as connection:
            await connection.execute(self._insert(), values)
        return len(rows)

    def close(self) -> None:
        """Let go of the SQLite writer's connection and thread, if any."""
        if self._sqlite is not None:
            self._sqlite.close()
            self._sqlite = None

    def _insert(self) -> Any:
        statement = self._statement
        if statement is None:
            dialect = self._tx.engine.dialect.name
            insert: Any = (postgresql if dialect == "postgresql" else sqlite).insert(_ACTIONS)
            statement = self._statement = insert.on_conflict_do_nothing(
                index_elements=[_ACTIONS.c.hand_id, _ACTIONS.c.seq]
            )
        return statement

    async def prune(self, ended_before: datetime, *, hands: int = 500) -> Pruned:
        """Delete the stored actions of up to ``hands`` hands that ended (finished or
        cancelled) before ``ended_before``, in one transaction: their rows hold their whole
        trail. Returns how many hands' actions it deleted (fewer than ``hands``: none is
        left), and how many rows."""
        if hands <= 0:
            raise InvalidRecord(f"hands must be positive, not {hands}")
        hands_table: sa.Table = HandRow.__table__  # type: ignore[attr-defined]
        ended = (
            sa.select(_ACTIONS.c.hand_id)
            .join(hands_table, hands_table.c.id == _ACTIONS.c.hand_id)
            .where(
                hands_table.c.state != HandState.RUNNING.value,
                hands_table.c.ended_at < ended_before,
            )
            .distinct()
            .limit(hands)
        )
        # Long: the search for ended hands reads through the table of actions.
        async with self._tx.write_connection(long=True) as connection:
            ids = list((await connection.execute(ended)).scalars())
            if not ids:
                return Pruned()
            deleted = await connection.execute(
                sa.delete(_ACTIONS).where(_ACTIONS.c.hand_id.in_(ids))
            )
        return Pruned(len(ids), deleted.rowcount)

    async def actions_of(self, hand_id: str) -> list[dict[str, Any]]:
        """The hand's stored actions, in order."""
        query = (
            select(HandActionRow)
            .where(HandActionRow.hand_id == hand_id)
            .order_by(col(HandActionRow.seq))
        )
        async with self._tx.read() as session:
            return [row.action for row in (await session.exec(query)).all()]

    async def actions_of_hands(self, hand_ids: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
        """Each of these hands' stored actions, in order, in one read (a takeover recovers
        hundreds of hands); a hand with none maps to an empty list."""
        found: dict[str, list[dict[str, Any]]] = {hand_id: [] for hand_id in hand_ids}
        if not found:
            return found
        query = (
            select(HandActionRow)
            .where(col(HandActionRow.hand_id).in_(sorted(found)))
            .order_by(col(HandActionRow.hand_id), col(HandActionRow.seq))
        )
        async with self._tx.read() as session:
            for row in (await session.exec(query)).all():
                found[row.hand_id].append(row.action)
        return found
