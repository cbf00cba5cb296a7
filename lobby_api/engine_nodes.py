"""Which engine node serves a table: the lobby's calls go there, players are sent there.

Engine nodes register in the database (``engine_nodes``) with the addresses they advertise,
and each table names its owner (``tables.node_id``); the lobby reads both through its read
port (:mod:`lobby_api.engine_reads`).
:class:`TableEngines` has the methods of :class:`~lobby_api.engine_client.EngineClient` the
lobby uses, each routed to the node that owns the table, with one client (one channel) per
node address, reused. A new quick game goes to the live node (lease not run out, serving)
with the fewest open tables (:meth:`TableEngines.choose`); the lobby records its choice on
the table it is opening (the quick table), so a retried CreateTable goes to the same node
(``planned`` looks that choice up).

With no node registered (an engine older than the registry), or none live, everything goes
to ``STUD_LOBBY_ENGINE`` and players are given ``STUD_LOBBY_ENGINE_PUBLIC_GRPC`` and
``STUD_LOBBY_ENGINE_WEB``, as before nodes existed; the engine that answers there records
itself as the table's owner, and later calls follow that.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession
from stud.v1 import admin_service_pb2, table_pb2

from lobby_api import engine_reads
from lobby_api.db import Database
from lobby_api.engine_client import EngineClient, EngineError, TableSpec
from lobby_api.settings import LobbySettings

__all__ = ["EngineRoute", "PlannedNode", "TableEngines"]

T = TypeVar("T")

#: The node the lobby chose for a table it is opening, by table id (None: none chosen).
PlannedNode = Callable[[AsyncSession, str], Awaitable[str | None]]


async def _nothing_planned(session: AsyncSession, table_id: str) -> str | None:
    return None


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
    ) -> None:
        self.db = db
        self.default = default
        self.settings = settings
        self.planned = planned
        self._clients: dict[str, EngineClient] = {default.address: default}

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
        """The node a new table should go to: the live one with the fewest open tables
        (None: no node is live, the table goes to STUD_LOBBY_ENGINE)."""
        return await engine_reads.least_loaded_live_node(session)

    async def route(self, table_id: str) -> EngineRoute:
        """The table's node: its owner once the engine created it, else the node the lobby
        chose for it."""
        async with self.db.read() as session:
            owner = await engine_reads.table_owner(session, table_id)
            if owner is None:
                owner = await self.planned(session, table_id)
            node = await engine_reads.node(session, owner) if owner is not None else None
        return self._route(node)

    async def _node_route(self, node_id: str) -> EngineRoute:
        async with self.db.read() as session:
            node = await engine_reads.node(session, node_id)
        return self._route(node)

    async def _call(self, table_id: str, call: Callable[[EngineClient], Awaitable[T]]) -> T:
        """``call`` on the table's node; once more on the node named by a refusal
        ``TABLE_ON_OTHER_NODE`` (the owner changed since it was read)."""
        route = await self.route(table_id)
        try:
            return await call(route.client)
        except EngineError as error:
            owner = error.metadata.get("node")
            if error.reason != "TABLE_ON_OTHER_NODE" or not owner or owner == route.node_id:
                raise
            other = await self._node_route(owner)
            if other.node_id is None:
                raise
        return await call(other.client)

    # -- the EngineClient calls the lobby makes, routed

    async def create_table(self, spec: TableSpec) -> table_pb2.Table:
        return await self._call(spec.table_id, lambda c: c.create_table(spec))

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
