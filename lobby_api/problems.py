"""Every error as an RFC 9457 problem document (``application/problem+json``).

A problem names what went wrong for a program (``code``, also in ``type``) and
for a person (``title``, ``detail``); when a request field was wrong it is named
in ``errors`` (``[{"field": "buy_in", "message": "…"}]``) and in ``field``.
Services raise :class:`DomainError`; Litestar's own errors (validation, 404,
405, 429, malformed JSON) and anything unexpected (500) are turned into the
same shape by :data:`EXCEPTION_HANDLERS`. A database that is away (PostgreSQL restarting, a
SQLite file that cannot be written) is ``503 database_unavailable`` with ``Retry-After``.

>>> error = DomainError(422, "buy_in_out_of_range", "buy_in 5 is below 40", field="buy_in")
>>> doc = error.document("/quickgame")
>>> doc["status"], doc["type"], doc["errors"]
(422, 'urn:problem:stud:buy_in_out_of_range', [{'field': 'buy_in', 'message': 'buy_in 5 is below 40'}])
"""

from __future__ import annotations

import logging
import re
from http import HTTPStatus
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from sqlalchemy.exc import DataError

from engine_server.store.database import is_outage

__all__ = [
    "DATABASE_RETRY_AFTER_SECONDS",
    "EXCEPTION_HANDLERS",
    "PROBLEM_MEDIA_TYPE",
    "DomainError",
    "FieldError",
    "Problem",
    "database_unavailable",
    "problem_response",
    "problem_responses",
]

log = logging.getLogger("stud.lobby")

PROBLEM_MEDIA_TYPE = "application/problem+json"
_TYPE_PREFIX = "urn:problem:stud:"


class FieldError(msgspec.Struct):
    """One wrong field of a request."""

    field: str
    message: str


class Problem(msgspec.Struct, omit_defaults=True):
    """An RFC 9457 problem document (what every error response carries)."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    instance: str | None = None
    field: str | None = None
    errors: list[FieldError] = msgspec.field(default_factory=list)


def _title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


class DomainError(Exception):
    """A refusal: nothing was changed. ``field`` names the request field that was wrong."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        field: str | None = None,
        *,
        title: str | None = None,
        headers: dict[str, str] | None = None,
        errors: list[tuple[str, str]] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.field = field
        self.title = title or _title(status)
        self.headers = headers or {}
        self.errors = errors if errors is not None else ([(field, detail)] if field else [])

    def document(self, instance: str | None = None) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "type": _TYPE_PREFIX + self.code,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        if instance:
            doc["instance"] = instance
        if self.field:
            doc["field"] = self.field
        if self.errors:
            doc["errors"] = [{"field": f, "message": m} for f, m in self.errors]
        return doc


def problem_response(
    request: Request[Any, Any, Any] | None, error: DomainError
) -> Response[dict[str, Any]]:
    return Response(
        content=error.document(request.url.path if request is not None else None),
        status_code=error.status,
        media_type=PROBLEM_MEDIA_TYPE,
        headers=error.headers,
    )


def _domain(request: Request[Any, Any, Any], error: DomainError) -> Response[dict[str, Any]]:
    return problem_response(request, error)


_CODES = {
    400: "bad_request",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "request_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}


_MISSING = re.compile(r"Missing required (?:\w+ )?parameter '([^']+)'")
_NAMED_FIELD = re.compile(r"field `([^`]+)`")
#: Parameter names in handler signatures and the names clients know them by.
_ALIASES = {"idempotency_key": "Idempotency-Key", "data": "body"}


def _validation(request: Request[Any, Any, Any], error: ValidationException) -> Response[Any]:
    errors: list[tuple[str, str]] = []
    extra = error.extra if isinstance(error.extra, list) else []
    for item in extra:
        if isinstance(item, dict):
            message = str(item.get("message", "invalid value"))
            field = str(item.get("key") or item.get("source") or "body")
            named = _NAMED_FIELD.search(message)
            if field in ("data", "body") and named:
                # msgspec reports a missing field at the object: name the field itself.
                field = named.group(1)
            errors.append((_ALIASES.get(field, field), message))
    detail = errors[0][1] if errors else str(error.detail)
    missing = _MISSING.search(detail)
    field = errors[0][0] if errors else (missing.group(1) if missing else "body")
    if not errors:
        errors = [(field, detail)]
    if len(errors) == 1:
        detail = f"{field}: {detail}"
    return problem_response(
        request, DomainError(400, "invalid_request", detail, field, errors=errors)
    )


def _http(request: Request[Any, Any, Any], error: HTTPException) -> Response[Any]:
    status = error.status_code
    code = _CODES.get(status, "error")
    field = None
    detail = str(error.detail)
    if status == 400:
        # Litestar raises a bare ClientException for a body it cannot decode.
        field = "body"
        code = "malformed_body"
    if status >= 500:
        log.error("HTTP %s on %s %s: %s", status, request.method, request.url.path, detail)
        detail = _title(status)
    headers = dict(error.headers or {})
    return problem_response(request, DomainError(status, code, detail, field, headers=headers))


def _data_error(request: Request[Any, Any, Any], error: DataError) -> Response[Any]:
    # The database refused a value the request carried (a NUL character, say): the client's
    # input, not a server fault. Schemas should have caught it; log to find which.
    log.warning("database refused a value on %s %s: %s", request.method, request.url.path, error)
    return problem_response(
        request,
        DomainError(400, "invalid_value", "the request carries a value that cannot be stored"),
    )


#: How long a client should wait before trying again while the database is away (seconds):
#: a restart of PostgreSQL takes a few seconds, and the pool reconnects on its own.
DATABASE_RETRY_AFTER_SECONDS = 5


def database_unavailable(detail: str = "the database is unreachable") -> DomainError:
    """503 ``database_unavailable``, with ``Retry-After``: nothing was changed."""
    return DomainError(
        503,
        "database_unavailable",
        f"{detail}; nothing was changed, try again in a few seconds",
        headers={"Retry-After": str(DATABASE_RETRY_AFTER_SECONDS)},
    )


def _unexpected(request: Request[Any, Any, Any], error: Exception) -> Response[Any]:
    if is_outage(error):
        # The database is away (restarting, unreachable, its file read-only): a passing
        # state, not a bug. One line without a traceback per request; /health says it too.
        cause = str(error).splitlines()[0] if str(error) else type(error).__name__
        log.warning("database unavailable on %s %s: %s", request.method, request.url.path, cause)
        return problem_response(request, database_unavailable())
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=error)
    return problem_response(
        request, DomainError(500, "internal_error", "the server failed to handle the request")
    )


#: Register on the app: every error becomes a problem document.
EXCEPTION_HANDLERS: Any = {
    DomainError: _domain,
    ValidationException: _validation,
    HTTPException: _http,
    DataError: _data_error,
    Exception: _unexpected,
}


def problem_responses(*statuses: int) -> dict[int, ResponseSpec]:
    """OpenAPI ``responses`` entries documenting problem documents for ``statuses``."""
    return {
        status: ResponseSpec(
            data_container=Problem,
            description=_title(status),
            media_type=PROBLEM_MEDIA_TYPE,
            # Litestar would fill in random strings from a process-wide generator: noise
            # to a reader, and a document that changed with whatever was generated before.
            generate_examples=False,
        )
        for status in statuses
    }
