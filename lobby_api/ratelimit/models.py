"""The rate limits' counters: one fixed window per limited thing and client.

>>> RateLimitRow.__tablename__
'rate_limits'
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from engine_server.store import metadata as _metadata  # noqa: F401  (naming convention first)

__all__ = ["BUCKET_LENGTH", "RateLimitRow"]

BUCKET_LENGTH = 160


class RateLimitRow(SQLModel, table=True):
    """``hits`` requests of ``bucket`` in the window that ends at ``window_ends``.

    ``bucket`` says what is limited and for whom (``login:203.0.113.7``,
    ``money:p-…``). A window opens with the first request after the last one
    ended and lasts the limit's period; times are milliseconds since the Unix
    epoch (whole numbers compare alike on every database). Rows of windows long
    over are deleted by the lobby's sweep.
    """

    __tablename__ = "rate_limits"
    __table_args__ = (sa.Index("ix_rate_limits_window_ends", "window_ends"),)

    bucket: str = Field(primary_key=True, max_length=BUCKET_LENGTH)
    hits: int = Field(sa_type=sa.BigInteger)
    window_ends: int = Field(sa_type=sa.BigInteger)
