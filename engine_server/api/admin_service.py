"""``stud.v1.AdminService``: ops (admin token) and the lobby (service token) steer tables."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from google.protobuf import json_format
from stud.v1 import admin_service_pb2, admin_service_pb2_grpc, table_pb2

from engine_server.api.convert import (
    STATUS_FROM_PROTO,
    hand_result_message,
    session_message,
    settings_message,
    snapshot_message,
    table_status_message,
    timestamp,
    tournament_info_from_message,
    tournament_state_message,
)
from engine_server.api.errors import ErrorObserver, abort, invalid
from engine_server.api.table_service import _grpc_headers, authenticate, parse_table_name
from engine_server.auth import Identity, Scope
from engine_server.game.profiles import Stakes
from engine_server.table.errors import TableError
from engine_server.table.manager import (
    OpenerSeat,
    TableManager,
    TableSpec,
    build_config,
    check_client_seed,
    check_stakes,
)
from engine_server.table.model import (
    Destination,
    Removal,
    TableConfig,
    TableStatus,
    TournamentTable,
)
from engine_server.table.ports import NodeDirectory, NodeEntry
from engine_server.table.rules.chips import check_buy_in
from engine_server.table.runtime import TableRuntime

__all__ = ["LOBBY_METHODS", "GrpcAdminService", "node_message", "table_message"]

log = logging.getLogger("stud.admin")
audit = logging.getLogger("stud.audit")

#: what the lobby's service token may call; everything else needs the admin token
LOBBY_METHODS = frozenset(
    {
        "CreateTable",
        "SeatPlayer",
        "AddChips",
        "ListTables",
        "RemovePlayer",
        "RotateSeed",
        "CloseTable",
        "ListSeatSessions",
        # The tournament director (the lobby) steers its tables.
        "SetStakes",
        "MovePlayer",
        "SetHandHold",
        "SetTournamentInfo",
        "AwardPlace",
    }
)

MAX_TEXT = 500

#: The values a filter may name (UNSPECIFIED is never sent, so it filters nothing), by field.
_STATUSES = ("statuses", table_pb2.TableStatus, frozenset(STATUS_FROM_PROTO))
_STATES = (
    "states",
    table_pb2.SeatSessionState,
    frozenset(
        v
        for v in table_pb2.SeatSessionState.values()
        if v != table_pb2.SEAT_SESSION_STATE_UNSPECIFIED
    ),
)


def _known(values: Any, allowed: tuple[str, Any, frozenset[int]]) -> list[int]:
    """``values`` of an enum filter, each one of the enum's values (an unknown number, which
    proto3 keeps as it came, or UNSPECIFIED is refused: it would filter nothing)."""
    field, enum, known = allowed
    for value in values:
        if value not in known:
            name = enum.DESCRIPTOR.values_by_number.get(value)
            shown = name.name if name is not None else str(value)
            raise invalid(field, f"{field}: {shown} is not a {enum.DESCRIPTOR.name} to filter by")
    return list(values)


def table_message(runtime: TableRuntime) -> table_pb2.Table:
    # Seats without cards, with their seat session ids (table.proto: Table.seats).
    view = runtime.view(None, sessions=True)
    snapshot = snapshot_message(view)
    message = table_pb2.Table(
        name=runtime.config.name,
        settings=settings_message(runtime.config),
        status=table_status_message(runtime.status),
        labels=runtime.config.labels,
        opener_player_id=runtime.config.opener_player_id or "",
        seats=snapshot.seats,
        hand_number=runtime.hand_number,
        hand_in_progress=runtime.hand_running,
        seed=table_pb2.SeedPair(
            commitment=runtime.seed.commitment,
            client_seed=runtime.seed.client_seed,
            hands_dealt=runtime.seed.next_nonce,
        ),
        next_commitment=runtime.seed.next_commitment,
        watchers=view.watchers,
    )
    if view.tournament is not None:
        message.tournament.CopyFrom(tournament_state_message(view.tournament))
    if runtime.status is TableStatus.CLOSED:
        # Closing revealed the pair that was dealing (table.proto: set once closed).
        message.seed.dealer_seed = runtime.seed.dealer_seed
    return message


def _text(value: str, field: str) -> str:
    if len(value) > MAX_TEXT:
        raise invalid(field, f"{field} is longer than {MAX_TEXT} characters")
    return value


def _id(value: str, field: str, limit: int = 64) -> str:
    if not value or len(value) > limit or not value.isprintable():
        raise invalid(field, f"{field} must be 1-{limit} printable characters")
    return value


def _opener_seat(request: Any, config: TableConfig) -> OpenerSeat:
    """CreateTable's opener_seat, checked as SeatPlayer checks its request."""
    if config.tournament is not None:
        raise invalid("opener_seat", "a tournament table opens without a seat")
    player_id = _id(request.opener_player_id, "opener_player_id")
    seat = request.opener_seat
    check_buy_in(config, seat.buy_in, "opener_seat.buy_in")
    return OpenerSeat(
        session_id=_id(seat.seat_session_id, "opener_seat.seat_session_id"),
        player_id=player_id,
        display_name=_id(seat.display_name or player_id, "opener_seat.display_name"),
        buy_in=seat.buy_in,
    )


