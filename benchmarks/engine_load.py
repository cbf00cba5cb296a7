"""The engine under load: bot tables over real gRPC, from processes apart from the server.

Run from the repository root::

    .venv/bin/python -m benchmarks.engine_load [--tables 1000] [--pace 2.0] \
        [--seconds 60] [--warmup 15] [--bots go|python] [--act-over play|unary] \
        [--load-processes N] [--nodes N [--database-url URL [--move-tables-at SECONDS]]] \
        [--idle-tables N] [--gateway] [--json FILE]
    .venv/bin/python -m benchmarks.engine_load --quick          # 50 tables, 10 s

What it does:

1. Starts ``stud engine`` as a subprocess on loopback (SQLite in a temporary
   directory, ``STUD_ENGINE_BETWEEN_HANDS`` small, ``STUD_LOG_LEVEL=WARNING``)
   and reads the JSON line it prints when ready. ``--nodes N`` starts N
   engines (node ids ``node-1`` ...), each owning every Nth table (created
   through it) and loaded by load processes of its own: each on a SQLite file
   of its own, or all on ``--database-url`` (an empty database: one registry).
   Several processes writing one SQLite file wait on its lock with growing
   sleeps: under load that, not the engines, would be measured.
2. Memory per idle table: the engine's RSS (``VmRSS``) after one warm-up
   table, then after ``--idle-tables`` more idle tables (created, paused,
   seven players seated: they deal no hand), divided by their number.
3. Creates ``--tables`` tables (house rules, 30 s clock), pauses them and
   seats seven players at each, all through ``AdminService``.
4. Starts ``--load-processes`` load processes, each with one gRPC channel per
   50 tables shared by its bots: a ``WatchTable`` stream per seat, seven per
   table. ``--bots go`` (the default): ``build/loadgen/stud-loadgen``
   (benchmarks/loadgen, built first by ``scripts/build-loadgen``, a no-op when
   up to date), one process per 500 tables by default, told its tables and
   the seats' tokens (minted here) in JSON lines on its stdin; it decodes only
   the fields a bot reads and costs a fraction of the CPU per message of
   ``--bots python``: ``multiprocessing`` processes (spawned), one per 250
   tables by default, each one asyncio loop of grpc.aio bots. The same bots
   and measurements either way. When every stream has its first snapshot,
   the tables are resumed.
5. Each bot acts when its seat's turn comes (checks or calls mostly, bets or
   raises now and then): at ``--pace`` seconds per action per table (each
   table's actions spaced that far apart, tables out of phase), or at once
   with ``--pace 0`` ("flat out"). ``--act-over play`` (the default with
   ``--bots go``, which alone has it): each seat keeps one ``Play`` stream
   instead of the ``WatchTable`` stream, and sends its actions on it;
   ``--act-over unary`` (the only one of ``--bots python``): an ``Act`` call
   per action.
6. After ``--warmup`` seconds, for ``--seconds`` seconds, every act sent is
   measured from sending it to the moment the *last* of the table's seven
   streams has received the update carrying that action (matched by
   ``ActResponse.sequence``, the number of the change carrying that action;
   over Play, by the first update of the table, on any seat's stream, whose
   ``action_id`` is the act's).
7. With ``--move-tables-at SECONDS`` (two nodes or more on one database),
   that far into the window every table of node-1 moves to node-2
   (``MoveTable``, between hands). A bot whose stream ends with
   ``UNAVAILABLE`` / ``TABLE_MOVED`` (any move or take-over, this one or not)
   opens it again at the ``grpc_address`` the refusal names (at most
   ``FOLLOWS_IN_A_ROW`` times without a message in between), starting afresh
   there: the new node numbers the table's changes from its own start.

8. With ``--gateway`` the bots do not call the engines: one ``stud gateway`` process
   (pinned to the CPU after the nodes' with ``--pin``) serves them TableService and relays
   their streams to the engines, one RelayService call per node (BENCHMARKS.md, "A gateway
   tier"). The engines' memory per busy table is then without a gRPC call per stream; the
   gateway's memory per stream is reported beside it.

It reports actions per second (acts answered in the window / its length),
the streams followed to another node (and the acts answered after their table's move),
the p50/p99/max of that latency, the act round trip (the ``Act`` call; over
Play, until the actor's own stream has the update carrying it), acts whose
update did not reach all seven seats, errors (a refused Play act counts as the
failed ``Act`` would), the engine process's CPU use in the window
(and per action), the load processes' (and per action: the bots share the
cores with the engine), the load average, and how fast the machine ran a fixed
piece of Python before the run and during the window (its CPU time; a shared
machine's speed moves with what its other tenants do: read the figures with it).

``--profile-engine FILE`` runs py-spy (not a project dependency: only if it
is installed) against the engine during the window and writes a flame graph.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import queue
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from benchmarks.processes import start_ready_blocking
from engine_server.collector import CollectorPacing, PacedCollector
from engine_server.loops import DEFAULT_LOOP, LOOPS, run_in_loop

__all__ = [
    "EngineProcess",
    "LoadResult",
    "Options",
    "choose_action",
    "format_result",
    "main",
    "parse_options",
    "reference_ms",
    "run",
]

SEATS = 7
SECRET = "engine-load-benchmark-" + "s" * 32
#: tables per gRPC channel in a load process (each channel is one TCP connection)
TABLES_PER_CHANNEL = 50
#: TABLE_MOVED refusals a seat follows without a message in between (as benchmarks/loadgen's
#: followsInARow): two nodes naming each other must not make it loop
FOLLOWS_IN_A_ROW = 5
#: tables per Python load process when --load-processes is not given
TABLES_PER_PROCESS = 250
#: tables per Go load process when --load-processes is not given
GO_TABLES_PER_PROCESS = 500
BOTS = ("go", "python")
#: how the bots act: on each seat's Play stream, or an Act call each (--bots python: only this)
TRANSPORTS = ("play", "unary")
ROOT = Path(__file__).resolve().parents[1]
#: the compiled load process (scripts/build-loadgen builds it; --bots go)
LOADGEN = ROOT / "build" / "loadgen" / "stud-loadgen"
STAKES = (1, 1, 2, 4)  # ante, bring-in, small bet, big bet
BUY_IN = 10_000  # deep enough that nobody goes broke in a run
ACTION_SECONDS = 30  # the table clock: bots answer long before it
BETWEEN_HANDS = 0.1
#: how long after the window answered Acts may still reach their last seat
SETTLE_SECONDS = 5.0
#: how long past its window and settling a load process may take to report (a starved one)
DONE_GRACE_SECONDS = 60.0
#: how often a bot bets or raises when it may (else it checks or calls)
AGGRESSION = 0.1
ADMIN_CONCURRENCY = 4
#: seconds between two readings of the engines' RSS under load (--rss-every)
RSS_EVERY = 10.0
#: "flat after 5 minutes": the second RSS slope is read from this long after the resumption
RSS_LATE_SECONDS = 300.0
#: WatchTable calls a load process starts at once (each waits for its first message)
OPENING = 100


# --------------------------------------------------------------------------- options


@dataclass(frozen=True)
class Options:
    """One run's parameters."""

    tables: int = 1000
    pace: float = 2.0
    seconds: float = 60.0
    warmup: float = 15.0
    load_processes: int = 0  # 0: one per TABLES_PER_PROCESS (GO_TABLES_PER_PROCESS) tables
    idle_tables: int | None = None  # None: as many as --tables
    between_hands: float = BETWEEN_HANDS
    seed: int = 7
    json_path: str | None = None
    profile_engine: str | None = None
    #: the event loop of the engine (STUD_ENGINE_LOOP), the load processes and this driver
    loop: str = DEFAULT_LOOP
    #: the load processes: compiled (benchmarks/loadgen) or Python (_load_process)
    bots: str = "go"
    #: "play" or "unary" (see TRANSPORTS); None: the bots' default (transport)
    act_over: str | None = None
    #: engine processes, the tables dealt among them
    nodes: int = 1
    #: one database for every engine (their node registry); None: a SQLite file each
    database_url: str | None = None
    #: engine node i and its Go load processes kept on CPU i (node_cpu)
    pin: bool = False
    #: seconds between two readings of the engines' RSS (from the tables' resumption on)
    rss_every: float = RSS_EVERY
    #: seconds into the window at which node-1's tables move to node-2 (MoveTable); None: none
    move_tables_at: float | None = None
    #: the bots call one ``stud gateway`` in front of the engines instead of the engines
    gateway: bool = False

    @property
    def processes(self) -> int:
        if self.load_processes > 0:
            return min(self.load_processes, self.tables)
        per_process = GO_TABLES_PER_PROCESS if self.bots == "go" else TABLES_PER_PROCESS
        return max(1, min(4, math.ceil(self.tables / per_process)))

    @property
    def transport(self) -> str:
        """How the bots act: ``act_over``, by default over Play with the Go bots (the Python
        bots act by unary Act calls only)."""
        if self.act_over is not None:
            return self.act_over
        return "play" if self.bots == "go" else "unary"

    @property
    def idle(self) -> int:
        return self.tables if self.idle_tables is None else self.idle_tables


