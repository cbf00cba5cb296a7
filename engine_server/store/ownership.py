"""Which live node serves each table: taking over a dead node's tables, moving one table.

A table belongs to one node (``tables.node_id``) at a fencing number of its own
(``tables.owner_epoch``). It changes hands only here, in a write transaction that locks the
table's row and bumps ``owner_epoch`` with the new owner; every write of the table checks
both under the same row lock (:meth:`~engine_server.store.nodes.WriteFence.check_table`), so
a process that lost a table changes nothing more of it.

**Takeover.** :meth:`TableOwners.take_over_expired` is run by every live node, every third of
its lease. In one transaction it finds the nodes whose lease has run out without a clean stop
(a crash, ``kill -9``, a frozen process), locks each one's registry row (``FOR UPDATE SKIP
LOCKED``: of two live nodes looking at once, one takes a given dead node, the other moves on)
and retires it: its epoch is bumped and it is marked stopped, so the dead process — should it
wake up — finds every write and every renewal refused, and stops. Its open tables are then
spread over the live nodes, each table once, the least loaded node first (seated players,
then open tables, then id), each with its ``owner_epoch`` bumped. The nodes pick up what they
were given with :meth:`TableOwners.assigned` and load those tables as after a crash (the hand
left running cancelled, every chip back).

**Moving.** :meth:`TableOwners.hand_over` gives one table of this node to another live node,
between hands (the caller has stopped the table's owner task after its hand ended).

>>> import asyncio, tempfile
>>> from datetime import timedelta
>>> from engine_server.store.database import create_engine_for
>>> from engine_server.store.migrate import upgrade_to_head
>>> from engine_server.store.nodes import NodeAddresses
>>> from engine_server.store.repository import EngineStore
>>> from engine_server.store.types import utc_now
>>> url = f"sqlite:///{tempfile.mkdtemp()}/owners.sqlite3"
>>> _ = upgrade_to_head(url)
>>> async def demo():
...     store = EngineStore(create_engine_for(url))
...     where = NodeAddresses("a:1", "a:1", "http://a:2")
...     now = utc_now()
...     for name in ("dead", "live"):
...         await store.nodes.claim(name, where, now=now, lease_seconds=5,
...                                 state=NodeState.SERVING)
...     for n in range(3):
...         await store.tables.create_table(
...             request_id=f"r{n}", profile="house", ante=1, bring_in=2, small_bet=5,
...             big_bet=10, min_buy_in=100, max_buy_in=500, client_seed="s", node_id="dead")
...     await store.nodes.renew("live", 1, now=now + timedelta(seconds=6), lease_seconds=5)
...     taken = await store.owners.take_over_expired("live", now=now + timedelta(seconds=6))
...     mine = await store.owners.assigned("live")
...     await store.dispose()
...     return [(t.node_id, t.epoch, {k: len(v) for k, v in t.assigned.items()}) for t in taken], sorted(mine.values())
>>> asyncio.run(demo())
([('dead', 2, {'live': 3})], [2, 2, 2])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select

from engine_server.store.base import Transactions, running_hand, table_row
from engine_server.store.errors import HandInProgress, NodeNotLive, TableClosed
from engine_server.store.models import (
    EngineNodeRow,
    NodeState,
    SeatSessionRow,
    TableRow,
    TableStatus,
)
from engine_server.store.nodes import node_loads
from engine_server.store.sessions import OCCUPYING

__all__ = ["Handover", "NodeLoad", "TableOwners", "Takeover", "least_loaded_node"]


@dataclass(frozen=True, slots=True)
class Takeover:
    """A dead node retired and its tables spread over the live nodes."""

    #: the node whose lease ran out
    node_id: str
    #: its epoch now (bumped: the dead process can write nothing more)
    epoch: int
    #: table ids by the live node that got them
    assigned: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Handover:
    """A table given to another node."""

    table_id: str
    node_id: str
    owner_epoch: int


@dataclass(slots=True)
class NodeLoad:
    """A live node's load as placement weighs it (seated players, then open tables)."""

    node_id: str
    players: int
    tables: int

    @property
    def key(self) -> tuple[int, int, str]:
        return (self.players, self.tables, self.node_id)


