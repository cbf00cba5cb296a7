"""The engine as a process: killed with SIGKILL mid-hand and restarted on its database it
loses and makes no chip; stopped with SIGTERM it drains (finishes the hand) and exits 0."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2
from stud.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    settings_pb2,
    table_pb2,
    table_service_pb2,
)

from benchmarks.processes import ReadyProcess, start_stud
from engine_server.auth import Scope
from engine_server.game.cards import format_cards
from engine_server.game.fairness import derive_deck
from tests.engine_server.api.conftest import SECRET, bearer
from tests.engine_server.api.players import (
    Decide,
    Player,
    action,
    at_sequence,
    caller,
    error_info,
    event_of,
    is_event,
    passive,
)
from tests.outage import read_only_sqlite

K = table_pb2
ADMIN = bearer("ops", Scope.ADMIN)


@dataclass
class EngineProcess:
    """``stud engine`` running in a child process, and an admin client to it."""

    process: ReadyProcess
    address: str
    channel: grpc.aio.Channel
    admin: admin_service_pb2_grpc.AdminServiceStub

    @property
    def ready(self) -> dict[str, Any]:
        """The ready line it printed."""
        return self.process.ready

    def player(self, player_id: str, table: str, decide: Decide = passive) -> Player:
        return Player(player_id, self.address, table, bearer(player_id, Scope.PLAYER), decide)

    async def close(self) -> None:
        await self.channel.close()
        await self.process.close()


async def start(
    database: Path,
    log: Path,
    between_hands: float = 0.05,
    *,
    log_level: str = "WARNING",
    lease_seconds: float = 1,
    url: str | None = None,
) -> EngineProcess:
    """Start ``stud engine`` on ``database`` (or the database at ``url``); returns once it
    printed its addresses."""
    env = {
        **os.environ,
        "STUD_JWT_SECRET": SECRET,
        "STUD_DATABASE_URL": url or f"sqlite:///{database}",
        "STUD_ENGINE_BETWEEN_HANDS": str(between_hands),
        "STUD_ENGINE_METRICS_PORT": "0",
        "STUD_LOG_FORMAT": "text",
        "STUD_LOG_LEVEL": log_level,
        # A restart after kill -9 waits for the killed process's lease to run out: short here.
        "STUD_ENGINE_LEASE_SECONDS": str(lease_seconds),
    }
    process = await start_stud(
        "engine", "--grpc-port", "0", "--web-port", "0", env=env, ready_key="grpc", log=log
    )
    ready = process.ready
    _, _, port = ready["grpc"].rpartition(":")
    assert int(port) > 0, ready  # --grpc-port 0: the line names the port it really got
    address = f"127.0.0.1:{port}"
    channel = grpc.aio.insecure_channel(address)
    return EngineProcess(
        process, address, channel, admin_service_pb2_grpc.AdminServiceStub(channel)
    )


@pytest.fixture
async def running(tmp_path: Path) -> AsyncIterator[list[EngineProcess]]:
    """Engine processes a test starts (appended by it); all killed at its end."""
    started: list[EngineProcess] = []
    try:
        yield started
    finally:
        for engine in started:
            await engine.close()


async def create_table(engine: EngineProcess, table_id: str, **overrides: Any) -> None:
    rule_overrides = struct_pb2.Struct()
    rule_overrides.update(overrides)
    await engine.admin.CreateTable(
        admin_service_pb2.CreateTableRequest(
            request_id=f"create-{table_id}",
            table_id=table_id,
            profile="house",
            rule_overrides=rule_overrides,
            stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
            min_buy_in=10,
            max_buy_in=1000,
            client_seed="crash-test",
        ),
        metadata=ADMIN,
    )
    await engine.admin.PauseTable(
        admin_service_pb2.PauseTableRequest(name=f"tables/{table_id}", reason="seating"),
        metadata=ADMIN,
    )
    for seat in (1, 2, 3):
        await engine.admin.SeatPlayer(
            admin_service_pb2.SeatPlayerRequest(
                table=f"tables/{table_id}",
                seat_session_id=f"ss-{table_id}-p{seat}",
                player_id=f"p{seat}",
                display_name=f"P{seat}",
                seat=seat,
                buy_in=100,
            ),
            metadata=ADMIN,
        )


async def resume(engine: EngineProcess, table_id: str) -> None:
    await engine.admin.ResumeTable(
        admin_service_pb2.ResumeTableRequest(name=f"tables/{table_id}"), metadata=ADMIN
    )


async def sessions(engine: EngineProcess, table_id: str) -> dict[str, table_pb2.SeatSession]:
    listed = await engine.admin.ListSeatSessions(
        admin_service_pb2.ListSeatSessionsRequest(table=f"tables/{table_id}"), metadata=ADMIN
    )
    return {s.player_id: s for s in listed.sessions}


def hands(database: Path, table_id: str) -> list[dict[str, Any]]:
    """The table's hands as stored, by hand number."""
    with contextlib.closing(sqlite3.connect(database)) as db:
        db.row_factory = sqlite3.Row
        rows = db.execute(
            "SELECT id, hand_number, nonce, state, cancel_reason FROM hands"
            " WHERE table_id = ? ORDER BY hand_number",
            (table_id,),
        ).fetchall()
        found = []
        for row in rows:
            players = db.execute(
                "SELECT seat, start_stack, final_stack FROM hand_players WHERE hand_id = ?",
                (row["id"],),
            ).fetchall()
            found.append({**dict(row), "players": {p["seat"]: dict(p) for p in players}})
        return found


