"""The lobby's client of the engine's ``AdminService`` (gRPC, the lobby's service token).

Only the methods the lobby's token may call (``LOBBY_METHODS`` in
:mod:`engine_server.api.admin_service`) are used. Every call that moves chips is
idempotent on an id the lobby chose (``request_id``, ``seat_session_id``), so a
call whose answer was lost is simply made again. A refusal is an
:class:`EngineError` carrying the engine's ``ErrorInfo`` reason (e.g.
``HAND_IN_PROGRESS``) and the field it names; ``transient`` tells an engine that
could not be reached (retry later) from a definite refusal.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import struct_pb2
from google.rpc import error_details_pb2, status_pb2
from stud.v1 import admin_service_pb2, admin_service_pb2_grpc, settings_pb2, table_pb2

from engine_server.auth import Scope, mint_token

__all__ = ["EngineClient", "EngineError", "TableSpec"]

_TRANSIENT = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)
_TOKEN_TTL = 3600


class EngineError(Exception):
    """The engine refused a call, or could not be reached (``transient``)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{reason or code.name}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = metadata or {}

    @property
    def transient(self) -> bool:
        return self.code in _TRANSIENT

    @property
    def field(self) -> str | None:
        return self.metadata.get("field")

    @classmethod
    def of(cls, error: grpc.aio.AioRpcError) -> EngineError:
        reason, metadata = "", {}
        for key, value in error.trailing_metadata() or ():
            if key == "grpc-status-details-bin" and isinstance(value, bytes):
                status = status_pb2.Status.FromString(value)
                for detail in status.details:
                    info = error_details_pb2.ErrorInfo()
                    if detail.Unpack(info):
                        reason, metadata = info.reason, dict(info.metadata)
        return cls(error.code(), reason, error.details() or "", metadata)


@dataclass(frozen=True, slots=True)
class TableSpec:
    """What CreateTable needs for a quick game."""

    request_id: str
    table_id: str
    profile: str
    ante: int
    bring_in: int
    small_bet: int
    big_bet: int
    min_buy_in: int
    max_buy_in: int
    client_seed: str
    opener_player_id: str
    rule_overrides: dict[str, Any] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    #: A tournament table (min and max buy-in then 0): its tournament id, name and number.
    tournament: settings_pb2.TournamentTable | None = None
    #: The opener's seat, taken in the same engine write as the table (a quick game).
    opener_seat: admin_service_pb2.OpenerSeat | None = None


