"""The gateway tier: players' streams relayed to the engine over one RelayService call.

A real engine on loopback and a real gateway (in process, or ``stud gateway`` as a process of
its own) in front of it; the players are real gRPC clients of the gateway. They must see
exactly what they would see at the engine itself: the same views (and no other seat's down
card, ever), the same refusals, the same endings (WATCH_REPLACED, TABLE_MOVED, ...).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from stud.v1 import (
    admin_service_pb2,
    relay_service_pb2,
    relay_service_pb2_grpc,
    table_service_pb2,
    table_service_pb2_grpc,
)

from engine_server.auth import Scope
from engine_server.gateway import GatewaySettings, RunningGateway, start_gateway
from tests.engine_server.api.conftest import SECRET, Engine, bearer, launch, shut
from tests.engine_server.api.players import (
    Player,
    StreamPlayer,
    caller,
    check_privacy,
    error_info,
    passive,
    pause,
    public_part,
    resume,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

ROOT = Path(__file__).resolve().parents[3]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    directory = tmp_path_factory.mktemp("gateway")
    running = await launch(f"sqlite:///{directory}/engine.sqlite3")
    try:
        yield running
    finally:
        await shut(running)


async def gateway_for(*engines: Engine, backlog: int = 64) -> RunningGateway:
    return await start_gateway(
        GatewaySettings(
            engines=tuple(e.grpc_address for e in engines),
            jwt_secret=SECRET,
            grpc_port=0,
            backlog=backlog,
        )
    )


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def gateway(engine: Engine) -> AsyncIterator[RunningGateway]:
    running = await gateway_for(engine)
    try:
        yield running
    finally:
        await running.stop(0.1)


def address(gateway: RunningGateway) -> str:
    return f"127.0.0.1:{gateway.grpc_port}"


async def seated_table(
    engine: Engine,
    table_id: str,
    clients: list[tuple[str, type[Player], Any]],
    *,
    start: bool = True,
    **create: Any,
) -> list[Player]:
    """A paused table, one seat per (address, client class, strategy), each client watching;
    resumed when ``start``."""
    await engine.create_table(table_id, **create)
    await pause(engine, table_id)
    players = []
    for number, (where, kind, decide) in enumerate(clients, start=1):
        player_id = f"{table_id}-p{number}"
        await engine.seat(table_id, player_id, seat=number)
        players.append(
            kind(player_id, where, f"tables/{table_id}", engine.player_md(player_id), decide)
        )
    for player in players:
        await player.connect()
    if start:
        await resume(engine, table_id)
    return players


async def close_all(players: list[Player]) -> None:
    for player in players:
        await player.close()


def assert_no_other_down_card(player: Player) -> None:
    """No message of ``player``'s stream shows a down card of a seat not his."""
    for message in player.messages:
        own = message.snapshot.viewer_seat
        for seat in message.snapshot.seats:
            if seat.number != own:
                assert not seat.down_cards, (player.player_id, message.sequence, seat)
        for event in message.events:
            for deal in event.cards_dealt.deals:
                if deal.seat != own:
                    assert not deal.down_cards, (player.player_id, message.sequence, deal)


async def seat_connected(engine: Engine, table_id: str, number: int) -> bool:
    answer = await engine.admin.GetTable(
        admin_service_pb2.GetTableRequest(name=f"tables/{table_id}", reason="test"),
        metadata=engine.admin_md,
    )
    return next(s.connected for s in answer.snapshot.seats if s.number == number)


async def until_connected(engine: Engine, table_id: str, number: int, connected: bool) -> None:
    async with asyncio.timeout(10):
        while await seat_connected(engine, table_id, number) != connected:
            await asyncio.sleep(0.05)


