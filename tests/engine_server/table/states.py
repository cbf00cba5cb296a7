"""Table states built by hand, for the rules, views and broadcaster to be tested alone."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine_server.game.profiles import PROFILES, Stakes
from engine_server.table.errors import TableError
from engine_server.table.model import SeatState, SeedPair, TableConfig, TableStatus
from engine_server.table.ports import StartedHand
from engine_server.table.rules import CASH_RULES, hands, seating
from engine_server.table.state import TableState

__all__ = ["deal", "refused", "seat", "table_state"]


def seat(
    number: int, stack: int = 100, *, sitting_out: bool = False, connected: bool = False
) -> SeatState:
    """Seat ``number``'s player p{number} (session ss{number}), bought in for ``stack``."""
    return SeatState(
        number,
        f"p{number}",
        f"P{number}",
        f"ss{number}",
        stack,
        stack,
        sitting_out=sitting_out,
        connected=connected,
    )


def table_state(
    *seats: SeatState,
    profile: str = "house",
    status: TableStatus = TableStatus.WAITING,
    min_buy_in: int = 10,
    max_buy_in: int = 0,
) -> TableState:
    config = TableConfig(
        "t1",
        PROFILES[profile],
        Stakes(1, 1, 2, 4),
        min_buy_in=min_buy_in,
        max_buy_in=max_buy_in,
    )
    pair = SeedPair("s1", "0" * 64, "c" * 64, "client", 0, "d" * 64)
    return TableState(config, pair, status, seats={s.seat: s for s in seats})


def deal(state: TableState, nonce: int = 0) -> list[int]:
    """Deal the next hand as the runtime does (the store's part played here); the seats dealt."""
    ready = seating.ready_seats(state)
    button = seating.next_button(state.button, ready)
    hands.begin(state, StartedHand(f"h{nonce}", nonce), ready, button, CASH_RULES.stakes(state))
    return ready


def refused(rule: Callable[..., object], *args: object) -> str:
    """The reason ``rule(*args)`` refuses with (it must refuse)."""
    with pytest.raises(TableError) as error:
        rule(*args)
    return error.value.reason
