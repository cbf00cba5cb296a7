"""``stud.v1.RelayService``: many players' streams over one call from a gateway.

A gateway (``stud gateway``) ends players' Play and WatchTable streams in its own process
and follows each engine node over one Relay call (proto/stud/v1/relay_service.proto). Here
each of its "channels" is one player's stream as :class:`TableServiceCore` opens it (the
same views, redaction, replacement, acts, idempotency, slow consumer and endings), without
a gRPC call of its own: a channel is a seat's watcher with its mailbox and a few fields.
One writer per Relay call sends every channel's messages, told by the mailboxes when they
have some; a channel's acts run in a task only while it has acts waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

from stud.v1 import relay_service_pb2, relay_service_pb2_grpc, table_service_pb2

from engine_server.api.errors import grpc_code, invalid, status_of
from engine_server.api.guards import message_too_large
from engine_server.api.table_service import (
    TableServiceCore,
    authenticate,
    play_response_bytes,
)
from engine_server.api.wire import length_delimited, varint_field
from engine_server.auth import Identity, Scope
from engine_server.table.acts import ActAnswer
from engine_server.table.broadcast import Update, Watcher
from engine_server.table.errors import TableError
from engine_server.table.runtime import TableRuntime

__all__ = ["GrpcRelayService", "RelaySession", "end_bytes", "update_bytes"]

log = logging.getLogger("stud.api")

_MESSAGE = relay_service_pb2.RelayMessage.DESCRIPTOR.fields_by_name
_CHANNEL_ID = _MESSAGE["channel_id"].number
_UPDATE = _MESSAGE["update"].number
_END = _MESSAGE["end"].number
_MESSAGES = relay_service_pb2.RelayResponse.DESCRIPTOR.fields_by_name["messages"].number

#: how many messages the writer takes from one channel before it serves the next ready one
#: (a table's change reaches its seven channels together; no channel waits behind a long
#: backlog of another)
_TURN = 4
#: how much one RelayResponse carries at most (encoded bytes): a call sends one message at a
#: time, so what is ready goes together, in batches no larger than this
_BATCH_BYTES = 256 * 1024


def update_bytes(channel_id: int, item: Update | ActAnswer) -> bytes:
    """The encoded RelayMessage carrying ``item`` (as the player's Play stream encodes it)."""
    return _channel(channel_id) + length_delimited(_UPDATE, play_response_bytes(item))


def end_bytes(channel_id: int, error: TableError | None) -> bytes:
    """The encoded RelayMessage ending the channel: ``error``'s status (None: OK)."""
    end = relay_service_pb2.RelayEnd()
    if error is not None:
        end.code = grpc_code(error)
        end.message = error.message
        end.details = status_of(error).SerializeToString()
    return _channel(channel_id) + length_delimited(_END, end.SerializeToString())


def _channel(channel_id: int) -> bytes:
    return varint_field(_CHANNEL_ID, channel_id) if channel_id else b""


class _Channel:
    """One player's stream on a relay: what the engine keeps for it besides its watcher."""

    __slots__ = ("acting", "acts", "closed", "id", "identity", "play", "queued", "table", "watcher")

    def __init__(self, channel_id: int, identity: Identity | None, table: str, play: bool) -> None:
        self.id = channel_id
        self.identity = identity
        self.table = table
        self.play = play
        #: set once the stream is open (its first update queued)
        self.watcher: Watcher | None = None
        #: the Play acts sent while an earlier one is being taken (or while opening)
        self.acts: deque[table_service_pb2.PlayRequest] | None = None
        #: the task taking them, while there are any
        self.acting: asyncio.Task[None] | None = None
        #: in the writer's ready queue
        self.queued = False
        #: the gateway closed it, or its end was sent
        self.closed = False


class RelaySession:
    """One Relay call: its channels, the requests read and the messages to send."""

    def __init__(self, core: TableServiceCore, limit: int) -> None:
        self.core = core
        #: the largest request a player's stream takes (STUD_ENGINE_MAX_REQUEST_BYTES)
        self.limit = limit
        self.channels: dict[int, _Channel] = {}
        self._ready: deque[_Channel] = deque()
        #: ended channels with their last message still to send (an open refused)
        self._endings: deque[tuple[int, TableError | None]] = deque()
        self._wake: asyncio.Future[None] | None = None
        #: what ends the whole call (a protocol error), once set
        self._failed: TableError | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._runtimes: dict[int, TableRuntime] = {}

    # ------------------------------------------------------------- reading

    async def read(self, requests: AsyncIterator[relay_service_pb2.RelayRequest]) -> None:
        """Take the gateway's requests until it stops sending; a protocol error ends the
        call."""
        try:
            async for request in requests:
                kind = request.WhichOneof("kind")
                if kind == "open":
                    self._open(request.open)
                elif kind == "request":
                    self._request(request.request.channel_id, request.request.request)
                elif kind == "close":
                    self._close(request.close.channel_id)
                else:
                    raise invalid("kind", "a relay request is open, request or close")
        except TableError as error:
            self._fail(error)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            # The gateway went away mid-request (the transport's words): the call's end
            # closes every channel.
            log.info("a relay's requests ended: %s", error)

    def _open(self, request: relay_service_pb2.RelayOpen) -> None:
        channel_id = request.channel_id
        if not channel_id:
            raise invalid("open.channel_id", "a channel id is a number above 0")
        if channel_id in self.channels:
            raise invalid("open.channel_id", f"channel {channel_id} is already open")
        play = request.WhichOneof("stream") != "watch_table"
        channel = _Channel(channel_id, None, "", play)
        self.channels[channel_id] = channel
        self._spawn(self._opening(channel, request))

    async def _opening(self, channel: _Channel, request: relay_service_pb2.RelayOpen) -> None:
        try:
            # As the player's own stream: his token first, then his first request.
            identity = authenticate({"authorization": request.authorization}, self.core.secret)
            if channel.play:
                first = request.play
                if first.ByteSize() > self.limit:
                    raise message_too_large(first.ByteSize(), self.limit)
                if first.WhichOneof("request") != "watch":
                    raise invalid(
                        "watch", "a Play stream starts with a watch request naming the table"
                    )
                table = first.watch.table
            else:
                table = request.watch_table.table
            channel.identity, channel.table = identity, table
            runtime, watcher = await self.core.open_stream(table, identity, play=channel.play)
        except TableError as error:
            self._forget(channel)
            if not channel.closed:
                channel.closed = True
                self._end_now(channel.id, error)
            return
        if channel.closed:  # the gateway closed it while it opened
            await runtime.unwatch(watcher)
            return
        channel.watcher = watcher
        self._runtimes[channel.id] = runtime
        watcher.queue.listener = lambda: self._mark(channel)
        self._mark(channel)
        if channel.acts:
            channel.acting = self._spawn(self._acting(channel))

    def _request(self, channel_id: int, request: table_service_pb2.PlayRequest) -> None:
        channel = self.channels.get(channel_id)
        if channel is None or channel.closed:
            return  # it has just ended: the two sides crossed
        if not channel.play:
            raise invalid("request.channel_id", f"channel {channel_id} is a WatchTable stream")
        if channel.acts is None:
            channel.acts = deque()
        channel.acts.append(request)
        if channel.watcher is not None and channel.acting is None:
            channel.acting = self._spawn(self._acting(channel))

    async def _acting(self, channel: _Channel) -> None:
        """Take the channel's acts in order, one at a time, until none is left."""
        watcher = channel.watcher
        assert watcher is not None and channel.identity is not None and channel.acts is not None
        try:
            while channel.acts and not channel.closed:
                request = channel.acts.popleft()
                if request.ByteSize() > self.limit:
                    await watcher.queue.put(message_too_large(request.ByteSize(), self.limit))
                    return
                taken = await self.core.play_request(
                    request, channel.table, channel.identity, watcher.queue
                )
                if not taken:
                    return
        finally:
            channel.acting = None
            channel.acts = None

    def _close(self, channel_id: int) -> None:
        channel = self.channels.get(channel_id)
        if channel is None:
            return
        channel.closed = True
        self._forget(channel)
        if channel.acting is not None:
            channel.acting.cancel()
        if channel.watcher is not None:
            self._spawn(self._unwatch(channel))

    async def _unwatch(self, channel: _Channel) -> None:
        runtime = self._runtimes.pop(channel.id, None)
        watcher = channel.watcher
        if runtime is not None and watcher is not None:
            watcher.queue.listener = None
            await runtime.unwatch(watcher)

    def _forget(self, channel: _Channel) -> None:
        if self.channels.get(channel.id) is channel:
            del self.channels[channel.id]

    # ------------------------------------------------------------- writing

    def _mark(self, channel: _Channel) -> None:
        """The channel's mailbox has messages: the writer serves it."""
        if not channel.queued:
            channel.queued = True
            self._ready.append(channel)
            self._poke()

    def _end_now(self, channel_id: int, error: TableError | None) -> None:
        if error is not None and self.core.on_refused is not None:
            self.core.on_refused(error)
        self._endings.append((channel_id, error))
        self._poke()

    def _fail(self, error: TableError) -> None:
        self._failed = error
        self._poke()

    def _poke(self) -> None:
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    async def messages(self) -> AsyncIterator[bytes]:
        """Every channel's messages, encoded, as they come, those ready together in one
        RelayResponse; raises the error that ends the call."""
        loop = asyncio.get_running_loop()
        while True:
            if self._failed is not None:
                raise self._failed
            batch = self._batch()
            if batch:
                yield batch
                del batch  # (as the streams': not held while waiting)
                continue
            self._wake = loop.create_future()
            try:
                await self._wake
            finally:
                self._wake = None

    def _batch(self) -> bytes:
        """The encoded RelayResponse of the messages ready now (up to _BATCH_BYTES; b"":
        none)."""
        parts: list[bytes] = []
        size = 0
        while self._endings and size < _BATCH_BYTES:
            channel_id, error = self._endings.popleft()
            part = length_delimited(_MESSAGES, end_bytes(channel_id, error))
            parts.append(part)
            size += len(part)
        while self._ready and size < _BATCH_BYTES:
            channel = self._ready.popleft()
            channel.queued = False
            watcher = channel.watcher
            if watcher is None or channel.closed:
                continue
            queue = watcher.queue
            for _ in range(_TURN):
                if queue.empty():
                    break
                item = queue.get_nowait()
                if isinstance(item, Update | ActAnswer):
                    part = length_delimited(_MESSAGES, update_bytes(channel.id, item))
                    del item
                    parts.append(part)
                    size += len(part)
                    continue
                # None (a clean end) or the error that ends the stream.
                channel.closed = True
                self._forget(channel)
                if channel.acting is not None:
                    channel.acting.cancel()
                if isinstance(item, TableError) and self.core.on_refused is not None:
                    self.core.on_refused(item)
                parts.append(length_delimited(_MESSAGES, end_bytes(channel.id, item)))
                self._spawn(self._unwatch(channel))
                break
            else:
                if not queue.empty():
                    self._mark(channel)
        return b"".join(parts)

    # ------------------------------------------------------------- the end

    def _spawn(self, coroutine: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a relay task failed", exc_info=task.exception())

    async def close(self) -> None:
        """The call ended: every channel ends as a dropped stream does (seats away).

        Acts waiting are dropped (as a dropped Play stream's); the channels still opening
        and the ones being unwatched are waited for, not cancelled: a watch cancelled
        half-way, or an unwatch, would leave a seat connected with nobody reading it."""
        channels = list(self.channels.values())
        self.channels.clear()
        for channel in channels:
            channel.closed = True
            if channel.acting is not None:
                channel.acting.cancel()
        await asyncio.gather(
            *(self._unwatch(c) for c in channels if c.watcher is not None),
            return_exceptions=True,
        )
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


class GrpcRelayService(relay_service_pb2_grpc.RelayServiceServicer):
    """RelayService on the engine's gRPC port."""

    def __init__(self, core: TableServiceCore, limit: int) -> None:
        self.core = core
        self.limit = limit

    async def Relay(self, requests: Any, context: Any) -> AsyncIterator[Any]:
        headers = {
            key.lower(): value
            for key, value in (context.invocation_metadata() or ())
            if isinstance(value, str)
        }
        identity = authenticate(headers, self.core.secret)
        if not identity.has(Scope.GATEWAY):
            raise TableError.denied(
                "GATEWAY_REQUIRED", "RelayService needs a gateway token (scope gateway)"
            )
        session = RelaySession(self.core, self.limit)
        reader = asyncio.get_running_loop().create_task(session.read(requests))
        try:
            # RelayResponse messages, sent as encoded (add_limited's serializer passes bytes).
            async for message in session.messages():
                yield message
                del message
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            await session.close()
