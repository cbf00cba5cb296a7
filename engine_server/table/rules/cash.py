"""What kind of table this is: the rules a cash table plays by, where tournaments differ.

A :class:`TableRules` decides the few things a cash table and a tournament table do
differently; everything else (seating, chips, ops, seeds, hands) is the same rules.
:class:`CashRules` is the cash table's. A tournament's (not built yet) would change the
stakes between hands as its levels go up, hold the next hand's start while the tournament
plays hand-for-hand, and take a player whose chips are gone out of the tournament rather
than sitting him out; a seat move is a leave at the hand's end plus a seat elsewhere with
the same chips (the seating rules as they are, with no buy-in range).
"""

from __future__ import annotations

from typing import Protocol

from engine_server.game.profiles import Stakes
from engine_server.table.events import PlayerSatOut, UpdateEvent
from engine_server.table.model import TableConfig
from engine_server.table.rules.chips import check_buy_in
from engine_server.table.state import TableState

__all__ = ["CASH_RULES", "CashRules", "TableRules"]


class TableRules(Protocol):
    def check_buy_in(self, config: TableConfig, amount: int, field_name: str) -> None:
        """Refuse a seat bought in with ``amount`` chips (``BUY_IN_OUT_OF_RANGE``)."""

    def stakes(self, state: TableState) -> Stakes:
        """The stakes the next hand is dealt at."""

    def may_deal(self, state: TableState) -> bool:
        """Whether the next hand may start now, the table being open and its time come."""

    def after_hand(self, state: TableState) -> list[UpdateEvent]:
        """The hand is over and those leaving after it have left: what becomes of the
        seats (those with no chips left)."""


class CashRules:
    """A cash table: buy-ins within the table's range, its stakes for every hand, the next
    hand as soon as it is due, and a player with no chips left sits out (until he adds
    chips)."""

    def check_buy_in(self, config: TableConfig, amount: int, field_name: str) -> None:
        check_buy_in(config, amount, field_name)

    def stakes(self, state: TableState) -> Stakes:
        return state.config.stakes

    def may_deal(self, state: TableState) -> bool:
        return True

    def after_hand(self, state: TableState) -> list[UpdateEvent]:
        events: list[UpdateEvent] = []
        for seat in state.seats.values():
            if seat.stack == 0 and not seat.sitting_out:
                seat.sitting_out = True
                events.append(PlayerSatOut(seat.seat))
        return events


CASH_RULES = CashRules()
