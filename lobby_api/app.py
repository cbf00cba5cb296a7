"""The lobby's Litestar application: ``create_app(settings)``.

Stateless: everything lives in the database, the rate limits' counters too
(:mod:`lobby_api.ratelimit.limiter`), so any number of replicas can serve behind a
load balancer and share one limit. Each replica runs the sweep (:mod:`lobby_api.sweep`);
every step of it is idempotent, so replicas sweeping at once never pay twice. The one view a
replica keeps is derived and a second old at most: the players looking for a game per city
and stake level (:mod:`lobby_api.quickgame.looking`).

The composition root: the app's long-lived parts live on its state (the database, the
engine client and the per-node routing, the settings, the wallet reader with what settlement
owes, the tournament director, the players looking); each domain's services are built per request from them
(``Provide``, in the domain's ``dependencies`` module). The director's pass runs with the
sweep on every replica (:mod:`lobby_api.tournaments.director`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any, Literal

import msgspec
import sqlalchemy as sa
from argon2 import PasswordHasher
from litestar import Litestar, Request, get
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.middleware.rate_limit import get_remote_address
from litestar.openapi.config import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme

from lobby_api.accounts.controllers import AccountsController
from lobby_api.accounts.passwords import default_hasher
from lobby_api.accounts.services import Accounts
from lobby_api.api_docs import render_plugins
from lobby_api.auth import provide_current_player, provide_player_id, token_subject
from lobby_api.bodies import StrictRequest
from lobby_api.catalog.controllers import CatalogController
from lobby_api.db import Database, provide_db, provide_db_session
from lobby_api.engine_client import EngineClient
from lobby_api.engine_nodes import TableEngines
from lobby_api.fairness.controllers import FairnessController
from lobby_api.forwarded import forwarded_for_middleware
from lobby_api.history.controllers import HistoryController
from lobby_api.metrics import MetricsController, metrics_middleware
from lobby_api.play import play_router
from lobby_api.problems import (
    EXCEPTION_HANDLERS,
    DomainError,
    database_unavailable,
    problem_responses,
)
from lobby_api.ratelimit.limiter import Limit, RateLimits, rate_limit_middleware
from lobby_api.ratelimit.logins import LoginFailures
from lobby_api.sessions.controllers import SessionsController
from lobby_api.sessions.services import Sessions
from lobby_api.settings import LobbySettings

__all__ = ["HealthView", "create_app"]

log = logging.getLogger("stud.lobby")


class HealthView(msgspec.Struct):
    """GET /health: the lobby answers, and its database does."""

    #: Always "ok": an unreachable database is a 503 problem document instead.
    status: Literal["ok"]


# A named type, not a dict: the reference (ReDoc) shows a dict's answer as an invented
# {"property1": …, "property2": …}.
@get(
    "/health",
    tags=["ops"],
    summary="Liveness and database check",
    include_in_schema=True,
    responses=problem_responses(503),
)
async def health(db: NamedDependency[Database]) -> HealthView:
    try:
        async with db.read() as session:
            await session.exec(sa.text("SELECT 1"))  # type: ignore[call-overload]
    except Exception as error:
        cause = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise database_unavailable(f"the database is unreachable ({cause})") from None
    return HealthView(status="ok")


def _player_or_address(request: Request[Any, Any, Any]) -> str:
    try:
        return token_subject(
            request.headers.get("authorization"), request.app.state.settings.jwt_secret
        )
    except DomainError:
        return get_remote_address(request)


def create_app(
    settings: LobbySettings,
    *,
    engine_client: EngineClient | None = None,
    password_hasher: PasswordHasher | None = None,
    database: Database | None = None,
) -> Litestar:
    """The lobby app. ``engine_client``, ``password_hasher`` and ``database`` replace the
    defaults (tests use a cheaper hasher)."""
    from lobby_api.quickgame.controllers import QuickGameController, TableController
    from lobby_api.quickgame.looking import PlayersLooking
    from lobby_api.quickgame.tables import opening_by_node, planned_node, quick_settlement
    from lobby_api.quickgame.tickets import ticket_tables
    from lobby_api.quickgame.waiting import WaitingController
    from lobby_api.settlement.services import owed_to_player, seat_session_tables
    from lobby_api.sweep import Sweep
    from lobby_api.tournaments.common import planned_node as planned_tournament_node
    from lobby_api.tournaments.controllers import (
        TournamentAdminController,
        TournamentController,
    )
    from lobby_api.tournaments.director import Director
    from lobby_api.wallet.controllers import WalletController
    from lobby_api.wallet.services import Owed, WalletReader

    db = database or Database.from_url(
        settings.database_url, pool_size=settings.db_pool_size, max_overflow=settings.db_pool_size
    )
    engine = engine_client or EngineClient(
        settings.engine_grpc, settings.jwt_secret, timeout=settings.engine_timeout_seconds
    )

    # Each table's calls go to the engine node that owns it (STUD_LOBBY_ENGINE: none known).
    # (A table the engine has not created yet goes to the node chosen for it.)
    async def planned(session: Any, table_id: str) -> str | None:
        return await planned_node(session, table_id) or await planned_tournament_node(
            session, table_id
        )

    engines = TableEngines(db, engine, settings, planned=planned, pending=opening_by_node)
    # argon2id at OWASP's minimum; older hashes are upgraded at log-in.
    hasher = password_hasher or default_hasher()
    # Failed log-ins per account, whatever address they come from (0: no such limit).
    login_failures = (
        LoginFailures(db, settings.login_failures, settings.login_backoff_max_seconds)
        if settings.login_failures > 0
        else None
    )
    accounts = Accounts(db, hasher, settings.signup_grant, login_failures)
    sessions = Sessions(db, settings.jwt_secret, settings.token_seconds, settings.refresh_seconds)

    async def settle_player(player_id: str) -> object:
        return await quick_settlement(db, engines).settle_player(player_id)

    # Reading a wallet first settles the closed seat sessions its player left behind. Its
    # entries name their tables: a cash-out's is its seat's, a ticket's hold the seat's it found.
    wallet_reader = WalletReader(
        db, Owed(owed_to_player(), settle_player), (seat_session_tables(), ticket_tables())
    )
    looking = PlayersLooking(db)
    sweep = Sweep(db, engines, settings, looking)
    # The tournament director's pass runs with the sweep, on every replica (each of its
    # steps happens once whichever replicas run it: lobby_api.tournaments.director).
    director = Director(db, engines, lease=timedelta(seconds=settings.tournament_lease_seconds))
    rate_limits = RateLimits(db)
    swept = [director.once, rate_limits.forget_expired, sessions.forget_expired]
    if login_failures is not None:
        swept.append(login_failures.forget_stale)

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        if settings.load_seeds:
            from seeds.load import apply_seeds

            await apply_seeds(db.engine)
            # The seeds' sit & go templates are open from the start (once, whichever replica).
            await director.keep_templates_open()
        sweeper = None
        if settings.sweep_seconds > 0:
            sweeper = asyncio.create_task(sweep.forever(settings.sweep_seconds, also=swept))
        try:
            yield
        finally:
            if sweeper is not None:
                sweeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sweeper
            await engines.close()
            if engine_client is None:
                await engine.close()
            if database is None:
                await db.dispose()

    # Log-ins per client address, money requests per player (or address without a token),
    # per minute; routes say which limit is theirs in opt={"rate_limit": ...}.
    limits = [
        Limit("login", settings.login_rate_per_minute, get_remote_address),
        Limit("money", settings.money_rate_per_minute, _player_or_address),
    ]
    # Request metrics inside the rate limiter: a refusal it raises would pass through it
    # as an exception and be counted as a 200. The client's address first: from a trusted
    # proxy, the one its X-Forwarded-For names (STUD_LOBBY_TRUSTED_PROXIES).
    middleware = [rate_limit_middleware(limits, rate_limits), metrics_middleware()]
    forwarded = forwarded_for_middleware(settings.trusted_proxies)
    if forwarded is not None:
        middleware.insert(0, forwarded)

    return Litestar(
        route_handlers=[
            health,
            MetricsController,
            AccountsController,
            SessionsController,
            CatalogController,
            WalletController,
            QuickGameController,
            TableController,
            WaitingController,
            HistoryController,
            FairnessController,
            TournamentController,
            TournamentAdminController,
            play_router(),
        ],
        dependencies={
            "db": Provide(provide_db, sync_to_thread=False),
            "db_session": Provide(provide_db_session),
            "player_id": Provide(provide_player_id, sync_to_thread=False),
            "current_player": Provide(provide_current_player),
            "accounts": Provide(lambda: accounts, sync_to_thread=False),
            "sessions": Provide(lambda: sessions, sync_to_thread=False),
        },
        state=State(
            {
                "settings": settings,
                "db": db,
                "engine": engine,
                "engines": engines,
                "wallet_reader": wallet_reader,
                "sweep": sweep,
                "director": director,
                "looking": looking,
                "login_failures": login_failures,
                "sessions": sessions,
            }
        ),
        # Bodies as strict as the schema says, on every route (lobby_api.bodies).
        request_class=StrictRequest,
        # The process's logging is the command's (stud lobby: JSON or text, STUD_LOG_FORMAT);
        # Litestar's default would put its own text handler on the root logger at start.
        logging_config=None,
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=middleware,
        lifespan=[lifespan],
        openapi_config=OpenAPIConfig(
            title="Stud lobby",
            version="1.0.0",
            description=(
                "Accounts, wallets, quick games with city matchmaking, tournaments (sit & go "
                "and scheduled), hand history and the fairness page of the Seven-Card Stud card room. Every error is an RFC 9457 "
                "problem document (application/problem+json)."
            ),
            path="/schema",
            render_plugins=render_plugins("/schema"),
            components=Components(
                security_schemes={
                    "BearerToken": SecurityScheme(type="http", scheme="bearer", bearer_format="JWT")
                }
            ),
        ),
        debug=False,
    )
