"""Several engine nodes on one database: each serves, loads and recovers only its own tables;
a node id is held by one live process at a time; a node that loses its lease stops serving.

Real servers on loopback (in-process, and ``stud engine`` processes), on SQLite and on
PostgreSQL (a database of the test's own on ``$STUD_TEST_POSTGRES_URL``, default
``postgresql://postgres@127.0.0.1:5432/test``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import sqlite3
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path

import grpc
import psycopg2
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from stud.v1 import admin_service_pb2, table_service_pb2

from benchmarks.processes import STUD, ReadyProcess, spawn
from engine_server.auth import Scope
from engine_server.store.database import create_engine_for
from engine_server.store.models import NodeState
from engine_server.store.nodes import NodeRegistry
from engine_server.table.runtime import TableRuntime
from tests.engine_server.api.conftest import SECRET, Engine, bearer, launch, shut
from tests.engine_server.api.test_bad_input import refused

POSTGRES_URL = os.environ.get("STUD_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
#: short leases: renewals every third of a second, a dead holder's lease gone within one
LEASE = 1.0


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/nodes.sqlite3"
        return
    template: str = request.getfixturevalue("postgres_engine_template")
    admin = psycopg2.connect(POSTGRES_URL, connect_timeout=3)
    admin.autocommit = True
    name = f"stud_test_nodes_{os.getpid()}_{secrets.token_hex(3)}"
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


async def get_table(engine: Engine, table_id: str) -> admin_service_pb2.GetTableResponse:
    answer: admin_service_pb2.GetTableResponse = await engine.admin.GetTable(
        admin_service_pb2.GetTableRequest(name=f"tables/{table_id}", reason="test"),
        metadata=engine.admin_md,
    )
    return answer


def stopped(runtime: TableRuntime) -> bool:
    """The table's owner task has ended: it takes no command and writes nothing more."""
    return not runtime.running


async def node(url: str, node_id: str) -> Engine:
    # Stopped, each keeps its tables (these tests are about what a node owns across its
    # restarts); a clean stop handing them over is test_stop_moves'.
    return await launch(url, node_id=node_id, lease_seconds=LEASE, stop_moves_tables=False)


async def registry_row(url: str, node_id: str) -> dict[str, object]:
    engine = create_engine_for(url)
    try:
        row = await NodeRegistry(engine).get(node_id)
    finally:
        await engine.dispose()
    assert row is not None, node_id
    return row.model_dump()


async def seat_two(engine: Engine, table_id: str) -> None:
    await engine.seat(table_id, f"{table_id}-ann", seat=1)
    await engine.seat(table_id, f"{table_id}-bob", seat=2)


async def table_ids(engine: Engine) -> list[str]:
    listed = await engine.admin.ListTables(
        admin_service_pb2.ListTablesRequest(page_size=500), metadata=engine.admin_md
    )
    return sorted(t.name.removeprefix("tables/") for t in listed.tables)


