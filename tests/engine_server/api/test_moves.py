"""Tables moving between live engine nodes, and the clients that follow them.

Two engines (real servers on loopback) on one database, SQLite and PostgreSQL. A table moves
between hands (a running hand finishes first); its streams end with ``UNAVAILABLE`` /
``TABLE_MOVED`` naming the new node and its addresses, over gRPC and the browsers'
transports alike; the new node loads it and players sit where they sat. A table taken from
under a node (its row moved on by another) stops there at its next write, with the same
refusal.
"""

from __future__ import annotations

import asyncio
import contextlib

import grpc
import pytest
import sqlalchemy as sa
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from stud.bots.runner import moved_to
from stud.v1 import admin_service_pb2, table_service_pb2
from stud.v1.table_service_connect import TableServiceClient

from engine_server.store.database import create_engine_for
from engine_server.table.errors import TableError
from tests.engine_server.api import test_nodes
from tests.engine_server.api.conftest import Engine, launch, shut
from tests.engine_server.api.test_bad_input import refused
from tests.engine_server.api.test_connect import the_info

#: SQLite and PostgreSQL
database_url = test_nodes.database_url
LEASE = 2.0


async def two_nodes(url: str) -> tuple[Engine, Engine]:
    a = await launch(url, node_id="a", lease_seconds=LEASE)
    b = await launch(url, node_id="b", lease_seconds=LEASE)
    return a, b


async def first_message(stream: grpc.aio.UnaryStreamCall) -> table_service_pb2.WatchTableResponse:  # type: ignore[type-arg]
    message: table_service_pb2.WatchTableResponse = await stream.read()
    return message


async def stream_end(stream: grpc.aio.UnaryStreamCall) -> grpc.aio.AioRpcError:  # type: ignore[type-arg]
    """Read the stream to its end: the refusal it ended with."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async with asyncio.timeout(10):
            while True:
                message = await stream.read()
                assert message is not grpc.aio.EOF, "the stream ended with OK"
    return caught.value


async def _raise(error: grpc.aio.AioRpcError) -> None:
    """``error`` as a call's, for :func:`refused` to check."""
    raise error


async def adopted(node: Engine, table_id: str) -> None:
    async with asyncio.timeout(LEASE * 3):
        while table_id not in node.server.manager.tables:
            await asyncio.sleep(0.05)


async def test_a_moved_tables_clients_are_sent_to_its_new_node(database_url: str) -> None:
    a, b = await two_nodes(database_url)
    try:
        await a.create_table("tm", overrides={"action_seconds": 0.3})
        await a.seat("tm", "ann", seat=1)
        await a.seat("tm", "bob", seat=2)
        stream = a.tables.WatchTable(
            table_service_pb2.WatchTableRequest(table="tables/tm"), metadata=a.player_md("ann")
        )
        await first_message(stream)
        runtime = a.server.manager.tables["tm"]
        async with asyncio.timeout(10):
            while not runtime.hand_running:
                await asyncio.sleep(0.02)
        hand = runtime.hand_number
        # The move waits for the running hand (no hand is cut short), then hands over.
        waited = await a.server.manager.move("tm", "b")
        assert waited
        ended = await stream_end(stream)
        assert ended.code() == grpc.StatusCode.UNAVAILABLE
        where = {"node": "b", "grpc_address": b.grpc_address, "web_url": b.web_url}
        info = await refused(_raise(ended), grpc.StatusCode.UNAVAILABLE, "TABLE_MOVED", **where)
        assert info.metadata["table"] == "tables/tm"
        # The Python bots read the address from the refusal.
        assert moved_to(ended) == b.grpc_address
        # The hand finished (not cancelled) before the move.
        engine = create_engine_for(database_url)
        try:
            async with engine.connect() as connection:
                states = (
                    await connection.execute(
                        sa.text("SELECT hand_number, state FROM hands WHERE table_id = 'tm'")
                    )
                ).all()
        finally:
            await engine.dispose()
        assert (hand, "complete") in [tuple(r) for r in states]
        assert "cancelled" not in {r[1] for r in states}
        # Calls at the old node are sent on, whatever the transport.
        await refused(
            a.tables.WatchTable(
                table_service_pb2.WatchTableRequest(table="tables/tm"),
                metadata=a.player_md("ann"),
            ).read(),
            grpc.StatusCode.UNAVAILABLE,
            "TABLE_MOVED",
            **where,
        )
        for protocol in (ProtocolType.CONNECT, ProtocolType.GRPC_WEB):
            async with TableServiceClient(a.web_url, protocol=protocol) as client:
                with pytest.raises(ConnectError) as caught:
                    async for _ in client.watch_table(
                        table_service_pb2.WatchTableRequest(table="tables/tm"),
                        headers=dict(a.player_md("ann")),
                    ):
                        pass
                assert caught.value.code == Code.UNAVAILABLE
                web_info = the_info(caught.value)
                assert web_info.reason == "TABLE_MOVED"
                assert {k: web_info.metadata[k] for k in where} == where
        # The lobby and ops calling the old node are told the owner.
        await refused(
            a.seat("tm", "cy", seat=3),
            grpc.StatusCode.FAILED_PRECONDITION,
            "TABLE_ON_OTHER_NODE",
            node="b",
        )
        # The new node loads it and deals on, the players in their seats.
        await adopted(b, "tm")
        there = b.tables.WatchTable(
            table_service_pb2.WatchTableRequest(table="tables/tm"), metadata=b.player_md("ann")
        )
        snapshot = (await first_message(there)).snapshot
        assert sorted((s.number, s.player_id) for s in snapshot.seats) == [
            (1, "ann"),
            (2, "bob"),
        ]
        async with asyncio.timeout(10):
            while b.server.manager.tables["tm"].hand_number <= hand:
                await asyncio.sleep(0.05)
        there.cancel()
        # Moving it on to a node that is not live is refused, and changes nothing.
        with pytest.raises(TableError) as refusal:
            await b.server.manager.move("tm", "nowhere")
        assert "not live" in refusal.value.message
        assert "tm" in b.server.manager.tables
    finally:
        await shut(a)
        await shut(b)


