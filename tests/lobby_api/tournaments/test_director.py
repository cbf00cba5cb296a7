"""The director on a real database (and a real engine where it seats players): sit & gos
kept open once per template, scheduled starts and cancellations, the draw and the seating
(resumed after a replica dies mid-start), prizes paid once, and a cancellation after the
start sharing the pool by the engine's stacks."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import httpx
import pytest
import sqlalchemy as sa
from litestar import Litestar

from lobby_api.db import Database
from lobby_api.engine_client import EngineError
from lobby_api.tournaments.director import Director
from lobby_api.tournaments.models import TournamentRow
from lobby_api.tournaments.places import Bust
from lobby_api.tournaments.results import record_busts
from tests.engine_server.api.conftest import Engine
from tests.lobby_api.support import (
    Player,
    assert_ledger_consistent,
    play,
    register,
    rows,
    scalar,
)
from tests.lobby_api.tournaments.support import Ops, entries, fees, money_in_play, pool


@pytest.fixture
def fresh_database() -> None:
    """This module's template tests count every open tournament: a database of their own."""


def _director(app: Litestar, holder: str) -> Director:
    return Director(app.state.db, app.state.engines, holder=holder)


async def _open_by_template(db: Database) -> dict[str, int]:
    found = await rows(
        db,
        "SELECT template, count(*) FROM tournaments WHERE status = 'registering' "
        "AND template IS NOT NULL GROUP BY template",
    )
    return {template: int(n) for template, n in found}


async def test_one_open_sit_and_go_per_template_whichever_directors_run(
    client: httpx.AsyncClient, app: Litestar, db: Database, fresh_database: None
) -> None:
    # The lobby opened them at its start, with its seeds.
    assert await _open_by_template(db) == {"turbo-7": 1, "two-table-14": 1, "oslo-6": 1}
    await db.execute_write(
        sa.text("UPDATE tournaments SET open_template = NULL, status = 'cancelled'")
    )
    directors = [_director(app, f"replica-{i}") for i in range(4)]
    opened = await asyncio.gather(*(d.keep_templates_open() for d in directors))
    assert sum(opened) == 3
    assert await _open_by_template(db) == {"turbo-7": 1, "two-table-14": 1, "oslo-6": 1}
    assert await asyncio.gather(*(d.keep_templates_open() for d in directors)) == [0] * 4

    # Fill the Oslo sit & go: it starts, and the next one opens in the same transaction.
    listed = await client.get("/tournaments", params={"city": "oslo", "status": "registering"})
    [oslo] = [t for t in listed.json() if t["template"] == "oslo-6"]
    players = [await register(client, "oslo") for _ in range(6)]
    for player in players:
        answer = await player.post(f"/tournaments/{oslo['id']}/entries")
        assert answer.status_code == 201, answer.text
    assert (await client.get(f"/tournaments/{oslo['id']}")).json()["status"] == "running"
    assert await _open_by_template(db) == {"turbo-7": 1, "two-table-14": 1, "oslo-6": 1}
    assert await asyncio.gather(*(d.keep_templates_open() for d in directors)) == [0] * 4

    # Ops cancel an open one: the next opens at once (and no director opens another).
    [turbo] = [
        t
        for t in (await client.get("/tournaments", params={"status": "registering"})).json()
        if t["template"] == "turbo-7"
    ]
    assert (await Ops(client).cancel(turbo["id"])).status_code == 200
    assert await asyncio.gather(*(d.keep_templates_open() for d in directors)) == [0] * 4
    assert await _open_by_template(db) == {"turbo-7": 1, "two-table-14": 1, "oslo-6": 1}


async def _scheduled(client: httpx.AsyncClient, city: str, db: Database, **fields: Any) -> str:
    starts = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    made = await Ops(client).create(city=city, kind="scheduled", starts_at=starts, **fields)
    return str(made["id"])


