"""The engine node registry (``engine_nodes``): claiming a node id, renewing its lease.

One process at a time holds a node id. :meth:`NodeRegistry.claim` is one statement, an
``INSERT … ON CONFLICT (id) DO UPDATE … WHERE`` the node is stopped or its lease has run out,
so two processes claiming one id at once cannot both win: the database serialises them on
the row, and the second finds the first's fresh lease. Claiming bumps ``epoch``; every
renewal and state change names the epoch it claimed, so a process whose node was claimed
again (after its lease ran out) finds no row to renew and knows it must stop.

Times are the engine's clock (aware UTC): nodes sharing a database are expected to keep their
clocks within a small part of the lease of each other (NTP).

>>> import asyncio, tempfile
>>> from datetime import timedelta
>>> from engine_server.store.database import create_engine_for
>>> from engine_server.store.migrate import upgrade_to_head
>>> from engine_server.store.types import utc_now
>>> url = f"sqlite:///{tempfile.mkdtemp()}/nodes.sqlite3"
>>> _ = upgrade_to_head(url)
>>> async def demo():
...     engine = create_engine_for(url)
...     registry = NodeRegistry(engine)
...     where = NodeAddresses("127.0.0.1:50051", "127.0.0.1:50051", "http://127.0.0.1:8081")
...     now = utc_now()
...     first = await registry.claim("a", where, now=now, lease_seconds=15)
...     again = await registry.claim("a", where, now=now, lease_seconds=15)  # still held
...     later = now + timedelta(seconds=16)
...     renewed = await registry.renew("a", first, now=later, lease_seconds=15)  # nobody took it
...     await registry.set_state("a", first, NodeState.STOPPED, now=later)
...     second = await registry.claim("a", where, now=later, lease_seconds=15)
...     stale = await registry.renew("a", first, now=later, lease_seconds=15)
...     await engine.dispose()
...     return first, again, renewed, second, stale
>>> asyncio.run(demo())
(1, None, True, 2, False)
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from engine_server.store.database import WRITE_OPTIONS
from engine_server.store.errors import NodeFenced, TableMoved
from engine_server.store.models import (
    EngineNodeRow,
    NodeState,
    SeatSessionRow,
    SeatSessionState,
    TableRow,
    TableStatus,
)
from engine_server.table.ports import NodeEntry

__all__ = [
    "NodeAddresses",
    "NodeRegistry",
    "WriteFence",
    "live_node_ids",
    "live_nodes",
    "node_loads",
]

_NODES = EngineNodeRow.__table__  # type: ignore[attr-defined]
_TABLES = TableRow.__table__  # type: ignore[attr-defined]
_SESSIONS = SeatSessionRow.__table__  # type: ignore[attr-defined]


class NodeAddresses(NamedTuple):
    """What a node advertises: the lobby's AdminService address, the players' gRPC address
    and the browsers' gRPC-Web URL."""

    admin: str
    grpc: str
    web: str


def _row(mapping: Any) -> EngineNodeRow:
    return EngineNodeRow(**dict(mapping))


