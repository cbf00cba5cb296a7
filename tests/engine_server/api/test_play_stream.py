"""TableService.Play: a seat's view and its acts on one bidirectional stream.

Whole hands over Play are in test_play.py (the seven-client test runs over both kinds of
client); here: how acts are answered on the stream (by their update, or by an ActResult
when refused or repeated), and how a stream that breaks the protocol, asks too much or may
not play is ended, with nothing changed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
import pytest_asyncio
from google.rpc import code_pb2
from stud.v1 import table_pb2, table_service_pb2
from stud.v1.table_service_connect import TableServiceClient

from engine_server.auth import Scope
from tests.engine_server.api.conftest import Engine, bearer, launch, shut
from tests.engine_server.api.players import (
    Player,
    StreamPlayer,
    act_request,
    error_info,
    event_kinds,
    open_table,
    passive,
    seat_of,
    with_event,
)
from tests.engine_server.api.test_play import chips_moving, next_turn

K = table_pb2
pytestmark = pytest.mark.asyncio(loop_scope="module")

LIMIT = 4096


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    directory: Path = tmp_path_factory.mktemp("play-stream")
    running = await launch(f"sqlite:///{directory}/engine.sqlite3", max_request_bytes=LIMIT)
    try:
        yield running
    finally:
        await shut(running)


def play_act(
    hand_number: int, kind: int, amount: int | None = None, action_id: str = "a-1", table: str = ""
) -> table_service_pb2.PlayRequest:
    request = act_request(hand_number, kind, amount, action_id, table)
    # act_request gives an empty id a fresh one; these tests send the empty one as it is.
    request.action_id = action_id
    return table_service_pb2.PlayRequest(act=request)


async def stream_players(engine: Engine, table_id: str, count: int) -> list[StreamPlayer]:
    players = await open_table(engine, table_id, [passive] * count, client=StreamPlayer)
    return [p for p in players if isinstance(p, StreamPlayer)]


async def close_all(players: list[StreamPlayer]) -> None:
    for player in players:
        await player.close()


async def test_an_act_is_answered_by_its_update_and_a_repeat_by_its_first_answer(
    engine: Engine,
) -> None:
    players = await stream_players(engine, "answered", 3)
    try:
        actor, own, index = await next_turn(players)  # type: ignore[arg-type]
        assert isinstance(actor, StreamPlayer)
        hand = own.snapshot.hand_number
        before = seat_of(own.snapshot, actor.seat)
        kind, amount = chips_moving(own.snapshot)

        await actor.send(play_act(hand, kind, amount, action_id="move-1"))
        # Every seat's stream carries the change with the act's id, the action first.
        for player in players:
            taken = await player.wait_for(lambda m: m.action_id == "move-1", timeout=5)
            assert event_kinds(taken)[0] == "action_taken"
            shown = taken.events[0].action_taken
            assert (shown.seat, shown.kind, shown.action_id) == (actor.seat, kind, "move-1")
        taken = await actor.wait_for(lambda m: m.action_id == "move-1")
        assert not actor.results  # an accepted act needs no other answer

        # The same act again: its first answer, as an ActResult; nothing moves again.
        await actor.send(play_act(hand, kind, amount, action_id="move-1"))
        repeated = await actor.result_for("move-1")
        assert repeated.WhichOneof("result") == "accepted"
        assert repeated.accepted.sequence == taken.sequence
        action_taken = repeated.accepted.action
        assert (action_taken.seat, action_taken.kind) == (actor.seat, kind)
        assert action_taken.chips == taken.events[0].action_taken.chips > 0
        assert action_taken.action_id == "move-1"

        # The act's id reused for another action: refused, and the stream goes on.
        await actor.send(play_act(hand, K.ACTION_KIND_FOLD, action_id="move-1"))
        reused = (await actor.result_for("move-1", after=1)).refused
        assert (reused.code, reused.reason) == (code_pb2.INVALID_ARGUMENT, "IDEMPOTENCY_KEY_REUSED")

        await players[0].wait_for(
            with_event("turn_started", lambda e: e.seat != actor.seat), after=index + 1
        )
        actions = [
            m
            for m in players[0].messages[index:]
            if with_event("action_taken", lambda e: e.seat == actor.seat)(m)
        ]
        assert len(actions) == 1
        after = seat_of(players[0].last.snapshot, actor.seat)
        assert after.stack == before.stack - action_taken.chips
        assert actor.ended is None  # still streaming
    finally:
        await close_all(players)


async def test_a_refused_act_gets_its_reason_on_the_stream_and_changes_nothing(
    engine: Engine,
) -> None:
    players = await stream_players(engine, "refused", 3)
    try:
        actor, own, _ = await next_turn(players)  # type: ignore[arg-type]
        idle = next(p for p in players if p is not actor)
        assert isinstance(idle, StreamPlayer)
        hand = own.snapshot.hand_number
        snapshot = players[0].last.snapshot
        sequence = players[0].last.sequence

        await idle.send(play_act(hand, K.ACTION_KIND_FOLD, action_id="early"))
        result = await idle.result_for("early")
        refused = result.refused
        assert (refused.code, refused.reason, refused.domain) == (
            code_pb2.FAILED_PRECONDITION,
            "NOT_YOUR_TURN",
            "stud.v1",
        )
        assert refused.metadata["turn_seat"] == str(actor.seat)
        assert refused.message

        await idle.send(play_act(hand + 5, K.ACTION_KIND_FOLD, action_id="stale"))
        assert (await idle.result_for("stale")).refused.reason == "STALE_HAND"
        await idle.send(play_act(hand, K.ACTION_KIND_FOLD, action_id="elsewhere", table="tables/x"))
        elsewhere = (await idle.result_for("elsewhere")).refused
        assert (elsewhere.code, elsewhere.metadata["field"]) == (
            code_pb2.INVALID_ARGUMENT,
            "act.table",
        )
        await idle.send(play_act(hand, K.ACTION_KIND_UNSPECIFIED, action_id="no-kind"))
        assert (await idle.result_for("no-kind")).refused.code == code_pb2.INVALID_ARGUMENT
        await idle.send(play_act(hand, K.ACTION_KIND_FOLD, action_id=""))
        assert (await idle.result_for("")).refused.metadata["field"] == "action_id"

        # Nothing changed at the table, and every stream goes on.
        assert players[0].last.sequence == sequence
        assert players[0].last.snapshot == snapshot
        assert all(p.ended is None for p in players)

        # The one whose turn it is plays on over the same kind of stream.
        kind, amount = chips_moving(own.snapshot)
        await actor.send(play_act(hand, kind, amount, action_id="on-turn"))
        moved = await players[0].wait_for(lambda m: m.action_id == "on-turn", timeout=5)
        assert moved.sequence == sequence + 1
    finally:
        await close_all(players)


async def open_play(engine: Engine, player_id: str) -> grpc.aio.StreamStreamCall:  # type: ignore[type-arg]
    return engine.tables.Play(metadata=engine.player_md(player_id))


async def ended_with(call: grpc.aio.StreamStreamCall) -> grpc.aio.AioRpcError:  # type: ignore[type-arg]
    """The error the stream ends with, after any updates it sent first."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        while await call.read() is not grpc.aio.EOF:
            pass
    return caught.value


