"""Persistence of the engine: SQLModel tables, one store per aggregate, and migrations.

- :mod:`~engine_server.store.models`: the tables (on the shared ``SQLModel.metadata``,
  named by :mod:`~engine_server.store.metadata`'s convention);
- :mod:`~engine_server.store.database`: async engines for SQLite and PostgreSQL;
- :mod:`~engine_server.store.migrate`: the Alembic history applied from code;
- :mod:`~engine_server.store.repository`: :class:`EngineStore`, the aggregates' stores on one
  engine: :mod:`~engine_server.store.tables`, :mod:`~engine_server.store.seeds`,
  :mod:`~engine_server.store.sessions`, :mod:`~engine_server.store.hands` and
  :mod:`~engine_server.store.nodes`, over :mod:`~engine_server.store.base` (transactions, the
  epoch fence, the table-first locks);
- :mod:`~engine_server.store.adapter`: the table runtime's ports over them;
- :mod:`~engine_server.store.errors`: why a call was refused.

Importing this package imports the models; it never imports the lobby.
"""

from __future__ import annotations

from engine_server.store.database import create_engine_for, database_url, default_database_url
from engine_server.store.errors import StoreError
from engine_server.store.hands import HandSeat
from engine_server.store.migrate import (
    SchemaTooNew,
    check_schema,
    prepare_database,
    upgrade_to_head,
)
from engine_server.store.pages import Page
from engine_server.store.repository import EngineStore
from engine_server.store.seeds import SeedRotation
from engine_server.store.tables import OpenTable

__all__ = [
    "EngineStore",
    "HandSeat",
    "OpenTable",
    "Page",
    "SchemaTooNew",
    "SeedRotation",
    "StoreError",
    "check_schema",
    "create_engine_for",
    "database_url",
    "default_database_url",
    "prepare_database",
    "upgrade_to_head",
]
