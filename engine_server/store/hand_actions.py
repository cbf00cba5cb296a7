"""Hands' actions, stored one by one as they are taken (issue 17).

A hand's row gets its whole trail when it ends; until then these rows are its record, so a
hand a crash cancels still shows every action its players were told was accepted. One call
writes the actions many tables took in one turn of the event loop (a group commit); each is
keyed by ``(hand_id, seq)``, and writing a key again changes nothing (a retried write after
an answer that was lost).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, select

from engine_server.store.base import Transactions, check_id
from engine_server.store.errors import InvalidRecord
from engine_server.store.models import HandActionRow

__all__ = ["HandAction", "HandActions"]

_ACTIONS: sa.Table = HandActionRow.__table__  # type: ignore[attr-defined]


class HandAction(NamedTuple):
    """One action to store: its hand, its place in the hand's trail (from 0), its record."""

    hand_id: str
    seq: int
    action: dict[str, Any]


class HandActions:
    """The store of the actions of hands, as they are taken."""

    def __init__(self, tx: Transactions) -> None:
        self._tx = tx

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
        dialect = self._tx.engine.dialect.name
        insert: Any = (postgresql if dialect == "postgresql" else sqlite).insert(_ACTIONS)
        statement = insert.values(
            [
                {"hand_id": r.hand_id, "seq": r.seq, "action": r.action, "recorded_at": now}
                for r in rows
            ]
        ).on_conflict_do_nothing(index_elements=[_ACTIONS.c.hand_id, _ACTIONS.c.seq])
        async with self._tx.write() as session:
            await (await session.connection()).execute(statement)
        return len(rows)

    async def actions_of(self, hand_id: str) -> list[dict[str, Any]]:
        """The hand's stored actions, in order."""
        query = (
            select(HandActionRow)
            .where(HandActionRow.hand_id == hand_id)
            .order_by(col(HandActionRow.seq))
        )
        async with self._tx.read() as session:
            return [row.action for row in (await session.exec(query)).all()]
