"""The lobby's speed: log in, wallet read and quick game beside a bare endpoint, on SQLite
and PostgreSQL, each the median of repeated runs.

Run from the repository root::

    .venv/bin/python -m benchmarks.lobby [--seconds 6] [--concurrency 16] [--runs 3] \
        [--database sqlite|postgresql|both] [--rounds 4] [--loop uvloop|asyncio] \
        [--postgres postgresql://postgres@127.0.0.1:5432/postgres]

For each database and each run a fresh database is migrated, then three processes are
started: an engine (``stud engine``), the lobby (``stud lobby``, uvicorn, one
worker) and, as the yardstick, a bare Litestar app with one ``GET /bare``
endpoint answering ``{"ok": true}``, served the same way (the same event loop,
``--loop``: uvloop by default, as ``stud lobby`` runs). The load comes from
this process: ``--concurrency`` asyncio workers with one keep-alive httpx
connection each, for ``--seconds`` per endpoint, taken in ``--rounds`` slices in
turn with the other endpoints (so each meets the same background load as the bare
one it is compared with). A row gives, as the median of the ``--runs`` runs (with the
lowest and highest beside it: the noise of a shared machine), the requests per second,
the median and the 99th percentile latency, the rate as a share of the bare endpoint's
rate in the same run, and the CPU time the server (the lobby, or the bare app) and the
engine spent per request (read from ``/proc``: a figure the other load on the machine
changes much less than the rates). The goals (issue 16 and before) are checked below the
table: the quick game's p99 at 250 ms or less, log-in at 50 per second or more, the wallet
read at 25 % of the bare endpoint's rate or more.

- **log in**: ``POST /auth/login`` with argon2id at OWASP's minimum (19 MiB, t=2, p=1,
  the lobby's default: :mod:`lobby_api.accounts.passwords`), hashed on a worker thread;
- **wallet read**: ``GET /wallet`` (token check, the settlement check, the balance
  and one page of the statement);
- **quick game**: ``POST /quickgame`` with a fresh ``Idempotency-Key`` (the buy-in
  posted to escrow, ``CreateTable`` with the opener's seat on the engine: a new
  private table each time).

The PostgreSQL databases (``stud_lobby_bench_<random>``) are dropped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks.processes import start_ready_blocking
from engine_server.loops import DEFAULT_LOOP, LOOPS, run_in_loop

__all__ = ["GOALS", "Row", "bare_app", "format_table", "main", "median_rows"]

STUD = str(Path(sys.executable).parent / "stud")
PASSWORD = "benchmark-password-1"
SECRET = "benchmark-secret-" + "b" * 40
#: The goals checked below the table: (endpoint, what is measured, comparison, bound).
GOALS: tuple[tuple[str, str, str, float], ...] = (
    ("wallet read", "share", ">=", 25.0),
    ("quick game", "p99_ms", "<=", 250.0),
    ("log in", "rps", ">=", 50.0),
)


@dataclass(frozen=True, slots=True)
class Row:
    backend: str
    endpoint: str
    requests: int
    errors: int
    rps: float
    p50_ms: float
    p99_ms: float
    #: CPU milliseconds per request of the server process (the lobby, or the bare app) and
    #: of the engine (None: not measured)
    server_cpu_ms: float | None = None
    engine_cpu_ms: float | None = None
    #: how many runs the figures are the median of, and the lowest and highest of each run
    runs: int = 1
    rps_range: tuple[float, float] | None = None
    p99_range: tuple[float, float] | None = None


def bare_app() -> Any:
    """The yardstick: Litestar with one trivial JSON endpoint."""
    from litestar import Litestar, get

    @get("/bare")
    async def bare() -> dict[str, bool]:
        return {"ok": True}

    return Litestar([bare])


def _serve_bare(port: int, loop: str) -> None:
    import uvicorn

    async def main() -> None:
        server = uvicorn.Server(
            uvicorn.Config(
                bare_app(), host="127.0.0.1", port=port, log_level="warning", access_log=False
            )
        )
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        print(
            json.dumps(
                {"http": f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"}
            ),
            flush=True,
        )
        await serving

    run_in_loop(loop, main())


@contextmanager
def _process(command: list[str], env: dict[str, str]) -> Iterator[dict[str, Any]]:
    """Start a server process; yield the JSON line it prints when ready (and its pid); stop it."""
    started = start_ready_blocking(command, name=" ".join(command[:3]), env=env)
    try:
        yield {**started.ready, "pid": started.pid}
    finally:
        started.stop()


@dataclass(frozen=True, slots=True)
class _Endpoint:
    name: str
    base: str
    request: Callable[[httpx.AsyncClient, int], Awaitable[httpx.Response]]
    ok: frozenset[int] = frozenset({200})


@dataclass(slots=True)
class _Tally:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    seconds: float = 0.0
    #: CPU seconds of the server and the engine processes during the slices
    server_cpu: float = 0.0
    engine_cpu: float = 0.0


def cpu_seconds(pid: int | None) -> float | None:
    """The CPU time (user + system, every thread) a process has used so far, from
    ``/proc`` (None: no such process, or no ``/proc``)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _measure_slice(
    endpoint: _Endpoint,
    seconds: float,
    concurrency: int,
    tally: _Tally,
    server_pid: int | None = None,
    engine_pid: int | None = None,
) -> None:
    """``concurrency`` keep-alive clients call ``endpoint`` for ``seconds`` (after one warm-up
    call each, not counted); latencies, errors, the time taken and the CPU time the server
    and the engine used are added to ``tally``."""
    loop = asyncio.get_running_loop()
    clients = [httpx.AsyncClient(base_url=endpoint.base, timeout=30) for _ in range(concurrency)]
    try:
        await asyncio.gather(*(endpoint.request(c, n) for n, c in enumerate(clients)))

        async def worker(n: int, client: httpx.AsyncClient) -> None:
            while loop.time() < end:
                start = time.perf_counter()
                response = await endpoint.request(client, n)
                tally.latencies.append(time.perf_counter() - start)
                if response.status_code not in endpoint.ok:
                    tally.errors += 1

        started = time.perf_counter()
        cpu_before = cpu_seconds(server_pid), cpu_seconds(engine_pid)
        end = loop.time() + seconds
        await asyncio.gather(*(worker(n, c) for n, c in enumerate(clients)))
        tally.seconds += time.perf_counter() - started
        server, engine = cpu_before
        server_after, engine_after = cpu_seconds(server_pid), cpu_seconds(engine_pid)
        if server is not None and server_after is not None:
            tally.server_cpu += server_after - server
        if engine is not None and engine_after is not None:
            tally.engine_cpu += engine_after - engine
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))


