"""EngineStore on SQLite and PostgreSQL: idempotency, atomicity, nonces, seeds, pages.

Every test runs once per backend (see conftest.py) on a freshly migrated database.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from engine_server.game.fairness import derive_deck
from engine_server.store.database import create_engine_for
from engine_server.store.errors import (
    AlreadySeated,
    BuyInOutOfRange,
    HandInProgress,
    HandNotFound,
    IdempotencyKeyReused,
    InvalidPageToken,
    InvalidRecord,
    SeatSessionClosed,
    SeatSessionNotFound,
    SeatTaken,
    StaleHand,
    StoreError,
    TableClosed,
    TableExists,
    TableNotFound,
    TableState,
)
from engine_server.store.models import HandRow, SeatSessionRow, TableRow
from engine_server.store.repository import EngineStore, HandSeat

from .conftest import StepClock

STAKES: dict[str, Any] = {
    "profile": "house",
    "ante": 1,
    "bring_in": 2,
    "small_bet": 5,
    "big_bet": 10,
    "min_buy_in": 100,
    "max_buy_in": 500,
}


async def new_table(store: EngineStore, request_id: str = "req-1", **changes: Any) -> TableRow:
    arguments: dict[str, Any] = {**STAKES, "request_id": request_id, "client_seed": "alice"}
    arguments.update(changes)
    return await store.create_table(**arguments)


async def seat(
    store: EngineStore, table_id: str, n: int, buy_in: int = 200, player: str | None = None
) -> SeatSessionRow:
    """Seat player ``p{n}`` at seat ``n`` with session ``{table_id}-s{n}``."""
    return await store.seat_player(
        table_id,
        f"{table_id}-s{n}",
        player_id=player or f"p{n}",
        display_name=f"Player {n}",
        seat=n,
        buy_in=buy_in,
    )


async def start(
    store: EngineStore, table: TableRow, hand_number: int, seats: list[SeatSessionRow]
) -> HandRow:
    pair = await store.current_seed_pair(table.id)
    return await store.start_hand(
        table.id,
        hand_number=hand_number,
        seed_pair_id=pair.id,
        button_seat=seats[0].seat,
        players=[HandSeat(s.seat, s.id, s.player_id, s.stack) for s in seats],
        profile="house",
        settings={"stakes": {"ante": 1}},
    )


def finish_kwargs(final_stacks: dict[str, int], rake: int = 0, **changes: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "cards": [{"seat": 1, "card": "Ah", "deck_index": 0, "up": False, "street": "third"}],
        "actions": [{"seat": 1, "action": "fold"}],
        "pots": [{"amount": 10, "winners": [2]}],
        "rake": rake,
        "result": {"won_by_fold": True},
        "phh": "variant = 'F7S'\n",
        "final_stacks": final_stacks,
    }
    arguments.update(changes)
    return arguments


async def count(store: EngineStore, sql: str) -> int:
    async with store.engine.connect() as connection:
        return int((await connection.execute(sa.text(sql))).scalar_one())


# ------------------------------------------------------------------------------- tables


async def test_create_table_makes_a_current_and_a_next_pair(store: EngineStore) -> None:
    table = await new_table(store, labels={"city": "vienna"}, rule_overrides={"burns": []})
    assert table.id.startswith("t-")
    assert (table.status, table.hands_started, table.button_seat) == ("waiting", 0, None)
    assert table.created_at.tzinfo is not None and table.closed_at is None
    current = await store.current_seed_pair(table.id)
    upcoming = await store.next_seed_pair(table.id)
    assert table.current_seed_pair_id == current.id
    assert (current.state, current.ordinal, current.next_nonce) == ("current", 1, 0)
    assert (upcoming.state, upcoming.ordinal, upcoming.next_nonce) == ("next", 2, 0)
    assert current.client_seed == "alice"
    assert current.dealer_seed != upcoming.dealer_seed
    for pair in (current, upcoming):
        assert len(pair.dealer_seed) == 64
        assert pair.commitment == hashlib.sha256(pair.dealer_seed.encode()).hexdigest()
        assert pair.revealed_at is None
    loaded = await store.get_table(table.id)
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
        await store.get_table("nope")
    with pytest.raises(TableNotFound):
        await store.seat_player("nope", "s", player_id="p", display_name="P", seat=1, buy_in=100)


async def test_status_changes_and_closing(store: EngineStore) -> None:
    table = await new_table(store)
    assert (await store.set_table_status(table.id, "playing")).status == "playing"
    s1 = await seat(store, table.id, 1)
    with pytest.raises(TableState, match="close_table"):
        await store.set_table_status(table.id, "closed")
    await store.close_session(s1.id, 200, "left")
    closed = await store.set_table_status(table.id, "closed")
    assert closed.status == "closed" and closed.closed_at is not None
    with pytest.raises(TableClosed):
        await store.set_table_status(table.id, "playing")
    with pytest.raises(ValueError, match="'resting'"):
        await store.set_table_status(table.id, "resting")


async def test_a_drain_hold_is_stored_with_the_status_and_settled_on_start(
    store: EngineStore,
) -> None:
    kept = await new_table(store, "req-kept")  # ops drained the node: stays paused
    stopped = await new_table(store, "req-stopped")  # the node stopped: deals again
    pausing = await new_table(store, "req-pausing")  # ops drained it mid-hand, then a crash
    own = await new_table(store, "req-own")  # ops' own pause, left pausing by a crash
    playing = await new_table(store, "req-playing")
    await store.set_table_status(kept.id, "paused", "drain")
    await store.set_table_status(stopped.id, "pausing", "shutdown")
    await store.set_table_status(stopped.id, "paused", "shutdown")
    await store.set_table_status(pausing.id, "pausing", "drain")
    await store.set_table_status(own.id, "pausing")
    await store.set_table_status(playing.id, "playing")
    row = await store.get_table(stopped.id)
    assert (row.status, row.drain_hold) == ("paused", "shutdown")
    # ListTables filters on the status as ops see it, a drain's pause included.
    listed = await store.list_tables(statuses=["paused"])
    assert {t.id for t in listed.items} == {kept.id, stopped.id}
    # A hold goes only with a pause; an unknown one is refused; nothing is written.
    with pytest.raises(InvalidRecord, match="pausing or paused"):
        await store.set_table_status(playing.id, "waiting", "drain")
    with pytest.raises(ValueError, match="'nap'"):
        await store.set_table_status(kept.id, "paused", "nap")
    assert (await store.get_table(kept.id)).drain_hold == "drain"
    assert (await store.get_table(playing.id)).status == "playing"

    settled = await store.settle_statuses_on_start()
    assert (settled.resumed, settled.paused) == ([stopped.id], [pausing.id, own.id])
    after = {t: await store.get_table(t) for t in (kept.id, stopped.id, pausing.id, own.id)}
    assert {t: (r.status, r.drain_hold) for t, r in after.items()} == {
        kept.id: ("paused", "drain"),
        stopped.id: ("waiting", None),
        pausing.id: ("paused", "drain"),
        own.id: ("paused", None),
    }
    assert (await store.get_table(playing.id)).status == "playing"
    again = await store.settle_statuses_on_start()
    assert (again.resumed, again.paused) == ([], [])

    # Resumed (a status without a hold) clears it; so does closing the table.
    assert (await store.set_table_status(pausing.id, "waiting")).drain_hold is None
    closure = await store.close_table(kept.id)
    assert (closure.table.status, closure.table.drain_hold) == ("closed", None)


# ------------------------------------------------------------------------ seat sessions


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
        await store.seat_player(
            table.id, first.id, player_id="p3", display_name="Player 3", seat=4, buy_in=200
        )
    assert (await store.get_session(first.id)).stack == 200


async def test_one_player_per_seat_and_one_seat_per_player(store: EngineStore) -> None:
    table = await new_table(store)
    s1 = await seat(store, table.id, 1)
    with pytest.raises(SeatTaken):
        await store.seat_player(
            table.id, "other", player_id="p9", display_name="P9", seat=1, buy_in=200
        )
    with pytest.raises(AlreadySeated):
        await store.seat_player(
            table.id, "other", player_id="p1", display_name="P1", seat=2, buy_in=200
        )
    # Once his session closes, the seat and the player are free again.
    await store.close_session(s1.id, None, "left")
    again = await store.seat_player(
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
    now = (await store.get_table(table.id)).created_at
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
            store.seat_player(
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
    await store.close_table(table.id)
    with pytest.raises(TableClosed):
        await seat(store, table.id, 1)
    assert await count(store, "SELECT count(*) FROM seat_sessions") == 0


async def test_add_chips_is_idempotent_by_request_id(store: EngineStore) -> None:
    table = await new_table(store)
    s1 = await seat(store, table.id, 1)
    once = await store.add_chips(s1.id, "top-1", 50)
    twice = await store.add_chips(s1.id, "top-1", 50)
    assert (once.stack, once.chips_in) == (250, 250)
    assert (twice.stack, twice.chips_in) == (250, 250)
    assert (await store.get_session(s1.id)).stack == 250
    assert await count(store, "SELECT count(*) FROM chip_additions") == 1
    with pytest.raises(IdempotencyKeyReused):
        await store.add_chips(s1.id, "top-1", 60)
    s2 = await seat(store, table.id, 2)
    with pytest.raises(IdempotencyKeyReused):
        await store.add_chips(s2.id, "top-1", 50)
    assert (await store.add_chips(s1.id, "top-2", 250)).stack == 500
    assert await count(store, "SELECT sum(amount) FROM chip_additions") == 300


async def test_concurrent_retries_of_add_chips_add_once(store: EngineStore) -> None:
    table = await new_table(store)
    s1 = await seat(store, table.id, 1)
    await asyncio.gather(*(store.add_chips(s1.id, "top-1", 40) for _ in range(5)))
    assert (await store.get_session(s1.id)).stack == 240


async def test_add_chips_refusals(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    with pytest.raises(BuyInOutOfRange):
        await store.add_chips(s1.id, "r1", 301)
    with pytest.raises(StoreError, match="positive"):
        await store.add_chips(s1.id, "r1", 0)
    with pytest.raises(SeatSessionNotFound):
        await store.add_chips("nobody", "r1", 10)
    hand = await start(store, table, 1, [s1, s2])
    with pytest.raises(HandInProgress):
        await store.add_chips(s1.id, "r1", 10)
    await store.cancel_hand(hand.id, "test")
    await store.close_session(s1.id, 200, "left")
    with pytest.raises(SeatSessionClosed):
        await store.add_chips(s1.id, "r1", 10)
    assert await count(store, "SELECT count(*) FROM chip_additions") == 0


async def test_close_session(store: EngineStore) -> None:
    table = await new_table(store)
    s1 = await seat(store, table.id, 1)
    with pytest.raises(InvalidRecord, match="200"):
        await store.close_session(s1.id, 201, "left")
    closed = await store.close_session(s1.id, 200, "removed")
    assert (closed.state, closed.close_reason, closed.stack) == ("closed", "removed", 200)
    assert closed.closed_at is not None
    assert (await store.close_session(s1.id, 200, "removed")).closed_at == closed.closed_at
    with pytest.raises(SeatSessionClosed):
        await store.close_session(s1.id, 200, "left")


# ------------------------------------------------------------------------------- hands


async def test_start_hand_consumes_the_next_nonce(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2, buy_in=300)
    pair = await store.current_seed_pair(table.id)
    hand = await start(store, table, 1, [s1, s2])
    assert (hand.state, hand.hand_number, hand.nonce) == ("running", 1, 0)
    assert (hand.seed_pair_id, hand.commitment, hand.client_seed) == (
        pair.id,
        pair.commitment,
        "alice",
    )
    assert (await store.current_seed_pair(table.id)).next_nonce == 1
    loaded = await store.get_table(table.id)
    assert (loaded.hands_started, loaded.button_seat) == (1, 1)
    players = await store.hand_players(hand.id)
    assert [(p.seat, p.player_id, p.start_stack, p.final_stack) for p in players] == [
        (1, "p1", 200, None),
        (2, "p2", 300, None),
    ]
    # A retry of the same start returns the hand and takes no second nonce.
    assert (await start(store, table, 1, [s1, s2])).id == hand.id
    assert (await store.current_seed_pair(table.id)).next_nonce == 1


async def test_start_hand_refusals(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2, s3 = [await seat(store, table.id, n) for n in (1, 2, 3)]
    pair = await store.current_seed_pair(table.id)
    upcoming = await store.next_seed_pair(table.id)

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
        return await store.start_hand(table.id, **arguments)

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
    assert (await store.current_seed_pair(table.id)).next_nonce == 0

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
    await store.finish_hand(first.id, **finish_kwargs({s1.id: 190, s2.id: 210}))
    s1, s2 = await store.get_session(s1.id), await store.get_session(s2.id)
    crashed = await start(store, table, 2, [s1, s2])
    assert crashed.nonce == 1
    # The engine dies mid-hand: nothing else is written. A new process starts.
    await store.dispose()
    store = EngineStore(create_engine_for(url), clock=clock)
    try:
        recovered = await store.recover_running_hands()
        assert [h.id for h in recovered] == [crashed.id]
        assert (recovered[0].state, recovered[0].cancel_reason) == ("cancelled", "engine restart")
        assert await store.recover_running_hands() == []
        # Every chip put in during the dead hand is back: stacks are the pre-hand ones.
        assert (await store.get_session(s1.id)).stack == 190
        assert (await store.get_session(s2.id)).stack == 210
        players = await store.hand_players(crashed.id)
        assert [(p.start_stack, p.final_stack) for p in players] == [(190, 190), (210, 210)]
        restored = (await store.open_tables())[0]
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
    mine = await store.recover_running_hands("node moved", table_ids=[hands[0].table_id])
    assert [h.id for h in mine] == [hands[0].id]
    assert (await store.get_hand(hands[1].id)).state == "running"


async def test_finish_hand_writes_the_hand_and_the_stacks(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2, s3 = [await seat(store, table.id, n) for n in (1, 2, 3)]
    hand = await start(store, table, 1, [s1, s2])
    # Seat 3 sat out this hand and leaves with it; seat 1 leaves after playing it.
    done = await store.finish_hand(
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
    stored = await store.get_hand(hand.id)
    assert stored.cards == [
        {"seat": 1, "card": "Ah", "deck_index": 0, "up": False, "street": "third"}
    ]
    assert stored.result == {"won_by_fold": True}
    assert [p.final_stack for p in await store.hand_players(hand.id)] == [180, 218]
    after = {s.id: await store.get_session(s.id) for s in (s1, s2, s3)}
    assert [(a.stack, a.state, a.close_reason) for a in after.values()] == [
        (180, "closed", "left"),
        (218, "open", None),
        (200, "closed", "removed"),
    ]
    assert (await store.get_table(table.id)).button_seat == 2
    # Finishing again (a retry) changes nothing.
    again = await store.finish_hand(hand.id, **finish_kwargs({s1.id: 1, s2.id: 397}))
    assert again.ended_at == done.ended_at
    assert (await store.get_session(s2.id)).stack == 218


async def test_finish_hand_refuses_a_record_that_does_not_add_up(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    hand = await start(store, table, 1, [s1, s2])
    with pytest.raises(InvalidRecord, match="not conserved"):
        await store.finish_hand(hand.id, **finish_kwargs({s1.id: 190, s2.id: 211}))
    with pytest.raises(InvalidRecord, match="not conserved"):
        await store.finish_hand(hand.id, **finish_kwargs({s1.id: 190, s2.id: 210}, rake=1))
    with pytest.raises(InvalidRecord, match="final stacks name"):
        await store.finish_hand(hand.id, **finish_kwargs({s1.id: 400}))
    with pytest.raises(InvalidRecord, match="negative"):
        await store.finish_hand(hand.id, **finish_kwargs({s1.id: -10, s2.id: 410}))
    with pytest.raises(InvalidRecord, match="not at table"):
        await store.finish_hand(
            hand.id,
            **finish_kwargs({s1.id: 190, s2.id: 210}, close_sessions=[("ghost", "left")]),
        )
    assert (await store.get_hand(hand.id)).state == "running"
    assert [(await store.get_session(s.id)).stack for s in (s1, s2)] == [200, 200]


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
        await store.finish_hand(
            hand.id,
            **finish_kwargs({s1.id: 190, s2.id: 210}, close_sessions=[(s1.id, "left")]),
        )
    assert "UPDATE hands" in seen and "UPDATE hand_players" in seen
    stored = await store.get_hand(hand.id)
    assert (stored.state, stored.ended_at, stored.cards, stored.rake) == (
        "running",
        None,
        None,
        None,
    )
    assert [p.final_stack for p in await store.hand_players(hand.id)] == [None, None]
    after = [await store.get_session(s.id) for s in (s1, s2)]
    assert [(a.stack, a.state) for a in after] == [(200, "open"), (200, "open")]
    # The same call succeeds once the fault is gone.
    await store.finish_hand(hand.id, **finish_kwargs({s1.id: 190, s2.id: 210}))
    assert (await store.get_session(s2.id)).stack == 210


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
    with pytest.raises(sa.exc.DBAPIError, match="stacks are frozen"):
        await store.finish_hand(hand.id, **finish_kwargs({s1.id: 190, s2.id: 210}))
    stored = await store.get_hand(hand.id)
    assert (stored.state, stored.result) == ("running", None)
    assert [p.final_stack for p in await store.hand_players(hand.id)] == [None, None]
    assert (await store.get_table(table.id)).button_seat == 1
    assert [(await store.get_session(s.id)).stack for s in (s1, s2)] == [200, 200]


async def test_cancel_hand_keeps_stacks_and_uses_the_nonce(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    hand = await start(store, table, 1, [s1, s2])
    cancelled = await store.cancel_hand(
        hand.id, "ops: table moved", cards=[{"seat": 1, "card": "2c"}], actions=[]
    )
    assert (cancelled.state, cancelled.cancel_reason, cancelled.rake) == (
        "cancelled",
        "ops: table moved",
        0,
    )
    assert cancelled.cards == [{"seat": 1, "card": "2c"}]
    assert [(await store.get_session(s.id)).stack for s in (s1, s2)] == [200, 200]
    assert [p.final_stack for p in await store.hand_players(hand.id)] == [200, 200]
    assert (await store.cancel_hand(hand.id, "again")).cancel_reason == "ops: table moved"
    with pytest.raises(StaleHand, match="cancelled"):
        await store.finish_hand(hand.id, **finish_kwargs({s1.id: 200, s2.id: 200}))
    following = await start(store, table, 2, [s1, s2])
    assert following.nonce == 1
    await store.finish_hand(following.id, **finish_kwargs({s1.id: 200, s2.id: 200}))
    with pytest.raises(StaleHand, match="complete"):
        await store.cancel_hand(following.id, "too late")
    with pytest.raises(HandNotFound):
        await store.cancel_hand("h-none", "x")


async def test_leaving_mid_hand_is_remembered(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2, s3 = [await seat(store, table.id, n) for n in (1, 2, 3)]
    hand = await start(store, table, 1, [s1, s2, s3])
    assert (await store.mark_closing(s1.id)).state == "closing"
    with pytest.raises(HandInProgress):
        await store.close_session(s1.id, None, "left")
    await store.cancel_hand(hand.id, "crash")
    # After the cancel the leaver is still seated (closing) and is not dealt in again.
    restored = (await store.open_tables())[0]
    assert [(s.seat, s.state) for s in restored.sessions] == [
        (1, "closing"),
        (2, "open"),
        (3, "open"),
    ]
    with pytest.raises(InvalidRecord, match="not open"):
        await start(store, table, 2, [s1, s2])
    closed = await store.close_session(s1.id, 200, "left")
    assert closed.state == "closed"


# ------------------------------------------------------------------------------- seeds


async def test_rotate_seed_reveals_and_advances(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    old = await store.current_seed_pair(table.id)
    upcoming = await store.next_seed_pair(table.id)
    hand = await start(store, table, 1, [s1, s2])
    with pytest.raises(HandInProgress):
        await store.rotate_seed(table.id, "carol")
    await store.finish_hand(hand.id, **finish_kwargs({s1.id: 200, s2.id: 200}))

    revealed, current, following = await store.rotate_seed(table.id, "carol")
    assert (revealed.id, revealed.state, revealed.next_nonce) == (old.id, "retired", 1)
    assert revealed.revealed_at is not None
    assert revealed.dealer_seed == old.dealer_seed
    assert (current.id, current.state, current.client_seed) == (upcoming.id, "current", "carol")
    assert current.commitment == upcoming.commitment and current.revealed_at is None
    assert (following.state, following.ordinal, following.revealed_at) == ("next", 3, None)
    assert following.commitment == hashlib.sha256(following.dealer_seed.encode()).hexdigest()
    assert (await store.get_table(table.id)).current_seed_pair_id == current.id
    # The revealed seed proves the dealt hand: its commitment matches what the hand recorded.
    assert hashlib.sha256(revealed.dealer_seed.encode()).hexdigest() == hand.commitment
    assert len(derive_deck(revealed.dealer_seed, hand.client_seed, hand.nonce)) == 52

    second = await start(store, table, 2, [s1, s2])
    assert (second.seed_pair_id, second.nonce, second.client_seed) == (current.id, 0, "carol")
    await store.cancel_hand(second.id, "x")
    # Without a new client seed the current one carries over.
    _, newer, _ = await store.rotate_seed(table.id)
    assert (newer.id, newer.client_seed) == (following.id, "carol")
    states = [
        (p.ordinal, p.state, p.revealed_at is not None) for p in await store.seed_pairs(table.id)
    ]
    assert states == [
        (1, "retired", True),
        (2, "retired", True),
        (3, "current", False),
        (4, "next", False),
    ]
    with pytest.raises(StoreError, match="client_seed"):
        await store.rotate_seed(table.id, "bad seed")


async def test_closing_a_table_pays_out_and_reveals(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2, buy_in=300)
    with pytest.raises(TableState):
        await store.reveal_on_close(table.id)
    hand = await start(store, table, 1, [s1, s2])
    with pytest.raises(HandInProgress):
        await store.close_table(table.id)
    await store.finish_hand(hand.id, **finish_kwargs({s1.id: 150, s2.id: 350}))
    closure = await store.close_table(table.id)
    assert closure.table.status == "closed" and closure.table.closed_at is not None
    assert [(s.seat, s.stack, s.state, s.close_reason) for s in closure.closed_sessions] == [
        (1, 150, "closed", "table_closed"),
        (2, 350, "closed", "table_closed"),
    ]
    assert closure.revealed.id == hand.seed_pair_id and closure.revealed.revealed_at is not None
    # The next pair never dealt: it stays secret.
    assert (await store.next_seed_pair(table.id)).revealed_at is None
    again = await store.close_table(table.id)
    assert (
        again.closed_sessions == [] and again.revealed.revealed_at == closure.revealed.revealed_at
    )
    assert (await store.reveal_on_close(table.id)).revealed_at == closure.revealed.revealed_at
    assert await store.open_tables() == []
    with pytest.raises(TableClosed):
        await store.rotate_seed(table.id)


async def test_reveal_on_close_once_the_table_is_closing(store: EngineStore) -> None:
    table = await new_table(store)
    await store.set_table_status(table.id, "closing")
    pair = await store.reveal_on_close(table.id)
    assert pair.revealed_at is not None and pair.state == "current"


async def test_open_tables_restores_seats_and_pairs(store: EngineStore) -> None:
    table = await new_table(store)
    s2, s1 = await seat(store, table.id, 2), await seat(store, table.id, 1)
    gone = await new_table(store, "req-2")
    await store.close_table(gone.id)
    [restored] = await store.open_tables()
    assert restored.table.id == table.id
    assert [s.id for s in restored.sessions] == [s1.id, s2.id]
    assert restored.current_pair.state == "current" and restored.next_pair.state == "next"
    assert restored.current_pair.id == table.current_seed_pair_id


# --------------------------------------------------------------------------- pagination


async def test_list_tables_pages_newest_first(store: EngineStore) -> None:
    made = [await new_table(store, f"req-{i}") for i in range(7)]
    expected = [t.id for t in reversed(made)]
    pages: list[list[str]] = []
    token = ""
    while True:
        page = await store.list_tables(page_size=3, page_token=token)
        pages.append([t.id for t in page.items])
        token = page.next_page_token
        if not token:
            break
    assert pages == [expected[0:3], expected[3:6], expected[6:7]]
    # A table created meanwhile does not shift later pages.
    first = await store.list_tables(page_size=3)
    await new_table(store, "req-late")
    second = await store.list_tables(page_size=3, page_token=first.next_page_token)
    assert [t.id for t in second.items] == expected[3:6]
    # A page that ends exactly at the last table has no next page.
    exact = await store.list_tables(page_size=8)
    assert (len(exact.items), exact.next_page_token) == (8, "")


async def test_list_tables_orders_ties_by_id(url: str) -> None:
    frozen = StepClock(step=timedelta(0))
    store = EngineStore(create_engine_for(url), clock=frozen)
    try:
        ids = sorted([(await new_table(store, f"req-{i}")).id for i in range(5)], reverse=True)
        seen: list[str] = []
        token = ""
        for _ in range(5):
            page = await store.list_tables(page_size=2, page_token=token)
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
    await store.close_table(closed.id)
    await store.set_table_status(graz.id, "playing")

    async def ids(**filters: Any) -> list[str]:
        return [t.id for t in (await store.list_tables(**filters)).items]

    assert await ids() == [graz.id, private.id, public.id]
    assert await ids(include_private=False) == [graz.id, public.id]
    assert await ids(labels={"city": "vienna"}) == [private.id, public.id]
    assert await ids(labels={"city": "vienna", "stake_level": "low"}) == [public.id]
    assert await ids(statuses=["closed"]) == [closed.id]
    assert await ids(statuses=["playing", "closed"]) == [closed.id, graz.id]
    with pytest.raises(ValueError):
        await ids(statuses=["sleeping"])


async def test_page_tokens_are_checked(store: EngineStore) -> None:
    for i in range(3):
        await new_table(store, f"req-{i}")
    page = await store.list_tables(page_size=1)
    with pytest.raises(InvalidPageToken, match="other filters"):
        await store.list_tables(page_size=1, page_token=page.next_page_token, statuses=["closed"])
    for garbage in ("!!!", "eyJ4IjoxfQ", page.next_page_token[:-3]):
        with pytest.raises(InvalidPageToken):
            await store.list_tables(page_token=garbage)
    with pytest.raises(InvalidPageToken):
        await store.sessions(page_token=page.next_page_token)


async def test_sessions_page_oldest_first(store: EngineStore) -> None:
    table = await new_table(store)
    other = await new_table(store, "req-2")
    made = [await seat(store, table.id, n) for n in range(1, 6)]
    elsewhere = await seat(store, other.id, 1)
    await store.close_session(made[1].id, None, "left")
    await store.close_session(made[3].id, None, "removed")

    async def collect(**filters: Any) -> list[str]:
        seen: list[str] = []
        token = ""
        while True:
            page = await store.sessions(page_size=2, page_token=token, **filters)
            seen += [s.id for s in page.items]
            token = page.next_page_token
            if not token:
                return seen

    assert await collect() == [s.id for s in made] + [elsewhere.id]
    assert await collect(table_id=table.id) == [s.id for s in made]
    assert await collect(table_id=table.id, states=["closed"]) == [made[1].id, made[3].id]
    assert await collect(states=["open"]) == [made[0].id, made[2].id, made[4].id, elsewhere.id]


# ---------------------------------------------------------------- first answers, kept


async def test_a_late_add_chips_retry_gets_the_first_answer(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    first = await store.add_chips(s1.id, "top-1", 50)
    assert await store.chip_addition(s1.id, "top-2", 50) is None
    # A hand moves his stack, then his session closes: the retry still gets 250 / 250.
    hand = await start(store, table, 1, [await store.get_session(s1.id), s2])
    await store.finish_hand(hand.id, **finish_kwargs({s1.id: 230, s2.id: 220}))
    await store.close_session(s1.id, None, "left")
    for answer in (
        await store.add_chips(s1.id, "top-1", 50),
        await store.chip_addition(s1.id, "top-1", 50),
    ):
        assert answer is not None
        assert (answer.stack, answer.chips_in, answer.state) == (250, 250, "open")
        assert (answer.id, answer.table_id, answer.seat) == (first.id, first.table_id, 1)
    now = await store.get_session(s1.id)
    assert (now.stack, now.chips_in, now.state) == (230, 250, "closed"), "nothing changed"
    assert await count(store, "SELECT count(*) FROM chip_additions") == 1
    for other in ((s1.id, 60), (s2.id, 50)):
        with pytest.raises(IdempotencyKeyReused):
            await store.chip_addition(other[0], "top-1", other[1])
        with pytest.raises(IdempotencyKeyReused):
            await store.add_chips(other[0], "top-1", other[1])


async def test_a_removal_is_recorded_with_its_answer(store: EngineStore) -> None:
    table = await new_table(store)
    s1 = await seat(store, table.id, 1)
    assert await store.removal(s1.id) is None
    kept = await store.record_removal(
        s1.id, "rude", state="closing", chips_in=200, stack=200, close_reason=None
    )
    again = await store.record_removal(
        s1.id, "rude", state="closed", chips_in=200, stack=180, close_reason="removed"
    )
    assert (again.state, again.stack) == (kept.state, kept.stack) == ("closing", 200)
    with pytest.raises(IdempotencyKeyReused):
        await store.record_removal(
            s1.id, "other", state="closing", chips_in=200, stack=200, close_reason=None
        )
    with pytest.raises(InvalidRecord):
        await store.record_removal(
            s1.id, "rude", state="open", chips_in=200, stack=200, close_reason=None
        )
    with pytest.raises(SeatSessionNotFound):
        await store.record_removal(
            "nobody", "rude", state="closed", chips_in=1, stack=1, close_reason="removed"
        )
    found = await store.removal(s1.id)
    assert found is not None and (found.reason, found.state, found.stack) == (
        "rude",
        "closing",
        200,
    )


async def test_closed_tables_are_read_on_demand(store: EngineStore) -> None:
    open_one = await new_table(store, "req-open")
    closed = await new_table(store, "req-closed")
    await seat(store, closed.id, 1)
    await store.close_table(closed.id)
    assert await store.closed_table_ids() == [closed.id]
    [item] = await store.tables([closed.id, "no-such-table"])
    assert (item.table.id, item.table.status, item.sessions) == (closed.id, "closed", [])
    assert item.current_pair.revealed_at is not None
    assert {t.table.id for t in await store.tables([open_one.id, closed.id])} == {
        open_one.id,
        closed.id,
    }
    assert [t.table.id for t in await store.open_tables()] == [open_one.id]


async def test_a_cancelled_hand_keeps_its_trail(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    hand = await start(store, table, 1, [s1, s2])
    [running] = await store.running_hands()
    assert (running.hand.id, running.table.id) == (hand.id, table.id)
    assert running.seed_pair.id == hand.seed_pair_id
    assert [p.seat for p in running.players] == [1, 2]
    cards = [{"seat": 1, "card": "Ah", "deck_index": 4, "up": True, "street": "third"}]
    done = await store.cancel_hand(
        hand.id,
        "misdeal",
        cards=cards,
        actions=[{"seat": 1, "do": "bring_in", "amount": 2}],
        result={"cancelled": True, "returned": {"1": 2}},
        phh="_cancelled = true\n",
    )
    assert (done.state, done.cards, done.phh) == ("cancelled", cards, "_cancelled = true\n")
    assert done.result == {"cancelled": True, "returned": {"1": 2}}
    assert await store.running_hands() == []
    assert [(await store.get_session(s.id)).stack for s in (s1, s2)] == [200, 200]


async def test_a_removal_is_applied_and_recorded_in_one_transaction(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2, s3 = [await seat(store, table.id, n) for n in (1, 2, 3)]
    # Between hands: the session closes and the answer a retry gets is kept with it.
    closed = await store.close_session(s1.id, 200, "removed", removal="rude")
    kept = await store.removal(s1.id)
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
    closing = await store.mark_closing(s2.id, removal="slow")
    kept = await store.removal(s2.id)
    assert kept is not None and closing.state == "closing"
    assert (kept.reason, kept.state, kept.stack, kept.close_reason) == (
        "slow",
        "closing",
        200,
        None,
    )
    # Done again with the same reason (a retry racing the first): nothing more is written;
    # with another reason it is another request, refused before anything changes.
    await store.mark_closing(s2.id, removal="slow")
    with pytest.raises(IdempotencyKeyReused):
        await store.mark_closing(s2.id, removal="other")
    with pytest.raises(IdempotencyKeyReused):
        await store.close_session(s1.id, 200, "removed", removal="other")
    assert await count(store, "SELECT count(*) FROM seat_session_removals") == 2
    # A leave that is no removal records none.
    await store.mark_closing(s3.id)
    assert await store.removal(s3.id) is None
    # And the restart that reloads the table knows who was removed (paid out as removed).
    [reloaded] = await store.open_tables()
    assert [(s.id, s.state) for s in reloaded.sessions] == [(s2.id, "closing"), (s3.id, "closing")]
    assert reloaded.removed == frozenset({s2.id})


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
            return store.mark_closing(s1.id, removal="rude")
        return store.close_session(s1.id, 200, "removed", removal="rude")

    seen: list[str] = []
    # Both rows are written (the session's change and the answer a retry gets), then the
    # commit that would keep the answer fails: the change must not stay without it.
    with (
        failing_at_commit(store, "INSERT INTO SEAT_SESSION_REMOVALS", seen),
        pytest.raises(RuntimeError, match="injected"),
    ):
        await remove()
    assert {"UPDATE seat_sessions", "INSERT INTO"} <= set(seen), seen
    assert (await store.get_session(s1.id)).state == "open"
    assert await store.removal(s1.id) is None
    # The retry then applies it, once, with its answer.
    applied = await remove()
    kept = await store.removal(s1.id)
    assert kept is not None and (kept.state, applied.state) == (applied.state, applied.state)
    assert kept.state == ("closing" if mid_hand else "closed")
