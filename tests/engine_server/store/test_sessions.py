"""Seat sessions on SQLite and PostgreSQL: seating and chip additions (idempotent, with the
first answer kept), closing, removals recorded with their answers, listing.

Every test runs once per backend (see conftest.py) on a freshly migrated database.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from engine_server.store.errors import (
    AlreadySeated,
    BuyInOutOfRange,
    HandInProgress,
    IdempotencyKeyReused,
    InvalidRecord,
    SeatSessionClosed,
    SeatSessionNotFound,
    SeatTaken,
    StoreError,
    TableClosed,
)
from engine_server.store.models import SeatSessionRow
from engine_server.store.repository import EngineStore

from .support import count, finish_kwargs, new_table, seat, start


async def test_seat_player_is_idempotent_by_session_id(store: EngineStore) -> None:
    table = await new_table(store)
    first = await seat(store, table.id, 3)
    assert (first.seat, first.buy_in, first.chips_in, first.stack, first.state) == (
        3,
        200,
        200,
        200,
        "open",
    )
    again = await seat(store, table.id, 3)
    assert again.id == first.id and again.opened_at == first.opened_at
    assert await count(store, "SELECT count(*) FROM seat_sessions") == 1
    with pytest.raises(IdempotencyKeyReused):
        await seat(store, table.id, 3, buy_in=300)
    with pytest.raises(IdempotencyKeyReused):
        await store.sessions.seat_player(
            table.id, first.id, player_id="p3", display_name="Player 3", seat=4, buy_in=200
        )
    assert (await store.sessions.get_session(first.id)).stack == 200


async def test_display_names_of_many_sessions_in_one_read(store: EngineStore) -> None:
    tables = [await new_table(store, request) for request in ("a", "b")]
    s1, s2 = await seat(store, tables[0].id, 1), await seat(store, tables[1].id, 2)
    assert await store.sessions.display_names([s2.id, s1.id, s1.id, "no-such-session"]) == {
        s1.id: "Player 1",
        s2.id: "Player 2",
    }
    assert await store.sessions.display_names([]) == {}


async def test_one_player_per_seat_and_one_seat_per_player(store: EngineStore) -> None:
    table = await new_table(store)
    s1 = await seat(store, table.id, 1)
    with pytest.raises(SeatTaken):
        await store.sessions.seat_player(
            table.id, "other", player_id="p9", display_name="P9", seat=1, buy_in=200
        )
    with pytest.raises(AlreadySeated):
        await store.sessions.seat_player(
            table.id, "other", player_id="p1", display_name="P1", seat=2, buy_in=200
        )
    # Once his session closes, the seat and the player are free again.
    await store.sessions.close_session(s1.id, None, "left")
    again = await store.sessions.seat_player(
        table.id, "other", player_id="p1", display_name="P1", seat=1, buy_in=150
    )
    assert (again.seat, again.stack) == (1, 150)
    # Another table is another matter.
    elsewhere = await new_table(store, "req-2")
    assert (await seat(store, elsewhere.id, 1, player="p1")).table_id == elsewhere.id


async def test_the_database_itself_keeps_open_seats_unique(store: EngineStore) -> None:
    table = await new_table(store)
    await seat(store, table.id, 1)
    insert = (
        "INSERT INTO seat_sessions (id, table_id, player_id, display_name, seat, buy_in, "
        "chips_in, stack, state, opened_at) VALUES "
        "(:id, :table, :player, 'X', :seat, 100, 100, 100, :state, :now)"
    )
    now = (await store.tables.get_table(table.id)).created_at
    for clash in ({"player": "p9", "seat": 1}, {"player": "p1", "seat": 2}):
        with pytest.raises(sa.exc.IntegrityError):
            async with store.engine.begin() as connection:
                await connection.execute(
                    sa.text(insert),
                    {"id": "x", "table": table.id, "state": "open", "now": now, **clash},
                )
    # A closed session at the same seat is history, not a clash.
    async with store.engine.begin() as connection:
        await connection.execute(
            sa.text(insert),
            {
                "id": "old",
                "table": table.id,
                "player": "p1",
                "seat": 1,
                "state": "closed",
                "now": now,
            },
        )


async def test_concurrent_seat_requests_for_one_seat(store: EngineStore) -> None:
    table = await new_table(store)
    results = await asyncio.gather(
        *(
            store.sessions.seat_player(
                table.id, f"s{i}", player_id=f"p{i}", display_name="P", seat=5, buy_in=100
            )
            for i in range(5)
        ),
        return_exceptions=True,
    )
    seated = [r for r in results if isinstance(r, SeatSessionRow)]
    refused = [r for r in results if isinstance(r, SeatTaken)]
    assert (len(seated), len(refused)) == (1, 4)


async def test_seat_player_refusals(store: EngineStore) -> None:
    table = await new_table(store)
    for buy_in in (99, 501):
        with pytest.raises(BuyInOutOfRange):
            await seat(store, table.id, 1, buy_in=buy_in)
    with pytest.raises(StoreError, match="seat"):
        await seat(store, table.id, 0)
    await store.tables.close_table(table.id)
    with pytest.raises(TableClosed):
        await seat(store, table.id, 1)
    assert await count(store, "SELECT count(*) FROM seat_sessions") == 0


async def test_add_chips_is_idempotent_by_request_id(store: EngineStore) -> None:
    table = await new_table(store)
    s1 = await seat(store, table.id, 1)
    once = await store.sessions.add_chips(s1.id, "top-1", 50)
    twice = await store.sessions.add_chips(s1.id, "top-1", 50)
    assert (once.stack, once.chips_in) == (250, 250)
    assert (twice.stack, twice.chips_in) == (250, 250)
    assert (await store.sessions.get_session(s1.id)).stack == 250
    assert await count(store, "SELECT count(*) FROM chip_additions") == 1
    with pytest.raises(IdempotencyKeyReused):
        await store.sessions.add_chips(s1.id, "top-1", 60)
    s2 = await seat(store, table.id, 2)
    with pytest.raises(IdempotencyKeyReused):
        await store.sessions.add_chips(s2.id, "top-1", 50)
    assert (await store.sessions.add_chips(s1.id, "top-2", 250)).stack == 500
    assert await count(store, "SELECT sum(amount) FROM chip_additions") == 300


async def test_concurrent_retries_of_add_chips_add_once(store: EngineStore) -> None:
    table = await new_table(store)
    s1 = await seat(store, table.id, 1)
    await asyncio.gather(*(store.sessions.add_chips(s1.id, "top-1", 40) for _ in range(5)))
    assert (await store.sessions.get_session(s1.id)).stack == 240


async def test_add_chips_refusals(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    with pytest.raises(BuyInOutOfRange):
        await store.sessions.add_chips(s1.id, "r1", 301)
    with pytest.raises(StoreError, match="positive"):
        await store.sessions.add_chips(s1.id, "r1", 0)
    with pytest.raises(SeatSessionNotFound):
        await store.sessions.add_chips("nobody", "r1", 10)
    hand = await start(store, table, 1, [s1, s2])
    with pytest.raises(HandInProgress):
        await store.sessions.add_chips(s1.id, "r1", 10)
    await store.hands.cancel_hand(hand.id, "test")
    await store.sessions.close_session(s1.id, 200, "left")
    with pytest.raises(SeatSessionClosed):
        await store.sessions.add_chips(s1.id, "r1", 10)
    assert await count(store, "SELECT count(*) FROM chip_additions") == 0


async def test_close_session(store: EngineStore) -> None:
    table = await new_table(store)
    s1 = await seat(store, table.id, 1)
    with pytest.raises(InvalidRecord, match="200"):
        await store.sessions.close_session(s1.id, 201, "left")
    closed = await store.sessions.close_session(s1.id, 200, "removed")
    assert (closed.state, closed.close_reason, closed.stack) == ("closed", "removed", 200)
    assert closed.closed_at is not None
    assert (await store.sessions.close_session(s1.id, 200, "removed")).closed_at == closed.closed_at
    with pytest.raises(SeatSessionClosed):
        await store.sessions.close_session(s1.id, 200, "left")


async def test_leaving_mid_hand_is_remembered(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2, s3 = [await seat(store, table.id, n) for n in (1, 2, 3)]
    hand = await start(store, table, 1, [s1, s2, s3])
    assert (await store.sessions.mark_closing(s1.id)).state == "closing"
    with pytest.raises(HandInProgress):
        await store.sessions.close_session(s1.id, None, "left")
    await store.hands.cancel_hand(hand.id, "crash")
    # After the cancel the leaver is still seated (closing) and is not dealt in again.
    restored = (await store.tables.open_tables())[0]
    assert [(s.seat, s.state) for s in restored.sessions] == [
        (1, "closing"),
        (2, "open"),
        (3, "open"),
    ]
    with pytest.raises(InvalidRecord, match="not open"):
        await start(store, table, 2, [s1, s2])
    closed = await store.sessions.close_session(s1.id, 200, "left")
    assert closed.state == "closed"


async def test_sessions_page_oldest_first(store: EngineStore) -> None:
    table = await new_table(store)
    other = await new_table(store, "req-2")
    made = [await seat(store, table.id, n) for n in range(1, 6)]
    elsewhere = await seat(store, other.id, 1)
    await store.sessions.close_session(made[1].id, None, "left")
    await store.sessions.close_session(made[3].id, None, "removed")

    async def collect(**filters: Any) -> list[str]:
        seen: list[str] = []
        token = ""
        while True:
            page = await store.sessions.list_sessions(page_size=2, page_token=token, **filters)
            seen += [s.id for s in page.items]
            token = page.next_page_token
            if not token:
                return seen

    assert await collect() == [s.id for s in made] + [elsewhere.id]
    assert await collect(table_id=table.id) == [s.id for s in made]
    assert await collect(table_id=table.id, states=["closed"]) == [made[1].id, made[3].id]
    assert await collect(states=["open"]) == [made[0].id, made[2].id, made[4].id, elsewhere.id]


async def test_a_late_add_chips_retry_gets_the_first_answer(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    first = await store.sessions.add_chips(s1.id, "top-1", 50)
    assert await store.sessions.chip_addition(s1.id, "top-2", 50) is None
    # A hand moves his stack, then his session closes: the retry still gets 250 / 250.
    hand = await start(store, table, 1, [await store.sessions.get_session(s1.id), s2])
    await store.hands.finish_hand(hand.id, **finish_kwargs({s1.id: 230, s2.id: 220}))
    await store.sessions.close_session(s1.id, None, "left")
    for answer in (
        await store.sessions.add_chips(s1.id, "top-1", 50),
        await store.sessions.chip_addition(s1.id, "top-1", 50),
    ):
        assert answer is not None
        assert (answer.stack, answer.chips_in, answer.state) == (250, 250, "open")
        assert (answer.id, answer.table_id, answer.seat) == (first.id, first.table_id, 1)
    now = await store.sessions.get_session(s1.id)
    assert (now.stack, now.chips_in, now.state) == (230, 250, "closed"), "nothing changed"
    assert await count(store, "SELECT count(*) FROM chip_additions") == 1
    for other in ((s1.id, 60), (s2.id, 50)):
        with pytest.raises(IdempotencyKeyReused):
            await store.sessions.chip_addition(other[0], "top-1", other[1])
        with pytest.raises(IdempotencyKeyReused):
            await store.sessions.add_chips(other[0], "top-1", other[1])


async def test_a_removal_is_recorded_with_its_answer(store: EngineStore) -> None:
    table = await new_table(store)
    s1 = await seat(store, table.id, 1)
    assert await store.sessions.removal(s1.id) is None
    kept = await store.sessions.record_removal(
        s1.id, "rude", state="closing", chips_in=200, stack=200, close_reason=None
    )
    again = await store.sessions.record_removal(
        s1.id, "rude", state="closed", chips_in=200, stack=180, close_reason="removed"
    )
    assert (again.state, again.stack) == (kept.state, kept.stack) == ("closing", 200)
    with pytest.raises(IdempotencyKeyReused):
        await store.sessions.record_removal(
            s1.id, "other", state="closing", chips_in=200, stack=200, close_reason=None
        )
    with pytest.raises(InvalidRecord):
        await store.sessions.record_removal(
            s1.id, "rude", state="open", chips_in=200, stack=200, close_reason=None
        )
    with pytest.raises(SeatSessionNotFound):
        await store.sessions.record_removal(
            "nobody", "rude", state="closed", chips_in=1, stack=1, close_reason="removed"
        )
    found = await store.sessions.removal(s1.id)
    assert found is not None and (found.reason, found.state, found.stack) == (
        "rude",
        "closing",
        200,
    )


async def test_a_removal_is_applied_and_recorded_in_one_transaction(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2, s3 = [await seat(store, table.id, n) for n in (1, 2, 3)]
    # Between hands: the session closes and the answer a retry gets is kept with it.
    closed = await store.sessions.close_session(s1.id, 200, "removed", removal="rude")
    kept = await store.sessions.removal(s1.id)
    assert kept is not None
    assert (kept.reason, kept.state, kept.chips_in, kept.stack, kept.close_reason) == (
        "rude",
        "closed",
        200,
        200,
        "removed",
    )
    assert closed.state == "closed"
    # In his hand: the session is marked closing, and that is the answer kept.
    await start(store, table, 1, [s2, s3])
    closing = await store.sessions.mark_closing(s2.id, removal="slow")
    kept = await store.sessions.removal(s2.id)
    assert kept is not None and closing.state == "closing"
    assert (kept.reason, kept.state, kept.stack, kept.close_reason) == (
        "slow",
        "closing",
        200,
        None,
    )
    # Done again with the same reason (a retry racing the first): nothing more is written;
    # with another reason it is another request, refused before anything changes.
    await store.sessions.mark_closing(s2.id, removal="slow")
    with pytest.raises(IdempotencyKeyReused):
        await store.sessions.mark_closing(s2.id, removal="other")
    with pytest.raises(IdempotencyKeyReused):
        await store.sessions.close_session(s1.id, 200, "removed", removal="other")
    assert await count(store, "SELECT count(*) FROM seat_session_removals") == 2
    # A leave that is no removal records none.
    await store.sessions.mark_closing(s3.id)
    assert await store.sessions.removal(s3.id) is None
    # And the restart that reloads the table knows who was removed (paid out as removed).
    [reloaded] = await store.tables.open_tables()
    assert [(s.id, s.state) for s in reloaded.sessions] == [(s2.id, "closing"), (s3.id, "closing")]
    assert reloaded.removed == frozenset({s2.id})


@contextmanager
def failing_at_commit(store: EngineStore, prefix: str, seen: list[str]) -> Iterator[None]:
    """Make the commit of the transaction that ran a statement starting with ``prefix`` fail
    once all its statements have run (as a crash just before that commit would). ``seen``
    gets each statement's first two words."""
    armed: list[bool] = []

    def before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(" ".join(statement.split()[:2]))
        if statement.lstrip().upper().startswith(prefix):
            armed.append(True)

    def commit(conn: Any) -> None:
        if armed:
            armed.clear()
            raise RuntimeError(f"injected failure at the commit after {prefix}")

    event.listen(store.engine.sync_engine, "before_cursor_execute", before)
    event.listen(store.engine.sync_engine, "commit", commit)
    try:
        yield
    finally:
        event.remove(store.engine.sync_engine, "commit", commit)
        event.remove(store.engine.sync_engine, "before_cursor_execute", before)


