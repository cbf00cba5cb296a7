"""Seed pairs on SQLite and PostgreSQL: rotation between hands, reveal on close.

Every test runs once per backend (see conftest.py) on a freshly migrated database.
"""

from __future__ import annotations

import hashlib

import pytest

from engine_server.game.fairness import derive_deck
from engine_server.store.errors import HandInProgress, StoreError
from engine_server.store.repository import EngineStore

from .support import finish_kwargs, new_table, seat, start


async def test_rotate_seed_reveals_and_advances(store: EngineStore) -> None:
    table = await new_table(store)
    s1, s2 = await seat(store, table.id, 1), await seat(store, table.id, 2)
    old = await store.seeds.current_seed_pair(table.id)
    upcoming = await store.seeds.next_seed_pair(table.id)
    hand = await start(store, table, 1, [s1, s2])
    with pytest.raises(HandInProgress):
        await store.seeds.rotate_seed(table.id, "carol")
    await store.hands.finish_hand(hand.id, **finish_kwargs({s1.id: 200, s2.id: 200}))

    revealed, current, following = await store.seeds.rotate_seed(table.id, "carol")
    assert (revealed.id, revealed.state, revealed.next_nonce) == (old.id, "retired", 1)
    assert revealed.revealed_at is not None
    assert revealed.dealer_seed == old.dealer_seed
    assert (current.id, current.state, current.client_seed) == (upcoming.id, "current", "carol")
    assert current.commitment == upcoming.commitment and current.revealed_at is None
    assert (following.state, following.ordinal, following.revealed_at) == ("next", 3, None)
    assert following.commitment == hashlib.sha256(following.dealer_seed.encode()).hexdigest()
    assert (await store.tables.get_table(table.id)).current_seed_pair_id == current.id
    # The revealed seed proves the dealt hand: its commitment matches what the hand recorded.
    assert hashlib.sha256(revealed.dealer_seed.encode()).hexdigest() == hand.commitment
    assert len(derive_deck(revealed.dealer_seed, hand.client_seed, hand.nonce)) == 52

    second = await start(store, table, 2, [s1, s2])
    assert (second.seed_pair_id, second.nonce, second.client_seed) == (current.id, 0, "carol")
    await store.hands.cancel_hand(second.id, "x")
    # Without a new client seed the current one carries over.
    _, newer, _ = await store.seeds.rotate_seed(table.id)
    assert (newer.id, newer.client_seed) == (following.id, "carol")
    states = [
        (p.ordinal, p.state, p.revealed_at is not None)
        for p in await store.seeds.seed_pairs(table.id)
    ]
    assert states == [
        (1, "retired", True),
        (2, "retired", True),
        (3, "current", False),
        (4, "next", False),
    ]
    with pytest.raises(StoreError, match="client_seed"):
        await store.seeds.rotate_seed(table.id, "bad seed")


async def test_reveal_on_close_once_the_table_is_closing(store: EngineStore) -> None:
    table = await new_table(store)
    await store.tables.set_table_status(table.id, "closing")
    pair = await store.seeds.reveal_on_close(table.id)
    assert pair.revealed_at is not None and pair.state == "current"
