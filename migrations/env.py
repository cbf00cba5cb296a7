"""Alembic environment: the one migration history of the one database.

The database is ``config.attributes["url"]`` when run from code
(:mod:`engine_server.store.migrate`), else ``$STUD_DATABASE_URL``, else the
default SQLite file ``./var/stud.sqlite3``. Plain ``sqlite:///`` and
``postgresql://`` URLs are fine: the async driver is chosen for them.

Autogenerate compares the database with ``SQLModel.metadata`` as filled by
every module in ``MODEL_MODULES``; the lobby adds its models module there. Runs
from code that only upgrade set ``config.attributes["load_models"] = False``
so that the engine, applying the history at start-up, never imports the
lobby's code.
"""

from __future__ import annotations

import asyncio
import importlib
from logging.config import fileConfig
from typing import Any

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy import MetaData, text
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from engine_server.store.database import (
    WRITE_OPTIONS,
    create_engine_for,
    database_url,
    is_sqlite,
)
from engine_server.store.types import UTCDateTime

#: Every module that defines tables of this database (the lobby appends its own).
MODEL_MODULES: tuple[str, ...] = ("engine_server.store.models", "lobby_api.models")

#: The advisory lock taken while migrating PostgreSQL (any constant shared by all nodes).
_LOCK_KEY = 0x5354_5544  # "STUD"

config = context.config

# Only the `alembic` command line configures logging; code calling Alembic keeps its own.
if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _target_metadata() -> MetaData | None:
    if not config.attributes.get("load_models", True):
        return None
    for module in MODEL_MODULES:
        importlib.import_module(module)
    return SQLModel.metadata


def _url() -> str:
    url = config.attributes.get("url") or config.get_main_option("sqlalchemy.url")
    return str(url) if url else database_url()


def _render_item(kind: str, obj: Any, autogen_context: AutogenContext) -> str | bool:
    # Migrations stay free of project imports: a UTCDateTime column is a timestamptz.
    if kind == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _configure_kwargs() -> dict[str, Any]:
    return {
        "target_metadata": _target_metadata(),
        # SQLite cannot ALTER most things: batch mode recreates the table instead.
        "render_as_batch": True,
        "compare_type": True,
        "compare_server_default": True,
        "render_item": _render_item,
    }


def run_migrations_offline() -> None:
    """Emit the SQL to stdout (``alembic upgrade head --sql``)."""
    context.configure(
        url=_url(),
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        **_configure_kwargs(),
    )
    with context.begin_transaction():
        context.run_migrations()


def _run_sync(connection: Connection) -> None:
    # SQLAlchemy emits BEGIN on SQLite too (engine_server.store.database), so its DDL is
    # transactional: a failed upgrade leaves the database as it was.
    context.configure(connection=connection, transactional_ddl=True, **_configure_kwargs())
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Two nodes starting at once: the second waits here, then sees the first's work.
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
        context.run_migrations()
    if connection.dialect.name == "sqlite":
        # Foreign keys are off while migrating (batch mode copies tables): check them after.
        broken = connection.execute(text("PRAGMA foreign_key_check")).all()
        if broken:
            raise RuntimeError(f"foreign keys broken by the migration: {broken[:10]}")


async def run_migrations_online() -> None:
    """Migrate the database through the async driver."""
    url = _url()
    engine = create_engine_for(url, foreign_keys=not is_sqlite(url), null_pool=True)
    try:
        # BEGIN IMMEDIATE on SQLite: concurrent migrators queue instead of interleaving.
        async with engine.connect() as connection:
            connection = await connection.execution_options(**WRITE_OPTIONS)
            await connection.run_sync(_run_sync)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_migrations_online())
