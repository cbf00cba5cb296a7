"""A table created with a rake by players dealt in (multipoker's schedule) over real gRPC.

CreateTable takes the rake object in ``rule_overrides`` (a Struct: numbers arrive as
floats); the table's settings carry it as ``Rules.rake.by_players``, the same after a
restart; each hand pays the bracket of the players dealt into it; a bad schedule is
refused naming the field, and nothing is created.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2
from stud.v1 import admin_service_pb2, settings_pb2, table_pb2, table_service_pb2

from engine_server.api.convert import rake_from_message, rake_message
from engine_server.game.profiles import Rake
from tests.engine_server.api.conftest import Engine, launch, shut
from tests.engine_server.api.players import error_info

#: Every pot pays: 1 chip with 2-3 players dealt in, 2 with 4-9 (the antes alone reach it).
BY_PLAYERS: dict[str, Any] = {
    "by_players": [
        {"min_players": 2, "max_players": 3, "schedule": [[0, 1]]},
        {"min_players": 4, "max_players": 10, "schedule": [[0, 2], [500, 5]]},
    ]
}


def _create(table_id: str, rake: Any, profile: str = "multipoker") -> Any:
    overrides = struct_pb2.Struct()
    overrides.update({"rake": rake})
    return admin_service_pb2.CreateTableRequest(
        request_id=f"create-{table_id}",
        table_id=table_id,
        profile=profile,
        rule_overrides=overrides,
        stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
        min_buy_in=10,
        max_buy_in=1000,
        client_seed="alice",
    )


async def _table(engine: Engine, table_id: str) -> admin_service_pb2.GetTableResponse:
    answer: admin_service_pb2.GetTableResponse = await engine.admin.GetTable(
        admin_service_pb2.GetTableRequest(name=f"tables/{table_id}", reason="test"),
        metadata=engine.admin_md,
    )
    return answer


async def _first_hand_folded_out(engine: Engine, table_id: str, players: int) -> Any:
    """Seat ``players`` (paused, so all are dealt into hand 1), fold hand 1 out, pause again;
    the table's ops view after it."""
    name = f"tables/{table_id}"
    admin = engine.admin
    await admin.PauseTable(admin_service_pb2.PauseTableRequest(name=name), metadata=engine.admin_md)
    for n in range(players):
        await engine.seat(table_id, f"p{n}", buy_in=100)
    await admin.ResumeTable(
        admin_service_pb2.ResumeTableRequest(name=name), metadata=engine.admin_md
    )
    deadline = time.monotonic() + 10
    while True:
        snapshot = (await _table(engine, table_id)).snapshot
        if snapshot.hand_number == 1 and not snapshot.hand_in_progress:
            break
        assert snapshot.hand_number <= 1, "hand 1 was missed"
        assert time.monotonic() < deadline, "hand 1 did not end"
        if snapshot.hand_in_progress and snapshot.turn_seat:
            player = next(s.player_id for s in snapshot.seats if s.number == snapshot.turn_seat)
            kinds = [x.kind for x in snapshot.legal_actions]
            kind = table_pb2.ACTION_KIND_FOLD if table_pb2.ACTION_KIND_FOLD in kinds else kinds[0]
            await engine.tables.Act(
                table_service_pb2.ActRequest(
                    table=name, hand_number=1, kind=kind, action_id=uuid.uuid4().hex
                ),
                metadata=engine.player_md(player),
            )
        else:
            await asyncio.sleep(0.02)
    await admin.PauseTable(admin_service_pb2.PauseTableRequest(name=name), metadata=engine.admin_md)
    return (await _table(engine, table_id)).snapshot


async def test_a_table_with_a_rake_by_players_keeps_it_and_rakes_by_players_dealt_in(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path}/engine.sqlite3"
    expected = Rake.from_json(BY_PLAYERS, "rake")
    first = await launch(url)
    try:
        created = (
            await first.admin.CreateTable(_create("mp-rake", BY_PLAYERS), metadata=first.admin_md)
        ).table
        rake = created.settings.rules.rake
        assert rake.WhichOneof("kind") == "by_players"
        assert [(b.min_players, b.max_players) for b in rake.by_players.brackets] == [
            (2, 3),
            (4, 10),
        ]
        assert [(s.pot_at_least, s.rake) for s in rake.by_players.brackets[1].schedule.steps] == [
            (0, 2),
            (500, 5),
        ]
        assert rake_from_message(rake) == expected
        # The same hand (everyone folds to the bring-in) with 3 and with 4 players dealt in.
        await first.admin.CreateTable(_create("mp-four", BY_PLAYERS), metadata=first.admin_md)
        three = await _first_hand_folded_out(first, "mp-rake", 3)
        four = await _first_hand_folded_out(first, "mp-four", 4)
    finally:
        await shut(first)
    for snapshot, players, rake_taken in ((three, 3, 1), (four, 4, 2)):
        last = snapshot.last_hand
        assert last.hand_number == 1 and last.won_by_fold
        assert last.rake == rake_taken
        assert sum(pot.rake for pot in last.pots) == rake_taken
        assert sum(s.stack for s in snapshot.seats) + last.rake == 100 * players

    # The store gives the rake back as JSON (numbers as floats): the same settings after a
    # restart.
    second = await launch(url)
    try:
        again = (await _table(second, "mp-rake")).table
    finally:
        await shut(second)
    assert again.settings == created.settings
    assert rake_from_message(again.settings.rules.rake) == expected


@pytest.mark.parametrize(
    ("brackets", "field"),
    [
        (
            [
                {"min_players": 2, "max_players": 5, "schedule": [[0, 1]]},
                {"min_players": 5, "max_players": 9, "schedule": [[0, 2]]},
            ],
            "rake.by_players[1].min_players",
        ),
        ([{"min_players": 2, "max_players": 6, "schedule": [[0, 1]]}], "rake.by_players"),
        ([{"min_players": 2, "max_players": 9, "schedule": []}], "rake.by_players[0].schedule"),
        (
            [{"min_players": 2, "max_players": 9, "schedule": [[0, -1]]}],
            "rake.by_players[0].schedule[0]",
        ),
    ],
)
async def test_create_table_refuses_a_bad_rake_by_players_naming_the_field(
    engine: Engine, brackets: list[dict[str, Any]], field: str
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await engine.admin.CreateTable(
            _create("mp-bad", {"by_players": brackets}), metadata=engine.admin_md
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(caught.value)
    assert info.reason == "INVALID_SETTING"
    assert info.metadata["field"] == field, caught.value.details()
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await _table(engine, "mp-bad")
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


def test_every_rake_kind_converts_to_its_message_and_back() -> None:
    for value in (
        {"percent": 5, "per_round": True, "cap": None},
        {"percent": 2.5, "per_round": False, "cap": 30},
        {"schedule": [[10, 1], [50, 2]]},
        BY_PLAYERS,
    ):
        rake = Rake.from_json(value, "rake")
        message = rake_message(rake)
        assert message is not None
        assert rake_from_message(message) == rake, value
    assert rake_from_message(settings_pb2.Rake()) is None