@pytest.mark.parametrize("mid_hand", [False, True], ids=["between-hands", "in-his-hand"])
async def test_a_removal_that_fails_before_commit_leaves_neither_change_nor_answer(
    store: EngineStore, mid_hand: bool
) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    if mid_hand:
        await start(store, table, 1, [s1, s2])

    def remove() -> Any:
        if mid_hand:
            return store.sessions.mark_closing(s1.id, removal="rude")
        return store.sessions.close_session(s1.id, 200, "removed", removal="rude")

    seen: list[str] = []
    # Both rows are written (the session's change and the answer a retry gets), then the
    # commit that would keep the answer fails: the change must not stay without it.
    with (
        failing_at_commit(store, "INSERT INTO SEAT_SESSION_REMOVALS", seen),
        pytest.raises(RuntimeError, match="injected"),
    ):
        await remove()
    assert {"UPDATE seat_sessions", "INSERT INTO"} <= set(seen), seen
    assert (await store.sessions.get_session(s1.id)).state == "open"
    assert await store.sessions.removal(s1.id) is None
    # The retry then applies it, once, with its answer.
    applied = await remove()
    kept = await store.sessions.removal(s1.id)
    assert kept is not None and (kept.state, applied.state) == (applied.state, applied.state)
    assert kept.state == ("closing" if mid_hand else "closed")
