"""The engine's Prometheus metrics, served at ``/metrics`` on their own small HTTP port.

Every engine owns a :class:`EngineMetrics` with its own
:class:`~prometheus_client.CollectorRegistry` rather than the process-wide
default one: tests (and the lobby's tests) run several engines in one process,
and metrics registered globally would either clash on the second engine or
mix every engine's counts into one page. The engine process serves its
registry and nothing else, which is also what a scrape should see.

What a scrape shows (``stud_engine_`` prefix):

| metric | type | labels | meaning |
|---|---|---|---|
| ``tables`` | gauge | ``status`` | live tables by status (every status, 0 included) |
| ``seats_occupied`` | gauge | | occupied seats over every table |
| ``hands_running`` | gauge | | tables with a hand in progress |
| ``open_streams`` | gauge | ``audience`` | open WatchTable streams (``player`` or ``admin``) |
| ``hands_started_total`` | counter | | hands dealt (hands per second: ``rate()`` of it) |
| ``hands_finished_total`` | counter | ``cancelled`` | hands ended, cancelled ones apart |
| ``actions_total`` | counter | ``kind``, ``timeout`` | actions taken, the clock's own ones marked |
| ``errors_total`` | counter | ``reason``, ``code`` | refused RPCs by ``ErrorInfo`` reason and gRPC code |
| ``action_to_view_seconds`` | histogram | | from a command's arrival to its views' publication |
| ``gc_pause_seconds`` | histogram | ``generation`` | pauses of the paced garbage collector: ``1`` young, ``2`` full (what is frozen left out), ``3`` thorough (everything) |
| ``gc_collected_total`` | counter | ``generation`` | unreachable objects (garbage in reference cycles) those collections found |
| ``hand_actions_pruned_total`` | counter | | stored action rows of ended hands deleted by the housekeeping (docs/operations.md, "Crashes") |
| ``action_pruning_rounds_total`` | counter | ``outcome`` | housekeeping rounds, ``ok`` or ``failed`` (the database away: the next round tries again) |
| ``action_pruning_last_round_timestamp_seconds`` | gauge | | when the last round ended (Unix time; 0 before the first) |
| ``action_pruning_last_round_seconds`` | gauge | | how long the last round took |
| ``loop_lag_seconds`` | histogram | ``cause`` | how late the event loop's heartbeat (every 0.1 s) woke: ``busy`` when the loop's thread ran most of that time (its own work: callbacks, collections), ``waiting`` when it did not (no core, or another thread held the GIL) |

The gauges are read from the live tables at scrape time (no bookkeeping that
could drift); the scrape runs in the engine's event loop, the only thread
that changes them.

>>> metrics = EngineMetrics()
>>> hooks = metrics.hooks()
>>> hooks.on_hand_started("t1"); hooks.on_hand_finished("t1", False)
>>> hooks.on_action("t1", "call", False); hooks.on_view_latency(0.002)
>>> page = metrics.exposition().decode()
>>> "stud_engine_hands_finished_total{cancelled=\\"false\\"} 1.0" in page
True
>>> 'stud_engine_actions_total{kind="call",timeout="false"} 1.0' in page
True
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    make_asgi_app,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from engine_server.pruning import PruneRound
from engine_server.table.errors import ErrorKind, TableError
from engine_server.table.model import TableStatus
from engine_server.table.runtime import RuntimeHooks

if TYPE_CHECKING:
    from engine_server.table.manager import TableManager

__all__ = [
    "CONTENT_TYPE_LATEST",
    "GC_PAUSE_BUCKETS",
    "LATENCY_BUCKETS",
    "LOOP_LAG_BUCKETS",
    "EngineMetrics",
    "metrics_app",
]

log = logging.getLogger("stud.metrics")

PREFIX = "stud_engine"

#: action-to-view latency buckets, seconds: a healthy table answers in a few milliseconds
LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    float("inf"),
)

#: garbage collector pause buckets, seconds: paced young collections take a millisecond or two,
#: thorough ones seconds at a thousand tables
GC_PAUSE_BUCKETS = (
    0.0005,
    0.001,
    0.002,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    float("inf"),
)

#: event loop lag buckets, seconds: a heartbeat every 0.1 s wakes a millisecond or so late
LOOP_LAG_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, float("inf"))

#: gRPC status names of the error kinds (the ``code`` label)
_CODES = {kind: kind.value.upper() for kind in ErrorKind}


class _LiveTables(Collector):
    """The gauges, computed from the manager's tables when scraped."""

    def __init__(self, manager: TableManager) -> None:
        self.manager = manager

    def collect(self) -> Iterator[GaugeMetricFamily]:
        by_status = dict.fromkeys(TableStatus, 0)
        seats = running = players = admins = 0
        for runtime in list(self.manager.tables.values()):
            by_status[runtime.status] += 1
            seats += len(runtime.seats)
            running += runtime.hand_running
            watching, auditing = runtime.open_streams()
            players += watching
            admins += auditing
        tables = GaugeMetricFamily(
            f"{PREFIX}_tables", "Tables on this node by status", labels=["status"]
        )
        for status, count in by_status.items():
            tables.add_metric([status.value], count)
        yield tables
        yield GaugeMetricFamily(
            f"{PREFIX}_seats_occupied", "Occupied seats over every table", value=seats
        )
        yield GaugeMetricFamily(
            f"{PREFIX}_hands_running", "Tables with a hand in progress", value=running
        )
        streams = GaugeMetricFamily(
            f"{PREFIX}_open_streams", "Open WatchTable streams", labels=["audience"]
        )
        streams.add_metric(["player"], players)
        streams.add_metric(["admin"], admins)
        yield streams