async def refused_with(
    call: grpc.aio.StreamStreamCall,  # type: ignore[type-arg]
    first: table_service_pb2.PlayRequest,
) -> grpc.aio.AioRpcError:
    """The error a stream refused for its metadata ends with. The server may end it before
    the client's first write has gone out: that write then fails with the same status."""
    with contextlib.suppress(grpc.aio.AioRpcError):
        await call.write(first)
    return await ended_with(call)


def watch(table: str) -> table_service_pb2.PlayRequest:
    return table_service_pb2.PlayRequest(watch=table_service_pb2.WatchTableRequest(table=table))


async def test_a_stream_that_breaks_the_protocol_or_may_not_play_is_ended(engine: Engine) -> None:
    await engine.create_table("rules")
    await engine.seat("rules", "rita")

    # The first request must name the table.
    call = await open_play(engine, "rita")
    await call.write(play_act(1, K.ACTION_KIND_FOLD))
    error = await ended_with(call)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(error).metadata["field"] == "watch"

    # A client that closes without a request.
    call = await open_play(engine, "rita")
    await call.done_writing()
    assert (await ended_with(call)).code() == grpc.StatusCode.INVALID_ARGUMENT

    # After the watch, only acts.
    call = await open_play(engine, "rita")
    await call.write(watch("tables/rules"))
    first = await call.read()
    assert first.update.snapshot.viewer_seat == 1
    await call.write(watch("tables/rules"))
    error = await ended_with(call)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(error).metadata["field"] == "act"

    # Who may not play: no token, a stranger, an unknown table.
    error = await refused_with(engine.tables.Play(), watch("tables/rules"))
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert error_info(error).reason == "TOKEN_MISSING"
    for metadata, reason in (
        (bearer("rita", Scope.PLAYER, secret="another-secret-" + "y" * 40), "TOKEN_INVALID"),
        (bearer("rita", Scope.PLAYER, ttl=-60), "TOKEN_EXPIRED"),
    ):
        error = await refused_with(engine.tables.Play(metadata=metadata), watch("tables/rules"))
        assert (error.code(), error_info(error).reason) == (
            grpc.StatusCode.UNAUTHENTICATED,
            reason,
        )
    # ops watch through AdminService
    error = await refused_with(engine.tables.Play(metadata=engine.admin_md), watch("tables/rules"))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    call = await open_play(engine, "mallory")
    await call.write(watch("tables/rules"))
    error = await ended_with(call)
    assert (error.code(), error_info(error).reason) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_SEATED",
    )
    call = await open_play(engine, "rita")
    await call.write(watch("tables/nowhere"))
    assert (await ended_with(call)).code() == grpc.StatusCode.NOT_FOUND


