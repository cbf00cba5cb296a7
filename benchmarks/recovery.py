"""Recovery after an engine node's death: from ``kill -9`` to its tables dealing again, and
what the takeover costs the tables of the nodes that survive.

Run from the repository root::

    .venv/bin/python -m benchmarks.recovery [--tables 10 100 500] [--lease 5] [--pin] \
        [--survivor-tables 20] [--pace 2.0] [--steady 10] [--postgres URL] \
        [--adopt-rounds 10 25 50 100] [--runs 3]

For each count N: three ``stud engine`` processes (nodes ``a``, ``b``, ``c``; ``--pin``: ``a``
and ``c`` on CPU 0, ``b`` on CPU 1, as the load benchmark pins its nodes) on one PostgreSQL
database. The database is a PostgreSQL server of the run's own (``initdb`` into a temporary
directory, a free port, ``max_connections`` 200: three engines' pools and their lease
connections need some 50, which a shared server may not have free), or, with
``--postgres URL``, a database created (and dropped) on that server.

- ``c`` gets N tables, two players at each, dealt by a ``--clock`` second clock acting for them
  (so hands are running when ``c`` dies);
- ``a`` and ``b`` get ``--survivor-tables`` tables each with seven players, played by the load
  benchmark's bots (``build/loadgen/stud-loadgen``, over Play streams, an action per table every
  ``--pace`` seconds: a human-ish pace), which time every action from sending it to the moment
  the last of the table's seven streams has it (*act → last view*).

First the bots play ``--steady`` seconds: the steady state. Then a second set of the same bots
(the first stops: a seat has one Play stream at a time) is measured from the moment ``c`` is
killed (SIGKILL, once each of its tables has dealt) for ``--lease`` + ``--after`` seconds: the
survivors notice the dead node, take its tables over, load them and deal them. It reports,
from the kill: when ``c`` was retired (its lease ran out and a live node took its tables), and
for each of ``c``'s tables when its next hand started at its new owner (the hands'
``started_at``, the engines' clock; this machine's one clock): the first, the median, the p99
and the last, how the tables were spread; and the survivors' act → last view p50 / p99 / max
in the steady window and in the takeover window, side by side. The nodes' logs go to
``$STUD_BENCH_LOGS/recovery-{node}.log`` (default ``/tmp``).

``--adopt-rounds``: the survivors' ``STUD_ENGINE_ADOPT_ROUND`` (tables loaded per round of
the takeover), one run per size and table count; ``--runs``: that many times, each time the
sizes in another order (so a busy spell of a shared host does not fall on one size), then
one ``"summary"`` line per (table count, size) with the medians of the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import statistics
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc
import psycopg2
import sqlalchemy as sa
from google.protobuf import struct_pb2
from sqlalchemy.engine import make_url
from stud.v1 import admin_service_pb2, admin_service_pb2_grpc, settings_pb2

from benchmarks import engine_load
from benchmarks.processes import ReadyProcess, start_stud
from engine_server.auth import Scope, mint_token
from engine_server.store.database import create_engine_for

__all__ = ["main"]

#: the load benchmark's secret: its bots' tokens (minted by engine_load) must be valid here
SECRET = engine_load.SECRET
ADMIN = (
    ("authorization", "Bearer " + mint_token(SECRET, "bench", [Scope.ADMIN], ttl_seconds=3600)),
)


@contextlib.contextmanager
def database(admin_url: str | None) -> Iterator[str]:
    """A database of the run's own: on a private server (``admin_url`` None), else created
    on the server ``admin_url`` names (and dropped after)."""
    if admin_url is None:
        # The test suite's private server (initdb, pg_ctl; run as ``postgres`` under root).
        from tests.outage import PrivatePostgres

        server = PrivatePostgres()
        try:
            server.start()
            yield server.url
        finally:
            server.destroy()
        return
    admin = psycopg2.connect(admin_url, connect_timeout=3)
    admin.autocommit = True
    name = f"stud_bench_recovery_{os.getpid()}_{secrets.token_hex(3)}"
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@contextlib.asynccontextmanager
async def engine(
    url: str, node: str, lease: float, cpu: int | None, adopt_round: int | None = None
) -> AsyncIterator[tuple[ReadyProcess, Any, str]]:
    env = {
        **os.environ,
        **({} if adopt_round is None else {"STUD_ENGINE_ADOPT_ROUND": str(adopt_round)}),
        "STUD_DATABASE_URL": url,
        "STUD_JWT_SECRET": SECRET,
        "STUD_ENGINE_HOST": "127.0.0.1",
        "STUD_ENGINE_METRICS_PORT": "0",
        "STUD_ENGINE_NODE_ID": node,
        "STUD_ENGINE_LEASE_SECONDS": str(lease),
        "STUD_ENGINE_BETWEEN_HANDS": "0.2",
        # The run's end stops the survivors one by one: no need to move hundreds of tables
        # from one to the next first (what a clean stop with other nodes live does).
        "STUD_ENGINE_STOP_MOVES_TABLES": "0",
        "STUD_ENGINE_CPUS": "" if cpu is None else str(cpu),
        "STUD_LOG_FORMAT": "text",
        "STUD_LOG_LEVEL": "WARNING",
    }
    # Each node's log (why a node stopped, if one does) in STUD_BENCH_LOGS (default /tmp),
    # made if it is not there yet.
    logs = Path(os.environ.get("STUD_BENCH_LOGS", "/tmp"))
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / f"recovery-{node}.log"
    process = await start_stud(
        "engine", "--grpc-port", "0", "--web-port", "0", env=env, ready_key="grpc", log=log
    )
    try:
        channel = grpc.aio.insecure_channel(process.ready["grpc"])
        try:
            yield process, admin_service_pb2_grpc.AdminServiceStub(channel), process.ready["grpc"]
        finally:
            await channel.close()
    finally:
        await process.stop()


async def open_dying_tables(admin: Any, prefix: str, count: int, clock: float) -> list[str]:
    """``count`` tables, two players at each, dealt by a ``clock`` second clock. Each is paused
    until all are seated, then they are resumed twenty a second: tables dealing while the
    others were created starved the node (at 500 tables its setup took longer than the run)."""
    overrides = struct_pb2.Struct()
    overrides.update({"action_seconds": clock})

    async def one(n: int) -> str:
        table_id = f"{prefix}{n}"
        await admin.CreateTable(
            admin_service_pb2.CreateTableRequest(
                request_id=f"create-{table_id}",
                table_id=table_id,
                profile="house",
                rule_overrides=overrides,
                stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
                min_buy_in=10,
                max_buy_in=100_000,
                client_seed="bench",
            ),
            metadata=ADMIN,
            timeout=60,
        )
        await admin.PauseTable(
            admin_service_pb2.PauseTableRequest(name=f"tables/{table_id}", reason="setup"),
            metadata=ADMIN,
            timeout=60,
        )
        for seat in (1, 2):
            await admin.SeatPlayer(
                admin_service_pb2.SeatPlayerRequest(
                    table=f"tables/{table_id}",
                    seat_session_id=f"ss-{table_id}-{seat}",
                    player_id=f"{table_id}-p{seat}",
                    display_name=f"P{seat}",
                    seat=seat,
                    buy_in=10_000,
                ),
                metadata=ADMIN,
                timeout=60,
            )
        return table_id

    made: list[str] = []
    # A few at a time: a burst of writes on this loaded machine would delay the node's own
    # lease renewals.
    for start in range(0, count, 5):
        made += await asyncio.gather(*(one(n) for n in range(start, min(start + 5, count))))

    async def resume(table_id: str) -> None:
        for attempt in range(3):
            try:
                await admin.ResumeTable(
                    admin_service_pb2.ResumeTableRequest(name=f"tables/{table_id}"),
                    metadata=ADMIN,
                    timeout=60,
                )
                return
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                    return  # not paused: an attempt that failed on the way got through
                # A node whose database pool is exhausted says so (UNAVAILABLE, "try again in
                # a few seconds").
                if error.code() != grpc.StatusCode.UNAVAILABLE or attempt == 2:
                    raise
                await asyncio.sleep(5.0)

    # Dealt twenty tables a second: 500 first hands at once saturated the node and the
    # database (its pool waited 30 s, its lease ran out) on this shared machine.
    for start in range(0, count, 20):
        await asyncio.gather(*(resume(t) for t in made[start : start + 20]))
        await asyncio.sleep(1.0)
    return made


async def query(url: str, text: str, **params: Any) -> list[Any]:
    statement = sa.text(text).bindparams(
        *(sa.bindparam(k, expanding=True) for k, v in params.items() if isinstance(v, list))
    )
    engine_ = create_engine_for(url, null_pool=True)
    try:
        async with engine_.connect() as connection:
            return list((await connection.execute(statement, params)).all())
    finally:
        await engine_.dispose()


def latency(stats: Sequence[engine_load.WorkerStats]) -> dict[str, Any]:
    """act → last view of a window: p50 / p99 / max (ms), how many measured, what failed."""
    values = [x for s in stats for x in s.latencies]
    rounded = {
        "p50_ms": engine_load._percentile(values, 50),
        "p99_ms": engine_load._percentile(values, 99),
        "max_ms": max(values) * 1000 if values else None,
    }
    return {
        **{k: None if v is None else round(v, 1) for k, v in rounded.items()},
        "measured": len(values),
        "incomplete": sum(s.incomplete for s in stats),
        "act_errors": engine_load._merge([s.act_errors for s in stats]),
        "stream_errors": engine_load._merge([s.stream_errors for s in stats]),
    }


class Bots:
    """The load benchmark's Go bots on the survivors' tables (one process per node), for one
    measured window."""

    def __init__(
        self, options: engine_load.Options, nodes: Sequence[tuple[str, list[str]]], pin: bool
    ) -> None:
        self.loads: list[engine_load._GoLoad] = []
        try:
            for index, (address, tables) in enumerate(nodes):
                cpu = engine_load.node_cpu(index) if pin else None
                node_options = replace(options, tables=len(tables), load_processes=1)
                self.loads.append(engine_load._GoLoad(node_options, address, tables, index, cpu))
        except BaseException:
            self.stop()
            raise

    async def ready(self) -> None:
        for load in self.loads:
            await asyncio.to_thread(load.wait_ready)

    def window(self, start: float, end: float) -> None:
        """Measure from ``start`` to ``end`` (``time.monotonic``)."""
        for load in self.loads:
            load.start_window(start, end)

    async def collect(self) -> list[engine_load.WorkerStats]:
        stats: list[engine_load.WorkerStats] = []
        for load in self.loads:
            stats += await asyncio.to_thread(load.collect)
        return stats

    def stop(self) -> None:
        for load in self.loads:
            load.stop()


async def one_run(
    admin_url: str | None, tables: int, adopt_round: int | None, args: argparse.Namespace
) -> dict[str, Any]:
    """One run at ``tables`` tables on ``c``; ``adopt_round``: the survivors' round size (None:
    their default)."""
    lease: float = args.lease
    pin: bool = args.pin
    load_options = engine_load.Options(pace=args.pace, seed=7, bots="go", act_over="play")
    with database(admin_url) as url:
        async with (
            engine(url, "a", lease, 0 if pin else None, adopt_round) as (_, a, a_address),
            engine(url, "b", lease, 1 if pin else None, adopt_round) as (_, b, b_address),
            engine(url, "c", lease, 0 if pin else None) as (dying, c, _),
        ):
            survivors = {
                "a": [f"a-{n}" for n in range(args.survivor_tables)],
                "b": [f"b-{n}" for n in range(args.survivor_tables)],
            }
            await engine_load.create_tables(a, ADMIN, survivors["a"])
            await engine_load.create_tables(b, ADMIN, survivors["b"])
            mine = await open_dying_tables(c, "c-", tables, args.clock)
            nodes = [(a_address, survivors["a"]), (b_address, survivors["b"])]

            # The steady state: the survivors' tables played, c's dealing.
            steady_bots = Bots(load_options, nodes, pin)
            try:
                await steady_bots.ready()
                await engine_load.resume_tables(a, ADMIN, survivors["a"])
                await engine_load.resume_tables(b, ADMIN, survivors["b"])
                start = time.monotonic() + args.warmup
                steady_bots.window(start, start + args.steady)
                load_steady = os.getloadavg()
                steady = await steady_bots.collect()
            finally:
                steady_bots.stop()

            async with asyncio.timeout(120):
                while True:
                    dealt = await query(
                        url,
                        "SELECT COUNT(DISTINCT table_id) FROM hands WHERE table_id IN :ids",
                        ids=mine,
                    )
                    if dealt[0][0] == len(mine):
                        break
                    await asyncio.sleep(0.2)

            # The takeover, measured on the same tables by a fresh set of the same bots.
            takeover_bots = Bots(load_options, nodes, pin)
            try:
                await takeover_bots.ready()
                start = time.monotonic() + args.warmup
                takeover_bots.window(start, start + lease + args.after)
                await asyncio.sleep(max(0.0, start - time.monotonic()))
                killed = datetime.now(UTC)
                await dying.kill_9()
                collected = asyncio.create_task(takeover_bots.collect())
                async with asyncio.timeout(lease + 300):
                    while True:
                        again = await query(
                            url,
                            "SELECT table_id, MIN(started_at) FROM hands"
                            " WHERE table_id IN :ids AND started_at > :killed GROUP BY table_id",
                            ids=mine,
                            killed=killed,
                        )
                        if len(again) == len(mine):
                            break
                        await asyncio.sleep(0.1)
                load_takeover = os.getloadavg()
                during = await collected
            finally:
                takeover_bots.stop()
            spread = dict(
                await query(
                    url,
                    "SELECT node_id, COUNT(*) FROM tables WHERE id IN :ids GROUP BY node_id",
                    ids=mine,
                )
            )
            retired = await query(url, "SELECT expires_at FROM engine_nodes WHERE id = 'c'")
    seconds = sorted((started - killed).total_seconds() for _, started in again)
    retired_after = (retired[0][0] - killed).total_seconds()
    return {
        "tables": tables,
        "adopt_round": adopt_round,
        "lease": lease,
        "retired_after": round(retired_after, 2),
        "first": round(seconds[0], 2),
        "median": round(statistics.median(seconds), 2),
        "p99": round(seconds[min(len(seconds) - 1, int(len(seconds) * 0.99))], 2),
        "last": round(seconds[-1], 2),
        "last_after_retired": round(seconds[-1] - retired_after, 2),
        "spread": spread,
        "survivor_tables": 2 * args.survivor_tables,
        "pace": args.pace,
        "steady": {**latency(steady), "window_s": args.steady, "load": load_steady},
        "takeover": {**latency(during), "window_s": lease + args.after, "load": load_takeover},
    }


#: the figures of a run whose medians a summary gives: (name, how to read it from the run)
_SUMMARISED: dict[str, Callable[[dict[str, Any]], float | None]] = {
    "retired_after": lambda r: r["retired_after"],
    "first": lambda r: r["first"],
    "median": lambda r: r["median"],
    "last": lambda r: r["last"],
    "last_after_retired": lambda r: r["last_after_retired"],
    "steady_p99_ms": lambda r: r["steady"]["p99_ms"],
    "takeover_p99_ms": lambda r: r["takeover"]["p99_ms"],
    "takeover_max_ms": lambda r: r["takeover"]["max_ms"],
    "load": lambda r: r["takeover"]["load"][0],
}


def summary(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (table count, round size), in the order first met: the medians of the runs.

    >>> run = {"retired_after": 8.0, "first": 9.0, "median": 10.0, "last": 12.0,
    ...        "last_after_retired": 4.0, "steady": {"p99_ms": 10.0},
    ...        "takeover": {"p99_ms": 300.0, "max_ms": 700.0, "load": [1.0, 1.0, 1.0]}}
    >>> runs = [{**run, "tables": 500, "adopt_round": 25},
    ...         {**run, "tables": 500, "adopt_round": 25, "last": 14.0},
    ...         {**run, "tables": 500, "adopt_round": 25, "last": 20.0, "first": 8.5}]
    >>> line = summary(runs)[0]
    >>> line["runs"], line["first"], line["last"], line["takeover_p99_ms"]
    (3, 9.0, 14.0, 300.0)
    """
    groups: dict[tuple[int, int | None], list[dict[str, Any]]] = {}
    for result in results:
        groups.setdefault((result["tables"], result["adopt_round"]), []).append(result)
    lines = []
    for (tables, adopt_round), runs in groups.items():
        medians: dict[str, Any] = {}
        for name, read in _SUMMARISED.items():
            values = [v for v in (read(r) for r in runs) if v is not None]
            medians[name] = round(statistics.median(values), 2) if values else None
        lines.append(
            {"summary": True, "tables": tables, "adopt_round": adopt_round, "runs": len(runs)}
            | medians
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[10, 100, 500])
    parser.add_argument("--lease", type=float, default=5.0)
    parser.add_argument("--pin", action="store_true")
    parser.add_argument(
        "--clock", type=float, default=2.0, help="seconds of the dying node's tables' clock"
    )
    parser.add_argument(
        "--survivor-tables", type=int, default=20, help="tables of seven bots on a and on b"
    )
    parser.add_argument(
        "--pace", type=float, default=2.0, help="seconds between two actions at a table"
    )
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before a window")
    parser.add_argument("--steady", type=float, default=10.0, help="the steady window, seconds")
    parser.add_argument(
        "--after",
        type=float,
        default=8.0,
        help="the takeover window: the lease and this many seconds from the kill",
    )
    parser.add_argument(
        "--postgres",
        default=None,
        help="a PostgreSQL server to create the run's database on (default: a private one)",
    )
    parser.add_argument(
        "--adopt-rounds",
        type=int,
        nargs="+",
        default=None,
        help="the survivors' STUD_ENGINE_ADOPT_ROUND: a run for each (default: theirs)",
    )
    parser.add_argument(
        "--runs", type=int, default=1, help="this many runs of each count and round size"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    if args.adopt_rounds is not None and min(args.adopt_rounds) < 1:
        parser.error(f"--adopt-rounds must be at least 1, got {args.adopt_rounds}")
    sizes: list[int | None] = list(args.adopt_rounds or [None])
    engine_load.build_loadgen()
    results = []
    failed = 0
    for run in range(args.runs):
        # Each run starts at the next size: none always runs first, or after the same one.
        shift = run % len(sizes)
        for size in sizes[shift:] + sizes[:shift]:
            for count in args.tables:
                try:
                    result = asyncio.run(one_run(args.postgres, count, size, args))
                except Exception as error:
                    # A long series on a shared host goes on past one run's failure (a node
                    # losing its lease while set up), and says which.
                    failed += 1
                    failure = {"tables": count, "adopt_round": size, "run": run + 1}
                    print(json.dumps(failure | {"failed": repr(error)}), flush=True)
                    continue
                results.append(result)
                print(json.dumps(result | {"run": run + 1}), flush=True)
    if args.runs > 1:
        for line in summary(results):
            print(json.dumps(line), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
