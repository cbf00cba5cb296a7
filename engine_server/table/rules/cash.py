"""What kind of table this is: the rules a cash table plays by, where tournaments differ.

A :class:`TableRules` decides the few things a cash table and a tournament table do
differently; everything else (seating, chips, ops, seeds, hands) is the same rules.
:class:`CashRules` is the cash table's; :class:`TournamentRules` a tournament table's: no
buy-in range (the director gives each player his chips), no top-ups, cash-outs or sitting
out (an away player is dealt in and his clock acts for him), the stakes of the running level
(changed between hands, :func:`engine_server.table.rules.tournament.set_stakes`), the next
hand held while the tournament plays hand-for-hand, and a player whose chips are gone after a
hand busts (his session closes, his seat frees) rather than sitting out. A seat move is a
leave at the hand's end plus a seat elsewhere with the same chips (the seating rules as they
are, with no buy-in range).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from engine_server.game.profiles import Stakes
from engine_server.table.errors import TableError
from engine_server.table.events import PlayerSatOut, UpdateEvent
from engine_server.table.model import SeatState, TableConfig
from engine_server.table.rules.chips import check_buy_in
from engine_server.table.state import TableState

__all__ = [
    "CASH_RULES",
    "TOURNAMENT_RULES",
    "CashRules",
    "TableRules",
    "TournamentRules",
    "rules_for",
]


class TableRules(Protocol):
    def check_buy_in(self, config: TableConfig, amount: int, field_name: str) -> None:
        """Refuse a seat bought in with ``amount`` chips (``BUY_IN_OUT_OF_RANGE``)."""

    def check_player_choice(self, state: TableState, command: str) -> None:
        """Refuse what only a cash table lets a player (or the lobby) do: ``command`` is
        ``AddChips``, ``Leave`` or ``SitOut`` (``TOURNAMENT_TABLE``)."""

    def stakes(self, state: TableState) -> Stakes:
        """The stakes the next hand is dealt at."""

    def may_deal(self, state: TableState) -> bool:
        """Whether the next hand may start now, the table being open and its time come."""

    def busted(self, state: TableState, final: dict[int, int]) -> list[SeatState]:
        """The hand is over (``final``: the stacks it leaves each seat dealt in): the seats
        whose players are out of the game, closed with the hand (before the store records
        it)."""

    def after_hand(self, state: TableState) -> list[UpdateEvent]:
        """The hand is over and those leaving after it have left: what becomes of the
        seats (those with no chips left) and of the table."""


class CashRules:
    """A cash table: buy-ins within the table's range, its stakes for every hand, the next
    hand as soon as it is due, and a player with no chips left sits out (until he adds
    chips)."""

    def check_buy_in(self, config: TableConfig, amount: int, field_name: str) -> None:
        check_buy_in(config, amount, field_name)

    def check_player_choice(self, state: TableState, command: str) -> None:
        return None

    def stakes(self, state: TableState) -> Stakes:
        return state.config.stakes

    def may_deal(self, state: TableState) -> bool:
        return True

    def busted(self, state: TableState, final: dict[int, int]) -> list[SeatState]:
        return []

    def after_hand(self, state: TableState) -> list[UpdateEvent]:
        events: list[UpdateEvent] = []
        for seat in state.seats.values():
            if seat.stack == 0 and not seat.sitting_out:
                seat.sitting_out = True
                events.append(PlayerSatOut(seat.seat))
        return events


class TournamentRules:
    """A tournament table: the director's chips, the running level's stakes, the hold of
    hand-for-hand, and busts."""

    def check_buy_in(self, config: TableConfig, amount: int, field_name: str) -> None:
        # No range: the director seats each player with his tournament chips, a new entrant's
        # starting stack or a moved player's stack, whatever it is.
        if amount <= 0:
            raise TableError.invalid(
                "BUY_IN_OUT_OF_RANGE",
                f"{field_name} must be the player's tournament chips (> 0), not {amount}",
                field=field_name,
            )

    def check_player_choice(self, state: TableState, command: str) -> None:
        why = {
            "AddChips": "tournament chips are never topped up",
            "Leave": "a tournament player cannot cash out (he plays on, is moved, or busts)",
            "SitOut": "a tournament player is dealt in while away (his clock acts for him)",
        }
        raise TableError.precondition(
            "TOURNAMENT_TABLE",
            f"{state.config.name} is a tournament table: {why.get(command, command)}",
            method=command,
        )

    def stakes(self, state: TableState) -> Stakes:
        return state.config.stakes

    def may_deal(self, state: TableState) -> bool:
        return not state.hand_held

    def busted(self, state: TableState, final: dict[int, int]) -> list[SeatState]:
        out = []
        for number, stack in sorted(final.items()):
            seat = state.hand_seats[number]
            if stack == 0:
                # Out of the tournament, whatever else he was about to do (a move included).
                seat.leaving = True
                seat.leave_reason = "busted"
                seat.move_to = None
                out.append(seat)
        return out

    def after_hand(self, state: TableState) -> list[UpdateEvent]:
        # A level set during the hand plays from now on (StakesChanged said so then).
        if state.next_level is not None:
            level, stakes = state.next_level
            state.config = replace(state.config, stakes=stakes)
            state.level = level
            state.next_level = None
        return []


CASH_RULES = CashRules()
TOURNAMENT_RULES = TournamentRules()


def rules_for(config: TableConfig) -> TableRules:
    """The rules a table of ``config`` plays by."""
    return TOURNAMENT_RULES if config.tournament is not None else CASH_RULES
