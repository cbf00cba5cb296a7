"""The rate limits' counters: one fixed window per limited thing and client; the failed
log-ins of each account.

>>> RateLimitRow.__tablename__, LoginFailureRow.__tablename__
('rate_limits', 'login_failures')
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from engine_server.store import metadata as _metadata  # noqa: F401  (naming convention first)

__all__ = ["ACCOUNT_LENGTH", "BUCKET_LENGTH", "LoginFailureRow", "RateLimitRow"]

BUCKET_LENGTH = 160
ACCOUNT_LENGTH = 64


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


class LoginFailureRow(SQLModel, table=True):
    """The failed log-ins of one account, shared by every lobby replica.

    ``account`` is the username as log-ins give it, lower-cased (names are unique regardless
    of case), whether or not such an account exists: an unknown name is treated alike, so
    the answers tell nothing about which names exist. ``failures`` counts the attempts since
    the last success (an attempt counts as it starts; a success deletes the row), and no
    attempt is taken before ``locked_until``. Times are milliseconds since the Unix epoch;
    rows quiet for long are deleted by the lobby's sweep.
    """

    __tablename__ = "login_failures"
    __table_args__ = (sa.Index("ix_login_failures_last_failure", "last_failure"),)

    account: str = Field(primary_key=True, max_length=ACCOUNT_LENGTH)
    failures: int = Field(sa_type=sa.BigInteger)
    locked_until: int = Field(sa_type=sa.BigInteger)
    last_failure: int = Field(sa_type=sa.BigInteger)