def audit_trail(database: Path, hand_id: str) -> dict[str, Any]:
    """The cards, actions and result stored with a hand."""
    with contextlib.closing(sqlite3.connect(database)) as db:
        row = db.execute(
            "SELECT cards, actions, result FROM hands WHERE id = ?", (hand_id,)
        ).fetchone()
    assert row is not None
    return {
        key: json.loads(value)
        for key, value in zip(("cards", "actions", "result"), row, strict=True)
    }


async def first_hand_running(
    tmp_path: Path, running: list[EngineProcess], table_id: str
) -> tuple[EngineProcess, Path, Path]:
    """An engine process on a fresh database with ``table_id`` seated (3 players) and its
    first hand running; nobody is connected and the clock is long, so the hand stays
    running until the test ends it. Returns the engine, its database and its log."""
    database, log = tmp_path / "engine.sqlite3", tmp_path / "engine.log"
    engine = await start(database, log)
    running.append(engine)
    await create_table(engine, table_id, action_seconds=60)
    await resume(engine, table_id)
    get = admin_service_pb2.GetTableRequest(name=f"tables/{table_id}")
    async with asyncio.timeout(10):
        while not (await engine.admin.GetTable(get, metadata=ADMIN)).table.hand_in_progress:
            await asyncio.sleep(0.02)
    return engine, database, log


def in_hand(hand_number: int) -> Decide:
    """Checks and calls in ``hand_number`` only (the test plays the others itself)."""

    def decide(snapshot: table_pb2.TableSnapshot) -> tuple[int, int | None] | None:
        return caller(snapshot) if snapshot.hand_number == hand_number else None

    return decide