class WriteFence:
    """Refuses a node's table writes once another process has claimed the node.

    Checked at the start of every write transaction of every store (``EngineStore.tx.fence``):
    the node's row must still carry ``epoch``, the fencing number this process
    claimed. On PostgreSQL the row is read ``FOR KEY SHARE``: a claim by another process
    (which locks that row ``FOR UPDATE`` before it changes it) waits until the write has
    committed, and every write after the claim sees the new epoch; this process's own
    renewals (``FOR NO KEY UPDATE``) do not wait for its writes. On SQLite a write transaction holds the database's one write
    lock from its start, so the same holds. ``on_stale(reason)`` is told once, at the first
    refusal: the process should stop serving.

    Per table, :meth:`check_table` runs under the table's row lock (taken first by every
    write of a table, :func:`engine_server.store.base.table_row`): the row must still name
    this node and the ``owner_epoch`` this process loaded the table with (:meth:`hold`). A
    table taken over or moved since (the row updated under the same lock) is refused with
    :class:`~engine_server.store.errors.TableMoved`; only that table stops here.
    """

    def __init__(self, node_id: str, epoch: int, on_stale: Callable[[str], None]) -> None:
        self.node_id = node_id
        self.epoch = epoch
        self._on_stale = on_stale
        self._told = False
        self._tables: dict[str, int] = {}
        # FOR KEY SHARE, not FOR SHARE: the process's own renewals (an UPDATE of columns no
        # key uses: FOR NO KEY UPDATE) must not queue behind its table writes, which overlap
        # without pause on a busy node and would starve them past the lease. Claims and
        # takeovers lock the row FOR UPDATE first, which does wait for every write in flight.
        self._statement = (
            sa.select(_NODES.c.epoch)
            .where(_NODES.c.id == node_id)
            .with_for_update(read=True, key_share=True)
        )

    def hold(self, table_id: str, owner_epoch: int) -> None:
        """This process serves ``table_id`` as loaded at ``owner_epoch``."""
        self._tables[table_id] = owner_epoch

    def release(self, table_id: str) -> None:
        """This process no longer serves ``table_id`` (moved away)."""
        self._tables.pop(table_id, None)

    def held(self, table_id: str) -> int | None:
        """The ``owner_epoch`` this process loaded the table with (None: not loaded here)."""
        return self._tables.get(table_id)

    def check_table(self, table_id: str, node_id: str, owner_epoch: int) -> None:
        """Raise :class:`~engine_server.store.errors.TableMoved` unless the table's row (read
        under its lock: ``node_id``, ``owner_epoch``) is still this process's."""
        held = self._tables.get(table_id)
        if node_id == self.node_id and held in (None, owner_epoch):
            return
        raise TableMoved(
            f"table {table_id} is served by engine node {node_id} now (owner epoch "
            f"{owner_epoch}; this process held it at {held}): it writes nothing more to it",
            node_id,
            table_id,
        )

    async def check(self, session: AsyncSession) -> None:
        """Raise :class:`~engine_server.store.errors.NodeFenced` when the node's epoch has
        moved on (``session``: the write transaction's)."""
        await self.check_connection(await session.connection())

    async def check_connection(self, connection: AsyncConnection) -> None:
        """:meth:`check` in a write transaction on a bare connection."""
        current = (await connection.execute(self._statement)).scalar_one_or_none()
        self.verify(current)

    def verify(self, current: int | None) -> None:
        """:meth:`check` given the epoch the node's row holds (read in the write)."""
        if current == self.epoch:
            return
        reason = (
            f"lease lost: another process claimed engine node {self.node_id!r} (epoch "
            f"{current}; this process holds {self.epoch}): it writes nothing more"
        )
        if not self._told:
            self._told = True
            self._on_stale(reason)
        raise NodeFenced(reason)


