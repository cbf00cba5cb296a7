"""Page tokens on SQLite and PostgreSQL: a token continues only the listing it came from.

Every test runs once per backend (see conftest.py) on a freshly migrated database.
"""

from __future__ import annotations

import pytest

from engine_server.store.errors import InvalidPageToken
from engine_server.store.repository import EngineStore

from .support import new_table


async def test_page_tokens_are_checked(store: EngineStore) -> None:
    for i in range(3):
        await new_table(store, f"req-{i}")
    page = await store.tables.list_tables(page_size=1)
    with pytest.raises(InvalidPageToken, match="other filters"):
        await store.tables.list_tables(
            page_size=1, page_token=page.next_page_token, statuses=["closed"]
        )
    for garbage in ("!!!", "eyJ4IjoxfQ", page.next_page_token[:-3]):
        with pytest.raises(InvalidPageToken):
            await store.tables.list_tables(page_token=garbage)
    with pytest.raises(InvalidPageToken):
        await store.sessions.list_sessions(page_token=page.next_page_token)
