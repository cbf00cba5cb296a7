"""Engine nodes that survive each other: three ``stud engine`` processes on one database
(SQLite file shared, and PostgreSQL), hands playing on every node (a sub-second clock acting
for the players).

- ``kill -9`` one node mid-hand: the others take over its tables within the lease plus a
  bound, cancel the hands it left running (every chip back, seated players keep their seats)
  and deal on.
- ``SIGSTOP`` one node past its lease: its tables are taken over; woken with ``SIGCONT`` it
  writes nothing (the hand it was playing ends cancelled by the new owner, not finished by
  it), stops serving and exits 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

import grpc
import sqlalchemy as sa
from google.protobuf import struct_pb2
from stud.v1 import admin_service_pb2, admin_service_pb2_grpc, settings_pb2

from benchmarks.processes import ReadyProcess
from engine_server.auth import Scope
from engine_server.store.database import create_engine_for
from tests.engine_server.api import test_nodes
from tests.engine_server.api.conftest import bearer
from tests.engine_server.api.test_nodes import engine_process, exit_of

#: SQLite (a file the three processes share) and PostgreSQL
database_url = test_nodes.database_url
#: leases of two seconds: one second leases taken over from a node only slowed down by the
#: loaded machine would turn a slow node into a dead one
LEASE = 2.0

#: how long after a node's lease has run out its tables must be playing again (the takeover
#: look comes every sixth of the lease, loading takes a moment; slack for a loaded machine)
BOUND = 4.0
#: tables per node
TABLES = 2
ADMIN = bearer("ops", Scope.ADMIN)


@dataclass
class Node:
    name: str
    process: ReadyProcess
    grpc: str
    channel: grpc.aio.Channel
    admin: admin_service_pb2_grpc.AdminServiceStub
    tables: list[str] = field(default_factory=list)


@contextlib.asynccontextmanager
async def three_nodes(url: str) -> AsyncIterator[dict[str, Node]]:
    async with contextlib.AsyncExitStack() as stack:
        nodes = {}
        for name in "abc":
            process = await stack.enter_async_context(
                engine_process(
                    url,
                    name,
                    STUD_ENGINE_BETWEEN_HANDS="0.1",
                    STUD_ENGINE_LEASE_SECONDS=str(LEASE),
                )
            )
            ready = await process.wait_ready("grpc", 30)
            channel = grpc.aio.insecure_channel(ready["grpc"])
            stack.push_async_callback(channel.close)
            nodes[name] = Node(
                name,
                process,
                ready["grpc"],
                channel,
                admin_service_pb2_grpc.AdminServiceStub(channel),
            )
        yield nodes


async def open_tables(node: Node) -> None:
    """Two tables on the node, two players at each, a 0.2 s clock playing for them."""
    for n in range(TABLES):
        table_id = f"{node.name}{n}"
        overrides = struct_pb2.Struct()
        overrides.update({"action_seconds": 0.2})
        await node.admin.CreateTable(
            admin_service_pb2.CreateTableRequest(
                request_id=f"create-{table_id}",
                table_id=table_id,
                profile="house",
                rule_overrides=overrides,
                stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
                min_buy_in=10,
                max_buy_in=10_000,
                client_seed="alice",
            ),
            metadata=ADMIN,
        )
        for seat in (1, 2):
            await node.admin.SeatPlayer(
                admin_service_pb2.SeatPlayerRequest(
                    table=f"tables/{table_id}",
                    seat_session_id=f"ss-{table_id}-{seat}",
                    player_id=f"{table_id}-p{seat}",
                    display_name=f"P{seat}",
                    seat=seat,
                    buy_in=100,
                ),
                metadata=ADMIN,
            )
        node.tables.append(table_id)


async def rows(url: str, query: str, **params: Any) -> list[Any]:
    statement = sa.text(query).bindparams(
        *(sa.bindparam(name, expanding=True) for name, v in params.items() if isinstance(v, tuple))
    )
    engine = create_engine_for(url)
    try:
        async with engine.connect() as connection:
            return list((await connection.execute(statement, params)).all())
    finally:
        await engine.dispose()


async def endings(url: str, hands: Iterable[str]) -> dict[str, str]:
    """How each of the ``hands`` (ids) ended: ``cancelled``; ``settled`` by the node that
    recovered it (its stored actions had ended it); else its state (a ``complete`` hand
    finished by the node that was playing it)."""
    found = await rows(
        url, "SELECT id, state, result FROM hands WHERE id IN :ids", ids=tuple(hands)
    )
    ended = {}
    for hand_id, state, result in found:
        trail = (json.loads(result) if isinstance(result, str) else result or {}).get("trail")
        settled = state == "complete" and "settled" in str(trail)
        ended[hand_id] = "settled" if settled else state
    return ended


async def running_hands(url: str, tables: list[str]) -> dict[str, str]:
    found = await rows(
        url,
        "SELECT table_id, id FROM hands WHERE state = 'running' AND table_id IN :ids",
        ids=tuple(tables),
    )
    return dict(found)  # type: ignore[arg-type]


async def wait_for_running_hands(url: str, tables: list[str]) -> dict[str, str]:
    async with asyncio.timeout(20):
        while True:
            running = await running_hands(url, tables)
            if set(running) == set(tables):
                return running
            await asyncio.sleep(0.02)


async def served(node: Node, table_id: str) -> admin_service_pb2.GetTableResponse | None:
    """The node's answer for the table (None: it is not the table's node)."""
    try:
        answer: admin_service_pb2.GetTableResponse = await node.admin.GetTable(
            admin_service_pb2.GetTableRequest(name=f"tables/{table_id}", reason="test"),
            metadata=ADMIN,
            timeout=2,
        )
    except grpc.aio.AioRpcError as error:
        if error.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND):
            return None
        raise
    return answer


async def hand_number(node: Node, table_id: str) -> int:
    answer = await served(node, table_id)
    assert answer is not None, table_id
    return answer.snapshot.hand_number


async def playing_again(
    survivors: list[Node], tables: list[str], after: dict[str, int]
) -> dict[str, str]:
    """Wait until each table is served by a survivor and has started a hand after
    ``after[table]``; returns the node serving each."""
    owners: dict[str, str] = {}
    while len(owners) < len(tables):
        for table_id in tables:
            if table_id in owners:
                continue
            for node in survivors:
                answer = await served(node, table_id)
                if answer is not None and answer.snapshot.hand_number > after[table_id]:
                    owners[table_id] = node.name
        await asyncio.sleep(0.05)
    return owners


async def chips_are_conserved(url: str) -> None:
    """Every chip bought in is in a stack, or was raked: none lost or made by a takeover."""
    bought = (await rows(url, "SELECT COALESCE(SUM(chips_in), 0) FROM seat_sessions"))[0][0]
    stacks = (await rows(url, "SELECT COALESCE(SUM(stack), 0) FROM seat_sessions"))[0][0]
    raked = (await rows(url, "SELECT COALESCE(SUM(rake), 0) FROM hands WHERE state = 'complete'"))[
        0
    ][0]
    assert bought == stacks + raked, (bought, stacks, raked)
    assert bought == 100 * 2 * TABLES * 3


async def hand_numbers_are_whole(url: str, tables: list[str]) -> None:
    """Each table's hands are numbered 1, 2, … without a gap or a repeat, at most one runs."""
    for table_id in tables:
        found = await rows(
            url,
            "SELECT hand_number, state FROM hands WHERE table_id = :t ORDER BY hand_number",
            t=table_id,
        )
        assert [n for n, _ in found] == list(range(1, len(found) + 1)), table_id
        assert [s for _, s in found].count("running") <= 1, table_id


