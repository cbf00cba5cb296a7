"""A node that lost its lease to a database outage serves again at the same addresses.

``stud engine --grpc-port 0 --web-port 0`` picks free ports once. When the database stops
answering for longer than the lease, the engine stops serving as the lease demands, then
claims its node back once the database answers (engine_server.server.run_engine). It must
come back on the ports it had: players, the lobby (which gives clients the addresses in the
registry) and a test's own handle all know those, and a client that looked its table up
before the outage must find it there (the CI failure of test_web_dead_node: the heir of a
dead node lost its own lease at a load of 30 and came back on new ports).
"""

from __future__ import annotations

import asyncio
import doctest
import sqlite3
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

import engine_server.server
from tests.engine_server.api.test_crash_recovery import start
from tests.outage import read_only_sqlite

#: The lease: short, so that an outage of a few seconds outlives it; not shorter (leases of a
#: second were lost to a loaded machine's stalls alone).
LEASE = 2.0
#: How long the file stays read-only: the lease twice over and more.
OUTAGE = 5.0


def test_bound_ports_doctest() -> None:
    result = doctest.testmod(engine_server.server)
    assert result.attempted > 0 and result.failed == 0


def _registered(database: Path) -> tuple[str, str, int]:
    with sqlite3.connect(database) as db:
        grpc_address, web_url, epoch = db.execute(
            "SELECT grpc_address, web_url, epoch FROM engine_nodes WHERE id = 'main'"
        ).fetchone()
    return str(grpc_address), str(web_url), int(epoch)


async def _serving(address: str) -> health_pb2.HealthCheckResponse.ServingStatus.ValueType:
    async with grpc.aio.insecure_channel(address) as channel:
        answer = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=5
        )
    return answer.status


async def test_a_node_back_from_an_outage_serves_on_the_ports_it_had(tmp_path: Path) -> None:
    database = tmp_path / "db" / "engine.sqlite3"
    database.parent.mkdir()
    log = tmp_path / "engine.log"
    # `stud engine --grpc-port 0 --web-port 0` on the SQLite file.
    started = await start(database, log, log_level="INFO", lease_seconds=LEASE)
    engine = started.process
    try:
        first = dict(engine.ready)
        assert await _serving(first["grpc"]) == health_pb2.HealthCheckResponse.SERVING
        assert _registered(database) == (first["grpc"], first["web"], 1)

        with read_only_sqlite(database):
            await asyncio.sleep(OUTAGE)
        # Served again: a second ready line, once it claimed the node back.
        again = await engine.wait_ready("grpc", timeout=60)
        assert engine.returncode is None, engine.log_tail()
        text = log.read_text()
        assert "it serves them again once the database answers" in text, text
        assert "node main claimed (epoch" in text, text

        # The same addresses: in the ready line, in the registry, and answering there.
        assert (again["grpc"], again["web"], again["metrics"]) == (
            first["grpc"],
            first["web"],
            first["metrics"],
        )
        grpc_address, web_url, epoch = _registered(database)
        assert (grpc_address, web_url) == (first["grpc"], first["web"]) and epoch >= 2
        assert await _serving(first["grpc"]) == health_pb2.HealthCheckResponse.SERVING
    finally:
        await started.channel.close()
        assert await engine.stop() == 0, engine.log_tail()
