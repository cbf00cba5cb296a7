"""How much one pass of the tournament director takes on at once (shared by its steps)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

__all__ = ["BATCH", "TABLES_AT_ONCE", "at_once"]

#: The most tournaments one step of one pass looks at.
BATCH = 50
#: Tables opened, seated or shown the tournament at once (each its own engine calls and transactions): a few,
#: so the lobby's small database pool and the engines are not flooded.
TABLES_AT_ONCE = 8


async def at_once(jobs: Sequence[Callable[[], Awaitable[None]]]) -> None:
    """Run ``jobs`` (one per table), :data:`TABLES_AT_ONCE` at a time: seating a big field
    one call after the other took minutes (143 tables, 1,000 players: benchmarks/tournament.py).
    A single job runs in the caller's task."""
    if not jobs:
        return
    if len(jobs) == 1:
        await jobs[0]()
        return
    slots = asyncio.Semaphore(TABLES_AT_ONCE)

    async def one(job: Callable[[], Awaitable[None]]) -> None:
        async with slots:
            await job()

    await asyncio.gather(*(one(job) for job in jobs))
