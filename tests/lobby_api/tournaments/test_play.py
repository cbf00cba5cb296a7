"""Tournaments played end to end: the director on a real database driving a real engine's
tournament tables, bots acting through the real gRPC API and following their moves.

A 7-player sit & go played to a winner; a 21-player tournament on three tables balanced and
broken down to a final table, hand-for-hand at the bubble; chips and money conserved after
every pass of the director; a replica killed mid-move or mid-payout, finished by another
with nothing paid twice.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from litestar import Litestar

from lobby_api import engine_reads
from lobby_api.db import Database
from lobby_api.tournaments import results
from lobby_api.tournaments.director import Director
from lobby_api.tournaments.money import pay_prize
from lobby_api.tournaments.places import Bust
from tests.engine_server.api.conftest import Engine
from tests.lobby_api.support import Player, assert_ledger_consistent, register, rows, scalar
from tests.lobby_api.tournaments.support import STEEP, Ops, money_in_play, pool, tournament_bot

STARTING = 60


@dataclass
class Seen:
    """What the test saw of the tournament between the director's passes."""

    passes: int = 0
    held: bool = False
    hand_for_hand_info: bool = False
    open_tables: list[int] = field(default_factory=list)
    #: Every SetHandHold the director made: (table, held, players left, tables open) then.
    holds: list[tuple[str, bool, int, int]] = field(default_factory=list)


def _kept(value: Any) -> dict[str, Any]:
    """A tournament table's stored state (JSON: text on SQLite through plain SQL)."""
    if isinstance(value, str):
        value = json.loads(value)
    return dict(value or {})


async def _chips(db: Database, tournament_id: str) -> int:
    return int(
        await scalar(
            db,
            "SELECT coalesce(sum(chips), 0) FROM tournament_entries WHERE tournament_id = :t "
            "AND status IN ('playing', 'finished')",
            t=tournament_id,
        )
    )


async def _play_out(
    client: httpx.AsyncClient,
    app: Litestar,
    db: Database,
    engine: Engine,
    city: str,
    size: int,
    starting: int = STARTING,
    **fields: Any,
) -> tuple[str, list[Player], int, Seen]:
    made = await Ops(client).create(
        city=city,
        max_players=size,
        starting_chips=starting,
        rule_overrides={"action_seconds": 3},
        levels=STEEP,
        **fields,
    )
    tournament_id = str(made["id"])
    players = [await register(client, city) for _ in range(size)]
    total = await money_in_play(db, [p.id for p in players], [tournament_id])
    for player in players:
        assert (await player.post(f"/tournaments/{tournament_id}/entries")).status_code == 201
    bots = [
        asyncio.create_task(tournament_bot(p, tournament_id, seed=i)) for i, p in enumerate(players)
    ]
    director = Director(app.state.db, app.state.engines, holder="director")
    seen = Seen()
    real_hold = director.engine.hold

    async def hold(table_id: str, held: bool) -> bool:
        # What the tournament was when the director held (or released) a table.
        left = await scalar(
            db,
            "SELECT count(*) FROM tournament_entries WHERE tournament_id = :t "
            "AND status = 'playing'",
            t=tournament_id,
        )
        tables = await scalar(
            db,
            "SELECT count(*) FROM tournament_tables WHERE tournament_id = :t AND status = 'open'",
            t=tournament_id,
        )
        seen.holds.append((table_id, held, int(left), int(tables)))
        return await real_hold(table_id, held)

    director.engine.hold = hold  # type: ignore[method-assign]
    try:
        deadline = asyncio.get_running_loop().time() + 240
        while True:
            await director.once()
            seen.passes += 1
            # Tournament chips: entrants x starting chips after every pass (every hand).
            assert await _chips(db, tournament_id) == size * starting
            assert await money_in_play(db, [p.id for p in players], [tournament_id]) == total
            async with db.read() as session:
                tables = [
                    t
                    for t in await engine_reads.tournament_tables(session, tournament_id)
                    if not t.is_closed
                ]
            seen.held |= any(t.hand_held for t in tables)
            seen.open_tables.append(len(tables))
            infos = await rows(
                db, "SELECT tournament FROM tables WHERE tournament_id = :t", t=tournament_id
            )
            seen.hand_for_hand_info |= any(
                (_kept(i.tournament).get("info") or {}).get("hand_for_hand") for i in infos
            )
            status = await scalar(
                db, "SELECT status FROM tournaments WHERE id = :t", t=tournament_id
            )
            if status == "finished":
                break
            assert asyncio.get_running_loop().time() < deadline, (
                f"no winner in time: {tables}, tables seen {seen.open_tables[-20:]}"
            )
            await asyncio.sleep(0.05)
        await director.once()  # closes the tables
    finally:
        for bot in bots:
            bot.cancel()
        await asyncio.gather(*bots, return_exceptions=True)
    return tournament_id, players, total, seen