def parse_options(argv: Sequence[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.engine_load",
        description="Bot tables against a real stud engine over gRPC; latency and throughput.",
    )
    parser.add_argument("--tables", type=int, help="tables under load (default 1000)")
    parser.add_argument(
        "--pace",
        type=float,
        help="seconds between one table's actions (default 2.0; 0: flat out, act at once)",
    )
    parser.add_argument("--seconds", type=float, help="measured window (default 60)")
    parser.add_argument("--warmup", type=float, help="seconds before the window (default 15)")
    parser.add_argument(
        "--load-processes",
        type=int,
        default=0,
        help=f"load processes (default: one per {GO_TABLES_PER_PROCESS} tables with --bots go, "
        f"per {TABLES_PER_PROCESS} with --bots python; at most 4)",
    )
    parser.add_argument(
        "--bots",
        choices=BOTS,
        default="go",
        help="the load processes: go (build/loadgen/stud-loadgen, built first by "
        "scripts/build-loadgen) or python (grpc.aio; default go)",
    )
    parser.add_argument(
        "--act-over",
        choices=TRANSPORTS,
        help="how bots act: play (on each seat's Play stream; the default with --bots go, "
        "which alone has it) or unary (an Act call per action)",
    )
    parser.add_argument(
        "--nodes",
        type=int,
        default=1,
        help="engine processes, each owning every Nth table (default 1)",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="keep engine node i (STUD_ENGINE_CPUS) and its Go load processes (taskset) on "
        "CPU i, round the CPUs this process may use",
    )
    parser.add_argument(
        "--database-url",
        help="one database shared by every engine node, e.g. postgresql://127.0.0.1/test "
        "(it must be empty or the engine's own; default: a throwaway SQLite file per engine)",
    )
    parser.add_argument(
        "--idle-tables",
        type=int,
        help="idle tables for the memory figure (default: as many as --tables; 0: skip)",
    )
    parser.add_argument(
        "--between-hands",
        type=float,
        default=BETWEEN_HANDS,
        help=f"STUD_ENGINE_BETWEEN_HANDS (default {BETWEEN_HANDS})",
    )
    parser.add_argument("--seed", type=int, default=7, help="the bots' random seed")
    parser.add_argument(
        "--rss-every",
        type=float,
        default=RSS_EVERY,
        help=f"seconds between readings of the engines' RSS under load (default {RSS_EVERY:g})",
    )
    parser.add_argument(
        "--move-tables-at",
        type=float,
        metavar="SECONDS",
        help="SECONDS into the window, move every table of node-1 to node-2 (AdminService "
        "MoveTable, between hands): their bots follow TABLE_MOVED there; needs --nodes 2 or "
        "more on one --database-url",
    )
    parser.add_argument(
        "--gateway",
        action="store_true",
        help="the bots call one stud gateway process, which relays their streams to the engines",
    )
    parser.add_argument("--json", dest="json_path", help="also write the result here as JSON")
    parser.add_argument(
        "--profile-engine",
        help="py-spy profile of the engine during the window: a flame graph (FILE.svg) or "
        "collapsed stacks (FILE.txt)",
    )
    parser.add_argument(
        "--loop",
        choices=LOOPS,
        default=DEFAULT_LOOP,
        help=f"event loop of the engine, the driver and Python bots (default {DEFAULT_LOOP})",
    )
    parser.add_argument(
        "--quick", action="store_true", help="50 tables, 50 idle ones, 3 s warm-up, 10 s window"
    )
    args = parser.parse_args(argv)
    defaults = (
        Options(tables=50, seconds=10.0, warmup=3.0, idle_tables=50) if args.quick else Options()
    )
    values: dict[str, Any] = {
        "tables": args.tables,
        "pace": args.pace,
        "seconds": args.seconds,
        "warmup": args.warmup,
        "idle_tables": args.idle_tables,
    }
    chosen = {k: v for k, v in values.items() if v is not None}
    options = Options(
        tables=chosen.get("tables", defaults.tables),
        pace=chosen.get("pace", defaults.pace),
        seconds=chosen.get("seconds", defaults.seconds),
        warmup=chosen.get("warmup", defaults.warmup),
        idle_tables=chosen.get("idle_tables", defaults.idle_tables),
        load_processes=args.load_processes,
        between_hands=args.between_hands,
        seed=args.seed,
        json_path=args.json_path,
        profile_engine=args.profile_engine,
        loop=args.loop,
        bots=args.bots,
        act_over=args.act_over,
        nodes=args.nodes,
        database_url=args.database_url,
        pin=args.pin,
        rss_every=args.rss_every,
        move_tables_at=args.move_tables_at,
        gateway=args.gateway,
    )
    if options.bots == "python" and options.transport != "unary":
        parser.error("--act-over play needs --bots go: the Python bots act by unary Act calls")
    if not 1 <= options.nodes <= 8:
        parser.error(f"--nodes must be 1-8, got {options.nodes}")
    if options.move_tables_at is not None and (
        options.nodes < 2 or options.database_url is None or options.move_tables_at < 0
    ):
        parser.error(
            "--move-tables-at needs --nodes 2 or more on one --database-url (a table moves "
            "only between nodes of one database), and SECONDS >= 0"
        )
    if options.rss_every <= 0:
        parser.error(f"--rss-every must be > 0, got {options.rss_every:g}")
    if options.tables < 1 or options.seconds <= 0 or options.pace < 0 or options.warmup < 0:
        parser.error("--tables must be >= 1, --seconds > 0, --pace and --warmup >= 0")
    return options


# --------------------------------------------------------------------------- the engine


@dataclass
class EngineProcess:
    """``stud engine`` running as a child process."""

    process: subprocess.Popen[bytes]
    address: str
    log_path: Path
    #: its Prometheus page (http://host:port/metrics)
    metrics_url: str = ""

    @property
    def pid(self) -> int:
        return self.process.pid

    def rss_bytes(self) -> int:
        """The engine's resident set size (``VmRSS`` of /proc/<pid>/status)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS for the engine process")

    def cpu_seconds(self) -> float:
        """User + system CPU time the engine has used (all its threads)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        # The database is a throwaway file: no need to wait for a drain of every table.
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)


def engine_command() -> list[str]:
    stud = Path(sys.executable).parent / "stud"
    if stud.exists():
        return [str(stud)]
    return [
        sys.executable,
        "-c",
        "import sys; from engine_server.cli import main; sys.exit(main())",
    ]


def node_cpu(node: int) -> int:
    """The CPU ``--pin`` keeps engine node ``node`` (counted from 0) and its load on."""
    cpus = sorted(os.sched_getaffinity(0))
    return cpus[node % len(cpus)]


def start_engine_process(
    directory: Path,
    between_hands: float,
    loop: str = DEFAULT_LOOP,
    node_id: str = "main",
    database_url: str | None = None,
    cpu: int | None = None,
) -> EngineProcess:
    """Start ``stud engine`` on free loopback ports; returns once it prints its addresses.

    Its database is ``database_url``, or a SQLite file of its own in ``directory``; with
    ``cpu``, its threads run on that CPU only (STUD_ENGINE_CPUS).
    """
    env = {
        **os.environ,
        "STUD_ENGINE_LOOP": loop,
        "STUD_JWT_SECRET": SECRET,
        "STUD_ENGINE_BETWEEN_HANDS": str(between_hands),
        "STUD_LOG_LEVEL": "WARNING",
        "STUD_LOG_FORMAT": "text",
        "STUD_ENGINE_METRICS_PORT": "0",
        "STUD_ENGINE_NODE_ID": node_id,
        "STUD_ENGINE_CPUS": "" if cpu is None else str(cpu),
    }
    log_path = directory / f"engine-{node_id}.log"
    command = [
        *engine_command(),
        "engine",
        "--grpc-port",
        "0",
        "--web-port",
        "0",
        "--database-url",
        database_url or f"sqlite:///{directory}/engine-{node_id}.sqlite3",
    ]
    started = start_ready_blocking(
        command, name="stud engine", env=env, ready_key="grpc", log=log_path, cwd=directory
    )
    ready = started.ready
    return EngineProcess(started.process, ready["grpc"], log_path, ready.get("metrics", ""))


def start_gateway_process(
    directory: Path, engines: Sequence[str], loop: str = DEFAULT_LOOP, cpu: int | None = None
) -> EngineProcess:
    """Start ``stud gateway`` on a free loopback port in front of ``engines``; returns once it
    prints its address."""
    env = {
        **os.environ,
        "STUD_GATEWAY_LOOP": loop,
        "STUD_JWT_SECRET": SECRET,
        "STUD_LOG_LEVEL": "WARNING",
        "STUD_LOG_FORMAT": "text",
        "STUD_GATEWAY_CPUS": "" if cpu is None else str(cpu),
    }
    log_path = directory / "gateway.log"
    command = [*engine_command(), "gateway", "--grpc-port", "0"]
    for address in engines:
        command += ["--engine", address]
    started = start_ready_blocking(
        command, name="stud gateway", env=env, ready_key="grpc", log=log_path, cwd=directory
    )
    return EngineProcess(started.process, started.ready["grpc"], log_path)


# --------------------------------------------------------------------------- tables


def _grpc_options() -> list[tuple[str, Any]]:
    # Each channel gets its own connection (grpc shares subchannels between channels with the
    # same target and arguments otherwise), and may carry many streams.
    return [("grpc.use_local_subchannel_pool", 1), ("grpc.max_receive_message_length", 1 << 22)]


async def _bounded(jobs: Sequence[Callable[[], Awaitable[None]]], limit: int) -> None:
    semaphore = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[None]]) -> None:
        async with semaphore:
            await job()

    await asyncio.gather(*(one(job) for job in jobs))


