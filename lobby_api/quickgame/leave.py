"""Leaving a quick table: paid out at once between hands, at the hand's end otherwise.

Idempotent by itself (no Idempotency-Key): RemovePlayer is idempotent on the seat session,
and a closed session is settled once, by its id.
"""

from __future__ import annotations

from lobby_api.accounts.models import PlayerRow
from lobby_api.db import Database
from lobby_api.engine_client import EngineError
from lobby_api.engine_nodes import TableEngines
from lobby_api.problems import DomainError
from lobby_api.quickgame.common import engine_refusal, my_seat, not_seated
from lobby_api.quickgame.models import QuickTableRow
from lobby_api.quickgame.schemas import LeaveView
from lobby_api.quickgame.tables import QuickTables
from lobby_api.settlement.models import SeatState
from lobby_api.settlement.services import Settlement

__all__ = ["Leaving"]


class Leaving:
    """``POST /tables/{table_id}/leave``."""

    def __init__(self, db: Database, engines: TableEngines) -> None:
        self.db = db
        self.engines = engines
        self.tables = QuickTables(db, engines)

    async def leave(self, player: PlayerRow, table_id: str) -> tuple[LeaveView, bool]:
        """Leave the table: paid out now between hands, at the hand's end otherwise.

        Returns the view and whether a seat was freed (so waiting tickets may be placed).
        """
        async with self.db.read() as session:
            seat = await my_seat(session, player.id, table_id)
        if seat is None:
            raise not_seated(table_id)
        if seat.state == SeatState.PENDING.value:
            raise DomainError(
                409, "seat_pending", "your seat is still being set up; retry in a moment"
            )
        if seat.settled_at is None:
            try:
                # His own leave, relayed: the engine closes the session as LEFT (ops and the
                # audit tell it from ops' removals).
                await self.engines.remove_player(table_id, seat.seat_session_id, by_player=True)
            except EngineError as error:
                if error.transient:
                    raise DomainError(
                        503,
                        "engine_unavailable",
                        f"the game server could not be reached ({error}); retry",
                        headers={"Retry-After": "1"},
                    ) from None
                # Already gone (he left through the engine, or the table closed): settle.
                if error.reason not in ("SEAT_SESSION_NOT_FOUND", "TABLE_NOT_FOUND"):
                    raise engine_refusal(error) from None
        settled = await Settlement(self.db).settle_seat(seat.seat_session_id)
        freed = settled is not None and settled.now
        if freed:
            await self.tables.wind_up(table_id)
        if settled is None:
            return (
                LeaveView(f"tables/{table_id}", seat.seat_session_id, "leaving"),
                False,
            )
        return (
            LeaveView(
                f"tables/{table_id}",
                seat.seat_session_id,
                "closed",
                final_stack=settled.amount,
                credited=settled.amount,
            ),
            freed,
        )

    async def table_of(self, table_id: str) -> QuickTableRow | None:
        return await self.tables.table_of(table_id)