def _row(backend: str, name: str, tally: _Tally, *, engine: bool) -> Row:
    ordered = sorted(tally.latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0
    count = len(ordered)
    return Row(
        backend,
        name,
        count,
        tally.errors,
        count / tally.seconds if tally.seconds else 0.0,
        statistics.median(ordered) * 1000 if ordered else 0.0,
        p99 * 1000,
        server_cpu_ms=tally.server_cpu / count * 1000 if count else None,
        engine_cpu_ms=tally.engine_cpu / count * 1000 if count and engine else None,
    )


def median_rows(runs: list[list[Row]]) -> list[Row]:
    """One row per (backend, endpoint): the median of each figure over the runs, errors
    summed, and the lowest and highest rate and p99 of the runs."""
    grouped: dict[tuple[str, str], list[Row]] = {}
    for run in runs:
        for row in run:
            grouped.setdefault((row.backend, row.endpoint), []).append(row)

    def middle(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return statistics.median(known) if known else None

    rows = []
    for (backend, endpoint), same in grouped.items():
        rates, p99s = [r.rps for r in same], [r.p99_ms for r in same]
        rows.append(
            Row(
                backend,
                endpoint,
                round(statistics.median([r.requests for r in same])),
                sum(r.errors for r in same),
                statistics.median(rates),
                statistics.median([r.p50_ms for r in same]),
                statistics.median(p99s),
                server_cpu_ms=middle([r.server_cpu_ms for r in same]),
                engine_cpu_ms=middle([r.engine_cpu_ms for r in same]),
                runs=len(same),
                rps_range=(min(rates), max(rates)),
                p99_range=(min(p99s), max(p99s)),
            )
        )
    return rows


async def _players(base: str, count: int) -> list[str]:
    """Register ``count`` players (in a city of the seeds) and return their tokens."""
    tokens = []
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        for _ in range(count):
            name = "bench_" + uuid.uuid4().hex[:10]
            created = await client.post(
                "/accounts", json={"username": name, "password": PASSWORD, "city": "oslo"}
            )
            created.raise_for_status()
            login = await client.post("/auth/login", json={"username": name, "password": PASSWORD})
            login.raise_for_status()
            tokens.append((name, login.json()["access_token"]))
    return tokens  # type: ignore[return-value]


async def _bench_backend(
    backend: str, url: str, seconds: float, concurrency: int, loop: str, rounds: int
) -> list[Row]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
    env.update(
        STUD_JWT_SECRET=SECRET,
        STUD_LOG_LEVEL="WARNING",
        STUD_LOG_FORMAT="text",
        STUD_LOBBY_LOGIN_RATE="0",
        STUD_LOBBY_MONEY_RATE="0",
        STUD_ENGINE_METRICS_PORT="0",
        STUD_LOBBY_LOOP=loop,
    )
    engine_cmd = [STUD, "engine", "--grpc-port", "0", "--web-port", "0", "--database-url", url]
    with _process(engine_cmd, env) as engine:
        lobby_cmd = [
            STUD,
            "lobby",
            "--port",
            "0",
            "--database-url",
            url,
            "--engine",
            engine["grpc"],
        ]
        with (
            _process(lobby_cmd, env) as lobby,
            _process(
                [sys.executable, "-m", "benchmarks.lobby", "--serve-bare", "--loop", loop], env
            ) as bare,
        ):
            base = lobby["http"]
            players = await _players(base, concurrency)

            def bearer(n: int) -> dict[str, str]:
                return {"Authorization": f"Bearer {players[n][1]}"}

            endpoints = [
                _Endpoint("bare Litestar GET", bare["http"], lambda c, n: c.get("/bare")),
                _Endpoint(
                    "log in",
                    base,
                    lambda c, n: c.post(
                        "/auth/login", json={"username": players[n][0], "password": PASSWORD}
                    ),
                ),
                _Endpoint("wallet read", base, lambda c, n: c.get("/wallet", headers=bearer(n))),
                _Endpoint(
                    "quick game",
                    base,
                    lambda c, n: c.post(
                        "/quickgame",
                        json={"stake_level": "house-2-4", "buy_in": 40, "client_seed": "bench"},
                        headers={**bearer(n), "Idempotency-Key": uuid.uuid4().hex},
                    ),
                    ok=frozenset({201}),
                ),
            ]
            tallies = {endpoint.name: _Tally() for endpoint in endpoints}
            # Slices in turn, so that every endpoint meets the same background load as the
            # bare one it is compared with (this machine is shared).
            for _ in range(rounds):
                for endpoint in endpoints:
                    is_bare = endpoint.base == bare["http"]
                    await _measure_slice(
                        endpoint,
                        seconds / rounds,
                        concurrency,
                        tallies[endpoint.name],
                        server_pid=bare["pid"] if is_bare else lobby["pid"],
                        engine_pid=None if is_bare else engine["pid"],
                    )
            rows = [
                _row(backend, name, tally, engine=not name.startswith("bare"))
                for name, tally in tallies.items()
            ]
    return rows


@contextmanager
def _database(backend: str, postgres: str) -> Iterator[str]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as directory:
            yield f"sqlite:///{directory}/bench.sqlite3"
        return
    import psycopg2
    from sqlalchemy.engine import make_url

    name = f"stud_lobby_bench_{secrets.token_hex(4)}"
    admin = psycopg2.connect(postgres, connect_timeout=5)
    admin.autocommit = True
    try:
        with admin.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}"')
        yield make_url(postgres).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _range(values: tuple[float, float] | None, digits: int) -> str:
    return "" if values is None else f" ({values[0]:,.{digits}f}–{values[1]:,.{digits}f})"


def format_table(rows: list[Row]) -> str:
    """The rows as a Markdown table (ranges over the runs in brackets), then each goal
    checked for each backend whose rows measure it."""
    bare = {r.backend: r.rps for r in rows if r.endpoint.startswith("bare")}
    lines = [
        "| backend | endpoint | requests | errors | req/s | p50 ms | p99 ms | vs bare "
        "| server CPU ms/req | engine CPU ms/req |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        share = r.rps / bare[r.backend] * 100 if bare.get(r.backend) else 0.0
        lines.append(
            f"| {r.backend} | {r.endpoint} | {r.requests} | {r.errors} | "
            f"{r.rps:,.0f}{_range(r.rps_range, 0)} | {r.p50_ms:.1f} | "
            f"{r.p99_ms:.1f}{_range(r.p99_range, 0)} | {share:.0f} % | "
            f"{_ms(r.server_cpu_ms)} | {_ms(r.engine_cpu_ms)} |"
        )
    for backend, rate in bare.items():
        for endpoint, measure, comparison, bound in GOALS:
            row = next((r for r in rows if r.backend == backend and r.endpoint == endpoint), None)
            if row is None:
                continue
            value = row.rps / rate * 100 if measure == "share" else getattr(row, measure)
            met = value >= bound if comparison == ">=" else value <= bound
            verdict = "met" if met else "NOT met"
            sign = "≥" if comparison == ">=" else "≤"
            if measure == "share":
                said = f"{endpoint} at {value:.1f} % of the bare endpoint (goal {sign} {bound:g} %"
            elif measure == "p99_ms":
                said = f"{endpoint} p99 {value:.0f} ms (goal {sign} {bound:g} ms"
            else:
                said = f"{endpoint} at {value:.1f} per second (goal {sign} {bound:g}/s"
            runs = f", median of {row.runs} runs" if row.runs > 1 else ""
            lines.append(f"\n{backend}: {said}{runs}: {verdict})")
    return "\n".join(lines)


def _backends(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    if args.database is not None and args.backends is not None:
        parser.error("give --database or --backends, not both")
    if args.database is not None:
        return ["sqlite", "postgresql"] if args.database == "both" else [args.database]
    backends = [b.strip() for b in (args.backends or "sqlite,postgresql").split(",") if b.strip()]
    for backend in backends:
        if backend not in ("sqlite", "postgresql"):
            parser.error(f"unknown backend {backend!r}")
    return backends


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.lobby", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--seconds", type=float, default=4.0, help="per endpoint (default 4)")
    parser.add_argument("--concurrency", type=int, default=16, help="clients at once (default 16)")
    parser.add_argument(
        "--database",
        choices=("sqlite", "postgresql", "both"),
        help="the database(s) to measure on (default both)",
    )
    parser.add_argument("--backends", help="the same as a comma-separated list (sqlite,postgresql)")
    parser.add_argument(
        "--runs",
        type=int,
        default=3,
        help="runs per database, each on fresh processes and a fresh database, the databases "
        "in turn; the table gives their medians (default 3)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=4,
        help="slices per endpoint, taken in turn with the others (default 4)",
    )
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "STUD_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
        ),
        help="a PostgreSQL server to create the benchmark's database on",
    )
    parser.add_argument(
        "--loop",
        choices=LOOPS,
        default=DEFAULT_LOOP,
        help=f"event loop of the lobby, the bare app and the clients (default {DEFAULT_LOOP})",
    )
    parser.add_argument("--serve-bare", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_bare:
        _serve_bare(0, args.loop)
        return 0
    if args.runs < 1:
        parser.error("--runs must be 1 or more")
    backends = _backends(parser, args)
    load_before = os.getloadavg()[0]
    runs: list[list[Row]] = []
    # The databases in turn, run after run: each meets the same changes of the machine's load.
    for _ in range(args.runs):
        for backend in backends:
            with _database(backend, args.postgres) as url:
                runs.append(
                    run_in_loop(
                        args.loop,
                        _bench_backend(
                            backend, url, args.seconds, args.concurrency, args.loop, args.rounds
                        ),
                    )
                )
    print(
        f"lobby benchmark: {args.concurrency} concurrent clients, {args.seconds:g} s per endpoint, "
        f"{os.cpu_count()} CPUs, {args.loop} loops, median of {args.runs} "
        f"run{'s' if args.runs > 1 else ''} (lowest–highest in brackets); "
        f"load average {load_before:.1f} → {os.getloadavg()[0]:.1f}\n"
    )
    print(format_table(median_rows(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
