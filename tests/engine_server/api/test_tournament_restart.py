"""A tournament table survives its engine: killed with SIGKILL mid-hand and restarted on its
database, the hand is cancelled (every chip back), and the tournament goes on where it was:
its level (one set during the hand included), its hand-for-hand hold, the director's info
and places, and a move asked during the hand (carried out with the chips he has)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from google.protobuf import struct_pb2
from stud.v1 import admin_service_pb2, settings_pb2, table_pb2

from tests.engine_server.api.players import is_event
from tests.engine_server.api.test_crash_recovery import ADMIN, EngineProcess, running, start

__all__ = ["running"]  # the fixture, used by name

A = admin_service_pb2
K = table_pb2


async def _seat(engine: EngineProcess, player_id: str, chips: int, number: int) -> str:
    session_id = f"ss-{player_id}"
    await engine.admin.SeatPlayer(
        A.SeatPlayerRequest(
            table="tables/tt-crash",
            seat_session_id=session_id,
            player_id=player_id,
            seat=number,
            buy_in=chips,
        ),
        metadata=ADMIN,
    )
    return session_id


async def test_a_killed_engine_resumes_the_tournament_table(
    tmp_path: Path, running: list[EngineProcess]
) -> None:
    database, log = tmp_path / "engine.sqlite3", tmp_path / "engine.log"
    engine = await start(database, log)
    running.append(engine)
    overrides = struct_pb2.Struct()
    overrides.update({"action_seconds": 30})  # nobody acts: the hand waits for the kill
    await engine.admin.CreateTable(
        A.CreateTableRequest(
            request_id="create-tt-crash",
            table_id="tt-crash",
            rule_overrides=overrides,
            stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
            client_seed="crash",
            tournament=settings_pb2.TournamentTable(
                tournament_id="tour-crash", table_name="Table 1", table_number=1
            ),
        ),
        metadata=ADMIN,
    )
    mover = await _seat(engine, "k1", 700, 1)
    await _seat(engine, "k2", 500, 2)
    await _seat(engine, "k3", 300, 3)
    watcher = engine.player("k2", "tables/tt-crash")
    await watcher.connect()
    await watcher.wait_for(
        lambda m: m.snapshot.hand_in_progress and m.snapshot.hand_number == 1, timeout=20
    )
    # During hand 1: a new level, the hold, info, a place and a move.
    during = await engine.admin.SetStakes(
        A.SetStakesRequest(
            name="tables/tt-crash", level=2, stakes=settings_pb2.Stakes(ante=3, small_bet=6)
        ),
        metadata=ADMIN,
    )
    assert during.from_hand_number == 2
    await engine.admin.SetHandHold(
        A.SetHandHoldRequest(name="tables/tt-crash", held=True), metadata=ADMIN
    )
    info = K.TournamentInfo(level=2, players_left=9, entrants=10, average_stack=500)
    await engine.admin.SetTournamentInfo(
        A.SetTournamentInfoRequest(name="tables/tt-crash", info=info), metadata=ADMIN
    )
    await engine.admin.AwardPlace(
        A.AwardPlaceRequest(name="tables/tt-crash", player_id="gone", place=10), metadata=ADMIN
    )
    move = A.MovePlayerRequest(
        table="tables/tt-crash",
        seat_session_id=mover,
        request_id="move-k1",
        destination_table="tables/tt-other",
        grpc_address="127.0.0.1:1",
        web_url="http://127.0.0.1:2",
    )
    closing = await engine.admin.MovePlayer(move, metadata=ADMIN)
    assert closing.session.state == K.SEAT_SESSION_STATE_CLOSING
    await watcher.close()

    await engine.process.kill_9()
    engine = await start(database, log)
    running.append(engine)

    table = (
        await engine.admin.GetTable(
            A.GetTableRequest(name="tables/tt-crash", reason="test"), metadata=ADMIN
        )
    ).table
    assert not table.hand_in_progress and table.hand_number == 1
    assert table.tournament.level == 2 and table.settings.stakes.ante == 3
    assert table.tournament.hand_held
    assert table.tournament.info == info
    # The move was carried out on restart, with the stack the cancelled hand gave back.
    async with asyncio.timeout(10):
        while True:
            moved = await engine.admin.MovePlayer(move, metadata=ADMIN)
            if moved.session.state == K.SEAT_SESSION_STATE_CLOSED:
                break
            await asyncio.sleep(0.05)
    assert moved.session.close_reason == K.SEAT_SESSION_CLOSE_REASON_MOVED
    assert moved.session.stack == 700
    sessions = (
        await engine.admin.ListSeatSessions(
            A.ListSeatSessionsRequest(table="tables/tt-crash"), metadata=ADMIN
        )
    ).sessions
    assert sorted(s.stack for s in sessions) == [300, 500, 700]  # not a chip lost or made
    assert [s.player_id for s in sessions if s.state == K.SEAT_SESSION_STATE_OPEN] == [
        "k2",
        "k3",
    ]
    # Released, the next hand is dealt at the new level.
    watcher = engine.player("k2", "tables/tt-crash")
    await watcher.connect()
    await engine.admin.SetHandHold(
        A.SetHandHoldRequest(name="tables/tt-crash", held=False), metadata=ADMIN
    )
    try:
        antes = await watcher.wait_for(is_event("antes_posted", 2), timeout=20)
        posted = [
            a.amount
            for e in antes.events
            if e.WhichOneof("kind") == "antes_posted"
            for a in e.antes_posted.antes
        ]
        assert posted == [3, 3]
        assert antes.snapshot.tournament.level == 2
    finally:
        await watcher.close()