async def _due_now(db: Database, tournament_id: str) -> None:
    async with db.write() as session:
        row = await session.get(TournamentRow, tournament_id)
        assert row is not None
        row.starts_at = datetime.now(UTC) - timedelta(seconds=1)
        session.add(row)


async def test_a_scheduled_tournament_short_of_players_is_cancelled_and_refunded_once(
    client: httpx.AsyncClient, app: Litestar, db: Database, city: str
) -> None:
    tournament_id = await _scheduled(client, city, db, min_players=3, max_players=9)
    players = [await register(client, city) for _ in range(2)]
    total = await money_in_play(db, [p.id for p in players], [tournament_id])
    balances = [await p.balance() for p in players]
    for player in players:
        assert (await player.post(f"/tournaments/{tournament_id}/entries")).status_code == 201
    await _due_now(db, tournament_id)

    await asyncio.gather(*(_director(app, f"r{i}").start_due() for i in range(3)))

    page = (await client.get(f"/tournaments/{tournament_id}")).json()
    assert page["status"] == "cancelled"
    assert page["cancel_reason"] == "not enough players: 2 of the 3 needed"
    assert [await p.balance() for p in players] == balances
    assert await pool(db, tournament_id) == 0
    assert await money_in_play(db, [p.id for p in players], [tournament_id]) == total
    await assert_ledger_consistent(db)


async def _seat_sessions(db: Database, tournament_id: str) -> list[Any]:
    return await rows(
        db,
        "SELECT s.id, s.table_id, s.seat, s.stack, s.player_id FROM seat_sessions s "
        "JOIN tournament_entries e ON e.seat_session_id = s.id WHERE e.tournament_id = :t "
        "ORDER BY s.id",
        t=tournament_id,
    )


async def test_a_start_interrupted_after_the_draw_is_finished_by_another_replica(
    client: httpx.AsyncClient, app: Litestar, db: Database, city: str, engine: Engine
) -> None:
    tournament_id = await _scheduled(
        client, city, db, min_players=2, max_players=20, table_size=4, starting_chips=800
    )
    players = [await register(client, city) for _ in range(7)]
    for player in players:
        assert (await player.post(f"/tournaments/{tournament_id}/entries")).status_code == 201
    await _due_now(db, tournament_id)
    first, second = _director(app, "replica-a"), _director(app, "replica-b")
    await first.start_due()
    assert (await client.get(f"/tournaments/{tournament_id}")).json()["status"] == "running"

    # Replica A takes the lease, records the draw and dies before any engine call.
    assert await first.take_lease(tournament_id)
    assert await first.seater.draw(tournament_id)
    drawn = await entries(db, tournament_id)
    assert sorted(
        len([e for e in drawn if e.table_id == t]) for t in {e.table_id for e in drawn}
    ) == [3, 4]
    assert await _seat_sessions(db, tournament_id) == []
    # Replica B waits for A's lease…
    assert not await second.seat(tournament_id)
    # …and finishes once it runs out; the draw is the one A recorded.
    await db.execute_write(
        sa.text("UPDATE tournament_leases SET until = :past WHERE tournament_id = :t").bindparams(
            past=datetime.now(UTC) - timedelta(seconds=1), t=tournament_id
        )
    )
    assert await second.seat(tournament_id)
    assert not await second.seater.draw(tournament_id)  # never drawn again
    seated = await entries(db, tournament_id)
    assert [(e.id, e.table_id, e.seat, e.seat_session_id) for e in seated] == [
        (e.id, e.table_id, e.seat, e.seat_session_id) for e in drawn
    ]
    sessions = await _seat_sessions(db, tournament_id)
    assert len(sessions) == 7
    assert {s.stack for s in sessions} == {800}
    by_id = {e.seat_session_id: e for e in seated}
    assert all((s.table_id, s.seat) == (by_id[s.id].table_id, by_id[s.id].seat) for s in sessions)
    # True tournament tables of the engine (no buy-in: the director seats the chips).
    made = await rows(
        db,
        "SELECT id, tournament_id, min_buy_in, max_buy_in FROM tables WHERE id LIKE :p ORDER BY id",
        p=f"{tournament_id}-%",
    )
    assert [(t.tournament_id, t.min_buy_in, t.max_buy_in) for t in made] == [
        (tournament_id, 0, 0),
        (tournament_id, 0, 0),
    ]

    # Running every step again changes nothing.
    assert await first.seat(tournament_id)
    assert len(await _seat_sessions(db, tournament_id)) == 7
    page = (await client.get(f"/tournaments/{tournament_id}")).json()
    assert page["current_level"] == 1 and page["level_started_at"] is not None
    assert sorted(t["players"] for t in page["tables"]) == [3, 4]
    assert all(t["engine_grpc"] == engine.grpc_address for t in page["tables"])
    mine = (await players[0].get(f"/tournaments/{tournament_id}/entries/me")).json()
    assert mine["status"] == "playing" and mine["token"]
    assert mine["engine_grpc"] == engine.grpc_address and mine["engine_grpc_web"] == engine.web_url
    assert mine["table_id"].startswith(tournament_id) and mine["seat"] >= 1