async def test_players_play_through_the_gateway_and_see_what_they_would_directly(
    engine: Engine, gateway: RunningGateway
) -> None:
    via = address(gateway)
    direct = engine.grpc_address
    # Two seats through the gateway, two at the engine itself, all acting on their streams.
    players = await seated_table(
        engine,
        "gw-play",
        [(via, StreamPlayer, caller), (direct, StreamPlayer, caller)] * 2,
    )
    try:
        async with asyncio.timeout(60):
            while engine.server.manager.tables["gw-play"].hand_number < 3:
                await asyncio.sleep(0.05)
        # The first two hands are over: every stream has every change of them.
        last = max(p.last.sequence for p in players)
        for player in players:
            await player.wait_for(lambda m: m.sequence >= last, timeout=10)
        # Acts sent through the gateway were taken (the update carries each one's id).
        for player in players[::2]:
            assert isinstance(player, StreamPlayer)
            assert any(m.action_id for m in player.messages if m.events), player.player_id
            assert not player.refusal_reasons()
        # Every stream agrees on the public part of every change, gateway or not...
        by_sequence: dict[int, tuple[Any, ...]] = {}
        for player in players:
            for message in player.messages[1:]:
                part = public_part(message)
                assert by_sequence.setdefault(message.sequence, part) == part
        # ... and nobody ever saw a card not his.
        check_privacy(players)
        for player in players:
            assert_no_other_down_card(player)
        # The same seat's view through the gateway and directly: a direct Play replaces the
        # gateway's stream (WATCH_REPLACED, passed on as the engine ended it) and starts
        # from the view the gateway's stream had last shown (the table is paused).
        await pause(engine, "gw-play")
        seat_player = players[0]
        async with asyncio.timeout(10):
            while engine.server.manager.tables["gw-play"].hand_running:
                await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        through = seat_player.last.snapshot
        own = StreamPlayer(
            seat_player.player_id, direct, seat_player.table, seat_player.metadata, passive
        )
        first = await own.connect()
        await asyncio.wait_for(seat_player.wait_until_ended(), 10)
        assert seat_player.ended == grpc.StatusCode.ABORTED
        assert seat_player.error is not None
        assert error_info(seat_player.error).reason == "WATCH_REPLACED"
        for snapshot in (through, first.snapshot):
            snapshot.ClearField("server_time")
        # (the seat's connected flag may have blinked between: compare the rest)
        assert first.snapshot.viewer_seat == through.viewer_seat == seat_player.seat
        assert [s.down_cards for s in first.snapshot.seats] == [s.down_cards for s in through.seats]
        assert first.snapshot.hand_number == through.hand_number
        await own.close()
        await resume(engine, "gw-play")
    finally:
        await close_all(players)


async def test_two_tables_share_one_relay_and_a_closed_stream_closes_only_its_channel(
    engine: Engine, gateway: RunningGateway
) -> None:
    via = address(gateway)
    one = await seated_table(engine, "gw-one", [(via, StreamPlayer, caller)] * 2)
    two = await seated_table(engine, "gw-two", [(via, StreamPlayer, caller)] * 2)
    try:
        relays = gateway.gateway.relays
        assert list(relays) == [engine.grpc_address]  # one relay for every stream
        relay = relays[engine.grpc_address]
        assert len(relay.channels) == 4
        for player in one + two:
            await player.wait_for(lambda m: bool(m.events), timeout=10)
        # One player goes away: only his channel ends; his seat is away, the others play on.
        await one[0].disconnect()
        await until_connected(engine, "gw-one", one[0].seat, False)
        assert len(relay.channels) == 3
        assert await seat_connected(engine, "gw-one", one[1].seat)
        for player in two:
            seen = player.last.sequence
            await player.wait_for(lambda m, s=seen: m.sequence > s, timeout=10)  # type: ignore[misc]
        assert all(p.ended is None for p in (one[1], *two))
        # He comes back through the gateway: the same seat, connected again.
        await one[0].connect()
        await until_connected(engine, "gw-one", one[0].seat, True)
        assert len(relay.channels) == 4
    finally:
        await close_all(one + two)


