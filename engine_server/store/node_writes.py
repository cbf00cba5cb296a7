"""What both adapters of one node share: its stores, its queue of writes (one writer at a time
on SQLite), its write fence, and the notice of a table that changed hands.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from engine_server.store import errors as store_errors
from engine_server.store.models import DEFAULT_NODE_ID
from engine_server.store.nodes import WriteFence
from engine_server.store.repository import EngineStore
from engine_server.table.errors import ErrorKind, TableError
from engine_server.table.model import LastHand

__all__ = ["NodeWrites", "OnTableMoved"]

#: told when a write found its table taken over or moved: (table id, its owner now)
OnTableMoved = Callable[[str, str], None]


class NodeWrites:
    """One node's (``node_id``) access to the stores, shared by its two adapters."""

    def __init__(
        self, store: EngineStore, *, one_writer: bool = False, node_id: str = DEFAULT_NODE_ID
    ) -> None:
        self.store = store
        self.node_id = node_id
        #: the node registry on the same database (engine_server.node claims the node there)
        self.registry = store.nodes
        # SQLite takes one writer at a time. Left to SQLite, concurrent writers (one per table
        # starting or finishing a hand) poll its lock with growing sleeps while the holder
        # waits on this busy loop: under load the wait passed the busy timeout and writes
        # failed with "database is locked". Queued here, each starts as the last one ends.
        self._writes: contextlib.AbstractAsyncContextManager[Any] = (
            asyncio.Lock() if one_writer else contextlib.nullcontext()
        )
        #: told when a write finds its table changed hands (the manager stops serving it)
        self.on_table_moved: OnTableMoved | None = None
        #: the hands recovery ended (a crash's, a takeover's), by table, until the table is
        #: loaded: its streams are told (the directory's)
        self._ended_on_load: dict[str, LastHand] = {}

    @asynccontextmanager
    async def _owned(self) -> AsyncIterator[None]:
        """A table write: one refused because the table changed hands since it was loaded
        here (``TableMoved``) tells :attr:`on_table_moved` and becomes ``UNAVAILABLE`` /
        ``TABLE_MOVED`` naming the owner (metadata ``node``)."""
        try:
            yield
        except store_errors.TableMoved as error:
            if self.on_table_moved is not None and error.table_id:
                self.on_table_moved(error.table_id, error.owner)
            raise TableError(
                ErrorKind.UNAVAILABLE,
                "TABLE_MOVED",
                str(error),
                table=f"tables/{error.table_id}",
                node=error.owner,
            ) from None

    def fence_writes(self, epoch: int, on_stale: Callable[[str], None]) -> None:
        """Refuse every table write once the node's epoch is no longer ``epoch`` (another
        process claimed the node); ``on_stale(reason)`` at the first refusal. Each table's
        writes are refused, too, once the table changed hands since it was loaded here."""
        self.store.tx.fence = WriteFence(self.node_id, epoch, on_stale)

    def _hold(self, table_id: str, owner_epoch: int) -> None:
        fence = self.store.tx.fence
        if fence is not None:
            fence.hold(table_id, owner_epoch)

    def _release(self, table_id: str) -> None:
        fence = self.store.tx.fence
        if fence is not None:
            fence.release(table_id)