async def _fill(
    client: httpx.AsyncClient, city: str, size: int, **fields: Any
) -> tuple[str, list[Player]]:
    made = await Ops(client).create(city=city, max_players=size, **fields)
    players = [await register(client, city) for _ in range(size)]
    for player in players:
        answer = await player.post(f"/tournaments/{made['id']}/entries")
        assert answer.status_code == 201, answer.text
    return str(made["id"]), players


async def test_a_full_sit_and_go_is_seated_and_prizes_are_paid_once(
    client: httpx.AsyncClient, app: Litestar, db: Database, city: str, engine: Engine
) -> None:
    before_fees = await fees(db)
    made = await Ops(client).create(city=city, max_players=3)
    players = [await register(client, city) for _ in range(3)]
    ids = [p.id for p in players]
    total = await money_in_play(db, ids, [made["id"]])
    for player in players:
        assert (await player.post(f"/tournaments/{made['id']}/entries")).status_code == 201
    tournament_id = made["id"]
    # The registration that filled it seated everyone (the director, right after it).
    page = (await client.get(f"/tournaments/{tournament_id}")).json()
    assert page["status"] == "running" and len(page["tables"]) == 1
    assert {s["chips"] for s in page["standings"]} <= set(range(0, 1501))
    sessions = await _seat_sessions(db, tournament_id)
    assert len(sessions) == 3

    by_player = {e.player_id: e for e in await entries(db, tournament_id)}
    bob, cy = (by_player[p.id] for p in players[1:])
    # Bob and Cy out in the same hand: Bob had more chips at its start and places higher.
    placed = await record_busts(db, tournament_id, [Bust(cy.id, 100), Bust(bob.id, 700)])
    assert placed == [bob.id, cy.id]
    assert await record_busts(db, tournament_id, [Bust(cy.id, 100), Bust(bob.id, 700)]) == []
    page = (await client.get(f"/tournaments/{tournament_id}")).json()
    assert page["status"] == "finished"
    results = {s["player_id"]: (s["place"], s["prize"]) for s in page["standings"]}
    # 3 entrants: 65/35 of 300.
    assert results == {players[0].id: (1, 195), players[1].id: (2, 105), players[2].id: (3, 0)}
    assert await pool(db, tournament_id) == 0
    assert await fees(db) == before_fees + 30
    assert await money_in_play(db, ids, [tournament_id]) == total
    prize_rows = await scalar(
        db, "SELECT count(*) FROM tournament_prizes WHERE tournament_id = :t", t=tournament_id
    )
    assert prize_rows == 3
    mine = (await players[0].get(f"/tournaments/{tournament_id}/entries/me")).json()
    assert (mine["status"], mine["place"], mine["prize"], mine["token"]) == (
        "finished",
        1,
        195,
        None,
    )
    # The director closes the finished tournament's table on the engine (once a hand that
    # still runs there ends: this test's players never act).
    await _director(app, "closer").close_ended_tables()
    engine_status = await scalar(
        db, "SELECT status FROM tables WHERE id = :t", t=page["tables"][0]["table_id"]
    )
    assert engine_status in ("closing", "closed")
    ours = await scalar(
        db, "SELECT status FROM tournament_tables WHERE tournament_id = :t", t=tournament_id
    )
    assert ours == "closed"
    await assert_ledger_consistent(db)


