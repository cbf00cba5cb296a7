"""The engine's settings: one object, from ``STUD_*`` environment variables, checked at start.

| variable | default | meaning |
|---|---|---|
| ``STUD_DATABASE_URL`` | ``sqlite:///var/stud.sqlite3`` | the database (SQLite file or PostgreSQL URL) |
| ``STUD_JWT_SECRET`` | a secret kept in ``var/jwt-secret`` | HS256 key shared with the lobby |
| ``STUD_ENGINE_HOST`` | ``127.0.0.1`` | address the engine listens on |
| ``STUD_ENGINE_GRPC_PORT`` | ``50051`` | gRPC port (native clients, the lobby, ops) |
| ``STUD_ENGINE_WEB_PORT`` | ``8081`` | Connect / gRPC-Web port for browsers (0: any free port) |
| ``STUD_ENGINE_METRICS_PORT`` | ``9464`` | Prometheus ``/metrics`` (0: any free port) |
| ``STUD_ENGINE_BETWEEN_HANDS`` | ``2.0`` | seconds between hands |
| ``STUD_ENGINE_CORS_ORIGINS`` | ``*`` | origins allowed to call the web port, comma-separated |
| ``STUD_ENGINE_MAX_REQUEST_BYTES`` | ``1048576`` | the largest request message, on both ports |
| ``STUD_ENGINE_LOOP`` | ``uvloop`` (``asyncio`` without it) | the event loop: ``uvloop`` or ``asyncio`` |
| ``STUD_ENGINE_NODE_ID`` | ``main`` | this node's id: it loads and serves the tables it owns |
| ``STUD_ENGINE_ADVERTISE_ADMIN`` | the bound gRPC address | where the lobby calls AdminService |
| ``STUD_ENGINE_ADVERTISE_GRPC`` | the bound gRPC address | the gRPC address players are given |
| ``STUD_ENGINE_ADVERTISE_WEB`` | ``http://`` + the bound web address | the gRPC-Web URL browsers are given |
| ``STUD_ENGINE_LEASE_SECONDS`` | ``15`` | the node's lease; renewed every third of it |
| ``STUD_ENGINE_HAND_ACTIONS_KEPT_SECONDS`` | ``86400`` | how long an ended hand's actions stay in ``hand_actions`` (its record holds them); 0: deleted at the next round |
| ``STUD_ENGINE_ADOPT_ROUND`` | ``25`` | tables a node loads per round when it takes over a dead node's tables (or is given moved ones); each round deals before the next loads |
| ``STUD_ENGINE_STOP_MOVES_TABLES`` | ``1`` | on a clean stop, move the tables to the other live nodes between hands (``0``: keep them for the next start) |
| ``STUD_ENGINE_GC_YOUNG_EVERY`` | ``0.05`` | seconds between young garbage collections; 0: CPython's own trigger |
| ``STUD_ENGINE_GC_FULL_EVERY`` | ``600`` | seconds between full garbage collections (their survivors frozen: walked by no full collection again); 0: none by the clock |
| ``STUD_ENGINE_GC_THAW_EVERY`` | ``86400`` | seconds between thorough collections (the frozen objects too: the long pause, seconds at a thousand tables); 0: never |
| ``STUD_ENGINE_TRACEMALLOC`` | unset | a directory: trace allocations, a snapshot there every ``STUD_ENGINE_TRACEMALLOC_EVERY`` s (60; :mod:`engine_server.memory_trace`, diagnosis only) |
| ``STUD_ENGINE_CPUS`` | every CPU | the CPUs the engine's threads run on, e.g. ``0`` or ``0-1``: one core per node where several nodes share a machine |
| ``STUD_LOG_LEVEL`` | ``INFO`` | log level |
| ``STUD_LOG_FORMAT`` | ``json`` | ``json`` or ``text`` |

>>> s = EngineSettings.from_env({"STUD_ENGINE_GRPC_PORT": "7000", "STUD_JWT_SECRET": "x" * 32})
>>> s.grpc_port, s.web_port
(7000, 8081)
>>> s.max_request_bytes
1048576
>>> EngineSettings.from_env({"STUD_ENGINE_LOOP": "asyncio", "STUD_JWT_SECRET": "x" * 32}).loop
'asyncio'
>>> s.node_id, s.lease_seconds, s.adopt_round
('main', 15.0, 25)
>>> EngineSettings.from_env({"STUD_ENGINE_ADOPT_ROUND": "0", "STUD_JWT_SECRET": "x" * 32})
Traceback (most recent call last):
...
engine_server.settings.SettingsError: STUD_ENGINE_ADOPT_ROUND: expected a whole number 1-10000, got '0'
>>> EngineSettings.from_env({"STUD_ENGINE_NODE_ID": "b 2", "STUD_JWT_SECRET": "x" * 32})
Traceback (most recent call last):
...
engine_server.settings.SettingsError: STUD_ENGINE_NODE_ID: expected 1-64 characters of [A-Za-z0-9._-] starting with a letter or digit, got 'b 2'
>>> EngineSettings.from_env({"STUD_ENGINE_GRPC_PORT": "seven"})
Traceback (most recent call last):
...
engine_server.settings.SettingsError: STUD_ENGINE_GRPC_PORT: expected a port number 0-65535, got 'seven'
"""