class EngineMetrics:
    """One engine's metrics: counters fed by :meth:`hooks` and :meth:`refused`, live gauges."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry(auto_describe=True)
        self.hands_started = Counter(
            f"{PREFIX}_hands_started", "Hands dealt", registry=self.registry
        )
        self.hands_finished = Counter(
            f"{PREFIX}_hands_finished",
            "Hands ended (cancelled: by CancelHand or a restart)",
            ["cancelled"],
            registry=self.registry,
        )
        self.actions = Counter(
            f"{PREFIX}_actions",
            "Actions taken (timeout: the clock acted for the seat)",
            ["kind", "timeout"],
            registry=self.registry,
        )
        self.errors = Counter(
            f"{PREFIX}_errors",
            "Refused RPCs by ErrorInfo reason and gRPC code",
            ["reason", "code"],
            registry=self.registry,
        )
        self.view_latency = Histogram(
            f"{PREFIX}_action_to_view_seconds",
            "Seconds from a command's arrival at its table to the publication of its views",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.gc_pauses = Histogram(
            f"{PREFIX}_gc_pause_seconds",
            "Pauses of the paced garbage collector: 1 young, 2 full (frozen objects left out), "
            "3 thorough (everything)",
            ["generation"],
            buckets=GC_PAUSE_BUCKETS,
            registry=self.registry,
        )
        self.gc_collected = Counter(
            f"{PREFIX}_gc_collected",
            "Unreachable objects (garbage in reference cycles) found by the paced collections",
            ["generation"],
            registry=self.registry,
        )
        self.loop_lags = Histogram(
            f"{PREFIX}_loop_lag_seconds",
            "How late the event loop's heartbeat (every 0.1 s) woke; cause: busy (the loop's "
            "thread ran: its own work) or waiting (for a core or the GIL)",
            ["cause"],
            buckets=LOOP_LAG_BUCKETS,
            registry=self.registry,
        )
        self.actions_pruned = Counter(
            f"{PREFIX}_hand_actions_pruned",
            "Stored action rows of ended hands deleted by the housekeeping",
            registry=self.registry,
        )
        self.pruning_rounds = Counter(
            f"{PREFIX}_action_pruning_rounds",
            "Rounds of the stored actions' housekeeping (outcome: ok or failed)",
            ["outcome"],
            registry=self.registry,
        )
        self.pruning_last_round = Gauge(
            f"{PREFIX}_action_pruning_last_round_timestamp_seconds",
            "When the stored actions' housekeeping last ended a round (Unix time)",
            registry=self.registry,
        )
        self.pruning_last_seconds = Gauge(
            f"{PREFIX}_action_pruning_last_round_seconds",
            "How long the stored actions' housekeeping's last round took",
            registry=self.registry,
        )
        for outcome in ("ok", "failed"):
            self.pruning_rounds.labels(outcome=outcome)
        self._lag_busy = self.loop_lags.labels(cause="busy")
        self._lag_waiting = self.loop_lags.labels(cause="waiting")
        # Both values of the labels exist from the start, so rate() sees the first hand.
        for cancelled in ("false", "true"):
            self.hands_finished.labels(cancelled=cancelled)
        self._live: _LiveTables | None = None

    def watch(self, manager: TableManager) -> None:
        """Report ``manager``'s tables in the gauges (once per engine)."""
        if self._live is not None:
            raise RuntimeError("these metrics already watch a table manager")
        self._live = _LiveTables(manager)
        self.registry.register(self._live)

    def hooks(self, chained: RuntimeHooks | None = None) -> RuntimeHooks:
        """Runtime hooks that count into these metrics, then call ``chained``'s (if any)."""
        other = chained or RuntimeHooks()

        def hand_started(table_id: str) -> None:
            self.hands_started.inc()
            if other.on_hand_started:
                other.on_hand_started(table_id)

        def hand_finished(table_id: str, cancelled: bool) -> None:
            self.hands_finished.labels(cancelled=_flag(cancelled)).inc()
            if other.on_hand_finished:
                other.on_hand_finished(table_id, cancelled)

        # One child per label pair, kept: labels() takes a lock and builds its key each call.
        counters: dict[tuple[str, bool], Any] = {}

        def action(table_id: str, kind: str, timeout: bool) -> None:
            counter = counters.get((kind, timeout))
            if counter is None:
                counter = counters[kind, timeout] = self.actions.labels(
                    kind=kind, timeout=_flag(timeout)
                )
            counter.inc()
            if other.on_action:
                other.on_action(table_id, kind, timeout)

        def view_latency(seconds: float) -> None:
            self.view_latency.observe(seconds)
            if other.on_view_latency:
                other.on_view_latency(seconds)

        return RuntimeHooks(hand_started, hand_finished, action, view_latency)

    def gc_pause(self, generation: int, seconds: float, found: int) -> None:
        """Record one pause of the paced collector (:mod:`engine_server.collector`) and the
        unreachable objects it found.

        >>> m = EngineMetrics(); m.gc_pause(2, 0.04, 130); m.gc_pause(2, 0.05, 20)
        >>> m.gc_collected.labels(generation="2")._value.get()
        150.0
        """
        self.gc_pauses.labels(generation=str(generation)).observe(seconds)
        self.gc_collected.labels(generation=str(generation)).inc(found)

    def loop_lag(self, seconds: float, cpu_seconds: float) -> None:
        """Record one heartbeat's lateness (:class:`~engine_server.table.stalls.StallWatch`):
        ``busy`` when the loop's thread used at least half the time it was late, on CPU.

        >>> m = EngineMetrics(); m.loop_lag(0.3, 0.35); m.loop_lag(0.3, 0.02)
        >>> m._lag_busy._sum.get(), m._lag_waiting._sum.get()
        (0.3, 0.3)
        """
        late = self._lag_busy if cpu_seconds >= seconds / 2 else self._lag_waiting
        late.observe(seconds)

    def pruning_round(self, done: PruneRound) -> None:
        """Record one round of the stored actions' housekeeping
        (:class:`~engine_server.pruning.ActionPruning`).

        >>> from engine_server.store.hand_actions import Pruned
        >>> m = EngineMetrics(); m.pruning_round(PruneRound(Pruned(2, 17), 1.7e9, 0.25))
        >>> page = m.exposition().decode()
        >>> "stud_engine_hand_actions_pruned_total 17.0" in page
        True
        >>> 'stud_engine_action_pruning_rounds_total{outcome="ok"} 1.0' in page
        True
        >>> "stud_engine_action_pruning_last_round_seconds 0.25" in page
        True
        """
        self.actions_pruned.inc(done.pruned.rows)
        self.pruning_rounds.labels(outcome="failed" if done.failed else "ok").inc()
        self.pruning_last_round.set(done.ended_at)
        self.pruning_last_seconds.set(done.seconds)

    def refused(self, error: TableError) -> None:
        """Count one refused RPC."""
        self.errors.labels(reason=error.reason, code=_CODES[error.kind]).inc()

    def exposition(self) -> bytes:
        """The metrics in Prometheus' text format."""
        return generate_latest(self.registry)


def _flag(value: bool) -> str:
    return "true" if value else "false"


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Any]]
Send = Callable[[Any], Awaitable[None]]


def metrics_app(metrics: EngineMetrics) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """An ASGI app serving ``metrics`` at ``/metrics`` (404 elsewhere)."""
    serve = make_asgi_app(metrics.registry)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/metrics" and scope["method"] in ("GET", "HEAD"):
            await serve(scope, receive, send)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 404,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")],
            }
        )
        await send({"type": "http.response.body", "body": b"not found: try /metrics\n"})

    return app
