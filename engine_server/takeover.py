"""This node's watch over the other nodes: taking over the tables of a node that died.

Every sixth of its lease a serving node asks the store to retire the nodes whose lease has run
out without a clean stop and to spread their open tables over the live nodes
(:meth:`~engine_server.store.ownership.TableOwners.take_over_expired`: one transaction, each
table to one node), then loads the tables it was given — by its own takeover, another node's,
or a move (:meth:`~engine_server.table.manager.TableManager.adopt`). A dead node's tables
therefore play again within its lease plus about a third of a lease (one look finds it,
the next at the latest loads them), whatever their number.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from engine_server.table.manager import TableManager

__all__ = ["TakeoverWatch"]

log = logging.getLogger("stud.node")


class TakeoverWatch:
    """Every ``interval`` seconds: take over what dead nodes left, adopt what was given here.

    ``take_over``: the directory's :meth:`~engine_server.store.adapter.StoreTables.take_over_expired`.
    """

    def __init__(
        self,
        take_over: Callable[[], Awaitable[list[Any]]],
        manager: TableManager,
        interval: float,
    ) -> None:
        self._take_over = take_over
        self._manager = manager
        self.interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="takeover watch")

    async def stop(self, wait: float = 1.0) -> None:
        """Stop looking; wait at most ``wait`` seconds for a round in progress to end (one
        blocked in the database may not end at once, and must not hold the stop up)."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        if wait > 0:
            await asyncio.wait((task,), timeout=wait)
        if task.done() and not task.cancelled():
            with contextlib.suppress(Exception):
                task.result()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self.look()

    async def look(self) -> list[str]:
        """One round: take over, then adopt. Returns the tables this node took on."""
        if self._manager.draining:
            return []
        try:
            for taken in await self._take_over():
                log.warning(
                    "engine node %s: its lease ran out; %d table(s) taken over (%s)",
                    taken.node_id,
                    sum(len(ids) for ids in taken.assigned.values()),
                    ", ".join(
                        f"{node}: {len(ids)}" for node, ids in sorted(taken.assigned.items())
                    ),
                    extra={"dead_node": taken.node_id, "epoch": taken.epoch},
                )
            return await self._manager.adopt()
        except Exception:
            # The database may be unreachable for a moment; the lease watch decides whether
            # this node may go on, and the next round tries again.
            log.exception("takeover round failed")
            return []
