"""Matchmaking: tickets to sit in at a quick game of the player's city and stake.

A ticket's buy-in waits in ``hold:tickets/{id}``. Placing it locks the ticket, then the
candidate table (``SELECT … FOR UPDATE``), counts its taken seats and reserves one — so two
replicas never fill one seat twice — and moves the buy-in from the hold to the table's
escrow; then SeatPlayer. A table is a candidate only for players of its city and stake
level, and seats its opener and at most six others. A ticket that finds no seat waits (it
is tried again when it is polled, when a table opens or a seat is freed, and by the sweep)
until it expires or is withdrawn; then its buy-in goes back to the wallet.

A ticket may name one table (``table_id``: a bot answering a request for bots,
:mod:`lobby_api.quickgame.bots`): it is accepted only for a table of the player's city and
stake level that asked for bots and still misses players, and placed there only while it
still does.
"""

from __future__ import annotations

import logging
from datetime import timedelta

import msgspec
import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.ids import new_id
from engine_server.store.types import utc_now
from lobby_api.accounts.models import PlayerRow
from lobby_api.catalog.services import check_buy_in, find_stake_level, get_stake_level, seats_at
from lobby_api.db import Database
from lobby_api.engine_client import EngineError
from lobby_api.engine_nodes import TableEngines
from lobby_api.idempotency import Answer, run_idempotent
from lobby_api.problems import DomainError
from lobby_api.quickgame.bots import still_missing_players
from lobby_api.quickgame.common import insufficient, locked
from lobby_api.quickgame.looking import PlayersLooking
from lobby_api.quickgame.models import QuickTableRow, QuickTableStatus, TicketRow, TicketStatus
from lobby_api.quickgame.schemas import TicketRequest, TicketView
from lobby_api.quickgame.tables import quick_settlement
from lobby_api.settings import LobbySettings
from lobby_api.settlement.models import LobbySeatRow, SeatSource, SeatState
from lobby_api.settlement.services import occupied_seats
from lobby_api.wallet.ledger import (
    InsufficientFunds,
    escrow_account,
    hold_account,
    post,
    wallet_account,
)
from lobby_api.wallet.services import TableReference

__all__ = ["SEATING_RETRY", "Matchmaking", "ticket_tables"]

log = logging.getLogger("stud.lobby.quickgame")

#: A ticket stuck in "seating" (the engine did not answer) is retried after this long.
SEATING_RETRY = timedelta(seconds=3)


#: The waiting tickets of the bound ``city`` and ``stake_level``, oldest first.
_WAITING_TICKETS = (
    select(TicketRow.id)
    .where(
        col(TicketRow.status) == TicketStatus.WAITING.value,
        col(TicketRow.city) == sa.bindparam("city", type_=sa.String),
        col(TicketRow.stake_level) == sa.bindparam("stake_level", type_=sa.String),
    )
    .order_by(col(TicketRow.created_at))
    .limit(100)
)


def ticket_tables() -> TableReference:
    """The table of a ``tickets/…`` entry, for the wallet's statement: the one its ticket found
    a seat at (none while it waits, or once withdrawn or expired)."""
    return TableReference("tickets/", col(TicketRow.id), col(TicketRow.table_id))


