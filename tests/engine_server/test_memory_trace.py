"""The opt-in tracemalloc snapshots (STUD_ENGINE_TRACEMALLOC) and the growth they show."""

from __future__ import annotations

import doctest
import tracemalloc
from pathlib import Path

import engine_server.memory_trace
from engine_server.memory_trace import MemoryTrace, growth_by_line, main


def test_the_module_examples_run() -> None:
    assert doctest.testmod(engine_server.memory_trace).failed == 0
    assert not tracemalloc.is_tracing()


def test_the_growth_between_snapshots_names_the_line_that_kept_it(tmp_path: Path) -> None:
    trace = MemoryTrace(tmp_path, every=60.0)
    trace.start()
    try:
        trace.snapshot()
        kept = [bytes(2000) + bytes([n % 256]) for n in range(500)]  # about 1 MB
        trace.snapshot()
    finally:
        trace.stop()
    assert len(kept) == 500
    where, size, count = growth_by_line(tmp_path, after=0.0, limit=1)[0]
    assert where.startswith("test_memory_trace.py:")
    assert size >= 900_000 and count >= 500
    assert main([str(tmp_path), "--top", "3"]) == 0
