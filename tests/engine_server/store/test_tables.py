"""Tables on SQLite and PostgreSQL: creation (idempotent), statuses and drain holds, closing,
loading with seats, listing one page at a time.

Every test runs once per backend (see conftest.py) on a freshly migrated database.
"""

from __future__ import annotations

import asyncio
import hashlib
from datetime import timedelta
from typing import Any

import pytest

from engine_server.store.database import create_engine_for
from engine_server.store.errors import (
    HandInProgress,
    IdempotencyKeyReused,
    InvalidRecord,
    StoreError,
    TableClosed,
    TableExists,
    TableNotFound,
    TableState,
)
from engine_server.store.repository import EngineStore
from engine_server.store.tables import OpeningSeat

from .conftest import StepClock
from .support import STAKES, count, finish_kwargs, new_table, seat, start


async def test_create_table_makes_a_current_and_a_next_pair(store: EngineStore) -> None:
    table = await new_table(store, labels={"city": "vienna"}, rule_overrides={"burns": []})
    assert table.id.startswith("t-")
    assert (table.status, table.hands_started, table.button_seat) == ("waiting", 0, None)
    assert table.created_at.tzinfo is not None and table.closed_at is None
    current = await store.seeds.current_seed_pair(table.id)
    upcoming = await store.seeds.next_seed_pair(table.id)
    assert table.current_seed_pair_id == current.id
    assert (current.state, current.ordinal, current.next_nonce) == ("current", 1, 0)
    assert (upcoming.state, upcoming.ordinal, upcoming.next_nonce) == ("next", 2, 0)
    assert current.client_seed == "alice"
    assert current.dealer_seed != upcoming.dealer_seed
    for pair in (current, upcoming):
        assert len(pair.dealer_seed) == 64
        assert pair.commitment == hashlib.sha256(pair.dealer_seed.encode()).hexdigest()
        assert pair.revealed_at is None
    loaded = await store.tables.get_table(table.id)
    assert loaded.labels == {"city": "vienna"}
    assert loaded.rule_overrides == {"burns": []}
    assert loaded.created_at == table.created_at


async def test_create_table_is_idempotent_by_request_id(store: EngineStore) -> None:
    first = await new_table(store)
    again = await new_table(store)
    assert again.id == first.id
    assert await count(store, "SELECT count(*) FROM tables") == 1
    assert await count(store, "SELECT count(*) FROM seed_pairs") == 2
    with pytest.raises(IdempotencyKeyReused, match="small_bet"):
        await new_table(store, small_bet=10)
    with pytest.raises(IdempotencyKeyReused, match="client_seed"):
        await new_table(store, client_seed="bob")
    other = await new_table(store, "req-2")
    assert other.id != first.id


async def test_create_table_with_a_chosen_id(store: EngineStore) -> None:
    table = await new_table(store, table_id="vienna-1")
    assert table.id == "vienna-1"
    assert (await new_table(store, table_id="vienna-1")).id == "vienna-1"
    with pytest.raises(TableExists):
        await new_table(store, "req-2", table_id="vienna-1")
    with pytest.raises(IdempotencyKeyReused, match="table_id"):
        await new_table(store, table_id="vienna-2")


async def test_a_table_opened_with_its_openers_seat_answers_from_its_write(
    store: EngineStore,
) -> None:
    """create_open_table: the table, its pairs and the opener's open session as written, a
    retry answering alike from the store; a seat session id another table holds refuses the
    new table as a whole."""
    opener = OpeningSeat(seat_session_id="ss-1", player_id="ann", display_name="Ann", buy_in=150)
    arguments: dict[str, Any] = {**STAKES, "request_id": "req-1", "client_seed": "alice"}
    first = await store.tables.create_open_table(**arguments, table_id="t-one", opener=opener)
    assert [(s.id, s.player_id, s.seat, s.stack, s.state) for s in first.sessions] == [
        ("ss-1", "ann", 1, 150, "open")
    ]
    assert (first.current_pair.ordinal, first.next_pair.ordinal) == (1, 2)
    assert first.current_pair.id == (await store.seeds.current_seed_pair("t-one")).id
    again = await store.tables.create_open_table(**arguments, table_id="t-one", opener=opener)
    assert again.table.id == "t-one"
    assert [s.id for s in again.sessions] == ["ss-1"]
    assert (again.current_pair.id, again.next_pair.id) == (
        first.current_pair.id,
        first.next_pair.id,
    )
    with pytest.raises(IdempotencyKeyReused, match="seat_session_id 'ss-1'"):
        await store.tables.create_open_table(
            **{**arguments, "request_id": "req-2"}, table_id="t-two", opener=opener
        )
    assert await count(store, "SELECT count(*) FROM tables") == 1
    assert await count(store, "SELECT count(*) FROM seat_sessions") == 1


