"""The table runtime's persistence ports over the aggregates' stores (:class:`EngineStore`).

:class:`StoreTables` turns rows into the runtime's values and store refusals
into :class:`~engine_server.table.errors.TableError` with the same reasons, and queues
the writes on SQLite.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from engine_server.store.database import create_engine_for, is_sqlite
from engine_server.store.migrate import prepare_database
from engine_server.store.models import DEFAULT_NODE_ID
from engine_server.store.node_writes import OnTableMoved
from engine_server.store.nodes import NodeRegistry
from engine_server.store.recovery import RECOVERY_REASON
from engine_server.store.repository import EngineStore
from engine_server.store.table_directory import TableDirectoryAdapter
from engine_server.store.table_store import TableStoreAdapter

__all__ = ["RECOVERY_REASON", "OnTableMoved", "StoreTables", "open_store"]


class StoreTables(TableStoreAdapter, TableDirectoryAdapter):
    """Both ports the table layer needs: ``TableStore`` (runtime) and ``TableDirectory``.

    The directory is one node's (``node_id``): the tables it creates are that node's, and it
    loads, recovers and lists only that node's tables.
    """


async def open_store(
    url: str, node_id: str = DEFAULT_NODE_ID
) -> tuple[StoreTables, StoreTables, Callable[[], Awaitable[None]]]:
    """Migrate the database at ``url`` to this code's schema and open it for node
    ``node_id``.

    Raises :class:`~engine_server.store.migrate.SchemaTooNew` for a newer database.
    """
    await prepare_database(url)
    store = EngineStore(create_engine_for(url))
    tables = StoreTables(store, one_writer=is_sqlite(url), node_id=node_id)
    # The lease's renewals on connections of their own: on a busy node every pooled connection
    # can be in a table write at once, and a renewal queued behind them for a connection would
    # let the lease run out (the node would stop, and its tables be taken over).
    lease_engine = create_engine_for(url, pool_size=2, max_overflow=0)
    tables.registry = NodeRegistry(lease_engine)

    async def close() -> None:
        await store.dispose()
        await lease_engine.dispose()

    return tables, tables, close