async def test_watch_table_through_the_gateway(engine: Engine, gateway: RunningGateway) -> None:
    via = address(gateway)
    players = await seated_table(engine, "gw-watch", [(via, Player, caller)] * 2)
    railbird = Player("gw-rail", via, "tables/gw-watch", engine.player_md("gw-rail"), passive)
    try:
        first = await railbird.connect()
        assert first.snapshot.viewer_seat == 0
        for player in players:
            # WatchTable streams with acts through the gateway's Act, forwarded.
            async with asyncio.timeout(20):
                while not player.answers:
                    await player.wait_for(lambda m: bool(m.events), after=len(player.messages))
        await railbird.wait_for(lambda m: bool(m.action_id), timeout=10)
        for message in railbird.messages:
            assert all(not s.down_cards for s in message.snapshot.seats)
            assert not message.snapshot.legal_actions
        check_privacy([*players, railbird])
    finally:
        await close_all([*players, railbird])


def the_end(error: grpc.aio.AioRpcError) -> tuple[Any, ...]:
    status = rpc_status.from_call(error)
    info = error_details_pb2.ErrorInfo()
    assert status is not None and status.details[0].Unpack(info), error
    return error.code(), error.details(), info.reason, dict(info.metadata)


async def play_refusal(where: str, metadata: Any, request: Any) -> tuple[Any, ...]:
    async with grpc.aio.insecure_channel(where) as channel:
        call = table_service_pb2_grpc.TableServiceStub(channel).Play(
            iter([request]), metadata=metadata
        )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async with asyncio.timeout(10):
                await call.read()
        return the_end(caught.value)


async def test_refusals_through_the_gateway_are_the_engines(
    engine: Engine, gateway: RunningGateway
) -> None:
    await engine.create_table("gw-refused")
    await engine.seat("gw-refused", "sitter", seat=1)
    watch = table_service_pb2.PlayRequest(
        watch=table_service_pb2.WatchTableRequest(table="tables/gw-refused")
    )
    cases = [
        ((), watch),  # TOKEN_MISSING
        ((("authorization", "Bearer nonsense"),), watch),  # TOKEN_INVALID
        ((("authorization", "Basic abc"),), watch),
        (bearer("sitter", Scope.PLAYER, ttl=-10), watch),  # TOKEN_EXPIRED
        (bearer("stranger", Scope.PLAYER), watch),  # NOT_SEATED (Play needs a seat)
        (
            bearer("sitter", Scope.PLAYER),
            table_service_pb2.PlayRequest(
                watch=table_service_pb2.WatchTableRequest(table="tables/nowhere")
            ),
        ),
        (
            bearer("sitter", Scope.PLAYER),
            table_service_pb2.PlayRequest(
                watch=table_service_pb2.WatchTableRequest(table="no-table")
            ),
        ),
        (
            bearer("sitter", Scope.PLAYER),
            table_service_pb2.PlayRequest(act=table_service_pb2.ActRequest()),
        ),
    ]
    for metadata, request in cases:
        direct = await play_refusal(engine.grpc_address, metadata, request)
        through = await play_refusal(address(gateway), metadata, request)
        assert through == direct, (metadata, request)
    # A unary call refused at the engine is refused the same through the gateway.
    for metadata in (bearer("stranger", Scope.PLAYER), ()):
        request = table_service_pb2.LeaveRequest(table="tables/gw-refused")
        answers = []
        for where in (engine.grpc_address, address(gateway)):
            async with grpc.aio.insecure_channel(where) as channel:
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await table_service_pb2_grpc.TableServiceStub(channel).Leave(
                        request, metadata=metadata
                    )
                answers.append(the_end(caught.value))
        assert answers[0] == answers[1]


