"""The refresh tokens of the players' sessions.

>>> RefreshTokenRow.__tablename__
'refresh_tokens'
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from engine_server.store import metadata as _metadata  # noqa: F401  (naming convention first)

__all__ = ["RefreshTokenRow"]


class RefreshTokenRow(SQLModel, table=True):
    """One refresh token of a session (a family of tokens, each replacing the one before).

    Only the token's SHA-256 is kept (``token_hash``, hex): the token itself is 256 random
    bits, so its hash cannot be inverted, and a copy of the database opens no session.
    ``session_id`` names the family: a log-in starts one, each refresh adds the next token to
    it and retires the one presented (``retired_at``). A retired token presented again means
    two holders of one token, so the whole family is revoked (``revoked``, with why in
    ``revoked_reason``: ``reuse``, ``logout`` or ``password_change``). Times are milliseconds
    since the Unix epoch; rows long expired are deleted by the lobby's sweep.
    """

    __tablename__ = "refresh_tokens"
    __table_args__ = (sa.Index("ix_refresh_tokens_expires_at", "expires_at"),)

    token_hash: str = Field(primary_key=True, max_length=64)
    session_id: str = Field(max_length=64, index=True)
    player_id: str = Field(foreign_key="players.id", max_length=64, index=True)
    issued_at: int = Field(sa_type=sa.BigInteger)
    expires_at: int = Field(sa_type=sa.BigInteger)
    retired_at: int | None = Field(default=None, sa_type=sa.BigInteger)
    revoked: bool = Field(default=False)
    revoked_reason: str | None = Field(default=None, max_length=32)