async def test_cancelled_after_the_start_the_pool_is_shared_by_the_engines_stacks(
    client: httpx.AsyncClient, db: Database, city: str, engine: Engine
) -> None:
    made = await Ops(client).create(city=city, max_players=4, buy_in=101)
    players = [await register(client, city) for _ in range(4)]
    ids = [p.id for p in players]
    total = await money_in_play(db, ids, [made["id"]])
    for player in players:
        assert (await player.post(f"/tournaments/{made['id']}/entries")).status_code == 201
    tournament_id = made["id"]
    assert len(await _seat_sessions(db, tournament_id)) == 4
    fees_after_entries = await fees(db)

    cancelled = await Ops(client).cancel(tournament_id, "fire alarm")
    assert cancelled.status_code == 200, cancelled.text
    page = cancelled.json()
    assert page["status"] == "cancelled"
    stacks = {s.player_id: s.stack for s in await _seat_sessions(db, tournament_id)}
    # The stacks recorded at the last completed hand (a hand still running does not count).
    assert sum(stacks.values()) == 4 * 500
    shares = {s["player_id"]: s["prize"] for s in page["standings"]}
    assert sum(shares.values()) == 404
    for player_id, stack in stacks.items():
        assert abs(shares[player_id] - 404 * stack / 2000) < 1
    assert await pool(db, tournament_id) == 0
    assert await fees(db) == fees_after_entries  # fees are not refunded after the start
    assert await money_in_play(db, ids, [tournament_id]) == total
    closed = await scalar(
        db,
        "SELECT count(*) FROM tournament_tables WHERE tournament_id = :t AND status = 'open'",
        t=tournament_id,
    )
    assert closed == 1  # the director marks it closed on its next pass
    await assert_ledger_consistent(db)


async def test_late_registration_seats_at_the_shortest_table_until_the_level_ends(
    client: httpx.AsyncClient, app: Litestar, db: Database, city: str, engine: Engine
) -> None:
    levels = [
        {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10, "minutes": 1},
        {"ante": 2, "bring_in": 5, "small_bet": 10, "big_bet": 20, "minutes": 1},
    ]
    tournament_id = await _scheduled(
        client,
        city,
        db,
        min_players=2,
        max_players=10,
        table_size=3,
        late_registration_levels=1,
        levels=levels,
    )
    early = [await register(client, city) for _ in range(4)]
    for player in early:
        assert (await player.post(f"/tournaments/{tournament_id}/entries")).status_code == 201
    await _due_now(db, tournament_id)
    director = _director(app, "solo")
    await director.once()
    page = (await client.get(f"/tournaments/{tournament_id}")).json()
    assert page["status"] == "running" and sorted(t["players"] for t in page["tables"]) == [2, 2]

    late = await register(client, city)
    joined = await late.post(f"/tournaments/{tournament_id}/entries")
    assert joined.status_code == 201, joined.text
    await director.once()
    mine = (await late.get(f"/tournaments/{tournament_id}/entries/me")).json()
    assert mine["status"] == "playing" and mine["chips"] == 500
    page = (await client.get(f"/tournaments/{tournament_id}")).json()
    assert sorted(t["players"] for t in page["tables"]) == [2, 3]
    assert page["entries"] == 5 and page["prize_pool"] == 500
    assert len(await _seat_sessions(db, tournament_id)) == 5
    assert page["current_level"] == 1
    # Two more: the last table's free seat, then a new table once every table is full.
    for _ in range(2):
        newcomer = await register(client, city)
        assert (await newcomer.post(f"/tournaments/{tournament_id}/entries")).status_code == 201
    await director.once()
    page = (await client.get(f"/tournaments/{tournament_id}")).json()
    # The new table opened with one player, and balancing (the same pass) moves one of a
    # full table to it: 2, 2, 3.
    assert sorted(t["players"] for t in page["tables"]) == [2, 2, 3]
    assert [t["status"] for t in page["tables"]] == ["open"] * 3
    assert page["entries"] == 7 and page["prize_pool"] == 700
    moving = await scalar(
        db,
        "SELECT count(*) FROM tournament_entries WHERE tournament_id = :t "
        "AND move_from_session IS NOT NULL",
        t=tournament_id,
    )
    # A mover dealt into a running hand is seated at his new table once it ends.
    assert len(await _seat_sessions(db, tournament_id)) == 7 - moving

    # The first level runs out: the clock moves on, and late registration closes with it.
    async with db.write() as session:
        row = await session.get(TournamentRow, tournament_id)
        assert row is not None and row.level_started_at is not None
        started = row.level_started_at - timedelta(seconds=61)
        row.level_started_at = started
        session.add(row)
    await director.advance_levels()
    page = (await client.get(f"/tournaments/{tournament_id}")).json()
    assert page["current_level"] == 2
    assert datetime.fromisoformat(page["level_started_at"]) == started + timedelta(minutes=1)
    too_late = await (await register(client, city)).post(f"/tournaments/{tournament_id}/entries")
    assert too_late.status_code == 409 and too_late.json()["code"] == "tournament_started"


