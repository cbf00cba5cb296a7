"""A multi-table tournament under load (issue 14): two engine nodes, the lobby's director,
bots at every seat following their moves; the same number of cash tables beside it.

Run from the repository root::

    .venv/bin/python -m benchmarks.tournament --entrants 1000 --nodes 2 [--pin] \
        [--seconds 300] [--warmup 20] [--pace 1.0] [--cash-seconds 60] [--json FILE]

What it does, on one database (a private PostgreSQL server started here: ``initdb`` into a
temporary directory, ``pg_ctl`` on a free port, as tests/outage.py does, so the machine's
shared server and its connection limit are left alone; ``--postgres URL``: an empty database
of your own instead):

1. Starts ``--nodes`` ``stud engine`` processes on it (``--pin``: node i on CPU i, through
   ``STUD_ENGINE_CPUS``), as :mod:`benchmarks.engine_load` does.
2. **Cash phase** (``--cash-seconds``, 0: skipped): as many cash tables as the tournament will
   have (entrants / 7, rounded up), seven players each, dealt among the nodes, the same bots
   on them at the same pace; after ``--warmup`` seconds, each act is timed for
   ``--cash-seconds`` from sending it to the moment the last stream open at its table
   received the update carrying it (engine_load's method: the update whose sequence
   ``ActResponse`` names). The tables are then paused.
3. **Tournament phase**: starts ``stud lobby`` (its director's pass every
   ``STUD_LOBBY_SWEEP_SECONDS=1``); makes ``--entrants`` players with the lobby's own sign-up
   code in this process (``Accounts.register``: the player and his wallet's grant through
   the ledger; a cheap password hash, as log-in is not measured here), then registers each
   through the real API (``POST /tournaments/{id}/entries`` with an Idempotency-Key: buy-in
   and fee through the ledger) for a sit & go of that many players created with
   ``POST /admin/tournaments`` (tables of 7, levels of ``--hands-per-level`` hands); the
   registration that fills it starts it. Each player's bot waits until the director has
   seated him (read from the database), opens a ``WatchTable`` stream at his table and acts
   by ``Act`` calls on his turn, at ``--pace`` seconds per action per table; when moved it
   follows the ``PlayerMoved`` event's destination (the table and its node's address), and
   when out it leaves.
4. Reports the time from the start (``tournaments.started_at``) to every seat confirmed
   (``seated_at``) and to every table having dealt its first hand; then, after ``--warmup``
   seconds, for ``--seconds``: the act→last view latency (the same measure as the cash
   phase), the lobby process's CPU (the director: nobody else calls the lobby then) and
   the engines' CPU, each per hand ended at the tournament's tables in the window; and over
   the whole tournament phase the longest wait a table had between two hands (a hand's end
   to the next one's start at the same table: balancing, breaking and hand-for-hand holds
   show here), with the players' moves and busts counted.

All processes share the machine: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import pwd
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.engine_load import (
    SEATS,
    SECRET,
    EngineProcess,
    choose_action,
    create_tables,
    node_cpu,
    player_id,
    resume_tables,
    start_engine_process,
)
from benchmarks.processes import BlockingReadyProcess, start_stud_blocking
from engine_server.loops import DEFAULT_LOOP, run_in_loop

__all__ = [
    "LEVELS",
    "Latency",
    "Options",
    "PrivatePostgres",
    "Result",
    "TableWatch",
    "Window",
    "format_result",
    "main",
    "parse_options",
    "run",
]

PASSWORD = "tournament-benchmark-1"
#: Levels of a few hands each, steep enough that players bust and tables are balanced and
#: broken within minutes (ante, bring-in, small bet, big bet).
LEVELS: tuple[tuple[int, int, int, int], ...] = (
    (5, 10, 25, 50),
    (10, 20, 50, 100),
    (20, 40, 100, 200),
    (40, 80, 200, 400),
    (80, 160, 400, 800),
    (150, 300, 800, 1600),
    (300, 600, 1600, 3200),
    (600, 1200, 3200, 6400),
)
STARTING_CHIPS = 1500
TABLE_SIZE = 7
#: bots per gRPC channel (each channel one TCP connection)
BOTS_PER_CHANNEL = 100
#: concurrent registrations (each signs up: argon2id on the lobby's worker threads)
REGISTERING = 4
#: how often the driver reads where every player sits
DIRECTORY_SECONDS = 1.0
#: how often the tournament's progress is sampled (players, tables, moves pending)
SAMPLE_SECONDS = 15.0
#: a bot not (yet) seated where it looked tries again after this
RETRY_SECONDS = 0.2


# --------------------------------------------------------------------------- options


@dataclass(frozen=True)
class Options:
    entrants: int = 1000
    nodes: int = 2
    pin: bool = False
    seconds: float = 300.0
    warmup: float = 20.0
    pace: float = 1.0
    cash_seconds: float = 60.0
    hands_per_level: int = 3
    between_hands: float = 0.1
    postgres: str | None = None
    json_path: str | None = None
    seed: int = 7
    #: where the engines' and the lobby's logs are copied at the end (None: not kept)
    logs: str | None = None

    @property
    def tables(self) -> int:
        return math.ceil(self.entrants / TABLE_SIZE)


def parse_options(argv: Sequence[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.tournament",
        description="A multi-table tournament on engine nodes with bots; cash tables beside it.",
    )
    parser.add_argument("--entrants", type=int, default=1000, help="players (default 1000)")
    parser.add_argument("--nodes", type=int, default=2, help="engine processes (default 2)")
    parser.add_argument("--pin", action="store_true", help="engine node i on CPU i")
    parser.add_argument(
        "--seconds", type=float, default=300.0, help="tournament window (default 300)"
    )
    parser.add_argument(
        "--warmup", type=float, default=20.0, help="seconds before each window (default 20)"
    )
    parser.add_argument(
        "--pace", type=float, default=1.0, help="seconds between a table's actions (default 1)"
    )
    parser.add_argument(
        "--cash-seconds",
        type=float,
        default=60.0,
        help="the cash tables' window (default 60; 0: no cash phase)",
    )
    parser.add_argument(
        "--hands-per-level", type=int, default=3, help="hands each level lasts (default 3)"
    )
    parser.add_argument(
        "--between-hands", type=float, default=0.1, help="STUD_ENGINE_BETWEEN_HANDS (0.1)"
    )
    parser.add_argument(
        "--postgres",
        help="an empty PostgreSQL database to use (default: a private server started here)",
    )
    parser.add_argument("--json", dest="json_path", help="also write the result here as JSON")
    parser.add_argument("--seed", type=int, default=7, help="the bots' random seed")
    parser.add_argument("--logs", help="copy the engines' and the lobby's logs to this directory")
    args = parser.parse_args(argv)
    if args.entrants < 2 or not 1 <= args.nodes <= 8:
        parser.error("--entrants must be >= 2 and --nodes 1-8")
    if args.seconds <= 0 or args.warmup < 0 or args.pace < 0 or args.cash_seconds < 0:
        parser.error("--seconds must be > 0; --warmup, --pace and --cash-seconds >= 0")
    if args.hands_per_level < 1:
        parser.error("--hands-per-level must be >= 1")
    return Options(
        entrants=args.entrants,
        nodes=args.nodes,
        pin=args.pin,
        seconds=args.seconds,
        warmup=args.warmup,
        pace=args.pace,
        cash_seconds=args.cash_seconds,
        hands_per_level=args.hands_per_level,
        between_hands=args.between_hands,
        postgres=args.postgres,
        json_path=args.json_path,
        seed=args.seed,
        logs=args.logs,
    )


# --------------------------------------------------------------------------- processes


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PrivatePostgres:
    """A PostgreSQL server of the run's own (initdb, trust auth, loopback, fsync off):
    the machine's shared server keeps its connections for the others."""

    def __init__(self) -> None:
        pg_ctl = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")) or [
            Path(p) for p in [shutil.which("pg_ctl")] if p
        ]
        if not pg_ctl:
            raise RuntimeError("no PostgreSQL binaries (pg_ctl): pass --postgres URL")
        self._bin = pg_ctl[-1].parent
        self.port = _free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._root = Path(tempfile.mkdtemp(prefix="stud-tbench-pg-"))
        self._data = self._root / "data"
        self._log = self._root / "server.log"
        self._user: str | None = None
        if os.geteuid() == 0:
            # PostgreSQL refuses to run as root.
            self._user = "postgres"
            entry = pwd.getpwnam(self._user)
            os.chown(self._root, entry.pw_uid, entry.pw_gid)
        self._run("initdb", "-D", str(self._data), "-U", "postgres", "--auth=trust")
        with (self._data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"port = {self.port}\nlisten_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{self._root}'\nfsync = off\n"
                "max_connections = 200\nshared_buffers = 64MB\n"
            )
        self._run("pg_ctl", "-D", str(self._data), "-l", str(self._log), "-w", "start")

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self._bin / tool), *args]
        if self._user is not None:
            command = ["runuser", "-u", self._user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr}{done.stdout}")

    def destroy(self) -> None:
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self._run("pg_ctl", "-D", str(self._data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self._root, ignore_errors=True)


@contextlib.contextmanager
def _database(url: str | None) -> Iterator[str]:
    if url is not None:
        yield url
        return
    server = PrivatePostgres()
    try:
        yield server.url
    finally:
        server.destroy()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (every thread), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_lobby(url: str, engine: str, directory: Path) -> BlockingReadyProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
    env.update(
        STUD_JWT_SECRET=SECRET,
        STUD_LOG_LEVEL="WARNING",
        STUD_LOG_FORMAT="text",
        STUD_LOBBY_LOGIN_RATE="0",
        STUD_LOBBY_MONEY_RATE="0",
        STUD_LOBBY_SWEEP_SECONDS="1",
        STUD_LOBBY_DB_POOL="5",
    )
    where = ["--database-url", url, "--engine", engine]
    return start_stud_blocking(
        "lobby", "--port", "0", *where, env=env, ready_key="http", log=directory / "lobby.log"
    )


# --------------------------------------------------------------------------- the bots


@dataclass
class Latency:
    """Acts timed to the last stream open at their table (seconds), and what went wrong."""

    latencies: list[float] = field(default_factory=list)
    acts: int = 0
    incomplete: int = 0
    act_errors: dict[str, int] = field(default_factory=dict)
    stream_errors: dict[str, int] = field(default_factory=dict)

    def count(self, errors: dict[str, int], key: str) -> None:
        errors[key] = errors.get(key, 0) + 1


class Window:
    """The measured window, on ``time.monotonic``: nothing counts until it is set."""

    def __init__(self) -> None:
        self.start = math.inf
        self.end = math.inf

    def covers(self, moment: float) -> bool:
        return self.start <= moment < self.end


class TableWatch:
    """One table as its bots see it: the streams open there and the sequence each has had,
    the acts waiting for every stream to see their update, the table's pace."""

    def __init__(self, name: str, pace: float, rng: random.Random, window: Window) -> None:
        self.name = name
        self.pace = pace
        self.window = window
        self.last_sent = time.monotonic() - rng.uniform(0, pace)
        #: bot -> the latest sequence its stream received
        self.streams: dict[int, int] = {}
        #: answered acts whose update has not reached every stream yet: sequence -> sent at
        self.pending: dict[int, float] = {}
        #: (the sequence every open stream had received, when the last of them got it), the
        #: latest last: an act answered after its update reached everyone looks it up here
        self.reached: deque[tuple[int, float]] = deque(maxlen=64)
        self.last_arrival = 0.0
        self.latency: Latency | None = None

    def joined(self, bot: int, sequence: int) -> None:
        self.streams[bot] = sequence

    def left(self, bot: int) -> None:
        # The streams left have what they had when their last update came.
        self.streams.pop(bot, None)
        self._advance(self.last_arrival)

    def arrived(self, bot: int, sequence: int, moment: float) -> None:
        self.streams[bot] = sequence
        self.last_arrival = moment
        self._advance(moment)

    def answered(self, sequence: int, sent: float) -> None:
        for seen, when in self.reached:
            if seen >= sequence:
                self._measured(sent, when)
                return
        self.pending[sequence] = sent

    def _advance(self, moment: float) -> None:
        if not self.streams:
            return
        seen = min(self.streams.values())
        if not self.reached or seen > self.reached[-1][0]:
            self.reached.append((seen, moment))
        for sequence in [s for s in self.pending if s <= seen]:
            self._measured(self.pending.pop(sequence), moment)

    def _measured(self, sent: float, moment: float) -> None:
        if self.latency is not None and self.window.covers(sent):
            self.latency.latencies.append(max(0.0, moment - sent))


@dataclass
class _Seat:
    table: str
    address: str


class Fleet:
    """Every bot of a phase: the channels (per engine address), the tables' watches, the
    directory of where each tournament player sits (read from the database)."""

    def __init__(self, pace: float, seed: int) -> None:
        self.pace = pace
        self.rng = random.Random(seed)
        self.window = Window()
        self.latency = Latency()
        self.tables: dict[str, TableWatch] = {}
        self.channels: dict[tuple[str, int], Any] = {}
        self.stopping = False
        #: player id -> (status, seat or None while not seated)
        self.directory: dict[str, tuple[str, _Seat | None]] = {}
        self.moves = 0

    def watch(self, table: str) -> TableWatch:
        found = self.tables.get(table)
        if found is None:
            found = self.tables[table] = TableWatch(table, self.pace, self.rng, self.window)
            found.latency = self.latency
        return found

    def stub(self, address: str, bot: int) -> Any:
        import grpc
        from stud.v1 import table_service_pb2_grpc

        key = (address, bot // BOTS_PER_CHANNEL)
        channel = self.channels.get(key)
        if channel is None:
            channel = self.channels[key] = grpc.aio.insecure_channel(
                address,
                options=[
                    ("grpc.use_local_subchannel_pool", 1),
                    ("grpc.max_receive_message_length", 1 << 22),
                ],
            )
        return table_service_pb2_grpc.TableServiceStub(channel)

    async def close(self) -> None:
        for channel in self.channels.values():
            await channel.close()


def _reason(error: Any) -> str:
    from benchmarks.engine_load import _error_reason

    return _error_reason(error)


class Bot:
    """One player: a WatchTable stream at his table and an Act call on his turn; moved, he
    follows the PlayerMoved destination; out, he leaves."""

    def __init__(self, fleet: Fleet, number: int, player: str, token: str, rng: random.Random):
        self.fleet = fleet
        self.number = number
        self.player = player
        self.metadata = (("authorization", f"Bearer {token}"),)
        self.rng = rng
        self.snapshot: Any = None
        self.sequence = -1
        self.act_from = 0
        self.acting = False
        self.call: Any = None

    async def play(self, seat: _Seat | None) -> None:
        """Play at ``seat`` (None: wait for the directory to seat him) until out or stopped."""
        fleet = self.fleet
        while not fleet.stopping:
            status, known = fleet.directory.get(self.player, ("registered", None))
            if status in ("busted", "finished"):
                return
            if seat is None:
                seat = known
            if seat is None:
                await asyncio.sleep(RETRY_SECONDS)
                continue
            outcome = await self._stream(seat)
            if outcome == "out":
                return
            if isinstance(outcome, _Seat):
                fleet.moves += 1
                seat = outcome
                continue
            # Not seated where he looked (yet), or the stream failed: again, where the
            # director has seated him by then if the database says so.
            await asyncio.sleep(RETRY_SECONDS)
            seat = fleet.directory.get(self.player, ("", None))[1] or seat

    async def _stream(self, seat: _Seat) -> _Seat | str | None:
        import grpc
        from stud.v1 import table_service_pb2

        fleet = self.fleet
        stub = fleet.stub(seat.address, self.number)
        watch = fleet.watch(seat.table)
        self.snapshot = None
        self.sequence = -1
        self.act_from = 0
        destination: _Seat | None = None
        joined = False
        self.call = stub.WatchTable(
            table_service_pb2.WatchTableRequest(table=seat.table), metadata=self.metadata
        )
        try:
            async for message in self.call:
                now = time.monotonic()
                snap = message.snapshot
                if not joined:
                    if snap.viewer_seat == 0:
                        return None  # not seated here (yet), or out: look again
                    watch.joined(self.number, message.sequence)
                    joined = True
                for event in message.events:
                    if event.HasField("player_moved") and event.player_moved.player_id == (
                        self.player
                    ):
                        to = event.player_moved.destination
                        destination = _Seat(to.table, to.grpc_address or seat.address)
                    if (
                        event.HasField("player_busted")
                        and event.player_busted.player_id == self.player
                    ):
                        return "out"
                if message.events:
                    watch.arrived(self.number, message.sequence, now)
                self.snapshot = snap
                self.sequence = message.sequence
                self._maybe_act(stub, watch)
            return destination
        except grpc.aio.AioRpcError as error:
            if not fleet.stopping:
                fleet.latency.count(fleet.latency.stream_errors, _reason(error))
            return destination
        finally:
            self.call.cancel()
            if joined:
                watch.left(self.number)

    def _my_turn(self) -> bool:
        snap = self.snapshot
        return (
            snap is not None
            and snap.hand_in_progress
            and snap.turn_seat == snap.viewer_seat
            and len(snap.legal_actions) > 0
            and self.sequence >= self.act_from
        )

    def _maybe_act(self, stub: Any, watch: TableWatch) -> None:
        if not self.acting and not self.fleet.stopping and self._my_turn():
            self.acting = True
            asyncio.get_running_loop().create_task(self._act(stub, watch))

    async def _act(self, stub: Any, watch: TableWatch) -> None:
        import grpc
        from stud.v1 import table_service_pb2

        fleet = self.fleet
        try:
            wait = watch.last_sent + watch.pace - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if fleet.stopping or not self._my_turn():
                return
            snap = self.snapshot
            kind, amount = choose_action(snap.legal_actions, self.rng)
            request = table_service_pb2.ActRequest(
                table=watch.name,
                hand_number=snap.hand_number,
                kind=kind,
                action_id=uuid.uuid4().hex,
            )
            if amount is not None:
                request.amount = amount
            seen = self.sequence
            sent = time.monotonic()
            watch.last_sent = sent
            if fleet.window.covers(sent):
                fleet.latency.acts += 1
            try:
                response = await stub.Act(request, metadata=self.metadata, timeout=30)
            except grpc.aio.AioRpcError as error:
                self.act_from = max(self.act_from, seen + 1)
                if not fleet.stopping:
                    fleet.latency.count(fleet.latency.act_errors, _reason(error))
                return
            self.act_from = max(self.act_from, response.sequence)
            watch.answered(response.sequence, sent)
        finally:
            self.acting = False
            if self.call is not None and not self.call.done():
                self._maybe_act(stub, watch)


# --------------------------------------------------------------------------- the database


def _sync_engine(url: str) -> Any:
    import sqlalchemy as sa

    return sa.create_engine(url.replace("postgresql://", "postgresql+psycopg2://", 1))


def _query(db: Any, text: str, **params: Any) -> list[Any]:
    import sqlalchemy as sa

    with db.connect() as connection:
        return list(connection.execute(sa.text(text), params).all())


def _read_directory(db: Any, tournament_id: str) -> dict[str, tuple[str, _Seat | None]]:
    rows = _query(
        db,
        "SELECT e.player_id, e.status, e.table_id, e.seated_at IS NOT NULL AS seated, "
        "n.grpc_address FROM tournament_entries e "
        "LEFT JOIN tables t ON t.id = e.table_id "
        "LEFT JOIN engine_nodes n ON n.id = t.node_id "
        "WHERE e.tournament_id = :t",
        t=tournament_id,
    )
    found: dict[str, tuple[str, _Seat | None]] = {}
    for player, status, table_id, seated, address in rows:
        seat = _Seat(f"tables/{table_id}", address) if seated and address else None
        found[player] = (status, seat)
    return found


def _progress(db: Any, tournament_id: str) -> tuple[int, int, int, int, int]:
    """(players in, tables open, moves pending, seats not confirmed yet, level)."""
    row = _query(
        db,
        "SELECT (SELECT count(*) FROM tournament_entries WHERE tournament_id = :t "
        "AND status = 'playing'), "
        "(SELECT count(*) FROM tournament_tables WHERE tournament_id = :t AND status = 'open'), "
        "(SELECT count(*) FROM tournament_entries WHERE tournament_id = :t "
        "AND status = 'playing' AND move_from_session IS NOT NULL), "
        "(SELECT count(*) FROM tournament_entries WHERE tournament_id = :t "
        "AND status = 'playing' AND seated_at IS NULL), "
        "(SELECT current_level + 1 FROM tournaments WHERE id = :t)",
        t=tournament_id,
    )[0]
    return int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4])


