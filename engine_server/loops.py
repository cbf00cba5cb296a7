"""The event loop the engine runs on: uvloop where it is installed, else asyncio's own.

grpc.aio wakes the loop for each batch of gRPC events and the web port's sockets are the
loop's own: uvloop does both with less CPU a message (BENCHMARKS.md, "Engine under load").
``STUD_ENGINE_LOOP`` chooses (:mod:`engine_server.settings`); the load benchmarks use the
same helper for their processes.

>>> run_in_loop("asyncio", _kind())
'asyncio'
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["DEFAULT_LOOP", "LOOPS", "loop_name", "run_in_loop", "uvloop_installed"]

T = TypeVar("T")

#: the loops one may choose
LOOPS = ("uvloop", "asyncio")


def uvloop_installed() -> bool:
    return importlib.util.find_spec("uvloop") is not None


#: uvloop where it is installed (it is not on Windows)
DEFAULT_LOOP = "uvloop" if uvloop_installed() else "asyncio"


def run_in_loop(loop: str, main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to its end in a new event loop of the kind ``loop`` names (:data:`LOOPS`),
    as :func:`asyncio.run` does."""
    if loop not in LOOPS:
        main.close()
        raise ValueError(f"unknown event loop {loop!r}")
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if loop == "uvloop":
        import uvloop

        factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)


def loop_name() -> str:
    """``uvloop`` or ``asyncio``: the kind of the running loop."""
    return type(asyncio.get_running_loop()).__module__.partition(".")[0]


async def _kind() -> str:
    return loop_name()