async def test_a_hands_level_ends_when_the_busiest_table_has_played_its_hands(
    client: httpx.AsyncClient, app: Litestar, db: Database, city: str, engine: Engine
) -> None:
    # LEVELS: 5 hands, then 1 minute, then 5 hands.
    made = await Ops(client).create(city=city, max_players=3, rule_overrides={"action_seconds": 2})
    players = [await register(client, city) for _ in range(3)]
    for player in players:
        assert (await player.post(f"/tournaments/{made['id']}/entries")).status_code == 201
    seats = [(await p.get(f"/tournaments/{made['id']}/entries/me")).json() for p in players]
    assert {s["status"] for s in seats} == {"playing"}
    director = _director(app, "clock")
    await director.advance_levels()
    assert (await client.get(f"/tournaments/{made['id']}")).json()["current_level"] == 1

    table = seats[0]["table_id"]
    await asyncio.wait_for(
        asyncio.gather(
            *(
                play(engine.grpc_address, f"tables/{table}", s["token"], until_hand=5, seed=i)
                for i, s in enumerate(seats)
            )
        ),
        timeout=120,
    )
    await director.advance_levels()
    page = (await client.get(f"/tournaments/{made['id']}")).json()
    assert page["current_level"] == 2
    played = await scalar(db, "SELECT hands_started FROM tables WHERE id = :t", t=table)
    base = await scalar(
        db, "SELECT level_hands_base FROM tournament_tables WHERE table_id = :t", t=table
    )
    # The table's count when the level changed (the next hand may have started since).
    assert 5 <= base <= played
    # Level 2 lasts a minute: the hands played since do not end it.
    await director.advance_levels()
    assert (await client.get(f"/tournaments/{made['id']}")).json()["current_level"] == 2
    # Tournament chips stay entrants x starting chips (the house rules take no rake; the
    # engine records stacks at each hand's end, so a hand still running does not show).
    stacks = await _seat_sessions(db, made["id"])
    assert sum(s.stack for s in stacks) == 3 * 500