async def test_kill_9_mid_hand_then_restart_cancels_the_hand_and_loses_no_chip(
    tmp_path: Path, running: list[EngineProcess]
) -> None:
    database, log = tmp_path / "engine.sqlite3", tmp_path / "engine.log"
    first = await start(database, log)
    running.append(first)
    await create_table(first, "crash")
    players = [first.player(f"p{seat}", "tables/crash", in_hand(1)) for seat in (1, 2, 3)]
    for player in players:
        await player.connect()
    await resume(first, "crash")
    watcher, _, leaver = players

    # Hand 1 is played out; its stacks are what hand 2 starts from.
    ended = await watcher.wait_for(is_event("hand_ended", 1), timeout=30)
    before = dict(event_of(ended, "hand_ended").hand_ended.result.final_stacks)
    assert sum(before.values()) == 300 and before != {1: 100, 2: 100, 3: 100}

    # Hand 2: two players put chips in, and one asks to leave; then the engine dies.
    dealt = await watcher.wait_for(
        lambda m: m.snapshot.hand_in_progress and m.snapshot.hand_number == 2, timeout=10
    )
    # What the watcher saw dealt: his own cards and everyone's door card.
    seen = {(seat.number, card) for seat in dealt.snapshot.seats for card in seat.up_cards}
    mine = next(s for s in dealt.snapshot.seats if s.number == dealt.snapshot.viewer_seat)
    seen |= {(mine.number, card) for card in mine.down_cards}
    mark = 0
    for _ in range(2):
        turn = await watcher.wait_for(
            is_event("turn_started", 2),
            after=mark,
            timeout=10,
        )
        mark = watcher.messages.index(turn) + 1
        actor = players[event_of(turn, "turn_started").turn_started.seat - 1]
        own = await actor.wait_for(at_sequence(turn.sequence), timeout=5)
        assert own.sequence == turn.sequence
        chosen = action(own.snapshot, K.ACTION_KIND_COMPLETE) or action(
            own.snapshot, K.ACTION_KIND_CALL
        )
        assert chosen is not None, own.snapshot.legal_actions
        assert await actor.act(2, *chosen) is not None
    leaving = await leaver.stub.Leave(
        table_service_pb2.LeaveRequest(table="tables/crash"), metadata=leaver.metadata
    )
    assert not leaving.left and leaving.session.state == K.SEAT_SESSION_STATE_CLOSING
    shown = await watcher.wait_for(is_event("player_leaving"), after=mark, timeout=5)
    in_pots = shown.snapshot.pot_total
    assert in_pots > 3 and shown.snapshot.hand_in_progress and shown.snapshot.hand_number == 2
    assert sum(s.stack for s in shown.snapshot.seats) + in_pots == 300

    assert await first.process.kill_9() == -signal.SIGKILL
    for player in players:
        await player.close()
    stored = hands(database, "crash")
    assert [(h["hand_number"], h["state"]) for h in stored] == [(1, "complete"), (2, "running")]

    # Restarted on the same database: hand 2 is cancelled, every chip back where it was.
    second = await start(database, log)
    running.append(second)
    stored = hands(database, "crash")
    assert [(h["hand_number"], h["nonce"], h["state"]) for h in stored[:2]] == [
        (1, 0, "complete"),
        (2, 1, "cancelled"),
    ]
    cancelled = stored[1]
    assert cancelled["cancel_reason"]
    # Its deal is kept for the audit, rebuilt from the seed pair and nonce: three cards a
    # seat with their deck positions, the ones the watcher saw among them.
    trail = audit_trail(database, cancelled["id"])
    cards = trail["cards"]
    assert len({c["deck_index"] for c in cards}) == len(cards) == 9
    assert {c["seat"] for c in cards} == {1, 2, 3} and all(c["street"] == "third" for c in cards)
    assert seen <= {(c["seat"], c["card"]) for c in cards} and len(seen) == 5
    with contextlib.closing(sqlite3.connect(database)) as db:
        dealer_seed, client_seed, nonce = db.execute(
            "SELECT p.dealer_seed, h.client_seed, h.nonce FROM hands h"
            " JOIN seed_pairs p ON p.id = h.seed_pair_id WHERE h.id = ?",
            (cancelled["id"],),
        ).fetchone()
    deck = format_cards(derive_deck(dealer_seed, client_seed, nonce))
    assert all(deck[c["deck_index"]] == c["card"] for c in cards)
    assert trail["result"]["cancelled"] is True and "rebuilt" in trail["result"]["trail"]
    assert {seat: p["final_stack"] for seat, p in cancelled["players"].items()} == before
    assert {seat: p["start_stack"] for seat, p in cancelled["players"].items()} == before
    seats = await sessions(second, "crash")
    assert {s.seat: s.stack for s in seats.values()} == before
    # The leaver is paid out with what he had before the cancelled hand, and gone.
    assert seats["p3"].state == K.SEAT_SESSION_STATE_CLOSED
    assert seats["p3"].close_reason == K.SEAT_SESSION_CLOSE_REASON_LEFT
    assert seats["p1"].state == seats["p2"].state == K.SEAT_SESSION_STATE_OPEN

    # Play goes on: hand 3, dealt from the next nonce, from the stacks hand 2 started with.
    again = [second.player(f"p{seat}", "tables/crash", caller) for seat in (1, 2)]
    try:
        for player in again:
            await player.connect()
        playing = await again[0].wait_for(
            lambda m: m.snapshot.hand_in_progress and m.snapshot.hand_number == 3, timeout=30
        )
        snap = playing.snapshot
        assert snap.nonce == 2 and snap.seed.hands_dealt == 3
        assert [s.number for s in snap.seats] == [1, 2]
        assert {s.number: s.stack + s.total_bet for s in snap.seats} == {
            1: before[1],
            2: before[2],
        }
        for started in again[0].events("hand_started", 3):
            assert started.hand_started.nonce == 2
        ended = await again[0].wait_for(is_event("hand_ended", 3), timeout=30)
        result = event_of(ended, "hand_ended").hand_ended.result
        assert result.nonce == 2
        assert sum(result.final_stacks.values()) + result.rake == before[1] + before[2]
        await second.admin.PauseTable(
            admin_service_pb2.PauseTableRequest(name="tables/crash", reason="done"),
            metadata=ADMIN,
        )
    finally:
        for player in again:
            await player.close()
    assert [h["nonce"] for h in hands(database, "crash")][:3] == [0, 1, 2]