# --------------------------------------------------------------------------- the phases


@dataclass
class PhaseFigures:
    """What one phase measured in its window."""

    tables: int
    seconds: float
    acts: int
    measured: int
    p50_ms: float | None
    p99_ms: float | None
    p999_ms: float | None
    max_ms: float | None
    incomplete: int
    act_errors: dict[str, int]
    stream_errors: dict[str, int]
    hands_ended: int
    engine_cpu_seconds: list[float]
    engine_cpu_ms_per_hand: float | None
    bots_cpu_seconds: float


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q / 100 * len(ordered))) - 1] * 1000


def _figures(
    fleet: Fleet,
    tables: int,
    seconds: float,
    hands: int,
    engine_cpu: list[float],
    bots_cpu: float,
) -> PhaseFigures:
    latency = fleet.latency
    values = latency.latencies
    return PhaseFigures(
        tables=tables,
        seconds=seconds,
        acts=latency.acts,
        measured=len(values),
        p50_ms=_percentile(values, 50),
        p99_ms=_percentile(values, 99),
        p999_ms=_percentile(values, 99.9),
        max_ms=max(values) * 1000 if values else None,
        incomplete=latency.acts - len(values),
        act_errors=latency.act_errors,
        stream_errors=latency.stream_errors,
        hands_ended=hands,
        engine_cpu_seconds=engine_cpu,
        engine_cpu_ms_per_hand=1000 * sum(engine_cpu) / hands if hands else None,
        bots_cpu_seconds=bots_cpu,
    )