class EngineClient:
    """AdminService calls with the lobby's service token, on one shared channel."""

    def __init__(self, address: str, secret: str, *, timeout: float = 10.0) -> None:
        self.address = address
        self._secret = secret
        self._timeout = timeout
        self._channel: grpc.aio.Channel | None = None
        self._stub: admin_service_pb2_grpc.AdminServiceStub | None = None
        self._token = ""
        self._token_until = 0.0

    def _admin(self) -> admin_service_pb2_grpc.AdminServiceStub:
        if self._stub is None:
            self._channel = grpc.aio.insecure_channel(self.address)
            self._stub = admin_service_pb2_grpc.AdminServiceStub(self._channel)
        return self._stub

    def _metadata(self) -> tuple[tuple[str, str]]:
        now = time.time()
        if now >= self._token_until:
            self._token = mint_token(self._secret, "lobby", [Scope.LOBBY], ttl_seconds=_TOKEN_TTL)
            self._token_until = now + _TOKEN_TTL / 2
        return (("authorization", f"Bearer {self._token}"),)

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
        self._channel = self._stub = None

    async def _call(self, method: str, request: Any, *, retries: int = 2) -> Any:
        """Call ``method``; a failure to connect is retried (every method used is idempotent)."""
        attempt = 0
        while True:
            rpc = getattr(self._admin(), method)
            try:
                return await rpc(request, metadata=self._metadata(), timeout=self._timeout)
            except grpc.aio.AioRpcError as raw:
                error = EngineError.of(raw)
                if error.code is not grpc.StatusCode.UNAVAILABLE or attempt >= retries:
                    raise error from None
            attempt += 1
            await asyncio.sleep(0.05 * 2**attempt)

    async def create_table(self, spec: TableSpec) -> table_pb2.Table:
        return (await self.open_table(spec)).table

    async def open_table(self, spec: TableSpec) -> admin_service_pb2.CreateTableResponse:
        """CreateTable, answered in full: the table, and the opener's seat session when
        ``spec.opener_seat`` asked for one (unset: an engine that does not seat at creation)."""
        overrides = struct_pb2.Struct()
        overrides.update(spec.rule_overrides)
        response: admin_service_pb2.CreateTableResponse = await self._call(
            "CreateTable",
            admin_service_pb2.CreateTableRequest(
                request_id=spec.request_id,
                table_id=spec.table_id,
                profile=spec.profile,
                rule_overrides=overrides,
                stakes=settings_pb2.Stakes(
                    ante=spec.ante,
                    bring_in=spec.bring_in,
                    small_bet=spec.small_bet,
                    big_bet=spec.big_bet,
                ),
                private=True,
                min_buy_in=spec.min_buy_in,
                max_buy_in=spec.max_buy_in,
                client_seed=spec.client_seed,
                opener_player_id=spec.opener_player_id,
                labels=spec.labels,
                tournament=spec.tournament,
                opener_seat=spec.opener_seat,
            ),
        )
        return response

    async def seat_player(
        self,
        table_id: str,
        seat_session_id: str,
        player_id: str,
        display_name: str,
        buy_in: int,
        seat: int = 0,
    ) -> table_pb2.SeatSession:
        response: admin_service_pb2.SeatPlayerResponse = await self._call(
            "SeatPlayer",
            admin_service_pb2.SeatPlayerRequest(
                table=f"tables/{table_id}",
                seat_session_id=seat_session_id,
                player_id=player_id,
                display_name=display_name,
                seat=seat,
                buy_in=buy_in,
            ),
        )
        return response.session

    async def add_chips(
        self, table_id: str, seat_session_id: str, request_id: str, amount: int
    ) -> table_pb2.SeatSession:
        response: admin_service_pb2.AddChipsResponse = await self._call(
            "AddChips",
            admin_service_pb2.AddChipsRequest(
                table=f"tables/{table_id}",
                seat_session_id=seat_session_id,
                request_id=request_id,
                amount=amount,
            ),
        )
        return response.session

    async def remove_player(
        self,
        table_id: str,
        seat_session_id: str,
        reason: str = "left through the lobby",
        *,
        by_player: bool = False,
    ) -> table_pb2.SeatSession:
        """End a seat session; ``by_player``: it relays the player's own leave (the session
        closes as LEFT, not REMOVED)."""
        response: admin_service_pb2.RemovePlayerResponse = await self._call(
            "RemovePlayer",
            admin_service_pb2.RemovePlayerRequest(
                table=f"tables/{table_id}",
                seat_session_id=seat_session_id,
                reason=reason,
                by_player=by_player,
            ),
        )
        return response.session

    async def rotate_seed(
        self, table_id: str, client_seed: str = ""
    ) -> admin_service_pb2.RotateSeedResponse:
        # Not idempotent (each call rotates): never retried.
        response: admin_service_pb2.RotateSeedResponse = await self._call(
            "RotateSeed",
            admin_service_pb2.RotateSeedRequest(name=f"tables/{table_id}", client_seed=client_seed),
            retries=0,
        )
        return response

    async def close_table(
        self, table_id: str, reason: str = "everyone left"
    ) -> admin_service_pb2.CloseTableResponse:
        response: admin_service_pb2.CloseTableResponse = await self._call(
            "CloseTable",
            admin_service_pb2.CloseTableRequest(name=f"tables/{table_id}", reason=reason),
        )
        return response

    # -- tournament tables (the director's calls; each idempotent, see admin_service.proto)

    async def set_stakes(
        self, table_id: str, level: int, stakes: settings_pb2.Stakes
    ) -> admin_service_pb2.SetStakesResponse:
        response: admin_service_pb2.SetStakesResponse = await self._call(
            "SetStakes",
            admin_service_pb2.SetStakesRequest(
                name=f"tables/{table_id}", level=level, stakes=stakes
            ),
        )
        return response

    async def move_player(
        self,
        table_id: str,
        seat_session_id: str,
        request_id: str,
        destination_table: str,
        grpc_address: str,
        web_url: str,
    ) -> table_pb2.SeatSession:
        response: admin_service_pb2.MovePlayerResponse = await self._call(
            "MovePlayer",
            admin_service_pb2.MovePlayerRequest(
                table=f"tables/{table_id}",
                seat_session_id=seat_session_id,
                request_id=request_id,
                destination_table=f"tables/{destination_table}",
                grpc_address=grpc_address,
                web_url=web_url,
            ),
        )
        return response.session

    async def set_hand_hold(self, table_id: str, held: bool) -> table_pb2.Table:
        response: admin_service_pb2.SetHandHoldResponse = await self._call(
            "SetHandHold",
            admin_service_pb2.SetHandHoldRequest(name=f"tables/{table_id}", held=held),
        )
        return response.table

    async def set_tournament_info(
        self, table_id: str, info: table_pb2.TournamentInfo
    ) -> table_pb2.Table:
        response: admin_service_pb2.SetTournamentInfoResponse = await self._call(
            "SetTournamentInfo",
            admin_service_pb2.SetTournamentInfoRequest(name=f"tables/{table_id}", info=info),
        )
        return response.table

    async def award_place(
        self, table_id: str, player_id: str, display_name: str, place: int, prize: int
    ) -> None:
        await self._call(
            "AwardPlace",
            admin_service_pb2.AwardPlaceRequest(
                name=f"tables/{table_id}",
                player_id=player_id,
                display_name=display_name,
                place=place,
                prize=prize,
            ),
        )

    async def list_seat_sessions(
        self, table_id: str, states: Sequence[table_pb2.SeatSessionState.ValueType] = ()
    ) -> list[table_pb2.SeatSession]:
        sessions: list[table_pb2.SeatSession] = []
        token = ""
        while True:
            response = await self._call(
                "ListSeatSessions",
                admin_service_pb2.ListSeatSessionsRequest(
                    table=f"tables/{table_id}",
                    states=states,
                    page_size=1000,
                    page_token=token,
                ),
            )
            sessions.extend(response.sessions)
            token = response.next_page_token
            if not token:
                return sessions
