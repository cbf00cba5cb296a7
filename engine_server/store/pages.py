"""Listings one page at a time, keyed on the last row (AIP-158).

A page token is opaque to the caller: the sort key of the page's last row and a fingerprint
of the listing's filters, so rows added meanwhile never shift later pages and a token only
continues the listing it came from.

>>> token = encode_token(("2025-01-01T12:00:00+00:00", "t-1"), ["tables"])
>>> decode_token(token, ["tables"])
(datetime.datetime(2025, 1, 1, 12, 0, tzinfo=datetime.timezone.utc), 't-1')
>>> decode_token(token, ["sessions"])
Traceback (most recent call last):
...
engine_server.store.errors.InvalidPageToken: the page token belongs to a listing with other filters
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

from engine_server.store.errors import InvalidPageToken, StoreError

__all__ = ["Page", "clamp", "decode_token", "encode_token", "page_of"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a listing; pass ``next_page_token`` back for the next ("" on the last)."""

    items: list[T]
    next_page_token: str


def clamp(page_size: int, default: int, maximum: int) -> int:
    """The page size to use: ``default`` for 0, at most ``maximum``."""
    if page_size < 0:
        raise StoreError(f"page_size must not be negative, not {page_size}")
    return min(page_size or default, maximum)


def page_of(
    rows: list[T], size: int, filters: object, key: Callable[[T], tuple[str, str]]
) -> Page[T]:
    """The page of ``rows`` (fetched ``size + 1``: one more tells whether a next page exists)."""
    if len(rows) <= size:
        return Page(rows, "")
    rows = rows[:size]
    return Page(rows, encode_token(key(rows[-1]), filters))


def encode_token(key: Sequence[str], filters: object) -> str:
    payload = {"k": list(key), "f": _fingerprint(filters)}
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_token(token: str, filters: object) -> tuple[datetime, str]:
    """The sort key a token continues after (``InvalidPageToken``: malformed, or another
    listing's)."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        payload = json.loads(raw)
        stamp, row_id = payload["k"]
        when = datetime.fromisoformat(stamp)
        fingerprint = payload["f"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        raise InvalidPageToken(f"malformed page token {token!r}") from None
    if fingerprint != _fingerprint(filters) or when.tzinfo is None or not isinstance(row_id, str):
        # A token only continues the listing it came from (AIP-158).
        raise InvalidPageToken("the page token belongs to a listing with other filters")
    return when, row_id


def _fingerprint(filters: object) -> str:
    text = json.dumps(filters, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