def _hands_ended(db: Any, like: str, start: datetime, end: datetime) -> int:
    rows = _query(
        db,
        "SELECT count(*) FROM hands WHERE table_id LIKE :like AND ended_at >= :a AND ended_at < :b",
        like=like,
        a=start,
        b=end,
    )
    return int(rows[0][0])


async def _measure(
    fleet: Fleet,
    engines: Sequence[EngineProcess],
    warmup: float,
    seconds: float,
    lobby: int | None = None,
) -> tuple[datetime, datetime, list[float], float, float]:
    """Wait ``warmup``, then the window: (its UTC start and end, the engines' CPU, the bots'
    (this process's) CPU, the lobby's CPU (process ``lobby``; 0 without))."""
    await asyncio.sleep(warmup)
    fleet.window.start = time.monotonic()
    fleet.window.end = fleet.window.start + seconds
    began = datetime.now(UTC)
    engines_before = [cpu_seconds(e.pid) for e in engines]
    lobby_before = cpu_seconds(lobby) if lobby is not None else 0.0
    bots_before = time.process_time()
    await asyncio.sleep(seconds)
    engines_used = [cpu_seconds(e.pid) - b for e, b in zip(engines, engines_before, strict=True)]
    bots_used = time.process_time() - bots_before
    lobby_used = cpu_seconds(lobby) - lobby_before if lobby is not None else 0.0
    return began, datetime.now(UTC), engines_used, bots_used, lobby_used