async def test_two_nodes_serve_and_load_only_their_own_tables(database_url: str) -> None:
    a = await node(database_url, "a")
    b = await node(database_url, "b")
    try:
        for engine, node_id in ((a, "a"), (b, "b")):
            row = await registry_row(database_url, node_id)
            assert row["state"] == NodeState.SERVING.value
            assert row["admin_address"] == row["grpc_address"] == engine.grpc_address
            assert row["web_url"] == engine.web_url
        await a.create_table("ta")
        await b.create_table("tb")
        await seat_two(a, "ta")
        await seat_two(b, "tb")
        assert await table_ids(a) == ["ta"]
        assert await table_ids(b) == ["tb"]

        # GetTable answers on any node: b's table at a as stored (seats without cards, no
        # live snapshot) with where it is served; at b in full, with the same placement.
        at_a = await get_table(a, "tb")
        at_b = await get_table(b, "tb")
        assert not at_a.HasField("snapshot") and at_b.HasField("snapshot")
        assert (
            at_a.placement
            == at_b.placement
            == admin_service_pb2.TablePlacement(node="b", node_live=True, owner_epoch=1)
        )
        assert at_a.table.name == "tables/tb"
        assert sorted((s.number, s.player_id) for s in at_a.table.seats) == [
            (1, "tb-ann"),
            (2, "tb-bob"),
        ]
        assert not any(s.down_cards or s.up_cards for s in at_a.table.seats)
        assert at_a.table.settings == at_b.table.settings
        assert (await get_table(a, "ta")).placement.node == "a"
        await refused(
            a.admin.GetTable(
                admin_service_pb2.GetTableRequest(name="tables/nowhere"), metadata=a.admin_md
            ),
            grpc.StatusCode.NOT_FOUND,
            "TABLE_NOT_FOUND",
        )

        # Ops and the lobby changing a table at the wrong node are told which node owns it.
        on_b = {"node": "b", "table": "tables/tb"}
        precondition = grpc.StatusCode.FAILED_PRECONDITION
        await refused(
            a.admin.PauseTable(
                admin_service_pb2.PauseTableRequest(name="tables/tb", reason="test"),
                metadata=a.admin_md,
            ),
            precondition,
            "TABLE_ON_OTHER_NODE",
            **on_b,
        )
        await refused(
            a.admin.SeatPlayer(
                admin_service_pb2.SeatPlayerRequest(
                    table="tables/tb", seat_session_id="ss-cy", player_id="cy", buy_in=100
                ),
                metadata=a.admin_md,
            ),
            precondition,
            "TABLE_ON_OTHER_NODE",
            **on_b,
        )
        await refused(
            a.admin.ListSeatSessions(
                admin_service_pb2.ListSeatSessionsRequest(table="tables/tb"), metadata=a.admin_md
            ),
            precondition,
            "TABLE_ON_OTHER_NODE",
            **on_b,
        )
        # b's CreateTable retried at a: refused, not a second runtime of the same table.
        await refused(a.create_table("tb"), precondition, "TABLE_ON_OTHER_NODE", **on_b)
        # Players at the wrong node: the table is not here, as for any unknown table.
        await refused(
            a.tables.Act(
                table_service_pb2.ActRequest(table="tables/tb", hand_number=1, action_id="x1"),
                metadata=a.player_md("tb-ann"),
            ),
            grpc.StatusCode.NOT_FOUND,
            "TABLE_NOT_FOUND",
        )
        watch = a.tables.WatchTable(
            table_service_pb2.WatchTableRequest(table="tables/tb"), metadata=a.player_md("tb-ann")
        )
        await refused(watch.read(), grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")
        # ... and at the right one they play.
        stream = b.tables.WatchTable(
            table_service_pb2.WatchTableRequest(table="tables/tb"), metadata=b.player_md("tb-ann")
        )
        first = await stream.read()
        assert first.snapshot.table == "tables/tb"
        stream.cancel()
    finally:
        await shut(a)
        await shut(b)
    assert (await registry_row(database_url, "a"))["state"] == NodeState.STOPPED.value

    # Restarted one at a time, each node loads its own tables only.
    a = await node(database_url, "a")
    try:
        assert set(a.server.manager.tables) == {"ta"}
        assert (await registry_row(database_url, "a"))["epoch"] == 2
        # b is stopped: a still shows its table, as stored, and says its node is not live.
        stored = await get_table(a, "tb")
        assert stored.placement == admin_service_pb2.TablePlacement(
            node="b", node_live=False, owner_epoch=1
        )
        assert sorted(s.player_id for s in stored.table.seats) == ["tb-ann", "tb-bob"]
        await refused(
            a.admin.ResumeTable(
                admin_service_pb2.ResumeTableRequest(name="tables/tb"), metadata=a.admin_md
            ),
            grpc.StatusCode.FAILED_PRECONDITION,
            "TABLE_ON_OTHER_NODE",
            node="b",
        )
        b = await node(database_url, "b")
        try:
            assert set(b.server.manager.tables) == {"tb"}
            seats = (
                await b.admin.GetTable(
                    admin_service_pb2.GetTableRequest(name="tables/tb", reason="test"),
                    metadata=b.admin_md,
                )
            ).table.seats
            assert sorted(s.player_id for s in seats) == ["tb-ann", "tb-bob"]
        finally:
            await shut(b)
    finally:
        await shut(a)


async def test_a_node_whose_lease_another_process_claimed_stops_serving(
    database_url: str,
) -> None:
    a = await node(database_url, "a")
    try:
        await a.create_table("ta")
        await seat_two(a, "ta")
        # Another process claimed node a (as one does once a's lease ran out): a new epoch.
        engine = create_engine_for(database_url)
        async with engine.begin() as connection:
            await connection.execute(
                sa.text("UPDATE engine_nodes SET epoch = epoch + 1 WHERE id = 'a'")
            )
        await engine.dispose()
        async with asyncio.timeout(LEASE * 2):
            await a.server.lost.wait()
        assert "another process claimed" in a.server.lost_reason
        assert all(stopped(t) for t in a.server.manager.tables.values())
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await a.admin.GetTable(
                admin_service_pb2.GetTableRequest(name="tables/ta", reason="test"),
                metadata=a.admin_md,
                timeout=2,
            )
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        await shut(a)
    # The lost process did not mark the node stopped: the next one waits out the lease.
    again = await node(database_url, "a")
    try:
        assert set(again.server.manager.tables) == {"ta"}
        assert (await registry_row(database_url, "a"))["epoch"] == 3
    finally:
        await shut(again)


async def list_nodes(engine: Engine) -> admin_service_pb2.ListNodesResponse:
    answer: admin_service_pb2.ListNodesResponse = await engine.admin.ListNodes(
        admin_service_pb2.ListNodesRequest(), metadata=engine.admin_md
    )
    return answer


async def test_any_node_lists_every_node_with_its_lease_and_open_tables(
    database_url: str,
) -> None:
    a = await node(database_url, "a")
    b = await node(database_url, "b")
    try:
        await a.create_table("ta")
        await a.create_table("tc")
        await b.create_table("tb")
        for engine, answering in ((a, "a"), (b, "b")):
            listed = await list_nodes(engine)
            assert listed.answered_by == answering
            assert [n.id for n in listed.nodes] == ["a", "b"]
            for n, owner, tables in zip(listed.nodes, (a, b), (2, 1), strict=True):
                assert n.state == admin_service_pb2.ENGINE_NODE_STATE_SERVING
                assert n.live and n.epoch == 1 and n.open_tables == tables
                assert n.admin_address == n.grpc_address == owner.grpc_address
                assert n.web_url == owner.web_url
                started, beat, expires = (
                    t.ToDatetime() for t in (n.started_at, n.heartbeat_at, n.expires_at)
                )
                assert started <= beat < expires <= beat + timedelta(seconds=LEASE + 0.01)
        # Players and the lobby's service token may not list nodes; nothing changes.
        for metadata in (a.player_md("ta-ann"), bearer("lobby", Scope.LOBBY)):
            await refused(
                a.admin.ListNodes(admin_service_pb2.ListNodesRequest(), metadata=metadata),
                grpc.StatusCode.PERMISSION_DENIED,
                "ADMIN_REQUIRED",
            )
    finally:
        await shut(b)
    try:
        gone = (await list_nodes(a)).nodes[1]
        assert gone.id == "b" and gone.state == admin_service_pb2.ENGINE_NODE_STATE_STOPPED
        assert not gone.live and gone.open_tables == 1
    finally:
        await shut(a)


async def test_a_write_after_another_process_claimed_the_node_is_refused_and_stops_it(
    database_url: str,
) -> None:
    # A lease long enough that no renewal comes during the test: the write finds out first.
    a = await launch(database_url, node_id="a", lease_seconds=60)
    try:
        await a.create_table("ta")
        await seat_two(a, "ta")
        engine = create_engine_for(database_url)
        try:
            async with engine.begin() as connection:
                await connection.execute(
                    sa.text("UPDATE engine_nodes SET epoch = epoch + 1 WHERE id = 'a'")
                )
            await refused(a.create_table("tb"), grpc.StatusCode.UNAVAILABLE, "TABLE_MOVED")
            async with asyncio.timeout(5):
                await a.server.lost.wait()
            assert "another process claimed engine node 'a' (epoch" in a.server.lost_reason
            assert all(stopped(t) for t in a.server.manager.tables.values())
            async with engine.connect() as connection:
                ids = (await connection.execute(sa.text("SELECT id FROM tables"))).scalars()
                assert sorted(ids) == ["ta"]
        finally:
            await engine.dispose()
    finally:
        await shut(a)


@contextlib.contextmanager
def database_held(url: str) -> Iterator[None]:
    """Every write to the registry blocks while this runs (the database is "unreachable")."""
    if url.startswith("sqlite"):
        connection = sqlite3.connect(make_url(url).database or "", isolation_level=None)
        connection.execute("BEGIN EXCLUSIVE")
    else:
        connection = psycopg2.connect(url)
        connection.cursor().execute("LOCK TABLE engine_nodes IN ACCESS EXCLUSIVE MODE")
    try:
        yield
    finally:
        connection.rollback()
        connection.close()


async def test_a_node_that_cannot_renew_its_lease_stops_before_it_runs_out(
    database_url: str,
) -> None:
    a = await node(database_url, "a")
    try:
        await a.create_table("ta")
        loop = asyncio.get_running_loop()
        with database_held(database_url):
            started = loop.time()
            async with asyncio.timeout(LEASE * 3):
                await a.server.lost.wait()
            # Stopped before another process could take the node (the whole lease).
            assert loop.time() - started < LEASE * 1.05
        assert "not renewed" in a.server.lost_reason
        assert all(stopped(t) for t in a.server.manager.tables.values())
    finally:
        await shut(a)


# ------------------------------------------------------------------ stud engine processes


def engine_env(url: str, node_id: str) -> dict[str, str]:
    return {
        **os.environ,
        "STUD_DATABASE_URL": url,
        "STUD_JWT_SECRET": SECRET,
        "STUD_ENGINE_HOST": "127.0.0.1",
        "STUD_ENGINE_METRICS_PORT": "0",
        "STUD_ENGINE_NODE_ID": node_id,
        "STUD_ENGINE_LEASE_SECONDS": str(LEASE),
        "STUD_LOG_FORMAT": "text",
        "STUD_LOG_LEVEL": "WARNING",
    }


@contextlib.asynccontextmanager
async def engine_process(url: str, node_id: str, **env: str) -> AsyncIterator[ReadyProcess]:
    """``stud engine`` for node ``node_id``, its stderr piped (:func:`exit_of` reads it); not
    yet ready (``await process.wait_ready("grpc", 30)``: some are meant to be refused)."""
    process = await spawn(
        [STUD, "engine", "--grpc-port", "0", "--web-port", "0"],
        name="stud engine",
        env={**engine_env(url, node_id), **env},
    )
    try:
        yield process
    finally:
        await process.close()


async def exit_of(process: ReadyProcess) -> tuple[int, str]:
    """Its exit status and all it wrote on stderr, once it exited."""
    assert process.process.stderr is not None
    async with asyncio.timeout(30):
        errors = await process.process.stderr.read()
        return await process.wait(), errors.decode()


async def test_a_second_process_for_a_live_node_is_refused(database_url: str) -> None:
    a = await node(database_url, "a")
    try:
        async with engine_process(database_url, "a") as second:
            code, errors = await exit_of(second)
        assert code == 1
        last = errors.strip().splitlines()[-1]
        assert last.startswith("stud engine: engine node 'a' is held by a live process"), errors
        # The live node went on serving all along.
        assert (await registry_row(database_url, "a"))["epoch"] == 1
        await a.create_table("ta")
        # Another node id starts beside it, and stops cleanly on SIGTERM.
        async with engine_process(database_url, "b") as other:
            ready = await other.wait_ready("grpc", 30)
            assert ready["node"] == "b"
            row = await registry_row(database_url, "b")
            assert row["state"] == NodeState.SERVING.value
            assert row["grpc_address"] == ready["grpc"]
            other.send_signal(signal.SIGTERM)
            code, errors = await exit_of(other)
            assert code == 0, errors
        assert (await registry_row(database_url, "b"))["state"] == NodeState.STOPPED.value
    finally:
        await shut(a)


async def test_a_process_that_loses_its_lease_exits_non_zero(database_url: str) -> None:
    async with engine_process(database_url, "a") as process:
        await process.wait_ready("grpc", 30)
        engine = create_engine_for(database_url)
        async with engine.begin() as connection:
            await connection.execute(
                sa.text("UPDATE engine_nodes SET epoch = epoch + 1 WHERE id = 'a'")
            )
        await engine.dispose()
        code, errors = await exit_of(process)
    assert code == 1
    last = errors.strip().splitlines()[-1]
    assert last.startswith("stud engine: engine node 'a' stopped serving its tables: lease lost"), (
        errors
    )
