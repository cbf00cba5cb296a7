"""Which engine node serves a table: the lobby's calls go there, players are sent there.

Engine nodes register in the database (``engine_nodes``) with the addresses they advertise,
and each table names its owner (``tables.node_id``); the lobby reads both through its read
port (:mod:`lobby_api.engine_reads`).
:class:`TableEngines` has the methods of :class:`~lobby_api.engine_client.EngineClient` the
lobby uses, each routed to the node that owns the table, with one client (one channel) per
node address, reused. A new quick game goes to the least loaded live node (lease not run
out, serving; seated players, then open tables: :meth:`TableEngines.choose`, one choice at
a time, whichever lobby replica makes it); the lobby records its choice on
the table it is opening (the quick table), so a retried CreateTable goes to the same node
(``planned`` looks that choice up).

With no node registered (an engine older than the registry), or none live, everything goes
to ``STUD_LOBBY_ENGINE`` and players are given ``STUD_LOBBY_ENGINE_PUBLIC_GRPC`` and
``STUD_LOBBY_ENGINE_WEB``, as before nodes existed; the engine that answers there records
itself as the table's owner, and later calls follow that.

Routes are remembered (issue 16: a quick game read its table's route three times, five round
trips each): the node that answered for a table (or the one the lobby chose for a table it
is opening, :meth:`TableEngines.expect`) is kept for the table, and a node's addresses for
:data:`NODE_SECONDS`. A remembered route that went stale corrects itself: a node that no
longer owns the table refuses with ``TABLE_ON_OTHER_NODE`` or ``TABLE_MOVED`` naming the
owner (the call goes there), and a node that cannot be reached is forgotten and the route read afresh (the call
goes again if that names another node or address).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession
from stud.v1 import admin_service_pb2, table_pb2

from lobby_api import engine_reads
from lobby_api.db import Database
from lobby_api.engine_client import EngineClient, EngineError, TableSpec
from lobby_api.settings import LobbySettings

__all__ = [
    "NODE_SECONDS",
    "OWNERS_KEPT",
    "EngineRoute",
    "PendingTables",
    "PlannedNode",
    "TableEngines",
]

T = TypeVar("T")

#: How long a node's addresses, once read, are taken as they are (a node that restarts on
#: other ports is followed at the first call that cannot reach it, or after this long).
NODE_SECONDS = 5.0
#: How many tables' owners are remembered (the most recently used).
OWNERS_KEPT = 10_000

#: The node the lobby chose for a table it is opening, by table id (None: none chosen).
PlannedNode = Callable[[AsyncSession, str], Awaitable[str | None]]


#: What the lobby has placed on each node that the engine does not count yet, by node id:
#: (players not seated there yet, tables not created there yet).
PendingTables = Callable[[AsyncSession], Awaitable[dict[str, tuple[int, int]]]]


async def _nothing_planned(session: AsyncSession, table_id: str) -> str | None:
    return None


async def _nothing_pending(session: AsyncSession) -> dict[str, tuple[int, int]]:
    return {}


@dataclass(frozen=True, slots=True)
class EngineRoute:
    """Where a table is served: the node (None: STUD_LOBBY_ENGINE), the lobby's client of
    it, and the addresses players are given."""

    node_id: str | None
    client: EngineClient
    grpc: str
    web: str


class TableEngines:
    """The engine calls of the lobby, each sent to the node that owns the table."""

    def __init__(
        self,
        db: Database,
        default: EngineClient,
        settings: LobbySettings,
        planned: PlannedNode = _nothing_planned,
        pending: PendingTables = _nothing_pending,
    ) -> None:
        self.db = db
        self.default = default
        self.settings = settings
        self.planned = planned
        self.pending = pending
        self._clients: dict[str, EngineClient] = {default.address: default}
        #: table id → the node that answered for it (or was chosen for it), most recent last
        self._owners: OrderedDict[str, str] = OrderedDict()
        #: node id → (when read, by the monotonic clock; the node, None: not registered)
        self._nodes: dict[str, tuple[float, engine_reads.EngineNode | None]] = {}

    def client(self, address: str) -> EngineClient:
        """The client of the engine at ``address`` (one per address, kept)."""
        found = self._clients.get(address)
        if found is None:
            found = self._clients[address] = EngineClient(
                address, self.settings.jwt_secret, timeout=self.settings.engine_timeout_seconds
            )
        return found

    async def close(self) -> None:
        """Close the clients this made (the default one is its creator's)."""
        for address, client in list(self._clients.items()):
            if client is not self.default:
                await client.close()
                del self._clients[address]

    @property
    def fallback(self) -> EngineRoute:
        return EngineRoute(
            None, self.default, self.settings.engine_grpc_public, self.settings.engine_grpc_web
        )

    def _route(self, node: engine_reads.EngineNode | None) -> EngineRoute:
        if node is None:
            return self.fallback
        return EngineRoute(
            node.id, self.client(node.admin_address), node.grpc_address, node.web_url
        )

    async def choose(self, session: AsyncSession) -> str | None:
        """The node a new table should go to: the least loaded live one — seated players,
        the tables placed there and not opened yet included, then open tables (None: no node
        is live, the table goes to STUD_LOBBY_ENGINE). ``session``: the write transaction
        recording the choice (the placement lock is held until it ends; with one live node
        or none nothing is counted and no lock taken)."""
        live = await engine_reads.live_node_ids(session)
        if len(live) <= 1:
            # Nothing to balance: no counts to read, no lock to wait for (issue 16: on a
            # room of one node, the counts cost more than the rest of the placement).
            return live[0] if live else None
        await engine_reads.lock_placement(session)
        return await engine_reads.least_loaded_live_node(session, await self.pending(session))

    async def spread(self, session: AsyncSession, players: Sequence[int]) -> list[str | None]:
        """Nodes for several new tables at once (a tournament's draw: ``players`` seated at
        each): each the least loaded live node once the tables chosen before it are counted
        there, so the tables spread over the nodes (one :meth:`choose` for all of them put
        every table of a 1,000-player tournament on one node). Under the placement lock, as
        :meth:`choose`."""
        live = await engine_reads.live_node_ids(session)
        if len(live) <= 1:
            return [live[0] if live else None for _ in players]
        await engine_reads.lock_placement(session)
        pending = dict(await self.pending(session))
        chosen: list[str | None] = []
        for count in players:
            node = await engine_reads.least_loaded_live_node(session, pending)
            chosen.append(node)
            if node is not None:
                seated, tables = pending.get(node, (0, 0))
                pending[node] = (seated + count, tables + 1)
        return chosen

    def expect(self, table_id: str, node_id: str | None) -> None:
        """The lobby chose ``node_id`` for a table it is opening: its calls go there."""
        if node_id is not None:
            self._remember(table_id, node_id)

    def _remember(self, table_id: str, node_id: str) -> None:
        self._owners[table_id] = node_id
        self._owners.move_to_end(table_id)
        while len(self._owners) > OWNERS_KEPT:
            self._owners.popitem(last=False)

    def _forget(self, table_id: str, node_id: str | None) -> None:
        self._owners.pop(table_id, None)
        if node_id is not None:
            self._nodes.pop(node_id, None)

    async def route(self, table_id: str) -> EngineRoute:
        """The table's node: its owner once the engine created it, else the node the lobby
        chose for it (remembered once known: see the module's docstring)."""
        known = self._owners.get(table_id)
        if known is not None:
            self._owners.move_to_end(table_id)
            return await self._node_route(known)
        return await self._read_route(table_id)

    async def _read_route(self, table_id: str, session: AsyncSession | None = None) -> EngineRoute:
        """The table's route read from the database: in ``session`` (the caller's
        transaction), or in a read transaction of its own."""
        if session is None:
            async with self.db.read() as own:
                return await self._read_route(table_id, own)
        owner = await engine_reads.table_owner(session, table_id)
        if owner is None:
            owner = await self.planned(session, table_id)
        node = await engine_reads.node(session, owner) if owner is not None else None
        if node is not None:
            self._nodes[node.id] = (time.monotonic(), node)
        return self._route(node)

    async def addresses(self, table_id: str, session: AsyncSession | None = None) -> dict[str, str]:
        """The addresses players are given for the table, as it is served now (a stored
        answer's are those of the node at the time: the table may have moved since):
        ``engine_grpc`` and ``engine_grpc_web``. Read afresh, not remembered: a player must
        be sent where the table is now (another node may have taken it over, or ops moved
        it). Every lobby answer naming a table's engine comes from here (tickets, quick
        games, tournament entries and tables, ``GET /tables/{table_id}``): a client whose
        node died without a word asks one of them again (docs/operations.md). ``session``:
        read in the caller's transaction (one round trip fewer than a transaction of its own).
        """
        route = await self._read_route(table_id, session)
        if route.node_id is not None:
            self._remember(table_id, route.node_id)
        return {"engine_grpc": route.grpc, "engine_grpc_web": route.web}

    async def _node_route(self, node_id: str) -> EngineRoute:
        cached = self._nodes.get(node_id)
        if cached is not None and time.monotonic() - cached[0] < NODE_SECONDS:
            return self._route(cached[1])
        async with self.db.read() as session:
            node = await engine_reads.node(session, node_id)
        self._nodes[node_id] = (time.monotonic(), node)
        return self._route(node)

    async def _call(self, table_id: str, call: Callable[[EngineClient], Awaitable[T]]) -> T:
        """``call`` on the table's node; once more on the node named by a refusal
        ``TABLE_ON_OTHER_NODE`` (the owner changed since it was read), or on the route read
        afresh when a remembered one could not be reached and the table is elsewhere now."""
        remembered = table_id in self._owners
        route = await self.route(table_id)
        try:
            answer = await call(route.client)
        except EngineError as error:
            other = await self._elsewhere(table_id, route, error, remembered)
            if other is None:
                raise
            answer = await call(other.client)
            route = other
        if route.node_id is not None:
            self._remember(table_id, route.node_id)
        return answer

    async def _elsewhere(
        self, table_id: str, route: EngineRoute, error: EngineError, remembered: bool
    ) -> EngineRoute | None:
        """Where to try a call again that failed at ``route`` (None: nowhere)."""
        if error.reason in ("TABLE_ON_OTHER_NODE", "TABLE_MOVED"):
            owner = error.metadata.get("node")
            if not owner or owner == route.node_id:
                return None
            other = await self._node_route(owner)
            return other if other.node_id is not None else None
        if not error.transient:
            return None  # a refusal by the table's node: nothing to correct
        self._forget(table_id, route.node_id)
        if not remembered:
            return None
        # The remembered node could not be reached: if the table is elsewhere now (another
        # owner, or its node moved to other addresses), go there; a node that lost the table
        # is fenced, so the call cannot have been applied where it failed.
        fresh = await self._read_route(table_id)
        if (fresh.node_id, fresh.client.address) == (route.node_id, route.client.address):
            return None
        return fresh

    # -- the EngineClient calls the lobby makes, routed

    async def create_table(self, spec: TableSpec) -> table_pb2.Table:
        return await self._call(spec.table_id, lambda c: c.create_table(spec))

    async def open_table(self, spec: TableSpec) -> admin_service_pb2.CreateTableResponse:
        return await self._call(spec.table_id, lambda c: c.open_table(spec))

    async def seat_player(
        self,
        table_id: str,
        seat_session_id: str,
        player_id: str,
        display_name: str,
        buy_in: int,
        seat: int = 0,
    ) -> table_pb2.SeatSession:
        return await self._call(
            table_id,
            lambda c: c.seat_player(
                table_id, seat_session_id, player_id, display_name, buy_in, seat
            ),
        )

    async def add_chips(
        self, table_id: str, seat_session_id: str, request_id: str, amount: int
    ) -> table_pb2.SeatSession:
        return await self._call(
            table_id, lambda c: c.add_chips(table_id, seat_session_id, request_id, amount)
        )

    async def remove_player(
        self,
        table_id: str,
        seat_session_id: str,
        reason: str = "left through the lobby",
        *,
        by_player: bool = False,
    ) -> table_pb2.SeatSession:
        return await self._call(
            table_id,
            lambda c: c.remove_player(table_id, seat_session_id, reason, by_player=by_player),
        )

    async def rotate_seed(
        self, table_id: str, client_seed: str = ""
    ) -> admin_service_pb2.RotateSeedResponse:
        return await self._call(table_id, lambda c: c.rotate_seed(table_id, client_seed))

    async def close_table(
        self, table_id: str, reason: str = "everyone left"
    ) -> admin_service_pb2.CloseTableResponse:
        return await self._call(table_id, lambda c: c.close_table(table_id, reason))

    async def list_seat_sessions(
        self, table_id: str, states: Sequence[Any] = ()
    ) -> list[table_pb2.SeatSession]:
        return await self._call(table_id, lambda c: c.list_seat_sessions(table_id, states))

    async def call(self, table_id: str, call: Callable[[EngineClient], Awaitable[T]]) -> T:
        """Any call on the table's node (the tournament director's calls)."""
        return await self._call(table_id, call)
