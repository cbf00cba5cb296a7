"""Every engine call the tournament director makes, in one place.

A tournament table is a tournament table of the engine (``CreateTableRequest.tournament``):
tournament chips, no top-ups, a player with no chips after a hand closed BUSTED (his hand
number and chips at its start kept with the session), level 1's stakes until ``SetStakes``.
Players are seated with the chips the director gives them (``SeatPlayer`` on the seat
session id it chose), moved with ``MovePlayer`` (his session closes MOVED with his chips;
the director seats him at the destination with exactly these), held for hand-for-hand with
``SetHandHold``, shown the tournament with ``SetTournamentInfo`` and their place with
``AwardPlace``.

Every call is idempotent on an id the lobby chose and recorded before the call (the table id,
the seat session id, the move's request id) or on its own arguments (stakes, hold, info,
place), so a director that dies between a call and its bookkeeping simply makes the call
again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stud.v1 import settings_pb2, table_pb2

from lobby_api.engine_client import TableSpec
from lobby_api.engine_nodes import EngineRoute, TableEngines
from lobby_api.tournaments.levels import Level

__all__ = ["TournamentEngine", "TournamentTable", "stakes_of"]


def stakes_of(level: Level) -> settings_pb2.Stakes:
    return settings_pb2.Stakes(
        ante=level.ante,
        bring_in=level.bring_in,
        small_bet=level.small_bet,
        big_bet=level.big_bet,
    )


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
                # A tournament table takes no buy-in: the director seats the chips.
                min_buy_in=0,
                max_buy_in=0,
                # The engine derives the table's first client seed from its id.
                client_seed="",
                opener_player_id="",
                rule_overrides=overrides,
                labels={
                    "tournament_id": table.tournament_id,
                    "kind": "tournament",
                    "table_number": str(table.number),
                },
                tournament=settings_pb2.TournamentTable(
                    tournament_id=table.tournament_id,
                    table_name=f"Table {table.number}",
                    table_number=table.number,
                ),
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

    async def set_stakes(self, table_id: str, number: int, level: Level) -> int:
        """Level ``number`` (from 1) from the table's next hand on; the first hand at it."""
        answer = await self.engines.call(
            table_id, lambda c: c.set_stakes(table_id, number, stakes_of(level))
        )
        return int(answer.from_hand_number)

    async def move(
        self, table_id: str, seat_session_id: str, request_id: str, destination: str
    ) -> table_pb2.SeatSession:
        """Take the player off ``table_id`` for ``destination`` (idempotent on
        ``request_id``): his session, CLOSED (MOVED with his chips, or BUSTED) or CLOSING
        while he plays out the running hand (ask again later)."""
        route = await self.engines.route(destination)
        return await self.engines.call(
            table_id,
            lambda c: c.move_player(
                table_id, seat_session_id, request_id, destination, route.grpc, route.web
            ),
        )

    async def hold(self, table_id: str, held: bool) -> bool:
        """Hold (or release) the table's next hand; whether a hand runs there now."""
        table = await self.engines.call(table_id, lambda c: c.set_hand_hold(table_id, held))
        return bool(table.hand_in_progress)

    async def show_info(self, table_id: str, info: table_pb2.TournamentInfo) -> None:
        await self.engines.call(table_id, lambda c: c.set_tournament_info(table_id, info))

    async def award_place(
        self, table_id: str, player_id: str, display_name: str, place: int, prize: int
    ) -> None:
        await self.engines.call(
            table_id, lambda c: c.award_place(table_id, player_id, display_name, place, prize)
        )

    async def close_table(self, table_id: str, reason: str) -> None:
        """Close the table (its running hand is cancelled, stacks restored)."""
        await self.engines.close_table(table_id, reason)

    async def route(self, table_id: str) -> EngineRoute:
        """Where players reach the table."""
        return await self.engines.route(table_id)
