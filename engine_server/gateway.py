"""The gateway (``stud gateway``): players' TableService streams ended outside the engine.

Players call a gateway exactly as they call an engine node (``stud.v1.TableService``: same
metadata, messages and errors). The gateway carries every Play and WatchTable stream to the
table's engine node over one ``RelayService.Relay`` call per node (opened on first need,
opened again after it dropped), each stream a channel of that call; the unary calls (Act,
Leave, SitOut, SitIn, ShowCards) go to the table's node as they are, with the player's
metadata. So the engine pays no gRPC call per player stream (BENCHMARKS.md, "A gateway
tier").

Routing: a table goes to the node that served it last; an unknown one to the first engine
(``STUD_GATEWAY_ENGINES``), then the next while they answer TABLE_NOT_FOUND; a TABLE_MOVED
naming a node's address re-routes it there (a stream that had not started yet is opened
there at once; one that had ends with TABLE_MOVED naming the gateway's own address, so the
client opens it again at the gateway, which now knows the way).

Settings (environment; flags of ``stud gateway`` override the first four):

| variable | default | meaning |
|---|---|---|
| ``STUD_GATEWAY_ENGINES`` | ``127.0.0.1:50051`` | the engine nodes' gRPC addresses, comma-separated |
| ``STUD_GATEWAY_HOST`` | ``127.0.0.1`` | address the gateway listens on |
| ``STUD_GATEWAY_GRPC_PORT`` | ``50061`` | the players' gRPC port (0: any free port) |
| ``STUD_GATEWAY_CPUS`` | every CPU | the CPUs the gateway's threads run on, e.g. ``1`` |
| ``STUD_GATEWAY_ADVERTISE`` | the bound address | the address players are given (TABLE_MOVED) |
| ``STUD_GATEWAY_BACKLOG`` | ``64`` | messages a player's stream may fall behind before it ends (SLOW_CONSUMER) |
| ``STUD_GATEWAY_MAX_REQUEST_BYTES`` | ``1048576`` | the largest request message a player may send (as the engine's) |
| ``STUD_GATEWAY_LOOP`` | ``uvloop`` (``asyncio`` without it) | the event loop |
| ``STUD_JWT_SECRET`` | a secret kept in ``var/jwt-secret`` | the engines' token secret: the gateway mints its relay token with it |
| ``STUD_LOG_LEVEL`` / ``STUD_LOG_FORMAT`` | ``INFO`` / ``json`` | as the engine's |

>>> s = GatewaySettings.from_env({"STUD_GATEWAY_ENGINES": "a:1, b:2", "STUD_JWT_SECRET": "x" * 32})
>>> s.engines, s.grpc_port, s.backlog
(('a:1', 'b:2'), 50061, 64)
>>> GatewaySettings.from_env({"STUD_GATEWAY_ENGINES": "nowhere", "STUD_JWT_SECRET": "x" * 32})
Traceback (most recent call last):
...
engine_server.settings.SettingsError: STUD_GATEWAY_ENGINES: expected host:port, got 'nowhere'
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from stud.v1 import (
    relay_service_pb2,
    relay_service_pb2_grpc,
    table_service_pb2,
    table_service_pb2_grpc,
)

from engine_server.api.errors import status_of
from engine_server.api.guards import add_limited, transport_limit
from engine_server.auth import Scope, mint_token
from engine_server.loops import DEFAULT_LOOP
from engine_server.settings import (
    DEFAULT_MAX_REQUEST_BYTES,
    SettingsError,
    advertised_host,
    byte_count,
    cpu_set,
    event_loop,
    host_port,
    jwt_secret,
    log_options,
    port,
    whole_number,
)
from engine_server.table.errors import ErrorKind, TableError
from engine_server.table.mailbox import Mailbox

__all__ = ["Gateway", "GatewaySettings", "GatewayTableService", "RunningGateway", "start_gateway"]

log = logging.getLogger("stud.gateway")

#: as the engine's (server.GRPC_OPTIONS): long quiet streams kept alive through proxies
_KEEPALIVE = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.http2.max_pings_without_data", 0),
]

#: how long the gateway's relay token lasts (checked only when a relay opens)
_TOKEN_SECONDS = 3600

#: how many times one stream or call follows TABLE_MOVED / TABLE_NOT_FOUND to another node
_HOPS = 3

_CODES = {code.value[0]: code for code in grpc.StatusCode}


@dataclass(frozen=True, slots=True)
class GatewaySettings:
    engines: tuple[str, ...] = ("127.0.0.1:50051",)
    jwt_secret: str = ""
    host: str = "127.0.0.1"
    grpc_port: int = 50061
    advertise: str = ""
    backlog: int = 64
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    loop: str = DEFAULT_LOOP
    cpus: frozenset[int] | None = None
    log_level: str = "INFO"
    log_format: str = "json"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> GatewaySettings:
        env = os.environ if env is None else env
        raw = env.get("STUD_GATEWAY_ENGINES") or "127.0.0.1:50051"
        engines = tuple(a.strip() for a in raw.split(",") if a.strip())
        for address in engines:
            host, _, number = address.rpartition(":")
            if not host or not number.isdigit() or " " in address:
                raise SettingsError(f"STUD_GATEWAY_ENGINES: expected host:port, got {address!r}")
        if not engines:
            raise SettingsError("STUD_GATEWAY_ENGINES: name at least one engine host:port")
        level, log_format = log_options(env)
        return cls(
            engines=engines,
            jwt_secret=jwt_secret(env),
            host=env.get("STUD_GATEWAY_HOST") or "127.0.0.1",
            grpc_port=port(env, "STUD_GATEWAY_GRPC_PORT", 50061),
            advertise=(env.get("STUD_GATEWAY_ADVERTISE") or "").strip(),
            backlog=whole_number(env, "STUD_GATEWAY_BACKLOG", 64, 1, 100_000),
            max_request_bytes=byte_count(
                env, "STUD_GATEWAY_MAX_REQUEST_BYTES", DEFAULT_MAX_REQUEST_BYTES, 1024, 1 << 26
            ),
            loop=event_loop(env, "STUD_GATEWAY_LOOP"),
            cpus=cpu_set(env, "STUD_GATEWAY_CPUS"),
            log_level=level,
            log_format=log_format,
        )


class _Ended(Exception):
    """A channel's end as the engine sent it (or the relay's loss)."""

    def __init__(self, end: relay_service_pb2.RelayEnd) -> None:
        super().__init__(end.message)
        self.end = end

    def info(self) -> error_details_pb2.ErrorInfo | None:
        return _info_of(self.end)


def _info_of(end: relay_service_pb2.RelayEnd) -> error_details_pb2.ErrorInfo | None:
    if not end.details:
        return None
    status = status_pb2.Status.FromString(end.details)
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info
    return None


def _end_of(error: TableError) -> relay_service_pb2.RelayEnd:
    status = status_of(error)
    return relay_service_pb2.RelayEnd(
        code=status.code, message=status.message, details=status.SerializeToString()
    )


def _relay_lost(address: str, why: str) -> relay_service_pb2.RelayEnd:
    return _end_of(
        TableError(
            ErrorKind.UNAVAILABLE,
            "RELAY_LOST",
            f"the gateway lost its relay to engine {address} ({why}): open the stream again",
        )
    )


#: what a channel's mailbox holds: a message for the player, or the channel's end
_Item = table_service_pb2.PlayResponse | relay_service_pb2.RelayEnd


class _Channel:
    """One player's stream on a relay, at the gateway: its bounded mailbox."""

    __slots__ = ("id", "mailbox", "started")

    def __init__(self, channel_id: int, backlog: int) -> None:
        self.id = channel_id
        self.mailbox: Mailbox[_Item] = Mailbox(backlog + 1)  # + its end
        #: whether a message came (a TABLE_MOVED before any may be followed at once)
        self.started = False