class Matchmaking:
    """``/tickets``: hold a buy-in, find a seat at a quick table of the city, or wait."""

    #: The operation name its idempotency keys carry (the sweep resumes it by this name).
    OPERATION = "ticket"

    def __init__(
        self,
        db: Database,
        engines: TableEngines,
        settings: LobbySettings,
        looking: PlayersLooking,
    ) -> None:
        self.db = db
        self.engines = engines
        self.settings = settings
        #: Told who starts and may stop looking for a game (lobby_api.quickgame.looking).
        self.looking = looking

    async def open_ticket(
        self, player: PlayerRow, data: TicketRequest, key: str, fingerprint: str
    ) -> Answer:
        """Hold the buy-in and look for a seat at once (the ticket waits otherwise)."""

        ticket_id = new_id("tk", size=10)

        async def prepare(session: AsyncSession) -> None:
            level = await get_stake_level(session, data.stake_level)
            check_buy_in(level, data.buy_in)
            if data.table_id is not None:
                await self._check_wanted(session, player, level.id, data.table_id)
            now = utc_now()
            ticket = TicketRow(
                id=ticket_id,
                player_id=player.id,
                city=player.city,
                stake_level=level.id,
                buy_in=data.buy_in,
                status=TicketStatus.WAITING.value,
                for_table_id=data.table_id,
                expires_at=now + timedelta(seconds=self.settings.ticket_seconds),
                created_at=now,
                updated_at=now,
            )
            session.add(ticket)
            await session.flush()
            try:
                await post(
                    session,
                    f"hold:{ticket.id}",
                    "ticket_hold",
                    [
                        (wallet_account(player.id), -data.buy_in),
                        (hold_account(ticket.id), data.buy_in),
                    ],
                    reference=f"tickets/{ticket.id}",
                )
            except InsufficientFunds as error:
                raise insufficient(error, "buy_in") from None

        await quick_settlement(self.db, self.engines).settle_player(player.id)
        answer = await run_idempotent(
            self.db,
            player_id=player.id,
            key=key,
            operation=self.OPERATION,
            fingerprint=fingerprint,
            reference=ticket_id,
            prepare=prepare,
            complete=self.complete_ticket,
        )
        if (
            answer.status == 201
            and not answer.replayed
            and answer.body.get("status") == TicketStatus.WAITING.value
            and data.table_id is None
        ):
            self.looking.started(player.city, data.stake_level, player.id)
        return answer

    @staticmethod
    async def _check_wanted(
        session: AsyncSession, player: PlayerRow, stake_level: str, table_id: str
    ) -> None:
        """A ticket for one table: only a table of the player's city and stake level that
        asked for bots and still misses players (409 ``no_bot_request`` otherwise)."""
        table = await session.get(QuickTableRow, table_id)
        if (
            table is None
            or table.city != player.city
            or table.stake_level != stake_level
            or table.status != QuickTableStatus.OPEN.value
            or await still_missing_players(session, table_id) == 0
        ):
            raise DomainError(
                409,
                "no_bot_request",
                f"table {table_id} does not ask for players of {player.city} at {stake_level}",
                "table_id",
            )

    async def complete_ticket(self, ticket_id: str) -> Answer:
        await self.try_ticket(ticket_id)
        return Answer(201, msgspec.to_builtins(await self.ticket_view(ticket_id)))

    async def ticket_view(self, ticket_id: str) -> TicketView:
        async with self.db.read() as session:
            ticket = await session.get(TicketRow, ticket_id)
            assert ticket is not None
            seat = (
                await session.get(LobbySeatRow, ticket.seat_session_id)
                if ticket.seat_session_id
                else None
            )
        seated = ticket.status == TicketStatus.SEATED.value
        # Where the table is served now (read afresh: another node may have taken it over).
        where = await self.engines.addresses(ticket.table_id) if seated and ticket.table_id else {}
        return TicketView(
            id=ticket.id,
            status=ticket.status,
            stake_level=ticket.stake_level,
            city=ticket.city,
            buy_in=ticket.buy_in,
            created_at=ticket.created_at,
            expires_at=ticket.expires_at,
            table=f"tables/{ticket.table_id}" if ticket.table_id else None,
            table_id=ticket.table_id,
            seat_session_id=ticket.seat_session_id,
            seat=seat.seat if seat is not None else None,
            engine_grpc=where.get("engine_grpc"),
            engine_grpc_web=where.get("engine_grpc_web"),
            for_table_id=ticket.for_table_id,
        )

    async def get_ticket(self, player_id: str, ticket_id: str) -> TicketView:
        """Poll a ticket: an expired one is released, a waiting one tries to find a seat."""
        async with self.db.read() as session:
            ticket = await session.get(TicketRow, ticket_id)
        if ticket is None or ticket.player_id != player_id:
            raise DomainError(
                404, "ticket_not_found", f"you have no ticket {ticket_id}", "ticket_id"
            )
        if ticket.status == TicketStatus.WAITING.value:
            await self.try_ticket(ticket_id)
        elif ticket.status == TicketStatus.SEATING.value:
            await self._retry_seating(ticket)
        return await self.ticket_view(ticket_id)

    async def cancel_ticket(self, player_id: str, ticket_id: str) -> TicketView:
        """Withdraw a waiting ticket: its buy-in goes back to the wallet (idempotent)."""
        async with self.db.write() as session:
            ticket = await locked(session, TicketRow, TicketRow.id == ticket_id)
            if ticket is None or ticket.player_id != player_id:
                raise DomainError(
                    404, "ticket_not_found", f"you have no ticket {ticket_id}", "ticket_id"
                )
            released = ticket.status == TicketStatus.WAITING.value
            if released:
                await self._release(session, ticket, TicketStatus.CANCELLED)
            elif ticket.status in (TicketStatus.SEATING.value, TicketStatus.SEATED.value):
                raise DomainError(
                    409,
                    "ticket_seated",
                    "this ticket found a seat: leave the table instead",
                    "ticket_id",
                )
        if released:
            self.looking.changed(ticket.city, ticket.stake_level)
        return await self.ticket_view(ticket_id)

    async def _release(
        self, session: AsyncSession, ticket: TicketRow, status: TicketStatus
    ) -> None:
        await post(
            session,
            f"release:{ticket.id}",
            "ticket_release",
            [
                (hold_account(ticket.id), -ticket.buy_in),
                (wallet_account(ticket.player_id), ticket.buy_in),
            ],
            reference=f"tickets/{ticket.id}",
        )
        ticket.status = status.value
        ticket.updated_at = utc_now()
        session.add(ticket)

    async def try_ticket(self, ticket_id: str) -> None:
        """Place a waiting ticket at a table of its city and stake with a free seat, if any."""
        for _ in range(3):
            reserved = await self._reserve(ticket_id)
            if reserved is None:
                return
            seated = await self._seat(ticket_id, reserved)
            if seated is not False:
                return  # seated, or the engine will be asked again later

    async def _reserve(self, ticket_id: str) -> str | None:
        """A seat reserved for a waiting ticket at a table with one free (its session id), or
        None: an expired ticket released, or no seat free."""
        async with self.db.write() as session:
            ticket = await locked(session, TicketRow, TicketRow.id == ticket_id)
            if ticket is None or ticket.status != TicketStatus.WAITING.value:
                return None
            expired = ticket.expires_at <= utc_now()
            if expired:
                await self._release(session, ticket, TicketStatus.EXPIRED)
                reserved = None
            else:
                reserved = await self._reserve_seat(session, ticket)
        if expired or reserved is not None:
            # Committed: the holder waits no more, and a player alone may have company.
            self.looking.changed(ticket.city, ticket.stake_level)
        return reserved

    async def _reserve_seat(self, session: AsyncSession, ticket: TicketRow) -> str | None:
        """A seat for ``ticket`` (locked, waiting) at a table of its city and level with one
        free, its buy-in moved from the ticket's hold to the table's escrow (None: none free)."""
        level = await find_stake_level(session, ticket.stake_level)
        assert level is not None
        capacity = seats_at(level)
        mine = select(LobbySeatRow.table_id).where(
            col(LobbySeatRow.player_id) == ticket.player_id,
            col(LobbySeatRow.state).in_([SeatState.PENDING.value, SeatState.SEATED.value]),
            col(LobbySeatRow.settled_at).is_(None),
        )
        query = select(QuickTableRow.table_id).where(
            col(QuickTableRow.city) == ticket.city,
            col(QuickTableRow.stake_level) == ticket.stake_level,
            col(QuickTableRow.status) == QuickTableStatus.OPEN.value,
            col(QuickTableRow.table_id).not_in(mine),
        )
        if ticket.for_table_id is not None:
            query = query.where(col(QuickTableRow.table_id) == ticket.for_table_id)
        candidates = (await session.exec(query.order_by(col(QuickTableRow.created_at)))).all()
        for table_id in candidates:
            table = await locked(session, QuickTableRow, QuickTableRow.table_id == table_id)
            if table is None or table.status != QuickTableStatus.OPEN.value:
                continue
            if await occupied_seats(session, table_id) >= capacity:
                continue
            if (
                ticket.for_table_id is not None
                and await still_missing_players(session, table_id) == 0
            ):
                continue  # the table has the players it asked for (locked: no race)
            now = utc_now()
            seat = LobbySeatRow(
                seat_session_id=new_id("ss", size=12),
                table_id=table_id,
                player_id=ticket.player_id,
                buy_in=ticket.buy_in,
                source=SeatSource.TICKET.value,
                ticket_id=ticket.id,
                state=SeatState.PENDING.value,
                created_at=now,
            )
            session.add(seat)
            await session.flush()
            await post(
                session,
                f"seat:{seat.seat_session_id}",
                "buy_in",
                [
                    (hold_account(ticket.id), -ticket.buy_in),
                    (escrow_account(table_id), ticket.buy_in),
                ],
                reference=f"tables/{table_id}",
            )
            ticket.status = TicketStatus.SEATING.value
            ticket.table_id = table_id
            ticket.seat_session_id = seat.seat_session_id
            ticket.updated_at = now
            session.add(ticket)
            return seat.seat_session_id
        return None

    async def _seat(self, ticket_id: str, seat_session_id: str) -> bool | None:
        """SeatPlayer for a reserved seat: True seated, False refused (released), None later."""
        async with self.db.read() as session:
            seat = await session.get(LobbySeatRow, seat_session_id)
            assert seat is not None
            player = await session.get(PlayerRow, seat.player_id)
            assert player is not None
        try:
            seated = await self.engines.seat_player(
                seat.table_id, seat_session_id, player.id, player.username, seat.buy_in
            )
        except EngineError as error:
            if error.transient:
                log.info("seating ticket %s: engine unreachable (%s)", ticket_id, error)
                return None
            log.info("seating ticket %s at %s refused: %s", ticket_id, seat.table_id, error)
            await self._unreserve(ticket_id, seat_session_id)
            return False
        async with self.db.write() as session:
            locked_ticket = await locked(session, TicketRow, TicketRow.id == ticket_id)
            locked_seat = await locked(
                session, LobbySeatRow, LobbySeatRow.seat_session_id == seat_session_id
            )
            if locked_seat.state == SeatState.PENDING.value:
                locked_seat.state = SeatState.SEATED.value
                locked_seat.seat = seated.seat
                session.add(locked_seat)
            if locked_ticket.status == TicketStatus.SEATING.value:
                locked_ticket.status = TicketStatus.SEATED.value
                locked_ticket.updated_at = utc_now()
                session.add(locked_ticket)
        return True

    async def _unreserve(self, ticket_id: str, seat_session_id: str) -> None:
        async with self.db.write() as session:
            ticket = await locked(session, TicketRow, TicketRow.id == ticket_id)
            seat = await locked(
                session, LobbySeatRow, LobbySeatRow.seat_session_id == seat_session_id
            )
            if seat.state != SeatState.PENDING.value:
                return
            await post(
                session,
                f"unseat:{seat_session_id}",
                "buy_in_back",
                [
                    (escrow_account(seat.table_id), -seat.buy_in),
                    (hold_account(ticket_id), seat.buy_in),
                ],
                reference=f"tables/{seat.table_id}",
            )
            seat.state = SeatState.FAILED.value
            session.add(seat)
            ticket.status = TicketStatus.WAITING.value
            ticket.table_id = None
            ticket.seat_session_id = None
            ticket.updated_at = utc_now()
            session.add(ticket)
        # Committed: he waits again, and the table's player may be alone again.
        self.looking.changed(ticket.city, ticket.stake_level)

    async def _retry_seating(self, ticket: TicketRow) -> None:
        if not ticket.seat_session_id or ticket.updated_at > utc_now() - SEATING_RETRY:
            return
        if await self._seat(ticket.id, ticket.seat_session_id) is False:
            await self.try_ticket(ticket.id)

    async def match_waiting(self, city: str, stake_level: str) -> None:
        """Try every waiting ticket of a city and stake (a table opened or a seat freed)."""
        # One statement on its own (no BEGIN and ROLLBACK), built once: it follows every
        # quick game.
        rows = await self.db.fetch(_WAITING_TICKETS, {"city": city, "stake_level": stake_level})
        for (ticket_id,) in rows:
            try:
                await self.try_ticket(ticket_id)
            except Exception:
                log.exception("matching ticket %s failed", ticket_id)

    # ---------------------------------------------------------------- at the table

    async def sweep_tickets(self) -> None:
        async with self.db.read() as session:
            tickets = (
                await session.exec(
                    select(TicketRow)
                    .where(
                        col(TicketRow.status).in_(
                            [TicketStatus.WAITING.value, TicketStatus.SEATING.value]
                        )
                    )
                    .order_by(col(TicketRow.created_at))
                    .limit(500)
                )
            ).all()
        for ticket in tickets:
            try:
                if ticket.status == TicketStatus.WAITING.value:
                    await self.try_ticket(ticket.id)
                else:
                    await self._retry_seating(ticket)
            except Exception:
                log.exception("sweeping ticket %s failed", ticket.id)
