"""A node's clean stop (SIGTERM, SIGINT): its tables drained or handed over, said in the log.

A stopping node deals no new hand. With no other live node (or ``stop_moves_tables`` off) it
waits up to :func:`drain_seconds` for the running hands to finish; a hand still running then
is cancelled at the node's next start, every chip back. With other live nodes, each table
moves, between hands, to the least loaded of them within the same limit, and a table that
could not move stays with this node for its next start. Either way the log says what the
stop waits for, how it goes every :data:`DRAIN_PROGRESS_SECONDS`, and how it ended
(docs/operations.md). The servers, lease and housekeeping around it are
:class:`~engine_server.server.EngineServer`'s to stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from engine_server.node import NodeLease
from engine_server.settings import EngineSettings
from engine_server.table.manager import TableManager
from engine_server.table.model import TableStatus

__all__ = ["DRAIN_PROGRESS_SECONDS", "STOP_GRACE", "GracefulStop", "drain_seconds"]

log = logging.getLogger("stud.engine")

#: a graceful stop's grace (seconds) for the gRPC calls in flight
STOP_GRACE = 5.0
#: how often a long drain says how it is going
DRAIN_PROGRESS_SECONDS = 5.0


def drain_seconds(grace: float = STOP_GRACE) -> float:
    """How long a graceful stop lets the running hands finish (30 s by default)."""
    return max(grace, 0.1) * 6


class GracefulStop:
    """The drain of one node's tables (``manager``) as the node stops."""

    def __init__(
        self, manager: TableManager, settings: EngineSettings, lease: NodeLease | None
    ) -> None:
        self.manager = manager
        self.settings = settings
        #: None when the directory has no node registry (no other node to hand tables to)
        self.lease = lease

    def _hands_running(self) -> int:
        return sum(1 for t in self.manager.tables.values() if t.hand_running)

    def _tables_here(self) -> int:
        return sum(1 for t in self.manager.tables.values() if t.status is not TableStatus.CLOSED)

    async def _others_live(self) -> bool:
        """Whether a clean stop should hand the tables over: another node is live (serving,
        its lease running) to take them, and the settings allow it."""
        if self.lease is None or not self.settings.stop_moves_tables or not self._tables_here():
            return False
        try:
            return await self.manager.least_loaded_node() is not None
        except Exception as error:  # the database cannot say: keep the tables, as before
            log.warning("stopping: could not look for other live nodes (%s)", error)
            return False

    async def drain(self, limit: float) -> None:
        """No new hands; wait up to ``limit`` seconds for the running ones, saying so. With
        other live nodes, each table moves to one of them between hands instead."""
        if await self._others_live():
            await self._hand_over(limit)
            return
        loop = asyncio.get_running_loop()
        began = loop.time()
        running = self._hands_running()
        if running:
            log.info(
                "draining: waiting up to %.0f s for %d running hand(s) to finish (no new hand "
                "starts; a hand still running then is cancelled at the next start, every "
                "chip back)",
                limit,
                running,
                extra={"hands_running": running, "drain_seconds": limit},
            )
        else:
            log.info("draining: no hand is running; stopping now")
        drain = asyncio.create_task(self.manager.drain(), name="drain")
        try:
            while True:
                left = limit - (loop.time() - began)
                done, _ = await asyncio.wait(
                    (drain,), timeout=max(0.0, min(DRAIN_PROGRESS_SECONDS, left))
                )
                if done:
                    tables, finished = drain.result()
                    if running:
                        log.info(
                            "drained in %.1f s: %d hand(s) finished",
                            loop.time() - began,
                            finished,
                            extra={"hands_finished": finished, "tables": tables},
                        )
                    return
                still = self._hands_running()
                if left <= 0:
                    log.warning(
                        "drain stopped after %.0f s with %d hand(s) still running: they are "
                        "cancelled at the next start (every chip put in goes back)",
                        limit,
                        still,
                        extra={"hands_running": still},
                    )
                    return
                log.info(
                    "draining: %d hand(s) still running, %.0f s left of %.0f s",
                    still,
                    max(left - DRAIN_PROGRESS_SECONDS, 0.0),
                    limit,
                    extra={"hands_running": still},
                )
        finally:
            if not drain.done():
                drain.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await drain

    async def _hand_over(self, limit: float) -> None:
        """A clean stop with other live nodes: every table moves, between hands, to the least
        loaded of them (the drain --move path), for up to ``limit`` seconds; a table that
        cannot move by then stays with this node for its next start (its running hand, if
        any, is cancelled then, every chip back), as a plain drain leaves it."""
        loop = asyncio.get_running_loop()
        began = loop.time()
        tables, running = self._tables_here(), self._hands_running()
        log.info(
            "stopping: moving %d table(s) to the other live nodes, each between hands "
            "(%d hand(s) running finish first), for up to %.0f s; a table still here then "
            "stays with node %s for its next start",
            tables,
            running,
            limit,
            self.settings.node_id,
            extra={"tables": tables, "hands_running": running, "drain_seconds": limit},
        )
        moving = asyncio.create_task(
            self.manager.drain_onto_others(kept=False), name="stop: hand over"
        )
        try:
            while True:
                left = limit - (loop.time() - began)
                done, _ = await asyncio.wait(
                    (moving,), timeout=max(0.0, min(DRAIN_PROGRESS_SECONDS, left))
                )
                if done:
                    try:
                        _, finished, moved = moving.result()
                    except Exception:
                        log.exception(
                            "stopping: the hand-over failed; the %d table(s) still here stay "
                            "with node %s for its next start",
                            self._tables_here(),
                            self.settings.node_id,
                        )
                        return
                    log.info(
                        "handed over in %.1f s: %d of %d table(s) moved to other nodes, "
                        "%d hand(s) finished first%s",
                        loop.time() - began,
                        moved,
                        tables,
                        finished,
                        "" if moved == tables else "; the rest stay here (no node took them)",
                        extra={"tables": tables, "tables_moved": moved, "hands_finished": finished},
                    )
                    return
                here, still = self._tables_here(), self._hands_running()
                if left <= 0:
                    log.warning(
                        "hand-over stopped after %.0f s: %d table(s) still here stay with node "
                        "%s for its next start (%d hand(s) still running are cancelled then, "
                        "every chip put in goes back)",
                        limit,
                        here,
                        self.settings.node_id,
                        still,
                        extra={"tables_left": here, "hands_running": still},
                    )
                    return
                log.info(
                    "moving tables: %d table(s) still here, %d hand(s) running, %.0f s left "
                    "of %.0f s",
                    here,
                    still,
                    max(left - DRAIN_PROGRESS_SECONDS, 0.0),
                    limit,
                    extra={"tables_left": here, "hands_running": still},
                )
        finally:
            if not moving.done():
                moving.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await moving