_NODE_STATES = {
    "starting": admin_service_pb2.ENGINE_NODE_STATE_STARTING,
    "serving": admin_service_pb2.ENGINE_NODE_STATE_SERVING,
    "draining": admin_service_pb2.ENGINE_NODE_STATE_DRAINING,
    "stopped": admin_service_pb2.ENGINE_NODE_STATE_STOPPED,
}


def node_message(node: NodeEntry) -> admin_service_pb2.EngineNode:
    """ListNodes' message for one node of the registry."""
    return admin_service_pb2.EngineNode(
        id=node.id,
        state=_NODE_STATES.get(node.state, admin_service_pb2.ENGINE_NODE_STATE_UNSPECIFIED),
        epoch=node.epoch,
        admin_address=node.admin_address,
        grpc_address=node.grpc_address,
        web_url=node.web_url,
        started_at=timestamp(node.started_at),
        heartbeat_at=timestamp(node.heartbeat_at),
        expires_at=timestamp(node.expires_at),
        live=node.live,
        open_tables=node.open_tables,
        seated_players=node.seated_players,
    )


class GrpcAdminService(admin_service_pb2_grpc.AdminServiceServicer):
    def __init__(
        self,
        manager: TableManager,
        secret: str,
        on_refused: ErrorObserver | None = None,
        on_drain: Callable[[], Awaitable[None]] | None = None,
        registry: NodeDirectory | None = None,
    ) -> None:
        self.manager = manager
        #: the node registry on the store's database (ListNodes); None without one
        self.registry = registry
        self.secret = secret
        #: told of every refusal (metrics)
        self.on_refused = on_refused
        #: called when ops drain the node (the registry marks it draining: no new tables)
        self.on_drain = on_drain

    async def _run(
        self,
        method: str,
        context: Any,
        body: Callable[[Identity], Awaitable[Any]],
    ) -> Any:
        try:
            identity = authenticate(_grpc_headers(context), self.secret)
            allowed = identity.has(Scope.ADMIN) or (
                identity.has(Scope.LOBBY) and method in LOBBY_METHODS
            )
            if not allowed:
                raise TableError.denied(
                    "ADMIN_REQUIRED", f"{method} needs the admin token", method=method
                )
            return await body(identity)
        except TableError as error:
            await abort(context, error, self.on_refused)

    async def ListNodes(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            listed = (
                await self.registry.listing(datetime.now(UTC)) if self.registry is not None else []
            )
            return admin_service_pb2.ListNodesResponse(
                nodes=[node_message(entry) for entry in listed],
                answered_by=self.manager.node_id,
            )

        return await self._run("ListNodes", context, body)

    async def _table(self, name: str, field: str = "name") -> TableRuntime:
        # Closed tables too: ops see them, and retries of requests made there get their answers.
        return await self.manager.find(parse_table_name(name, field))

    async def CreateTable(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            request_id = _id(request.request_id, "request_id")
            table_id = request.table_id or request_id.lower()
            stakes = request.stakes
            tournament = (
                TournamentTable(
                    request.tournament.tournament_id,
                    request.tournament.table_name,
                    request.tournament.table_number,
                )
                if request.HasField("tournament")
                else None
            )
            config = build_config(
                table_id=table_id,
                profile=request.profile or "house",
                overrides=json_format.MessageToDict(request.rule_overrides),
                stakes=Stakes(stakes.ante, stakes.bring_in, stakes.small_bet, stakes.big_bet),
                private=request.private,
                min_buy_in=request.min_buy_in,
                max_buy_in=request.max_buy_in,
                opener_player_id=request.opener_player_id or None,
                labels=dict(request.labels),
                tournament=tournament,
            )
            client_seed = check_client_seed(request.client_seed or table_id.replace("-", "_"))
            opener = _opener_seat(request, config) if request.HasField("opener_seat") else None
            runtime = await self.manager.create_table(
                TableSpec(request_id, config, client_seed, opener)
            )
            log.info("table %s created by %s", table_id, identity.subject)
            if opener is None:
                return admin_service_pb2.CreateTableResponse(table=table_message(runtime))
            # Seated by the write that created the table: answered from memory. A retry of
            # a CreateTable that did not seat him (an older lobby's) seats him now.
            session = await runtime.seat_player(
                opener.session_id, opener.player_id, opener.display_name, 0, opener.buy_in
            )
            return admin_service_pb2.CreateTableResponse(
                table=table_message(runtime), opener_session=session_message(session)
            )

        return await self._run("CreateTable", context, body)

    async def SeatPlayer(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.table, "table")
            session = await runtime.seat_player(
                _id(request.seat_session_id, "seat_session_id"),
                _id(request.player_id, "player_id"),
                _id(request.display_name or request.player_id, "display_name"),
                request.seat,
                request.buy_in,
            )
            return admin_service_pb2.SeatPlayerResponse(session=session_message(session))

        return await self._run("SeatPlayer", context, body)

    async def AddChips(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.table, "table")
            session = await runtime.add_chips(
                _id(request.seat_session_id, "seat_session_id"),
                _id(request.request_id, "request_id"),
                request.amount,
            )
            return admin_service_pb2.AddChipsResponse(session=session_message(session))

        return await self._run("AddChips", context, body)

    async def ListTables(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            if request.page_size < 0:
                raise invalid("page_size", "page_size must not be negative")
            size = min(request.page_size or 50, 500)
            statuses = [STATUS_FROM_PROTO[s] for s in _known(request.statuses, _STATUSES)]
            # The store filters by label before it pages: filtering a page afterwards would
            # return short (even empty) pages while matching tables remain.
            tables, token = await self.manager.list_tables(
                size,
                request.page_token,
                statuses,
                include_private=identity.has(Scope.ADMIN),
                labels=dict(request.labels),
                all_nodes=request.all_nodes,
            )
            answer = admin_service_pb2.ListTablesResponse(
                tables=[table_message(t) for t in tables], next_page_token=token
            )
            if request.all_nodes:
                placed = await self.manager.placements([t.table_id for t in tables])
                for table_id, where in placed.items():
                    answer.placements[f"tables/{table_id}"].CopyFrom(
                        admin_service_pb2.TablePlacement(
                            node=where.node,
                            node_live=where.node_live,
                            owner_epoch=where.owner_epoch,
                        )
                    )
            return answer

        return await self._run("ListTables", context, body)

    async def GetTable(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            # Any node answers for the whole room (ops' one view): its own tables in full,
            # another node's as the database has them, each with where it is served.
            table_id = parse_table_name(request.name, "name")
            reason = _text(request.reason, "reason")
            runtime, placed, detailed = await self.manager.inspect(table_id)
            shown = "every card shown" if detailed else "as stored"
            if not detailed and placed is not None:
                shown += f", served by node {placed.node}"
            audit.warning(
                "GetTable %s by %s (%s), reason: %s",
                runtime.config.name,
                identity.subject,
                shown,
                reason or "-",
                extra={"table": runtime.table_id, "caller": identity.subject},
            )
            answer = admin_service_pb2.GetTableResponse(table=table_message(runtime))
            if detailed:
                answer.snapshot.CopyFrom(snapshot_message(runtime.view(None, reveal_all=True)))
            if placed is not None:
                answer.placement.CopyFrom(
                    admin_service_pb2.TablePlacement(
                        node=placed.node,
                        node_live=placed.node_live,
                        owner_epoch=placed.owner_epoch,
                    )
                )
            return answer

        return await self._run("GetTable", context, body)

    async def PauseTable(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.name)
            await runtime.pause(_text(request.reason, "reason"))
            return admin_service_pb2.PauseTableResponse(table=table_message(runtime))

        return await self._run("PauseTable", context, body)

    async def ResumeTable(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.name)
            await runtime.resume()
            return admin_service_pb2.ResumeTableResponse(table=table_message(runtime))

        return await self._run("ResumeTable", context, body)

    async def CloseTable(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.name)
            sessions = await runtime.close(_text(request.reason, "reason"))
            return admin_service_pb2.CloseTableResponse(
                table=table_message(runtime), sessions=[session_message(s) for s in sessions]
            )

        return await self._run("CloseTable", context, body)

    async def CancelHand(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.name)
            last = await runtime.cancel_hand(request.hand_number, _text(request.reason, "reason"))
            return admin_service_pb2.CancelHandResponse(result=hand_result_message(last))

        return await self._run("CancelHand", context, body)

    async def RemovePlayer(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.table, "table")
            session = await runtime.remove_player(
                _id(request.seat_session_id, "seat_session_id"),
                Removal(_text(request.reason, "reason"), by_player=request.by_player),
            )
            return admin_service_pb2.RemovePlayerResponse(session=session_message(session))

        return await self._run("RemovePlayer", context, body)

    async def RotateSeed(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.name)
            client_seed = check_client_seed(request.client_seed) if request.client_seed else None
            revealed, current = await runtime.rotate_seed(client_seed)
            return admin_service_pb2.RotateSeedResponse(
                revealed=table_pb2.SeedPair(
                    commitment=revealed.commitment,
                    client_seed=revealed.client_seed,
                    dealer_seed=revealed.dealer_seed,
                    hands_dealt=revealed.hands_dealt,
                ),
                current=table_pb2.SeedPair(
                    commitment=current.commitment,
                    client_seed=current.client_seed,
                    hands_dealt=current.next_nonce,
                ),
                next_commitment=current.next_commitment,
            )

        return await self._run("RotateSeed", context, body)

    async def Drain(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            if self.on_drain is not None:
                await self.on_drain()
            moved = 0
            if request.move_tables:
                tables, hands, moved = await self.manager.drain_onto_others()
            else:
                tables, hands = await self.manager.drain(kept=True)
            log.warning(
                "node drained by %s: %d tables, %d hands finished, %d tables moved",
                identity.subject,
                tables,
                hands,
                moved,
            )
            return admin_service_pb2.DrainResponse(
                tables=tables, hands_finished=hands, tables_moved=moved
            )

        return await self._run("Drain", context, body)

    async def MoveTable(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            table_id = parse_table_name(request.name, "name")
            to_node = _id(request.node, "node") if request.node else None
            if to_node is None:
                await self.manager.check_own(table_id)
                to_node = await self.manager.least_loaded_node()
                if to_node is None:
                    raise invalid("node", "no other engine node is live to take the table")
            waited = await self.manager.move(table_id, to_node)
            log.warning(
                "tables/%s moved to engine node %s by %s", table_id, to_node, identity.subject
            )
            grpc_address, web_url = await self.manager.node_addresses(to_node) or ("", "")
            return admin_service_pb2.MoveTableResponse(
                node=to_node, grpc_address=grpc_address, web_url=web_url, waited_for_hand=waited
            )

        return await self._run("MoveTable", context, body)

    async def ListSeatSessions(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            table_id = parse_table_name(request.table, "table") if request.table else None
            if table_id is not None:
                await self.manager.check_own(table_id)
            if request.page_size < 0:
                raise invalid("page_size", "page_size must not be negative")
            sessions, token = await self.manager.list_sessions(
                table_id,
                [table_pb2.SeatSessionState.Name(s) for s in _known(request.states, _STATES)],
                min(request.page_size or 100, 1000),
                request.page_token,
            )
            return admin_service_pb2.ListSeatSessionsResponse(
                sessions=[session_message(s) for s in sessions], next_page_token=token
            )

        return await self._run("ListSeatSessions", context, body)

    # ---------------------------------------------------------- the tournament director

    async def SetStakes(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.name)
            given = request.stakes
            stakes = check_stakes(
                Stakes(given.ante, given.bring_in, given.small_bet, given.big_bet)
            )
            first = await runtime.set_stakes(request.level, stakes)
            return admin_service_pb2.SetStakesResponse(
                table=table_message(runtime), from_hand_number=first
            )

        return await self._run("SetStakes", context, body)

    async def MovePlayer(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.table, "table")
            destination = Destination(
                f"tables/{parse_table_name(request.destination_table, 'destination_table')}",
                _text(request.grpc_address, "grpc_address"),
                _text(request.web_url, "web_url"),
            )
            if destination.table == runtime.config.name:
                raise invalid("destination_table", "a player is moved to another table")
            session = await runtime.move_player(
                _id(request.seat_session_id, "seat_session_id"),
                _id(request.request_id, "request_id"),
                destination,
            )
            log.info(
                "tables/%s: seat session %s moved to %s by %s",
                runtime.table_id,
                session.session_id,
                destination.table,
                identity.subject,
            )
            return admin_service_pb2.MovePlayerResponse(session=session_message(session))

        return await self._run("MovePlayer", context, body)

    async def SetHandHold(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.name)
            await runtime.set_hand_hold(request.held)
            return admin_service_pb2.SetHandHoldResponse(table=table_message(runtime))

        return await self._run("SetHandHold", context, body)

    async def SetTournamentInfo(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.name)
            await runtime.set_tournament_info(tournament_info_from_message(request.info))
            return admin_service_pb2.SetTournamentInfoResponse(table=table_message(runtime))

        return await self._run("SetTournamentInfo", context, body)

    async def AwardPlace(self, request: Any, context: Any) -> Any:
        async def body(identity: Identity) -> Any:
            runtime = await self._table(request.name)
            player_id = _id(request.player_id, "player_id")
            await runtime.award_place(
                player_id,
                _id(request.display_name or player_id, "display_name"),
                request.place,
                request.prize,
            )
            return admin_service_pb2.AwardPlaceResponse()

        return await self._run("AwardPlace", context, body)