async def test_a_killed_nodes_tables_play_again_on_the_other_nodes(database_url: str) -> None:
    url = database_url
    async with three_nodes(url) as nodes:
        for node in nodes.values():
            await open_tables(node)
        dead = nodes["c"]
        await wait_for_running_hands(url, dead.tables)
        numbers = {t: await hand_number(dead, t) for t in dead.tables}
        loop = asyncio.get_running_loop()
        dead.process.kill()
        killed = loop.time()
        await dead.process.wait()
        # What it left running (it writes nothing more).
        running = await running_hands(url, dead.tables)
        assert running
        survivors = [nodes["a"], nodes["b"]]
        async with asyncio.timeout(LEASE + BOUND + 10):
            owners = await playing_again(survivors, dead.tables, numbers)
        took = loop.time() - killed
        assert took < LEASE + BOUND, took
        # Spread: each survivor took one of the two tables (they had the same load).
        assert sorted(owners.values()) == ["a", "b"], owners
        states = await endings(url, running.values())
        # The hands c left running: cancelled by the new owners, every chip back (or settled
        # by them, if its stored actions had ended one: docs/operations.md, "Crashes").
        assert set(states.values()) <= {"cancelled", "settled"}, states
        # Seated players kept their seats at the new owners.
        for table_id, owner in owners.items():
            answer = await served(nodes[owner], table_id)
            assert answer is not None
            assert sorted(s.player_id for s in answer.table.seats) == [
                f"{table_id}-p1",
                f"{table_id}-p2",
            ]
        owner_rows = dict(
            await rows(url, "SELECT id, node_id FROM tables WHERE id IN :ids", ids=tuple(owners))
        )
        assert owner_rows == owners
        node_c = await rows(url, "SELECT state, epoch FROM engine_nodes WHERE id = 'c'")
        assert tuple(node_c[0]) == ("stopped", 2)
        # The survivors' own tables played on throughout.
        for node in survivors:
            for table_id in node.tables:
                assert await served(node, table_id) is not None
        await asyncio.sleep(0.5)
    await chips_are_conserved(url)
    await hand_numbers_are_whole(url, [f"{n}{i}" for n in "abc" for i in range(TABLES)])