from __future__ import annotations

import os
import re
import secrets
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from engine_server.affinity import describe_cpus, parse_cpus
from engine_server.collector import CollectorPacing
from engine_server.loops import DEFAULT_LOOP, LOOPS, uvloop_installed

__all__ = [
    "DEFAULT_ADOPT_ROUND",
    "DEFAULT_DATABASE_URL",
    "DEFAULT_HAND_ACTIONS_KEPT_SECONDS",
    "DEFAULT_LEASE_SECONDS",
    "DEFAULT_MAX_REQUEST_BYTES",
    "DEFAULT_NODE_ID",
    "EngineSettings",
    "SettingsError",
    "advertised_host",
    "bind_host",
    "byte_count",
    "cpu_set",
    "event_loop",
    "gc_pacing",
    "host_port",
    "jwt_secret",
    "log_options",
    "node_id",
    "port",
    "positive_float",
    "switch",
    "whole_number",
]

DEFAULT_DATABASE_URL = "sqlite:///var/stud.sqlite3"
#: 1 MiB: grpcio's default, ample for every request of the contract (the longest field is 500
#: characters); the same on the web port
DEFAULT_MAX_REQUEST_BYTES = 1 << 20
#: the bounds STUD_ENGINE_MAX_REQUEST_BYTES may take (1 KiB .. 64 MiB)
_REQUEST_BYTES_RANGE = (1 << 10, 64 << 20)
SECRET_FILE = Path("var") / "jwt-secret"
#: a single-node install's node (engine_server.store.models.DEFAULT_NODE_ID, not imported here:
#: the settings load before the store)
DEFAULT_NODE_ID = "main"
DEFAULT_LEASE_SECONDS = 15.0
#: a day: an ended hand's stored actions are a copy of its record's, kept for a look by ops
DEFAULT_HAND_ACTIONS_KEPT_SECONDS = 86_400.0
#: tables adopted per round in a takeover (engine_server.table.manager.DEFAULT_ADOPT_ROUND,
#: not imported: the settings load before the table layer)
DEFAULT_ADOPT_ROUND = 25
_ADOPT_ROUND_RANGE = (1, 10_000)
#: the shortest lease: renewals every third of it must fit in a round trip to the database
_MIN_LEASE_SECONDS = 1.0
_NODE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::", "[::]"})


class SettingsError(ValueError):
    """A setting with a value it cannot take; names the variable."""


def port(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or not 0 <= int(raw) <= 65535:
        raise SettingsError(f"{name}: expected a port number 0-65535, got {raw!r}")
    return int(raw)


def positive_float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name}: expected a number, got {raw!r}") from None
    if value < 0:
        raise SettingsError(f"{name}: must not be negative, got {raw!r}")
    return value