class NodeRegistry:
    """Claims, renews and releases node ids on ``engine`` (an async engine of the store)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._writer = engine.execution_options(**WRITE_OPTIONS)

    async def claim(
        self,
        node_id: str,
        addresses: NodeAddresses,
        *,
        now: datetime,
        lease_seconds: float,
        state: NodeState = NodeState.STARTING,
    ) -> int | None:
        """Take the node for this process: its new epoch, or None while another process
        holds it (not stopped, lease not run out). Atomic: of processes claiming at once, one
        gets an epoch."""
        dialect = self.engine.dialect.name
        insert: Any = (postgresql if dialect == "postgresql" else sqlite).insert(_NODES)
        values = {
            "id": node_id,
            "epoch": 1,
            "state": state.value,
            "admin_address": addresses.admin,
            "grpc_address": addresses.grpc,
            "web_url": addresses.web,
            "started_at": now,
            "heartbeat_at": now,
            "expires_at": now + timedelta(seconds=lease_seconds),
        }
        statement = insert.values(**values)
        fresh = statement.excluded
        statement = statement.on_conflict_do_update(
            index_elements=[_NODES.c.id],
            set_={
                "epoch": _NODES.c.epoch + 1,
                **{name: getattr(fresh, name) for name in values if name not in ("id", "epoch")},
            },
            where=sa.or_(
                _NODES.c.state == NodeState.STOPPED.value,
                _NODES.c.expires_at < now,
            ),
        ).returning(_NODES.c.epoch)
        async with self._writer.begin() as connection:
            # FOR UPDATE first (PostgreSQL): the upsert alone takes a lock that writes in flight
            # (FOR KEY SHARE, WriteFence) do not block; this one waits for them to commit.
            await connection.execute(
                sa.select(_NODES.c.id).where(_NODES.c.id == node_id).with_for_update()
            )
            epoch = (await connection.execute(statement)).scalar_one_or_none()
        return None if epoch is None else int(epoch)

    async def renew(self, node_id: str, epoch: int, *, now: datetime, lease_seconds: float) -> bool:
        """Extend the lease of the process that claimed ``epoch``: False when another
        process has claimed the node since (or it was marked stopped)."""
        statement = (
            sa.update(_NODES)
            .where(
                _NODES.c.id == node_id,
                _NODES.c.epoch == epoch,
                _NODES.c.state != NodeState.STOPPED.value,
            )
            .values(heartbeat_at=now, expires_at=now + timedelta(seconds=lease_seconds))
        )
        async with self._writer.begin() as connection:
            return (await connection.execute(statement)).rowcount == 1

    async def set_state(
        self,
        node_id: str,
        epoch: int,
        state: NodeState,
        *,
        now: datetime,
        addresses: NodeAddresses | None = None,
    ) -> bool:
        """Set the node's state (and addresses) if ``epoch`` still holds it. Stopping frees
        the lease at once (``expires_at`` = now)."""
        values: dict[str, Any] = {"state": state.value}
        if addresses is not None:
            values.update(
                admin_address=addresses.admin, grpc_address=addresses.grpc, web_url=addresses.web
            )
        if state is NodeState.STOPPED:
            values.update(heartbeat_at=now, expires_at=now)
        statement = (
            sa.update(_NODES)
            .where(_NODES.c.id == node_id, _NODES.c.epoch == epoch)
            .values(**values)
        )
        async with self._writer.begin() as connection:
            return (await connection.execute(statement)).rowcount == 1

    async def get(self, node_id: str) -> EngineNodeRow | None:
        async with self.engine.connect() as connection:
            found = (
                (await connection.execute(sa.select(_NODES).where(_NODES.c.id == node_id)))
                .mappings()
                .first()
            )
        return None if found is None else _row(found)

    async def listing(self, now: datetime) -> list[NodeEntry]:
        """Every registered node, by id, with its tables not closed, their seated players and
        whether it is live
        at ``now`` (serving, lease not run out: :func:`live_nodes`'s condition)."""
        live = _live(now)
        statement = sa.select(
            *_NODES.c,
            _open_tables().label("open_tables"),
            _seated_players().label("seated_players"),
            live.label("live"),
        ).order_by(_NODES.c.id)
        async with self.engine.connect() as connection:
            rows = (await connection.execute(statement)).mappings().all()
        listed = []
        for r in rows:
            node = _row(
                {k: v for k, v in r.items() if k not in ("open_tables", "seated_players", "live")}
            )
            listed.append(
                NodeEntry(
                    id=node.id,
                    state=node.state,
                    epoch=node.epoch,
                    admin_address=node.admin_address,
                    grpc_address=node.grpc_address,
                    web_url=node.web_url,
                    started_at=node.started_at,
                    heartbeat_at=node.heartbeat_at,
                    expires_at=node.expires_at,
                    live=bool(r["live"]),
                    open_tables=int(r["open_tables"]),
                    seated_players=int(r["seated_players"]),
                )
            )
        return listed


#: A table's statuses until it has closed, named (not "not closed"), so that the node's
#: tables are read through ``ix_tables_node_id_status`` without its closed ones; written
#: into the statement (constants: one SQL text, cached and prepared once).
_NOT_CLOSED = tuple(
    sa.literal_column(f"'{status.value}'")
    for status in TableStatus
    if status is not TableStatus.CLOSED
)


def _open_tables() -> Any:
    """A node's tables that are not closed (a scalar subquery on the node's row)."""
    return (
        sa.select(sa.func.count())
        .select_from(_TABLES)
        .where(_TABLES.c.node_id == _NODES.c.id, _TABLES.c.status.in_(_NOT_CLOSED))
        .scalar_subquery()
    )


def _live(now: datetime) -> Any:
    """The condition "a node a new table may go to at ``now``": serving, lease not run out."""
    return sa.and_(_NODES.c.state == NodeState.SERVING.value, _NODES.c.expires_at > now)


def live_node_ids(now: datetime) -> sa.Select[Any]:
    """The ids of the nodes a new table may go to (as :func:`live_nodes`), by id: nothing
    counted (which of one node or none is least loaded needs no count)."""
    return sa.select(_NODES.c.id).where(_live(now)).order_by(_NODES.c.id)


def live_nodes(now: datetime) -> sa.Select[Any]:
    """The nodes a new table may go to — lease not run out, serving — each with its number
    of tables not closed, fewest first (then by id): ``(EngineNodeRow columns…, open_tables)``."""
    open_tables = _open_tables()
    return (
        sa.select(*_NODES.c, open_tables.label("open_tables"))
        .where(_live(now))
        .order_by(open_tables, _NODES.c.id)
    )


def _seated_players() -> Any:
    """The players seated at a node's open tables (sessions not closed; a scalar subquery on
    the node's row)."""
    return (
        sa.select(sa.func.count())
        .select_from(_SESSIONS.join(_TABLES, _SESSIONS.c.table_id == _TABLES.c.id))
        .where(
            _TABLES.c.node_id == _NODES.c.id,
            _TABLES.c.status.in_(_NOT_CLOSED),
            _SESSIONS.c.state != SeatSessionState.CLOSED.value,
        )
        .scalar_subquery()
    )


def node_loads(now: datetime) -> sa.Select[Any]:
    """The live nodes (as :func:`live_nodes`) with their load: ``(id, players,
    open_tables)``, least loaded first (seated players, then open tables, then id)."""
    # Ordered by the columns' names: each count is made once per node, not again for the order.
    players = _seated_players().label("players")
    open_tables = _open_tables().label("open_tables")
    return (
        sa.select(_NODES.c.id, players, open_tables)
        .where(_live(now))
        .order_by(players, open_tables, _NODES.c.id)
    )
