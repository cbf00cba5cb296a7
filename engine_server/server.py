"""The engine process: gRPC (native clients, the lobby, ops) and Connect/gRPC-Web (browsers).

Both transports run in one asyncio loop over the same :class:`TableManager`,
so a browser and a native client at one table see the same live state. The
same loop serves Prometheus' ``/metrics`` on a port of its own (ops only: it is
not for the browsers' port).

The process serves one engine node (``STUD_ENGINE_NODE_ID``): it claims the node's lease
before it loads the node's tables, advertises its addresses in the registry once its ports
listen, renews the lease while it runs, and stops serving at once if the lease is lost
(:mod:`engine_server.node`). A clean stop drains its tables or hands them over to the other
live nodes (:mod:`engine_server.graceful_stop`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import signal
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import uvicorn
from connectrpc.compat import google_protobuf_codecs
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc
from stud.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    relay_service_pb2,
    relay_service_pb2_grpc,
    table_service_pb2,
    table_service_pb2_grpc,
)
from stud.v1.table_service_connect import TableServiceASGIApplication

from engine_server.api.admin_service import GrpcAdminService
from engine_server.api.guards import (
    ASGIApp,
    ConnectSizeLimit,
    MalformedRequests,
    add_limited,
    cors,
    transport_limit,
)
from engine_server.api.relay_service import GrpcRelayService
from engine_server.api.table_service import (
    ConnectTableService,
    GrpcTableService,
    TableServiceCore,
)
from engine_server.collector import PacedCollector, settle_garbage_collector
from engine_server.graceful_stop import STOP_GRACE, GracefulStop, drain_seconds
from engine_server.loops import loop_name
from engine_server.memory_trace import memory_trace
from engine_server.metrics import EngineMetrics, metrics_app
from engine_server.node import LeaseLost, NodeLease
from engine_server.pruning import ActionPruning
from engine_server.settings import EngineSettings, bind_host, host_port
from engine_server.store.database import is_outage
from engine_server.store.models import NodeState
from engine_server.store.nodes import NodeAddresses, NodeRegistry
from engine_server.table.manager import TableManager
from engine_server.table.runtime import RuntimeHooks, Timing
from engine_server.takeover import TakeoverWatch

__all__ = [
    "GRPC_OPTIONS",
    "EngineServer",
    "bound_ports",
    "run_engine",
    "start_collector",
]

log = logging.getLogger("stud.engine")

#: keepalive tuned for long WatchTable streams (a ping every 30 s keeps proxies and NATs from
#: dropping a quiet stream; 10 s without an answer ends it); the receive limit is set from
#: the settings (:func:`transport_limit`)
GRPC_OPTIONS = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.http2.max_pings_without_data", 0),
]


async def _serve_asgi(
    app: ASGIApp, host: str, port: int
) -> tuple[uvicorn.Server, asyncio.Task[None]]:
    """Serve ``app`` with uvicorn in this loop; returns once it listens.

    The socket is bound here, so a port in use fails with :class:`OSError` (uvicorn,
    binding it itself, would ``sys.exit`` from inside its task instead).
    """
    bare = bind_host(host)
    # create_server binds IPv4 unless told otherwise; "::1" and "::" are IPv6 (dual-stack).
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    listener = socket.create_server((bare, port), family=family)
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="off",
        access_log=False,
        # uvicorn's loggers go through the root logger (JSON when asked for); no proxy
        # headers: nothing here uses the client's address.
        log_config=None,
        proxy_headers=False,
    )
    server = uvicorn.Server(config)
    # The engine owns SIGTERM/SIGINT (drain first); uvicorn must not take them.
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    task = asyncio.create_task(server.serve(sockets=[listener]))
    while not server.started:
        if task.done():
            listener.close()
            task.result()
            raise OSError(f"could not serve on {host_port(host, port)}")
        await asyncio.sleep(0.01)
    return server, task


def _listening_port(server: uvicorn.Server | None) -> int:
    if server is None or not server.servers or not server.servers[0].sockets:
        return 0  # not serving (or no longer: closed)
    return int(server.servers[0].sockets[0].getsockname()[1])


async def _stop_asgi(server: uvicorn.Server | None, task: asyncio.Task[None] | None) -> None:
    if server is not None:
        server.should_exit = True
    if task is not None:
        with contextlib.suppress(asyncio.CancelledError):
            await task


@dataclass
class EngineServer:
    """A running engine: its gRPC server, its web server and the tables they share."""

    settings: EngineSettings
    manager: TableManager
    grpc_server: grpc.aio.Server
    grpc_port: int
    web_server: uvicorn.Server | None = None
    web_task: asyncio.Task[None] | None = None
    health: health.aio.HealthServicer | None = None
    metrics: EngineMetrics | None = None
    metrics_server: uvicorn.Server | None = None
    metrics_task: asyncio.Task[None] | None = None
    #: this process's hold on its node (None when the directory has no node registry: the
    #: in-memory stores of the runtime tests)
    lease: NodeLease | None = None
    #: set once the lease was lost and the engine has stopped serving (:meth:`abandon`)
    lost: asyncio.Event = field(default_factory=asyncio.Event)
    #: takes over the tables of dead nodes, loads the tables given to this one (with a lease)
    takeover: TakeoverWatch | None = None
    #: deletes ended hands' stored actions after the time kept (with a node registry)
    pruning: ActionPruning | None = None
    _abandoned: bool = False

    @property
    def web_port(self) -> int:
        return _listening_port(self.web_server)

    @property
    def metrics_port(self) -> int:
        """The port serving ``/metrics`` (``settings.metrics_port``, or the one 0 picked)."""
        return _listening_port(self.metrics_server)

    @property
    def lost_reason(self) -> str:
        return self.lease.lost_reason if self.lease is not None else ""

    async def stop(self, grace: float = STOP_GRACE) -> None:
        """Graceful stop: drain (no new hands, finish running ones, for up to
        :func:`drain_seconds`), then stop serving; the node is marked draining first (the
        lobby opens no new tables there), then stopped (its lease is free: a new process with
        its id may start at once). With other live nodes (and ``stop_moves_tables``), the
        drain hands each table over to them between hands instead, within the same limit.
        The drain says what it waits for, how it goes, and how it ended, in the log."""
        if self._abandoned:
            await self.lost.wait()
            await _stop_asgi(self.metrics_server, self.metrics_task)
            return
        if self.takeover is not None:
            await self.takeover.stop()
        if self.pruning is not None:
            await self.pruning.stop()
        if self.lease is not None:
            await self.lease.set_state(NodeState.DRAINING)
        if self.health is not None:
            await self.health.enter_graceful_shutdown()
        await GracefulStop(self.manager, self.settings, self.lease).drain(drain_seconds(grace))
        await self.manager.shutdown()
        if self.lease is not None:
            # The tables have stopped: nothing of this process writes them any more.
            await self.lease.stop(NodeState.STOPPED)
        await _stop_asgi(self.web_server, self.web_task)
        await self.grpc_server.stop(grace)
        # Last, so that a scrape during the drain still sees the engine.
        await _stop_asgi(self.metrics_server, self.metrics_task)

    async def abandon(self, reason: str) -> None:
        """The lease is lost: stop serving the tables at once, writing nothing more (no
        drain: a running hand is left as a crash leaves it, for the next process with this
        node id to cancel — every chip back). Sets :attr:`lost`."""
        if self._abandoned:
            return
        self._abandoned = True
        if self.takeover is not None:
            await self.takeover.stop(wait=0)
        if self.pruning is not None:
            await self.pruning.stop()
        if self.health is not None:
            await self.health.enter_graceful_shutdown()
        await self.manager.shutdown()
        await _stop_asgi(self.web_server, self.web_task)
        await self.grpc_server.stop(0)
        log.error("node lost its lease (%s): stopped serving its tables", reason)
        self.lost.set()


async def start_engine(
    settings: EngineSettings,
    *,
    directory: Any,
    store: Any,
    timing: Timing | None = None,
    hooks: RuntimeHooks | None = None,
    interceptors: list[grpc.aio.ServerInterceptor] | None = None,
) -> EngineServer:
    """Claim the node, load its tables and start serving; returns once every port listens.

    ``hooks`` are called after the engine's own metrics have counted. Raises
    :class:`~engine_server.node.NodeHeld` when another live process holds the node.
    """
    lease: NodeLease | None = None
    registry = getattr(directory, "registry", None)
    if isinstance(registry, NodeRegistry):
        if directory.node_id != settings.node_id:
            raise ValueError(
                f"the store is node {directory.node_id}'s, the settings name {settings.node_id}"
            )
        lease = NodeLease(registry, settings.node_id, settings.lease_seconds)
        await lease.acquire(NodeAddresses(*settings.advertised(settings.grpc_port, 0)))
    engine: EngineServer | None = None

    async def lost(reason: str) -> None:
        if engine is not None:
            await engine.abandon(reason)

    if lease is not None:
        lease.start(lost)
        directory.fence_writes(lease.epoch, lease.fenced)
    try:
        engine = await _start(
            settings,
            directory=directory,
            store=store,
            timing=timing,
            hooks=hooks,
            interceptors=interceptors,
            lease=lease,
        )
    except BaseException:
        if lease is not None:
            await lease.stop(NodeState.STOPPED)
        raise
    if lease is not None:
        if lease.lost_reason:
            await engine.abandon(lease.lost_reason)
        else:
            advertised = settings.advertised(engine.grpc_port, engine.web_port)
            try:
                await lease.publish(NodeAddresses(*advertised), NodeState.SERVING)
            except LeaseLost as error:
                await engine.abandon(str(error))
            else:
                engine.takeover = TakeoverWatch(
                    directory.take_over_expired, engine.manager, lease.lease_seconds / 6
                )
                engine.takeover.start()
                engine.pruning = ActionPruning(
                    directory.prune_actions,
                    settings.hand_actions_kept_seconds,
                    on_round=None if engine.metrics is None else engine.metrics.pruning_round,
                )
                engine.pruning.start()
    return engine


async def _start(
    settings: EngineSettings,
    *,
    directory: Any,
    store: Any,
    timing: Timing | None,
    hooks: RuntimeHooks | None,
    interceptors: list[grpc.aio.ServerInterceptor] | None,
    lease: NodeLease | None,
) -> EngineServer:
    metrics = EngineMetrics()
    manager = TableManager(
        directory,
        store,
        timing=timing or Timing(between_hands_seconds=settings.between_hands_seconds),
        hooks=metrics.hooks(hooks),
        adopt_round=settings.adopt_round,
    )
    metrics.watch(manager)
    manager.stalls.on_beat = metrics.loop_lag
    if hasattr(directory, "on_table_moved"):
        # A write finding its table taken over or moved stops the table here.
        directory.on_table_moved = manager.table_moved
    await manager.load()
    limit = settings.max_request_bytes
    options = [*GRPC_OPTIONS, ("grpc.max_receive_message_length", transport_limit(limit))]
    server = grpc.aio.server(options=options, interceptors=interceptors or [])
    core = TableServiceCore(manager, settings.jwt_secret, on_refused=metrics.refused)
    malformed = MalformedRequests(metrics.refused)
    add_limited(
        table_service_pb2_grpc.add_TableServiceServicer_to_server,
        GrpcTableService(core),
        server,
        limit,
        metrics.refused,
        malformed,
    )
    # Gateways' relays: a relay request wraps a player's request (checked against the limit
    # per channel), so the call itself takes what the transport takes.
    add_limited(
        relay_service_pb2_grpc.add_RelayServiceServicer_to_server,
        GrpcRelayService(core, limit),
        server,
        transport_limit(limit),
        metrics.refused,
        malformed,
    )
    add_limited(
        admin_service_pb2_grpc.add_AdminServiceServicer_to_server,
        GrpcAdminService(
            manager,
            settings.jwt_secret,
            on_refused=metrics.refused,
            on_drain=(lambda: lease.set_state(NodeState.DRAINING)) if lease else None,
            registry=lease.registry if lease else None,
        ),
        server,
        limit,
        metrics.refused,
        malformed,
    )
    # Health and reflection behind the same checks: no method answers UNKNOWN to bytes
    # that do not parse.
    health_servicer = health.aio.HealthServicer()
    add_limited(
        health_pb2_grpc.add_HealthServicer_to_server,
        health_servicer,
        server,
        limit,
        metrics.refused,
        malformed,
    )
    names = (
        table_service_pb2.DESCRIPTOR.services_by_name["TableService"].full_name,
        admin_service_pb2.DESCRIPTOR.services_by_name["AdminService"].full_name,
        relay_service_pb2.DESCRIPTOR.services_by_name["RelayService"].full_name,
        health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
        reflection.SERVICE_NAME,
    )
    add_limited(
        reflection_pb2_grpc.add_ServerReflectionServicer_to_server,
        reflection.aio.ReflectionServicer(names),
        server,
        limit,
        metrics.refused,
        malformed,
    )
    # gRPC reads "::1:50051" as a host without a port: an IPv6 host goes in brackets.
    grpc_port = server.add_insecure_port(host_port(settings.host, settings.grpc_port))
    await server.start()
    for name in ("", *names[:3]):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    engine = EngineServer(
        settings,
        manager,
        server,
        grpc_port,
        health=health_servicer,
        metrics=metrics,
        lease=lease,
    )
    try:
        # Port 0 takes any free port, for the web and for the metrics alike.
        web = TableServiceASGIApplication(
            ConnectTableService(core),
            interceptors=[ConnectSizeLimit(limit, metrics.refused)],
            read_max_bytes=transport_limit(limit),
            codecs=malformed.codecs(google_protobuf_codecs()),
        )
        app = cors(web, settings.cors_origins)
        engine.web_server, engine.web_task = await _serve_asgi(
            app, settings.host, settings.web_port
        )
        engine.metrics_server, engine.metrics_task = await _serve_asgi(
            metrics_app(metrics), settings.host, settings.metrics_port
        )
    except BaseException:
        await _stop_asgi(engine.web_server, engine.web_task)
        await manager.shutdown()
        await server.stop(None)
        raise
    return engine


def start_collector(
    settings: EngineSettings, metrics: EngineMetrics | None
) -> PacedCollector | None:
    """Pace the garbage collector from the running loop (``settings.gc_pacing``), its pauses
    counted in ``metrics``; or, with no pacing, leave CPython's trigger on, tuned once."""
    if settings.gc_pacing is None:
        settle_garbage_collector()
        return None
    collector = PacedCollector(settings.gc_pacing, metrics.gc_pause if metrics else None)
    collector.start()
    return collector