async def test_a_client_following_the_move_finds_the_table_before_the_new_node_looked(
    database_url: str,
) -> None:
    """The new node loads a table handed to it when a player asks for it, not only at its
    takeover watch's next look: a client that follows TABLE_MOVED at once is not told
    TABLE_NOT_FOUND in between."""
    a, b = await two_nodes(database_url)
    try:
        assert b.server.takeover is not None
        await b.server.takeover.stop()  # b would load it only when asked, then
        await a.create_table("tq")
        await a.seat("tq", "ann", seat=1)  # alone: no hand for the move to wait for
        await a.server.manager.move("tq", "b")
        assert "tq" not in b.server.manager.tables
        stream = b.tables.WatchTable(
            table_service_pb2.WatchTableRequest(table="tables/tq"), metadata=b.player_md("ann")
        )
        first = await first_message(stream)
        assert first.snapshot.table == "tables/tq" and first.snapshot.viewer_seat == 1
        assert "tq" in b.server.manager.tables
        stream.cancel()
        # A table neither moved here nor known anywhere is still not found.
        await refused(
            b.tables.WatchTable(
                table_service_pb2.WatchTableRequest(table="tables/nowhere"),
                metadata=b.player_md("ann"),
            ).read(),
            grpc.StatusCode.NOT_FOUND,
            "TABLE_NOT_FOUND",
        )
    finally:
        await shut(a)
        await shut(b)


async def test_a_table_taken_from_under_a_node_stops_there_at_its_next_write(
    database_url: str,
) -> None:
    a, b = await two_nodes(database_url)
    try:
        await a.create_table("tt")
        await a.server.manager.tables["tt"].pause("test")
        await a.seat("tt", "ann", seat=1)
        stream = a.tables.WatchTable(
            table_service_pb2.WatchTableRequest(table="tables/tt"), metadata=a.player_md("ann")
        )
        await first_message(stream)
        # Another process moved the table on (as a takeover does), behind a's back.
        engine = create_engine_for(database_url)
        try:
            async with engine.begin() as connection:
                await connection.execute(
                    sa.text(
                        "UPDATE tables SET node_id = 'b', owner_epoch = owner_epoch + 1"
                        " WHERE id = 'tt'"
                    )
                )
        finally:
            await engine.dispose()
        # a's next write of the table changes nothing, and names the owner.
        await refused(
            a.seat("tt", "bob", seat=2), grpc.StatusCode.UNAVAILABLE, "TABLE_MOVED", node="b"
        )
        ended = await stream_end(stream)
        assert moved_to(ended) == b.grpc_address
        async with asyncio.timeout(5):
            while "tt" in a.server.manager.tables:
                await asyncio.sleep(0.02)
        # a goes on serving (its lease is its own), b serves the table, bob was never seated.
        assert not a.server.lost.is_set()
        await adopted(b, "tt")
        assert [s.player_id for s in b.server.manager.tables["tt"].seats.values()] == ["ann"]
        with contextlib.suppress(grpc.aio.AioRpcError):
            stream.cancel()
    finally:
        await shut(a)
        await shut(b)


async def hands_of(url: str, tables: list[str]) -> list[tuple[str, int, str]]:
    engine = create_engine_for(url)
    try:
        async with engine.connect() as connection:
            found = await connection.execute(
                sa.text(
                    "SELECT table_id, hand_number, state FROM hands WHERE table_id IN :ids"
                ).bindparams(sa.bindparam("ids", expanding=True)),
                {"ids": tables},
            )
            return [tuple(r) for r in found.all()]  # type: ignore[misc]
    finally:
        await engine.dispose()


