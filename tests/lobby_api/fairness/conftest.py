"""Fixtures: migrated SQLite and PostgreSQL databases, the store, and the test app."""

from tests.lobby_api.history.support import (  # noqa: F401  (fixtures)
    client,
    database_url,
    db_engine,
    postgres_url,
    sqlite_url,
    store,
)
