"""What the suite does when the local PostgreSQL cannot be reached.

On a developer's machine the PostgreSQL cases are skipped, with the reason. In CI (``CI=true``)
they fail instead: ``scripts/test`` starts the server there, so a missing PostgreSQL is a broken
setup, and a silently skipped half of the database tests would pass it off as green.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

__all__ = ["postgres_unreachable"]


def postgres_unreachable(url: str, error: BaseException) -> NoReturn:
    """Skip the current test (fail it under ``CI=true``): PostgreSQL at ``url`` is not there."""
    message = f"PostgreSQL not reachable at {url}: {error}"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message} (CI=true: the PostgreSQL tests may not be skipped)", pytrace=False)
    pytest.skip(message)
