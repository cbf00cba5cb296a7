"""The player account."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from engine_server.store import metadata as _metadata  # noqa: F401  (naming convention first)
from engine_server.store.types import UTCDateTime

__all__ = ["PlayerRow"]


class PlayerRow(SQLModel, table=True):
    """A player: ``id`` (``p-…``) is what tokens, wallets and the engine's seats name.

    ``username`` keeps the spelling chosen at registration; ``username_key`` (its
    lower-case form) is unique, so names are unique regardless of case.
    """

    __tablename__ = "players"

    id: str = Field(primary_key=True, max_length=64)
    username: str = Field(max_length=32)
    username_key: str = Field(max_length=32, unique=True)
    #: argon2id (argon2-cffi's PasswordHasher), parameters encoded in the hash.
    password_hash: str = Field(max_length=255)
    city: str = Field(foreign_key="cities.id", max_length=32, index=True)
    created_at: datetime = Field(sa_type=UTCDateTime)
