"""The lobby's Prometheus metrics at ``GET /metrics``: requests by route, and a few of its own.

Litestar's Prometheus plugin counts and times every request by method, route
template (``/tables/{table_id}``, never the raw path: one series per route, not
per table) and status code:

| metric | type | labels |
|---|---|---|
| ``stud_lobby_requests_total`` | counter | ``method``, ``path``, ``status_code``, ``app_name`` |
| ``stud_lobby_request_duration_seconds`` | histogram | the same |
| ``stud_lobby_requests_in_progress`` | gauge | the same |
| ``stud_lobby_requests_error_total`` | counter | the same, 5xx only |

and the lobby counts what its successful answers did (an idempotent replay,
``Idempotent-Replayed: true``, counts nothing again):

| metric | counts |
|---|---|
| ``stud_lobby_registrations_total`` | accounts registered (``POST /accounts`` 201) |
| ``stud_lobby_logins_total`` | logins (``POST /auth/login`` 200) |
| ``stud_lobby_token_refreshes_total`` | access tokens renewed (``POST /auth/refresh`` 200) |
| ``stud_lobby_logouts_total`` | log-outs (``POST /auth/logout`` 204) |
| ``stud_lobby_password_changes_total`` | password changes (``POST /accounts/me/password`` 200) |
| ``stud_lobby_quick_games_total`` | quick-game tables opened (``POST /quickgame`` 201) |
| ``stud_lobby_tickets_total`` | matchmaking tickets opened (``POST /tickets`` 201) |

``stud_lobby_refresh_token_reuses_total`` (:mod:`lobby_api.sessions.services`) counts the
sessions revoked because a retired refresh token came back: a stolen token, or a client that
renews twice at once. A rise is worth a look.

Every metric lives in prometheus_client's process-wide registry, which is what
Litestar's plugin (its middleware and :class:`PrometheusController`) uses: one
lobby app serves one process, and the tests, which build many apps in one
process, compare counts before and after rather than absolute values. The
endpoint is on the public port like the API: keep ``/metrics`` internal at the
ingress.
"""

from __future__ import annotations

from typing import Any

from litestar.middleware.base import DefineMiddleware
from litestar.plugins.prometheus import PrometheusConfig, PrometheusController, PrometheusMiddleware
from litestar.types import Message, Receive, Scope, Send
from prometheus_client import Counter

__all__ = ["DOMAIN_COUNTERS", "PREFIX", "MetricsController", "metrics_middleware"]

PREFIX = "stud_lobby"

#: (method, route template, status) of a successful answer -> what it counts
DOMAIN_COUNTERS: dict[tuple[str, str, int], Counter] = {
    ("POST", "/accounts", 201): Counter(f"{PREFIX}_registrations", "Accounts registered"),
    ("POST", "/auth/login", 200): Counter(f"{PREFIX}_logins", "Successful logins"),
    ("POST", "/auth/refresh", 200): Counter(
        f"{PREFIX}_token_refreshes", "Access tokens renewed by a refresh token"
    ),
    ("POST", "/auth/logout", 204): Counter(f"{PREFIX}_logouts", "Sessions logged out"),
    ("POST", "/accounts/me/password", 200): Counter(
        f"{PREFIX}_password_changes", "Password changes (each revokes every session)"
    ),
    ("POST", "/quickgame", 201): Counter(f"{PREFIX}_quick_games", "Quick-game tables opened"),
    ("POST", "/tickets", 201): Counter(f"{PREFIX}_tickets", "Matchmaking tickets opened"),
}


class _LobbyMiddleware(PrometheusMiddleware):
    """Litestar's request metrics, and the lobby's own counters from the same answers."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        answer: dict[str, Any] = {}

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                answer["replayed"] = any(
                    name.lower() == b"idempotent-replayed" and value == b"true"
                    for name, value in message.get("headers", ())
                )
            await send(message)

        await super().__call__(scope, receive, watch)
        counter = DOMAIN_COUNTERS.get(
            (
                str(scope.get("method", "")),
                str(scope.get("path_template", "")),
                answer.get("status", 0),
            )
        )
        if counter is not None and not answer.get("replayed"):
            counter.inc()


CONFIG = PrometheusConfig(
    app_name="stud-lobby",
    prefix=PREFIX,
    # Route templates, not raw paths: a path per table or ticket would grow without end.
    group_path=True,
    # Scrapes are not traffic.
    exclude=["^/metrics"],
    middleware_class=_LobbyMiddleware,
)


def metrics_middleware() -> DefineMiddleware:
    """The middleware that counts and times every request (put it first)."""
    return CONFIG.middleware


class MetricsController(PrometheusController):
    """``GET /metrics``: Prometheus' text format."""

    path = "/metrics"
    include_in_schema = False
