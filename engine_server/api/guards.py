"""The guards in front of the engine's handlers, on the gRPC and Connect ports alike.

A request larger than ``STUD_ENGINE_MAX_REQUEST_BYTES`` is refused with RESOURCE_EXHAUSTED /
MESSAGE_TOO_LARGE; bytes that do not parse as the method's message are refused with
INVALID_ARGUMENT / MALFORMED_REQUEST (logged at a bounded rate, without a traceback); both
with an ``ErrorInfo``, before any handler runs, so a refused request changes nothing. CORS for
browsers is here too. :mod:`engine_server.server` puts these around its servicers and apps.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, MutableMapping
from typing import Any

import grpc
from connectrpc.errors import ConnectError

from engine_server.api.errors import ErrorObserver, abort, connect_error
from engine_server.logs import BoundedLog
from engine_server.table.errors import ErrorKind, TableError

__all__ = [
    "TRANSPORT_SLACK",
    "ASGIApp",
    "ConnectSizeLimit",
    "Malformed",
    "MalformedRequests",
    "add_limited",
    "cors",
    "malformed_request",
    "message_too_large",
    "transport_limit",
]

log = logging.getLogger("stud.engine")

#: how far past the request limit the transports still read a message. The engine refuses
#: one over the limit itself, with RESOURCE_EXHAUSTED and an ErrorInfo (MESSAGE_TOO_LARGE),
#: but only a message the transport hands over: grpc core and connectrpc refuse a larger one
#: before the engine sees it (RESOURCE_EXHAUSTED, no ErrorInfo), which bounds the memory a
#: request may take.
TRANSPORT_SLACK = 2


def transport_limit(max_request_bytes: int) -> int:
    """The size past which the transports refuse a message unread (see TRANSPORT_SLACK)."""
    return max_request_bytes * TRANSPORT_SLACK


def message_too_large(size: int, limit: int) -> TableError:
    return TableError(
        ErrorKind.RESOURCE_EXHAUSTED,
        "MESSAGE_TOO_LARGE",
        f"the request message is {size} bytes; this engine takes at most {limit}",
        max_bytes=str(limit),
    )


def malformed_request(where: str, error: Exception) -> TableError:
    """The refusal of bytes that are not the method's request message (corrupt wire format,
    a string that is not UTF-8, a truncated varint, ...); ``where`` names the method or the
    message type."""
    return TableError.invalid(
        "MALFORMED_REQUEST", f"{where}: the request message does not parse: {error}"
    )


class Malformed:
    """What a method's request deserializer returns for bytes it cannot parse: the method
    refuses it (INVALID_ARGUMENT / MALFORMED_REQUEST) instead of grpcio's UNKNOWN and
    traceback."""

    __slots__ = ("error", "size")

    def __init__(self, error: Exception, size: int) -> None:
        self.error = error
        self.size = size


def _tolerant(deserialize: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserialize is None:
        return None

    def parse(raw: bytes) -> Any:
        try:
            return deserialize(raw)
        except Exception as error:  # DecodeError, and whatever else the parser raises
            return Malformed(error, len(raw))

    return parse


class MalformedRequests:
    """Refuses malformed requests on every port and method, and logs them at a bounded rate
    (anyone can send them, with no token: one WARNING per ``interval`` seconds at most, no
    traceback)."""

    def __init__(self, observe: ErrorObserver | None = None, interval: float = 10.0) -> None:
        self.observe = observe
        self.log = BoundedLog(log, interval)

    def refusal(self, where: str, malformed: Malformed) -> TableError:
        """The refusal to send for ``malformed`` (logged, unless one was logged lately)."""
        self.log.warning(
            "malformed request refused (%s, %d bytes): %s",
            where,
            malformed.size,
            malformed.error,
            extra={"method": where},
        )
        return malformed_request(where, malformed.error)

    def codecs(self, codecs: Iterable[Any]) -> list[Any]:
        """``codecs`` (connectrpc's) refusing a request that does not parse as the gRPC port
        does: INVALID_ARGUMENT with the MALFORMED_REQUEST ErrorInfo, logged the same way."""
        return [_TolerantCodec(codec, self) for codec in codecs]


class _TolerantCodec:
    """A connectrpc codec whose decoding failures are MALFORMED_REQUEST refusals (connectrpc
    passes a ConnectError from a codec on as it is)."""

    def __init__(self, codec: Any, malformed: MalformedRequests) -> None:
        self.codec = codec
        self.malformed = malformed
        # Every response goes through encode: the codec's own, with no call in between.
        self.name: Callable[[], str] = codec.name
        self.encode: Callable[[Any], bytes] = codec.encode

    def decode(self, data: bytes | bytearray, message_class: Any) -> Any:
        try:
            return self.codec.decode(data, message_class)
        except Exception as error:
            where = getattr(getattr(message_class, "DESCRIPTOR", None), "full_name", "request")
            refusal = self.malformed.refusal(str(where), Malformed(error, len(data)))
            raise connect_error(refusal, self.malformed.observe) from None


class _Handlers:
    """Stands in for the server while a generated ``add_*Servicer_to_server`` registers."""

    def __init__(self) -> None:
        self.service = ""
        self.methods: dict[str, grpc.RpcMethodHandler] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        """The generated code registers both ways; the named handlers are enough."""

    def add_registered_method_handlers(self, service: str, methods: Any) -> None:
        self.service, self.methods = service, dict(methods)


def add_limited(
    add: Callable[[Any, Any], None],
    servicer: Any,
    server: grpc.aio.Server,
    limit: int,
    observe: ErrorObserver | None,
    malformed: MalformedRequests | None = None,
) -> None:
    """Register ``servicer`` on ``server`` as ``add`` (a generated ``add_*_to_server``) does,
    each method first refusing a request over ``limit`` bytes (MESSAGE_TOO_LARGE) and one
    whose bytes do not parse (MALFORMED_REQUEST)."""
    handlers = _Handlers()
    add(servicer, handlers)
    malformed = malformed or MalformedRequests(observe)
    methods = {
        name: _limited(handler, limit, observe, malformed, f"/{handlers.service}/{name}")
        for name, handler in handlers.methods.items()
    }
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(handlers.service, methods),)
    )
    server.add_registered_method_handlers(handlers.service, methods)


def _limited(
    handler: Any,
    limit: int,
    observe: ErrorObserver | None,
    malformed: MalformedRequests,
    method: str,
) -> grpc.RpcMethodHandler:
    serialization = {
        "request_deserializer": _tolerant(handler.request_deserializer),
        "response_serializer": handler.response_serializer,
    }

    def refusal(request: Any) -> TableError | None:
        if type(request) is Malformed:
            return malformed.refusal(method, request)
        size = request.ByteSize()
        return message_too_large(size, limit) if size > limit else None

    if handler.unary_unary is not None:
        unary = handler.unary_unary

        async def checked_unary(request: Any, context: Any) -> Any:
            refused = refusal(request)
            if refused is not None:
                await abort(context, refused, observe)
            return await unary(request, context)

        return grpc.unary_unary_rpc_method_handler(checked_unary, **serialization)
    # A stream may send its messages already encoded (WatchTable: response_bytes).
    serialization["response_serializer"] = _bytes_or(handler.response_serializer)
    # grpcio serves a stream from an async generator function only: each method is wrapped in
    # one that passes its messages on.
    if handler.unary_stream is not None and not inspect.isasyncgenfunction(handler.unary_stream):
        # A stream written with context.write (grpc's health Watch): a coroutine.
        writer = handler.unary_stream

        async def checked_writer(request: Any, context: Any) -> Any:
            refused = refusal(request)
            if refused is not None:
                await abort(context, refused, observe)
            return await writer(request, context)

        return grpc.unary_stream_rpc_method_handler(checked_writer, **serialization)
    if handler.unary_stream is not None:
        stream = handler.unary_stream

        async def checked_stream(request: Any, context: Any) -> Any:
            refused = refusal(request)
            if refused is not None:
                await abort(context, refused, observe)
            async with contextlib.aclosing(stream(request, context)) as messages:
                async for message in messages:
                    yield message
                    del message  # (as checked_bidi's)

        return grpc.unary_stream_rpc_method_handler(checked_stream, **serialization)
    if handler.stream_stream is not None:
        if not inspect.isasyncgenfunction(handler.stream_stream):
            raise TypeError(f"{handler!r}: a bidirectional stream must be an async generator")
        bidi = handler.stream_stream

        async def checked_bidi(requests: Any, context: Any) -> Any:
            # Each request is checked as the method reads it; a refused one raises the
            # refusal there, and the method ends its stream with it (one that knows no
            # TableError lets it through: it is sent here).
            checked = _checked(requests, refusal)
            try:
                async with contextlib.aclosing(bidi(checked, context)) as messages:
                    async for message in messages:
                        yield message
                        # An encoded update of the stream's own: not held while it waits
                        # for the next (BENCHMARKS.md, "Memory of a busy table").
                        del message
            except TableError as error:
                await abort(context, error, observe)

        return grpc.stream_stream_rpc_method_handler(checked_bidi, **serialization)
    raise TypeError(f"{handler!r}: client streams alone are not served")


async def _checked(
    requests: AsyncIterator[Any], refusal: Callable[[Any], TableError | None]
) -> AsyncIterator[Any]:
    async for request in requests:
        refused = refusal(request)
        if refused is not None:
            raise refused
        yield request


async def _sized(requests: AsyncIterator[Any], limit: int) -> AsyncIterator[Any]:
    async for request in requests:
        size = request.ByteSize()
        if size > limit:
            raise message_too_large(size, limit)
        yield request


def _bytes_or(serialize: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    """``serialize``, passing a message that is already encoded as it is."""

    def serializer(message: Any) -> bytes:
        return message if type(message) is bytes else serialize(message)

    return serializer


class ConnectSizeLimit:
    """The same check on the web port (a connectrpc interceptor)."""

    def __init__(self, limit: int, observe: ErrorObserver | None) -> None:
        self.limit = limit
        self.observe = observe

    def _check(self, request: Any) -> None:
        size = request.ByteSize()
        if size > self.limit:
            raise connect_error(message_too_large(size, self.limit), self.observe)

    async def intercept_unary(
        self, call_next: Callable[[Any, Any], Awaitable[Any]], request: Any, ctx: Any, /
    ) -> Any:
        self._check(request)
        return await call_next(request, ctx)

    def intercept_server_stream(
        self, call_next: Callable[[Any, Any], AsyncIterator[Any]], request: Any, ctx: Any, /
    ) -> AsyncIterator[Any]:
        try:
            self._check(request)
        except ConnectError as error:
            return _raising(error)
        return call_next(request, ctx)

    def intercept_bidi_stream(
        self,
        call_next: Callable[[AsyncIterator[Any], Any], AsyncIterator[Any]],
        requests: AsyncIterator[Any],
        ctx: Any,
        /,
    ) -> AsyncIterator[Any]:
        # Each request as the method reads it: the method ends its stream with the refusal.
        return call_next(_sized(requests, self.limit), ctx)


async def _raising(error: Exception) -> AsyncIterator[Any]:
    raise error
    yield  # pragma: no cover - makes this an async generator


Scope = MutableMapping[str, Any]
ASGIApp = Callable[
    [Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]
]

_ALLOWED_HEADERS = (
    "Authorization, Content-Type, Grpc-Timeout, X-Grpc-Web, X-User-Agent, "
    "Connect-Protocol-Version, Connect-Timeout-Ms, Connect-Accept-Encoding, Connect-Content-Encoding"
)
_EXPOSED_HEADERS = "Grpc-Status, Grpc-Message, Grpc-Status-Details-Bin"


def cors(app: ASGIApp, origins: tuple[str, ...]) -> ASGIApp:
    """Let web clients from ``origins`` call ``app`` (Connect and gRPC-Web headers)."""

    def allowed(origin: str) -> str | None:
        if "*" in origins:
            return origin or "*"
        return origin if origin in origins else None

    async def wrapped(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
        origin = allowed(headers.get("origin", ""))
        extra = []
        if origin:
            extra = [
                (b"access-control-allow-origin", origin.encode()),
                (b"access-control-expose-headers", _EXPOSED_HEADERS.encode()),
                (b"vary", b"Origin"),
            ]
        if scope["method"] == "OPTIONS":
            await send(
                {
                    "type": "http.response.start",
                    "status": 204 if origin else 403,
                    "headers": [
                        *extra,
                        (b"access-control-allow-methods", b"POST, GET, OPTIONS"),
                        (b"access-control-allow-headers", _ALLOWED_HEADERS.encode()),
                        (b"access-control-max-age", b"7200"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return

        async def send_with_cors(message: Any) -> None:
            if message["type"] == "http.response.start" and extra:
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await app(scope, receive, send_with_cors)

    return wrapped
