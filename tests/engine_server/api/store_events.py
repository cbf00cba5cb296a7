"""SQLAlchemy events of a running engine's store, listened to for the length of a block."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from tests.engine_server.api.conftest import Engine

__all__ = ["store_events"]


@contextmanager
def store_events(engine: Engine, **listeners: Callable[..., Any]) -> Iterator[None]:
    """``listeners`` (an event's name, ``before_cursor_execute``, ``commit``, …: its function)
    on the engine's store while the block runs."""
    database = engine.server.manager._store.store.engine.sync_engine  # type: ignore[attr-defined]
    for name, listener in listeners.items():
        event.listen(database, name, listener)
    try:
        yield
    finally:
        for name, listener in listeners.items():
            event.remove(database, name, listener)
