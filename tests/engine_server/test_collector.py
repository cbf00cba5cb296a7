"""The garbage collector paced from the loop: young garbage freed on the clock, full
collections when due and their survivors frozen, thorough collections freeing cycles among
frozen objects, CPython's trigger back on after; the engine's /metrics counts the pauses of
a running ``stud engine``."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from engine_server.collector import FULL, THOROUGH, YOUNG, CollectorPacing, PacedCollector
from tests.engine_server.test_logs import start_engine_process


class Node:
    """A reference cycle's member that reference counting alone never frees."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()


async def test_cyclic_garbage_is_freed_by_the_paced_young_collection() -> None:
    pauses: list[tuple[int, float, int]] = []
    collector = PacedCollector(
        CollectorPacing(young_every=0.02, full_every=0, thaw_every=0),
        lambda g, s, found: pauses.append((g, s, found)),
    )
    collector.start()
    try:
        assert not gc.isenabled() and collector.running
        garbage = weakref.ref(Node())
        # CPython's own trigger is off: a burst of allocations does not free the cycle.
        for _ in range(10_000):
            Node().me = None
        assert garbage() is not None
        await asyncio.sleep(0.1)
        assert garbage() is None
    finally:
        collector.stop()
    assert gc.isenabled() and not collector.running
    assert collector.collections[YOUNG] >= 2 and collector.collections[FULL] == 0
    assert pauses and {g for g, _, _ in pauses} == {YOUNG}
    assert all(0 <= s < 1 for _, s, _ in pauses)
    # The one cycle was found unreachable (the burst's objects died by reference counting).
    assert sum(found for _, _, found in pauses) >= 1
    # Stopped: no collection comes from the clock any more.
    count = collector.collections[YOUNG]
    await asyncio.sleep(0.06)
    assert collector.collections[YOUNG] == count


async def test_a_full_collection_comes_when_due_and_frees_old_cycles() -> None:
    collector = PacedCollector(CollectorPacing(young_every=0.01, full_every=0.15, thaw_every=0))
    collector.start()
    try:
        survivor = Node()
        await asyncio.sleep(0.03)  # a young collection moves it to the oldest generation
        assert any(o is survivor for o in gc.get_objects(FULL))
        garbage = weakref.ref(survivor)
        survivor.me = survivor
        del survivor
        await asyncio.sleep(0.05)
        assert garbage() is not None  # young collections do not walk the oldest generation
        await asyncio.sleep(0.2)
        assert garbage() is None
    finally:
        collector.stop()
    assert collector.collections[FULL] >= 1


async def test_what_lives_at_the_start_is_frozen() -> None:
    before = gc.get_freeze_count()
    collector = PacedCollector(CollectorPacing(young_every=0.05))
    collector.start()
    collector.start()  # a second start changes nothing
    try:
        assert gc.get_freeze_count() > before
    finally:
        collector.stop()
        collector.stop()
    assert gc.isenabled()


async def test_a_full_collections_survivors_are_frozen_yet_die_by_reference_counting() -> None:
    collector = PacedCollector(CollectorPacing(young_every=0.01, full_every=0.05, thaw_every=0))
    collector.start()
    try:
        survivor = Node()
        survivor.me = None  # no cycle: reference counting alone frees it
        await asyncio.sleep(0.15)
        assert collector.collections[FULL] >= 1
        assert not any(o is survivor for o in gc.get_objects(FULL))  # frozen, not walked
        frozen = gc.get_freeze_count()
        dropped = weakref.ref(survivor)
        del survivor
        assert dropped() is None
        assert gc.get_freeze_count() == frozen - 1
    finally:
        collector.stop()


async def test_a_cycle_among_frozen_objects_waits_for_the_thorough_collection() -> None:
    found: list[tuple[int, int]] = []
    collector = PacedCollector(
        CollectorPacing(young_every=0.01, full_every=0.04, thaw_every=1.0),
        lambda kind, _, objects: found.append((kind, objects)),
    )
    collector.start()
    try:
        survivor = Node()
        await asyncio.sleep(0.1)  # through a full collection: frozen
        assert collector.collections[FULL] >= 1 and collector.collections[THOROUGH] == 0
        garbage = weakref.ref(survivor)
        del survivor
        await asyncio.sleep(0.15)
        # Full collections came and went: none walks what is frozen.
        assert garbage() is not None
        await asyncio.sleep(1.0)
        assert collector.collections[THOROUGH] == 1
        assert garbage() is None
    finally:
        collector.stop()
    assert any(kind == THOROUGH and objects >= 1 for kind, objects in found)
    # A thorough collection takes a full one's turn (its survivors are frozen again).
    assert {kind for kind, _ in found} == {YOUNG, FULL, THOROUGH}


def test_thorough_collections_come_only_with_full_ones() -> None:
    pacing = CollectorPacing(full_every=0, thaw_every=0)
    assert (pacing.full_every, pacing.thaw_every) == (0, 0)
    with pytest.raises(ValueError, match="thaw_every: a thorough collection needs full"):
        CollectorPacing(full_every=0)


@pytest.mark.parametrize(
    ("pacing", "message"),
    [
        ({"young_every": 0}, "young_every: expected seconds > 0, got 0"),
        ({"young_every": -1}, "young_every: expected seconds > 0, got -1"),
        ({"full_every": -5}, "full_every: expected seconds >= 0, got -5"),
        ({"thaw_every": -1}, "thaw_every: expected seconds >= 0, got -1"),
    ],
)
def test_a_bad_pace_is_refused(pacing: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CollectorPacing(**pacing)


async def test_the_engine_paces_its_collector_and_reports_the_pauses(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    process, ready = await start_engine_process(
        tmp_path / "engine.sqlite3", log, {"STUD_ENGINE_GC_YOUNG_EVERY": "0.02"}
    )
    try:
        await asyncio.sleep(0.5)
        async with httpx.AsyncClient() as http:
            page = (await http.get(ready["metrics"])).text
    finally:
        process.terminate()
        await process.wait()
    counts = {
        sample.labels["generation"]: sample.value
        for family in text_string_to_metric_families(page)
        for sample in family.samples
        if sample.name == "stud_engine_gc_pause_seconds_count"
    }
    assert counts.get(str(YOUNG), 0) >= 5, counts
    assert str(FULL) not in counts  # the first full collection is ten minutes away