def switch(env: Mapping[str, str], name: str, default: bool) -> bool:
    """An on/off setting: ``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off``.

    >>> switch({"X": "0"}, "X", True), switch({}, "X", True), switch({"X": "Yes"}, "X", False)
    (False, True, True)
    """
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise SettingsError(f"{name}: expected 1 or 0 (true or false), got {raw!r}")


def gc_pacing(env: Mapping[str, str]) -> CollectorPacing | None:
    """The collector's pace: ``STUD_ENGINE_GC_YOUNG_EVERY`` (0 leaves CPython's own trigger
    on), ``STUD_ENGINE_GC_FULL_EVERY`` and ``STUD_ENGINE_GC_THAW_EVERY`` (0 when full
    collections are off: nothing but the start-up objects is frozen then).

    >>> gc_pacing({})
    CollectorPacing(young_every=0.05, full_every=600.0, thaw_every=86400.0)
    >>> gc_pacing({"STUD_ENGINE_GC_YOUNG_EVERY": "0"}) is None
    True
    >>> gc_pacing({"STUD_ENGINE_GC_YOUNG_EVERY": "0.1", "STUD_ENGINE_GC_FULL_EVERY": "0"})
    CollectorPacing(young_every=0.1, full_every=0.0, thaw_every=0.0)
    >>> gc_pacing({"STUD_ENGINE_GC_FULL_EVERY": "60", "STUD_ENGINE_GC_THAW_EVERY": "3600"})
    CollectorPacing(young_every=0.05, full_every=60.0, thaw_every=3600.0)
    >>> gc_pacing({"STUD_ENGINE_GC_YOUNG_EVERY": "20"})
    Traceback (most recent call last):
    ...
    engine_server.settings.SettingsError: STUD_ENGINE_GC_YOUNG_EVERY: expected at most 1 second, got '20'
    """
    young = positive_float(env, "STUD_ENGINE_GC_YOUNG_EVERY", _DEFAULT_GC.young_every)
    full = positive_float(env, "STUD_ENGINE_GC_FULL_EVERY", _DEFAULT_GC.full_every)
    thaw = positive_float(env, "STUD_ENGINE_GC_THAW_EVERY", _DEFAULT_GC.thaw_every if full else 0.0)
    if young == 0:
        return None
    if young > 1:
        raw = env["STUD_ENGINE_GC_YOUNG_EVERY"]
        raise SettingsError(f"STUD_ENGINE_GC_YOUNG_EVERY: expected at most 1 second, got {raw!r}")
    if thaw and not full:
        raise SettingsError(
            "STUD_ENGINE_GC_THAW_EVERY: thorough collections need full ones "
            "(STUD_ENGINE_GC_FULL_EVERY > 0)"
        )
    return CollectorPacing(young_every=young, full_every=full, thaw_every=thaw)


_DEFAULT_GC = CollectorPacing()


