"""``stud gateway``: serve players' TableService calls, relayed to the engine nodes, until
SIGTERM (:mod:`engine_server.gateway`)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal

from engine_server.cli import CliError

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        action="append",
        metavar="ADDR",
        help="an engine node's gRPC address host:port; repeat for each node "
        "(STUD_GATEWAY_ENGINES, comma-separated)",
    )
    parser.add_argument("--grpc-port", type=int, help="players' gRPC port (STUD_GATEWAY_GRPC_PORT)")
    parser.add_argument("--host", help="address to listen on (STUD_GATEWAY_HOST)")
    parser.add_argument(
        "--cpus", help="the CPUs to run on, e.g. 1 or 0-1 (STUD_GATEWAY_CPUS; default: any)"
    )


def run(args: argparse.Namespace) -> int:
    from engine_server.affinity import describe_cpus, pin_process
    from engine_server.gateway import GatewaySettings, start_gateway
    from engine_server.logs import configure_logging
    from engine_server.loops import loop_name, run_in_loop
    from engine_server.settings import SettingsError, host_port

    env = dict(os.environ)
    if args.engine:
        env["STUD_GATEWAY_ENGINES"] = ",".join(args.engine)
    for flag, name in (
        ("grpc_port", "STUD_GATEWAY_GRPC_PORT"),
        ("host", "STUD_GATEWAY_HOST"),
        ("cpus", "STUD_GATEWAY_CPUS"),
    ):
        value = getattr(args, flag)
        if value is not None:
            env[name] = str(value)
    try:
        settings = GatewaySettings.from_env(env)
    except SettingsError as error:
        raise CliError(str(error)) from None
    configure_logging(settings.log_level, settings.log_format)
    if settings.cpus is not None:
        # Before the loop and grpcio start their threads: they inherit it.
        pin_process(settings.cpus)

    async def serve() -> None:
        import logging

        log = logging.getLogger("stud.gateway")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        running = await start_gateway(settings)
        log.info(
            "gateway ready", extra={"loop": loop_name(), "engines": ",".join(settings.engines)}
        )
        print(
            json.dumps(
                {
                    "grpc": host_port(settings.host, running.grpc_port),
                    "advertised": running.gateway.address,
                    "engines": list(settings.engines),
                    "loop": loop_name(),
                    "cpus": describe_cpus(os.sched_getaffinity(0)),
                }
            ),
            flush=True,
        )
        await stop.wait()
        log.info("stopping: players' streams end (UNAVAILABLE); clients reconnect")
        await running.stop(1.0)

    try:
        run_in_loop(settings.loop, serve())
    except OSError as error:
        raise CliError(str(error), code=1) from None
    return 0