async def test_a_stream_outlives_its_token_but_its_acts_need_a_fresh_one(engine: Engine) -> None:
    players = await stream_players(engine, "expiring", 2)
    try:
        actor, own, _ = await next_turn(players)  # type: ignore[arg-type]
        assert isinstance(actor, StreamPlayer)
        hand = own.snapshot.hand_number
        kind, amount = chips_moving(own.snapshot)
        # His stream reopened with a token that expires within two seconds.
        await actor.disconnect()
        actor.metadata = bearer(actor.player_id, Scope.PLAYER, ttl=2)
        opened = await actor.connect()
        assert opened.snapshot.turn_seat == actor.seat
        await asyncio.sleep(2.1)

        # The stream lives on, but an act on it is refused for the token; nothing is taken.
        await actor.send(play_act(hand, kind, amount, action_id="late-1"))
        refused = (await actor.result_for("late-1")).refused
        assert (refused.code, refused.reason) == (code_pb2.UNAUTHENTICATED, "TOKEN_EXPIRED")
        assert actor.ended is None
        assert actor.last.snapshot.turn_seat == actor.seat
        assert not actor.events("action_taken", hand)
        # A new stream with the expired token is refused as such.
        error = await refused_with(engine.tables.Play(metadata=actor.metadata), watch(actor.table))
        assert (error.code(), error_info(error).reason) == (
            grpc.StatusCode.UNAUTHENTICATED,
            "TOKEN_EXPIRED",
        )

        # A fresh token on a new stream: the seat and the turn are still his, the act is taken.
        await actor.disconnect()
        actor.metadata = bearer(actor.player_id, Scope.PLAYER, ttl=600)
        reopened = await actor.connect()
        assert reopened.snapshot.turn_seat == actor.seat
        assert reopened.snapshot.hand_number == hand
        start = len(actor.messages)
        await actor.send(play_act(hand, kind, amount, action_id="late-1"))
        taken = await actor.wait_for(lambda m: m.action_id == "late-1", after=start)
        assert event_kinds(taken)[0] == "action_taken"
        assert taken.events[0].action_taken.seat == actor.seat
    finally:
        await close_all(players)