def byte_count(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    """A size in bytes, ``low`` to ``high``.

    >>> byte_count({"X": "2048"}, "X", 1, 1024, 4096)
    2048
    >>> byte_count({"X": "1k"}, "X", 1, 1024, 4096)
    Traceback (most recent call last):
    ...
    engine_server.settings.SettingsError: X: expected a number of bytes 1024-4096, got '1k'
    """
    return whole_number(env, name, default, low, high, what="a number of bytes")


def whole_number(
    env: Mapping[str, str],
    name: str,
    default: int,
    low: int,
    high: int,
    *,
    what: str = "a whole number",
) -> int:
    """A whole number, ``low`` to ``high`` (``what``: how an error names it).

    >>> whole_number({"X": "50"}, "X", 25, 1, 100), whole_number({}, "X", 25, 1, 100)
    (50, 25)
    >>> whole_number({"X": "2.5"}, "X", 25, 1, 100)
    Traceback (most recent call last):
    ...
    engine_server.settings.SettingsError: X: expected a whole number 1-100, got '2.5'
    """
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise SettingsError(f"{name}: expected {what} {low}-{high}, got {raw!r}")
    return int(raw)


def node_id(env: Mapping[str, str], name: str = "STUD_ENGINE_NODE_ID") -> str:
    raw = env.get(name) or DEFAULT_NODE_ID
    if not _NODE_ID.match(raw):
        raise SettingsError(
            f"{name}: expected 1-64 characters of [A-Za-z0-9._-] starting with a letter or "
            f"digit, got {raw!r}"
        )
    return raw


def _address(env: Mapping[str, str], name: str) -> str:
    """A ``host:port`` address to advertise ("" when not set: the bound one is used)."""
    raw = (env.get(name) or "").strip()
    if not raw:
        return ""
    host, _, number = raw.rpartition(":")
    if not host or not number.isdigit() or not 0 < int(number) <= 65535 or " " in raw:
        raise SettingsError(f"{name}: expected host:port, got {raw!r}")
    return raw


def _url(env: Mapping[str, str], name: str) -> str:
    raw = (env.get(name) or "").strip()
    if raw and (not raw.startswith(("http://", "https://")) or " " in raw or len(raw) > 255):
        raise SettingsError(f"{name}: expected an http:// or https:// URL, got {raw!r}")
    return raw.rstrip("/")


def bind_host(host: str) -> str:
    """The host to bind a socket to: an IPv6 address without the brackets it may be given in
    (``[::1]`` and ``::1`` are the same address; only the second binds).

    >>> bind_host("[::1]"), bind_host("::1"), bind_host("127.0.0.1")
    ('::1', '::1', '127.0.0.1')
    """
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def host_port(host: str, port: int) -> str:
    """``host:port`` as gRPC targets, URLs and the servers' ready lines write it: an IPv6 host
    in brackets (``::1:50051`` would read as an address with no port, and gRPC cannot bind it).

    >>> host_port("127.0.0.1", 50051), host_port("::1", 50051), host_port("[::1]", 50051)
    ('127.0.0.1:50051', '[::1]:50051', '[::1]:50051')
    """
    bare = bind_host(host)
    return f"[{bare}]:{port}" if ":" in bare else f"{bare}:{port}"


def advertised_host(host: str) -> str:
    """The host name to advertise for a server bound to ``host``: itself, or this machine's
    name for a wildcard address (which no client can connect to).

    >>> advertised_host("127.0.0.1")
    '127.0.0.1'
    >>> advertised_host("0.0.0.0") == socket.gethostname()
    True
    """
    if host in _WILDCARD_HOSTS:
        return socket.gethostname()
    if ":" in host and not host.startswith("["):
        return f"[{host}]"
    return host


def cpu_set(env: Mapping[str, str], name: str = "STUD_ENGINE_CPUS") -> frozenset[int] | None:
    """The CPUs ``name`` lists (None when unset: any), each one this process may run on.

    >>> cpu_set({}) is None
    True
    >>> cpu_set({"STUD_ENGINE_CPUS": "0"})
    frozenset({0})
    >>> cpu_set({"STUD_ENGINE_CPUS": "0-"})
    Traceback (most recent call last):
    ...
    engine_server.settings.SettingsError: STUD_ENGINE_CPUS: expected CPU numbers and ranges like 0 or 0-3,6, got '0-'
    """
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    try:
        cpus = parse_cpus(raw)
    except ValueError as error:
        raise SettingsError(f"{name}: {error}") from None
    available = os.sched_getaffinity(0)
    if not cpus <= available:
        missing = describe_cpus(cpus - available)
        raise SettingsError(
            f"{name}: CPU {missing} is not available to this process "
            f"(available: {describe_cpus(available)})"
        )
    return cpus


def event_loop(env: Mapping[str, str], name: str = "STUD_ENGINE_LOOP") -> str:
    """The event loop ``name`` chooses: ``uvloop`` (the default where it is installed) or
    ``asyncio``.

    >>> event_loop({"STUD_ENGINE_LOOP": "trio"})
    Traceback (most recent call last):
    ...
    engine_server.settings.SettingsError: STUD_ENGINE_LOOP: expected uvloop or asyncio, got 'trio'
    """
    raw = env.get(name) or DEFAULT_LOOP
    if raw not in LOOPS:
        raise SettingsError(f"{name}: expected uvloop or asyncio, got {raw!r}")
    if raw == "uvloop" and not uvloop_installed():
        raise SettingsError(f"{name}: uvloop is not installed (use asyncio)")
    return raw


def log_options(env: Mapping[str, str]) -> tuple[str, str]:
    """``STUD_LOG_LEVEL`` and ``STUD_LOG_FORMAT``, as every ``stud`` process reads them.

    >>> log_options({})
    ('INFO', 'json')
    >>> log_options({"STUD_LOG_LEVEL": "debug", "STUD_LOG_FORMAT": "text"})
    ('DEBUG', 'text')
    >>> log_options({"STUD_LOG_FORMAT": "xml"})
    Traceback (most recent call last):
    ...
    engine_server.settings.SettingsError: STUD_LOG_FORMAT: expected json or text, got 'xml'
    """
    level = env.get("STUD_LOG_LEVEL", "INFO").upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise SettingsError(
            f"STUD_LOG_LEVEL: expected DEBUG, INFO, WARNING or ERROR, got {level!r}"
        )
    log_format = env.get("STUD_LOG_FORMAT", "json")
    if log_format not in ("json", "text"):
        raise SettingsError(f"STUD_LOG_FORMAT: expected json or text, got {log_format!r}")
    return level, log_format


def jwt_secret(env: Mapping[str, str]) -> str:
    """The shared token secret: ``STUD_JWT_SECRET``, or one kept in ``var/jwt-secret``."""
    raw = env.get("STUD_JWT_SECRET")
    if raw:
        if len(raw) < 32:
            raise SettingsError("STUD_JWT_SECRET: must be at least 32 characters")
        return raw
    if SECRET_FILE.exists():
        return SECRET_FILE.read_text().strip()
    SECRET_FILE.parent.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(48)
    SECRET_FILE.write_text(secret)
    SECRET_FILE.chmod(0o600)
    return secret


@dataclass(frozen=True, slots=True)
class EngineSettings:
    database_url: str = DEFAULT_DATABASE_URL
    jwt_secret: str = field(default="", repr=False)
    host: str = "127.0.0.1"
    grpc_port: int = 50051
    web_port: int = 8081
    metrics_port: int = 9464
    between_hands_seconds: float = 2.0
    cors_origins: tuple[str, ...] = ("*",)
    #: the largest request message either port takes (its protobuf encoding)
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    log_level: str = "INFO"
    log_format: str = "json"
    #: the event loop ``stud engine`` runs on (:mod:`engine_server.loops`)
    loop: str = DEFAULT_LOOP
    #: this node's id (STUD_ENGINE_NODE_ID): it owns the tables it creates, and loads only those
    node_id: str = DEFAULT_NODE_ID
    #: what the node advertises in the registry; "" for the bound address (:meth:`advertised`)
    advertise_admin: str = ""
    advertise_grpc: str = ""
    advertise_web: str = ""
    #: how long the node's lease lasts without a renewal (renewed every third of it)
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    #: how long an ended hand's stored actions are kept (:mod:`engine_server.pruning`)
    hand_actions_kept_seconds: float = DEFAULT_HAND_ACTIONS_KEPT_SECONDS
    #: a clean stop (SIGTERM) moves the tables to the other live nodes between hands first;
    #: with none live, or when False, the node keeps them for its next start
    stop_moves_tables: bool = True
    #: tables loaded per round of a takeover (or of tables moved here): smaller rounds give
    #: the first tables back sooner and the node's own tables the loop more often
    adopt_round: int = DEFAULT_ADOPT_ROUND
    #: the garbage collector's pace (:mod:`engine_server.collector`); None: CPython's trigger
    gc_pacing: CollectorPacing | None = field(default_factory=CollectorPacing)
    #: the CPUs the engine's threads run on (:mod:`engine_server.affinity`); None: any
    cpus: frozenset[int] | None = None

    def advertised(self, grpc_port: int, web_port: int) -> tuple[str, str, str]:
        """(admin address, players' gRPC address, gRPC-Web URL) for the ports bound.

        >>> EngineSettings().advertised(50051, 8081)
        ('127.0.0.1:50051', '127.0.0.1:50051', 'http://127.0.0.1:8081')
        >>> EngineSettings(advertise_grpc="play.example:443").advertised(1, 2)[1]
        'play.example:443'
        """
        host = advertised_host(self.host)
        bound = f"{host}:{grpc_port}"
        return (
            self.advertise_admin or bound,
            self.advertise_grpc or bound,
            self.advertise_web or f"http://{host}:{web_port}",
        )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> EngineSettings:
        env = os.environ if env is None else env
        level, log_format = log_options(env)
        url = env.get("STUD_DATABASE_URL") or DEFAULT_DATABASE_URL
        if not url.startswith(("sqlite", "postgresql")):
            raise SettingsError(
                f"STUD_DATABASE_URL: expected a sqlite or postgresql URL, got {url!r}"
            )
        origins = tuple(
            o.strip() for o in env.get("STUD_ENGINE_CORS_ORIGINS", "*").split(",") if o.strip()
        )
        grpc_port = port(env, "STUD_ENGINE_GRPC_PORT", 50051)
        web_port = port(env, "STUD_ENGINE_WEB_PORT", 8081)
        metrics_port = port(env, "STUD_ENGINE_METRICS_PORT", 9464)
        between = positive_float(env, "STUD_ENGINE_BETWEEN_HANDS", 2.0)
        lease = positive_float(env, "STUD_ENGINE_LEASE_SECONDS", DEFAULT_LEASE_SECONDS)
        if lease < _MIN_LEASE_SECONDS:
            raise SettingsError(
                f"STUD_ENGINE_LEASE_SECONDS: must be at least {_MIN_LEASE_SECONDS:g}, got {lease:g}"
            )
        max_request = byte_count(
            env, "STUD_ENGINE_MAX_REQUEST_BYTES", DEFAULT_MAX_REQUEST_BYTES, *_REQUEST_BYTES_RANGE
        )
        return cls(
            database_url=url,
            jwt_secret=jwt_secret(env),
            host=env.get("STUD_ENGINE_HOST") or "127.0.0.1",
            grpc_port=grpc_port,
            web_port=web_port,
            metrics_port=metrics_port,
            between_hands_seconds=between,
            cors_origins=origins or ("*",),
            max_request_bytes=max_request,
            log_level=level,
            log_format=log_format,
            loop=event_loop(env),
            node_id=node_id(env),
            advertise_admin=_address(env, "STUD_ENGINE_ADVERTISE_ADMIN"),
            advertise_grpc=_address(env, "STUD_ENGINE_ADVERTISE_GRPC"),
            advertise_web=_url(env, "STUD_ENGINE_ADVERTISE_WEB"),
            lease_seconds=lease,
            hand_actions_kept_seconds=positive_float(
                env, "STUD_ENGINE_HAND_ACTIONS_KEPT_SECONDS", DEFAULT_HAND_ACTIONS_KEPT_SECONDS
            ),
            stop_moves_tables=switch(env, "STUD_ENGINE_STOP_MOVES_TABLES", True),
            adopt_round=whole_number(
                env, "STUD_ENGINE_ADOPT_ROUND", DEFAULT_ADOPT_ROUND, *_ADOPT_ROUND_RANGE
            ),
            gc_pacing=gc_pacing(env),
            cpus=cpu_set(env),
        )