async def test_a_replica_dying_between_seats_leaves_the_rest_to_the_next_one(
    client: httpx.AsyncClient, app: Litestar, db: Database, city: str, engine: Engine
) -> None:
    tournament_id = await _scheduled(client, city, db, min_players=2, max_players=9)
    players = [await register(client, city) for _ in range(5)]
    for player in players:
        assert (await player.post(f"/tournaments/{tournament_id}/entries")).status_code == 201
    await _due_now(db, tournament_id)
    dying, next_one = _director(app, "dying"), _director(app, "next")
    await dying.start_due()

    # The dying replica's process ends after its second SeatPlayer answered.
    real_seat = dying.engine.seat
    calls = 0

    async def seat_then_die(*args: Any) -> int:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise SystemExit("killed")
        return await real_seat(*args)

    dying.engine.seat = seat_then_die  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        await dying.seat(tournament_id)
    assert len(await _seat_sessions(db, tournament_id)) == 2
    recorded = await entries(db, tournament_id)
    assert sum(1 for e in recorded if e.seated_at is not None) == 2

    # Its lease was given back on the way out; the next replica seats the other three.
    assert await next_one.seat(tournament_id)
    sessions = await _seat_sessions(db, tournament_id)
    assert len(sessions) == 5 and {s.stack for s in sessions} == {500}
    assert [(e.id, e.seat_session_id) for e in await entries(db, tournament_id)] == [
        (e.id, e.seat_session_id) for e in recorded
    ]
    page = (await client.get(f"/tournaments/{tournament_id}")).json()
    assert page["level_started_at"] is not None and page["tables"][0]["players"] == 5


