"""A quick-game table's life after it opened: rake to the house, closing, finishing.

- Each finished hand's rake moves from the table's escrow to ``house:rake`` (ledger key
  ``rake:{hand_id}``), hand by hand in order (``QuickTableRow.raked_through``).
- Once nobody sits at the table the lobby closes it on the engine (which reveals its dealer
  seed); when it is closed, every seat settled and every rake moved, its escrow must be back
  to zero, and the lobby stops looking at it (``finished_at``).

This runs after a seat at the table is settled (:meth:`QuickTables.after_settled`, the step
:func:`quick_settlement` hands settlement) and in the periodic sweep (:meth:`QuickTables.sweep`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.store.database import is_outage
from engine_server.store.types import utc_now
from lobby_api import engine_reads
from lobby_api.db import Database
from lobby_api.engine_client import EngineError
from lobby_api.engine_nodes import TableEngines
from lobby_api.quickgame.common import locked
from lobby_api.quickgame.models import QuickTableRow, QuickTableStatus
from lobby_api.settlement.models import LobbySeatRow
from lobby_api.settlement.services import (
    Settled,
    Settlement,
    occupied_seats,
    seat_taken,
    unsettled_seats,
)
from lobby_api.wallet.ledger import RAKE, escrow_account, post
from lobby_api.wallet.models import LedgerAccountRow

__all__ = ["QuickTables", "opening_by_node", "planned_node", "quick_settlement"]

log = logging.getLogger("stud.lobby.settlement")


async def planned_node(session: AsyncSession, table_id: str) -> str | None:
    """The engine node the lobby chose for a quick table it is opening (None: none chosen,
    or no such quick table)."""
    return (
        await session.exec(select(QuickTableRow.node_id).where(QuickTableRow.table_id == table_id))
    ).first()


@cache
def _opening_by_node() -> sa.Select[str | None, Any, Any]:
    table_id = col(QuickTableRow.table_id)
    not_seated = sa.func.sum(sa.case((engine_reads.table_has_players(table_id), 0), else_=1))
    not_created = sa.func.sum(sa.case((engine_reads.table_created(table_id), 0), else_=1))
    return (
        sa.select(col(QuickTableRow.node_id), not_seated, not_created)
        .where(
            col(QuickTableRow.status) == QuickTableStatus.OPENING.value,
            col(QuickTableRow.node_id).is_not(None),
        )
        .group_by(col(QuickTableRow.node_id))
    )


async def opening_by_node(session: AsyncSession) -> dict[str, tuple[int, int]]:
    """The quick tables being opened (placed on a node, not open yet), by node: how many of
    their openers are not seated there yet, and how many are not created there yet (what the
    engine's own counts do not show). The statement is built once (it runs at every quick
    game)."""
    rows = (await session.exec(_opening_by_node())).all()  # type: ignore[call-overload]
    return {str(node): (int(players), int(tables)) for node, players, tables in rows}


def quick_settlement(db: Database, engines: TableEngines) -> Settlement:
    """Settlement whose newly settled seats wind their quick tables up."""
    return Settlement(db, after=[QuickTables(db, engines).after_settled])


class QuickTables:
    """Rakes, closes and finishes quick tables."""

    def __init__(self, db: Database, engines: TableEngines) -> None:
        self.db = db
        self.engines = engines

    async def table_of(self, table_id: str) -> QuickTableRow | None:
        async with self.db.read() as session:
            return await session.get(QuickTableRow, table_id)

    async def after_settled(self, settled: Sequence[Settled]) -> None:
        """Wind up the tables of seats just settled (a seat may have freed the last one)."""
        for table_id in {s.table_id for s in settled}:
            await self.wind_up(table_id)

    # ------------------------------------------------------------------------- rake

    async def move_rake(self, table_id: str) -> int:
        """Move the rake of the table's finished hands to the house; returns the chips moved."""
        moved = 0
        async with self.db.write() as session:
            table = await locked(session, QuickTableRow, QuickTableRow.table_id == table_id)
            if table is None:
                return 0
            through = table.raked_through
            for hand in await engine_reads.hands_ended_since(session, table_id, through):
                if hand.rake:
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
            table = await locked(session, QuickTableRow, QuickTableRow.table_id == table_id)
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
                await self.engines.close_table(table_id, "everyone left")
            except EngineError as error:
                if error.reason != "TABLE_NOT_FOUND":
                    log.warning("closing %s on the engine failed: %s", table_id, error)
                    return
        await self._finish(table_id)

    async def _finish(self, table_id: str) -> None:
        """Mark a closed, settled and raked table finished once its escrow is back to zero."""
        await self.move_rake(table_id)
        async with self.db.write() as session:
            table = await locked(session, QuickTableRow, QuickTableRow.table_id == table_id)
            if table is None or table.finished_at is not None:
                return
            closed = await engine_reads.closed_table(session, table_id)
            if closed is None:
                return
            unsettled = await unsettled_seats(session, table_id)
            if unsettled or table.raked_through < closed.hands_started:
                return
            escrow = await session.get(LedgerAccountRow, escrow_account(table_id))
            balance = escrow.balance if escrow is not None else 0
            now = utc_now()
            if table.status != QuickTableStatus.CLOSED.value:
                table.status = QuickTableStatus.CLOSED.value
                table.closed_at = closed.closed_at or now
            if balance != 0:
                # Chips unaccounted for: keep the table in view and say so loudly.
                log.error(
                    "table %s is closed and settled but its escrow holds %d", table_id, balance
                )
                session.add(table)
                return
            table.finished_at = now
            session.add(table)

    async def sweep(self) -> None:
        """Rake, close and finish every quick table still in play that has something to do:
        a hand over whose rake has not moved, nobody left at an open table, or closing or
        closed and not yet finished. An open table with players and no hand over since the
        last rake is skipped: winding it up would move nothing (issue 16: the sweep took two
        write transactions per open table every few seconds, and the open tables pile up)."""
        table_column = col(QuickTableRow.table_id)
        someone_sits = (
            sa.exists().where(col(LobbySeatRow.table_id) == table_column, seat_taken())
        ).correlate_except(LobbySeatRow)
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
                        sa.or_(
                            col(QuickTableRow.status) != QuickTableStatus.OPEN.value,
                            sa.not_(someone_sits),
                            engine_reads.hands_ended_after(
                                table_column, col(QuickTableRow.raked_through)
                            ),
                        ),
                    )
                )
            ).all()
        for table_id in ids:
            try:
                await self.wind_up(table_id)
            except Exception as error:
                if is_outage(error):
                    raise  # the database is away: every other table would fail alike
                log.exception("sweeping table %s failed", table_id)
