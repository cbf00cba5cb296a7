"""The one SQLAlchemy ``MetaData`` of the database, with its naming convention.

Every table of the project — the engine's here, the lobby's later — lives on
``SQLModel.metadata`` so that one Alembic history covers one database. The
naming convention gives every constraint and index a deterministic name:
Alembic can only alter or drop what it can name, and SQLite's batch mode
recreates tables by those names.

The convention is attached when a constraint is created, so this module must
be imported before any table model is defined (``engine_server.store.models``
does so; a lobby models module should import it first as well).

>>> from sqlmodel import SQLModel
>>> SQLModel.metadata.naming_convention["pk"]
'pk_%(table_name)s'
>>> metadata is SQLModel.metadata
True
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import MetaData
from sqlmodel import SQLModel

__all__ = ["NAMING_CONVENTION", "metadata"]

NAMING_CONVENTION: Final[dict[str, str]] = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SQLModel.metadata.naming_convention = NAMING_CONVENTION

#: The shared metadata (``SQLModel.metadata``), convention applied.
metadata: Final[MetaData] = SQLModel.metadata