def player_id(table_id: str, seat: int) -> str:
    return f"{table_id}-p{seat}"


async def create_tables(admin: Any, admin_md: Any, table_ids: Sequence[str]) -> None:
    """Create each table, pause it (no hand is dealt) and seat seven players."""
    from google.protobuf import struct_pb2
    from stud.v1 import admin_service_pb2, settings_pb2

    ante, bring_in, small, big = STAKES

    async def one(table_id: str) -> None:
        overrides = struct_pb2.Struct()
        overrides.update({"action_seconds": ACTION_SECONDS})
        await admin.CreateTable(
            admin_service_pb2.CreateTableRequest(
                request_id=f"create-{table_id}",
                table_id=table_id,
                profile="house",
                rule_overrides=overrides,
                stakes=settings_pb2.Stakes(
                    ante=ante, bring_in=bring_in, small_bet=small, big_bet=big
                ),
                min_buy_in=100,
                max_buy_in=BUY_IN * 10,
                client_seed="benchmark",
            ),
            metadata=admin_md,
            timeout=60,
        )
        name = f"tables/{table_id}"
        await admin.PauseTable(
            admin_service_pb2.PauseTableRequest(name=name, reason="benchmark setup"),
            metadata=admin_md,
            timeout=60,
        )
        for seat in range(1, SEATS + 1):
            player = player_id(table_id, seat)
            await admin.SeatPlayer(
                admin_service_pb2.SeatPlayerRequest(
                    table=name,
                    seat_session_id=f"ss-{player}",
                    player_id=player,
                    display_name=player,
                    seat=seat,
                    buy_in=BUY_IN,
                ),
                metadata=admin_md,
                timeout=60,
            )

    await _bounded([lambda t=t: one(t) for t in table_ids], ADMIN_CONCURRENCY)  # type: ignore[misc]


async def resume_tables(admin: Any, admin_md: Any, table_ids: Sequence[str]) -> None:
    from stud.v1 import admin_service_pb2

    async def one(table_id: str) -> None:
        await admin.ResumeTable(
            admin_service_pb2.ResumeTableRequest(name=f"tables/{table_id}"),
            metadata=admin_md,
            timeout=60,
        )

    await _bounded([lambda t=t: one(t) for t in table_ids], ADMIN_CONCURRENCY)  # type: ignore[misc]


# --------------------------------------------------------------------------- bots


def choose_action(legal: Sequence[Any], rng: random.Random) -> tuple[Any, int | None]:
    """A bot's action from the snapshot's legal actions: (kind, amount or None).

    Mostly check or call (hands go to showdown, stacks last), now and then the
    smallest bet, raise or completion.

    >>> from stud.v1 import table_pb2 as t
    >>> legal = [t.LegalAction(kind=t.ACTION_KIND_FOLD),
    ...          t.LegalAction(kind=t.ACTION_KIND_CALL, min_amount=2, max_amount=2),
    ...          t.LegalAction(kind=t.ACTION_KIND_RAISE, min_amount=4, max_amount=4)]
    >>> choose_action(legal, random.Random(1)) == (t.ACTION_KIND_CALL, None)
    True
    >>> sized = [t.LegalAction(kind=t.ACTION_KIND_BET, min_amount=2, max_amount=4, amounts=[2, 4])]
    >>> choose_action(sized, random.Random(1)) == (t.ACTION_KIND_BET, 2)
    True
    """
    from stud.v1 import table_pb2 as t

    by_kind = {action.kind: action for action in legal}
    order: tuple[Any, ...] = (
        t.ACTION_KIND_CHECK,
        t.ACTION_KIND_CALL,
        t.ACTION_KIND_BRING_IN,
        t.ACTION_KIND_SHOW,
        t.ACTION_KIND_COMPLETE,
        t.ACTION_KIND_BET,
        t.ACTION_KIND_RAISE,
        t.ACTION_KIND_FOLD,
        t.ACTION_KIND_MUCK,
    )
    if rng.random() < AGGRESSION:
        order = (t.ACTION_KIND_BET, t.ACTION_KIND_RAISE, t.ACTION_KIND_COMPLETE, *order)
    action = next((by_kind[k] for k in order if k in by_kind), legal[0])
    if action.max_amount != action.min_amount:
        return action.kind, action.amounts[0] if action.amounts else action.min_amount
    return action.kind, None


@dataclass
class WorkerStats:
    """What one load process measured (latencies in seconds)."""

    worker: int = 0
    tables: int = 0
    acts_total: int = 0
    sent: int = 0
    answered: int = 0
    errored: int = 0
    updates: int = 0
    latencies: list[float] = field(default_factory=list)
    round_trips: list[float] = field(default_factory=list)
    incomplete: int = 0
    unanswered: int = 0
    act_errors: dict[str, int] = field(default_factory=dict)
    stream_errors: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    cpu_seconds: float = 0.0
    #: streams opened again at the node an UNAVAILABLE / TABLE_MOVED named (not errors)
    followed: int = 0
    #: answered acts sent after a seat of their table followed it (answered at its new node)
    answered_moved: int = 0


class _Window:
    """The measured window, in ``time.monotonic`` (one clock for every process)."""

    def __init__(self) -> None:
        self.start = math.inf
        self.end = math.inf

    def covers(self, moment: float) -> bool:
        return self.start <= moment < self.end


class _Table:
    """One table as its seven bots see it: pacing, and which seats each update reached."""

    def __init__(
        self, name: str, pace: float, stats: WorkerStats, window: _Window, rng: random.Random
    ) -> None:
        self.name = name
        self.pace = pace
        self.stats = stats
        self.window = window
        # Out of phase: the first action of each table comes at a random point of its pace.
        self.last_sent = time.monotonic() - rng.uniform(0, pace)
        #: sequence -> [seats it reached, when the latest of them got it]
        self.arrivals: dict[int, list[Any]] = {}
        #: answered Acts whose update has not reached every seat yet: sequence -> sent at
        self.pending: dict[int, float] = {}
        #: when a seat first followed the table to another node (inf: never)
        self.moved_at = math.inf
        #: the moves its seats have followed: each node numbers the table's changes afresh, so
        #: arrivals and pending are of its current node only
        self.node = 0
        #: the window's answered Acts pending when the table moved (counted as incomplete)
        self.dropped = 0

    def due(self) -> float:
        return self.last_sent + self.pace

    def arrived(self, sequence: int, moment: float) -> None:
        entry = self.arrivals.get(sequence)
        if entry is None:
            entry = self.arrivals[sequence] = [0, moment]
            if len(self.arrivals) > 4096:
                for old in list(self.arrivals)[:2048]:
                    if old not in self.pending:
                        del self.arrivals[old]
        entry[0] += 1
        entry[1] = moment
        if entry[0] == SEATS:
            sent = self.pending.pop(sequence, None)
            if sent is not None:
                self._measured(sent, moment)

    def answered(self, sequence: int, sent: float) -> None:
        entry = self.arrivals.get(sequence)
        if entry is not None and entry[0] >= SEATS:
            self._measured(sent, entry[1])
        else:
            self.pending[sequence] = sent

    def _measured(self, sent: float, last_seat: float) -> None:
        if self.window.covers(sent):
            self.stats.latencies.append(last_seat - sent)


def _error_reason(error: Any) -> str:
    """``CODE/REASON`` of a gRPC error (REASON from its google.rpc.ErrorInfo)."""
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    reason = ""
    with contextlib.suppress(Exception):
        status = rpc_status.from_call(error)
        if status is not None:
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    reason = info.reason
    name = error.code().name if error.code() is not None else "UNKNOWN"
    return f"{name}/{reason}" if reason else name