async def cash_phase(options: Options, engines: Sequence[EngineProcess], db: Any) -> PhaseFigures:
    """As many cash tables as the tournament has, seven bots each, timed like the
    tournament's (see the module's docstring)."""
    import grpc
    from stud.v1 import admin_service_pb2, admin_service_pb2_grpc

    from engine_server.auth import Scope, mint_token

    admin_md = (("authorization", "Bearer " + mint_token(SECRET, "bench-ops", [Scope.ADMIN])),)
    channels = [grpc.aio.insecure_channel(e.address) for e in engines]
    admins = [admin_service_pb2_grpc.AdminServiceStub(c) for c in channels]
    ids = [f"cash-{i:04d}" for i in range(options.tables)]
    shares = [ids[n :: len(engines)] for n in range(len(engines))]
    fleet = Fleet(options.pace, options.seed)
    tasks: list[asyncio.Task[None]] = []
    try:
        await asyncio.gather(
            *(create_tables(a, admin_md, s) for a, s in zip(admins, shares, strict=True))
        )
        rng = random.Random(options.seed)
        number = 0
        for engine, share in zip(engines, shares, strict=True):
            for table_id in share:
                for seat in range(1, SEATS + 1):
                    player = player_id(table_id, seat)
                    token = mint_token(SECRET, player, [Scope.PLAYER])
                    bot = Bot(fleet, number, player, token, random.Random(rng.random()))
                    where = _Seat(f"tables/{table_id}", engine.address)
                    fleet.directory[player] = ("playing", where)
                    tasks.append(asyncio.create_task(bot.play(where)))
                    number += 1
        # Every stream open before the first hand (as engine_load does).
        deadline = time.monotonic() + 120
        while sum(len(w.streams) for w in fleet.tables.values()) < number:
            if time.monotonic() > deadline:
                raise RuntimeError("the cash tables' streams did not all open in 120 s")
            await asyncio.sleep(0.2)
        await asyncio.gather(
            *(resume_tables(a, admin_md, s) for a, s in zip(admins, shares, strict=True))
        )
        _note(f"cash phase: {options.tables} tables, {number} bots")
        began, ended, engine_cpu, bots_cpu, _lobby = await _measure(
            fleet, engines, options.warmup, options.cash_seconds
        )
        await asyncio.sleep(2)  # acts of the window's end reach their last stream
        hands = _hands_ended(db, "cash-%", began, ended)
        figures = _figures(fleet, options.tables, options.cash_seconds, hands, engine_cpu, bots_cpu)
        fleet.stopping = True
        for admin, share in zip(admins, shares, strict=True):
            for table_id in share:
                await admin.PauseTable(
                    admin_service_pb2.PauseTableRequest(
                        name=f"tables/{table_id}", reason="cash phase over"
                    ),
                    metadata=admin_md,
                    timeout=60,
                )
        return figures
    finally:
        fleet.stopping = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await fleet.close()
        for channel in channels:
            await channel.close()


