"""Three native clients play hands at one table through the real engine."""

from __future__ import annotations

import asyncio
import random
import uuid

import grpc
from stud.v1 import admin_service_pb2, table_service_pb2

from tests.engine_server.api.conftest import Engine


async def test_three_clients_play_three_hands_and_chips_are_conserved(engine: Engine) -> None:
    await engine.create_table("t1")
    for player in ("p1", "p2", "p3"):
        await engine.seat("t1", player, buy_in=100)
    rng = random.Random(7)

    async def play(player: str) -> None:
        md = engine.player_md(player)
        stream = engine.tables.WatchTable(
            table_service_pb2.WatchTableRequest(table="tables/t1"), metadata=md
        )
        async for message in stream:
            snap = message.snapshot
            if snap.hand_number > 3:
                stream.cancel()
                return
            if snap.turn_seat and snap.turn_seat == snap.viewer_seat and snap.legal_actions:
                choice = rng.choice(snap.legal_actions)
                try:
                    await engine.tables.Act(
                        table_service_pb2.ActRequest(
                            table="tables/t1",
                            hand_number=snap.hand_number,
                            kind=choice.kind,
                            action_id=uuid.uuid4().hex,
                        ),
                        metadata=md,
                    )
                except grpc.aio.AioRpcError as error:
                    # A stale snapshot (the turn moved on) is refused, never applied.
                    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION

    await asyncio.wait_for(asyncio.gather(*(play(p) for p in ("p1", "p2", "p3"))), 60)
    table = await engine.admin.GetTable(
        admin_service_pb2.GetTableRequest(name="tables/t1", reason="test"), metadata=engine.admin_md
    )
    last = table.snapshot.last_hand
    assert last.hand_number == 3
    assert sum(last.final_stacks.values()) + sum(p.rake for p in last.pots) == 300
