"""Recovery after an engine node's death: from ``kill -9`` to its tables dealing again.

Run from the repository root (PostgreSQL at ``--postgres``, a database of the run's own is
created and dropped)::

    .venv/bin/python -m benchmarks.recovery [--tables 10 100 500] [--lease 5] [--pin]

For each count N: three ``stud engine`` processes (nodes ``a``, ``b``, ``c``; ``--pin``:
``a`` and ``c`` on CPU 0, ``b`` on CPU 1, as the load benchmark pins its nodes) on one
PostgreSQL database; N tables on ``c``, two players at each, dealt by a 0.5 s clock acting
for them (so hands run when ``c`` dies), and ten such tables on each of ``a`` and ``b``; the nodes'
logs go to ``$STUD_BENCH_LOGS/recovery-{node}.log`` (default ``/tmp``). Once
every table of ``c`` has dealt a hand, ``c`` is killed (SIGKILL). It reports, from the kill:
when ``c`` was retired (its lease ran out and a live node took its tables), and for each of
``c``'s tables when its next hand started at its new owner (the hands' ``started_at``, the
engines' clock; this machine's one clock): the first, the median, the p99 and the last, and
how the tables were spread. The lease is ``--lease`` seconds: a takeover cannot begin before
it has run out.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import signal
import statistics
import sys
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc
import psycopg2
import sqlalchemy as sa
from google.protobuf import struct_pb2
from sqlalchemy.engine import make_url
from stud.v1 import admin_service_pb2, admin_service_pb2_grpc, settings_pb2

from engine_server.auth import Scope, mint_token
from engine_server.store.database import create_engine_for

__all__ = ["main"]

STUD = Path(sys.executable).with_name("stud")
SECRET = "bench-recovery-" + "x" * 40
ADMIN = (
    ("authorization", "Bearer " + mint_token(SECRET, "bench", [Scope.ADMIN], ttl_seconds=3600)),
)
OTHERS = 10


@contextlib.contextmanager
def database(admin_url: str) -> Any:
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
async def engine(url: str, node: str, lease: float, cpu: int | None) -> AsyncIterator[Any]:
    env = {
        **os.environ,
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
        "STUD_LOG_LEVEL": "ERROR",
    }
    # Each node's log (why a node stopped, if one does) in STUD_BENCH_LOGS (default /tmp).
    log = Path(os.environ.get("STUD_BENCH_LOGS", "/tmp")) / f"recovery-{node}.log"
    with log.open("ab") as errors:
        process = await asyncio.create_subprocess_exec(
            str(STUD),
            "engine",
            "--grpc-port",
            "0",
            "--web-port",
            "0",
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=errors,
        )
    try:
        assert process.stdout is not None
        while True:
            line = await asyncio.wait_for(process.stdout.readline(), 60)
            if not line:
                raise RuntimeError(f"stud engine {node} exited before it was ready")
            with contextlib.suppress(ValueError):
                ready = json.loads(line)
                if isinstance(ready, dict) and "grpc" in ready:
                    break
        channel = grpc.aio.insecure_channel(ready["grpc"])
        try:
            yield process, admin_service_pb2_grpc.AdminServiceStub(channel)
        finally:
            await channel.close()
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                process.kill()
                await process.wait()


async def open_tables(admin: Any, prefix: str, count: int) -> list[str]:
    overrides = struct_pb2.Struct()
    overrides.update({"action_seconds": 0.5})

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
            )
        return table_id

    made: list[str] = []
    # A few at a time: a burst of writes on this loaded machine would delay the node's own
    # lease renewals past its lease (and make it stop) before anything is measured.
    for start in range(0, count, 5):
        made += await asyncio.gather(*(one(n) for n in range(start, min(start + 5, count))))
    return made


async def query(url: str, text: str, **params: Any) -> list[Any]:
    statement = sa.text(text).bindparams(
        *(sa.bindparam(k, expanding=True) for k, v in params.items() if isinstance(v, list))
    )
    engine_ = create_engine_for(url)
    try:
        async with engine_.connect() as connection:
            return list((await connection.execute(statement, params)).all())
    finally:
        await engine_.dispose()


async def one_run(admin_url: str, tables: int, lease: float, pin: bool) -> dict[str, Any]:
    with database(admin_url) as url:
        async with (
            engine(url, "a", lease, 0 if pin else None) as (_, a),
            engine(url, "b", lease, 1 if pin else None) as (_, b),
            engine(url, "c", lease, 0 if pin else None) as (dying, c),
        ):
            await open_tables(a, "a-", OTHERS)
            await open_tables(b, "b-", OTHERS)
            mine = await open_tables(c, "c-", tables)
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
            killed = datetime.now(UTC)
            dying.send_signal(signal.SIGKILL)
            await dying.wait()
            async with asyncio.timeout(lease + 120):
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
            spread = dict(
                await query(
                    url,
                    "SELECT node_id, COUNT(*) FROM tables WHERE id IN :ids GROUP BY node_id",
                    ids=mine,
                )
            )
            retired = await query(url, "SELECT expires_at FROM engine_nodes WHERE id = 'c'")
    seconds = sorted((started - killed).total_seconds() for _, started in again)
    return {
        "tables": tables,
        "lease": lease,
        "retired_after": round((retired[0][0] - killed).total_seconds(), 2),
        "first": round(seconds[0], 2),
        "median": round(statistics.median(seconds), 2),
        "p99": round(seconds[min(len(seconds) - 1, int(len(seconds) * 0.99))], 2),
        "last": round(seconds[-1], 2),
        "spread": spread,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[10, 100, 500])
    parser.add_argument("--lease", type=float, default=5.0)
    parser.add_argument("--pin", action="store_true")
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "STUD_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
        ),
    )
    args = parser.parse_args(argv)
    for count in args.tables:
        result = asyncio.run(one_run(args.postgres, count, args.lease, args.pin))
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