async def test_sigterm_drains_finishes_the_running_hand_and_exits_0(
    tmp_path: Path, running: list[EngineProcess]
) -> None:
    database, log = tmp_path / "engine.sqlite3", tmp_path / "engine.log"
    engine = await start(database, log)
    running.append(engine)
    await create_table(engine, "drain", action_seconds=0.5)
    # Nobody acts: the short clock plays the hand out (the two facing the bring-in fold).
    players = [engine.player(f"p{seat}", "tables/drain") for seat in (1, 2, 3)]
    try:
        for player in players:
            await player.connect()
        await resume(engine, "drain")
        watcher = players[0]
        await watcher.wait_for(is_event("turn_started", 1), timeout=10)
        engine.process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            assert await engine.process.wait() == 0, log.read_text()
        ended = watcher.events("hand_ended", 1)
        assert len(ended) == 1, "the running hand was finished"
        assert not watcher.events("hand_started", 2), "no new hand was started"
        final = dict(ended[0].hand_ended.result.final_stacks)
    finally:
        for player in players:
            await player.close()
    stored = hands(database, "drain")
    assert [(h["hand_number"], h["state"]) for h in stored] == [(1, "complete")]
    assert {seat: p["final_stack"] for seat, p in stored[0]["players"].items()} == final
    assert sum(final.values()) == 300
    with contextlib.closing(sqlite3.connect(database)) as db:
        stacks = dict(db.execute("SELECT seat, stack FROM seat_sessions WHERE table_id = 'drain'"))
    assert stacks == final


async def test_a_player_removed_mid_hand_then_kill_9_is_paid_out_and_the_retry_gets_the_answer(
    tmp_path: Path, running: list[EngineProcess]
) -> None:
    """RemovePlayer during his hand answers CLOSING and keeps that answer in the same write;
    the engine dies before the hand ends. Restarted, the hand is cancelled, he is paid out
    what he had before it (as removed), and the lobby's retry gets the first answer."""
    first, database, log = await first_hand_running(tmp_path, running, "removal")
    request = admin_service_pb2.RemovePlayerRequest(
        table="tables/removal", seat_session_id="ss-removal-p3", reason="collusion review"
    )
    answer = await first.admin.RemovePlayer(request, metadata=ADMIN)
    assert answer.session.state == K.SEAT_SESSION_STATE_CLOSING
    assert answer.session.stack == 100

    assert await first.process.kill_9() == -signal.SIGKILL
    stored = hands(database, "removal")
    assert [(h["hand_number"], h["state"]) for h in stored] == [(1, "running")]

    second = await start(database, log)
    running.append(second)
    assert await second.admin.RemovePlayer(request, metadata=ADMIN) == answer
    seats = await sessions(second, "removal")
    assert seats["p3"].state == K.SEAT_SESSION_STATE_CLOSED
    assert seats["p3"].close_reason == K.SEAT_SESSION_CLOSE_REASON_REMOVED
    assert seats["p3"].stack == 100
    assert {s.player_id: s.stack for s in seats.values()} == {"p1": 100, "p2": 100, "p3": 100}
    assert hands(database, "removal")[0]["state"] == "cancelled"
    # Another reason for the same session is another request: refused.
    other = admin_service_pb2.RemovePlayerRequest()
    other.CopyFrom(request)
    other.reason = "something else"
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await second.admin.RemovePlayer(other, metadata=ADMIN)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def list_with(engine: EngineProcess, status: int) -> set[str]:
    page = await engine.admin.ListTables(
        admin_service_pb2.ListTablesRequest(statuses=[status]), metadata=ADMIN
    )
    return {t.name.removeprefix("tables/") for t in page.tables}