class _Bot:
    """One seat: a WatchTable stream, and an Act when its turn comes."""

    def __init__(
        self,
        table: _Table,
        seat: int,
        stub: Any,
        token: str,
        rng: random.Random,
        state: _WorkerState,
    ) -> None:
        self.table = table
        self.seat = seat
        self.stub = stub
        self.metadata = (("authorization", f"Bearer {token}"),)
        self.rng = rng
        self.state = state
        self.snapshot: Any = None
        self.sequence = -1
        #: no Act on a snapshot older than this: our last Act's change (which may already hand
        #: us the next turn: a new street can open on us), or the one after the snapshot an Act
        #: failed on
        self.act_from = 0
        self.acting = False
        self.ready = asyncio.Event()
        self.call: Any = None
        #: TABLE_MOVED refusals followed since the seat's last message, and in all
        self.follows = 0
        self.node = 0

    async def watch(self) -> None:
        import grpc
        from stud.bots.follow import moved_to
        from stud.v1 import table_service_pb2

        request = table_service_pb2.WatchTableRequest(table=self.table.name)
        while not self.state.closing:
            # A few streams start at a time: thousands at once overflow gRPC's queue of calls
            # the server has yet to take (grpc.server.max_pending_requests), which cancels some.
            await self.state.opening.acquire()
            opening = True
            self.call = self.stub.WatchTable(request, metadata=self.metadata)
            try:
                async for message in self.call:
                    if opening:
                        self.state.opening.release()
                        opening = False
                    self.follows = 0
                    if self.node < self.table.node:
                        # The old node's last words after another seat followed the table.
                        continue
                    now = time.monotonic()
                    if message.events:
                        self.table.arrived(message.sequence, now)
                        if self.table.window.covers(now):
                            self.table.stats.updates += 1
                    self.snapshot = message.snapshot
                    self.sequence = message.sequence
                    self.ready.set()
                    self._maybe_act()
                return
            except grpc.aio.AioRpcError as error:
                if self.state.closing:
                    return
                stats = self.table.stats
                address = moved_to(error)
                if address is not None and self.follows < FOLLOWS_IN_A_ROW:
                    # The table moved (or was taken over): watch it, and act, at its new node.
                    self.stub = self.state.stub_at(address)
                    self._moved()
                    self.follows += 1
                    stats.followed += 1
                    continue
                key = _error_reason(error)
                stats.stream_errors[key] = stats.stream_errors.get(key, 0) + 1
                if len(stats.error_samples) < 3:
                    late = time.monotonic() - self.table.window.end
                    stats.error_samples.append(f"{key} ({late:+.1f} s after the window)")
                await asyncio.sleep(0.2)
            finally:
                if opening:
                    self.state.opening.release()

    def _moved(self) -> None:
        """Start afresh at the table's new node: it numbers the table's changes from its own
        start, so the old node's sequences (and the table's arrivals of them) are forgotten."""
        table = self.table
        table.moved_at = min(table.moved_at, time.monotonic())
        self.node += 1
        if self.node > table.node:
            table.node = self.node
            table.dropped += sum(1 for sent in table.pending.values() if table.window.covers(sent))
            table.arrivals.clear()
            table.pending.clear()
        self.snapshot, self.sequence, self.act_from = None, -1, 0

    def _my_turn(self) -> bool:
        snap = self.snapshot
        return (
            snap is not None
            and snap.hand_in_progress
            and snap.turn_seat == self.seat
            and len(snap.legal_actions) > 0
            and self.sequence >= self.act_from
        )

    def _maybe_act(self) -> None:
        if not self.acting and not self.state.stopping and self._my_turn():
            self.acting = True
            task = asyncio.get_running_loop().create_task(self._act())
            self.state.tasks.add(task)
            task.add_done_callback(self.state.tasks.discard)

    async def _act(self) -> None:
        import grpc
        from stud.v1 import table_service_pb2

        stats = self.table.stats
        try:
            wait = self.table.due() - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if self.state.stopping or not self._my_turn():
                return
            snap = self.snapshot
            kind, amount = choose_action(snap.legal_actions, self.rng)
            request = table_service_pb2.ActRequest(
                table=self.table.name,
                hand_number=snap.hand_number,
                kind=kind,
                action_id=uuid.uuid4().hex,
            )
            if amount is not None:
                request.amount = amount
            seen, node = self.sequence, self.node
            sent = time.monotonic()
            self.table.last_sent = sent
            in_window = self.table.window.covers(sent)
            stats.acts_total += 1
            if in_window:
                stats.sent += 1
            try:
                response = await self.stub.Act(request, metadata=self.metadata, timeout=30)
            except grpc.aio.AioRpcError as error:
                if node == self.node:
                    self.act_from = max(self.act_from, seen + 1)
                key = _error_reason(error)
                stats.act_errors[key] = stats.act_errors.get(key, 0) + 1
                if in_window:
                    stats.errored += 1
                return
            done = time.monotonic()
            if in_window:
                stats.answered += 1
                stats.round_trips.append(done - sent)
                if sent > self.table.moved_at:
                    stats.answered_moved += 1
            if node == self.node == self.table.node:
                # (Else answered by the node the table has left: not the new node's sequence.)
                self.act_from = max(self.act_from, response.sequence)
                self.table.answered(response.sequence, sent)
        finally:
            self.acting = False
            # Updates that came while acting may have brought the turn back (a new street).
            self._maybe_act()


@dataclass
class _WorkerState:
    closing: bool = False
    stopping: bool = False
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    opening: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(OPENING))
    #: a channel per node tables moved to (address -> channel), shared by the seats there
    moved: dict[str, Any] = field(default_factory=dict)

    def stub_at(self, address: str) -> Any:
        """A TableService stub on the channel to ``address``, opened at its first use."""
        import grpc
        from stud.v1 import table_service_pb2_grpc

        channel = self.moved.get(address)
        if channel is None:
            channel = self.moved[address] = grpc.aio.insecure_channel(
                address, options=_grpc_options()
            )
        return table_service_pb2_grpc.TableServiceStub(channel)


@dataclass(frozen=True)
class WorkerSpec:
    """What a load process is given."""

    worker: int
    address: str
    table_ids: tuple[str, ...]
    pace: float
    seed: int
    loop: str = DEFAULT_LOOP


def _load_process(spec: WorkerSpec, control: Any, results: Any) -> None:
    """A load process: its tables' bots in one asyncio loop (``multiprocessing`` target)."""
    try:
        stats = run_in_loop(spec.loop, _load(spec, control, results))
        results.put(("done", spec.worker, asdict(stats)))
    except BaseException as error:  # report it rather than leave the parent waiting
        results.put(("failed", spec.worker, repr(error)))
        raise