async def _check_results(
    client: httpx.AsyncClient,
    db: Database,
    tournament_id: str,
    players: list[Player],
    total: int,
    starting: int = STARTING,
) -> dict[str, Any]:
    page = (await client.get(f"/tournaments/{tournament_id}")).json()
    assert page["status"] == "finished"
    standings = page["standings"]
    assert sorted(s["status"] for s in standings).count("finished") == 1
    assert all(s["place"] is not None for s in standings)
    winner = next(s for s in standings if s["place"] == 1)
    assert winner["chips"] == len(players) * starting
    # On the engine too: the winner's last seat holds every chip of the tournament.
    last = await rows(
        db,
        "SELECT stack FROM seat_sessions WHERE player_id = :p AND table_id LIKE :t "
        "ORDER BY opened_at DESC, id DESC",
        p=winner["player_id"],
        t=f"{tournament_id}-%",
    )
    assert last[0].stack == len(players) * starting
    # Payouts sum to the pool (buy-ins), which is empty now; money is conserved.
    assert sum(s["prize"] or 0 for s in standings) == 100 * len(players)
    assert sum(p["amount"] for p in page["payouts"]) == 100 * len(players)
    assert await pool(db, tournament_id) == 0
    assert await money_in_play(db, [p.id for p in players], [tournament_id]) == total
    prize_rows = await scalar(
        db, "SELECT count(*) FROM tournament_prizes WHERE tournament_id = :t", t=tournament_id
    )
    assert prize_rows == len(players)
    await assert_ledger_consistent(db)
    return dict(page)


async def test_a_sit_and_go_of_seven_bots_is_played_to_a_winner_and_paid(
    client: httpx.AsyncClient, app: Litestar, db: Database, city: str, engine: Engine
) -> None:
    tournament_id, players, total, seen = await _play_out(client, app, db, engine, city, 7)
    page = await _check_results(client, db, tournament_id, players, total)
    # 7 entrants: 65/35 of 700 (two out in one hand with equal chips share their places).
    prizes = sorted((s["prize"] or 0 for s in page["standings"]), reverse=True)
    assert prizes[0] == 455 and sum(prizes[1:]) == 245
    # Every player out was told his place at his table (AwardPlace), the winner too.
    table = await rows(
        db, "SELECT tournament FROM tables WHERE tournament_id = :t", t=tournament_id
    )
    awarded = _kept(table[0].tournament).get("places") or {}
    assert {p.id for p in players} <= set(awarded), awarded
    # Busts came from the engine: every loser's last session closed BUSTED.
    busted = await scalar(
        db,
        "SELECT count(*) FROM seat_sessions WHERE table_id LIKE :p AND close_reason = 'busted'",
        p=f"{tournament_id}-%",
    )
    assert busted == 6
    assert seen.open_tables[-1] <= 1


async def test_a_multi_table_tournament_is_balanced_broken_and_plays_hand_for_hand(
    client: httpx.AsyncClient, app: Litestar, db: Database, city: str, engine: Engine
) -> None:
    # 21 players on three tables of 7, 9 places paid: balanced and broken down to a final
    # table, hand-for-hand at the bubble (10 left: two or three tables still play).
    tournament_id, players, total, seen = await _play_out(
        client,
        app,
        db,
        engine,
        city,
        21,
        starting=400,
        table_size=7,
        payouts=[{"max_entrants": 30, "percentages": [30, 20, 14, 10, 8, 6, 5, 4, 3]}],
    )
    page = await _check_results(client, db, tournament_id, players, total, starting=400)
    # Three tables broken down to a final table (never more tables than the players need).
    assert seen.open_tables[0] == 3 and 1 in seen.open_tables
    assert seen.open_tables == sorted(seen.open_tables, reverse=True)
    moved = await scalar(
        db,
        "SELECT count(*) FROM seat_sessions WHERE table_id LIKE :p AND close_reason = 'moved'",
        p=f"{tournament_id}-%",
    )
    assert moved >= 2, "the broken tables' players moved"
    places = sorted(s["place"] for s in page["standings"])
    assert places[0] == 1 and places[-1] >= 20
    bubble = [s for s in page["standings"] if s["place"] >= 10]
    assert all((s["prize"] or 0) == 0 for s in bubble)
    in_money = [s for s in page["standings"] if s["place"] <= 9]
    assert len(in_money) >= 9 and all(s["prize"] > 0 for s in in_money)
    # Hand-for-hand at the bubble: with 10 left (places paid + 1) every open table — more
    # than one — was held after its hand (SetHandHold). The one way
    # around it: the hand that took the bubble player out also took out the 11th (one hand
    # at one table, recorded together: the same time out), so no hand was ever dealt with
    # exactly 10 left.
    out_at = {
        e.place: e.busted_at
        for e in await rows(
            db,
            "SELECT place, busted_at FROM tournament_entries WHERE tournament_id = :t",
            t=tournament_id,
        )
    }
    held_at_bubble = {t for t, held, left, tables in seen.holds if held and left == 10}
    if out_at[10] != out_at[11]:
        assert len(held_at_bubble) >= 2, seen.holds
        assert all(tables >= 2 for _t, held, _left, tables in seen.holds if held), seen.holds
    else:
        assert not held_at_bubble, seen.holds


