"""Refusals on the wire: ``google.rpc.Status`` with exactly one ``ErrorInfo``.

The same :class:`~engine_server.table.errors.TableError` becomes a grpcio
abort or a Connect error, so every transport reports the same reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status
from protobuf.wkt import Any as ConnectAny

from engine_server.table.errors import ErrorKind, TableError

__all__ = [
    "DOMAIN",
    "ErrorObserver",
    "abort",
    "connect_error",
    "error_info",
    "grpc_code",
    "invalid",
    "status_of",
]

DOMAIN = "stud.v1"

#: told of every refusal sent to a client, whatever the transport (the engine's metrics)
ErrorObserver = Callable[[TableError], None]

_GRPC_CODES = {
    ErrorKind.INVALID_ARGUMENT: code_pb2.INVALID_ARGUMENT,
    ErrorKind.NOT_FOUND: code_pb2.NOT_FOUND,
    ErrorKind.FAILED_PRECONDITION: code_pb2.FAILED_PRECONDITION,
    ErrorKind.PERMISSION_DENIED: code_pb2.PERMISSION_DENIED,
    ErrorKind.UNAUTHENTICATED: code_pb2.UNAUTHENTICATED,
    ErrorKind.ABORTED: code_pb2.ABORTED,
    ErrorKind.RESOURCE_EXHAUSTED: code_pb2.RESOURCE_EXHAUSTED,
    ErrorKind.UNAVAILABLE: code_pb2.UNAVAILABLE,
}

_CONNECT_CODES = {
    ErrorKind.INVALID_ARGUMENT: Code.INVALID_ARGUMENT,
    ErrorKind.NOT_FOUND: Code.NOT_FOUND,
    ErrorKind.FAILED_PRECONDITION: Code.FAILED_PRECONDITION,
    ErrorKind.PERMISSION_DENIED: Code.PERMISSION_DENIED,
    ErrorKind.UNAUTHENTICATED: Code.UNAUTHENTICATED,
    ErrorKind.ABORTED: Code.ABORTED,
    ErrorKind.RESOURCE_EXHAUSTED: Code.RESOURCE_EXHAUSTED,
    ErrorKind.UNAVAILABLE: Code.UNAVAILABLE,
}


def invalid(field: str, message: str, reason: str = "INVALID_ARGUMENT") -> TableError:
    """A malformed request field."""
    return TableError.invalid(reason, message, field=field)


def error_info(error: TableError) -> error_details_pb2.ErrorInfo:
    return error_details_pb2.ErrorInfo(
        reason=error.reason, domain=DOMAIN, metadata=dict(error.metadata)
    )


def grpc_code(error: TableError) -> int:
    """The gRPC status code (``google.rpc.Code``) of ``error``."""
    return int(_GRPC_CODES[error.kind])


def status_of(error: TableError) -> status_pb2.Status:
    detail = any_pb2.Any()
    detail.Pack(error_info(error))
    return status_pb2.Status(code=grpc_code(error), message=error.message, details=[detail])


async def abort(
    context: grpc.aio.ServicerContext[object, object],
    error: TableError,
    observe: ErrorObserver | None = None,
) -> NoReturn:
    if observe is not None:
        observe(error)
    await context.abort_with_status(rpc_status.to_status(status_of(error)))
    raise AssertionError("abort_with_status returned")  # pragma: no cover - it always raises


def connect_error(error: TableError, observe: ErrorObserver | None = None) -> ConnectError:
    """The Connect error for ``error``, with its ``ErrorInfo`` as the one detail.

    connectrpc's :class:`ErrorDetail` packs only messages of its own protobuf
    runtime (a google.protobuf message has no ``_desc``), so the detail is
    handed over already packed, as connectrpc's own ``Any``.
    """
    if observe is not None:
        observe(error)
    info = error_info(error)
    packed = ConnectAny(
        type_url="type.googleapis.com/" + info.DESCRIPTOR.full_name,
        value=info.SerializeToString(),
    )
    return ConnectError(_CONNECT_CODES[error.kind], error.message, details=[ErrorDetail(packed)])