@dataclass
class TournamentFigures:
    entrants: int
    tables: int
    #: seconds from the start (the filling registration) to every seat confirmed, and to
    #: every table having dealt its first hand
    seated_seconds: float | None
    all_dealing_seconds: float | None
    registration_seconds: float
    window: PhaseFigures
    lobby_cpu_seconds: float
    lobby_cpu_ms_per_hand: float | None
    load_average: list[float]
    #: between two hands at one table (its end to the next start), over the whole phase
    gaps: int
    gap_p50_s: float | None
    gap_p99_s: float | None
    gap_max_s: float | None
    gap_max_table: str | None
    gaps_over_2s: int
    #: at the end of the phase
    players_left: int
    tables_open: int
    level: int
    moves_followed: int
    hands_total: int
    phase_seconds: float
    #: every SAMPLE_SECONDS: (seconds into the phase, players in, tables open, moves
    #: pending, seats not confirmed, level)
    timeline: list[tuple[float, int, int, int, int, int]] = field(default_factory=list)


async def _sign_up(url: str, entrants: int) -> dict[str, tuple[str, str]]:
    """``entrants`` players made by the lobby's own sign-up (:class:`Accounts`: the player and
    his wallet's grant through the ledger) in this process, with a cheap password hash: the
    lobby's argon2id at 19 MiB costs ~0.5 s a player on this shared machine, and log-in is
    not what this measures. Player id -> (name, token)."""
    from argon2 import PasswordHasher, Type

    from engine_server.auth import Scope, mint_token
    from lobby_api.accounts.schemas import RegisterRequest
    from lobby_api.accounts.services import Accounts
    from lobby_api.db import Database

    db = Database.from_url(url, pool_size=REGISTERING, max_overflow=0)
    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1, type=Type.ID)
    accounts = Accounts(db, cheap, signup_grant=10_000)
    players: dict[str, tuple[str, str]] = {}
    numbers = iter(range(entrants))

    async def worker() -> None:
        for n in numbers:
            name = f"tb{n:05d}_{uuid.uuid4().hex[:6]}"
            player = await accounts.register(
                RegisterRequest(username=name, password=PASSWORD, city="oslo")
            )
            token = mint_token(SECRET, player.id, [Scope.PLAYER], name=name)
            players[player.id] = (name, token)

    try:
        await asyncio.gather(*(worker() for _ in range(REGISTERING)))
    finally:
        await db.dispose()
    return players


