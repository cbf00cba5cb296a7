"""Hands on SQLite and PostgreSQL: nonces (used once, never skipped), finishing (atomic, chips
conserved), cancelling and recovery after a crash.

Every test runs once per backend (see conftest.py) on a freshly migrated database.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from engine_server.store.database import create_engine_for
from engine_server.store.errors import (
    HandInProgress,
    HandNotFound,
    InvalidRecord,
    SeatSessionNotFound,
    StaleHand,
)
from engine_server.store.hands import HandSeat
from engine_server.store.models import HandRow
from engine_server.store.repository import EngineStore

from .conftest import StepClock
from .support import count, finish_kwargs, new_table, seat, start


async def test_start_hand_consumes_the_next_nonce(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2, buy_in=300)
    pair = await store.seeds.current_seed_pair(table.id)
    hand = await start(store, table, 1, [s1, s2])
    assert (hand.state, hand.hand_number, hand.nonce) == ("running", 1, 0)
    assert (hand.seed_pair_id, hand.commitment, hand.client_seed) == (
        pair.id,
        pair.commitment,
        "alice",
    )
    assert (await store.seeds.current_seed_pair(table.id)).next_nonce == 1
    loaded = await store.tables.get_table(table.id)
    assert (loaded.hands_started, loaded.button_seat) == (1, 1)
    players = await store.hands.hand_players(hand.id)
    assert [(p.seat, p.player_id, p.start_stack, p.final_stack) for p in players] == [
        (1, "p1", 200, None),
        (2, "p2", 300, None),
    ]
    # A retry of the same start returns the hand and takes no second nonce.
    assert (await start(store, table, 1, [s1, s2])).id == hand.id
    assert (await store.seeds.current_seed_pair(table.id)).next_nonce == 1


async def test_start_hand_refusals(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2, s3 = [await seat(store, table.id, n) for n in (1, 2, 3)]
    pair = await store.seeds.current_seed_pair(table.id)
    upcoming = await store.seeds.next_seed_pair(table.id)

    async def attempt(**changes: Any) -> HandRow:
        arguments: dict[str, Any] = {
            "hand_number": 1,
            "seed_pair_id": pair.id,
            "button_seat": 1,
            "players": [HandSeat(1, s1.id, "p1", 200), HandSeat(2, s2.id, "p2", 200)],
            "profile": "house",
            "settings": {},
        }
        arguments.update(changes)
        return await store.hands.start_hand(table.id, **arguments)

    with pytest.raises(StaleHand, match="next hand"):
        await attempt(hand_number=2)
    with pytest.raises(StaleHand, match="seed pair"):
        await attempt(seed_pair_id=upcoming.id)
    with pytest.raises(InvalidRecord, match="199"):
        await attempt(players=[HandSeat(1, s1.id, "p1", 199), HandSeat(2, s2.id, "p2", 200)])
    with pytest.raises(InvalidRecord, match="seat 2"):
        await attempt(players=[HandSeat(1, s1.id, "p1", 200), HandSeat(3, s2.id, "p2", 200)])
    with pytest.raises(InvalidRecord, match="two players"):
        await attempt(players=[HandSeat(1, s1.id, "p1", 200)])
    with pytest.raises(SeatSessionNotFound):
        await attempt(players=[HandSeat(1, s1.id, "p1", 200), HandSeat(2, "ghost", "p2", 200)])
    assert await count(store, "SELECT count(*) FROM hands") == 0
    assert (await store.seeds.current_seed_pair(table.id)).next_nonce == 0

    await attempt()
    with pytest.raises(HandInProgress):
        await attempt(
            hand_number=2, players=[HandSeat(1, s1.id, "p1", 200), HandSeat(3, s3.id, "p3", 200)]
        )
    with pytest.raises(StaleHand):
        await attempt(button_seat=2)


async def test_nonces_stay_gapless_across_a_crash(url: str, clock: StepClock) -> None:
    store = EngineStore(create_engine_for(url), clock=clock)
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    first = await start(store, table, 1, [s1, s2])
    await store.hands.finish_hand(first.id, **finish_kwargs({s1.id: 190, s2.id: 210}))
    s1, s2 = await store.sessions.get_session(s1.id), await store.sessions.get_session(s2.id)
    crashed = await start(store, table, 2, [s1, s2])
    assert crashed.nonce == 1
    # The engine dies mid-hand: nothing else is written. A new process starts.
    await store.dispose()
    store = EngineStore(create_engine_for(url), clock=clock)
    try:
        recovered = await store.hands.recover_running_hands()
        assert [h.id for h in recovered] == [crashed.id]
        assert (recovered[0].state, recovered[0].cancel_reason) == ("cancelled", "engine restart")
        assert await store.hands.recover_running_hands() == []
        # Every chip put in during the dead hand is back: stacks are the pre-hand ones.
        assert (await store.sessions.get_session(s1.id)).stack == 190
        assert (await store.sessions.get_session(s2.id)).stack == 210
        players = await store.hands.hand_players(crashed.id)
        assert [(p.start_stack, p.final_stack) for p in players] == [(190, 190), (210, 210)]
        restored = (await store.tables.open_tables())[0]
        assert restored.table.hands_started == 2
        third = await start(store, restored.table, 3, restored.sessions)
        assert third.nonce == 2
        nonces = await store_nonces(store, table.id)
        assert nonces == [(1, 0, "complete"), (2, 1, "cancelled"), (3, 2, "running")]
    finally:
        await store.dispose()


async def store_nonces(store: EngineStore, table_id: str) -> list[tuple[int, int, str]]:
    async with store.engine.connect() as connection:
        rows = await connection.execute(
            sa.text(
                "SELECT hand_number, nonce, state FROM hands WHERE table_id = :t "
                "ORDER BY hand_number"
            ),
            {"t": table_id},
        )
        return [(int(r[0]), int(r[1]), str(r[2])) for r in rows.all()]


async def test_recover_running_hands_of_some_tables(store: EngineStore) -> None:
    hands = []
    for request in ("a", "b"):
        table = await new_table(store, request)
        seats = [await seat(store, table.id, 1), await seat(store, table.id, 2)]
        hands.append(await start(store, table, 1, seats))
    mine = await store.hands.recover_running_hands("node moved", table_ids=[hands[0].table_id])
    assert [h.id for h in mine] == [hands[0].id]
    assert (await store.hands.get_hand(hands[1].id)).state == "running"


async def test_running_hands_come_each_with_its_table_seed_pair_and_players(
    store: EngineStore,
) -> None:
    # Read in a few statements for all of them (a takeover recovers hundreds): each hand must
    # still get its own table, seed pair and players, by seat, whatever their number.
    hands, seated = [], {}
    for request, seats in (("a", (3, 1)), ("b", (2, 5, 4)), ("c", (1, 2))):
        table = await new_table(store, request)
        rows = [await seat(store, table.id, n) for n in seats]
        hand = await start(store, table, 1, rows)
        hands.append(hand)
        seated[hand.id] = sorted(seats)
    await store.hands.cancel_hand(hands[2].id, "ended")
    running = await store.hands.running_hands(table_ids=[h.table_id for h in hands])
    assert [r.hand.id for r in running] == [h.id for h in hands[:2]]
    for item in running:
        assert item.table.id == item.hand.table_id
        assert item.seed_pair.id == item.hand.seed_pair_id
        assert item.seed_pair.table_id == item.hand.table_id
        assert [p.seat for p in item.players] == seated[item.hand.id]
        assert {p.hand_id for p in item.players} == {item.hand.id}
    assert await store.hands.running_hands(table_ids=[hands[2].table_id]) == []


async def test_finish_hand_writes_the_hand_and_the_stacks(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2, s3 = [await seat(store, table.id, n) for n in (1, 2, 3)]
    hand = await start(store, table, 1, [s1, s2])
    # Seat 3 sat out this hand and leaves with it; seat 1 leaves after playing it.
    done = await store.hands.finish_hand(
        hand.id,
        **finish_kwargs(
            {s1.id: 180, s2.id: 218},
            rake=2,
            close_sessions=[(s1.id, "left"), (s3.id, "removed")],
            button_seat=2,
        ),
    )
    assert (done.state, done.rake, done.phh) == ("complete", 2, "variant = 'F7S'\n")
    assert done.ended_at is not None and done.ended_at > done.started_at
    stored = await store.hands.get_hand(hand.id)
    assert stored.cards == [
        {"seat": 1, "card": "Ah", "deck_index": 0, "up": False, "street": "third"}
    ]
    assert stored.result == {"won_by_fold": True}
    assert [p.final_stack for p in await store.hands.hand_players(hand.id)] == [180, 218]
    after = {s.id: await store.sessions.get_session(s.id) for s in (s1, s2, s3)}
    assert [(a.stack, a.state, a.close_reason) for a in after.values()] == [
        (180, "closed", "left"),
        (218, "open", None),
        (200, "closed", "removed"),
    ]
    assert (await store.tables.get_table(table.id)).button_seat == 2
    # Finishing again (a retry) changes nothing.
    again = await store.hands.finish_hand(hand.id, **finish_kwargs({s1.id: 1, s2.id: 397}))
    assert again.ended_at == done.ended_at
    assert (await store.sessions.get_session(s2.id)).stack == 218


async def test_finish_hand_refuses_a_record_that_does_not_add_up(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    hand = await start(store, table, 1, [s1, s2])
    with pytest.raises(InvalidRecord, match="not conserved"):
        await store.hands.finish_hand(hand.id, **finish_kwargs({s1.id: 190, s2.id: 211}))
    with pytest.raises(InvalidRecord, match="not conserved"):
        await store.hands.finish_hand(hand.id, **finish_kwargs({s1.id: 190, s2.id: 210}, rake=1))
    with pytest.raises(InvalidRecord, match="final stacks name"):
        await store.hands.finish_hand(hand.id, **finish_kwargs({s1.id: 400}))
    with pytest.raises(InvalidRecord, match="negative"):
        await store.hands.finish_hand(hand.id, **finish_kwargs({s1.id: -10, s2.id: 410}))
    with pytest.raises(InvalidRecord, match="not at table"):
        await store.hands.finish_hand(
            hand.id,
            **finish_kwargs({s1.id: 190, s2.id: 210}, close_sessions=[("ghost", "left")]),
        )
    assert (await store.hands.get_hand(hand.id)).state == "running"
    assert [(await store.sessions.get_session(s.id)).stack for s in (s1, s2)] == [200, 200]


@contextmanager
def failing_on(store: EngineStore, prefix: str, seen: list[str]) -> Iterator[None]:
    """Make the database connection fail on the first statement starting with ``prefix``."""

    def before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement.split()[0] + " " + statement.split()[1])
        if statement.lstrip().upper().startswith(prefix):
            raise RuntimeError(f"injected failure before {prefix}")

    event.listen(store.engine.sync_engine, "before_cursor_execute", before)
    try:
        yield
    finally:
        event.remove(store.engine.sync_engine, "before_cursor_execute", before)


async def test_finish_hand_is_atomic(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    hand = await start(store, table, 1, [s1, s2])
    seen: list[str] = []
    # The hand's row is written first; the failure strikes at the stacks, mid-transaction.
    with (
        failing_on(store, "UPDATE SEAT_SESSIONS", seen),
        pytest.raises(RuntimeError, match="injected"),
    ):
        await store.hands.finish_hand(
            hand.id,
            **finish_kwargs({s1.id: 190, s2.id: 210}, close_sessions=[(s1.id, "left")]),
        )
    assert "UPDATE hands" in seen and "UPDATE hand_players" in seen
    stored = await store.hands.get_hand(hand.id)
    assert (stored.state, stored.ended_at, stored.cards, stored.rake) == (
        "running",
        None,
        None,
        None,
    )
    assert [p.final_stack for p in await store.hands.hand_players(hand.id)] == [None, None]
    after = [await store.sessions.get_session(s.id) for s in (s1, s2)]
    assert [(a.stack, a.state) for a in after] == [(200, "open"), (200, "open")]
    # The same call succeeds once the fault is gone.
    await store.hands.finish_hand(hand.id, **finish_kwargs({s1.id: 190, s2.id: 210}))
    assert (await store.sessions.get_session(s2.id)).stack == 210


async def test_finish_hand_rolls_back_on_a_database_error(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    hand = await start(store, table, 1, [s1, s2])
    # A trigger makes the database itself refuse the stack update (after the hand's row and
    # the hand players were updated in the same transaction).
    async with store.engine.begin() as connection:
        if connection.dialect.name == "sqlite":
            await connection.execute(
                sa.text(
                    "CREATE TRIGGER refuse_stacks BEFORE UPDATE OF stack ON seat_sessions "
                    "BEGIN SELECT RAISE(ABORT, 'stacks are frozen'); END"
                )
            )
        else:
            await connection.execute(
                sa.text(
                    "CREATE FUNCTION refuse_stacks() RETURNS trigger LANGUAGE plpgsql AS "
                    "$$ BEGIN RAISE EXCEPTION 'stacks are frozen'; END $$"
                )
            )
            await connection.execute(
                sa.text(
                    "CREATE TRIGGER refuse_stacks BEFORE UPDATE OF stack ON seat_sessions "
                    "FOR EACH ROW EXECUTE FUNCTION refuse_stacks()"
                )
            )
    try:
        with pytest.raises(sa.exc.DBAPIError, match="stacks are frozen"):
            await store.hands.finish_hand(hand.id, **finish_kwargs({s1.id: 190, s2.id: 210}))
    finally:
        # The PostgreSQL database is the session's, emptied between tests but not migrated
        # afresh: a trigger left on it would refuse every later test's stack update.
        async with store.engine.begin() as connection:
            if connection.dialect.name == "sqlite":
                await connection.execute(sa.text("DROP TRIGGER refuse_stacks"))
            else:
                await connection.execute(sa.text("DROP TRIGGER refuse_stacks ON seat_sessions"))
                await connection.execute(sa.text("DROP FUNCTION refuse_stacks()"))
    stored = await store.hands.get_hand(hand.id)
    assert (stored.state, stored.result) == ("running", None)
    assert [p.final_stack for p in await store.hands.hand_players(hand.id)] == [None, None]
    assert (await store.tables.get_table(table.id)).button_seat == 1
    assert [(await store.sessions.get_session(s.id)).stack for s in (s1, s2)] == [200, 200]


async def test_cancel_hand_keeps_stacks_and_uses_the_nonce(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    hand = await start(store, table, 1, [s1, s2])
    cancelled = await store.hands.cancel_hand(
        hand.id, "ops: table moved", cards=[{"seat": 1, "card": "2c"}], actions=[]
    )
    assert (cancelled.state, cancelled.cancel_reason, cancelled.rake) == (
        "cancelled",
        "ops: table moved",
        0,
    )
    assert cancelled.cards == [{"seat": 1, "card": "2c"}]
    assert [(await store.sessions.get_session(s.id)).stack for s in (s1, s2)] == [200, 200]
    assert [p.final_stack for p in await store.hands.hand_players(hand.id)] == [200, 200]
    assert (await store.hands.cancel_hand(hand.id, "again")).cancel_reason == "ops: table moved"
    with pytest.raises(StaleHand, match="cancelled"):
        await store.hands.finish_hand(hand.id, **finish_kwargs({s1.id: 200, s2.id: 200}))
    following = await start(store, table, 2, [s1, s2])
    assert following.nonce == 1
    await store.hands.finish_hand(following.id, **finish_kwargs({s1.id: 200, s2.id: 200}))
    with pytest.raises(StaleHand, match="complete"):
        await store.hands.cancel_hand(following.id, "too late")
    with pytest.raises(HandNotFound):
        await store.hands.cancel_hand("h-none", "x")


async def test_a_cancelled_hand_keeps_its_trail(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    hand = await start(store, table, 1, [s1, s2])
    [running] = await store.hands.running_hands()
    assert (running.hand.id, running.table.id) == (hand.id, table.id)
    assert running.seed_pair.id == hand.seed_pair_id
    assert [p.seat for p in running.players] == [1, 2]
    cards = [{"seat": 1, "card": "Ah", "deck_index": 4, "up": True, "street": "third"}]
    done = await store.hands.cancel_hand(
        hand.id,
        "misdeal",
        cards=cards,
        actions=[{"seat": 1, "do": "bring_in", "amount": 2}],
        result={"cancelled": True, "returned": {"1": 2}},
        phh="_cancelled = true\n",
    )
    assert (done.state, done.cards, done.phh) == ("cancelled", cards, "_cancelled = true\n")
    assert done.result == {"cancelled": True, "returned": {"1": 2}}
    assert await store.hands.running_hands() == []
    assert [(await store.sessions.get_session(s.id)).stack for s in (s1, s2)] == [200, 200]
