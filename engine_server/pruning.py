"""This node's housekeeping of stored actions: an ended hand's copies deleted after a while.

Every action of a running hand is stored as it is taken (``hand_actions``) so that a hand a
crash leaves running keeps them; once the hand has ended, its row holds its whole trail
(history, PHH and fairness read that), and those rows are only a copy. Every
:data:`PRUNE_EVERY_SECONDS` a serving node deletes the copies of hands that ended more than
``STUD_ENGINE_HAND_ACTIONS_KEPT_SECONDS`` ago (:meth:`~engine_server.store.adapter.StoreTables.prune_actions`),
a batch of hands per transaction. Any node may delete any ended hand's copies: two nodes
doing it at once delete nothing twice. Each round is reported (:class:`PruneRound`) to the
node's metrics: rows deleted, when the round ended and how long it took, whether it failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from engine_server.store.hand_actions import Pruned

__all__ = ["PRUNE_EVERY_SECONDS", "ActionPruning", "PruneRound"]

log = logging.getLogger("stud.node")

#: how often a node looks for ended hands' actions to delete
PRUNE_EVERY_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class PruneRound:
    """One round of the housekeeping, as the metrics count it."""

    pruned: Pruned
    #: when it ended (Unix time) and how long it took
    ended_at: float
    seconds: float
    #: it raised (the database away, the lease lost): nothing it says was deleted
    failed: bool = False


class ActionPruning:
    """Every ``interval`` seconds: ``prune(kept_seconds)`` (it returns what it deleted), each
    round told to ``on_round`` (the metrics)."""

    def __init__(
        self,
        prune: Callable[[float], Awaitable[Pruned]],
        kept_seconds: float,
        interval: float = PRUNE_EVERY_SECONDS,
        on_round: Callable[[PruneRound], None] | None = None,
    ) -> None:
        self._prune = prune
        self.kept_seconds = kept_seconds
        self.interval = interval
        self._on_round = on_round
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

    async def once(self) -> Pruned:
        """One round; returns what it deleted (nothing when it failed)."""
        started = time.perf_counter()
        try:
            pruned = await self._prune(self.kept_seconds)
        except Exception as error:
            # The database is away, or the node lost its lease: the next round tries again.
            log.warning(
                "could not delete ended hands' stored actions (%s); trying again in %.0f s",
                str(error).splitlines()[0] if str(error) else type(error).__name__,
                self.interval,
            )
            self._report(Pruned(), started, failed=True)
            return Pruned()
        if pruned.hands:
            log.info(
                "deleted the stored actions of %d ended hand(s) (their records hold them)",
                pruned.hands,
                extra={"hands": pruned.hands, "rows": pruned.rows},
            )
        self._report(pruned, started, failed=False)
        return pruned

    def _report(self, pruned: Pruned, started: float, *, failed: bool) -> None:
        if self._on_round is not None:
            seconds = time.perf_counter() - started
            self._on_round(PruneRound(pruned, time.time(), seconds, failed))
