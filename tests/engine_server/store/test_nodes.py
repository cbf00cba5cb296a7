"""The node registry and table ownership on SQLite and PostgreSQL.

Claiming a node id is one conditional upsert: of processes claiming at once, exactly one
gets an epoch (each claimant here has an engine, so a connection, of its own); a node is
claimed again only once it stopped or its lease ran out, and the process that held it then
finds its renewals refused. Each node's store calls see only that node's tables.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from engine_server.store.database import create_engine_for
from engine_server.store.errors import NodeFenced, TableOnOtherNode
from engine_server.store.hands import HandSeat
from engine_server.store.models import DEFAULT_NODE_ID, NodeState
from engine_server.store.nodes import NodeAddresses, NodeRegistry, WriteFence, live_nodes
from engine_server.store.repository import EngineStore

from .support import new_table

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
HERE = NodeAddresses("10.0.0.1:50051", "play.example:443", "https://play.example/engine")
LEASE = 15.0


@pytest.fixture
async def registry(url: str) -> AsyncIterator[NodeRegistry]:
    engine = create_engine_for(url)
    try:
        yield NodeRegistry(engine)
    finally:
        await engine.dispose()


async def test_a_first_claim_registers_the_node_with_its_addresses(
    registry: NodeRegistry,
) -> None:
    assert await registry.claim("a", HERE, now=T0, lease_seconds=LEASE) == 1
    row = await registry.get("a")
    assert row is not None
    assert (row.epoch, row.state) == (1, NodeState.STARTING.value)
    assert (row.admin_address, row.grpc_address, row.web_url) == HERE
    assert (row.started_at, row.heartbeat_at) == (T0, T0)
    assert row.expires_at == T0 + timedelta(seconds=LEASE)


async def test_a_held_node_is_refused_until_its_lease_runs_out(registry: NodeRegistry) -> None:
    assert await registry.claim("a", HERE, now=T0, lease_seconds=LEASE) == 1
    just_before = T0 + timedelta(seconds=LEASE - 0.001)
    assert await registry.claim("a", HERE, now=just_before, lease_seconds=LEASE) is None
    # A renewal moves the lease on; the old deadline no longer frees it.
    assert await registry.renew("a", 1, now=T0 + timedelta(seconds=5), lease_seconds=LEASE)
    after_first = T0 + timedelta(seconds=LEASE + 1)
    assert await registry.claim("a", HERE, now=after_first, lease_seconds=LEASE) is None
    expired = T0 + timedelta(seconds=5 + LEASE + 0.001)
    assert await registry.claim("a", HERE, now=expired, lease_seconds=LEASE) == 2
    # The process of epoch 1 finds out at its next renewal, and can change nothing.
    assert not await registry.renew("a", 1, now=expired, lease_seconds=LEASE)
    assert not await registry.set_state("a", 1, NodeState.STOPPED, now=expired)
    row = await registry.get("a")
    assert row is not None and (row.epoch, row.state) == (2, NodeState.STARTING.value)


async def test_a_stopped_node_is_claimed_at_once(registry: NodeRegistry) -> None:
    assert await registry.claim("a", HERE, now=T0, lease_seconds=LEASE) == 1
    assert await registry.set_state("a", 1, NodeState.STOPPED, now=T0 + timedelta(seconds=1))
    assert not await registry.renew("a", 1, now=T0 + timedelta(seconds=2), lease_seconds=LEASE)
    assert await registry.claim("a", HERE, now=T0 + timedelta(seconds=2), lease_seconds=LEASE) == 2


async def test_of_claims_made_at_once_exactly_one_wins(url: str) -> None:
    engines = [create_engine_for(url) for _ in range(6)]
    try:
        for round_number in range(3):
            # The first round races for a new row (INSERT), the others for a stopped one
            # (the conflict's UPDATE).
            now = T0 + timedelta(seconds=round_number)
            claims = await asyncio.gather(
                *(NodeRegistry(e).claim("a", HERE, now=now, lease_seconds=LEASE) for e in engines)
            )
            won = [epoch for epoch in claims if epoch is not None]
            assert won == [round_number + 1], claims
            assert await NodeRegistry(engines[0]).set_state("a", won[0], NodeState.STOPPED, now=now)
    finally:
        for engine in engines:
            await engine.dispose()


async def test_live_nodes_are_serving_unexpired_and_fewest_tables_first(
    registry: NodeRegistry, store: EngineStore
) -> None:
    now = datetime.now(UTC)
    for node in ("a", "b", "c", "d"):
        assert await registry.claim(node, HERE, now=now, lease_seconds=LEASE) == 1
    for node in ("a", "b", "c"):
        await registry.set_state(node, 1, NodeState.SERVING, now=now)
    await registry.set_state("c", 1, NodeState.DRAINING, now=now)  # "d" is still starting
    await new_table(store, "r1", node_id="a")
    await new_table(store, "r2", node_id="a")
    await new_table(store, "r3", node_id="b")
    async with store.engine.connect() as connection:
        rows = (await connection.execute(live_nodes(now))).mappings().all()
        assert [(r["id"], r["open_tables"]) for r in rows] == [("b", 1), ("a", 2)]
        later = now + timedelta(seconds=LEASE + 1)
        assert (await connection.execute(live_nodes(later))).all() == []


async def test_each_node_sees_only_its_own_tables(store: EngineStore) -> None:
    mine = await new_table(store, "r1", node_id="a")
    theirs = await new_table(store, "r2", node_id="b")
    default = await new_table(store, "r3")
    assert default.node_id == DEFAULT_NODE_ID
    assert await store.tables.table_owner(theirs.id) == "b"
    assert await store.tables.table_owner("nope") is None
    assert [t.table.id for t in await store.tables.open_tables("a")] == [mine.id]
    assert {t.table.id for t in await store.tables.open_tables()} == {
        mine.id,
        theirs.id,
        default.id,
    }
    page = await store.tables.list_tables(node_id="b")
    assert [t.id for t in page.items] == [theirs.id]
    # A retry of b's CreateTable reaching node a is refused, naming the owner.
    with pytest.raises(TableOnOtherNode) as refused:
        await new_table(store, "r2", node_id="a")
    assert refused.value.owner == "b"
    assert (await new_table(store, "r2", node_id="b")).id == theirs.id
    for table in (mine, theirs):
        await store.sessions.seat_player(
            table.id, f"s1-{table.id}", player_id="p1", display_name="P1", seat=1, buy_in=200
        )
        await store.sessions.seat_player(
            table.id, f"s2-{table.id}", player_id="p2", display_name="P2", seat=2, buy_in=200
        )
        pair = await store.seeds.current_seed_pair(table.id)
        await store.hands.start_hand(
            table.id,
            hand_number=1,
            seed_pair_id=pair.id,
            button_seat=1,
            players=[
                HandSeat(1, f"s1-{table.id}", "p1", 200),
                HandSeat(2, f"s2-{table.id}", "p2", 200),
            ],
            profile="house",
            settings={},
        )
    assert [h.table.id for h in await store.hands.running_hands("a")] == [mine.id]
    cancelled = await store.hands.recover_running_hands(node_id="a")
    assert [h.table_id for h in cancelled] == [mine.id]
    # Node b's hand runs on: only b cancels it when it restarts.
    assert [h.table.id for h in await store.hands.running_hands()] == [theirs.id]
    await store.tables.close_table(mine.id)
    assert await store.tables.closed_table_ids("a") == [mine.id]
    assert await store.tables.closed_table_ids("b") == []


async def test_a_fenced_store_writes_only_while_its_node_keeps_the_epoch_it_claimed(
    store: EngineStore,
) -> None:
    registry = NodeRegistry(store.engine)
    assert await registry.claim("a", HERE, now=T0, lease_seconds=LEASE) == 1
    told: list[str] = []
    store.tx.fence = WriteFence("a", 1, told.append)
    kept = await new_table(store, "f1", node_id="a")
    assert told == []
    # Another process claims the node once a's lease ran out: a's writes stop at once,
    # before a's next renewal would tell it.
    later = T0 + timedelta(seconds=LEASE + 1)
    assert await registry.claim("a", HERE, now=later, lease_seconds=LEASE) == 2
    for _ in range(2):
        with pytest.raises(NodeFenced, match=r"another process claimed engine node 'a' \(epoch 2;"):
            await new_table(store, "f2", node_id="a")
    with pytest.raises(NodeFenced):
        await store.sessions.seat_player(
            kept.id, "s1", player_id="p1", display_name="P1", seat=1, buy_in=200
        )
    assert len(told) == 1 and told[0].startswith("lease lost: another process claimed")
    # Nothing was written (no table, no seat); reads still work.
    assert [t.table.id for t in await store.tables.open_tables("a")] == [kept.id]
    assert (await store.tables.open_tables("a"))[0].sessions == []
    assert (await store.tables.get_table(kept.id)).id == kept.id
    # The new holder's fence lets its writes through.
    store.tx.fence = WriteFence("a", 2, told.append)
    added = await new_table(store, "f2", node_id="a")
    assert {t.table.id for t in await store.tables.open_tables("a")} == {kept.id, added.id}
