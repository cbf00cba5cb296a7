"""Column types shared by the store's models.

Timestamps are always aware UTC datetimes in Python. PostgreSQL keeps them as
``timestamptz``; SQLite has no time zone type, so :class:`UTCDateTime` stores
the UTC wall clock there and puts ``tzinfo=UTC`` back when reading:

>>> from datetime import datetime, timedelta, timezone
>>> kind = UTCDateTime()
>>> paris = timezone(timedelta(hours=1))
>>> kind.process_bind_param(datetime(2025, 1, 1, 13, 0, tzinfo=paris), None)
datetime.datetime(2025, 1, 1, 12, 0, tzinfo=datetime.timezone.utc)
>>> kind.process_result_value(datetime(2025, 1, 1, 12, 0), None)
datetime.datetime(2025, 1, 1, 12, 0, tzinfo=datetime.timezone.utc)
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

__all__ = ["UTCDateTime", "utc_now"]


def utc_now() -> datetime:
    """The current time as an aware UTC datetime.

    >>> utc_now().tzinfo is UTC
    True
    """
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """``DateTime(timezone=True)`` that refuses naive datetimes and returns aware UTC ones."""

    impl = DateTime
    cache_ok = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(timezone=True)

    def process_bind_param(
        self, value: datetime | None, dialect: Dialect | None
    ) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            # A naive datetime is ambiguous; guessing its zone would corrupt the record.
            raise ValueError(f"naive datetime {value!r}: store aware UTC datetimes")
        return value.astimezone(UTC)

    def process_result_value(
        self, value: datetime | None, dialect: Dialect | None
    ) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)
