"""How a tournament director learns each hand's end without a stream: the read port
(:mod:`lobby_api.engine_reads`) over the store a real engine writes, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from google.protobuf import struct_pb2
from stud.v1 import admin_service_pb2, settings_pb2

from lobby_api import engine_reads
from lobby_api.db import Database
from tests.engine_server.api.conftest import Engine

A = admin_service_pb2


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = Database.from_url(database_url)
    try:
        yield database
    finally:
        await database.dispose()


async def _tournament_table(engine: Engine, table_id: str, number: int) -> None:
    overrides = struct_pb2.Struct()
    overrides.update({"action_seconds": 0.2})
    await engine.admin.CreateTable(
        A.CreateTableRequest(
            request_id=f"create-{table_id}",
            table_id=table_id,
            rule_overrides=overrides,
            # An ante as big as the big stack: both players are all in from the ante every hand,
            # so each hand the short stack doubles or busts (a geometric wait, two hands on
            # average). An ante of only the short stack's 10 let him play on after a win, and
            # the absent players' clocks then made his stack a random walk: heavy-tailed.
            stakes=settings_pb2.Stakes(ante=2000, bring_in=5, small_bet=10, big_bet=20),
            client_seed="reads",
            tournament=settings_pb2.TournamentTable(
                tournament_id="tour-reads", table_name=f"Table {number}", table_number=number
            ),
        ),
        metadata=engine.admin_md,
    )


async def test_each_hand_end_and_every_bust_is_read_in_order(engine: Engine, db: Database) -> None:
    await _tournament_table(engine, "reads-1", 1)
    await _tournament_table(engine, "reads-2", 2)
    await engine.admin.SetHandHold(
        A.SetHandHoldRequest(name="tables/reads-2", held=True), metadata=engine.admin_md
    )
    await engine.seat("reads-1", "r1", buy_in=10, seat=1)
    await engine.seat("reads-1", "r2", buy_in=2000, seat=2)
    seen: list[engine_reads.HandOutcome] = []
    async with asyncio.timeout(60):
        while not any(outcome.busted for outcome in seen):
            async with db.read() as session:
                last = seen[-1].hand_number if seen else 0
                seen.extend(await engine_reads.hand_outcomes_since(session, "reads-1", last))
            await asyncio.sleep(0.05)
    numbers = [outcome.hand_number for outcome in seen]
    assert numbers == list(range(1, len(seen) + 1))  # every hand once, in order
    for outcome in seen:
        assert not outcome.is_cancelled and outcome.ended_at is not None
        assert [s.seat for s in outcome.seats] == [1, 2]
        # Tournament chips are conserved hand by hand (no rake at a house table this small).
        starts = sum(s.start_stack for s in outcome.seats)
        finals = sum(s.final_stack or 0 for s in outcome.seats)
        assert starts == finals == 2010
    last = seen[-1]
    (out,) = last.busted
    final = {s.seat: s for s in last.seats}
    assert final[out.seat].final_stack == 0
    assert out.start_stack == final[out.seat].start_stack
    assert out.player_id == final[out.seat].player_id
    async with db.read() as session:
        closed = await engine_reads.seat_session(session, out.seat_session_id)
        tables = await engine_reads.tournament_tables(session, "tour-reads")
    assert closed is not None and closed.is_closed and closed.stack == 0
    assert [t.table_id for t in tables] == ["reads-1", "reads-2"]
    assert [t.table_number for t in tables] == [1, 2]
    assert tables[0].players == 1 and tables[0].level == 1
    assert tables[1].hand_held and tables[1].hands_started == 0 and not tables[1].hand_running