async def test_concurrent_retries_of_create_table_create_one_table(url: str) -> None:
    stores = [EngineStore(create_engine_for(url)) for _ in range(4)]
    try:
        tables = await asyncio.gather(*(new_table(s) for s in stores))
        assert len({t.id for t in tables}) == 1
        assert await count(stores[0], "SELECT count(*) FROM tables") == 1
        assert await count(stores[0], "SELECT count(*) FROM seed_pairs") == 2
    finally:
        for s in stores:
            await s.dispose()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"client_seed": "not a seed!"}, "client_seed"),
        ({"client_seed": ""}, "client_seed"),
        ({"min_buy_in": 0}, "buy-in"),
        ({"max_buy_in": 50}, "buy-in"),
        ({"small_bet": 0}, "small_bet"),
        ({"ante": -1}, "ante"),
        ({"request_id": ""}, "request_id"),
    ],
)
async def test_create_table_refuses_bad_input(
    store: EngineStore, changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(StoreError, match=message):
        await new_table(store, **changes)
    assert await count(store, "SELECT count(*) FROM tables") == 0


async def test_unknown_table(store: EngineStore) -> None:
    with pytest.raises(TableNotFound):
        await store.tables.get_table("nope")
    with pytest.raises(TableNotFound):
        await store.sessions.seat_player(
            "nope", "s", player_id="p", display_name="P", seat=1, buy_in=100
        )


async def test_status_changes_and_closing(store: EngineStore) -> None:
    table = await new_table(store)
    assert (await store.tables.set_table_status(table.id, "playing")).status == "playing"
    s1 = await seat(store, table.id, 1)
    with pytest.raises(TableState, match="close_table"):
        await store.tables.set_table_status(table.id, "closed")
    await store.sessions.close_session(s1.id, 200, "left")
    closed = await store.tables.set_table_status(table.id, "closed")
    assert closed.status == "closed" and closed.closed_at is not None
    with pytest.raises(TableClosed):
        await store.tables.set_table_status(table.id, "playing")
    with pytest.raises(ValueError, match="'resting'"):
        await store.tables.set_table_status(table.id, "resting")


async def test_a_drain_hold_is_stored_with_the_status_and_settled_on_start(
    store: EngineStore,
) -> None:
    kept = await new_table(store, "req-kept")  # ops drained the node: stays paused
    stopped = await new_table(store, "req-stopped")  # the node stopped: deals again
    pausing = await new_table(store, "req-pausing")  # ops drained it mid-hand, then a crash
    own = await new_table(store, "req-own")  # ops' own pause, left pausing by a crash
    playing = await new_table(store, "req-playing")
    await store.tables.set_table_status(kept.id, "paused", "drain")
    await store.tables.set_table_status(stopped.id, "pausing", "shutdown")
    await store.tables.set_table_status(stopped.id, "paused", "shutdown")
    await store.tables.set_table_status(pausing.id, "pausing", "drain")
    await store.tables.set_table_status(own.id, "pausing")
    await store.tables.set_table_status(playing.id, "playing")
    row = await store.tables.get_table(stopped.id)
    assert (row.status, row.drain_hold) == ("paused", "shutdown")
    # ListTables filters on the status as ops see it, a drain's pause included.
    listed = await store.tables.list_tables(statuses=["paused"])
    assert {t.id for t in listed.items} == {kept.id, stopped.id}
    # A hold goes only with a pause; an unknown one is refused; nothing is written.
    with pytest.raises(InvalidRecord, match="pausing or paused"):
        await store.tables.set_table_status(playing.id, "waiting", "drain")
    with pytest.raises(ValueError, match="'nap'"):
        await store.tables.set_table_status(kept.id, "paused", "nap")
    assert (await store.tables.get_table(kept.id)).drain_hold == "drain"
    assert (await store.tables.get_table(playing.id)).status == "playing"

    settled = await store.tables.settle_statuses_on_start()
    assert (settled.resumed, settled.paused) == ([stopped.id], [pausing.id, own.id])
    after = {t: await store.tables.get_table(t) for t in (kept.id, stopped.id, pausing.id, own.id)}
    assert {t: (r.status, r.drain_hold) for t, r in after.items()} == {
        kept.id: ("paused", "drain"),
        stopped.id: ("waiting", None),
        pausing.id: ("paused", "drain"),
        own.id: ("paused", None),
    }
    assert (await store.tables.get_table(playing.id)).status == "playing"
    again = await store.tables.settle_statuses_on_start()
    assert (again.resumed, again.paused) == ([], [])

    # Resumed (a status without a hold) clears it; so does closing the table.
    assert (await store.tables.set_table_status(pausing.id, "waiting")).drain_hold is None
    closure = await store.tables.close_table(kept.id)
    assert (closure.table.status, closure.table.drain_hold) == ("closed", None)


async def test_closing_a_table_pays_out_and_reveals(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2, buy_in=300)
    with pytest.raises(TableState):
        await store.seeds.reveal_on_close(table.id)
    hand = await start(store, table, 1, [s1, s2])
    with pytest.raises(HandInProgress):
        await store.tables.close_table(table.id)
    await store.hands.finish_hand(hand.id, **finish_kwargs({s1.id: 150, s2.id: 350}))
    closure = await store.tables.close_table(table.id)
    assert closure.table.status == "closed" and closure.table.closed_at is not None
    assert [(s.seat, s.stack, s.state, s.close_reason) for s in closure.closed_sessions] == [
        (1, 150, "closed", "table_closed"),
        (2, 350, "closed", "table_closed"),
    ]
    assert closure.revealed.id == hand.seed_pair_id and closure.revealed.revealed_at is not None
    # The next pair never dealt: it stays secret.
    assert (await store.seeds.next_seed_pair(table.id)).revealed_at is None
    again = await store.tables.close_table(table.id)
    assert (
        again.closed_sessions == [] and again.revealed.revealed_at == closure.revealed.revealed_at
    )
    assert (await store.seeds.reveal_on_close(table.id)).revealed_at == closure.revealed.revealed_at
    assert await store.tables.open_tables() == []
    with pytest.raises(TableClosed):
        await store.seeds.rotate_seed(table.id)


async def test_open_tables_restores_seats_and_pairs(store: EngineStore) -> None:
    table = await new_table(store)
    s2, s1 = await seat(store, table.id, 2), await seat(store, table.id, 1)
    gone = await new_table(store, "req-2")
    await store.tables.close_table(gone.id)
    [restored] = await store.tables.open_tables()
    assert restored.table.id == table.id
    assert [s.id for s in restored.sessions] == [s1.id, s2.id]
    assert restored.current_pair.state == "current" and restored.next_pair.state == "next"
    assert restored.current_pair.id == table.current_seed_pair_id


async def test_closed_tables_are_read_on_demand(store: EngineStore) -> None:
    open_one = await new_table(store, "req-open")
    closed = await new_table(store, "req-closed")
    await seat(store, closed.id, 1)
    await store.tables.close_table(closed.id)
    assert await store.tables.closed_table_ids() == [closed.id]
    [item] = await store.tables.load_tables([closed.id, "no-such-table"])
    assert (item.table.id, item.table.status, item.sessions) == (closed.id, "closed", [])
    assert item.current_pair.revealed_at is not None
    assert {t.table.id for t in await store.tables.load_tables([open_one.id, closed.id])} == {
        open_one.id,
        closed.id,
    }
    assert [t.table.id for t in await store.tables.open_tables()] == [open_one.id]


async def test_list_tables_pages_newest_first(store: EngineStore) -> None:
    made = [await new_table(store, f"req-{i}") for i in range(7)]
    expected = [t.id for t in reversed(made)]
    pages: list[list[str]] = []
    token = ""
    while True:
        page = await store.tables.list_tables(page_size=3, page_token=token)
        pages.append([t.id for t in page.items])
        token = page.next_page_token
        if not token:
            break
    assert pages == [expected[0:3], expected[3:6], expected[6:7]]
    # A table created meanwhile does not shift later pages.
    first = await store.tables.list_tables(page_size=3)
    await new_table(store, "req-late")
    second = await store.tables.list_tables(page_size=3, page_token=first.next_page_token)
    assert [t.id for t in second.items] == expected[3:6]
    # A page that ends exactly at the last table has no next page.
    exact = await store.tables.list_tables(page_size=8)
    assert (len(exact.items), exact.next_page_token) == (8, "")


async def test_list_tables_orders_ties_by_id(url: str) -> None:
    frozen = StepClock(step=timedelta(0))
    store = EngineStore(create_engine_for(url), clock=frozen)
    try:
        ids = sorted([(await new_table(store, f"req-{i}")).id for i in range(5)], reverse=True)
        seen: list[str] = []
        token = ""
        for _ in range(5):
            page = await store.tables.list_tables(page_size=2, page_token=token)
            seen += [t.id for t in page.items]
            token = page.next_page_token
            if not token:
                break
        assert seen == ids
    finally:
        await store.dispose()


async def test_list_tables_filters(store: EngineStore) -> None:
    public = await new_table(store, "a", labels={"city": "vienna", "stake_level": "low"})
    private = await new_table(store, "b", private=True, labels={"city": "vienna"})
    graz = await new_table(store, "c", labels={"city": "graz"})
    closed = await new_table(store, "d", labels={"city": "vienna"})
    await store.tables.close_table(closed.id)
    await store.tables.set_table_status(graz.id, "playing")

    async def ids(**filters: Any) -> list[str]:
        return [t.id for t in (await store.tables.list_tables(**filters)).items]

    assert await ids() == [graz.id, private.id, public.id]
    assert await ids(include_private=False) == [graz.id, public.id]
    assert await ids(labels={"city": "vienna"}) == [private.id, public.id]
    assert await ids(labels={"city": "vienna", "stake_level": "low"}) == [public.id]
    assert await ids(statuses=["closed"]) == [closed.id]
    assert await ids(statuses=["playing", "closed"]) == [closed.id, graz.id]
    with pytest.raises(ValueError):
        await ids(statuses=["sleeping"])
