"""The lobby's throughput: log in, wallet read and quick game, on SQLite and PostgreSQL.

Run from the repository root::

    .venv/bin/python -m benchmarks.lobby [--seconds 4] [--concurrency 16] \
        [--backends sqlite,postgresql] [--postgres postgresql://postgres@127.0.0.1:5432/postgres] \
        [--rounds 4] [--loop uvloop|asyncio]

For each backend a fresh database is migrated, then three processes are
started: an engine (``stud engine``), the lobby (``stud lobby``, uvicorn, one
worker) and, as the yardstick, a bare Litestar app with one ``GET /bare``
endpoint answering ``{"ok": true}``, served the same way (the same event loop,
``--loop``: uvloop by default, as ``stud lobby`` runs). The load comes from
this process: ``--concurrency`` asyncio workers with one keep-alive httpx
connection each, for ``--seconds`` per endpoint, taken in ``--rounds`` slices in
turn with the other endpoints (so each meets the same background load as the bare
one it is compared with). A row gives the requests per second, the median and the
99th percentile latency, and the rate as a share of the bare endpoint's rate
measured in the same run on the same machine (goal: the wallet read at 25 % or
more).

- **log in**: ``POST /auth/login`` with argon2id at argon2-cffi's defaults
  (memory-hard on purpose: this row is bound by the hashing);
- **wallet read**: ``GET /wallet`` (token check, the settlement check, the balance
  and one page of the statement);
- **quick game**: ``POST /quickgame`` with a fresh ``Idempotency-Key`` (the buy-in
  posted to escrow, ``CreateTable`` and ``SeatPlayer`` on the engine: a new
  private table each time).

The PostgreSQL database (``stud_lobby_bench_<random>``) is dropped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import statistics
import subprocess
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

from engine_server.loops import DEFAULT_LOOP, LOOPS, run_in_loop

__all__ = ["Row", "bare_app", "format_table", "main"]

STUD = str(Path(sys.executable).parent / "stud")
PASSWORD = "benchmark-password-1"
SECRET = "benchmark-secret-" + "b" * 40


@dataclass(frozen=True, slots=True)
class Row:
    backend: str
    endpoint: str
    requests: int
    errors: int
    rps: float
    p50_ms: float
    p99_ms: float


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
def _process(command: list[str], env: dict[str, str]) -> Iterator[dict[str, str]]:
    """Start a server process; yield the JSON line it prints when ready; stop it."""
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"{' '.join(command)} exited with {process.wait()}")
        yield json.loads(line)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


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


async def _measure_slice(
    endpoint: _Endpoint, seconds: float, concurrency: int, tally: _Tally
) -> None:
    """``concurrency`` keep-alive clients call ``endpoint`` for ``seconds`` (after one warm-up
    call each, not counted); latencies, errors and the time taken are added to ``tally``."""
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
        end = loop.time() + seconds
        await asyncio.gather(*(worker(n, c) for n, c in enumerate(clients)))
        tally.seconds += time.perf_counter() - started
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))


def _row(backend: str, name: str, tally: _Tally) -> Row:
    ordered = sorted(tally.latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0
    return Row(
        backend,
        name,
        len(ordered),
        tally.errors,
        len(ordered) / tally.seconds if tally.seconds else 0.0,
        statistics.median(ordered) * 1000 if ordered else 0.0,
        p99 * 1000,
    )


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
                    await _measure_slice(
                        endpoint, seconds / rounds, concurrency, tallies[endpoint.name]
                    )
            rows = [_row(backend, name, tally) for name, tally in tallies.items()]
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


def format_table(rows: list[Row]) -> str:
    bare = {r.backend: r.rps for r in rows if r.endpoint.startswith("bare")}
    lines = [
        "| backend | endpoint | requests | errors | req/s | p50 ms | p99 ms | vs bare |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        share = r.rps / bare[r.backend] * 100 if bare.get(r.backend) else 0.0
        lines.append(
            f"| {r.backend} | {r.endpoint} | {r.requests} | {r.errors} | {r.rps:,.0f} | "
            f"{r.p50_ms:.1f} | {r.p99_ms:.1f} | {share:.0f} % |"
        )
    for backend, rate in bare.items():
        wallet = next(r for r in rows if r.backend == backend and r.endpoint == "wallet read")
        verdict = "met" if wallet.rps >= 0.25 * rate else "NOT met"
        lines.append(
            f"\n{backend}: wallet read at {wallet.rps / rate * 100:.1f} % of the bare endpoint "
            f"(goal ≥ 25 %: {verdict})"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.lobby", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--seconds", type=float, default=4.0, help="per endpoint (default 4)")
    parser.add_argument("--concurrency", type=int, default=16, help="clients at once (default 16)")
    parser.add_argument("--backends", default="sqlite,postgresql")
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
    rows: list[Row] = []
    for backend in [b.strip() for b in args.backends.split(",") if b.strip()]:
        if backend not in ("sqlite", "postgresql"):
            parser.error(f"unknown backend {backend!r}")
        with _database(backend, args.postgres) as url:
            rows += run_in_loop(
                args.loop,
                _bench_backend(
                    backend, url, args.seconds, args.concurrency, args.loop, args.rounds
                ),
            )
    print(
        f"lobby benchmark: {args.concurrency} concurrent clients, {args.seconds:g} s per endpoint, "
        f"{os.cpu_count()} CPUs, {args.loop} loops\n"
    )
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
