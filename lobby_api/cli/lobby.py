"""``stud lobby``: run the lobby REST API (Litestar under uvicorn) until SIGTERM.

It migrates the database first, like ``stud engine`` (both share one Alembic
history, and may share one SQLite file), and prints one JSON line with its
address when it is ready. The lobby's app is imported only when this command
runs (``stud --help`` stays quick).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys

__all__ = ["HELP", "configure", "run"]

HELP = "run the lobby REST API (accounts, wallets, quick games)"


def _refuse(error: object) -> int:
    """Bad input: one line on stderr, status 2 (as every ``stud`` command)."""
    print(f"stud lobby: {error}", file=sys.stderr)
    return 2


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, help="HTTP port (STUD_LOBBY_PORT, default 8000)")
    parser.add_argument("--host", help="address to listen on (STUD_LOBBY_HOST)")
    parser.add_argument("--database-url", help="database URL (STUD_DATABASE_URL)")
    parser.add_argument("--engine", help="the engine's gRPC address, host:port (STUD_LOBBY_ENGINE)")
    parser.add_argument(
        "--engine-web", help="the engine's gRPC-Web URL given to browsers (STUD_LOBBY_ENGINE_WEB)"
    )


def run(args: argparse.Namespace) -> int:
    from engine_server.logs import configure_logging
    from engine_server.loops import run_in_loop
    from engine_server.settings import SettingsError
    from engine_server.store.migrate import SchemaTooNew, check_schema
    from lobby_api.settings import LobbySettings

    env = dict(os.environ)
    for flag, name in (
        ("port", "STUD_LOBBY_PORT"),
        ("host", "STUD_LOBBY_HOST"),
        ("database_url", "STUD_DATABASE_URL"),
        ("engine", "STUD_LOBBY_ENGINE"),
        ("engine_web", "STUD_LOBBY_ENGINE_WEB"),
    ):
        value = getattr(args, flag)
        if value is not None:
            env[name] = str(value)
    try:
        settings = LobbySettings.from_env(env)
    except SettingsError as error:
        return _refuse(error)
    level = env.get("STUD_LOG_LEVEL", "INFO").upper()
    configure_logging(level, env.get("STUD_LOG_FORMAT", "json"))
    try:
        check_schema(settings.database_url)
    except SchemaTooNew as error:
        return _refuse(error)
    try:
        run_in_loop(settings.loop, _serve(settings))
    except OSError as error:
        # The address is taken or cannot be bound: one line, as every stud command says it.
        print(f"stud lobby: {error}", file=sys.stderr)
        return 1
    return 0


async def _serve(settings: object) -> None:
    import uvicorn

    from engine_server.collector import settle_garbage_collector
    from engine_server.loops import loop_name
    from engine_server.settings import bind_host, host_port
    from lobby_api.app import create_app
    from lobby_api.settings import LobbySettings

    assert isinstance(settings, LobbySettings)
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings),
            # "[::1]" as the URL writes it binds as "::1".
            host=bind_host(settings.host),
            port=settings.port,
            log_level="warning",
            access_log=False,
            lifespan="on",
            # uvicorn's loggers go through the root logger (JSON when asked for).
            log_config=None,
            # uvicorn would believe X-Forwarded-For from 127.0.0.1: the app believes it from
            # STUD_LOBBY_TRUSTED_PROXIES only (lobby_api.forwarded).
            proxy_headers=False,
        )
    )
    # Stop gracefully on SIGTERM/SIGINT and exit 0 (uvicorn's own handling re-raises the
    # signal after shutting down, which ends the process with -SIGTERM).
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, lambda: setattr(server, "should_exit", True))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        if serving.done():
            serving.result()
            return  # it stopped before it started (a signal)
        await asyncio.sleep(0.02)
    # Started: what the process holds now lives as long as it (issue 16: a full collection
    # walking it all paused every request under way for 80 ms).
    settle_garbage_collector()
    port = server.servers[0].sockets[0].getsockname()[1]
    print(
        json.dumps(
            {
                # An IPv6 host in brackets: "http://[::1]:8000".
                "http": f"http://{host_port(settings.host, port)}",
                "engine": settings.engine_grpc,
                "database": settings.database_url,
                "loop": loop_name(),
            }
        ),
        flush=True,
    )
    await serving