async def test_an_ops_drain_killed_mid_hand_leaves_the_table_paused_after_the_restart(
    tmp_path: Path, running: list[EngineProcess]
) -> None:
    """Ops drain the node while a hand runs (PAUSING, stored); the engine dies before the
    hand ends. Restarted, the hand is cancelled and the table is PAUSED, dealing nothing,
    until ops resume it."""
    first, database, log = await first_hand_running(tmp_path, running, "drained")
    drain = asyncio.ensure_future(
        first.admin.Drain(admin_service_pb2.DrainRequest(), metadata=ADMIN)
    )
    async with asyncio.timeout(10):
        while await list_with(first, K.TABLE_STATUS_PAUSING) != {"drained"}:
            await asyncio.sleep(0.02)
    assert not drain.done(), "the hand is still running"
    assert await first.process.kill_9() == -signal.SIGKILL
    with contextlib.suppress(grpc.aio.AioRpcError):
        await drain

    second = await start(database, log)
    running.append(second)
    assert await list_with(second, K.TABLE_STATUS_PAUSED) == {"drained"}
    await asyncio.sleep(0.5)  # ten times the pause between hands: none is dealt
    assert [(h["hand_number"], h["state"]) for h in hands(database, "drained")] == [
        (1, "cancelled")
    ]
    seats = await sessions(second, "drained")
    assert {s.player_id: s.stack for s in seats.values()} == {"p1": 100, "p2": 100, "p3": 100}
    await resume(second, "drained")
    async with asyncio.timeout(10):
        while len(hands(database, "drained")) < 2:
            await asyncio.sleep(0.02)
    assert await list_with(second, K.TABLE_STATUS_PLAYING) == {"drained"}


async def test_a_table_closing_when_the_engine_died_is_closed_after_the_restart(
    tmp_path: Path, running: list[EngineProcess]
) -> None:
    """CloseTable during a hand answers at once and the table is CLOSING, waiting for the
    hand; the engine dies first. Restarted, the hand is cancelled and the close it waited
    for is carried out: everyone is paid out what he had before the hand, the table is
    CLOSED and the dealer seed that dealt its hands revealed."""
    first, database, log = await first_hand_running(tmp_path, running, "closing")
    get = admin_service_pb2.GetTableRequest(name="tables/closing")
    await first.admin.CloseTable(
        admin_service_pb2.CloseTableRequest(name="tables/closing"), metadata=ADMIN
    )
    assert await list_with(first, K.TABLE_STATUS_CLOSING) == {"closing"}
    assert await first.process.kill_9() == -signal.SIGKILL

    second = await start(database, log)
    running.append(second)
    async with asyncio.timeout(10):
        while await list_with(second, K.TABLE_STATUS_CLOSED) != {"closing"}:
            await asyncio.sleep(0.02)
    assert [(h["hand_number"], h["state"]) for h in hands(database, "closing")] == [
        (1, "cancelled")
    ]
    seats = await sessions(second, "closing")
    assert {s.player_id: (s.state, s.stack) for s in seats.values()} == {
        p: (K.SEAT_SESSION_STATE_CLOSED, 100) for p in ("p1", "p2", "p3")
    }
    table = (await second.admin.GetTable(get, metadata=ADMIN)).table
    assert table.status == K.TABLE_STATUS_CLOSED
    with contextlib.closing(sqlite3.connect(database)) as db:
        revealed = db.execute(
            "SELECT revealed_at IS NOT NULL FROM seed_pairs WHERE table_id = ? AND state = ?",
            ("closing", "current"),
        ).fetchall()
    assert revealed == [(1,)]  # the pair that dealt; the next one never dealt, stays secret


async def test_a_relayed_leave_mid_hand_then_kill_9_closes_as_left_after_the_restart(
    tmp_path: Path, running: list[EngineProcess]
) -> None:
    """The lobby relays a player's leave during his hand (RemovePlayer, by_player); the engine
    dies before the hand ends. Restarted, he is paid out as having left (not removed), and
    the lobby's retry gets the first answer."""
    first, database, log = await first_hand_running(tmp_path, running, "leave")
    request = admin_service_pb2.RemovePlayerRequest(
        table="tables/leave",
        seat_session_id="ss-leave-p3",
        reason="left through the lobby",
        by_player=True,
    )
    answer = await first.admin.RemovePlayer(request, metadata=ADMIN)
    assert answer.session.state == K.SEAT_SESSION_STATE_CLOSING

    assert await first.process.kill_9() == -signal.SIGKILL

    second = await start(database, log)
    running.append(second)
    assert await second.admin.RemovePlayer(request, metadata=ADMIN) == answer
    seats = await sessions(second, "leave")
    assert seats["p3"].state == K.SEAT_SESSION_STATE_CLOSED
    assert seats["p3"].close_reason == K.SEAT_SESSION_CLOSE_REASON_LEFT
    assert seats["p3"].stack == 100


