"""The lobby's settings: one object, from environment variables, checked at start.

| variable | default | meaning |
|---|---|---|
| ``STUD_DATABASE_URL`` | ``sqlite:///var/stud.sqlite3`` | the database, shared with the engine |
| ``STUD_JWT_SECRET`` | a secret kept in ``var/jwt-secret`` | HS256 key shared with the engine |
| ``STUD_LOBBY_HOST`` / ``STUD_LOBBY_PORT`` | ``127.0.0.1`` / ``8000`` | where the lobby listens |
| ``STUD_LOBBY_ENGINE`` | ``127.0.0.1:50051`` | the engine's gRPC address (AdminService) (*) |
| ``STUD_LOBBY_ENGINE_PUBLIC_GRPC`` | ``STUD_LOBBY_ENGINE`` | the gRPC address given to players (*) |
| ``STUD_LOBBY_ENGINE_WEB`` | ``http://127.0.0.1:8081`` | the gRPC-Web URL given to players (*) |
| ``STUD_LOBBY_SIGNUP_GRANT`` | ``10000`` | play money credited to a new account |
| ``STUD_LOBBY_TICKET_SECONDS`` | ``120`` | how long a matchmaking ticket waits |
| ``STUD_LOBBY_SWEEP_SECONDS`` | ``5`` | settlement sweep interval (0: no sweep task) |
| ``STUD_LOBBY_TOKEN_SECONDS`` | ``900`` | access token lifetime (at least 5 s) |
| ``STUD_LOBBY_REFRESH_SECONDS`` | ``2592000`` | refresh token lifetime (30 days; more than the access token's) |
| ``STUD_LOBBY_LOGIN_RATE`` | ``30`` | log-ins per minute per client address (0: no limit) |
| ``STUD_LOBBY_LOGIN_FAILURES`` | ``5`` | failed log-ins of one account before it must wait (0: no per-account limit) |
| ``STUD_LOBBY_LOGIN_BACKOFF_MAX`` | ``900`` | the longest such wait, seconds (it doubles from 1 s per failure) |
| ``STUD_LOBBY_TRUSTED_PROXIES`` | (none) | proxies whose ``X-Forwarded-For`` names the client: addresses or networks, comma-separated |
| ``STUD_LOBBY_MONEY_RATE`` | ``120`` | money requests per minute per player (0: no limit) |
| ``STUD_LOBBY_ENGINE_TIMEOUT`` | ``10`` | deadline of one engine call, seconds |
| ``STUD_LOBBY_LOOP`` | ``uvloop`` (``asyncio`` without it) | the event loop: ``uvloop`` or ``asyncio`` |
| ``STUD_LOBBY_DB_POOL`` | ``20`` | database connections kept open (bursts open as many again) |
| ``STUD_LOBBY_TOURNAMENT_LEASE`` | ``30`` | seconds a replica's tournament director owns a tournament's work before another may take it over (a replica that died holding it delays its tournament this long) |

(*) Used while no engine node is live in the registry (``engine_nodes``): a table's calls
go to the node that owns it, and players get that node's advertised addresses
(:mod:`lobby_api.engine_nodes`).

>>> s = LobbySettings.from_env({"STUD_JWT_SECRET": "x" * 32, "STUD_LOBBY_PORT": "9000"})
>>> s.port, s.signup_grant, s.engine_grpc_public
(9000, 10000, '127.0.0.1:50051')
>>> LobbySettings.from_env({"STUD_JWT_SECRET": "x" * 32, "STUD_LOBBY_SIGNUP_GRANT": "-1"})
Traceback (most recent call last):
...
engine_server.settings.SettingsError: STUD_LOBBY_SIGNUP_GRANT: expected a whole number >= 0, got '-1'
>>> LobbySettings.from_env({"STUD_JWT_SECRET": "x" * 32, "STUD_LOBBY_DB_POOL": "0"})
Traceback (most recent call last):
...
engine_server.settings.SettingsError: STUD_LOBBY_DB_POOL: expected a whole number >= 1, got '0'
>>> LobbySettings.from_env({"STUD_JWT_SECRET": "x" * 32}).tournament_lease_seconds
30.0
>>> LobbySettings.from_env({"STUD_JWT_SECRET": "x" * 32, "STUD_LOBBY_TOURNAMENT_LEASE": "0"})
Traceback (most recent call last):
...
engine_server.settings.SettingsError: STUD_LOBBY_TOURNAMENT_LEASE: must be more than 0 seconds

Forwarded client addresses are believed only from the proxies named (none by default):

>>> LobbySettings.from_env({"STUD_JWT_SECRET": "x" * 32}).trusted_proxies
()
>>> env = {"STUD_JWT_SECRET": "x" * 32, "STUD_LOBBY_TRUSTED_PROXIES": "10.0.0.5, 10.1.0.0/16,::1"}
>>> LobbySettings.from_env(env).trusted_proxies
('10.0.0.5/32', '10.1.0.0/16', '::1/128')
>>> LobbySettings.from_env({**env, "STUD_LOBBY_TRUSTED_PROXIES": "proxy.local"})
Traceback (most recent call last):
...
engine_server.settings.SettingsError: STUD_LOBBY_TRUSTED_PROXIES: 'proxy.local' is not an IP address or network
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from engine_server.loops import DEFAULT_LOOP
from engine_server.settings import (
    DEFAULT_DATABASE_URL,
    SettingsError,
    event_loop,
    jwt_secret,
    port,
    positive_float,
)

__all__ = ["LobbySettings", "SettingsError"]


def _networks(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """Comma-separated IP addresses or networks (``10.0.0.5``, ``10.1.0.0/16``), normalised."""
    networks = []
    for part in (env.get(name) or "").split(","):
        text = part.strip()
        if not text:
            continue
        try:
            networks.append(str(ipaddress.ip_network(text, strict=False)))
        except ValueError:
            raise SettingsError(f"{name}: {text!r} is not an IP address or network") from None
    return tuple(networks)


def _count(env: Mapping[str, str], name: str, default: int, *, minimum: int = 0) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or int(raw) < minimum:
        raise SettingsError(f"{name}: expected a whole number >= {minimum}, got {raw!r}")
    return int(raw)


@dataclass(frozen=True, slots=True)
class LobbySettings:
    database_url: str = DEFAULT_DATABASE_URL
    jwt_secret: str = field(default="", repr=False)
    host: str = "127.0.0.1"
    port: int = 8000
    #: Where the lobby calls the engine's AdminService.
    engine_grpc: str = "127.0.0.1:50051"
    #: What players are told (may differ from engine_grpc behind a proxy).
    engine_grpc_public: str = "127.0.0.1:50051"
    engine_grpc_web: str = "http://127.0.0.1:8081"
    signup_grant: int = 10_000
    ticket_seconds: float = 120.0
    sweep_seconds: float = 5.0
    #: How long an access token lives. Short, because nothing revokes one: the engine checks
    #: it by itself, and a log-out or a password change only stops its refresh token.
    token_seconds: int = 15 * 60
    #: How long a refresh token lives unused (each refresh answers a new one).
    refresh_seconds: int = 30 * 24 * 3600
    login_rate_per_minute: int = 30
    #: Failed log-ins of one account (by username, across every address and replica) before
    #: each further attempt must wait: 1 s after the next failure, doubling up to
    #: ``login_backoff_max_seconds`` (:mod:`lobby_api.ratelimit.logins`). 0: no such limit.
    login_failures: int = 5
    login_backoff_max_seconds: int = 900
    #: Proxies (IP networks) whose ``X-Forwarded-For`` header names the client, for the rate
    #: limits and the logs; from anyone else the header is ignored. None by default.
    trusted_proxies: tuple[str, ...] = ()
    money_rate_per_minute: int = 120
    engine_timeout_seconds: float = 10.0
    #: Connections the pool keeps open. A request beyond them opens one more for itself
    #: (up to as many again) and closes it after: opening costs more than a read, so this
    #: should cover the usual number of requests in flight.
    db_pool_size: int = 20
    #: The event loop ``stud lobby`` serves on (``uvloop`` or ``asyncio``).
    loop: str = DEFAULT_LOOP
    #: How long a replica's tournament director owns a tournament's work (seating, moves,
    #: hand-for-hand) before another replica may take it over: a replica killed while it
    #: held it leaves its tournament waiting this long.
    tournament_lease_seconds: float = 30.0
    #: Seed the catalogue (cities, stake levels) from seeds/ at start.
    load_seeds: bool = True

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LobbySettings:
        env = os.environ if env is None else env
        url = env.get("STUD_DATABASE_URL") or DEFAULT_DATABASE_URL
        if not url.startswith(("sqlite", "postgres")):
            raise SettingsError(
                f"STUD_DATABASE_URL: expected a sqlite or postgresql URL, got {url!r}"
            )
        engine = env.get("STUD_LOBBY_ENGINE") or "127.0.0.1:50051"
        token_seconds = _count(env, "STUD_LOBBY_TOKEN_SECONDS", 15 * 60)
        if token_seconds < 5:
            raise SettingsError("STUD_LOBBY_TOKEN_SECONDS: must be at least 5")
        refresh_seconds = _count(env, "STUD_LOBBY_REFRESH_SECONDS", 30 * 24 * 3600)
        if refresh_seconds <= token_seconds:
            raise SettingsError(
                "STUD_LOBBY_REFRESH_SECONDS: must be more than STUD_LOBBY_TOKEN_SECONDS "
                f"({token_seconds})"
            )
        lease_seconds = positive_float(env, "STUD_LOBBY_TOURNAMENT_LEASE", 30.0)
        if lease_seconds <= 0:
            raise SettingsError("STUD_LOBBY_TOURNAMENT_LEASE: must be more than 0 seconds")
        return cls(
            database_url=url,
            jwt_secret=jwt_secret(env),
            host=env.get("STUD_LOBBY_HOST") or "127.0.0.1",
            port=port(env, "STUD_LOBBY_PORT", 8000),
            engine_grpc=engine,
            engine_grpc_public=env.get("STUD_LOBBY_ENGINE_PUBLIC_GRPC") or engine,
            engine_grpc_web=env.get("STUD_LOBBY_ENGINE_WEB") or "http://127.0.0.1:8081",
            signup_grant=_count(env, "STUD_LOBBY_SIGNUP_GRANT", 10_000),
            ticket_seconds=positive_float(env, "STUD_LOBBY_TICKET_SECONDS", 120.0),
            sweep_seconds=positive_float(env, "STUD_LOBBY_SWEEP_SECONDS", 5.0),
            token_seconds=token_seconds,
            refresh_seconds=refresh_seconds,
            login_rate_per_minute=_count(env, "STUD_LOBBY_LOGIN_RATE", 30),
            login_failures=_count(env, "STUD_LOBBY_LOGIN_FAILURES", 5),
            login_backoff_max_seconds=_count(env, "STUD_LOBBY_LOGIN_BACKOFF_MAX", 900, minimum=1),
            trusted_proxies=_networks(env, "STUD_LOBBY_TRUSTED_PROXIES"),
            money_rate_per_minute=_count(env, "STUD_LOBBY_MONEY_RATE", 120),
            engine_timeout_seconds=positive_float(env, "STUD_LOBBY_ENGINE_TIMEOUT", 10.0),
            db_pool_size=_count(env, "STUD_LOBBY_DB_POOL", 20, minimum=1),
            loop=event_loop(env, "STUD_LOBBY_LOOP"),
            tournament_lease_seconds=lease_seconds,
        )
