"""What the paced collector's freeze relies on (engine_server.collector): the state of a Play
stream and of a table, frozen while they live, is freed by reference counting when the
stream ends and the table closes, so no reference cycle of theirs waits for a thorough
collection."""

from __future__ import annotations

import asyncio
import collections
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from stud.v1 import admin_service_pb2

from tests.engine_server.api.conftest import launch, shut
from tests.engine_server.api.players import StreamPlayer, open_table, passive


@pytest.fixture
def collector_restored() -> Iterator[None]:
    yield
    gc.set_debug(0)
    gc.garbage.clear()
    gc.unfreeze()


@pytest.mark.usefixtures("collector_restored")
async def test_an_ended_stream_and_a_closed_table_leave_no_cycle_among_frozen_objects(
    tmp_path: Path,
) -> None:
    engine = await launch(f"sqlite:///{tmp_path}/engine.sqlite3")
    try:
        players = await open_table(engine, "frozen", [passive] * 3, client=StreamPlayer)
        await asyncio.sleep(0.3)
        gc.collect()
        gc.freeze()  # as a full collection does: the table and its streams are frozen
        for player in players:
            await player.close()
        await engine.admin.CloseTable(
            admin_service_pb2.CloseTableRequest(name="tables/frozen", reason="done"),
            metadata=engine.admin_md,
        )
        await asyncio.sleep(0.3)
        gc.collect()  # what was made since the freeze
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.unfreeze()
        found = gc.collect()  # a thorough collection: only cycles among frozen objects
        gc.set_debug(0)
        kinds = collections.Counter(type(o).__qualname__ for o in gc.garbage)
        assert found == 0, kinds.most_common(20)
    finally:
        await shut(engine)