async def run_engine(settings: EngineSettings, *, ready: Callable[[EngineServer], None]) -> None:
    """Run until SIGTERM or SIGINT, then drain and stop.

    A lease lost because the database stopped answering (a restart of PostgreSQL, a SQLite
    file that could not be written) is not the end: the engine stops serving as the lease
    demands, then claims its node again once the database answers and serves on — its start
    cancels the hand each table was playing, every chip back, as after a crash.

    Raises :class:`~engine_server.node.NodeHeld` when another live process holds the node,
    :class:`~engine_server.node.LeaseLost` when another process claimed the node's lease
    (the engine has stopped serving: the process should exit non-zero).
    """
    stop = asyncio.Event()
    received: list[str] = []
    loop = asyncio.get_running_loop()

    def on_signal(sig: signal.Signals) -> None:
        received.append(sig.name)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal, sig)
    lost_reason = ""
    pause = _FIRST_PAUSE
    serving = settings

    def keep_ports(engine: EngineServer) -> None:
        nonlocal serving
        serving = bound_ports(settings, engine)

    # Opt-in (STUD_ENGINE_TRACEMALLOC): snapshots of what the engine's memory holds.
    trace = memory_trace(os.environ)
    if trace is not None:
        trace.start()
    while not stop.is_set():
        if lost_reason and not await _wait_for_database(settings, stop):
            return
        try:
            lost_reason = await _serve(
                serving,
                ready,
                stop,
                restarted=bool(lost_reason),
                received=received,
                started=keep_ports,
            )
            pause = _FIRST_PAUSE
        except Exception as error:
            if not (lost_reason and is_outage(error)):
                raise
            # The database answers reads but not yet writes (a SQLite file still read-only),
            # or went away again while the node was being claimed back.
            log.warning(
                "could not serve node %s again yet (%s); trying again in %.1f s",
                settings.node_id,
                _first_line(error),
                pause,
            )
            await _pause(stop, pause)
            pause = min(pause * 2, _LONGEST_PAUSE)


