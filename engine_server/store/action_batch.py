"""A group commit of hands' actions: those taken in one turn of the event loop, one write.

Every table of a node records its players' actions before it tells anyone of them
(:meth:`engine_server.table.ports.TableStore.record_actions`). One transaction per action
would cost a commit (and, on PostgreSQL, a round trip) per action; instead the actions handed
in during one turn of the loop wait for one write, started at the next turn, and every table
that handed some in awaits it. Actions handed in while a write runs go in the next one, which
starts when it ends: under load a batch grows, and the commits per second stay bounded.

A table awaits its write before its next command runs, so a hand's actions reach the store in
order. A failed write fails every waiter of its batch (nobody was told of those actions);
written again, an action already stored changes nothing (:mod:`engine_server.store.hand_actions`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from engine_server.store.hand_actions import HandAction

__all__ = ["ActionBatcher"]


class ActionBatcher:
    """Collects actions and writes them with ``write``, a batch per turn of the loop."""

    def __init__(self, write: Callable[[list[HandAction]], Awaitable[object]]) -> None:
        self._write = write
        self._pending: list[HandAction] = []
        #: the pending batch's outcome (None: nothing is pending)
        self._done: asyncio.Future[None] | None = None
        #: a write runs, or is due at the next turn of the loop
        self._busy = False
        self._task: asyncio.Task[None] | None = None
        #: batches written and actions in them (for tests and metrics)
        self.batches = 0
        self.actions = 0

    async def record(self, actions: list[HandAction]) -> None:
        """Return once ``actions`` are stored; raise what the write raised when it failed."""
        if not actions:
            return
        self._pending.extend(actions)
        done = self._done
        if done is None:
            loop = asyncio.get_running_loop()
            done = self._done = loop.create_future()
            if not self._busy:
                self._busy = True
                loop.call_soon(self._start)
        # A waiter cancelled (its call timed out) leaves the batch to the others.
        await asyncio.shield(done)

    def _start(self) -> None:
        batch, done = self._pending, self._done
        self._pending, self._done = [], None
        assert done is not None
        # Held here: the loop keeps only a weak reference to a task.
        self._task = asyncio.get_running_loop().create_task(self._flush(batch, done))

    async def _flush(self, batch: list[HandAction], done: asyncio.Future[None]) -> None:
        try:
            await self._write(batch)
        except asyncio.CancelledError:
            done.cancel()  # the node is stopping
            raise
        except Exception as error:
            done.set_exception(error)
        else:
            self.batches += 1
            self.actions += len(batch)
            done.set_result(None)
        finally:
            if self._done is not None:
                # Handed in while this write ran: the next write, now.
                self._start()
            else:
                self._busy = False
                self._task = None