class TableOwners:
    """Takeovers and handovers of tables between engine nodes (see the module's docstring)."""

    def __init__(self, tx: Transactions) -> None:
        self._tx = tx

    async def take_over_expired(self, node_id: str, *, now: datetime) -> list[Takeover]:
        """Retire every node whose lease ran out at ``now`` (not stopped cleanly) and spread
        its open tables over the live nodes; ``node_id``: the live node doing it, which must
        be live itself (else nothing happens). Returns what was taken over."""
        nodes = EngineNodeRow.__table__  # type: ignore[attr-defined]
        expired = sa.and_(
            nodes.c.state != NodeState.STOPPED.value,
            nodes.c.expires_at < now,
            nodes.c.id != node_id,
        )
        # A read first: every live node looks often, and a write transaction each time would
        # contend for SQLite's one write lock (and PostgreSQL's row locks) for nothing.
        async with self._tx.read() as session:
            connection = await session.connection()
            if (
                await connection.execute(sa.select(nodes.c.id).where(expired).limit(1))
            ).first() is None:
                return []
        async with self._tx.write() as session:
            connection = await session.connection()
            loads = {
                row.id: NodeLoad(row.id, int(row.players), int(row.open_tables))
                for row in (await connection.execute(node_loads(now))).all()
            }
            if node_id not in loads:
                return []
            dead_query = (
                sa.select(nodes.c.id, nodes.c.epoch)
                .where(expired)
                .order_by(nodes.c.id)
                .with_for_update(skip_locked=True)
            )
            dead = (await connection.execute(dead_query)).all()
            taken = []
            for dead_id, epoch in dead:
                # Retired first: the dead process's writes check this row (FOR SHARE), so
                # every one of them that had begun has committed, and any later one fails.
                await connection.execute(
                    sa.update(nodes)
                    .where(nodes.c.id == dead_id, nodes.c.epoch == epoch)
                    .values(
                        epoch=epoch + 1,
                        state=NodeState.STOPPED.value,
                        expires_at=now,
                    )
                )
                assigned = await self._spread(session, dead_id, loads)
                taken.append(Takeover(dead_id, epoch + 1, assigned))
            return taken

    async def _spread(
        self, session: Any, dead_id: str, loads: dict[str, NodeLoad]
    ) -> dict[str, list[str]]:
        """Give each open table of ``dead_id`` to the least loaded live node (counting what
        was given already), biggest tables first."""
        tables = list(
            (
                await session.exec(
                    select(TableRow)
                    .where(
                        TableRow.node_id == dead_id,
                        TableRow.status != TableStatus.CLOSED.value,
                    )
                    .order_by(col(TableRow.id))
                    .with_for_update()
                    .execution_options(populate_existing=True)
                )
            ).all()
        )
        seated = await _seated(session, [t.id for t in tables])
        assigned: dict[str, list[str]] = {}
        for table in sorted(tables, key=lambda t: (-seated.get(t.id, 0), t.id)):
            target = min(loads.values(), key=lambda load: load.key)
            target.players += seated.get(table.id, 0)
            target.tables += 1
            table.node_id = target.node_id
            table.owner_epoch += 1
            session.add(table)
            assigned.setdefault(target.node_id, []).append(table.id)
        return assigned

    async def least_loaded_node(self, *, now: datetime, exclude: str) -> str | None:
        """The live node but ``exclude`` a table should go to (the least loaded)."""
        async with self._tx.read() as session:
            return await least_loaded_node(session, now, exclude)

    async def owners(self, table_ids: list[str]) -> dict[str, tuple[str, int]]:
        """Each of these tables' node and ``owner_epoch``, by table id (unknown ids left out)."""
        async with self._tx.read() as session:
            rows = (
                await session.exec(
                    select(TableRow.id, TableRow.node_id, TableRow.owner_epoch).where(
                        col(TableRow.id).in_(sorted(set(table_ids)))
                    )
                )
            ).all()
        return {table_id: (node, int(epoch)) for table_id, node, epoch in rows}

    async def assigned(self, node_id: str) -> dict[str, int]:
        """The open tables of ``node_id`` with their ``owner_epoch``, by table id."""
        async with self._tx.read() as session:
            rows = (
                await session.exec(
                    select(TableRow.id, TableRow.owner_epoch).where(
                        TableRow.node_id == node_id, TableRow.status != TableStatus.CLOSED.value
                    )
                )
            ).all()
        return {table_id: int(epoch) for table_id, epoch in rows}

    async def hand_over(self, table_id: str, to_node: str, *, now: datetime) -> Handover:
        """Give the table (this process's, between hands) to live node ``to_node``.

        A playing table is handed over waiting (the new owner deals on). Refusals, nothing
        written: ``HandInProgress``, ``TableClosed``, ``NodeNotLive`` when ``to_node`` is not
        live or is the table's node already; ``TableMoved`` when the table is no longer this
        process's.
        """
        nodes = EngineNodeRow.__table__  # type: ignore[attr-defined]
        async with self._tx.write() as session:
            table = await table_row(session, table_id, lock=True)
            if table.status == TableStatus.CLOSED.value:
                raise TableClosed(f"table {table_id} is closed")
            if table.node_id == to_node:
                raise NodeNotLive(f"table {table_id} is on engine node {to_node} already")
            connection = await session.connection()
            live = (
                await connection.execute(
                    sa.select(nodes.c.id).where(
                        nodes.c.id == to_node,
                        nodes.c.state == NodeState.SERVING.value,
                        nodes.c.expires_at > now,
                    )
                )
            ).first()
            if live is None:
                raise NodeNotLive(f"engine node {to_node} is not live (serving, lease held)")
            if await running_hand(session, table_id) is not None:
                raise HandInProgress(f"table {table_id} has a hand running")
            if table.status == TableStatus.PLAYING.value:
                table.status = TableStatus.WAITING.value
            table.node_id = to_node
            table.owner_epoch += 1
            session.add(table)
            return Handover(table_id, to_node, table.owner_epoch)


async def _seated(session: Any, table_ids: list[str]) -> dict[str, int]:
    """Seated players (sessions not closed) by table."""
    if not table_ids:
        return {}
    rows = (
        await session.exec(
            select(SeatSessionRow.table_id, sa.func.count())
            .where(
                col(SeatSessionRow.table_id).in_(table_ids),
                col(SeatSessionRow.state).in_(OCCUPYING),
            )
            .group_by(col(SeatSessionRow.table_id))
        )
    ).all()
    return {table_id: int(count) for table_id, count in rows}


async def least_loaded_node(session: Any, now: datetime, exclude: str) -> str | None:
    """The live node but ``exclude`` with the least load (seated players, then open tables,
    then id); None when there is none."""
    loads = node_loads(now).where(EngineNodeRow.__table__.c.id != exclude)  # type: ignore[attr-defined]
    connection = await session.connection()
    row = (await connection.execute(loads.limit(1))).first()
    return None if row is None else str(row.id)