def bound_ports(settings: EngineSettings, engine: EngineServer) -> EngineSettings:
    """``settings`` with the ports ``engine`` listens on, to serve on after an outage: the
    node comes back at the addresses its players, the lobby and the registry know, not at
    new ones a port 0 would pick (issue 15: a client that looked the node up would be sent
    to a port nobody serves).

    >>> s = EngineSettings(grpc_port=0, web_port=0, metrics_port=0)
    >>> class Bound:
    ...     grpc_port, web_port, metrics_port = 40001, 40002, 0
    >>> kept = bound_ports(s, Bound())  # type: ignore[arg-type]
    >>> kept.grpc_port, kept.web_port, kept.metrics_port
    (40001, 40002, 0)
    """
    return dataclasses.replace(
        settings,
        grpc_port=engine.grpc_port or settings.grpc_port,
        web_port=engine.web_port or settings.web_port,
        metrics_port=engine.metrics_port or settings.metrics_port,
    )


#: the pauses between tries to reach the database again (doubling): a restart of it takes
#: seconds, and its end should be noticed soon
_FIRST_PAUSE = 0.5
_LONGEST_PAUSE = 2.0


def _first_line(error: BaseException) -> str:
    text = str(error)
    return text.splitlines()[0] if text else type(error).__name__


