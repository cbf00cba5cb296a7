"""Every engine call the tournament director makes, in one place.

Today a tournament table is a private cash table of the engine (``CreateTable``) with the
label ``tournament_id``, a buy-in of exactly the starting chips (min = max buy-in) and the
stakes of level 1, and each player is seated with the starting chips (``SeatPlayer`` on the
seat session id the director chose). Every call is idempotent on an id the lobby chose and
recorded before the call (the table id, the seat session id), so a director that dies
between a call and its bookkeeping simply makes the call again.

What the director will need from the engine (the engine side of issue 14), to switch these
calls to true tournament tables without touching the rest of the lobby:

- **tournament tables**: no top-ups and no leaving with chips (tournament chips are not
  money: a seat session of a tournament table is never settled to a wallet), a player with
  no chips after a hand out of the table (today he sits out), and the hand's end reported
  with each seat's chips at the hand's start and end (to place players out in the same
  hand: places.py; today the director reads them from the engine's hand records through
  :mod:`lobby_api.engine_reads`);
- **stakes between hands**: ``SetStakes(table, level)`` applied at the next hand's start;
- **moves** (balancing and breaking, seating.py): remove a player between hands keeping his
  chips, and seat him elsewhere with the same chips, the stream telling him where;
- **hand-for-hand**: hold a table's next hand until the director releases every table
  together;
- **holds at the start**: a table that waits to deal until its draw is seated (today the
  first two players seated may be dealt a hand before the others sit);
- **tournament info in the stream**: level, time or hands to the next level, players left,
  average stack, place and prize of a player who busts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lobby_api.engine_client import TableSpec
from lobby_api.engine_nodes import EngineRoute, TableEngines
from lobby_api.tournaments.levels import Level

__all__ = ["TournamentEngine", "TournamentTable"]


@dataclass(frozen=True, slots=True)
class TournamentTable:
    """What the engine needs to open one table of a tournament."""

    tournament_id: str
    table_id: str
    number: int
    profile: str
    rule_overrides: dict[str, Any]
    table_size: int
    starting_chips: int
    level: Level


class TournamentEngine:
    """The director's engine calls, each routed to the node that owns (or will own) the table."""

    def __init__(self, engines: TableEngines) -> None:
        self.engines = engines

    async def open_table(self, table: TournamentTable) -> None:
        """Create the table (idempotent on its id)."""
        overrides = dict(table.rule_overrides)
        overrides["max_players"] = table.table_size
        await self.engines.create_table(
            TableSpec(
                request_id=table.table_id,
                table_id=table.table_id,
                profile=table.profile,
                ante=table.level.ante,
                bring_in=table.level.bring_in,
                small_bet=table.level.small_bet,
                big_bet=table.level.big_bet,
                min_buy_in=table.starting_chips,
                max_buy_in=table.starting_chips,
                # The engine derives the table's first client seed from its id.
                client_seed="",
                opener_player_id="",
                rule_overrides=overrides,
                labels={
                    "tournament_id": table.tournament_id,
                    "kind": "tournament",
                    "table_number": str(table.number),
                },
            )
        )

    async def seat(
        self,
        table_id: str,
        seat_session_id: str,
        player_id: str,
        display_name: str,
        seat: int,
        chips: int,
    ) -> int:
        """Seat the player in ``seat`` with ``chips`` (idempotent on the seat session id);
        the seat the engine gave."""
        session = await self.engines.seat_player(
            table_id, seat_session_id, player_id, display_name, chips, seat
        )
        return int(session.seat)

    async def close_table(self, table_id: str, reason: str) -> None:
        """Close the table (its running hand is cancelled, stacks restored)."""
        await self.engines.close_table(table_id, reason)

    async def route(self, table_id: str) -> EngineRoute:
        """Where players reach the table."""
        return await self.engines.route(table_id)