async def test_a_relay_needs_a_gateway_token(engine: Engine) -> None:
    stub = relay_service_pb2_grpc.RelayServiceStub(engine.channel)
    for metadata, code, reason in (
        ((), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING"),
        (bearer("p1", Scope.PLAYER), grpc.StatusCode.PERMISSION_DENIED, "GATEWAY_REQUIRED"),
        (bearer("lobby", Scope.LOBBY), grpc.StatusCode.PERMISSION_DENIED, "GATEWAY_REQUIRED"),
        (
            bearer("gw", Scope.GATEWAY, secret="another-secret-" + "y" * 40),
            grpc.StatusCode.UNAUTHENTICATED,
            "TOKEN_INVALID",
        ),
    ):
        call = stub.Relay(metadata=metadata)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async with asyncio.timeout(10):
                await call.read()
        assert caught.value.code() == code
        assert error_info(caught.value).reason == reason
    # With one, a channel opened with a bad player token is refused for that channel alone
    # (the call goes on); one opened with the seated player's token is his seat's stream.
    await engine.create_table("gw-token")
    await engine.seat("gw-token", "holder", seat=1)
    call = stub.Relay(metadata=bearer("gw", Scope.GATEWAY))
    watch = table_service_pb2.PlayRequest(
        watch=table_service_pb2.WatchTableRequest(table="tables/gw-token")
    )
    await call.write(
        relay_service_pb2.RelayRequest(
            open=relay_service_pb2.RelayOpen(
                channel_id=7, authorization="Bearer nonsense", play=watch
            )
        )
    )
    ended = (await asyncio.wait_for(call.read(), 10)).messages[0]
    assert ended.channel_id == 7 and ended.end.code == grpc.StatusCode.UNAUTHENTICATED.value[0]
    token = dict(engine.player_md("holder"))["authorization"]
    await call.write(
        relay_service_pb2.RelayRequest(
            open=relay_service_pb2.RelayOpen(channel_id=8, authorization=token, play=watch)
        )
    )
    opened = (await asyncio.wait_for(call.read(), 10)).messages[0]
    assert opened.channel_id == 8 and opened.update.update.snapshot.viewer_seat == 1
    # The relay goes away: the seat is away, as when a player's own stream drops.
    await until_connected(engine, "gw-token", 1, True)
    call.cancel()
    await until_connected(engine, "gw-token", 1, False)


async def test_a_slow_player_is_cut_off_at_the_gateway_alone(engine: Engine) -> None:
    gateway = await gateway_for(engine, backlog=2)
    try:
        via = address(gateway)
        players = await seated_table(
            engine,
            "gw-slow",
            [(via, StreamPlayer, caller)] * 2,
            overrides={"action_seconds": 0.3},
        )
        # A third client of a seat's view that never reads: the gateway's queue for him
        # fills while the table deals on, and his stream alone is cut off.
        # (a small receive window, not grown: the gateway's writes stall soon)
        small = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]
        async with grpc.aio.insecure_channel(via, options=small) as channel:
            call = table_service_pb2_grpc.TableServiceStub(channel).Play(
                metadata=players[0].metadata
            )
            await call.write(
                table_service_pb2.PlayRequest(
                    watch=table_service_pb2.WatchTableRequest(table="tables/gw-slow")
                )
            )
            relay = gateway.gateway.relays[engine.grpc_address]
            async with asyncio.timeout(60):
                # (the first player's own stream was replaced by it: 1 channel left after)
                while len(relay.channels) > 1:
                    await asyncio.sleep(0.05)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                async with asyncio.timeout(30):
                    while True:
                        assert await call.read() is not grpc.aio.EOF
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert error_info(caught.value).reason == "SLOW_CONSUMER"
        other = players[1]
        seen = other.last.sequence
        await other.wait_for(lambda m: m.sequence > seen, timeout=10)
        await close_all(players)
    finally:
        await gateway.stop(0.1)


# ---------------------------------------------------------------- stud gateway, a process


