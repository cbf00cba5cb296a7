"""A node adopting tables given to it (a takeover, a move): in rounds of a few tables, each
round's tables dealing again before the next round is loaded, each table adopted once, and
the hands their last owner left running cancelled (every chip back)."""

from __future__ import annotations

import pytest

from engine_server.store.adapter import StoreTables
from engine_server.store.hands import HandSeat
from engine_server.store.models import HandRow
from engine_server.store.repository import EngineStore
from engine_server.table.manager import LoadedTable, TableManager
from engine_server.table.model import TableStatus
from engine_server.table.runtime import Timing

from .support import STAKES, new_table, seat


async def test_tables_are_adopted_in_rounds_each_started_before_the_next_is_loaded(
    store: EngineStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = [await new_table(store, f"adopt-{n}") for n in range(7)]
    running: dict[str, HandRow] = {}
    for table in tables[:4]:
        seats = [await seat(store, table.id, n) for n in (1, 2)]
        pair = await store.seeds.current_seed_pair(table.id)
        running[table.id] = await store.hands.start_hand(
            table.id,
            hand_number=1,
            seed_pair_id=pair.id,
            button_seat=1,
            players=[HandSeat(s.seat, s.id, s.player_id, s.stack) for s in seats],
            profile="house",
            settings={
                "stakes": {k: STAKES[k] for k in ("ante", "bring_in", "small_bet", "big_bet")}
            },
        )
    directory = StoreTables(store)
    # A long pause between hands: the adopted tables deal nothing of their own in this test.
    manager = TableManager(
        directory, directory, timing=Timing(between_hands_seconds=60), adopt_round=3
    )
    rounds: list[list[str]] = []
    started_before: list[set[str]] = []
    adopt_tables = directory.adopt_tables

    async def one_round(table_ids: list[str]) -> list[LoadedTable]:
        rounds.append(list(table_ids))
        started_before.append(set(manager.tables))
        return await adopt_tables(table_ids)

    monkeypatch.setattr(directory, "adopt_tables", one_round)
    try:
        ids = sorted(t.id for t in tables)
        assert sorted(await manager.adopt()) == ids
        assert rounds == [ids[0:3], ids[3:6], ids[6:7]]
        # Each round's tables were playing before the next round was loaded.
        assert started_before == [set(), set(ids[0:3]), set(ids[0:6])]
        assert set(manager.tables) == set(ids)
        assert all(manager.tables[t].status is not TableStatus.CLOSED for t in ids)
        for hand in running.values():
            ended = await store.hands.get_hand(hand.id)
            assert ended.state == "cancelled"
            players = await store.hands.hand_players(hand.id)
            assert [p.final_stack for p in players] == [p.start_stack for p in players]
        # Nothing is adopted twice.
        assert await manager.adopt() == []
        assert len(rounds) == 3
    finally:
        await manager.shutdown()


async def test_the_table_a_client_waits_for_is_adopted_in_the_first_round(
    store: EngineStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = sorted([(await new_table(store, f"wait-{n}")).id for n in range(5)])
    directory = StoreTables(store)
    manager = TableManager(
        directory, directory, timing=Timing(between_hands_seconds=60), adopt_round=2
    )
    rounds: list[list[str]] = []
    adopt_tables = directory.adopt_tables

    async def one_round(table_ids: list[str]) -> list[LoadedTable]:
        rounds.append(list(table_ids))
        return await adopt_tables(table_ids)

    monkeypatch.setattr(directory, "adopt_tables", one_round)
    try:
        # A client following TABLE_MOVED to the newest of them: it is not kept waiting
        # behind the others.
        assert (await manager.get_or_adopt(ids[4])).table_id == ids[4]
        assert rounds == [[ids[4], ids[0]], ids[1:3], [ids[3]]]
        assert set(manager.tables) == set(ids)
    finally:
        await manager.shutdown()


def test_the_round_size_is_a_setting_whose_default_is_the_managers() -> None:
    from engine_server import settings
    from engine_server.table.manager import DEFAULT_ADOPT_ROUND

    secret = {"STUD_JWT_SECRET": "x" * 32}
    assert settings.DEFAULT_ADOPT_ROUND == DEFAULT_ADOPT_ROUND
    assert settings.EngineSettings.from_env(secret).adopt_round == DEFAULT_ADOPT_ROUND
    chosen = {**secret, "STUD_ENGINE_ADOPT_ROUND": "100"}
    assert settings.EngineSettings.from_env(chosen).adopt_round == 100
    with pytest.raises(ValueError, match="adopt_round must be at least 1"):
        TableManager(None, None, adopt_round=0)  # type: ignore[arg-type]
