"""Settlement: closed seat sessions become wallet credits — once each.

The engine closes a seat session (the player left, was removed, or the table
closed) with its final stack; the chips are still in the table's escrow
account (``escrow:tables/{table}``). Settlement credits the final stack from
that escrow to the player's wallet, in one transaction with marking the seat's
:class:`~lobby_api.settlement.models.LobbySeatRow` settled; the ledger key
``settle:{seat_session_id}`` makes a second attempt (a retry, another replica,
the sweep) move nothing.

It runs when the player's wallet is touched (``GET /wallet``, every money
request, leaving) and in the periodic sweep. It knows no kind of table: what
follows a settled seat (the quick game winds its table up) is for the table's
domain, which passes its steps as ``after`` (:class:`Settlement`).

Why the escrow can always pay: it holds every chip brought to the table
(buy-ins and top-ups) minus what was settled and raked; the engine conserves
chips (final stacks + rake = start stacks), so it holds exactly the stacks of
the sessions not yet settled plus the rake not yet moved.

**The one predicate** "closed on the engine and not yet settled" is
:func:`closed_unsettled`; the wallet's read asks it through :func:`owed_to_player`.

A settlement's ledger entry names the seat session (``seat_sessions/{id}``); the wallet
finds its table through :func:`seat_session_tables`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.store.types import utc_now
from lobby_api import engine_reads
from lobby_api.db import Database
from lobby_api.settlement.models import LobbySeatRow, SeatState
from lobby_api.wallet.ledger import escrow_account, post, wallet_account
from lobby_api.wallet.services import TableReference

__all__ = [
    "SEAT_SESSION_REFERENCE",
    "AfterSettled",
    "Settled",
    "Settlement",
    "closed_unsettled",
    "occupied_seats",
    "occupied_seats_query",
    "owed_to_player",
    "seat_session_tables",
    "seat_taken",
    "unsettled_seats",
]

log = logging.getLogger("stud.lobby.settlement")


@dataclass(frozen=True, slots=True)
class Settled:
    seat_session_id: str
    table_id: str
    amount: int
    #: False when it had been settled before (nothing moved this time).
    now: bool


#: A step that follows newly settled seats (given the seats settled this time).
AfterSettled = Callable[[Sequence[Settled]], Awaitable[object]]


#: What a settlement's ledger entry is about: ``seat_sessions/{seat_session_id}``.
SEAT_SESSION_REFERENCE = "seat_sessions/"


# ------------------------------------------------------------------------ questions


def seat_session_tables() -> TableReference:
    """The table of a ``seat_sessions/…`` entry, for the wallet's statement: the seat's."""
    return TableReference(
        SEAT_SESSION_REFERENCE, col(LobbySeatRow.seat_session_id), col(LobbySeatRow.table_id)
    )


def closed_unsettled() -> Any:
    """Condition on :class:`LobbySeatRow`: seated, closed on the engine, not yet settled."""
    return sa.and_(
        col(LobbySeatRow.state) == SeatState.SEATED.value,
        col(LobbySeatRow.settled_at).is_(None),
        engine_reads.seat_session_closed(col(LobbySeatRow.seat_session_id)),
    )


def owed_to_player() -> Any:
    """Condition: a closed seat session of the player bound as ``player_id`` waits to be
    settled (for the wallet's one-statement read)."""
    return sa.exists().where(
        col(LobbySeatRow.player_id) == sa.bindparam("player_id", type_=sa.String),
        closed_unsettled(),
    )


def seat_taken() -> Any:
    """Condition on :class:`LobbySeatRow`: the seat is taken (reserved, or seated and not yet
    closed on the engine)."""
    return sa.or_(
        col(LobbySeatRow.state) == SeatState.PENDING.value,
        sa.and_(
            col(LobbySeatRow.state) == SeatState.SEATED.value,
            sa.not_(engine_reads.seat_session_closed(col(LobbySeatRow.seat_session_id))),
        ),
    )


def occupied_seats_query(table_id: str) -> Any:
    """How many seats of a table are taken: reserved, or seated and not yet closed."""
    return (
        sa.select(sa.func.count())
        .select_from(LobbySeatRow)
        .where(col(LobbySeatRow.table_id) == table_id, seat_taken())
    )


async def occupied_seats(session: AsyncSession, table_id: str) -> int:
    return int((await session.exec(occupied_seats_query(table_id))).scalar_one())


async def unsettled_seats(session: AsyncSession, table_id: str) -> int:
    """How many seated sessions of the table have not been settled yet (open ones too)."""
    return int(
        (
            await session.exec(
                select(sa.func.count())
                .select_from(LobbySeatRow)
                .where(
                    col(LobbySeatRow.table_id) == table_id,
                    col(LobbySeatRow.state) == SeatState.SEATED.value,
                    col(LobbySeatRow.settled_at).is_(None),
                )
            )
        ).one()
    )


# -------------------------------------------------------------------------- service


@cache
def _closed_unsettled_of_player() -> Any:
    """The player's (bound as ``player_id``) closed seat sessions not settled yet."""
    return select(LobbySeatRow.seat_session_id).where(
        col(LobbySeatRow.player_id) == sa.bindparam("player_id", type_=sa.String),
        closed_unsettled(),
    )


class Settlement:
    """Settles closed seat sessions into wallets; ``after`` are the steps that follow a
    player's newly settled seats (each table domain's, e.g. winding a quick table up)."""

    def __init__(self, db: Database, *, after: Sequence[AfterSettled] = ()) -> None:
        self.db = db
        self.after = tuple(after)

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
            engine_session = await engine_reads.seat_session(session, seat_session_id)
            if engine_session is None or not engine_session.is_closed:
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
                    reference=f"{SEAT_SESSION_REFERENCE}{seat_session_id}",
                    now=now,
                )
            seat.settled_amount = amount
            seat.settled_at = now
            session.add(seat)
            return Settled(seat_session_id, seat.table_id, amount, True)

    async def _closed_unsettled(self, player_id: str | None) -> list[str]:
        if player_id is None:
            rows = await self.db.fetch(
                select(LobbySeatRow.seat_session_id).where(closed_unsettled())
            )
        else:
            # One statement on its own (no BEGIN and ROLLBACK), built once: every money
            # request asks it.
            rows = await self.db.fetch(_closed_unsettled_of_player(), {"player_id": player_id})
        return [row[0] for row in rows]

    async def settle_player(self, player_id: str) -> list[Settled]:
        """Settle every closed session of one player (his wallet is being touched), then run
        the ``after`` steps on those settled now."""
        done = []
        for seat_session_id in await self._closed_unsettled(player_id):
            settled = await self.settle_seat(seat_session_id)
            if settled is not None and settled.now:
                done.append(settled)
        if done:
            for step in self.after:
                await step(done)
        return done

    async def settle_all(self) -> list[Settled]:
        """Settle every closed session (the sweep; the tables are wound up by their own
        sweep)."""
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