async def _register(base: str, tournament_id: str, players: dict[str, tuple[str, str]]) -> None:
    """Register every player through the real API (``POST /tournaments/{id}/entries`` with an
    Idempotency-Key: buy-in and fee through the ledger); the last one starts it."""
    import httpx

    tokens = iter([token for _name, token in players.values()])

    async def worker() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=120) as client:
            for token in tokens:
                entry = await client.post(
                    f"/tournaments/{tournament_id}/entries",
                    headers={
                        "Authorization": f"Bearer {token}",
                        "Idempotency-Key": uuid.uuid4().hex,
                    },
                )
                if entry.status_code != 201:
                    raise RuntimeError(f"POST entries: {entry.status_code} {entry.text}")

    await asyncio.gather(*(worker() for _ in range(REGISTERING)))


async def tournament_phase(
    options: Options, engines: Sequence[EngineProcess], db: Any, directory: Path, url: str
) -> TournamentFigures:
    import httpx

    from engine_server.auth import Scope, mint_token

    lobby = start_lobby(url, engines[0].address, directory)
    fleet = Fleet(options.pace, options.seed + 1)
    tasks: list[asyncio.Task[None]] = []
    poller: asyncio.Task[None] | None = None
    phase_began = time.monotonic()
    try:
        ops = {"Authorization": "Bearer " + mint_token(SECRET, "ops", [Scope.ADMIN])}
        levels = [
            {
                "ante": a,
                "bring_in": b,
                "small_bet": s,
                "big_bet": g,
                "hands": options.hands_per_level,
            }
            for a, b, s, g in LEVELS
        ]
        async with httpx.AsyncClient(base_url=lobby.ready["http"], timeout=60) as client:
            created = await client.post(
                "/admin/tournaments",
                headers=ops,
                json={
                    "name": f"Benchmark {options.entrants}",
                    "kind": "sit_and_go",
                    "buy_in": 100,
                    "fee": 10,
                    "starting_chips": STARTING_CHIPS,
                    "max_players": options.entrants,
                    "min_players": options.entrants,
                    "table_size": TABLE_SIZE,
                    "levels": levels,
                },
            )
            if created.status_code != 201:
                raise RuntimeError(f"POST /admin/tournaments: {created.status_code} {created.text}")
        tournament_id = created.json()["id"]

        timeline: list[tuple[float, int, int, int, int, int]] = []

        async def poll() -> None:
            last = -math.inf
            while True:
                fleet.directory = await asyncio.to_thread(_read_directory, db, tournament_id)
                if time.monotonic() - last >= SAMPLE_SECONDS:
                    last = time.monotonic()
                    row = await asyncio.to_thread(_progress, db, tournament_id)
                    timeline.append((round(last - phase_began, 1), *row))
                await asyncio.sleep(DIRECTORY_SECONDS)

        players = await _sign_up(url, options.entrants)
        registering = time.monotonic()
        await _register(lobby.ready["http"], tournament_id, players)
        registration_seconds = time.monotonic() - registering
        _note(f"{len(players)} players registered in {registration_seconds:.1f} s")
        poller = asyncio.create_task(poll())
        rng = random.Random(options.seed + 1)
        for number, (player, (_name, token)) in enumerate(sorted(players.items())):
            bot = Bot(fleet, number, player, token, random.Random(rng.random()))
            tasks.append(asyncio.create_task(bot.play(None)))

        # Seated: every seat confirmed, every table dealing.
        deadline = time.monotonic() + 600
        while True:
            row = _query(
                db,
                "SELECT started_at, seated_at FROM tournaments WHERE id = :t",
                t=tournament_id,
            )[0]
            started_at, seated_at = row
            dealing = _query(
                db,
                "SELECT count(*), max(first) FROM (SELECT min(h.started_at) AS first "
                "FROM tournament_tables tt JOIN hands h ON h.table_id = tt.table_id "
                "WHERE tt.tournament_id = :t GROUP BY tt.table_id) f",
                t=tournament_id,
            )[0]
            if seated_at is not None and int(dealing[0]) >= options.tables:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"not every table dealt in 600 s: {dealing[0]}")
            await asyncio.sleep(0.5)
        seated_seconds = (seated_at - started_at).total_seconds()
        all_dealing = (dealing[1] - started_at).total_seconds()
        _note(
            f"tournament started; seated in {seated_seconds:.1f} s, "
            f"all {options.tables} tables dealing after {all_dealing:.1f} s"
        )

        load = list(os.getloadavg())
        began, ended, engine_cpu, bots_cpu, window_lobby = await _measure(
            fleet, engines, options.warmup, options.seconds, lobby.pid
        )
        await asyncio.sleep(2)
        like = f"{tournament_id}-%"
        hands = _hands_ended(db, like, began, ended)
        figures = _figures(fleet, options.tables, options.seconds, hands, engine_cpu, bots_cpu)
        load += list(os.getloadavg())
        fleet.stopping = True

        gaps_rows = _query(
            db,
            "SELECT table_id, hand_number, started_at, ended_at FROM hands "
            "WHERE table_id LIKE :like ORDER BY table_id, hand_number",
            like=like,
        )
        gaps: list[tuple[float, str]] = []
        previous: dict[str, Any] = {}
        for table_id, _number, started, ended_at in gaps_rows:
            last = previous.get(table_id)
            if last is not None:
                gaps.append(((started - last).total_seconds(), table_id))
            previous[table_id] = ended_at
            if ended_at is None:
                previous.pop(table_id)
        values = sorted(g for g, _ in gaps)
        worst = max(gaps, default=None)
        state = _query(
            db,
            "SELECT current_level, "
            "(SELECT count(*) FROM tournament_entries WHERE tournament_id = :t "
            "AND status = 'playing'), "
            "(SELECT count(*) FROM tournament_tables WHERE tournament_id = :t "
            "AND status = 'open') FROM tournaments WHERE id = :t",
            t=tournament_id,
        )[0]
        return TournamentFigures(
            entrants=options.entrants,
            tables=options.tables,
            seated_seconds=seated_seconds,
            all_dealing_seconds=all_dealing,
            registration_seconds=registration_seconds,
            window=figures,
            lobby_cpu_seconds=window_lobby,
            lobby_cpu_ms_per_hand=1000 * window_lobby / hands if hands else None,
            load_average=load,
            gaps=len(values),
            gap_p50_s=statistics.median(values) if values else None,
            gap_p99_s=values[max(0, math.ceil(0.99 * len(values)) - 1)] if values else None,
            gap_max_s=worst[0] if worst else None,
            gap_max_table=worst[1] if worst else None,
            gaps_over_2s=sum(1 for g in values if g > 2),
            players_left=int(state[1]),
            tables_open=int(state[2]),
            level=int(state[0]) + 1,
            moves_followed=fleet.moves,
            hands_total=len(gaps_rows),
            phase_seconds=time.monotonic() - phase_began,
            timeline=timeline,
        )
    finally:
        fleet.stopping = True
        if poller is not None:
            poller.cancel()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await fleet.close()
        lobby.stop(timeout=20)


