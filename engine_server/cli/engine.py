"""``stud engine``: run the engine server (gRPC, Connect/gRPC-Web, metrics) until SIGTERM."""

from __future__ import annotations

import argparse
import json
import os

from engine_server.cli import CliError

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--grpc-port", type=int, help="gRPC port (STUD_ENGINE_GRPC_PORT)")
    parser.add_argument("--web-port", type=int, help="Connect/gRPC-Web port (STUD_ENGINE_WEB_PORT)")
    parser.add_argument(
        "--metrics-port", type=int, help="Prometheus /metrics port (STUD_ENGINE_METRICS_PORT)"
    )
    parser.add_argument("--host", help="address to listen on (STUD_ENGINE_HOST)")
    parser.add_argument("--database-url", help="database URL (STUD_DATABASE_URL)")
    parser.add_argument("--node-id", help="this engine node's id (STUD_ENGINE_NODE_ID)")
    parser.add_argument(
        "--cpus", help="the CPUs to run on, e.g. 0 or 0-1 (STUD_ENGINE_CPUS; default: any)"
    )


def run(args: argparse.Namespace) -> int:
    from engine_server.affinity import describe_cpus, pin_process
    from engine_server.graceful_stop import drain_seconds
    from engine_server.logs import configure_logging
    from engine_server.loops import loop_name, run_in_loop
    from engine_server.node import LeaseLost, NodeHeld
    from engine_server.server import EngineServer, run_engine
    from engine_server.settings import EngineSettings, SettingsError, host_port
    from engine_server.store.migrate import SchemaTooNew

    env = dict(os.environ)
    for flag, name in (
        ("grpc_port", "STUD_ENGINE_GRPC_PORT"),
        ("web_port", "STUD_ENGINE_WEB_PORT"),
        ("metrics_port", "STUD_ENGINE_METRICS_PORT"),
        ("host", "STUD_ENGINE_HOST"),
        ("database_url", "STUD_DATABASE_URL"),
        ("node_id", "STUD_ENGINE_NODE_ID"),
        ("cpus", "STUD_ENGINE_CPUS"),
    ):
        value = getattr(args, flag)
        if value is not None:
            env[name] = str(value)
    try:
        settings = EngineSettings.from_env(env)
    except SettingsError as error:
        raise CliError(str(error)) from None
    configure_logging(settings.log_level, settings.log_format)
    if settings.cpus is not None:
        # Before the loop and grpcio start their threads: they inherit it.
        pin_process(settings.cpus)

    def ready(engine: EngineServer) -> None:
        print(
            json.dumps(
                {
                    # An IPv6 host in brackets: "[::1]:50051".
                    "grpc": host_port(settings.host, engine.grpc_port),
                    "web": f"http://{host_port(settings.host, engine.web_port)}",
                    "metrics": f"http://{host_port(settings.host, engine.metrics_port)}/metrics",
                    "database": settings.database_url,
                    "loop": loop_name(),
                    "node": settings.node_id,
                    "cpus": describe_cpus(os.sched_getaffinity(0)),
                    # What the start waited for: the lease of a process that held the node
                    # (killed without stopping), in seconds; 0 when the node was free.
                    "lease_waited_seconds": round(engine.lease.waited, 1) if engine.lease else 0,
                    # On SIGTERM/SIGINT running hands finish first, for up to this long.
                    "drain_seconds": drain_seconds(),
                }
            ),
            flush=True,
        )

    try:
        run_in_loop(settings.loop, run_engine(settings, ready=ready))
    except SchemaTooNew as error:
        raise CliError(str(error)) from None
    except (NodeHeld, LeaseLost) as error:
        raise CliError(str(error), code=1) from None
    except OSError as error:
        raise CliError(str(error), code=1) from None
    return 0