async def _pause(stop: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds``, or less if a stop signal comes."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


async def _wait_for_database(settings: EngineSettings, stop: asyncio.Event) -> bool:
    """Wait until the database answers (False: a stop signal came first)."""
    from engine_server.store.database import create_engine_for

    pause = _FIRST_PAUSE
    while not stop.is_set():
        engine = create_engine_for(settings.database_url, null_pool=True)
        try:
            async with asyncio.timeout(10), engine.begin() as connection:
                await connection.exec_driver_sql("SELECT 1")
            return True
        except Exception as error:
            if not is_outage(error):
                raise
            log.info("waiting for the database (%s)", _first_line(error))
        finally:
            with contextlib.suppress(Exception):
                await engine.dispose()
        await _pause(stop, pause)
        pause = min(pause * 2, _LONGEST_PAUSE)
    return False


async def _serve(
    settings: EngineSettings,
    ready: Callable[[EngineServer], None],
    stop: asyncio.Event,
    *,
    restarted: bool,
    received: Sequence[str] = (),
    started: Callable[[EngineServer], None] = lambda engine: None,
) -> str:
    """Serve the node until ``stop`` ("") or until its lease is lost to a database outage
    (the reason); :class:`LeaseLost` when another process claimed it. ``started`` is told
    of the engine once its ports listen."""
    from engine_server.store.adapter import open_store

    if restarted:
        log.warning(
            "the database answers again: claiming node %s back (its last lease runs out at "
            "most %g s after its last renewal)",
            settings.node_id,
            settings.lease_seconds,
        )
    directory, store, close_store = await open_store(settings.database_url, settings.node_id)
    try:
        engine = await start_engine(settings, directory=directory, store=store)
    except BaseException:
        await _close_quietly(close_store)
        raise
    started(engine)
    collector = start_collector(settings, engine.metrics)
    log.info(
        "engine ready",
        extra={
            "loop": loop_name(),
            "node": settings.node_id,
            "epoch": engine.lease.epoch if engine.lease else 0,
            "lease_waited_seconds": round(engine.lease.waited, 3) if engine.lease else 0.0,
            "restarted": restarted,
        },
    )
    if not engine.lost.is_set():
        # Lost while starting (a renewal already too late on a starved machine): its servers
        # are closed, there is nothing to announce; the lost lease is handled below.
        ready(engine)
    stopping = asyncio.create_task(stop.wait())
    lost = asyncio.create_task(engine.lost.wait())
    await asyncio.wait((stopping, lost), return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    lost.cancel()
    if collector is not None:
        collector.stop()
    if engine.lost.is_set():
        await engine.stop()
        await _close_quietly(close_store)
        if engine.lease is not None and engine.lease.lost_to_outage:
            log.warning(
                "node %s stopped serving its tables (%s); it serves them again once the "
                "database answers",
                settings.node_id,
                engine.lost_reason,
            )
            return engine.lost_reason
        raise LeaseLost(
            f"engine node {settings.node_id!r} stopped serving its tables: {engine.lost_reason}"
        )
    log.info(
        "%s: stopping; running hands finish first (up to %.0f s)",
        received[0] if received else "stop",
        drain_seconds(),
    )
    await engine.stop()
    log.info("stopped: node %s is free for the next start", settings.node_id)
    await close_store()
    return ""


async def _close_quietly(close_store: Callable[[], Awaitable[None]]) -> None:
    """Close the store's connections without waiting long on a database that is away."""
    try:
        async with asyncio.timeout(5):
            await close_store()
    except Exception as error:
        log.info("the store's connections were not closed cleanly: %s", error)
