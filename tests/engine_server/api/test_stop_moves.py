"""A cleanly stopped node hands its tables over to the other live nodes (issue 15).

Real ``stud engine`` processes on one database (SQLite and PostgreSQL): SIGTERM to a node
while a hand plays at its table moves each table, between hands, to the live node beside it
(the running hand finishes, nothing is cancelled), the players' streams end with
``UNAVAILABLE`` / ``TABLE_MOVED`` naming the new node, the process says what it waited for
and exits 0, and the table deals on there. The last node standing keeps today's stop: its
tables stay with it for its next start.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any, cast

import grpc
import sqlalchemy as sa
from stud.bots.runner import moved_to
from stud.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    table_service_pb2,
    table_service_pb2_grpc,
)

from engine_server.store.database import create_engine_for
from tests.engine_server.api import test_nodes
from tests.engine_server.api.conftest import Engine
from tests.engine_server.api.test_bad_input import refused
from tests.engine_server.api.test_moves import _raise, stream_end
from tests.engine_server.api.test_nodes import engine_process, exit_of

#: SQLite and PostgreSQL
database_url = test_nodes.database_url


def client(ready: dict[str, Any], url: str) -> Engine:
    """The test's clients of a ``stud engine`` process (its ready line's gRPC address)."""
    channel = grpc.aio.insecure_channel(ready["grpc"])
    return Engine(
        cast(Any, None),
        url,
        channel,
        admin_service_pb2_grpc.AdminServiceStub(channel),
        table_service_pb2_grpc.TableServiceStub(channel),
    )


async def rows(url: str, query: str) -> list[tuple[Any, ...]]:
    engine = create_engine_for(url)
    try:
        async with engine.connect() as connection:
            return [tuple(r) for r in (await connection.execute(sa.text(query))).all()]
    finally:
        await engine.dispose()


async def get_table(engine: Engine, table_id: str) -> admin_service_pb2.GetTableResponse:
    answer: admin_service_pb2.GetTableResponse = await engine.admin.GetTable(
        admin_service_pb2.GetTableRequest(name=f"tables/{table_id}", reason="test"),
        metadata=engine.admin_md,
    )
    return answer


async def test_sigterm_moves_the_tables_to_the_live_node_between_hands(database_url: str) -> None:
    # A lease long enough that a busy machine does not make one node take the other over.
    info = {
        "STUD_LOG_LEVEL": "INFO",
        "STUD_ENGINE_BETWEEN_HANDS": "0.3",
        "STUD_ENGINE_LEASE_SECONDS": "6",
    }
    async with (
        engine_process(database_url, "a", **info) as process_a,
        engine_process(database_url, "b", **info) as process_b,
    ):
        ready_a, ready_b = (
            await process_a.wait_ready("grpc", 30),
            await process_b.wait_ready("grpc", 30),
        )
        a, b = client(ready_a, database_url), client(ready_b, database_url)
        try:
            for table_id in ("s1", "s2"):
                # Players who never act: the clock plays their hands, one after another.
                await a.create_table(table_id, overrides={"action_seconds": 0.4})
                await a.seat(table_id, f"{table_id}-ann", seat=1)
                await a.seat(table_id, f"{table_id}-bob", seat=2)
            stream = a.tables.WatchTable(
                table_service_pb2.WatchTableRequest(table="tables/s1"),
                metadata=a.player_md("s1-ann"),
            )
            async with asyncio.timeout(20):
                while not (message := await stream.read()).snapshot.hand_in_progress:
                    pass
            running = message.snapshot.hand_number

            process_a.send_signal(signal.SIGTERM)
            ended = await stream_end(stream)
            where = {"node": "b", "grpc_address": ready_b["grpc"], "web_url": ready_b["web"]}
            await refused(_raise(ended), grpc.StatusCode.UNAVAILABLE, "TABLE_MOVED", **where)
            assert moved_to(ended) == ready_b["grpc"]
            code, errors = await exit_of(process_a)
            assert code == 0, errors
            assert "stopping: moving 2 table(s) to the other live nodes" in errors, errors
            assert "handed over in" in errors and "2 of 2 table(s) moved" in errors, errors

            # The running hand finished at a before the move; no hand was cancelled.
            states = await rows(
                database_url, "SELECT table_id, hand_number, state FROM hands ORDER BY 1, 2"
            )
            assert ("s1", running, "complete") in states, states
            assert "cancelled" not in {state for _, _, state in states}, states
            owners = await rows(database_url, "SELECT id, node_id FROM tables ORDER BY id")
            assert owners == [("s1", "b"), ("s2", "b")]
            # b serves them in full and deals on, the players in their seats.
            async with asyncio.timeout(10):
                while not (await get_table(b, "s1")).HasField("snapshot"):
                    await asyncio.sleep(0.1)
            there = b.tables.WatchTable(
                table_service_pb2.WatchTableRequest(table="tables/s1"),
                metadata=b.player_md("s1-ann"),
            )
            async with asyncio.timeout(20):
                while (message := await there.read()).snapshot.hand_number <= running:
                    pass
            assert sorted(s.player_id for s in message.snapshot.seats) == ["s1-ann", "s1-bob"]
            there.cancel()
            shown = await get_table(b, "s2")
            assert shown.placement.node == "b" and shown.placement.owner_epoch == 2

            # The last node standing keeps its tables for its next start, as before.
            process_b.send_signal(signal.SIGTERM)
            code, errors = await exit_of(process_b)
            assert code == 0, errors
            assert "moving" not in errors and "draining:" in errors, errors
            owners = await rows(database_url, "SELECT id, node_id FROM tables ORDER BY id")
            assert owners == [("s1", "b"), ("s2", "b")]
        finally:
            await a.channel.close()
            await b.channel.close()
