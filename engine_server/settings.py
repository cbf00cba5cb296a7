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
| ``STUD_LOG_LEVEL`` | ``INFO`` | log level |
| ``STUD_LOG_FORMAT`` | ``json`` | ``json`` or ``text`` |

>>> s = EngineSettings.from_env({"STUD_ENGINE_GRPC_PORT": "7000", "STUD_JWT_SECRET": "x" * 32})
>>> s.grpc_port, s.web_port
(7000, 8081)
>>> s.max_request_bytes
1048576
>>> EngineSettings.from_env({"STUD_ENGINE_LOOP": "asyncio", "STUD_JWT_SECRET": "x" * 32}).loop
'asyncio'
>>> EngineSettings.from_env({"STUD_ENGINE_GRPC_PORT": "seven"})
Traceback (most recent call last):
...
engine_server.settings.SettingsError: STUD_ENGINE_GRPC_PORT: expected a port number 0-65535, got 'seven'
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from engine_server.loops import DEFAULT_LOOP, LOOPS, uvloop_installed

__all__ = [
    "DEFAULT_DATABASE_URL",
    "DEFAULT_MAX_REQUEST_BYTES",
    "EngineSettings",
    "SettingsError",
    "byte_count",
    "event_loop",
    "jwt_secret",
    "port",
    "positive_float",
]

DEFAULT_DATABASE_URL = "sqlite:///var/stud.sqlite3"
#: 1 MiB: grpcio's default, ample for every request of the contract (the longest field is 500
#: characters); the same on the web port
DEFAULT_MAX_REQUEST_BYTES = 1 << 20
#: the bounds STUD_ENGINE_MAX_REQUEST_BYTES may take (1 KiB .. 64 MiB)
_REQUEST_BYTES_RANGE = (1 << 10, 64 << 20)
SECRET_FILE = Path("var") / "jwt-secret"


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


def byte_count(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    """A size in bytes, ``low`` to ``high``.

    >>> byte_count({"X": "2048"}, "X", 1, 1024, 4096)
    2048
    >>> byte_count({"X": "1k"}, "X", 1, 1024, 4096)
    Traceback (most recent call last):
    ...
    engine_server.settings.SettingsError: X: expected a number of bytes 1024-4096, got '1k'
    """
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise SettingsError(f"{name}: expected a number of bytes {low}-{high}, got {raw!r}")
    return int(raw)


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

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> EngineSettings:
        env = os.environ if env is None else env
        level = env.get("STUD_LOG_LEVEL", "INFO").upper()
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
            raise SettingsError(
                f"STUD_LOG_LEVEL: expected DEBUG, INFO, WARNING or ERROR, got {level!r}"
            )
        log_format = env.get("STUD_LOG_FORMAT", "json")
        if log_format not in ("json", "text"):
            raise SettingsError(f"STUD_LOG_FORMAT: expected json or text, got {log_format!r}")
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
        )