async def test_a_replica_killed_mid_move_and_mid_payout_is_finished_by_another(
    client: httpx.AsyncClient,
    app: Litestar,
    db: Database,
    city: str,
    engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 8 players: two tables of 4; three out (recorded by hand) leave 5 = a table to break.
    made = await Ops(client).create(
        city=city,
        max_players=8,
        table_size=7,
        starting_chips=STARTING,
        levels=STEEP,
        rule_overrides={"action_seconds": 1},
    )
    tournament_id = str(made["id"])
    players = [await register(client, city) for _ in range(8)]
    total = await money_in_play(db, [p.id for p in players], [tournament_id])
    for player in players:
        assert (await player.post(f"/tournaments/{tournament_id}/entries")).status_code == 201
    dying = Director(app.state.db, app.state.engines, holder="dying")
    next_one = Director(app.state.db, app.state.engines, holder="next")
    async with db.read() as session:
        tables = await engine_reads.tournament_tables(session, tournament_id)
    assert len(tables) == 2
    seated = await rows(
        db,
        "SELECT id, table_id FROM tournament_entries WHERE tournament_id = :t",
        t=tournament_id,
    )

    # Mid-payout: the transaction placing three players dies after paying one: nothing stays.
    out = [Bust(e.id, STARTING) for e in seated if e.table_id == tables[1].table_id][:3]
    real_pay = pay_prize
    paid = 0

    async def pay_then_die(*args: Any, **kwargs: Any) -> bool:
        nonlocal paid
        paid += 1
        done = await real_pay(*args, **kwargs)
        if paid == 2:
            raise SystemExit("killed mid-payout")
        return done

    monkeypatch.setattr(results, "pay_prize", pay_then_die)
    with pytest.raises(SystemExit):
        await results.record_busts(db, tournament_id, out)
    monkeypatch.setattr(results, "pay_prize", real_pay)
    prize_rows = "SELECT count(*) FROM tournament_prizes WHERE tournament_id = :t"
    assert await scalar(db, prize_rows, t=tournament_id) == 0
    assert len(await results.record_busts(db, tournament_id, out)) == 3
    assert await results.record_busts(db, tournament_id, out) == []
    assert await scalar(db, prize_rows, t=tournament_id) == 3

    # Mid-move: the dying replica's MovePlayer answered, then it died before recording it.
    real_move = dying.engine.move

    async def move_then_die(*args: Any) -> Any:
        await real_move(*args)
        raise SystemExit("killed mid-move")

    monkeypatch.setattr(dying.engine, "move", move_then_die)
    deadline = asyncio.get_running_loop().time() + 90
    while True:
        await dying.record_hands()
        try:
            await dying.tables.run_tables_of(tournament_id)
        except SystemExit:
            break
        finally:
            await dying.release_lease(tournament_id)
        assert asyncio.get_running_loop().time() < deadline, "no move in time"
        await asyncio.sleep(0.1)
    pending = await rows(
        db,
        "SELECT id FROM tournament_entries WHERE tournament_id = :t "
        "AND move_from_session IS NOT NULL",
        t=tournament_id,
    )
    assert pending, "the dying replica recorded its moves before making them"

    # The next replica finishes every move: each seated once, with the chips he left with.
    while True:
        await next_one.record_hands()
        await next_one.tables.run_tables_of(tournament_id)
        after = await rows(
            db,
            "SELECT id, status, table_id, seat_session_id, chips, seated_at, "
            "move_from_session FROM tournament_entries WHERE tournament_id = :t",
            t=tournament_id,
        )
        playing = [e for e in after if e.status == "playing"]
        if all(e.move_from_session is None and e.seated_at is not None for e in playing):
            break
        assert asyncio.get_running_loop().time() < deadline, "the moves were never finished"
        await asyncio.sleep(0.1)
    assert len({e.table_id for e in playing}) == 1, "the short table was broken"
    moved = await rows(
        db,
        "SELECT id, player_id, stack FROM seat_sessions WHERE table_id LIKE :p "
        "AND close_reason = 'moved'",
        p=f"{tournament_id}-%",
    )
    assert moved and len(moved) == len({m.player_id for m in moved})
    by_player = {m.player_id: m for m in moved}
    entry_players = dict(
        (e.id, e.player_id)
        for e in await rows(
            db,
            "SELECT id, player_id FROM tournament_entries WHERE tournament_id = :t",
            t=tournament_id,
        )
    )
    for entry in playing:
        old = by_player.get(entry_players[entry.id])
        if old is None:
            continue
        # Seated once at the destination, with exactly the chips his move closed with.
        new = await rows(
            db,
            "SELECT chips_in FROM seat_sessions WHERE player_id = :p AND table_id = :t",
            p=entry_players[entry.id],
            t=entry.table_id,
        )
        assert [n.chips_in for n in new] == [old.stack]
    # Nothing paid twice: three prize rows (out of the money: 0 each), the pool untouched.
    assert await scalar(db, prize_rows, t=tournament_id) == 3
    assert await pool(db, tournament_id) == 800
    assert await money_in_play(db, [p.id for p in players], [tournament_id]) == total


async def test_at_the_bubble_every_table_plays_each_hand_together(
    client: httpx.AsyncClient, app: Litestar, db: Database, city: str, engine: Engine
) -> None:
    # 8 players on two tables of 4, five places paid: with six left the next player out is
    # the bubble. Nobody acts (the 1-second clock acts for them): hands end by the clock.
    made = await Ops(client).create(
        city=city,
        max_players=8,
        table_size=4,
        starting_chips=STARTING,
        levels=STEEP,
        rule_overrides={"action_seconds": 1},
        payouts=[{"max_entrants": 8, "percentages": [40, 25, 15, 12, 8]}],
    )
    tournament_id = str(made["id"])
    players = [await register(client, city) for _ in range(8)]
    for player in players:
        assert (await player.post(f"/tournaments/{tournament_id}/entries")).status_code == 201
    seated = await rows(
        db, "SELECT id, table_id FROM tournament_entries WHERE tournament_id = :t", t=tournament_id
    )
    tables = sorted({e.table_id for e in seated})
    assert len(tables) == 2
    # One player out at each table (recorded by hand): six left, two tables of three.
    out = [Bust(next(e.id for e in seated if e.table_id == t), STARTING) for t in tables]
    assert len(await results.record_busts(db, tournament_id, out)) == 2

    director = Director(app.state.db, app.state.engines, holder="h4h")
    held_since: datetime | None = None
    deadline = asyncio.get_running_loop().time() + 120
    while True:
        await director.once()
        async with db.read() as session:
            kept = {
                t.table_id: t for t in await engine_reads.tournament_tables(session, tournament_id)
            }
        info = await rows(
            db, "SELECT tournament FROM tables WHERE tournament_id = :t", t=tournament_id
        )
        assert all((_kept(i.tournament).get("info") or {}).get("hand_for_hand") for i in info)
        if held_since is None and all(kept[t].hand_held for t in tables):
            held_since = datetime.now(UTC)
        if held_since is not None:
            hands = await rows(
                db,
                "SELECT table_id, hand_number, started_at, ended_at FROM hands "
                "WHERE table_id IN (:a, :b) AND started_at > :since AND ended_at IS NOT NULL "
                "ORDER BY hand_number",
                a=tables[0],
                b=tables[1],
                since=held_since,
            )
            by_table = {t: [h for h in hands if h.table_id == t] for t in tables}
            if all(len(played) >= 3 for played in by_table.values()):
                break
        assert asyncio.get_running_loop().time() < deadline, "hand-for-hand never went round"
        await asyncio.sleep(0.05)
    # Every table started each hand only once every table had finished the one before: the
    # tables played hand for hand.
    first, second = (by_table[t][:3] for t in tables)
    for k in (1, 2):
        assert _when(first[k].started_at) >= _when(second[k - 1].ended_at), (first, second)
        assert _when(second[k].started_at) >= _when(first[k - 1].ended_at), (first, second)
    # The round's hands are recorded together, at its end (busts share the places).
    recorded = await rows(
        db,
        "SELECT table_id, hands_recorded FROM tournament_tables WHERE tournament_id = :t",
        t=tournament_id,
    )
    assert all(r.hands_recorded >= by_table[r.table_id][1].hand_number for r in recorded)


def _when(value: Any) -> datetime:
    """A stored time (text on SQLite through plain SQL), as an aware datetime."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    assert isinstance(value, datetime)
    return value if value.tzinfo else value.replace(tzinfo=UTC)