@dataclass
class Result:
    options: dict[str, Any]
    cash: PhaseFigures | None
    tournament: TournamentFigures
    load_average_before: list[float]
    load_average_after: list[float]
    when: str


def run(options: Options) -> Result:
    before = list(os.getloadavg())
    when = datetime.now(UTC).isoformat(timespec="seconds")
    with (
        tempfile.TemporaryDirectory(prefix="stud-tbench-") as directory,
        _database(options.postgres) as url,
    ):
        engines: list[EngineProcess] = []
        db = _sync_engine(url)
        try:
            for node in range(options.nodes):
                # One at a time: the first creates the schema.
                engines.append(
                    start_engine_process(
                        Path(directory),
                        options.between_hands,
                        DEFAULT_LOOP,
                        f"node-{node + 1}",
                        url,
                        node_cpu(node) if options.pin else None,
                    )
                )
            _note(f"{len(engines)} engine nodes on {url}")

            async def phases() -> tuple[PhaseFigures | None, TournamentFigures]:
                cash = None
                if options.cash_seconds > 0:
                    cash = await cash_phase(options, engines, db)
                tournament = await tournament_phase(options, engines, db, Path(directory), url)
                return cash, tournament

            cash, tournament = run_in_loop(DEFAULT_LOOP, phases())
        except BaseException:
            for engine in engines:
                with contextlib.suppress(OSError):
                    sys.stderr.write(engine.log_path.read_text()[-2000:])
            with contextlib.suppress(OSError):
                sys.stderr.write((Path(directory) / "lobby.log").read_text()[-3000:])
            raise
        finally:
            for engine in engines:
                engine.stop()
            db.dispose()
            if options.logs:
                Path(options.logs).mkdir(parents=True, exist_ok=True)
                for log in Path(directory).glob("*.log"):
                    shutil.copy(log, Path(options.logs) / log.name)
    return Result(asdict(options), cash, tournament, before, list(os.getloadavg()), when)