class _Relay:
    """The gateway's Relay call to one engine node, and the channels on it."""

    def __init__(self, address: str, gateway: Gateway) -> None:
        self.address = address
        self.gateway = gateway
        options = [
            *_KEEPALIVE,
            ("grpc.max_receive_message_length", -1),
            ("grpc.max_send_message_length", -1),
        ]
        self.grpc = grpc.aio.insecure_channel(address, options=options)
        self.relay = relay_service_pb2_grpc.RelayServiceStub(self.grpc)
        self.tables = table_service_pb2_grpc.TableServiceStub(self.grpc)
        self.channels: dict[int, _Channel] = {}
        self._outgoing: asyncio.Queue[relay_service_pb2.RelayRequest | None] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._ids = itertools.count(1)

    def _ensure(self) -> asyncio.Queue[relay_service_pb2.RelayRequest | None]:
        if self._outgoing is None:
            outgoing: asyncio.Queue[relay_service_pb2.RelayRequest | None] = asyncio.Queue()
            token = mint_token(
                self.gateway.settings.jwt_secret,
                "gateway",
                [Scope.GATEWAY],
                ttl_seconds=_TOKEN_SECONDS,
                name="gateway",
            )
            call = self.relay.Relay(
                _drain(outgoing), metadata=(("authorization", f"Bearer {token}"),)
            )
            self._outgoing = outgoing
            self._reader = asyncio.get_running_loop().create_task(self._read(call, outgoing))
            log.info("relay to engine %s opened", self.address, extra={"engine": self.address})
        return self._outgoing

    async def _read(
        self, call: Any, outgoing: asyncio.Queue[relay_service_pb2.RelayRequest | None]
    ) -> None:
        why = "it ended"
        try:
            async for response in call:
                for message in response.messages:
                    channel = self.channels.get(message.channel_id)
                    if channel is None:
                        continue  # closed by the player meanwhile
                    if message.WhichOneof("response") == "end":
                        del self.channels[channel.id]
                        self._deliver(channel, message.end)
                    else:
                        channel.started = True
                        self._deliver(channel, message.update)
        except grpc.aio.AioRpcError as error:
            why = f"{error.code().name}: {error.details()}"
        except asyncio.CancelledError:
            why = "the gateway stopped"
            raise
        finally:
            if self._outgoing is outgoing:
                self._outgoing = None
                self._reader = None
            outgoing.put_nowait(None)
            lost = list(self.channels.values())
            self.channels.clear()
            if lost:
                log.warning(
                    "relay to engine %s lost (%s): %d streams ended",
                    self.address,
                    why,
                    len(lost),
                    extra={"engine": self.address},
                )
            for channel in lost:
                self._deliver(channel, _relay_lost(self.address, why), force=True)

    def _deliver(self, channel: _Channel, item: _Item, *, force: bool = False) -> None:
        mailbox = channel.mailbox
        ending = isinstance(item, relay_service_pb2.RelayEnd)
        if not ending and mailbox.qsize() >= mailbox.maxsize - 1:
            # The player reads too slowly: his stream ends, the relay is not held back.
            self.close(channel)
            item, ending, force = _end_of(_SLOW), True, True
        if ending and force:
            while not mailbox.empty():
                mailbox.get_nowait()
        mailbox.put_nowait(item)

    def open(self, request: relay_service_pb2.RelayOpen) -> _Channel:
        outgoing = self._ensure()
        channel = _Channel(next(self._ids), self.gateway.settings.backlog)
        self.channels[channel.id] = channel
        request.channel_id = channel.id
        outgoing.put_nowait(relay_service_pb2.RelayRequest(open=request))
        return channel

    def send(self, channel: _Channel, request: table_service_pb2.PlayRequest) -> None:
        if channel.id in self.channels and self._outgoing is not None:
            self._outgoing.put_nowait(
                relay_service_pb2.RelayRequest(
                    request=relay_service_pb2.RelayPlayRequest(
                        channel_id=channel.id, request=request
                    )
                )
            )

    def close(self, channel: _Channel) -> None:
        """The player's stream went away: the engine ends the channel (his seat's stream)."""
        if self.channels.pop(channel.id, None) is not None and self._outgoing is not None:
            self._outgoing.put_nowait(
                relay_service_pb2.RelayRequest(
                    close=relay_service_pb2.RelayClose(channel_id=channel.id)
                )
            )

    async def stop(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        await self.grpc.close(None)


_SLOW = TableError(
    ErrorKind.RESOURCE_EXHAUSTED,
    "SLOW_CONSUMER",
    "the stream fell too far behind; watch again",
)


async def _drain(
    queue: asyncio.Queue[relay_service_pb2.RelayRequest | None],
) -> AsyncIterator[relay_service_pb2.RelayRequest]:
    while True:
        request = await queue.get()
        if request is None:
            return
        yield request


class _Hops:
    """The engines one stream or call tries for a table, in turn: the one that served it last
    (then each other engine while they answer TABLE_NOT_FOUND), or the node a TABLE_MOVED
    named (:meth:`follow`); at most ``_HOPS`` more tries than there are engines."""

    def __init__(self, gateway: Gateway, table: str) -> None:
        self._gateway = gateway
        self._table = table
        self._next: str | None = None

    def follow(self, address: str) -> None:
        """Try ``address`` next (where the table moved)."""
        self._next = address

    def __iter__(self) -> Iterator[str]:
        tried: list[str] = []
        for _ in range(_HOPS + len(self._gateway.settings.engines)):
            if self._next is None:
                untried = [a for a in self._gateway.candidates(self._table) if a not in tried]
                if not untried:
                    return
                self._next = untried[0]
            address, self._next = self._next, None
            tried.append(address)
            yield address


class Gateway:
    """The relays to the engine nodes and the routes of the tables."""

    def __init__(self, settings: GatewaySettings) -> None:
        self.settings = settings
        self.relays: dict[str, _Relay] = {}
        #: table name -> the engine address that served it last
        self.routes: dict[str, str] = {}
        #: the address players are given in TABLE_MOVED (set once the port is bound)
        self.address = settings.advertise

    def relay(self, address: str) -> _Relay:
        relay = self.relays.get(address)
        if relay is None:
            relay = self.relays[address] = _Relay(address, self)
        return relay

    def candidates(self, table: str) -> list[str]:
        """The engines to try for ``table``, the one that served it last first."""
        known = self.routes.get(table)
        engines = list(self.settings.engines)
        return [known, *(e for e in engines if e != known)] if known else engines

    def moved(self, table: str, info: error_details_pb2.ErrorInfo | None) -> str | None:
        """Follow a TABLE_MOVED: the new address of ``table`` (and remember it), if named."""
        if info is None or info.reason != "TABLE_MOVED":
            return None
        address = str(info.metadata.get("grpc_address", ""))
        if not address:
            self.routes.pop(table, None)
            return None
        self.routes[table] = address
        return address

    def told_player(self, end: relay_service_pb2.RelayEnd) -> relay_service_pb2.RelayEnd:
        """``end`` as the player gets it: a TABLE_MOVED names the gateway, where he opens the
        stream again (the gateway follows the table)."""
        info = _info_of(end)
        if info is None or info.reason != "TABLE_MOVED":
            return end
        status = status_pb2.Status.FromString(end.details)
        info.metadata["grpc_address"] = self.address
        del status.details[:]
        status.details.add().Pack(info)
        return relay_service_pb2.RelayEnd(
            code=end.code, message=end.message, details=status.SerializeToString()
        )

    async def stop(self) -> None:
        for relay in list(self.relays.values()):
            await relay.stop()


class GatewayTableService(table_service_pb2_grpc.TableServiceServicer):
    """TableService for players, carried to the engines."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway

    # ------------------------------------------------------------- streams

    async def _stream(
        self,
        table: str,
        open_request: Callable[[], relay_service_pb2.RelayOpen],
        context: Any,
        requests: AsyncIterator[table_service_pb2.PlayRequest] | None = None,
    ) -> AsyncIterator[table_service_pb2.PlayResponse]:
        """A player's stream over the relay to ``table``'s node: its messages, in order; it
        ends as the engine ended the channel (followed to another node while nothing was
        sent yet)."""
        # One reader of the player's requests for the whole stream, whichever node it ends
        # up at (an async generator cancelled mid-read would be closed for good).
        target = _Target()
        forwarding = (
            asyncio.get_running_loop().create_task(_forward(requests, target))
            if requests is not None
            else None
        )
        try:
            async for message in self._hops(table, open_request, context, target):
                yield message
        finally:
            if forwarding is not None:
                forwarding.cancel()

    async def _hops(
        self,
        table: str,
        open_request: Callable[[], relay_service_pb2.RelayOpen],
        context: Any,
        target: _Target,
    ) -> AsyncIterator[table_service_pb2.PlayResponse]:
        gateway = self.gateway
        end = _relay_lost("(none)", "no engine to try")
        hops = _Hops(gateway, table)
        for address in hops:
            relay = gateway.relay(address)
            channel = relay.open(open_request())
            target.relay, target.channel = relay, channel
            try:
                while True:
                    item = await channel.mailbox.get()
                    if isinstance(item, table_service_pb2.PlayResponse):
                        if target.pending:
                            target.flush()
                        gateway.routes[table] = address
                        yield item
                        del item
                        continue
                    end = item
                    break
            finally:
                relay.close(channel)
                target.relay = target.channel = None
            info = _info_of(end)
            if not channel.started and info is not None:
                # Refused at its opening: another node may own the table.
                following = gateway.moved(table, info)
                if following is not None:
                    hops.follow(following)
                    continue
                if info.reason == "TABLE_NOT_FOUND" and len(gateway.settings.engines) > 1:
                    continue
            elif info is not None:
                gateway.moved(table, info)
            await _finish(context, gateway.told_player(end))
            return
        await _finish(context, end)

    async def Play(self, requests: Any, context: Any) -> AsyncIterator[Any]:
        authorization = _authorization(context)
        first = await anext(aiter(requests), None)
        first = first if first is not None else table_service_pb2.PlayRequest()
        table = first.watch.table if first.WhichOneof("request") == "watch" else ""

        def opening() -> relay_service_pb2.RelayOpen:
            return relay_service_pb2.RelayOpen(authorization=authorization, play=first)

        async for message in self._stream(table, opening, context, requests):
            yield message

    async def WatchTable(self, request: Any, context: Any) -> AsyncIterator[Any]:
        authorization = _authorization(context)

        def opening() -> relay_service_pb2.RelayOpen:
            return relay_service_pb2.RelayOpen(authorization=authorization, watch_table=request)

        async for message in self._stream(request.table, opening, context):
            yield message.update

    # ------------------------------------------------------------- unary calls

    async def _unary(self, method: str, request: Any, context: Any) -> Any:
        gateway = self.gateway
        metadata = (("authorization", _authorization(context)),)
        table = request.table
        failure: grpc.aio.AioRpcError | None = None
        hops = _Hops(gateway, table)
        for address in hops:
            try:
                answer = await getattr(gateway.relay(address).tables, method)(
                    request, metadata=metadata
                )
            except grpc.aio.AioRpcError as error:
                failure = error
                status = rpc_status.from_call(error)
                end = relay_service_pb2.RelayEnd(
                    code=error.code().value[0],
                    message=error.details() or "",
                    details=status.SerializeToString() if status is not None else b"",
                )
                info = _info_of(end)
                following = gateway.moved(table, info)
                if following is not None:
                    hops.follow(following)
                    continue
                if info is not None and info.reason == "TABLE_NOT_FOUND":
                    continue
                break
            gateway.routes[table] = address
            return answer
        assert failure is not None
        # Its status and ErrorInfo as the engine sent them.
        trailing = tuple(
            (key, value)
            for key, value in failure.trailing_metadata() or ()
            if key == "grpc-status-details-bin"
        )
        await context.abort(failure.code(), failure.details() or "", trailing)

    async def Act(self, request: Any, context: Any) -> Any:
        return await self._unary("Act", request, context)

    async def Leave(self, request: Any, context: Any) -> Any:
        return await self._unary("Leave", request, context)

    async def SitOut(self, request: Any, context: Any) -> Any:
        return await self._unary("SitOut", request, context)

    async def SitIn(self, request: Any, context: Any) -> Any:
        return await self._unary("SitIn", request, context)

    async def ShowCards(self, request: Any, context: Any) -> Any:
        return await self._unary("ShowCards", request, context)


class _Target:
    """Where a player's Play stream is carried now (None between two nodes), and the acts
    he sent before it started there (sent once it has)."""

    __slots__ = ("channel", "pending", "relay")

    def __init__(self) -> None:
        self.relay: _Relay | None = None
        self.channel: _Channel | None = None
        self.pending: list[table_service_pb2.PlayRequest] = []

    def send(self, request: table_service_pb2.PlayRequest) -> None:
        if self.relay is not None and self.channel is not None and self.channel.started:
            self.relay.send(self.channel, request)
        else:
            self.pending.append(request)

    def flush(self) -> None:
        pending, self.pending = self.pending, []
        for request in pending:
            self.send(request)


async def _forward(
    requests: AsyncIterator[table_service_pb2.PlayRequest] | None, target: _Target
) -> None:
    """The player's acts, to his channel wherever it is, in order."""
    if requests is None:
        return
    try:
        async for request in requests:
            target.send(request)
    except TableError as error:
        # A request refused unread (too large, malformed): it ends his stream.
        if target.relay is not None and target.channel is not None:
            target.relay.close(target.channel)
            target.relay._deliver(target.channel, _end_of(error), force=True)
    except Exception as error:
        log.info("a player's requests ended: %s", error)


def _authorization(context: Any) -> str:
    for key, value in context.invocation_metadata() or ():
        if key.lower() == "authorization" and isinstance(value, str):
            return value
    return ""


async def _finish(context: Any, end: relay_service_pb2.RelayEnd) -> None:
    """End the player's stream with ``end`` (code 0: cleanly)."""
    if end.code == 0:
        return
    trailing = (("grpc-status-details-bin", end.details),) if end.details else ()
    await context.abort(_CODES.get(end.code, grpc.StatusCode.UNKNOWN), end.message, trailing)


@dataclass
class RunningGateway:
    gateway: Gateway
    server: grpc.aio.Server
    grpc_port: int

    async def stop(self, grace: float | None = 1.0) -> None:
        await self.server.stop(grace)
        await self.gateway.stop()


async def start_gateway(settings: GatewaySettings) -> RunningGateway:
    """Serve TableService to players on ``settings.grpc_port``; returns once it listens."""
    gateway = Gateway(settings)
    limit = settings.max_request_bytes
    options = [*_KEEPALIVE, ("grpc.max_receive_message_length", transport_limit(limit))]
    server = grpc.aio.server(options=options)
    add_limited(
        table_service_pb2_grpc.add_TableServiceServicer_to_server,
        GatewayTableService(gateway),
        server,
        limit,
        None,
    )
    bound = server.add_insecure_port(host_port(settings.host, settings.grpc_port))
    await server.start()
    # What players are told to reconnect to: an address they can reach (this machine's name
    # for a wildcard host, an IPv6 host in brackets), as the engine advertises its own.
    gateway.address = settings.advertise or host_port(advertised_host(settings.host), bound)
    return RunningGateway(gateway, server, bound)
