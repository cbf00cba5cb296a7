"""Random, prefixed ids for the rows the engine and the lobby create.

One helper for both sides, so that every id in the database has the same shape: a short
prefix that names the kind of thing (``t`` a table, ``ss`` a seat session, ``tk`` a ticket …),
a dash, and random hex from :mod:`secrets` (so ids cannot be guessed from each other).

>>> table_id = new_id("t")
>>> table_id.startswith("t-"), len(table_id)
(True, 18)
>>> len(new_id("ss", size=12))
27
"""

from __future__ import annotations

import secrets

__all__ = ["new_id"]


def new_id(prefix: str, size: int = 8) -> str:
    """A fresh id: ``prefix``, a dash and ``size`` random bytes as hex."""
    return f"{prefix}-{secrets.token_hex(size)}"