async def test_a_request_over_the_limit_ends_the_stream_and_changes_nothing(
    engine: Engine,
) -> None:
    players = await stream_players(engine, "large", 2)
    try:
        actor, own, _ = await next_turn(players)  # type: ignore[arg-type]
        assert isinstance(actor, StreamPlayer)
        sequence = own.sequence
        await actor.send(
            play_act(own.snapshot.hand_number, K.ACTION_KIND_FOLD, action_id="a" * (LIMIT + 10))
        )
        async with asyncio.timeout(10):
            await actor.wait_until_ended()
        assert actor.ended == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert actor.error is not None
        info = error_info(actor.error)
        assert (info.reason, dict(info.metadata)) == (
            "MESSAGE_TOO_LARGE",
            {"max_bytes": str(LIMIT)},
        )
        # Nothing moved: the other seat sees the actor gone away, and no action.
        other = next(p for p in players if p is not actor)
        away = await other.wait_for(
            lambda m: not seat_of(m.snapshot, actor.seat).connected, timeout=5
        )
        assert not any(
            e.WhichOneof("kind") == "action_taken"
            for m in other.messages
            if m.sequence > sequence
            for e in m.events
        ), away
    finally:
        await close_all(players)


async def test_a_new_watch_replaces_a_play_stream_and_a_half_closed_one_still_streams(
    engine: Engine,
) -> None:
    players = await stream_players(engine, "replaced", 2)
    try:
        first = players[0]
        # Done sending: the updates go on. (Acts may also come by unary Act, as here.)
        await first._call.done_writing()
        actor, own, index = await next_turn(players)  # type: ignore[arg-type]
        request = act_request(
            own.snapshot.hand_number, K.ACTION_KIND_FOLD, None, "unary-1", first.table
        )
        answer = await engine.tables.Act(request, metadata=engine.player_md(actor.player_id))
        seen = await first.wait_for(lambda m: m.action_id == "unary-1", after=index, timeout=5)
        assert seen.sequence == answer.sequence
        assert first.ended is None

        # A WatchTable for the same seat replaces the Play stream.
        watcher = Player(first.player_id, first.address, first.table, first.metadata)
        try:
            await watcher.connect()
            async with asyncio.timeout(10):
                await first.wait_until_ended()
            assert first.ended == grpc.StatusCode.ABORTED
            assert first.error is not None
            assert error_info(first.error).reason == "WATCH_REPLACED"
        finally:
            await watcher.close()
    finally:
        await close_all(players)


async def test_a_connect_client_plays_on_the_web_port(engine: Engine) -> None:
    await engine.create_table("web")
    await engine.seat("web", "wes")  # alone: no hand runs, so his act is refused
    headers = {"authorization": engine.player_md("wes")[0][1]}
    done = asyncio.Event()

    async def requests() -> AsyncIterator[table_service_pb2.PlayRequest]:
        yield watch("tables/web")
        yield play_act(1, K.ACTION_KIND_CHECK, action_id="lonely")
        await done.wait()

    received: list[table_service_pb2.PlayResponse] = []
    async with TableServiceClient(engine.web_url) as client:
        async with asyncio.timeout(10):
            async for response in client.play(requests(), headers=headers):
                received.append(response)
                if response.WhichOneof("response") == "act":
                    break
        done.set()
    first, answer = received[0], received[-1]
    assert first.update.snapshot.viewer_seat == 1 and not first.update.events
    assert answer.act.action_id == "lonely"
    assert (answer.act.refused.code, answer.act.refused.reason) == (
        code_pb2.FAILED_PRECONDITION,
        "NO_HAND_IN_PROGRESS",
    )