async def _load(spec: WorkerSpec, control: Any, results: Any) -> WorkerStats:
    import grpc
    from stud.v1 import table_service_pb2_grpc

    from engine_server.auth import Scope, mint_token

    loop = asyncio.get_running_loop()
    stats = WorkerStats(worker=spec.worker, tables=len(spec.table_ids))
    window = _Window()
    state = _WorkerState()
    rng = random.Random(spec.seed * 1000 + spec.worker)
    count = max(1, math.ceil(len(spec.table_ids) / TABLES_PER_CHANNEL))
    channels = [
        grpc.aio.insecure_channel(spec.address, options=_grpc_options()) for _ in range(count)
    ]
    bots: list[_Bot] = []
    for index, table_id in enumerate(spec.table_ids):
        stub = table_service_pb2_grpc.TableServiceStub(channels[index // TABLES_PER_CHANNEL])
        table = _Table(f"tables/{table_id}", spec.pace, stats, window, rng)
        for seat in range(1, SEATS + 1):
            token = mint_token(SECRET, player_id(table_id, seat), [Scope.PLAYER])
            bots.append(_Bot(table, seat, stub, token, random.Random(rng.random()), state))
    watchers = [loop.create_task(bot.watch()) for bot in bots]
    try:
        ready = asyncio.gather(*(bot.ready.wait() for bot in bots))
        await asyncio.wait_for(ready, 60 + len(bots) / 50)
        results.put(("ready", spec.worker, None))
        # The bots' own collector pauses would count in the latencies they measure.
        collector = PacedCollector(CollectorPacing())
        collector.start()
        window.start, window.end = await loop.run_in_executor(None, control.get)
        await asyncio.sleep(max(0.0, window.start - time.monotonic()))
        cpu_start = time.process_time()
        await asyncio.sleep(max(0.0, window.end - time.monotonic()))
        stats.cpu_seconds = time.process_time() - cpu_start
        state.stopping = True
        # Let Acts in flight be answered and their updates reach every seat.
        deadline = time.monotonic() + SETTLE_SECONDS
        tables = {bot.table for bot in bots}
        while time.monotonic() < deadline and (state.tasks or any(t.pending for t in tables)):
            await asyncio.sleep(0.05)
        stats.incomplete = sum(
            1 for t in tables for sent in t.pending.values() if window.covers(sent)
        ) + sum(t.dropped for t in tables)
        stats.unanswered = stats.sent - stats.answered - stats.errored
        return stats
    finally:
        state.closing = True
        for bot in bots:
            if bot.call is not None:
                bot.call.cancel()
        for task in [*watchers, *state.tasks]:
            task.cancel()
        await asyncio.gather(*watchers, *state.tasks, return_exceptions=True)
        for channel in [*channels, *state.moved.values()]:
            await channel.close()


# --------------------------------------------------------------------------- load processes


def build_loadgen() -> Path:
    """Build the compiled load process unless it is up to date (``scripts/build-loadgen``);
    what the build prints goes to stderr (stdout is the result table's)."""
    build = subprocess.run(
        [str(ROOT / "scripts" / "build-loadgen")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    sys.stderr.write(build.stdout)
    if build.returncode != 0:
        raise RuntimeError(f"scripts/build-loadgen failed with exit code {build.returncode}")
    return LOADGEN


def _done_timeout(window_end: float | None) -> float:
    """How long to wait now for a load process's stats: until its window (ending at
    ``window_end``, ``time.monotonic``) has ended and settled, and a grace beyond.

    Counted from the window's end, not from the call: a caller collecting as the window opens
    (the recovery benchmark collects from the kill) gave up on any window longer than the
    grace, the process still measuring (``no 'done' event in 65 s`` for a 60 s window).

    >>> _done_timeout(time.monotonic() + 100) > 100 + SETTLE_SECONDS
    True
    >>> _done_timeout(time.monotonic() - 1000) == DONE_GRACE_SECONDS
    True
    """
    if window_end is None:
        raise RuntimeError("no window to collect: start_window was not called")
    until_settled = window_end + SETTLE_SECONDS - time.monotonic()
    return max(0.0, until_settled) + DONE_GRACE_SECONDS


class _PythonLoad:
    """``--bots python``: spawned ``multiprocessing`` processes running :func:`_load`."""

    def __init__(
        self, options: Options, address: str, table_ids: Sequence[str], first_worker: int = 0
    ) -> None:
        if options.transport != "unary":
            raise RuntimeError("the Python bots act by unary Act calls only (--act-over unary)")
        context = multiprocessing.get_context("spawn")
        self.results: Any = context.Queue()
        self.window_end: float | None = None
        self.controls: list[Any] = []
        self.processes: list[Any] = []
        count = options.processes
        for worker in range(count):
            control = context.Queue()
            spec = WorkerSpec(
                first_worker + worker,
                address,
                tuple(table_ids[worker::count]),
                options.pace,
                options.seed,
                options.loop,
            )
            process = context.Process(
                target=_load_process, args=(spec, control, self.results), daemon=True
            )
            process.start()
            self.controls.append(control)
            self.processes.append(process)

    def wait_ready(self) -> None:
        for _ in self.processes:
            kind, worker, detail = self.results.get(True, 600)
            if kind != "ready":
                raise RuntimeError(f"load process {worker} failed: {detail}")

    def start_window(self, start: float, end: float) -> None:
        for control in self.controls:
            control.put((start, end))
        self.window_end = end

    def collect(self) -> list[WorkerStats]:
        stats: list[WorkerStats] = []
        for _ in self.processes:
            kind, worker, detail = self.results.get(True, _done_timeout(self.window_end))
            if kind != "done":
                raise RuntimeError(f"load process {worker} failed: {detail}")
            stats.append(WorkerStats(**detail))
        return stats

    def stop(self) -> None:
        for process in self.processes:
            process.join(10)
            if process.is_alive():
                process.kill()


def _taskset() -> str:
    found = shutil.which("taskset")
    if found is None:
        raise RuntimeError("--pin needs taskset (Debian's util-linux) to start the load processes")
    return found


class _GoLoad:
    """``--bots go``: ``build/loadgen/stud-loadgen`` processes, told what to do in JSON lines.

    Each gets its tables and their seats' tokens (minted here), prints ``{"event": "ready"}``
    once every stream has its first message, is given the window as ``{"start_in", "length"}``
    and prints ``{"event": "done", "stats": {...}}`` (:class:`WorkerStats`' fields) after it;
    ``{"event": "failed", "detail": ...}`` when it cannot go on. See benchmarks/loadgen.
    """

    def __init__(
        self,
        options: Options,
        address: str,
        table_ids: Sequence[str],
        first_worker: int = 0,
        cpu: int | None = None,
    ) -> None:
        from engine_server.auth import Scope, mint_token

        if not LOADGEN.exists():
            raise RuntimeError(f"{LOADGEN} is missing: run scripts/build-loadgen")
        # taskset sets the CPU before the program starts: every thread of Go's runtime has it.
        command = [str(LOADGEN)] if cpu is None else [_taskset(), "-c", str(cpu), str(LOADGEN)]
        self.processes: list[subprocess.Popen[str]] = []
        self.window_end: float | None = None
        self.lines: list[queue.Queue[str | None]] = []
        count = options.processes
        try:
            for worker in range(count):
                tables = [
                    {
                        "name": f"tables/{table_id}",
                        "tokens": [
                            mint_token(SECRET, player_id(table_id, seat), [Scope.PLAYER])
                            for seat in range(1, SEATS + 1)
                        ],
                    }
                    for table_id in table_ids[worker::count]
                ]
                # stderr is ours: whatever the process says there reaches the console.
                process = subprocess.Popen(
                    command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
                )
                lines: queue.Queue[str | None] = queue.Queue()
                threading.Thread(
                    target=self._read, args=(process.stdout, lines), daemon=True
                ).start()
                self.processes.append(process)
                self.lines.append(lines)
                self._send(
                    worker,
                    {
                        "worker": first_worker + worker,
                        "address": address,
                        "pace": options.pace,
                        "seed": options.seed,
                        "tables_per_channel": TABLES_PER_CHANNEL,
                        "opening": OPENING,
                        "settle_seconds": SETTLE_SECONDS,
                        "aggression": AGGRESSION,
                        "transport": options.transport,
                        "tables": tables,
                    },
                )
        except BaseException:
            self.stop()
            raise

    @staticmethod
    def _read(stream: Any, lines: queue.Queue[str | None]) -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    def _send(self, worker: int, value: dict[str, Any]) -> None:
        process = self.processes[worker]
        assert process.stdin is not None
        try:
            process.stdin.write(json.dumps(value) + "\n")
            process.stdin.flush()
        except BrokenPipeError:
            raise RuntimeError(
                f"load process {worker} (stud-loadgen) exited with {process.wait()}"
            ) from None

    def _event(self, worker: int, expected: str, timeout: float) -> dict[str, Any]:
        try:
            line = self.lines[worker].get(True, timeout)
        except queue.Empty:
            raise RuntimeError(
                f"load process {worker} (stud-loadgen): no {expected!r} event in {timeout:g} s"
            ) from None
        if line is None:
            raise RuntimeError(
                f"load process {worker} (stud-loadgen) exited with "
                f"{self.processes[worker].wait()} before its {expected!r} event"
            )
        try:
            event: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError:
            raise RuntimeError(
                f"load process {worker} (stud-loadgen) printed {line.strip()!r}, not JSON"
            ) from None
        if event.get("event") != expected:
            raise RuntimeError(f"load process {worker} failed: {event.get('detail', event)}")
        return event

    def wait_ready(self) -> None:
        for worker in range(len(self.processes)):
            self._event(worker, "ready", 600)

    def start_window(self, start: float, end: float) -> None:
        for worker in range(len(self.processes)):
            self._send(worker, {"start_in": start - time.monotonic(), "length": end - start})
        self.window_end = end

    def collect(self) -> list[WorkerStats]:
        """Each process's stats, once it has measured its window (:func:`_done_timeout`)."""
        return [
            WorkerStats(**self._event(worker, "done", _done_timeout(self.window_end))["stats"])
            for worker in range(len(self.processes))
        ]

    def stop(self) -> None:
        for process in self.processes:
            # Closing stdin ends one still waiting for its window.
            with contextlib.suppress(OSError):
                assert process.stdin is not None
                process.stdin.close()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# --------------------------------------------------------------------------- the run


@dataclass
class LoadResult:
    """One run's figures."""

    tables: int
    seats: int
    pace: float
    seconds: float
    load_processes: int
    #: "go" (benchmarks/loadgen) or "python" load processes
    bots: str
    #: how the bots acted: "play" (on their Play streams) or "unary" (Act calls)
    act_over: str
    actions: int
    actions_per_second: float
    target_actions_per_second: float | None
    p50_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    act_p50_ms: float | None
    act_p99_ms: float | None
    measured: int
    incomplete: int
    unanswered: int
    act_errors: dict[str, int]
    stream_errors: dict[str, int]
    error_samples: list[str]
    updates_per_second: float
    engine_cpu_percent: float
    engine_cpu_ms_per_action: float | None
    load_cpu_percent: float
    load_cpu_ms_per_action: float | None
    load_average_before: tuple[float, float, float]
    load_average_after: tuple[float, float, float]
    rss_start_mib: float
    rss_warm_mib: float
    idle_tables: int
    rss_idle_mib: float | None
    idle_table_kib: float | None
    rss_loaded_mib: float
    engine_pid: int
    #: the 99.9th percentile of act -> last seat
    p999_ms: float | None = None
    #: every engine's RSS before the load's tables were created (after the idle ones)
    rss_before_load_mib: float = 0.0
    #: a busy table's memory: (RSS at the window's end - rss_before_load) / tables
    busy_table_kib: float = 0.0
    #: every engine's RSS with the tables seated and their streams open, before they resumed,
    #: and what play added to it per table by the window's end
    rss_streams_open_mib: float = 0.0
    playing_table_kib: float = 0.0
    #: (seconds since the tables resumed, every engine's RSS in MiB), every --rss-every
    rss_samples: list[tuple[float, float]] = field(default_factory=list)
    #: the RSS's least-squares slope after the warm-up, and from RSS_LATE_SECONDS on (KiB/min)
    rss_slope_kib_per_min: float | None = None
    rss_late_slope_kib_per_min: float | None = None
    #: the engines' own metrics over the window (_engine_pauses)
    engine_pauses: dict[str, float] = field(default_factory=dict)
    #: the full and thorough collections in the window, as the engines' metrics told them
    collections: list[Collection] = field(default_factory=list)
    loop: str = DEFAULT_LOOP
    #: engine processes (nodes), and each one's CPU in the window
    nodes: int = 1
    engine_cpu_percents: list[float] = field(default_factory=list)
    #: the CPU each engine node ran on (--pin), in node order; empty: any
    cpus: list[int] = field(default_factory=list)
    #: reference_ms() before the engines started, and its median during the window
    reference_ms_before: float | None = None
    reference_ms_window: float | None = None
    #: streams the bots opened again at the node an UNAVAILABLE / TABLE_MOVED named, and the
    #: acts answered in the window that were sent after their table's first follow
    followed: int = 0
    actions_moved: int = 0
    #: --move-tables-at: node-1's tables, those moved to node-2 by the window's end, and the
    #: seconds from the first move's start to the last hand-over
    tables_to_move: int = 0
    tables_moved: int = 0
    move_seconds: float | None = None
    #: --gateway: the bots called a stud gateway; its RSS before the tables, with their
    #: streams open, at the window's end; its memory per player stream at the end (RSS added
    #: since before the tables / streams); its CPU in the window
    gateway: bool = False
    gateway_rss_before_load_mib: float = 0.0
    gateway_rss_streams_open_mib: float = 0.0
    gateway_rss_loaded_mib: float = 0.0
    gateway_stream_kib: float = 0.0
    gateway_cpu_percent: float = 0.0


REFERENCE_ITERATIONS = 200_000


def reference_ms() -> float:
    """The CPU time, in ms, of a fixed pure-Python loop: how fast this machine runs code now.

    CPU time, not wall time: what other processes take of the cores does not count, but what
    makes each instruction slower does (other tenants of the host, caches shared with them).
    """
    started = time.process_time()
    total = 0
    for number in range(REFERENCE_ITERATIONS):
        total += number
    return (time.process_time() - started) * 1000


async def _sample_reference(until: float, every: float = 2.0) -> list[float]:
    """reference_ms() every ``every`` seconds until ``until`` (a 10 ms blip each time)."""
    samples = []
    while time.monotonic() < until:
        samples.append(reference_ms())
        await asyncio.sleep(every)
    return samples


async def _sample_rss(
    engines: Sequence[EngineProcess], began: float, until: float, every: float
) -> list[tuple[float, float]]:
    """The engines' RSS together (MiB) every ``every`` seconds and at ``until``, each with the
    seconds since ``began`` (the tables' resumption)."""
    samples = []
    while True:
        now = time.monotonic()
        samples.append((round(now - began, 1), sum(e.rss_bytes() for e in engines) / 2**20))
        if now >= until - 0.05:
            return samples
        await asyncio.sleep(min(every, until - now))


def rss_slope(samples: Sequence[tuple[float, float]], since: float) -> float | None:
    """The least-squares slope of the RSS ``samples`` (seconds, MiB) taken from ``since`` on,
    in KiB per minute; None with fewer than three.

    >>> rss_slope([(0, 100.0), (60, 101.0), (120, 102.0), (180, 103.0)], since=60)
    1024.0
    >>> rss_slope([(0, 100.0), (60, 101.0)], since=0) is None
    True
    """
    points = [(t, m) for t, m in samples if t >= since]
    if len(points) < 3:
        return None
    mean_t = statistics.fmean(t for t, _ in points)
    mean_m = statistics.fmean(m for _, m in points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    if not spread:
        return None
    slope = sum((t - mean_t) * (m - mean_m) for t, m in points) / spread
    return slope * 1024 * 60


#: seconds between two scrapes of the engines' metrics in the window: each scrape's growth of
#: the full collections' pauses is one collection's pause while they come further apart
COLLECTIONS_EVERY = 2.0

#: the engine's loop-lag buckets (seconds) whose counts the window reports (beats later)
LAG_BOUNDS = ("0.05", "0.1", "0.25")
#: why a heartbeat was late (the engine's ``cause`` label)
LAG_CAUSES = ("busy", "waiting")


#: the collector's kinds the window reports, by the ``generation`` label
#: (engine_server.collector: 2 full, 3 thorough)
COLLECTION_KINDS = {"2": "full", "3": "thorough"}


def _scrape(url: str) -> dict[tuple[str, str], float]:
    """The engine's loop-lag buckets and its full and thorough collections (their count,
    total pause and unreachable objects found): {(sample, le or what): value}."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    if not url:
        return {}
    with urllib.request.urlopen(url, timeout=10) as answer:
        text = answer.read().decode()
    found: dict[tuple[str, str], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            kind = COLLECTION_KINDS.get(sample.labels.get("generation", ""))
            if sample.name == "stud_engine_loop_lag_seconds_bucket":
                cause = sample.labels.get("cause", "")
                found[f"lag {cause}", sample.labels["le"]] = sample.value
            elif sample.name == "stud_engine_loop_lag_seconds_count":
                found[f"lag {sample.labels.get('cause', '')}", "count"] = sample.value
            elif kind and sample.name in (
                "stud_engine_gc_pause_seconds_count",
                "stud_engine_gc_pause_seconds_sum",
            ):
                found[kind, sample.name.rsplit("_", 1)[1]] = sample.value
            elif kind and sample.name == "stud_engine_gc_collected_total":
                found[kind, "found"] = sample.value
    return found


@dataclass(frozen=True)
class Collection:
    """Full (or thorough) collections one engine ran between two scrapes of its metrics."""

    node: int
    kind: str
    count: int
    #: their pauses together, and the unreachable objects they found
    seconds: float
    found: int

    @property
    def pause(self) -> float:
        """Each one's pause: exact for one collection, their mean for more."""
        return self.seconds / self.count


def collections_between(
    node: int, before: dict[tuple[str, str], float], after: dict[tuple[str, str], float]
) -> list[Collection]:
    """The full and thorough collections one engine's metrics counted between two scrapes.

    >>> collections_between(
    ...     1,
    ...     {("full", "count"): 3, ("full", "sum"): 0.5, ("full", "found"): 10},
    ...     {("full", "count"): 4, ("full", "sum"): 0.625, ("full", "found"): 130},
    ... )
    [Collection(node=1, kind='full', count=1, seconds=0.125, found=120)]
    """
    found = []
    for kind in COLLECTION_KINDS.values():
        count = after.get((kind, "count"), 0.0) - before.get((kind, "count"), 0.0)
        if count > 0:
            seconds = after.get((kind, "sum"), 0.0) - before.get((kind, "sum"), 0.0)
            objects = after.get((kind, "found"), 0.0) - before.get((kind, "found"), 0.0)
            found.append(Collection(node, kind, round(count), seconds, round(objects)))
    return found


async def _watch_collections(
    engines: Sequence[EngineProcess],
    first: Sequence[dict[tuple[str, str], float]],
    until: float,
    every: float = COLLECTIONS_EVERY,
) -> list[Collection]:
    """Each full or thorough collection of the engines from the scrapes ``first`` to
    ``until``, read from their metrics every ``every`` seconds: a collection's pause is the
    growth of the pauses' sum between two scrapes (exact when one fell between them)."""
    loop = asyncio.get_running_loop()
    last = list(first)
    seen: list[Collection] = []
    while True:
        now = time.monotonic()
        await asyncio.sleep(max(0.0, min(every, until - now)))
        for node, engine in enumerate(engines, start=1):
            try:
                scraped = await loop.run_in_executor(None, _scrape, engine.metrics_url)
            except OSError:
                # A stalled engine (a long pause) answers late: read it at the next round,
                # its collections since the last answer then count together.
                continue
            seen += collections_between(node, last[node - 1], scraped)
            last[node - 1] = scraped
        if time.monotonic() >= until - 0.05:
            return seen


def _engine_pauses(
    before: Sequence[dict[tuple[str, str], float]], after: Sequence[dict[tuple[str, str], float]]
) -> dict[str, float]:
    """What the engines' own metrics saw in the window: heartbeats (every 0.1 s) later than
    50, 100 and 250 ms, by cause (``busy``: the loop's own work; ``waiting``: for a core or
    the GIL), and full collections with their total pause."""

    def delta(key: tuple[str, str]) -> float:
        return sum(a.get(key, 0.0) - b.get(key, 0.0) for b, a in zip(before, after, strict=True))

    found = {"beats": 0.0}
    for cause in LAG_CAUSES:
        beats = delta((f"lag {cause}", "count"))
        found["beats"] += beats
        for bound in LAG_BOUNDS:
            over = beats - delta((f"lag {cause}", bound))
            found[f"lag_over_{int(float(bound) * 1000)}ms_{cause}"] = over
    for kind in COLLECTION_KINDS.values():
        found[f"{kind}_collections"] = delta((kind, "count"))
        found[f"{kind}_collection_seconds"] = delta((kind, "sum"))
        found[f"{kind}_collection_found"] = delta((kind, "found"))
    return found


def _percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (nearest rank), in milliseconds."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1] * 1000


def _merge(counters: Sequence[dict[str, int]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for counter in counters:
        total.update(counter)
    return dict(total)


def _profile(engine: EngineProcess, seconds: float, output: str) -> subprocess.Popen[bytes] | None:
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        print("--profile-engine: py-spy is not installed; no profile", file=sys.stderr)
        return None
    return subprocess.Popen(
        [
            *(spy, "record", "--pid", str(engine.pid), "--duration", str(max(1, int(seconds)))),
            *("--output", output, "--rate", "50", "--nonblocking"),
            # FILE.txt: collapsed stacks (one "frame;frame;... count" line each) for scripts
            *(("--format", "raw") if output.endswith(".txt") else ()),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def _drive(
    options: Options, engines: Sequence[EngineProcess], gateway: EngineProcess | None = None
) -> LoadResult:
    """Load ``engines`` (one per node), each with its share of the tables (through
    ``gateway`` when there is one)."""
    import grpc
    from stud.v1 import admin_service_pb2_grpc

    from engine_server.auth import Scope, mint_token

    mib = 1024 * 1024
    admin_md = (("authorization", "Bearer " + mint_token(SECRET, "bench-ops", [Scope.ADMIN])),)
    channels = [
        grpc.aio.insecure_channel(engine.address, options=_grpc_options()) for engine in engines
    ]
    admins = [admin_service_pb2_grpc.AdminServiceStub(channel) for channel in channels]
    first = engines[0]
    loads: list[_GoLoad | _PythonLoad] = []
    reference: asyncio.Task[list[float]] | None = None
    rss_task: asyncio.Task[list[tuple[float, float]]] | None = None
    watcher: asyncio.Task[list[Collection]] | None = None
    mover: asyncio.Task[None] | None = None
    #: --move-tables-at: seconds from the first move's start to each table's hand-over
    moved: list[float] = []
    shares: list[list[str]] = []
    try:
        rss_start = first.rss_bytes()
        # The first table loads code the others share: measure from after it.
        for index, admin in enumerate(admins):
            await create_tables(admin, admin_md, [f"warm-up-{index}"])
        await asyncio.sleep(0.5)
        rss_warm = first.rss_bytes()
        rss_idle = None
        if options.idle:
            idle_ids = [f"idle-{i:05d}" for i in range(options.idle)]
            began = time.monotonic()
            await create_tables(admins[0], admin_md, idle_ids)
            await asyncio.sleep(0.5)
            rss_idle = first.rss_bytes()
            _note(f"{options.idle} idle tables in {time.monotonic() - began:.1f} s")
        # The baseline of a busy table's memory: every engine before the load's tables exist.
        rss_before_load = sum(engine.rss_bytes() for engine in engines)
        gateway_before = gateway.rss_bytes() if gateway is not None else 0
        table_ids = [f"load-{i:05d}" for i in range(options.tables)]
        # Each node owns the tables created through it (ARCHITECTURE, "Growing past one
        # machine"); its bots call it directly, as the lobby's players are sent to it.
        shares = [table_ids[node :: len(engines)] for node in range(len(engines))]
        began = time.monotonic()
        await asyncio.gather(
            *(
                create_tables(admin, admin_md, share)
                for admin, share in zip(admins, shares, strict=True)
            )
        )
        _note(f"{options.tables} tables seated in {time.monotonic() - began:.1f} s")

        count = 0
        for node, (engine, share) in enumerate(zip(engines, shares, strict=True)):
            node_options = replace(options, tables=len(share))
            # Through the gateway, the bots call it for every node's tables.
            target = gateway.address if gateway is not None else engine.address
            if options.bots == "go":
                cpu = node_cpu(node) if options.pin else None
                loads.append(_GoLoad(node_options, target, share, count, cpu))
            else:
                loads.append(_PythonLoad(node_options, target, share, count))
            count += node_options.processes
        loop = asyncio.get_running_loop()
        began = time.monotonic()
        for load in loads:
            await loop.run_in_executor(None, load.wait_ready)
        _note(f"{options.tables * SEATS} streams open in {time.monotonic() - began:.1f} s")
        await asyncio.gather(
            *(
                resume_tables(admin, admin_md, share)
                for admin, share in zip(admins, shares, strict=True)
            )
        )
        # Seated and watched, no hand dealt yet: the baseline of the memory play itself takes.
        rss_streams_open = sum(engine.rss_bytes() for engine in engines)
        gateway_open = gateway.rss_bytes() if gateway is not None else 0
        resumed = time.monotonic()
        start = resumed + options.warmup
        end = start + options.seconds
        for load in loads:
            load.start_window(start, end)
        rss_task = asyncio.create_task(_sample_rss(engines, resumed, end, options.rss_every))
        _note(f"warming up {options.warmup:g} s, then measuring {options.seconds:g} s")
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        load_before = os.getloadavg()
        scraped_before = [await loop.run_in_executor(None, _scrape, e.metrics_url) for e in engines]
        reference = asyncio.create_task(_sample_reference(end - 1))
        watcher = asyncio.create_task(_watch_collections(engines, scraped_before, end))
        if options.move_tables_at is not None:
            mover = asyncio.create_task(
                _move_tables(admins[0], admin_md, shares[0], start + options.move_tables_at, moved)
            )
        cpu_before = [engine.cpu_seconds() for engine in engines]
        gateway_cpu_before = gateway.cpu_seconds() if gateway is not None else 0.0
        spy = (
            _profile(first, options.seconds, options.profile_engine)
            if options.profile_engine
            else None
        )
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        cpu_used = [engine.cpu_seconds() - b for engine, b in zip(engines, cpu_before, strict=True)]
        load_after = os.getloadavg()
        scraped_after = [await loop.run_in_executor(None, _scrape, e.metrics_url) for e in engines]
        rss_loaded = sum(engine.rss_bytes() for engine in engines)
        gateway_cpu = gateway.cpu_seconds() - gateway_cpu_before if gateway is not None else 0.0
        gateway_loaded = gateway.rss_bytes() if gateway is not None else 0
        rss_samples = await rss_task
        collections = await watcher
        reference_window = statistics.median(await reference)
        stats = [s for load in loads for s in await loop.run_in_executor(None, load.collect)]
        if mover is not None and not mover.done():
            # The bots have stopped: hands still running would never end, nor their moves.
            _note(f"{len(moved)} of {len(shares[0])} tables moved by the window's end")
            mover.cancel()
        if spy is not None:
            spy.wait(30)
    finally:
        if mover is not None:
            mover.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await mover
        if reference is not None and not reference.done():
            reference.cancel()
        if rss_task is not None and not rss_task.done():
            rss_task.cancel()
        if watcher is not None and not watcher.done():
            watcher.cancel()
        for load in loads:
            load.stop()
        for channel in channels:
            await channel.close()

    latencies = [x for s in stats for x in s.latencies]
    round_trips = [x for s in stats for x in s.round_trips]
    answered = sum(s.answered for s in stats)
    load_cpu = sum(s.cpu_seconds for s in stats)
    return LoadResult(
        tables=options.tables,
        seats=SEATS,
        pace=options.pace,
        seconds=options.seconds,
        load_processes=count,
        bots=options.bots,
        act_over=options.transport,
        actions=answered,
        actions_per_second=answered / options.seconds,
        target_actions_per_second=options.tables / options.pace if options.pace else None,
        p50_ms=_percentile(latencies, 50),
        p99_ms=_percentile(latencies, 99),
        p999_ms=_percentile(latencies, 99.9),
        max_ms=max(latencies) * 1000 if latencies else None,
        act_p50_ms=_percentile(round_trips, 50),
        act_p99_ms=_percentile(round_trips, 99),
        measured=len(latencies),
        incomplete=sum(s.incomplete for s in stats),
        unanswered=sum(s.unanswered for s in stats),
        act_errors=_merge([s.act_errors for s in stats]),
        stream_errors=_merge([s.stream_errors for s in stats]),
        error_samples=[x for s in stats for x in s.error_samples][:5],
        updates_per_second=sum(s.updates for s in stats) / options.seconds,
        engine_cpu_percent=100 * sum(cpu_used) / options.seconds,
        engine_cpu_ms_per_action=1000 * sum(cpu_used) / answered if answered else None,
        engine_cpu_percents=[100 * used / options.seconds for used in cpu_used],
        load_cpu_percent=100 * load_cpu / options.seconds,
        load_cpu_ms_per_action=1000 * load_cpu / answered if answered else None,
        load_average_before=load_before,
        load_average_after=load_after,
        rss_start_mib=rss_start / mib,
        rss_warm_mib=rss_warm / mib,
        idle_tables=options.idle,
        rss_idle_mib=rss_idle / mib if rss_idle is not None else None,
        idle_table_kib=(rss_idle - rss_warm) / 1024 / options.idle if rss_idle else None,
        rss_loaded_mib=rss_loaded / mib,
        rss_before_load_mib=rss_before_load / mib,
        busy_table_kib=(rss_loaded - rss_before_load) / 1024 / options.tables,
        rss_streams_open_mib=rss_streams_open / mib,
        playing_table_kib=(rss_loaded - rss_streams_open) / 1024 / options.tables,
        rss_samples=rss_samples,
        rss_slope_kib_per_min=rss_slope(rss_samples, options.warmup),
        rss_late_slope_kib_per_min=rss_slope(rss_samples, RSS_LATE_SECONDS),
        engine_pauses=_engine_pauses(scraped_before, scraped_after),
        collections=collections,
        engine_pid=first.pid,
        reference_ms_window=reference_window,
        loop=options.loop,
        nodes=len(engines),
        followed=sum(s.followed for s in stats),
        actions_moved=sum(s.answered_moved for s in stats),
        tables_to_move=len(shares[0]) if mover is not None else 0,
        tables_moved=len(moved),
        move_seconds=max(moved) if moved else None,
        gateway=gateway is not None,
        gateway_rss_before_load_mib=gateway_before / mib,
        gateway_rss_streams_open_mib=gateway_open / mib,
        gateway_rss_loaded_mib=gateway_loaded / mib,
        gateway_stream_kib=(gateway_loaded - gateway_before) / 1024 / (options.tables * SEATS),
        gateway_cpu_percent=100 * gateway_cpu / options.seconds,
    )


async def _move_tables(
    admin: Any, admin_md: Any, table_ids: Sequence[str], at: float, moved: list[float]
) -> None:
    """At monotonic ``at``, move each of ``table_ids`` (node-1's) to node-2, noting in
    ``moved`` the seconds from then to each hand-over (each waits for its table's running hand
    to end)."""
    from stud.v1 import admin_service_pb2

    await asyncio.sleep(max(0.0, at - time.monotonic()))
    began = time.monotonic()

    async def one(table_id: str) -> None:
        await admin.MoveTable(
            admin_service_pb2.MoveTableRequest(name=f"tables/{table_id}", node="node-2"),
            metadata=admin_md,
        )
        moved.append(time.monotonic() - began)

    # Many at once: each waits for its table's hand to end, which takes the bots' whole pace.
    await _bounded([lambda t=t: one(t) for t in table_ids], 64)  # type: ignore[misc]
    _note(f"{len(table_ids)} tables moved from node-1 to node-2 in {max(moved):.1f} s")


def _note(text: str) -> None:
    print(f"engine_load: {text}", file=sys.stderr, flush=True)


def run(options: Options) -> LoadResult:
    """Start the engines, load them as ``options`` say, stop them; returns the figures."""
    if options.bots == "go":
        build_loadgen()
    reference_before = statistics.median(reference_ms() for _ in range(5))
    with tempfile.TemporaryDirectory(prefix="stud-engine-load-") as directory:
        engines: list[EngineProcess] = []
        #: the gateway (--gateway), stopped with the engines
        engines_and_gateway: list[EngineProcess] = []
        gateway: EngineProcess | None = None
        try:
            for node in range(options.nodes):
                # One at a time: the first creates the database's schema.
                node_id = "main" if options.nodes == 1 else f"node-{node + 1}"
                engine = start_engine_process(
                    Path(directory),
                    options.between_hands,
                    options.loop,
                    node_id,
                    options.database_url,
                    node_cpu(node) if options.pin else None,
                )
                engines.append(engine)
                _note(f"engine {node_id} pid {engine.pid} on {engine.address}")
            if options.gateway:
                gateway = start_gateway_process(
                    Path(directory),
                    [e.address for e in engines],
                    options.loop,
                    node_cpu(options.nodes) if options.pin else None,
                )
                _note(f"gateway pid {gateway.pid} on {gateway.address}")
                engines_and_gateway.append(gateway)
            result = run_in_loop(
                options.loop, _drive(options, engines, gateway if options.gateway else None)
            )
            cpus = [node_cpu(node) for node in range(options.nodes)] if options.pin else []
            return replace(result, reference_ms_before=reference_before, cpus=cpus)
        except BaseException:
            for engine in [*engines, *engines_and_gateway]:
                with contextlib.suppress(OSError):
                    sys.stderr.write(engine.log_path.read_text()[-3000:])
            raise
        finally:
            for engine in [*engines_and_gateway, *engines]:
                engine.stop()


_TRANSPORT_NAMES = {"play": "Play", "unary": "unary Act"}


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _slope(value: float | None) -> str:
    return "-" if value is None else f"{value:+.0f}"


def _collections_row(pauses: dict[str, float], collections: Sequence[Collection]) -> str:
    """The full and thorough collections in the window, each one's pause, the longest.

    >>> print(_collections_row(
    ...     {"full_collections": 2, "full_collection_found": 70},
    ...     [Collection(1, "full", 1, 0.031, 40), Collection(2, "full", 1, 0.045, 30)],
    ... ))
    2 full (longest 45 ms; node 1 31 ms, node 2 45 ms; 70 unreachable objects found)
    """
    parts = []
    for kind in COLLECTION_KINDS.values():
        count = pauses.get(f"{kind}_collections", 0)
        if not count and kind != "full":
            continue
        mine = [c for c in collections if c.kind == kind]
        if not mine:
            parts.append(f"{count:.0f} {kind}")
            continue
        each = ", ".join(
            f"node {c.node} {1000 * c.pause:.0f} ms"
            + (f" (mean of {c.count})" if c.count > 1 else "")
            for c in mine
        )
        longest = 1000 * max(c.pause for c in mine)
        parts.append(
            f"{count:.0f} {kind} (longest {longest:.0f} ms; {each}; "
            f"{pauses.get(f'{kind}_collection_found', 0):.0f} unreachable objects found)"
        )
    return "; ".join(parts)


def format_result(result: LoadResult) -> str:
    """A compact text table of ``result``."""
    pace = "flat out" if not result.pace else f"{result.pace:g} s"
    target = (
        f" (target {result.target_actions_per_second:.0f})"
        if result.target_actions_per_second
        else ""
    )
    before = "/".join(f"{x:.2f}" for x in result.load_average_before)
    after = "/".join(f"{x:.2f}" for x in result.load_average_after)
    rows = [
        (
            "tables x seats",
            f"{result.tables} x {result.seats}"
            + (f" on {result.nodes} engine nodes" if result.nodes > 1 else ""),
        ),
        ("pace per table", pace),
        (
            "window",
            f"{result.seconds:g} s, {result.load_processes} load process(es) "
            f"({result.bots} bots, acts over {_TRANSPORT_NAMES[result.act_over]}), "
            f"{result.loop}"
            + (
                f", engine nodes pinned to CPU {','.join(map(str, result.cpus))}"
                if result.cpus
                else ""
            ),
        ),
        ("actions/s", f"{result.actions_per_second:.1f}{target}"),
        (
            "act -> last seat",
            f"p50 {_ms(result.p50_ms)} ms, p99 {_ms(result.p99_ms)} ms, "
            f"p99.9 {_ms(result.p999_ms)} ms, max {_ms(result.max_ms)} ms "
            f"({result.measured} measured)",
        ),
        ("act round trip", f"p50 {_ms(result.act_p50_ms)} ms, p99 {_ms(result.act_p99_ms)} ms"),
        (
            "not at all seats",
            f"{result.incomplete} (unanswered {result.unanswered}, "
            f"act errors {result.act_errors or 0}, stream errors {result.stream_errors or 0})",
        ),
        ("stream updates/s", f"{result.updates_per_second:.0f} (messages the bots received)"),
        (
            "CPU",
            f"engine {result.engine_cpu_percent:.0f}% "
            + (
                "(" + " + ".join(f"{p:.0f}%" for p in result.engine_cpu_percents) + " by node) "
                if result.nodes > 1
                else ""
            )
            + f"({_ms(result.engine_cpu_ms_per_action)} ms per action), "
            f"load processes {result.load_cpu_percent:.0f}% "
            f"({_ms(result.load_cpu_ms_per_action)} ms per action)",
        ),
        ("load average", f"{before} before, {after} after (1/5/15 min, 2 cores)"),
        (
            "machine speed",
            f"reference loop {_ms(result.reference_ms_before)} ms CPU before the run, "
            f"{_ms(result.reference_ms_window)} ms in the window (median; lower is faster)",
        ),
        (
            "engine RSS",
            f"{result.rss_start_mib:.1f} MiB at 0 tables, {result.rss_warm_mib:.1f} after 1, "
            f"{result.rss_loaded_mib:.1f} under load",
        ),
    ]
    pauses = result.engine_pauses
    if pauses:
        late = "; ".join(
            f"over {int(float(b) * 1000)} ms: "
            + " + ".join(
                f"{pauses.get(f'lag_over_{int(float(b) * 1000)}ms_{c}', 0):.0f} {c}"
                for c in LAG_CAUSES
            )
            for b in LAG_BOUNDS
        )
        rows.append(
            (
                "engine loop",
                f"{pauses['beats']:.0f} heartbeats (every 0.1 s) in the window, late {late}",
            )
        )
        rows.append(("collections", _collections_row(pauses, result.collections)))
    rows.append(
        (
            "busy table",
            f"{result.busy_table_kib:.1f} KiB each (RSS {result.rss_before_load_mib:.1f} MiB before "
            f"the {result.tables} tables, {result.rss_streams_open_mib:.1f} seated with their "
            f"streams open, {result.rss_loaded_mib:.1f} at the window's end); play itself "
            f"{result.playing_table_kib:.1f} KiB a table",
        )
    )
    rows.append(
        (
            "RSS slope",
            f"{_slope(result.rss_slope_kib_per_min)} KiB/min after the warm-up, "
            f"{_slope(result.rss_late_slope_kib_per_min)} from {RSS_LATE_SECONDS:g} s on",
        )
    )
    if result.rss_samples:
        # About one reading a minute (all of them in a short run).
        shown, last = [], -math.inf
        for seconds, mib in result.rss_samples:
            if seconds - last >= 60 or len(result.rss_samples) <= 12:
                shown.append(f"{seconds:.0f} s {mib:.0f}")
                last = seconds
        rows.append(("RSS over time", ", ".join(shown) + " MiB (from the tables' resumption)"))
    if result.gateway:
        rows.append(
            (
                "gateway",
                f"{result.gateway_stream_kib:.1f} KiB a player stream (RSS "
                f"{result.gateway_rss_before_load_mib:.1f} MiB before the tables, "
                f"{result.gateway_rss_streams_open_mib:.1f} with the "
                f"{result.tables * result.seats} streams open, "
                f"{result.gateway_rss_loaded_mib:.1f} at the window's end); CPU "
                f"{result.gateway_cpu_percent:.0f}% in the window",
            )
        )
    if result.idle_table_kib is not None:
        rows.append(
            (
                "idle table",
                f"{result.idle_table_kib:.1f} KiB each ({result.idle_tables} paused tables, "
                f"7 seated: {result.rss_warm_mib:.1f} -> {result.rss_idle_mib:.1f} MiB)",
            )
        )
    if result.tables_moved or result.followed:
        moved = (
            f"{result.tables_moved} of {result.tables_to_move} tables moved node-1 -> node-2 "
            f"in {result.move_seconds or 0:.1f} s (each after its running hand); "
            if result.tables_to_move
            else ""
        )
        rows.append(
            (
                "moved tables",
                f"{moved}streams followed to another node: {result.followed}, "
                f"{result.actions_moved} actions answered after their table's move",
            )
        )
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_options(argv)
    try:
        result = run(options)
    except RuntimeError as error:
        # What failed is said on stderr above (the engine's or the build's own words).
        print(f"engine_load: {error}", file=sys.stderr)
        return 1
    print(format_result(result))
    if options.json_path:
        Path(options.json_path).write_text(json.dumps(asdict(result), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
