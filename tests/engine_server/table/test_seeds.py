"""Seed rules on a table state: the pair rotates between hands, the dealer seed revealed."""

from __future__ import annotations

from engine_server.table.events import SeedRotated
from engine_server.table.model import SeedPair, TableStatus
from engine_server.table.ports import RevealedPair
from engine_server.table.rules import seeds
from tests.engine_server.table.states import deal, refused, seat, table_state


def test_the_seed_pair_rotates_only_between_hands_at_an_open_table() -> None:
    state = table_state(seat(1), seat(2))
    seeds.check_rotation(state)
    deal(state)
    assert refused(seeds.check_rotation, state) == "HAND_IN_PROGRESS"
    closed = table_state(status=TableStatus.CLOSED)
    assert refused(seeds.check_rotation, closed) == "TABLE_CLOSED"


def test_a_rotation_reveals_the_old_pair_and_deals_from_the_new_one() -> None:
    state = table_state(seat(1), seat(2))
    old = RevealedPair("s1", "0" * 64, "c" * 64, "client", 7)
    new = SeedPair("s2", "1" * 64, "e" * 64, "mine", 0, "f" * 64)
    event = seeds.rotated(state, old, new)
    assert event == SeedRotated("0" * 64, "c" * 64, "client", 7, new)
    assert state.seed is new
    deal(state)
    assert state.hand is not None and state.nonce == 0 and new.next_nonce == 1
