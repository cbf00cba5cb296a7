"""Railbirds: signed-in players watching a public or tournament table without a seat, through
a real engine and real clients. They get the public view only, whatever happens at the table,
and every view counts them; a private quick-game table stays private."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import grpc
import pytest
import pytest_asyncio
from google.protobuf import struct_pb2
from stud.v1 import admin_service_pb2, settings_pb2, table_pb2, table_service_pb2

from engine_server.auth import Scope
from tests.engine_server.api.conftest import Engine, bearer, launch, shut
from tests.engine_server.api.players import (
    HandTruth,
    Player,
    check_privacy,
    error_info,
    is_event,
    open_table,
    randomly,
)

K = table_pb2
HANDS = 6

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    path = tmp_path_factory.mktemp("engine") / "engine.sqlite3"
    running = await launch(f"sqlite:///{path}")
    try:
        yield running
    finally:
        await shut(running)


def railbird(engine: Engine, table_id: str, player_id: str) -> Player:
    return Player(player_id, engine.grpc_address, f"tables/{table_id}", engine.player_md(player_id))


def assert_public_only(rail: Player) -> None:
    """Not one down card in anything the railbird received: no seat's down cards, no dealt
    down card, no legal action, no seat of his own."""
    assert rail.messages
    for message in rail.messages:
        snap = message.snapshot
        assert snap.viewer_seat == 0 and not snap.legal_actions
        for seat in snap.seats:
            assert not seat.down_cards, (message.sequence, seat)
        for event in message.events:
            for deal in event.cards_dealt.deals:
                assert not deal.down_cards, (message.sequence, event)


async def test_a_railbird_never_sees_a_down_card_over_many_hands(engine: Engine) -> None:
    rng = random.Random(14)
    # Folds, showdowns and hands won by folds (not shown) among six hands of three players.
    players = await open_table(
        engine,
        "rail-cash",
        [randomly(rng, fold=0.3), randomly(rng, fold=0.3), randomly(rng, fold=0.3)],
        buy_in=1000,
    )
    rail = railbird(engine, "rail-cash", "watcher-1")
    try:
        first = await rail.connect()
        assert first.snapshot.viewer_seat == 0 and first.snapshot.watchers == 1
        # The players' views count him too (WatchersChanged, then every snapshot).
        counted = await players[0].wait_for(lambda m: m.snapshot.watchers == 1, timeout=10)
        assert counted.snapshot.watchers == 1
        await rail.wait_for(is_event("hand_ended", HANDS), timeout=60)
        truth = HandTruth.of(players)
        # The players were dealt down cards the railbird's stream never carried.
        assert any(truth.down[hand] for hand in range(1, HANDS + 1))
        # Folded hands and hands won by folds were never shown to him: no down card in any
        # snapshot or event of his (the shown hands are checked against what was dealt).
        assert_public_only(rail)
        check_privacy([rail], truth)
        assert any(truth.folded[hand] for hand in range(1, HANDS + 1))
        await rail.disconnect()
        gone = await players[0].wait_for(lambda m: m.snapshot.watchers == 0, timeout=10)
        assert gone.snapshot.watchers == 0
    finally:
        await rail.close()
        for player in players:
            await player.close()


async def test_a_private_table_has_no_rail_and_service_tokens_are_no_railbirds(
    engine: Engine,
) -> None:
    await engine.admin.CreateTable(
        admin_service_pb2.CreateTableRequest(
            request_id="create-rail-private",
            table_id="rail-private",
            stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
            private=True,
            min_buy_in=10,
            max_buy_in=1000,
            client_seed="private",
        ),
        metadata=engine.admin_md,
    )
    await engine.seat("rail-private", "q1")
    for md in (engine.player_md("nosy"), bearer("lobby", Scope.LOBBY)):
        stream = engine.tables.WatchTable(
            table_service_pb2.WatchTableRequest(table="tables/rail-private"), metadata=md
        )
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stream.read()
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert error_info(refused.value).reason == "NOT_SEATED"


async def test_a_private_tournament_table_is_open_to_the_rail(engine: Engine) -> None:
    overrides = struct_pb2.Struct()
    overrides.update({"action_seconds": 0.3})
    await engine.admin.CreateTable(
        admin_service_pb2.CreateTableRequest(
            request_id="create-rail-final",
            table_id="rail-final",
            stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
            private=True,
            rule_overrides=overrides,
            client_seed="final",
            tournament=settings_pb2.TournamentTable(
                tournament_id="tour-rail", table_name="Final table", table_number=1
            ),
        ),
        metadata=engine.admin_md,
    )
    for number in (1, 2):
        await engine.seat("rail-final", f"f{number}", buy_in=500, seat=number)
    rail = railbird(engine, "rail-final", "fan")
    try:
        first = await rail.connect()
        assert first.snapshot.settings.tournament.table_name == "Final table"
        await rail.wait_for(is_event("hand_ended", 2), timeout=30)
        assert_public_only(rail)
    finally:
        await rail.close()
        await asyncio.sleep(0)