async def test_a_frozen_node_woken_after_the_takeover_writes_nothing_and_exits(
    database_url: str,
) -> None:
    url = database_url
    async with three_nodes(url) as nodes:
        for node in nodes.values():
            await open_tables(node)
        frozen = nodes["c"]
        await wait_for_running_hands(url, frozen.tables)
        numbers = {t: await hand_number(frozen, t) for t in frozen.tables}
        frozen.process.pause()
        await asyncio.sleep(0.1)  # the signal is delivered
        # What it was playing when it froze (it can write nothing while stopped).
        running = await running_hands(url, frozen.tables)
        assert running
        try:
            async with asyncio.timeout(LEASE + BOUND + 10):
                owners = await playing_again([nodes["a"], nodes["b"]], frozen.tables, numbers)
        finally:
            frozen.process.resume()
        # Woken, with its clock long past every turn's end: it finds its node retired (or
        # its last renewal too old to go on), writes nothing and exits 1.
        code, errors = await exit_of(frozen.process)
        assert code == 1, errors
        last = errors.strip().splitlines()[-1]
        assert last.startswith("stud engine: engine node 'c' stopped serving its tables: "), errors
        assert "lease lost" in last or "lease not renewed" in last, errors
        # The hands it was playing were not finished by it, though their clocks had run out
        # when it woke: the new owners had cancelled them.
        ended = await endings(url, running.values())
        assert set(ended.values()) <= {"cancelled", "settled"}, ended
        owner_rows = dict(
            await rows(url, "SELECT id, node_id FROM tables WHERE id IN :ids", ids=tuple(owners))
        )
        assert owner_rows == owners
        await asyncio.sleep(0.5)
    await chips_are_conserved(url)
    await hand_numbers_are_whole(url, [f"{n}{i}" for n in "abc" for i in range(TABLES)])