async def test_a_sit_and_go_played_by_bots_to_a_winner(
    client: httpx.AsyncClient, app: Litestar, db: Database, city: str, engine: Engine
) -> None:
    made = await Ops(client).create(
        city=city,
        max_players=3,
        starting_chips=40,
        rule_overrides={"action_seconds": 2},
        levels=[{"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10, "hands": 50}],
    )
    tournament_id = made["id"]
    players = [await register(client, city) for _ in range(3)]
    ids = [p.id for p in players]
    total = await money_in_play(db, ids, [tournament_id])
    for player in players:
        assert (await player.post(f"/tournaments/{tournament_id}/entries")).status_code == 201
    seats = [(await p.get(f"/tournaments/{tournament_id}/entries/me")).json() for p in players]
    table = f"tables/{seats[0]['table_id']}"
    bots = [
        asyncio.create_task(play(engine.grpc_address, table, s["token"], until_hand=10_000, seed=i))
        for i, s in enumerate(seats)
    ]
    director = _director(app, "tournament-director")
    try:
        deadline = asyncio.get_running_loop().time() + 150
        while True:
            await director.record_hands()
            # Chips in play stay entrants x starting chips after every hand recorded.
            chips = await scalar(
                db,
                "SELECT coalesce(sum(chips), 0) FROM tournament_entries WHERE tournament_id = :t "
                "AND status IN ('playing', 'finished')",
                t=tournament_id,
            )
            assert chips == 3 * 40
            status = await scalar(
                db, "SELECT status FROM tournaments WHERE id = :t", t=tournament_id
            )
            if status == "finished":
                break
            assert asyncio.get_running_loop().time() < deadline, "no winner in time"
            await asyncio.sleep(0.2)
    finally:
        for bot in bots:
            bot.cancel()
        await asyncio.gather(*bots, return_exceptions=True)

    page = (await client.get(f"/tournaments/{tournament_id}")).json()
    results = sorted((s["place"], s["prize"], s["status"]) for s in page["standings"])
    assert results in (
        [(1, 195, "finished"), (2, 105, "busted"), (3, 0, "busted")],
        # Two out in the same hand with equal chips at its start share 2nd and 3rd.
        [(1, 195, "finished"), (2, 52, "busted"), (2, 53, "busted")],
    ), results
    assert await pool(db, tournament_id) == 0
    assert await money_in_play(db, ids, [tournament_id]) == total
    # Recording the hands again changes nothing.
    assert await director.record_hands() == 0
    await assert_ledger_consistent(db)


async def test_with_the_engine_unreachable_the_draw_waits_recorded_for_the_next_pass(
    client: httpx.AsyncClient, app: Litestar, db: Database, city: str
) -> None:
    # The app's engine address answers nothing (NO_ENGINE).
    tournament_id, _players = await _fill(client, city, 3)
    director = _director(app, "offline")
    await director.once()  # logs, raises nothing
    with pytest.raises(EngineError) as caught:
        await director.seat(tournament_id)
    assert caught.value.transient
    recorded = await entries(db, tournament_id)
    assert {e.status for e in recorded} == {"playing"}
    assert all(e.seat_session_id and e.seated_at is None for e in recorded)
    tables = await rows(
        db, "SELECT status FROM tournament_tables WHERE tournament_id = :t", t=tournament_id
    )
    assert [t.status for t in tables] == ["planned"]
    page = (await client.get(f"/tournaments/{tournament_id}")).json()
    assert page["status"] == "running" and page["level_started_at"] is None


async def _places_at(db: Database, table_id: str) -> dict[str, list[int]]:
    """The places the engine has told at a table (stored with it: AwardPlace answered)."""
    kept = await scalar(db, "SELECT tournament FROM tables WHERE id = :t", t=table_id)
    if isinstance(kept, str):
        kept = json.loads(kept)
    return dict((kept or {}).get("places") or {})


async def test_a_place_told_while_the_engine_is_away_is_told_again_until_acknowledged(
    client: httpx.AsyncClient, app: Litestar, db: Database, city: str, engine: Engine
) -> None:
    tournament_id, players = await _fill(client, city, 3)
    by_player = {e.player_id: e for e in await entries(db, tournament_id)}
    first, second, third = (by_player[p.id] for p in players)
    [table_id] = {e.table_id for e in by_player.values()}
    teller = _director(app, "teller")
    real_award = teller.engine.award_place
    calls: list[tuple[str, int, bool]] = []
    away = True

    async def award(table: str, player_id: str, name: str, place: int, prize: int) -> None:
        # The engine restarting: the call is lost (UNAVAILABLE) while it is away.
        calls.append((player_id, place, away))
        if away:
            raise EngineError(grpc.StatusCode.UNAVAILABLE, "", "engine restarting")
        await real_award(table, player_id, name, place, prize)

    teller.engine.award_place = award  # type: ignore[method-assign]
    told = "SELECT place_told_at FROM tournament_entries WHERE id = :e"

    # Third out: his AwardPlace is lost; nothing is recorded as told, and the engine knows
    # nothing of it.
    assert await record_busts(db, tournament_id, [Bust(third.id, 500)]) == [third.id]
    assert await teller.tell_places() == 1
    assert calls == [(third.player_id, 3, True)]
    assert await scalar(db, told, e=third.id) is None
    assert await _places_at(db, table_id) == {}

    # The next pass tells him again, and the engine's answer is recorded.
    away = False
    assert await teller.tell_places() == 0
    assert calls[-1] == (third.player_id, 3, False)
    assert await scalar(db, told, e=third.id) is not None
    assert await _places_at(db, table_id) == {third.player_id: [3, 0]}
    # Acknowledged: never sent again.
    assert await teller.tell_places() == 0
    assert len(calls) == 2

    # The end, with the engine away: the table is not closed before the places are told.
    assert await record_busts(db, tournament_id, [Bust(second.id, 700)]) == [second.id]
    away = True
    await teller.once()
    table_status = "SELECT status FROM tournament_tables WHERE table_id = :t"
    assert await scalar(db, table_status, t=table_id) == "open"
    assert await scalar(db, told, e=second.id) is None
    assert await scalar(db, told, e=first.id) is None
    # Back: both told (the winner too), once each, then the table is closed.
    away = False
    await teller.once()
    assert await _places_at(db, table_id) == {
        third.player_id: [3, 0],
        second.player_id: [2, 105],
        first.player_id: [1, 195],
    }
    assert await scalar(db, table_status, t=table_id) == "closed"
    acknowledged = [c for c in calls if not c[2]]
    assert sorted(acknowledged) == sorted(
        [(third.player_id, 3, False), (second.player_id, 2, False), (first.player_id, 1, False)]
    )
