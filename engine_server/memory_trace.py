"""Where the engine's memory goes: tracemalloc snapshots written at a steady pace (opt-in).

With ``STUD_ENGINE_TRACEMALLOC=DIR`` the engine traces its Python allocations from the start
(``tracemalloc``, a few frames each) and writes a snapshot to ``DIR`` every
``STUD_ENGINE_TRACEMALLOC_EVERY`` seconds (60 by default), with a line in ``DIR/rss.tsv``:
the time, the process's resident set (``VmRSS``) and what tracemalloc traces. What grows
between two snapshots is what fills under load; ``python -m engine_server.memory_trace DIR``
prints the growth from the first snapshot after ``--after`` seconds to the last, by line.

Tracing costs CPU (every allocation is recorded): it is for finding what grows, never for
measuring latency. Snapshots are written from the event loop (a pause of a second or so with
hundreds of busy tables); between snapshots only the tracing runs.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as directory:
...     trace = MemoryTrace(Path(directory), every=60.0)
...     trace.start()
...     kept = [bytearray(1000) for _ in range(100)]
...     _ = trace.snapshot()
...     kept += [bytearray(1000) for _ in range(100)]
...     _ = trace.snapshot()
...     trace.stop()
...     growth = growth_by_line(Path(directory), after=0.0, limit=3)
...     sorted(p.name for p in Path(directory).iterdir())
['rss.tsv', 'snapshot-0000.pickle', 'snapshot-0001.pickle']
>>> any("memory_trace" in line and size >= 90_000 for line, size, _ in growth)
True
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import time
import tracemalloc
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["MemoryTrace", "growth_by_line", "main", "memory_trace", "rss_bytes"]

log = logging.getLogger("stud.memory")

#: frames kept per allocation: enough to tell which caller of a shared helper allocated
FRAMES = 6
DEFAULT_EVERY = 60.0


def rss_bytes() -> int:
    """This process's resident set size (``VmRSS``), 0 where /proc has none."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class MemoryTrace:
    """Traces allocations and writes a snapshot to ``directory`` every ``every`` seconds."""

    def __init__(self, directory: Path, every: float = DEFAULT_EVERY) -> None:
        self.directory = directory
        self.every = every
        self._count = 0
        self._started = time.monotonic()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start tracing (and, in a running loop, the snapshots by the clock)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        if not tracemalloc.is_tracing():
            tracemalloc.start(FRAMES)
        self._started = time.monotonic()
        with contextlib.suppress(RuntimeError):
            loop = asyncio.get_running_loop()
            self._task = loop.create_task(self._run(), name="memory-trace")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        tracemalloc.stop()

    def snapshot(self) -> Path:
        """Write one snapshot now; returns its path."""
        path = self.directory / f"snapshot-{self._count:04d}.pickle"
        self._count += 1
        snapshot = tracemalloc.take_snapshot()
        snapshot.dump(str(path))
        traced, _ = tracemalloc.get_traced_memory()
        elapsed = time.monotonic() - self._started
        with (self.directory / "rss.tsv").open("a") as out:
            out.write(f"{elapsed:.1f}\t{rss_bytes()}\t{traced}\t{path.name}\n")
        return path

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                self.snapshot()
            except OSError as error:
                log.warning("tracemalloc snapshot not written: %s", error)


def memory_trace(env: Mapping[str, str]) -> MemoryTrace | None:
    """The trace ``STUD_ENGINE_TRACEMALLOC`` asks for, or None (the default: no tracing).

    >>> memory_trace({}) is None
    True
    >>> memory_trace({"STUD_ENGINE_TRACEMALLOC": "/tmp/t", "STUD_ENGINE_TRACEMALLOC_EVERY": "5"}).every
    5.0
    >>> memory_trace({"STUD_ENGINE_TRACEMALLOC": "/tmp/t", "STUD_ENGINE_TRACEMALLOC_EVERY": "0"})
    Traceback (most recent call last):
    ...
    ValueError: STUD_ENGINE_TRACEMALLOC_EVERY: expected seconds > 0, got '0'
    """
    directory = env.get("STUD_ENGINE_TRACEMALLOC", "").strip()
    if not directory:
        return None
    raw = env.get("STUD_ENGINE_TRACEMALLOC_EVERY", "") or str(DEFAULT_EVERY)
    try:
        every = float(raw)
    except ValueError:
        every = 0.0
    if not every > 0:
        raise ValueError(f"STUD_ENGINE_TRACEMALLOC_EVERY: expected seconds > 0, got {raw!r}")
    return MemoryTrace(Path(directory), every)


def _snapshots(directory: Path) -> list[tuple[float, int, int, Path]]:
    rows = []
    for line in (directory / "rss.tsv").read_text().splitlines():
        elapsed, rss, traced, name = line.split("\t")
        rows.append((float(elapsed), int(rss), int(traced), directory / name))
    return rows


def growth_by_line(
    directory: Path, after: float, limit: int = 25, frames: int = 3
) -> list[tuple[str, int, int]]:
    """What grew from the first snapshot taken ``after`` seconds on to the last: (the
    allocating frames, bytes grown, blocks grown), the largest first."""
    rows = [row for row in _snapshots(directory) if row[0] >= after]
    if len(rows) < 2:
        raise ValueError(f"{directory}: fewer than two snapshots after {after:g} s")
    first = tracemalloc.Snapshot.load(str(rows[0][3]))
    last = tracemalloc.Snapshot.load(str(rows[-1][3]))
    stats = last.compare_to(first, "traceback")
    grown = []
    for stat in sorted(stats, key=lambda s: -s.size_diff)[:limit]:
        # Oldest frame first in a traceback: the allocating line is the last.
        where = " <- ".join(
            f"{Path(f.filename).name}:{f.lineno}" for f in reversed(list(stat.traceback)[-frames:])
        )
        grown.append((where, stat.size_diff, stat.count_diff))
    return grown


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine_server.memory_trace",
        description="What grew between the engine's tracemalloc snapshots (STUD_ENGINE_TRACEMALLOC).",
    )
    parser.add_argument("directory", type=Path)
    parser.add_argument("--after", type=float, default=0.0, help="skip the first seconds")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--frames", type=int, default=3)
    args = parser.parse_args(argv)
    for elapsed, rss, traced, path in _snapshots(args.directory):
        print(
            f"{elapsed:8.0f} s  RSS {rss / 2**20:8.1f} MiB  traced {traced / 2**20:8.1f} MiB  {path.name}"
        )
    for where, size, count in growth_by_line(args.directory, args.after, args.top, args.frames):
        print(f"{size / 1024:+10.1f} KiB {count:+8d} blocks  {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
