"""Settlement: closed seat sessions become wallet credits, rake goes to the house — once each.

The engine closes a seat session (the player left, was removed, or the table
closed) with its final stack; the chips are still in the table's escrow
account. The lobby then

- credits the final stack from ``escrow:tables/{table}`` to the player's wallet,
  in one transaction with marking its :class:`~lobby_api.quickgame.models.LobbySeatRow`
  settled; the ledger key ``settle:{seat_session_id}`` makes a second attempt
  (a retry, another replica, the sweep) move nothing;
- moves each finished hand's rake from the escrow to ``house:rake`` (key
  ``rake:{hand_id}``), hand by hand in order (``QuickTableRow.raked_through``);
- closes a quick-game table on the engine once nobody sits there (which reveals
  its dealer seed) and, when it is closed, settled and raked, checks that its
  escrow is back to zero and stops looking at it.

It runs when the player's wallet is touched (``GET /wallet``, every money
request, leaving) and in the periodic sweep.

Why the escrow can always pay: it holds every chip brought to the table
(buy-ins and top-ups) minus what was settled and raked; the engine conserves
chips (final stacks + rake = start stacks), so it holds exactly the stacks of
the sessions not yet settled plus the rake not yet moved.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.store.models import HandRow, HandState, SeatSessionRow, SeatSessionState
from engine_server.store.models import TableRow as EngineTableRow
from engine_server.store.types import utc_now
from lobby_api.db import Database
from lobby_api.engine_client import EngineError
from lobby_api.engine_nodes import TableEngines
from lobby_api.quickgame.models import LobbySeatRow, QuickTableRow, QuickTableStatus, SeatState
from lobby_api.wallet.ledger import RAKE, escrow_account, post, wallet_account
from lobby_api.wallet.models import LedgerAccountRow

__all__ = ["Settled", "Settlement", "occupied_seats"]

log = logging.getLogger("stud.lobby.settlement")


@dataclass(frozen=True, slots=True)
class Settled:
    seat_session_id: str
    table_id: str
    amount: int
    #: False when it had been settled before (nothing moved this time).
    now: bool


def occupied_seats_query(table_id: str) -> Any:
    """How many seats of a quick table are taken: reserved, or seated and not yet closed."""
    return (
        sa.select(sa.func.count())
        .select_from(LobbySeatRow)
        .outerjoin(SeatSessionRow, col(SeatSessionRow.id) == col(LobbySeatRow.seat_session_id))
        .where(
            col(LobbySeatRow.table_id) == table_id,
            sa.or_(
                col(LobbySeatRow.state) == SeatState.PENDING.value,
                sa.and_(
                    col(LobbySeatRow.state) == SeatState.SEATED.value,
                    sa.or_(
                        col(SeatSessionRow.state).is_(None),
                        col(SeatSessionRow.state) != SeatSessionState.CLOSED.value,
                    ),
                ),
            ),
        )
    )


async def occupied_seats(session: AsyncSession, table_id: str) -> int:
    return int((await session.execute(occupied_seats_query(table_id))).scalar_one())


class Settlement:
    """Settles seat sessions, moves rake and winds up empty quick-game tables."""

    def __init__(self, db: Database, engine: TableEngines) -> None:
        self.db = db
        self.engine = engine

    # ------------------------------------------------------------------ seat sessions

    async def settle_seat(self, seat_session_id: str) -> Settled | None:
        """Credit a closed session's final stack to its wallet (None while it is open)."""
        async with self.db.write() as session:
            seat = (
                await session.exec(
                    select(LobbySeatRow)
                    .where(LobbySeatRow.seat_session_id == seat_session_id)
                    .with_for_update()
                    .execution_options(populate_existing=True)
                )
            ).first()
            if seat is None or seat.state != SeatState.SEATED.value:
                return None
            if seat.settled_at is not None:
                return Settled(seat_session_id, seat.table_id, seat.settled_amount or 0, False)
            engine_session = await session.get(SeatSessionRow, seat_session_id)
            if engine_session is None or engine_session.state != SeatSessionState.CLOSED.value:
                return None
            amount = engine_session.stack
            now = utc_now()
            if amount > 0:
                await post(
                    session,
                    f"settle:{seat_session_id}",
                    "settlement",
                    [
                        (escrow_account(seat.table_id), -amount),
                        (wallet_account(seat.player_id), amount),
                    ],
                    reference=f"seat_sessions/{seat_session_id}",
                    now=now,
                )
            seat.settled_amount = amount
            seat.settled_at = now
            session.add(seat)
            return Settled(seat_session_id, seat.table_id, amount, True)

    async def _closed_unsettled(self, player_id: str | None) -> list[str]:
        query = (
            select(LobbySeatRow.seat_session_id)
            .join(SeatSessionRow, col(SeatSessionRow.id) == col(LobbySeatRow.seat_session_id))
            .where(
                col(LobbySeatRow.state) == SeatState.SEATED.value,
                col(LobbySeatRow.settled_at).is_(None),
                col(SeatSessionRow.state) == SeatSessionState.CLOSED.value,
            )
        )
        if player_id is not None:
            query = query.where(col(LobbySeatRow.player_id) == player_id)
        async with self.db.read() as session:
            return list((await session.exec(query)).all())

    async def settle_player(self, player_id: str) -> list[Settled]:
        """Settle every closed session of one player (his wallet is being touched)."""
        done = []
        for seat_session_id in await self._closed_unsettled(player_id):
            settled = await self.settle_seat(seat_session_id)
            if settled is not None and settled.now:
                done.append(settled)
        for table_id in {s.table_id for s in done}:
            await self.wind_up(table_id)
        return done

    async def settle_all(self) -> list[Settled]:
        done = []
        for seat_session_id in await self._closed_unsettled(None):
            try:
                settled = await self.settle_seat(seat_session_id)
            except Exception:
                log.exception("settling %s failed", seat_session_id)
                continue
            if settled is not None and settled.now:
                done.append(settled)
        return done

    # ------------------------------------------------------------------------- rake

    async def move_rake(self, table_id: str) -> int:
        """Move the rake of the table's finished hands to the house; returns the chips moved."""
        moved = 0
        async with self.db.write() as session:
            table = (
                await session.exec(
                    select(QuickTableRow)
                    .where(QuickTableRow.table_id == table_id)
                    .with_for_update()
                    .execution_options(populate_existing=True)
                )
            ).first()
            if table is None:
                return 0
            hands = (
                await session.exec(
                    select(HandRow)
                    .where(
                        col(HandRow.table_id) == table_id,
                        col(HandRow.hand_number) > table.raked_through,
                    )
                    .order_by(col(HandRow.hand_number))
                )
            ).all()
            through = table.raked_through
            for hand in hands:
                if hand.state == HandState.RUNNING.value:
                    break  # later hands cannot have ended before it
                if hand.state == HandState.COMPLETE.value and hand.rake:
                    posting = await post(
                        session,
                        f"rake:{hand.id}",
                        "rake",
                        [(escrow_account(table_id), -hand.rake), (RAKE, hand.rake)],
                        reference=f"hands/{hand.id}",
                    )
                    moved += hand.rake if posting.created else 0
                through = hand.hand_number
            if through != table.raked_through:
                table.raked_through = through
                session.add(table)
        return moved

    # ---------------------------------------------------------------------- tables

    async def wind_up(self, table_id: str) -> None:
        """Rake, then close the table on the engine if nobody sits there, then finish it."""
        await self.move_rake(table_id)
        close = False
        async with self.db.write() as session:
            table = (
                await session.exec(
                    select(QuickTableRow)
                    .where(QuickTableRow.table_id == table_id)
                    .with_for_update()
                    .execution_options(populate_existing=True)
                )
            ).first()
            if table is None or table.finished_at is not None:
                return
            if table.status == QuickTableStatus.OPEN.value:
                if await occupied_seats(session, table_id) == 0:
                    table.status = QuickTableStatus.CLOSING.value
                    session.add(table)
                    close = True
            elif table.status == QuickTableStatus.CLOSING.value:
                close = True
        if close:
            try:
                await self.engine.close_table(table_id, "everyone left")
            except EngineError as error:
                if error.reason != "TABLE_NOT_FOUND":
                    log.warning("closing %s on the engine failed: %s", table_id, error)
                    return
        await self._finish(table_id)

    async def _finish(self, table_id: str) -> None:
        """Mark a closed, settled and raked table finished once its escrow is back to zero."""
        await self.move_rake(table_id)
        async with self.db.write() as session:
            table = (
                await session.exec(
                    select(QuickTableRow)
                    .where(QuickTableRow.table_id == table_id)
                    .with_for_update()
                    .execution_options(populate_existing=True)
                )
            ).first()
            if table is None or table.finished_at is not None:
                return
            engine_table = await session.get(EngineTableRow, table_id)
            if engine_table is None or engine_table.status != "closed":
                return
            unsettled = (
                await session.execute(
                    select(sa.func.count())
                    .select_from(LobbySeatRow)
                    .where(
                        col(LobbySeatRow.table_id) == table_id,
                        col(LobbySeatRow.state) == SeatState.SEATED.value,
                        col(LobbySeatRow.settled_at).is_(None),
                    )
                )
            ).scalar_one()
            if unsettled or table.raked_through < engine_table.hands_started:
                return
            escrow = await session.get(LedgerAccountRow, escrow_account(table_id))
            balance = escrow.balance if escrow is not None else 0
            now = utc_now()
            if table.status != QuickTableStatus.CLOSED.value:
                table.status = QuickTableStatus.CLOSED.value
                table.closed_at = engine_table.closed_at or now
            if balance != 0:
                # Chips unaccounted for: keep the table in view and say so loudly.
                log.error(
                    "table %s is closed and settled but its escrow holds %d", table_id, balance
                )
                session.add(table)
                return
            table.finished_at = now
            session.add(table)

    async def sweep_tables(self) -> None:
        """Rake, close and finish every quick table still in play."""
        async with self.db.read() as session:
            ids = (
                await session.exec(
                    select(QuickTableRow.table_id).where(
                        col(QuickTableRow.finished_at).is_(None),
                        col(QuickTableRow.status).in_(
                            [
                                QuickTableStatus.OPEN.value,
                                QuickTableStatus.CLOSING.value,
                                QuickTableStatus.CLOSED.value,
                            ]
                        ),
                    )
                )
            ).all()
        for table_id in ids:
            try:
                await self.wind_up(table_id)
            except Exception:
                log.exception("sweeping table %s failed", table_id)
