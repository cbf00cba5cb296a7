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


async def test_the_stream_names_the_action_id_of_each_action(engine: Engine) -> None:
    await engine.create_table("ids")
    for player in ("a1", "a2"):
        await engine.seat("ids", player, buy_in=100)
    streams = {
        p: engine.tables.WatchTable(
            table_service_pb2.WatchTableRequest(table="tables/ids"), metadata=engine.player_md(p)
        )
        for p in ("a1", "a2")
    }
    sent: dict[int, str] = {}
    seen: dict[int, str] = {}

    async def play(player: str) -> None:
        async for message in streams[player]:
            taken = [e.action_taken for e in message.events if e.HasField("action_taken")]
            if taken and player == "a1":
                seen[message.sequence] = taken[0].action_id
            snap = message.snapshot
            my_turn = snap.turn_seat and snap.turn_seat == snap.viewer_seat
            # Stop only when it is not one's turn: stopping on one's own turn (say, the first
            # to act on the next street after one's own action) left the other waiting for ever.
            if snap.hand_number > 1 or (len(sent) >= 4 and not my_turn):
                return
            if my_turn and snap.legal_actions:
                kinds = [a.kind for a in snap.legal_actions]
                kind = kinds[1] if len(kinds) > 1 else kinds[0]  # check or call: keep it going
                action_id = uuid.uuid4().hex
                try:
                    answer = await engine.tables.Act(
                        table_service_pb2.ActRequest(
                            table="tables/ids",
                            hand_number=snap.hand_number,
                            kind=kind,
                            action_id=action_id,
                        ),
                        metadata=engine.player_md(player),
                    )
                except grpc.aio.AioRpcError:
                    continue
                sent[answer.sequence] = action_id

    try:
        await asyncio.wait_for(asyncio.gather(play("a1"), play("a2")), 30)
    finally:
        for stream in streams.values():
            stream.cancel()
    assert sent
    for sequence, action_id in sent.items():
        if sequence in seen:
            assert seen[sequence] == action_id
    assert any(sequence in seen for sequence in sent)
