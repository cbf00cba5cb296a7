"""Which CPUs the engine's threads run on (``STUD_ENGINE_CPUS``).

Several engine nodes on one machine each run about one core's worth of work on one main
thread, handing every gRPC message between it and grpcio's threads. Left to the scheduler,
those threads move between cores and wake each other across them; each node kept on a core
of its own spends less per action and waits less (BENCHMARKS.md, "Engine under load").

>>> parse_cpus("0")
frozenset({0})
>>> sorted(parse_cpus("0-2,5"))
[0, 1, 2, 5]
>>> parse_cpus("two")
Traceback (most recent call last):
...
ValueError: expected CPU numbers and ranges like 0 or 0-3,6, got 'two'
>>> describe_cpus(frozenset({0, 1, 2, 5}))
'0-2,5'
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from pathlib import Path

__all__ = ["describe_cpus", "parse_cpus", "pin_process"]

_CPU_LIST = re.compile(r"^\d+(-\d+)?(,\d+(-\d+)?)*$")


def parse_cpus(raw: str) -> frozenset[int]:
    """The CPUs a list such as ``0-3,6`` names (as ``taskset -c`` and cgroups write them)."""
    text = raw.replace(" ", "")
    if not _CPU_LIST.match(text):
        raise ValueError(f"expected CPU numbers and ranges like 0 or 0-3,6, got {raw!r}")
    cpus: set[int] = set()
    for part in text.split(","):
        first, _, last = part.partition("-")
        low, high = int(first), int(last or first)
        if high < low:
            raise ValueError(f"the range {part} runs backwards")
        cpus.update(range(low, high + 1))
    return frozenset(cpus)


def describe_cpus(cpus: Collection[int]) -> str:
    """``cpus`` as a list of numbers and ranges (the inverse of :func:`parse_cpus`)."""
    ordered = sorted(cpus)
    parts: list[str] = []
    start = previous = ordered[0]
    for cpu in [*ordered[1:], None]:
        if cpu is not None and cpu == previous + 1:
            previous = cpu
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if cpu is not None:
            start = previous = cpu
    return ",".join(parts)


def pin_process(cpus: Collection[int]) -> None:
    """Keep every thread of this process, and every thread it starts later, on ``cpus``.

    Linux sets affinity per thread, and a new thread inherits its creator's: each thread
    running now is set (the main one last), so the threads any of them starts follow.
    """
    wanted = set(cpus)
    here = os.getpid()
    for task in sorted(Path(f"/proc/{here}/task").iterdir(), key=lambda p: int(p.name)):
        thread = int(task.name)
        if thread != here:
            try:
                os.sched_setaffinity(thread, wanted)
            except ProcessLookupError:  # it ended meanwhile
                continue
    os.sched_setaffinity(0, wanted)
