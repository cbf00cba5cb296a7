"""Tables changing hands, on SQLite and PostgreSQL: a dead node's tables taken over by the
live nodes (each table once, spread by load), one table handed over between live nodes, and
the per-table fence that keeps a process that lost a table from writing to it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from engine_server.store.database import create_engine_for
from engine_server.store.errors import HandInProgress, NodeFenced, NodeNotLive, TableMoved
from engine_server.store.models import NodeState
from engine_server.store.nodes import NodeAddresses, NodeRegistry, WriteFence
from engine_server.store.repository import EngineStore

from .support import new_table, seat, start

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
HERE = NodeAddresses("10.0.0.1:50051", "play.example:443", "https://play.example/engine")
LEASE = 15.0
LATER = T0 + timedelta(seconds=LEASE + 1)


async def serving(registry: NodeRegistry, *nodes: str, at: datetime = T0) -> None:
    for node in nodes:
        epoch = await registry.claim(node, HERE, now=at, lease_seconds=LEASE)
        assert epoch is not None
        assert await registry.set_state(node, epoch, NodeState.SERVING, now=at)


async def renewed(registry: NodeRegistry, *nodes: str, at: datetime) -> None:
    for node in nodes:
        row = await registry.get(node)
        assert row is not None
        assert await registry.renew(node, row.epoch, now=at, lease_seconds=LEASE)


async def test_a_dead_nodes_tables_are_spread_over_the_live_nodes_by_seated_players(
    store: EngineStore,
) -> None:
    registry = store.nodes
    await serving(registry, "dead", "a", "b")
    # a already seats four players, b none: b gets the dead node's busiest tables first.
    busy = await new_table(store, "on-a", node_id="a")
    for n in range(1, 5):
        await seat(store, busy.id, n)
    dead = [await new_table(store, f"d{n}", node_id="dead") for n in range(4)]
    for n in range(1, 4):
        await seat(store, dead[0].id, n)
    await seat(store, dead[1].id, 1)
    closed = await new_table(store, "d-closed", node_id="dead")
    await store.tables.close_table(closed.id)
    # The lease of "dead" runs out; a and b renew theirs.
    await renewed(registry, "a", "b", at=LATER - timedelta(seconds=1))

    taken = await store.owners.take_over_expired("a", now=LATER)
    assert [(t.node_id, t.epoch) for t in taken] == [("dead", 2)]
    given = taken[0].assigned
    # dead[0] (3 players) to b (0), dead[1] (1) to b (3 < 4); then a and b both seat 4, and
    # the empty tables go by open tables: a (1, then 2) before b (2).
    assert given == {"b": [dead[0].id, dead[1].id], "a": sorted([dead[2].id, dead[3].id])}
    row = await registry.get("dead")
    assert row is not None and (row.epoch, row.state) == (2, NodeState.STOPPED.value)
    assert await store.owners.assigned("b") == {dead[0].id: 2, dead[1].id: 2}
    assert await store.owners.assigned("a") == {busy.id: 1, dead[2].id: 2, dead[3].id: 2}
    # Seated players kept their seats; the closed table stayed where it was.
    assert len((await store.tables.load_tables([dead[0].id]))[0].sessions) == 3
    assert (await store.tables.get_table(closed.id)).node_id == "dead"
    # Nothing more to take: the dead node is retired (stopped), and its old process cannot
    # renew its lease.
    assert await store.owners.take_over_expired("b", now=LATER) == []
    assert not await registry.renew("dead", 1, now=LATER, lease_seconds=LEASE)


async def test_only_a_live_node_takes_over_and_never_from_a_cleanly_stopped_one(
    store: EngineStore,
) -> None:
    registry = store.nodes
    await serving(registry, "gone", "stopped", "a")
    await new_table(store, "g", node_id="gone")
    await new_table(store, "s", node_id="stopped")
    assert await registry.set_state("stopped", 1, NodeState.STOPPED, now=T0)
    # a's own lease ran out too: it is not live, it takes nothing.
    assert await store.owners.take_over_expired("a", now=LATER) == []
    await renewed(registry, "a", at=LATER)
    taken = await store.owners.take_over_expired("a", now=LATER)
    assert [t.node_id for t in taken] == ["gone"]
    # A cleanly stopped node's tables wait for it (a restart deals them again at once).
    assert await store.tables.table_owner((await new_table(store, "s", node_id="stopped")).id) == (
        "stopped"
    )


async def test_the_old_owner_writes_nothing_after_a_takeover(store: EngineStore) -> None:
    registry = store.nodes
    await serving(registry, "old", "a")
    table = await new_table(store, "t", node_id="old")
    seats = [await seat(store, table.id, n) for n in (1, 2)]
    hand = await start(store, table, 1, seats)
    # The old process, frozen past its lease, holds its fence (epoch 1, the table at 1).
    frozen = EngineStore(create_engine_for(store.tx.engine.url.render_as_string(False)))
    told: list[str] = []
    frozen.tx.fence = WriteFence("old", 1, told.append)
    frozen.tx.fence.hold(table.id, 1)
    try:
        await renewed(registry, "a", at=LATER)
        await store.owners.take_over_expired("a", now=LATER)
        # It wakes up: its hand's end, a seating, a status change are all refused.
        with pytest.raises(NodeFenced):
            await frozen.hands.finish_hand(
                hand.id,
                cards=[],
                actions=[],
                pots=[],
                rake=0,
                result={},
                phh=None,
                final_stacks={seats[0].id: 400, seats[1].id: 0},
            )
        with pytest.raises(NodeFenced):
            await seat(frozen, table.id, 3)
        assert len(told) == 1
    finally:
        await frozen.dispose()
    assert (await store.hands.get_hand(hand.id)).state == "running"
    assert [s.stack for s in (await store.tables.load_tables([table.id]))[0].sessions] == [
        200,
        200,
    ]
    # The new owner cancels the hand (every chip back) and deals on.
    store.tx.fence = WriteFence("a", 1, told.append)
    store.tx.fence.hold(table.id, 2)
    assert [h.id for h in await store.hands.recover_running_hands(table_ids=[table.id])] == [
        hand.id
    ]
    await seat(store, table.id, 3)


async def test_a_table_handed_over_is_fenced_per_table_for_its_old_owner(
    store: EngineStore,
) -> None:
    registry = store.nodes
    await serving(registry, "a", "b")
    told: list[str] = []
    store.tx.fence = WriteFence("a", 1, told.append)
    table = await new_table(store, "t", node_id="a")
    other = await new_table(store, "u", node_id="a")
    store.tx.fence.hold(table.id, 1)
    store.tx.fence.hold(other.id, 1)
    seats = [await seat(store, table.id, n) for n in (1, 2)]
    hand = await start(store, table, 1, seats)
    with pytest.raises(HandInProgress):
        await store.owners.hand_over(table.id, "b", now=T0)
    await store.hands.cancel_hand(hand.id, "test")
    with pytest.raises(NodeNotLive, match="engine node c is not live"):
        await store.owners.hand_over(table.id, "c", now=T0)
    with pytest.raises(NodeNotLive, match="on engine node a already"):
        await store.owners.hand_over(table.id, "a", now=T0)
    moved = await store.owners.hand_over(table.id, "b", now=T0)
    assert (moved.node_id, moved.owner_epoch) == ("b", 2)
    # a's process still believes it holds the table: every write of it is refused, naming b;
    # a's other tables, and a itself, are unaffected.
    with pytest.raises(TableMoved) as refused:
        await seat(store, table.id, 3)
    assert (refused.value.owner, refused.value.table_id) == ("b", table.id)
    await seat(store, other.id, 1)
    assert told == []
    # b, holding it at 2, writes; and when it moves back to a, a process holding the old
    # number (1) is still refused: the number, not only the node, must match.
    store.tx.fence = WriteFence("b", 1, told.append)
    store.tx.fence.hold(table.id, 2)
    await seat(store, table.id, 3)
    await store.owners.hand_over(table.id, "a", now=T0)
    store.tx.fence = WriteFence("a", 1, told.append)
    store.tx.fence.hold(table.id, 1)
    with pytest.raises(TableMoved):
        await seat(store, table.id, 4)
    assert len((await store.tables.load_tables([table.id]))[0].sessions) == 3


async def test_of_live_nodes_taking_over_at_once_each_table_goes_to_one(url: str) -> None:
    stores = [EngineStore(create_engine_for(url)) for _ in range(3)]
    try:
        registry = stores[0].nodes
        await serving(registry, "dead", "a", "b", "c")
        tables = [await new_table(stores[0], f"r{n}", node_id="dead") for n in range(12)]
        await renewed(registry, "a", "b", "c", at=LATER)
        results = await asyncio.gather(
            *(
                s.owners.take_over_expired(node, now=LATER)
                for s, node in zip(stores, "abc", strict=True)
            )
        )
        takeovers = [t for result in results for t in result]
        assert [t.node_id for t in takeovers] == ["dead"]
        given = takeovers[0].assigned
        assert sorted(i for ids in given.values() for i in ids) == sorted(t.id for t in tables)
        assert sorted(len(ids) for ids in given.values()) == [4, 4, 4]
        owners = {n: await stores[0].owners.assigned(n) for n in "abc"}
        assert sum(len(o) for o in owners.values()) == 12
        assert all(epoch == 2 for o in owners.values() for epoch in o.values())
    finally:
        for s in stores:
            await s.dispose()
