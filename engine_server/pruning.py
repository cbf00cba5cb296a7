"""This node's housekeeping of stored actions: an ended hand's copies deleted after a while.

Every action of a running hand is stored as it is taken (``hand_actions``) so that a hand a
crash leaves running keeps them; once the hand has ended, its row holds its whole trail
(history, PHH and fairness read that), and those rows are only a copy. Every
:data:`PRUNE_EVERY_SECONDS` a serving node deletes the copies of hands that ended more than
``STUD_ENGINE_HAND_ACTIONS_KEPT_SECONDS`` ago (:meth:`~engine_server.store.adapter.StoreTables.prune_actions`),
a batch of hands per transaction. Any node may delete any ended hand's copies: two nodes
doing it at once delete nothing twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

__all__ = ["PRUNE_EVERY_SECONDS", "ActionPruning"]

log = logging.getLogger("stud.node")

#: how often a node looks for ended hands' actions to delete
PRUNE_EVERY_SECONDS = 60.0


class ActionPruning:
    """Every ``interval`` seconds: ``prune(kept_seconds)`` (it returns how many hands')."""

    def __init__(
        self,
        prune: Callable[[float], Awaitable[int]],
        kept_seconds: float,
        interval: float = PRUNE_EVERY_SECONDS,
    ) -> None:
        self._prune = prune
        self.kept_seconds = kept_seconds
        self.interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="action pruning")

    async def stop(self) -> None:
        """Stop (a round in progress is cancelled: what it deleted stays deleted, whole
        transactions only)."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self.once()

    async def once(self) -> int:
        """One round; returns how many hands' actions it deleted (0 when it failed)."""
        try:
            pruned = await self._prune(self.kept_seconds)
        except Exception as error:
            # The database is away, or the node lost its lease: the next round tries again.
            log.warning(
                "could not delete ended hands' stored actions (%s); trying again in %.0f s",
                str(error).splitlines()[0] if str(error) else type(error).__name__,
                self.interval,
            )
            return 0
        if pruned:
            log.info(
                "deleted the stored actions of %d ended hand(s) (their records hold them)",
                pruned,
                extra={"hands": pruned},
            )
        return pruned
