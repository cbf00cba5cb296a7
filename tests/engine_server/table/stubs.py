"""A table runtime without a database: a store that only numbers hands, and queue draining."""

from __future__ import annotations

from typing import Any

from engine_server.table.broadcast import Update, Watcher
from engine_server.table.ports import StartedHand

__all__ = ["HandCountingStore", "drain"]


class HandCountingStore:
    """Just enough store for hands to start and finish."""

    hands = 0

    async def start_hand(self, *args: Any, **kwargs: Any) -> StartedHand:
        self.hands += 1
        return StartedHand(f"h{self.hands}", self.hands)

    async def record_actions(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def finish_hand(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def set_table_status(self, *args: Any) -> None:
        return None


def drain(watcher: Watcher) -> list[Update]:
    """Every update waiting in ``watcher``'s queue."""
    updates = []
    while not watcher.queue.empty():
        item = watcher.queue.get_nowait()
        assert isinstance(item, Update)
        updates.append(item)
    return updates