def stored_actions(database: Path, hand_id: str) -> list[dict[str, Any]]:
    """The hand's actions as stored one by one while it ran."""
    with contextlib.closing(sqlite3.connect(database)) as db:
        rows = db.execute(
            "SELECT action FROM hand_actions WHERE hand_id = ? ORDER BY seq", (hand_id,)
        ).fetchall()
    return [json.loads(action) for (action,) in rows]


async def test_an_act_the_database_cannot_store_is_refused_and_a_crash_keeps_the_acknowledged(
    tmp_path: Path, running: list[EngineProcess]
) -> None:
    database, log = tmp_path / "db" / "engine.sqlite3", tmp_path / "engine.log"
    database.parent.mkdir()
    # A lease that outlives the moment the file is read-only (the node renews it there too).
    first = await start(database, log, lease_seconds=5)
    running.append(first)
    await create_table(first, "unstored", action_seconds=60)
    players = [first.player(f"p{seat}", "tables/unstored") for seat in (1, 2, 3)]
    acknowledged: list[tuple[int, str]] = []
    try:
        for player in players:
            await player.connect()
        await resume(first, "unstored")
        watcher = players[0]

        async def turn(mark: int) -> tuple[Player, table_pb2.WatchTableResponse]:
            message = await watcher.wait_for(
                lambda m: m.snapshot.hand_number == 1 and m.snapshot.turn_seat > 0,
                after=mark,
                timeout=20,
            )
            actor = players[message.snapshot.turn_seat - 1]
            own = await actor.wait_for(lambda m: m.sequence >= message.sequence, timeout=5)
            return actor, own

        async def act(actor: Player, own: table_pb2.WatchTableResponse) -> int:
            chosen = caller(own.snapshot)
            assert chosen is not None
            answer = await actor.act(1, *chosen)
            assert answer is not None, actor.refusal_reasons()
            kind = K.ActionKind.Name(answer.action.kind).removeprefix("ACTION_KIND_").lower()
            acknowledged.append((answer.action.seat, kind))
            told = await watcher.wait_for(lambda m: m.sequence >= answer.sequence, timeout=5)
            return watcher.messages.index(told)

        mark = 0
        for _ in range(2):
            mark = await act(*await turn(mark))
        actor, own = await turn(mark)
        seen = len(watcher.messages)
        with read_only_sqlite(database):
            chosen = caller(own.snapshot)
            assert chosen is not None
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await actor.act(1, *chosen, action_id="unstored-1")
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert error_info(refused.value).reason == "DATABASE_UNAVAILABLE"
        # Not taken: nobody heard of it, and it is still his turn with the same choices.
        await asyncio.sleep(0.3)
        assert not any(
            e.WhichOneof("kind") == "action_taken"
            for m in watcher.messages[seen:]
            for e in m.events
        )
        again = await actor.wait_for(lambda m: True, after=len(actor.messages) - 1)
        assert again.snapshot.turn_seat == actor.seat
        assert list(again.snapshot.legal_actions) == list(own.snapshot.legal_actions)
        # The database is back: the same action id is a new attempt, and it is taken.
        answer = await actor.act(1, *chosen, action_id="unstored-1")
        assert answer is not None and answer.action.seat == actor.seat
        kind = K.ActionKind.Name(answer.action.kind).removeprefix("ACTION_KIND_").lower()
        acknowledged.append((answer.action.seat, kind))
        told = await watcher.wait_for(lambda m: m.sequence >= answer.sequence, timeout=5)
        mark = watcher.messages.index(told)
        mark = await act(*await turn(mark))
    finally:
        await first.process.kill_9()
        for player in players:
            await player.close()
    hand = hands(database, "unstored")[0]
    decisions = [
        (a["seat"], a["do"]) for a in stored_actions(database, hand["id"]) if a["do"] != "bring_in"
    ]
    assert decisions == acknowledged and len(acknowledged) == 4

    second = await start(database, log, lease_seconds=5)
    running.append(second)
    hand = hands(database, "unstored")[0]
    assert hand["state"] == "cancelled"
    trail = audit_trail(database, hand["id"])
    assert [(a["seat"], a["do"]) for a in trail["actions"] if a["do"] != "bring_in"] == acknowledged
    assert {seat: p["final_stack"] for seat, p in hand["players"].items()} == {
        1: 100,
        2: 100,
        3: 100,
    }