async def test_move_table_through_the_admin_service(database_url: str) -> None:
    a, b = await two_nodes(database_url)
    try:
        await a.create_table("mv")
        await a.seat("mv", "ann", seat=1)
        request = admin_service_pb2.MoveTableRequest(name="tables/mv", node="b")
        # Not to itself, not to a node that is not live; nothing changes.
        for node, says in (("a", "already"), ("zz", "not live")):
            info = await refused(
                a.admin.MoveTable(
                    admin_service_pb2.MoveTableRequest(name="tables/mv", node=node),
                    metadata=a.admin_md,
                ),
                grpc.StatusCode.INVALID_ARGUMENT,
                "INVALID_ARGUMENT",
                field="node",
            )
            assert info is not None and says in (await _details(a, node))
        assert "mv" in a.server.manager.tables
        # Players and the lobby may not move tables.
        await refused(
            a.admin.MoveTable(request, metadata=a.player_md("ann")),
            grpc.StatusCode.PERMISSION_DENIED,
            "ADMIN_REQUIRED",
        )
        answer = await a.admin.MoveTable(request, metadata=a.admin_md)
        assert (answer.node, answer.grpc_address, answer.web_url) == (
            "b",
            b.grpc_address,
            b.web_url,
        )
        assert not answer.waited_for_hand
        # A retry answers the same and changes nothing.
        again = await a.admin.MoveTable(request, metadata=a.admin_md)
        assert again.node == "b"
        await adopted(b, "mv")
        # No node given: the least loaded live node but this one (a, the only other).
        back = await b.admin.MoveTable(
            admin_service_pb2.MoveTableRequest(name="tables/mv"), metadata=b.admin_md
        )
        assert back.node == "a"
        await adopted(a, "mv")
        assert [s.player_id for s in a.server.manager.tables["mv"].seats.values()] == ["ann"]
    finally:
        await shut(a)
        await shut(b)


async def _details(node: Engine, target: str) -> str:
    """The message MoveTable's refusal gives for ``target``."""
    try:
        await node.admin.MoveTable(
            admin_service_pb2.MoveTableRequest(name="tables/mv", node=target),
            metadata=node.admin_md,
        )
    except grpc.aio.AioRpcError as error:
        return str(error.details())
    raise AssertionError("not refused")


async def test_a_drain_moves_every_table_to_the_other_nodes_under_play(
    database_url: str,
) -> None:
    a, b = await two_nodes(database_url)
    c = await launch(database_url, node_id="c", lease_seconds=LEASE)
    try:
        tables = ["d1", "d2", "d3", "d4"]
        streams = {}
        for table_id in tables:
            await a.create_table(table_id, overrides={"action_seconds": 0.2})
            await a.seat(table_id, f"{table_id}-ann", seat=1)
            await a.seat(table_id, f"{table_id}-bob", seat=2)
            streams[table_id] = a.tables.WatchTable(
                table_service_pb2.WatchTableRequest(table=f"tables/{table_id}"),
                metadata=a.player_md(f"{table_id}-ann"),
            )
            await first_message(streams[table_id])
        async with asyncio.timeout(10):
            while not any(a.server.manager.tables[t].hand_running for t in tables):
                await asyncio.sleep(0.02)
        answer = await a.admin.Drain(
            admin_service_pb2.DrainRequest(move_tables=True), metadata=a.admin_md, timeout=30
        )
        assert (answer.tables, answer.tables_moved) == (4, 4)
        assert answer.hands_finished >= 1
        assert a.server.manager.tables == {}
        addresses = {"b": b.grpc_address, "c": c.grpc_address}
        went = {}
        for table_id, stream in streams.items():
            ended = await stream_end(stream)
            went[table_id] = moved_to(ended)
        # Spread over b and c, two each.
        assert sorted(went.values()) == sorted([addresses["b"]] * 2 + [addresses["c"]] * 2)
        for table_id, address in went.items():
            node = b if address == b.grpc_address else c
            await adopted(node, table_id)
        # No hand was cancelled: each was played out before its table moved.
        assert "cancelled" not in {state for _, _, state in await hands_of(database_url, tables)}
        # The drained node stops cleanly, with nothing left to finish.
        await shut(a)
        async with asyncio.timeout(10):
            while True:
                played = await hands_of(database_url, tables)
                if all(any(t == table_id and n > 1 for t, n, _ in played) for table_id in tables):
                    break
                await asyncio.sleep(0.1)
    finally:
        for node in (a, b, c):
            with contextlib.suppress(Exception):
                await shut(node)
