"""Rate limits on log-ins and money requests, counted in the database.

The lobby keeps nothing in memory, so that any number of replicas can serve
behind a load balancer. Every limited request adds one hit to its window in
``rate_limits`` with one atomic statement (``INSERT … ON CONFLICT DO UPDATE …
RETURNING``, the same on SQLite and PostgreSQL: concurrent requests of one
bucket queue on its row), and the count that statement returns decides.
Replicas that share a database share the limit.

The windows are fixed, as Litestar's in-memory limiter's were: one opens with a
bucket's first request after the last window ended and lasts the limit's
period; its first ``per_window`` requests pass, later ones get ``429`` with
``Retry-After`` (whole seconds until the window ends) and a problem document.
A refused request counts as a hit too, which changes nothing: the window's
end does not move. Times come from the replica's clock (milliseconds since the
epoch), so replicas' clocks should agree to well under a second.

Every answer of a limited route carries the IETF draft's ``RateLimit-Limit``,
``RateLimit-Remaining``, ``RateLimit-Reset`` and ``RateLimit-Policy`` headers.

>>> bucket_key("login", "203.0.113.7")
'login:203.0.113.7'
>>> len(bucket_key("money", "x" * 500)) <= BUCKET_LENGTH
True
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from litestar import Request
from litestar.datastructures import MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.exceptions import TooManyRequestsException
from litestar.middleware.base import DefineMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql import Executable

from lobby_api.db import Database
from lobby_api.ratelimit.models import BUCKET_LENGTH, RateLimitRow

__all__ = [
    "Limit",
    "RateLimits",
    "Window",
    "bucket_key",
    "rate_limit_middleware",
]

_TABLE: sa.Table = RateLimitRow.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Limit:
    """``per_window`` requests per ``window_seconds`` on the routes whose
    ``opt["rate_limit"]`` is ``kind``, counted per ``identify(request)``."""

    kind: str
    per_window: int
    identify: Callable[[Request[Any, Any, Any]], str]
    window_seconds: int = 60


@dataclass(frozen=True, slots=True)
class Window:
    """A bucket's current window after a hit: its hits so far and when it ends."""

    hits: int
    ends_ms: int
    #: When the hit was counted (the replica's clock).
    now_ms: int

    def headers(self, limit: Limit) -> dict[str, str]:
        reset = max(0, math.ceil((self.ends_ms - self.now_ms) / 1000))
        return {
            "RateLimit-Policy": f"{limit.per_window}; w={limit.window_seconds}",
            "RateLimit-Limit": str(limit.per_window),
            "RateLimit-Remaining": str(max(0, limit.per_window - self.hits)),
            "RateLimit-Reset": str(reset),
        }

    def retry_after(self) -> str:
        """Whole seconds until the window ends (at least 1)."""
        return str(max(1, math.ceil((self.ends_ms - self.now_ms) / 1000)))


def bucket_key(kind: str, identifier: str) -> str:
    """What is limited and for whom; an identifier too long for the column is hashed."""
    key = f"{kind}:{identifier}"
    if len(key) <= BUCKET_LENGTH:
        return key
    return f"{kind}:sha256:{hashlib.sha256(identifier.encode()).hexdigest()}"


class RateLimits:
    """The windows in the database: count a hit, forget windows that are over."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def _hit_statement(self, bucket: str, now_ms: int, window_ms: int) -> Executable:
        table = _TABLE
        insert = postgresql.insert if self.db.is_postgres else sqlite.insert
        statement = insert(table).values(bucket=bucket, hits=1, window_ends=now_ms + window_ms)
        over = table.c.window_ends <= now_ms
        return statement.on_conflict_do_update(
            index_elements=[table.c.bucket],
            set_={
                # Both right-hand sides read the row as it was before this update.
                "hits": sa.case((over, 1), else_=table.c.hits + 1),
                "window_ends": sa.case(
                    (over, statement.excluded.window_ends), else_=table.c.window_ends
                ),
            },
        ).returning(table.c.hits, table.c.window_ends)

    async def hit(self, bucket: str, window_seconds: int) -> Window:
        """Count one request of ``bucket``; the window it fell in, with this hit."""
        now_ms = self._now_ms()
        rows = await self.db.write_statement(
            self._hit_statement(bucket, now_ms, window_seconds * 1000)
        )
        hits, ends_ms = tuple[Any, ...](rows[0])
        return Window(int(hits), int(ends_ms), now_ms)

    async def forget_expired(self) -> int:
        """Delete the rows of windows that are over; how many were deleted."""
        statement = sa.delete(_TABLE).where(_TABLE.c.window_ends <= self._now_ms())
        return await self.db.execute_write(statement)


class _RateLimitMiddleware:
    """Counts the requests of limited routes and refuses those over their limit."""

    def __init__(self, app: ASGIApp, limits: Mapping[str, Limit], rate_limits: RateLimits) -> None:
        self.app = app
        self.limits = limits
        self.rate_limits = rate_limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        handler = scope.get("route_handler")
        kind = handler.opt.get("rate_limit") if handler is not None else None
        limit = self.limits.get(kind) if scope["type"] == ScopeType.HTTP and kind else None
        if limit is None:
            await self.app(scope, receive, send)
            return
        request: Request[Any, Any, Any] = scope["litestar_app"].request_class(scope)
        window = await self.rate_limits.hit(
            bucket_key(limit.kind, limit.identify(request)), limit.window_seconds
        )
        headers = window.headers(limit)
        if window.hits > limit.per_window:
            raise TooManyRequestsException(
                detail=f"more than {limit.per_window} requests in {limit.window_seconds} s",
                headers={**headers, "Retry-After": window.retry_after()},
            )

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                response_headers = MutableScopeHeaders(message)
                for name, value in headers.items():
                    response_headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


def rate_limit_middleware(limits: list[Limit], rate_limits: RateLimits) -> DefineMiddleware:
    """The middleware enforcing ``limits`` (those with ``per_window`` 0 are off)."""
    active = {limit.kind: limit for limit in limits if limit.per_window > 0}
    return DefineMiddleware(_RateLimitMiddleware, limits=active, rate_limits=rate_limits)