def start_process(engine: Engine) -> tuple[subprocess.Popen[str], str]:
    env = {
        **os.environ,
        "STUD_JWT_SECRET": SECRET,
        "STUD_LOG_FORMAT": "json",
        "STUD_GATEWAY_LOOP": "asyncio",
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine_server",
            "gateway",
            "--engine",
            engine.grpc_address,
            "--grpc-port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, process.stderr.read() if process.stderr else ""
    ready = json.loads(line)
    return process, ready["grpc"]


async def test_a_killed_gateway_leaves_the_seats_away_and_players_come_back(
    engine: Engine,
) -> None:
    process, where = await asyncio.to_thread(start_process, engine)
    players: list[Player] = []
    try:
        players = await seated_table(engine, "gw-kill", [(where, StreamPlayer, caller)] * 2)
        for player in players:
            await until_connected(engine, "gw-kill", player.seat, True)
        process.send_signal(signal.SIGKILL)
        await asyncio.to_thread(process.wait, 10)
        # The relay's connection is gone: every seat it carried is away; the clients'
        # streams end (UNAVAILABLE), as when an engine dies.
        for player in players:
            await until_connected(engine, "gw-kill", player.seat, False)
            await asyncio.wait_for(player.wait_until_ended(), 10)
            assert player.ended == grpc.StatusCode.UNAVAILABLE
        # A new gateway: they reconnect to it and play on.
        replacement, again = await asyncio.to_thread(start_process, engine)
        try:
            for player in players:
                await player.close()
                player.address = again
                player.__post_init__()
                await player.connect()
                await until_connected(engine, "gw-kill", player.seat, True)
            seen = max(p.last.sequence for p in players)
            for player in players:
                await player.wait_for(lambda m: m.sequence > seen + 2, timeout=20)
        finally:
            await close_all(players)
            players = []
            replacement.terminate()
            await asyncio.to_thread(replacement.wait, 10)
    finally:
        await close_all(players)
        if process.poll() is None:
            process.kill()
            process.wait()


# ---------------------------------------------------------------- a table moved


async def test_a_moved_table_ends_the_stream_at_the_gateway_which_follows_it(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path}/nodes.sqlite3"
    a = await launch(url, node_id="a", lease_seconds=2.0)
    b = await launch(url, node_id="b", lease_seconds=2.0)
    gateway = await gateway_for(a, b)
    players: list[Player] = []
    try:
        via = address(gateway)
        players = await seated_table(a, "gw-moved", [(via, StreamPlayer, caller)] * 2)
        await players[0].wait_for(lambda m: bool(m.events), timeout=10)
        await a.server.manager.move("gw-moved", "b")
        for player in players:
            await asyncio.wait_for(player.wait_until_ended(), 30)
            assert player.ended == grpc.StatusCode.UNAVAILABLE
            assert player.error is not None
            info = error_info(player.error)
            assert info.reason == "TABLE_MOVED"
            # Pointing at the gateway: the client comes back there, and the gateway knows
            # where the table went.
            assert info.metadata["grpc_address"] == gateway.gateway.address
            assert info.metadata["node"] == "b"
        for player in players:
            first = await player.connect(timeout=15)
            assert first.snapshot.viewer_seat == player.seat
        assert gateway.gateway.routes["tables/gw-moved"] == b.grpc_address
        runtime = b.server.manager.tables["gw-moved"]
        hand = runtime.hand_number
        async with asyncio.timeout(30):
            while runtime.hand_number <= hand + 1:
                await asyncio.sleep(0.05)
        assert all(p.ended is None for p in players)
        check_privacy(players)
    finally:
        await close_all(players)
        await gateway.stop(0.1)
        await shut(a)
        await shut(b)


async def test_a_table_on_the_second_engine_is_found_and_played_through_the_first_relay_tried(
    tmp_path: Path,
) -> None:
    """The gateway tries the first engine (TABLE_NOT_FOUND), then the second; the player's
    acts, read once for the whole stream, reach the node that has his table."""
    a = await launch(f"sqlite:///{tmp_path}/a.sqlite3", node_id="a")
    b = await launch(f"sqlite:///{tmp_path}/b.sqlite3", node_id="b")
    gateway = await gateway_for(a, b)
    players: list[Player] = []
    try:
        via = address(gateway)
        players = await seated_table(b, "gw-second", [(via, StreamPlayer, caller)] * 2)
        assert gateway.gateway.routes["tables/gw-second"] == b.grpc_address
        async with asyncio.timeout(30):
            while b.server.manager.tables["gw-second"].hand_number < 3:
                await asyncio.sleep(0.05)
        for player in players:
            assert isinstance(player, StreamPlayer)
            # His own acts were taken: updates carrying action ids of acts at his seat.
            assert any(
                m.action_id and m.events[0].action_taken.seat == player.seat
                for m in player.messages
                if m.events
            ), player.player_id
            assert not player.refusal_reasons()
        check_privacy(players)
    finally:
        await close_all(players)
        await gateway.stop(0.1)
        await shut(a)
        await shut(b)
