"""Hands' actions stored as they are taken: in order, once, many tables' in one write."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from engine_server.store.adapter import StoreTables
from engine_server.store.database import create_engine_for
from engine_server.store.errors import StoreError
from engine_server.store.hand_actions import HandAction, Pruned
from engine_server.store.migrate import prepare_database
from engine_server.store.repository import EngineStore
from tests.engine_server.store.conftest import StepClock
from tests.engine_server.store.support import count, finish_kwargs, new_table, seat, start


def _call(seat: int, n: int) -> dict[str, object]:
    return {"seat": seat, "do": "call", "amount": n, "to": n, "all_in": False, "timeout": False}


async def test_actions_are_stored_in_order_and_a_retry_changes_nothing(
    store: EngineStore,
) -> None:
    tables = [await new_table(store, f"req-{n}") for n in (1, 2)]
    hands = []
    for table in tables:
        seats = [await seat(store, table.id, n) for n in (1, 2)]
        hands.append(await start(store, table, 1, seats))
    a, b = (h.id for h in hands)
    # Two hands' actions in one write, each hand's in order.
    await store.hand_actions.record(
        [
            HandAction(a, 0, _call(1, 1)),
            HandAction(b, 0, _call(2, 2)),
            HandAction(a, 1, _call(2, 3)),
        ]
    )
    # A retry of a write whose answer was lost (the same keys): nothing changes, even when it
    # says something else; the next action goes on after them.
    await store.hand_actions.record([HandAction(a, 1, _call(2, 99)), HandAction(a, 2, _call(1, 4))])
    assert await store.hand_actions.actions_of(a) == [_call(1, 1), _call(2, 3), _call(1, 4)]
    assert await store.hand_actions.actions_of(b) == [_call(2, 2)]
    # Several hands' at once (a takeover's recovery), each in order; one with none is empty.
    assert await store.hand_actions.actions_of_hands([b, a, "no-such-hand"]) == {
        a: [_call(1, 1), _call(2, 3), _call(1, 4)],
        b: [_call(2, 2)],
        "no-such-hand": [],
    }
    assert await store.hand_actions.actions_of_hands([]) == {}
    assert await count(store, "SELECT count(*) FROM hand_actions") == 4


async def test_an_action_of_no_hand_or_with_a_negative_seq_is_refused_and_nothing_is_written(
    store: EngineStore,
) -> None:
    table = await new_table(store)
    seats = [await seat(store, table.id, n) for n in (1, 2)]
    hand = await start(store, table, 1, seats)
    with pytest.raises(StoreError, match="seq"):
        await store.hand_actions.record(
            [HandAction(hand.id, 0, _call(1, 1)), HandAction(hand.id, -1, _call(1, 1))]
        )
    with pytest.raises(Exception, match=r"(?i)foreign|constraint"):
        await store.hand_actions.record(
            [HandAction(hand.id, 0, _call(1, 1)), HandAction("h-none", 0, _call(1, 1))]
        )
    assert await count(store, "SELECT count(*) FROM hand_actions") == 0


async def test_the_actions_of_one_turn_of_the_loop_go_in_one_write(store: EngineStore) -> None:
    adapter = StoreTables(store)
    hands = []
    for n in range(5):
        table = await new_table(store, f"req-{n}")
        seats = [await seat(store, table.id, s) for s in (1, 2)]
        hands.append((await start(store, table, 1, seats)).id)
    writes = 0
    record = store.hand_actions.record

    async def counted(batch: list[HandAction]) -> int:
        nonlocal writes
        writes += 1
        return await record(batch)

    store.hand_actions.record = counted  # type: ignore[method-assign]
    # Five tables act in the same turn of the loop: one write holds all of them.
    await asyncio.gather(*(adapter.record_actions(h, 0, [_call(1, 1)]) for h in hands))
    assert writes == 1 and adapter.actions.batches == 1 and adapter.actions.actions == 5
    # Then each table's next, again together; and one table's own, in order.
    await asyncio.gather(*(adapter.record_actions(h, 1, [_call(2, 2), _call(1, 3)]) for h in hands))
    assert writes == 2
    for h in hands:
        assert await store.hand_actions.actions_of(h) == [_call(1, 1), _call(2, 2), _call(1, 3)]


async def test_a_failed_write_fails_every_action_of_its_batch_and_stores_none(
    store: EngineStore,
) -> None:
    adapter = StoreTables(store)
    table = await new_table(store)
    seats = [await seat(store, table.id, n) for n in (1, 2)]
    hand = await start(store, table, 1, seats)
    # An action of a hand the store does not know fails the write it shares.
    results = await asyncio.gather(
        adapter.record_actions(hand.id, 0, [_call(1, 1)]),
        adapter.record_actions("h-none", 0, [_call(1, 1)]),
        return_exceptions=True,
    )
    assert all(isinstance(r, Exception) for r in results), results
    assert await store.hand_actions.actions_of(hand.id) == []
    # The next write is a new batch, and succeeds.
    await adapter.record_actions(hand.id, 0, [_call(1, 1)])
    assert await store.hand_actions.actions_of(hand.id) == [_call(1, 1)]


async def test_on_sqlite_a_batch_waits_for_a_lock_another_connection_holds_without_the_loop(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path}/engine.sqlite3"
    await prepare_database(url)
    store = EngineStore(create_engine_for(url))
    try:
        table = await new_table(store)
        seats = [await seat(store, table.id, n) for n in (1, 2)]
        hand = await start(store, table, 1, seats)
        writer = store.hand_actions._sqlite
        assert writer is not None
        await store.hand_actions.record([HandAction(hand.id, 0, _call(1, 1))])
        assert writer.waited == 0  # written at once, in the loop
        # Another process (the lobby, say) holds SQLite's write lock for a moment.
        other = sqlite3.connect(tmp_path / "engine.sqlite3", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        writing = asyncio.create_task(
            store.hand_actions.record([HandAction(hand.id, 1, _call(2, 2))])
        )
        ticks = 0
        while not writing.done() and ticks < 20:
            await asyncio.sleep(0.01)  # the loop runs on meanwhile
            ticks += 1
        assert not writing.done() and ticks == 20
        other.execute("COMMIT")
        other.close()
        await asyncio.wait_for(writing, 10)
        assert writer.waited == 1
        assert await store.hand_actions.actions_of(hand.id) == [_call(1, 1), _call(2, 2)]
    finally:
        await store.dispose()


async def test_an_ended_hands_actions_are_pruned_after_the_time_kept_and_its_record_is_unchanged(
    store: EngineStore, clock: StepClock
) -> None:
    started = []
    for n in range(3):
        table = await new_table(store, f"req-{n}")
        seats = [await seat(store, table.id, s) for s in (1, 2)]
        hand = await start(store, table, 1, seats)
        await store.hand_actions.record([HandAction(hand.id, 0, _call(1, 1))])
        started.append((hand, seats))
    (done, done_seats), (cancelled, _), (running, _) = started
    await store.hand_actions.record([HandAction(done.id, 1, _call(2, 2))])
    await store.hands.finish_hand(
        done.id,
        **finish_kwargs({done_seats[0].id: 199, done_seats[1].id: 201}, actions=[_call(1, 1)]),
    )
    await store.hands.cancel_hand(cancelled.id, "engine restart", actions=[_call(1, 1)])
    ended = clock.now
    before = {h.id: await store.hands.get_hand(h.id) for h in (done, cancelled)}

    # Kept until the time has passed: nothing ended before ``ended_before``.
    assert await store.hand_actions.prune(ended - timedelta(hours=1)) == Pruned(0, 0)
    assert await count(store, "SELECT count(*) FROM hand_actions") == 4
    # Then the ended hands' rows go, a batch of ``hands`` at a time; the running one's stay.
    first = await store.hand_actions.prune(ended + timedelta(seconds=1), hands=1)
    second = await store.hand_actions.prune(ended + timedelta(seconds=1), hands=5)
    # The finished hand had 2 rows, the cancelled one 1: whichever went first.
    assert (first.hands, second.hands) == (1, 1)
    assert sorted((first.rows, second.rows)) == [1, 2]
    assert await store.hand_actions.prune(ended + timedelta(seconds=1)) == Pruned(0, 0)
    assert await store.hand_actions.actions_of(done.id) == []
    assert await store.hand_actions.actions_of(cancelled.id) == []
    assert await store.hand_actions.actions_of(running.id) == [_call(1, 1)]
    # What history, PHH and fairness read of them is their rows: unchanged.
    for hand_id, row in before.items():
        after = await store.hands.get_hand(hand_id)
        assert (after.state, after.actions, after.cards, after.result, after.phh) == (
            row.state,
            row.actions,
            row.cards,
            row.result,
            row.phh,
        )
    with pytest.raises(StoreError, match="positive"):
        await store.hand_actions.prune(ended, hands=0)
