"""The garbage collector run from the event loop at a steady pace.

CPython starts a young collection when tracked allocations outnumber deallocations by a
threshold. Under load that count says little about the young generation's size: objects of
older generations dying offset the new ones, so at 400 busy tables the young generation held
about 77,000 live objects (hands' events, seat views, streams' pending sends) when a
collection came, and walking them took 50-90 ms; collecting the next generation walked
150,000 in 150-190 ms. Those pauses, not the work, set the engine's p99 (BENCHMARKS.md, "Engine under
load").

Run by the clock instead, each collection walks only what was made since the previous one:
every ``young_every`` seconds the two younger generations are collected (a few thousand
objects: a millisecond or two at 400 tables) and what survives goes straight to the oldest
generation, which only a full collection walks: every ``full_every`` seconds (0: never by
the clock). Objects in the oldest generation still die by reference counting as soon as they
are dropped; what waits there for a full collection is only garbage in reference cycles that
lived longer than one pace. Such garbage is rare: what needs the collector under load is
grpcio's own per-call cycle, dead within the call's first callback.

Objects alive when the pacing starts (modules, descriptors, gRPC and SQLAlchemy: over 100,000
in the started engine) are frozen: they live as long as the process, and no collection walks
them again. So are the survivors of each full collection. At 1,000 busy tables (500 a node)
the oldest generation held about 370,000 objects a node, nearly all of them live tables' and
open streams' state (their tasks, coroutines, async generators, gRPC calls), and a full
collection walking them all paused the node for 2.7-5.9 s on a shared host, yet found only
30-420 unreachable objects every 30 s (BENCHMARKS.md, "Full collections at
1,000 tables"). Frozen, they are walked by no full collection: the next one walks only what
reached the oldest generation since (50,000-80,000 objects in 30 s at 500 tables a node,
0.09-0.16 s of CPU), and only the first after many streams open walks those once.

Frozen objects still die by reference counting when they are dropped: an ended stream's and
a closed table's state leave nothing behind (tests/engine_server/api/test_frozen_state.py).
What a freeze keeps is garbage in reference cycles whose every member had lived through a
full collection; a thorough collection every ``thaw_every`` seconds (a day; 0: never)
unfreezes everything and collects it all, at the old price of a full collection. Measured,
such garbage is a few objects a minute.

>>> import asyncio, gc
>>> async def paced() -> tuple[bool, int]:
...     collector = PacedCollector(CollectorPacing(young_every=0.01))
...     collector.start()
...     enabled = gc.isenabled()
...     await asyncio.sleep(0.1)
...     collector.stop()
...     return enabled, collector.collections[YOUNG]
>>> enabled, young = asyncio.run(paced())
>>> enabled, young >= 3, gc.isenabled()
(False, True, True)
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "FULL",
    "GC_FIRST_GENERATION",
    "THOROUGH",
    "YOUNG",
    "CollectorPacing",
    "PacedCollector",
    "PauseObserver",
    "settle_garbage_collector",
]

log = logging.getLogger("stud.gc")

#: the first-generation threshold once settled (CPython's default is 700 allocations)
GC_FIRST_GENERATION = 20_000


def settle_garbage_collector() -> None:
    """Keep the garbage collector's pauses short once a server (the engine, the lobby) is up.

    A full collection walks every object the collector tracks. Those of a started server
    (modules, protobuf descriptors, gRPC, SQLAlchemy, Litestar's routes and models: over
    100,000) live as long as the process, yet each full collection walked them again: in the
    engine 150-350 ms pauses, its worst latencies under load; in the lobby 80 ms, stalling
    every request under way (issue 16: the quick game's p99). Frozen, they are never walked
    again; cycles among them could only come from code that runs once at start. A larger
    first generation lets the objects of one request or action die before a collection
    promotes them, so the older generations fill, and are collected, less often.
    """
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_FIRST_GENERATION, older, oldest)
    log.info(
        "garbage collector settled: %d objects of the started process frozen, first "
        "generation at %d",
        gc.get_freeze_count(),
        GC_FIRST_GENERATION,
    )


#: the oldest generation CPython collects in a young collection (0 and 1 both)
YOUNG = 1
#: the oldest generation: a full collection (what is frozen is not walked)
FULL = 2
#: a full collection of everything, the frozen objects too (not a CPython generation)
THOROUGH = 3

#: called after each paced collection with its kind (:data:`YOUNG`, :data:`FULL` or
#: :data:`THOROUGH`), its pause in seconds and the unreachable objects it found (what
#: ``gc.collect`` returns)
PauseObserver = Callable[[int, float, int], None]


@dataclass(frozen=True, slots=True)
class CollectorPacing:
    """How often the engine collects garbage.

    >>> CollectorPacing(young_every=0)
    Traceback (most recent call last):
    ...
    ValueError: young_every: expected seconds > 0, got 0
    >>> CollectorPacing(full_every=0, thaw_every=3600)
    Traceback (most recent call last):
    ...
    ValueError: thaw_every: a thorough collection needs full collections (full_every > 0)
    """

    #: seconds between young collections
    young_every: float = 0.05
    #: seconds between full collections; 0: never by the clock
    full_every: float = 600.0
    #: seconds between thorough collections (the frozen objects walked too); 0: never
    thaw_every: float = 86400.0

    def __post_init__(self) -> None:
        if not self.young_every > 0:
            raise ValueError(f"young_every: expected seconds > 0, got {self.young_every:g}")
        if self.full_every < 0:
            raise ValueError(f"full_every: expected seconds >= 0, got {self.full_every:g}")
        if self.thaw_every < 0:
            raise ValueError(f"thaw_every: expected seconds >= 0, got {self.thaw_every:g}")
        if self.thaw_every and not self.full_every:
            # Without full collections nothing but the start-up objects is ever frozen.
            raise ValueError(
                "thaw_every: a thorough collection needs full collections (full_every > 0)"
            )


class PacedCollector:
    """Collects on the running loop's clock while started; CPython's own trigger is off.

    Each collection runs as a loop callback, between two other callbacks, so it never
    interrupts a table's command half-way (CPython's trigger fires inside any allocation).
    A full collection freezes what survives it; a thorough one walks that too:

    >>> import asyncio, gc, weakref
    >>> class Node:
    ...     def __init__(self) -> None:
    ...         self.me = self
    >>> async def frozen_then_thawed() -> tuple[bool, bool, bool]:
    ...     pacing = CollectorPacing(young_every=0.01, full_every=0.05, thaw_every=1.0)
    ...     collector = PacedCollector(pacing)
    ...     collector.start()
    ...     node = Node()
    ...     await asyncio.sleep(0.1)  # through a full collection
    ...     frozen = not any(o is node for o in gc.get_objects())
    ...     dead = weakref.ref(node)
    ...     del node  # a cycle: only a collection that walks it frees it
    ...     await asyncio.sleep(0.1)
    ...     kept = dead() is not None
    ...     await asyncio.sleep(1.0)  # through the thorough collection
    ...     collector.stop()
    ...     return frozen, kept, dead() is None
    >>> asyncio.run(frozen_then_thawed())
    (True, True, True)
    >>> gc.unfreeze()
    """

    def __init__(self, pacing: CollectorPacing, observe: PauseObserver | None = None) -> None:
        self.pacing = pacing
        self._observe = observe
        #: collections run so far, by kind (:data:`YOUNG`, :data:`FULL`, :data:`THOROUGH`)
        self.collections = [0, 0, 0, 0]
        self._next_full = 0.0
        self._next_thaw = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._was_enabled = True

    @property
    def running(self) -> bool:
        return self._timer is not None

    def start(self) -> None:
        """Freeze what lives now and pace the collector from the running loop."""
        if self._timer is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._was_enabled = gc.isenabled()
        gc.collect()
        gc.freeze()
        gc.disable()
        now = self._loop.time()
        if self.pacing.full_every:
            self._next_full = now + self.pacing.full_every
        if self.pacing.thaw_every:
            self._next_thaw = now + self.pacing.thaw_every
        self._schedule()

    def stop(self) -> None:
        """Hand collection back to CPython's own trigger (frozen objects stay frozen)."""
        if self._timer is None:
            return
        self._timer.cancel()
        self._timer = None
        if self._was_enabled:
            gc.enable()

    def _schedule(self) -> None:
        assert self._loop is not None
        self._timer = self._loop.call_later(self.pacing.young_every, self._tick)

    def _tick(self) -> None:
        assert self._loop is not None
        kind = self._due(self._loop.time())
        started = time.perf_counter()
        if kind == THOROUGH:
            gc.unfreeze()
        found = gc.collect(min(kind, FULL))
        if kind != YOUNG:
            # Survivors of a full collection are mostly the live tables' state: walked by
            # no full collection again (O(1): CPython splices the generation's list).
            gc.freeze()
        pause = time.perf_counter() - started
        self.collections[kind] += 1
        if self._observe is not None:
            self._observe(kind, pause, found)
        self._schedule()

    def _due(self, now: float) -> int:
        """The collection due ``now``: a thorough one takes the place of a full one."""
        if self.pacing.thaw_every and now >= self._next_thaw:
            self._next_thaw = now + self.pacing.thaw_every
            self._next_full = now + self.pacing.full_every
            return THOROUGH
        if self.pacing.full_every and now >= self._next_full:
            self._next_full = now + self.pacing.full_every
            return FULL
        return YOUNG
