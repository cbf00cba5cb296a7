"""Bring a database to this code's schema with the project's Alembic history.

The engine calls :func:`check_schema` (or, from async code,
:func:`prepare_database`) at start-up: an empty database is created, an older
one is upgraded, and one migrated by *newer* code — an ``alembic_version``
this code does not know — is refused with :class:`SchemaTooNew` rather than
run against a schema it does not understand.

Alembic's ``env.py`` is asynchronous and runs its own event loop, so these
functions are synchronous and must not be called on a thread whose event loop
is running; :func:`prepare_database` runs them on a worker thread.

>>> len(head_revisions())  # one history: one head
1
>>> "0001" in _known_revisions()  # the engine's tables
True
"""

from __future__ import annotations

import asyncio
import importlib.resources
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import URL, Connection

from engine_server.store.database import create_engine_for

__all__ = [
    "MIGRATIONS_DIR",
    "MIGRATIONS_PACKAGE",
    "SchemaStatus",
    "SchemaTooNew",
    "alembic_config",
    "check_schema",
    "current_revisions",
    "head_revisions",
    "prepare_database",
    "upgrade_to_head",
]

# Alembic keeps its running environment in module globals: one migration per process at a
# time. (Between processes, env.py serialises on the database itself.)
_ALEMBIC_LOCK = threading.Lock()

#: The importable name of the history in an installed package (setup.py maps the top-level
#: ``migrations/`` folder to it).
MIGRATIONS_PACKAGE: Final = "engine_server.migrations"


def _migrations_dir() -> Path:
    """Where the history is: the installed package's copy (found through importlib.resources,
    wherever it is installed), else the checkout's ``migrations/`` folder (a checkout whose
    editable install predates the mapping, or run from the sources without installing)."""
    try:
        located = importlib.resources.files(MIGRATIONS_PACKAGE)
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "migrations"
    if not isinstance(located, Path):
        # Alembic reads and writes a directory of files (not, e.g., a zip archive's entries).
        raise RuntimeError(f"{MIGRATIONS_PACKAGE} must be installed as files, not {located!r}")
    return located


#: The project's one migration history (``migrations/`` at the repository root).
MIGRATIONS_DIR: Final = _migrations_dir()


class SchemaTooNew(RuntimeError):
    """The database was migrated by newer code: its revision is unknown here."""

    def __init__(self, found: tuple[str, ...], heads: tuple[str, ...]) -> None:
        self.found = found
        self.heads = heads
        super().__init__(
            f"the database is at revision {', '.join(found)}, which this code does not know "
            f"(its newest is {', '.join(heads)}): it was migrated by a newer version; "
            "run that version (or newer) instead — refusing to touch it"
        )


@dataclass(frozen=True, slots=True)
class SchemaStatus:
    """What :func:`check_schema` found and did."""

    #: The revisions the database was at (empty: a new database).
    found: tuple[str, ...]
    #: This code's head revisions (where the database is now unless ``upgrade`` was False).
    heads: tuple[str, ...]
    #: Whether migrations were applied.
    upgraded: bool

    @property
    def up_to_date(self) -> bool:
        """Whether the database was already at head before the call."""
        return set(self.found) == set(self.heads)


def alembic_config(url: str | URL | None = None, *, load_models: bool = False) -> Config:
    """An Alembic config for ``migrations/`` aimed at ``url`` (None: ``$STUD_DATABASE_URL``).

    ``load_models=False`` (the default) keeps ``env.py`` from importing model modules, which
    only autogenerate needs: the engine never imports the lobby's code.
    """
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    config.set_main_option("path_separator", "os")
    if url is not None:
        config.attributes["url"] = url if isinstance(url, str) else url.render_as_string(False)
    config.attributes["load_models"] = load_models
    config.attributes["configure_logging"] = False
    return config


def head_revisions() -> tuple[str, ...]:
    """The head revisions of the history (one unless it has branches)."""
    return tuple(sorted(ScriptDirectory.from_config(alembic_config()).get_heads()))


def _known_revisions() -> frozenset[str]:
    script = ScriptDirectory.from_config(alembic_config())
    return frozenset(rev.revision for rev in script.walk_revisions())


def current_revisions(url: str | URL) -> tuple[str, ...]:
    """The revisions recorded in the database's ``alembic_version`` (empty when none)."""
    _refuse_in_event_loop("current_revisions")

    def read(connection: Connection) -> tuple[str, ...]:
        return tuple(sorted(MigrationContext.configure(connection).get_current_heads()))

    async def run() -> tuple[str, ...]:
        engine = create_engine_for(url, null_pool=True)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(read)
        finally:
            await engine.dispose()

    return asyncio.run(run())


def check_schema(url: str | URL, *, upgrade: bool = True) -> SchemaStatus:
    """Refuse a database newer than this code; bring an empty or older one to head.

    Raises :class:`SchemaTooNew` when the database's revision is not in this code's history.
    With ``upgrade=False`` nothing is changed: the status tells whether it is up to date.
    """
    _refuse_in_event_loop("check_schema")
    with _ALEMBIC_LOCK:
        found = current_revisions(url)
        heads = head_revisions()
        unknown = set(found) - _known_revisions()
        if unknown:
            raise SchemaTooNew(found, heads)
        if set(found) == set(heads) or not upgrade:
            return SchemaStatus(found=found, heads=heads, upgraded=False)
        command.upgrade(alembic_config(url), "heads")
        return SchemaStatus(found=found, heads=heads, upgraded=True)


def upgrade_to_head(url: str | URL) -> SchemaStatus:
    """Apply every migration the database lacks (refusing one newer than this code)."""
    return check_schema(url, upgrade=True)


async def prepare_database(url: str | URL, *, upgrade: bool = True) -> SchemaStatus:
    """:func:`check_schema` from async code: runs it on a worker thread."""
    return await asyncio.to_thread(check_schema, url, upgrade=upgrade)


def _refuse_in_event_loop(name: str) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(f"{name}() runs its own event loop: from async code use prepare_database()")