def _note(text: str) -> None:
    print(f"tournament: {text}", file=sys.stderr, flush=True)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _phase_rows(name: str, f: PhaseFigures) -> list[tuple[str, str]]:
    return [
        (
            f"{name}: act -> last view",
            f"p50 {_ms(f.p50_ms)} ms, p99 {_ms(f.p99_ms)} ms, p99.9 {_ms(f.p999_ms)} ms, "
            f"max {_ms(f.max_ms)} ms ({f.measured} of {f.acts} acts measured, "
            f"{f.acts / f.seconds:.1f} acts/s)",
        ),
        (
            f"{name}: errors",
            f"acts {f.act_errors or 0}, streams {f.stream_errors or 0}",
        ),
        (
            f"{name}: engines' CPU",
            " + ".join(f"{c:.1f}" for c in f.engine_cpu_seconds)
            + f" s in {f.seconds:g} s; {f.hands_ended} hands ended: "
            f"{_ms(f.engine_cpu_ms_per_hand)} ms per hand end; bots {f.bots_cpu_seconds:.1f} s",
        ),
    ]


def format_result(result: Result) -> str:
    t = result.tournament
    rows: list[tuple[str, str]] = [
        (
            "run",
            f"{result.when}, {result.options['nodes']} engine nodes"
            + (" pinned" if result.options["pin"] else "")
            + f", pace {result.options['pace']:g} s per action per table",
        ),
        (
            "tournament",
            f"{t.entrants} entrants, {t.tables} tables of {TABLE_SIZE}; signed up "
            f"in-process, registered through the API in {t.registration_seconds:.1f} s",
        ),
        (
            "start -> all seated",
            f"{_ms(t.seated_seconds and t.seated_seconds)} s (seat "
            f"confirmations); every table dealing after {_ms(t.all_dealing_seconds)} s",
        ),
    ]
    if result.cash is not None:
        rows += _phase_rows(f"cash ({result.cash.tables} tables)", result.cash)
    rows += _phase_rows("tournament", t.window)
    rows += [
        (
            "director (lobby) CPU",
            f"{t.lobby_cpu_seconds:.1f} s in {t.window.seconds:g} s: "
            f"{_ms(t.lobby_cpu_ms_per_hand)} ms per hand end "
            f"(engines {_ms(t.window.engine_cpu_ms_per_hand)} ms)",
        ),
        (
            "between hands",
            f"{t.gaps} gaps: median {_ms(t.gap_p50_s)} s, p99 {_ms(t.gap_p99_s)} s, "
            f"longest {_ms(t.gap_max_s)} s ({t.gap_max_table}); {t.gaps_over_2s} over 2 s",
        ),
        (
            "at the end",
            f"{t.players_left} players left at {t.tables_open} tables, level {t.level}, "
            f"{t.hands_total} hands, {t.moves_followed} moves followed by the bots, "
            f"phase {t.phase_seconds:.0f} s",
        ),
        (
            "load average",
            "/".join(f"{x:.2f}" for x in result.load_average_before)
            + " before, "
            + "/".join(f"{x:.2f}" for x in result.load_average_after)
            + " after (1/5/15 min)",
        ),
    ]
    width = max(len(name) for name, _ in rows)
    lines = [f"{name:<{width}}  {value}" for name, value in rows]
    if t.timeline:
        lines.append("progress (s into the phase: players in / tables open / moves pending / ")
        lines.append("  seats unconfirmed / level):")
        lines += [
            "  " + ", ".join(f"{at:g}s {p}/{o}/{m}/{u}/L{lv}" for at, p, o, m, u, lv in chunk)
            for chunk in (t.timeline[i : i + 4] for i in range(0, len(t.timeline), 4))
        ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_options(argv)
    try:
        result = run(options)
    except RuntimeError as error:
        print(f"tournament: {error}", file=sys.stderr)
        return 1
    print(format_result(result))
    if options.json_path:
        Path(options.json_path).write_text(json.dumps(asdict(result), indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
