"""Quick games, matchmaking, top-ups, leaving, seed rotation — and the periodic sweep.

Money first, then the engine: every request that seats a player or adds chips
moves the money into the table's escrow in one transaction (with the rows that
say why), then asks the engine, whose AdminService calls are idempotent on the
ids the lobby chose. If the engine refuses for good, the money goes back (a
refund posting with its own key); if it cannot be reached, the money waits in
escrow and the request is finished by a retry with the same Idempotency-Key or
by the sweep. See :mod:`lobby_api.idempotency`.

Matchmaking: a ticket's buy-in waits in ``hold:tickets/{id}``. Placing it
locks the ticket, then the candidate table (``SELECT … FOR UPDATE``), counts
its taken seats and reserves one — so two replicas never fill one seat twice —
and moves the buy-in from the hold to the table's escrow; then SeatPlayer. A
table is a candidate only for players of its city and stake level, and seats
its opener and at most six others.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

import grpc
import msgspec
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.game.fairness import FairnessError, validate_client_seed
from engine_server.store.models import HandPlayerRow, HandRow, HandState, SeatSessionRow
from engine_server.store.models import SeatSessionState as EngineSessionState
from engine_server.store.types import utc_now
from lobby_api.accounts.models import PlayerRow
from lobby_api.catalog.models import StakeLevelRow
from lobby_api.catalog.services import (
    TOPUP_TO_MINIMUM_PROFILES,
    check_buy_in,
    get_stake_level,
    rule_overrides,
    seats_at,
)
from lobby_api.db import Database
from lobby_api.engine_client import EngineError, TableSpec
from lobby_api.engine_nodes import TableEngines
from lobby_api.idempotency import Answer, Transient, complete_and_finish, run_idempotent
from lobby_api.idempotency import _claim as claim_key
from lobby_api.problems import DomainError
from lobby_api.quickgame.models import (
    LobbySeatRow,
    QuickTableRow,
    QuickTableStatus,
    SeatSource,
    SeatState,
    TicketRow,
    TicketStatus,
    TopUpRow,
    TopUpState,
)
from lobby_api.quickgame.schemas import (
    LeaveView,
    QuickGameRequest,
    QuickGameView,
    RevealedSeed,
    RotateSeedView,
    TicketRequest,
    TicketView,
    TopUpRequest,
    TopUpView,
)
from lobby_api.settings import LobbySettings
from lobby_api.settlement import Settlement, occupied_seats
from lobby_api.wallet.ledger import (
    InsufficientFunds,
    escrow_account,
    hold_account,
    post,
    wallet_account,
)
from lobby_api.wallet.models import IdempotencyRow, IdempotencyState

__all__ = ["QuickGames", "engine_refusal"]

log = logging.getLogger("stud.lobby.quickgame")

#: A ticket stuck in "seating" (the engine did not answer) is retried after this long.
SEATING_RETRY = timedelta(seconds=3)


def _new_id(prefix: str, size: int = 10) -> str:
    return f"{prefix}-{secrets.token_hex(size)}"


def _insufficient(error: InsufficientFunds, field: str) -> DomainError:
    return DomainError(
        409,
        "insufficient_funds",
        f"your wallet holds {error.balance}; this needs {-error.amount}",
        field,
    )


def engine_refusal(error: EngineError, field: str | None = None) -> DomainError:
    """A problem for a definite refusal by the engine (the lobby checked the input before)."""
    reason = error.reason or error.code.name
    code = reason.lower()
    if error.code is grpc.StatusCode.FAILED_PRECONDITION:
        return DomainError(409, code, error.message or reason, field)
    if error.code is grpc.StatusCode.INVALID_ARGUMENT and field:
        # Only a field the player gave is his to fix; anything else is the lobby's setting.
        return DomainError(422, code, error.message or reason, field)
    if error.code is grpc.StatusCode.NOT_FOUND:
        return DomainError(404, code, error.message or reason, field)
    return DomainError(502, "engine_refused", f"the game server refused: {error}")


def _check_client_seed(seed: str) -> str:
    try:
        return validate_client_seed(seed)
    except FairnessError as error:
        raise DomainError(422, "invalid_client_seed", str(error), "client_seed") from None


async def _locked(session: AsyncSession, model: Any, *where: Any) -> Any:
    query = select(model).where(*where).with_for_update().execution_options(populate_existing=True)
    return (await session.exec(query)).first()


class QuickGames:
    """Everything between a player, his wallet and the engine's tables."""

    def __init__(
        self,
        db: Database,
        engine: TableEngines,
        settings: LobbySettings,
        settlement: Settlement,
    ) -> None:
        self.db = db
        self.engine = engine
        self.settings = settings
        self.settlement = settlement
        self.operations = {
            "quickgame": self.complete_quick_game,
            "ticket": self.complete_ticket,
            "topup": self.complete_top_up,
        }

    # ------------------------------------------------------------------ quick game

    async def open_quick_game(
        self, player: PlayerRow, data: QuickGameRequest, key: str, fingerprint: str
    ) -> Answer:
        """Escrow the buy-in, open a private table dealt from the player's seed pair, seat him."""

        async def prepare(session: AsyncSession) -> str:
            level = await get_stake_level(session, data.stake_level)
            check_buy_in(level, data.buy_in)
            client_seed = _check_client_seed(data.client_seed)
            now = utc_now()
            table = QuickTableRow(
                table_id=_new_id("qg", 8),
                # Chosen once: a retried CreateTable goes to the same node.
                node_id=await self.engine.choose(session),
                opener_player_id=player.id,
                city=player.city,
                stake_level=level.id,
                client_seed=client_seed,
                status=QuickTableStatus.OPENING.value,
                created_at=now,
            )
            seat = LobbySeatRow(
                seat_session_id=_new_id("ss", 12),
                table_id=table.table_id,
                player_id=player.id,
                buy_in=data.buy_in,
                source=SeatSource.QUICKGAME.value,
                state=SeatState.PENDING.value,
                created_at=now,
            )
            session.add(table)
            await session.flush()
            session.add(seat)
            await session.flush()
            await self._escrow(
                session,
                f"buyin:{seat.seat_session_id}",
                wallet_account(player.id),
                table.table_id,
                data.buy_in,
                "buy_in",
            )
            return seat.seat_session_id

        await self.settlement.settle_player(player.id)
        return await run_idempotent(
            self.db,
            player_id=player.id,
            key=key,
            operation="quickgame",
            fingerprint=fingerprint,
            prepare=prepare,
            complete=self.complete_quick_game,
        )

    async def _escrow(
        self,
        session: AsyncSession,
        key: str,
        source: str,
        table_id: str,
        amount: int,
        field: str,
        kind: str = "buy_in",
    ) -> None:
        try:
            await post(
                session,
                key,
                kind,
                [(source, -amount), (escrow_account(table_id), amount)],
                reference=f"tables/{table_id}",
            )
        except InsufficientFunds as error:
            raise _insufficient(error, field) from None

    async def complete_quick_game(self, seat_session_id: str) -> Answer:
        async with self.db.read() as session:
            seat = await session.get(LobbySeatRow, seat_session_id)
            assert seat is not None, seat_session_id
            table = await session.get(QuickTableRow, seat.table_id)
            assert table is not None
            level = await session.get(StakeLevelRow, table.stake_level)
            player = await session.get(PlayerRow, seat.player_id)
            assert level is not None and player is not None
        if seat.state == SeatState.FAILED.value:
            return _problem(
                DomainError(502, "engine_refused", "the game server refused to open the table")
            )
        spec = TableSpec(
            request_id=table.table_id,
            table_id=table.table_id,
            profile=level.profile,
            ante=level.ante,
            bring_in=level.bring_in,
            small_bet=level.small_bet,
            big_bet=level.big_bet,
            min_buy_in=level.min_buy_in,
            max_buy_in=level.max_buy_in,
            client_seed=table.client_seed,
            opener_player_id=player.id,
            rule_overrides=rule_overrides(level),
            labels={"city": table.city, "stake_level": level.id, "kind": "quickgame"},
        )
        created = False
        try:
            engine_table = await self.engine.create_table(spec)
            created = True
            number = seat.seat
            if seat.state != SeatState.SEATED.value:
                seated = await self.engine.seat_player(
                    table.table_id, seat_session_id, player.id, player.username, seat.buy_in
                )
                number = seated.seat
        except EngineError as error:
            if error.transient:
                raise Transient(str(error)) from None
            log.warning("quick game %s refused by the engine: %s", table.table_id, error)
            await self._fail_quick_game(seat_session_id, close_on_engine=created)
            field = "client_seed" if error.field == "client_seed" else None
            return _problem(engine_refusal(error, field))
        async with self.db.write() as session:
            locked_seat = await _locked(
                session, LobbySeatRow, LobbySeatRow.seat_session_id == seat_session_id
            )
            locked_seat.state = SeatState.SEATED.value
            locked_seat.seat = number
            session.add(locked_seat)
            locked_table = await session.get(QuickTableRow, table.table_id)
            if locked_table is not None and locked_table.status == QuickTableStatus.OPENING.value:
                locked_table.status = QuickTableStatus.OPEN.value
                session.add(locked_table)
        # The node that owns the table now (it created it).
        route = await self.engine.route(table.table_id)
        view = QuickGameView(
            table=f"tables/{table.table_id}",
            table_id=table.table_id,
            engine_grpc=route.grpc,
            engine_grpc_web=route.web,
            commitment=engine_table.seed.commitment,
            next_commitment=engine_table.next_commitment,
            client_seed=table.client_seed,
            seat_session_id=seat_session_id,
            seat=number or 0,
            buy_in=seat.buy_in,
            stake_level=level.id,
            city=table.city,
        )
        return Answer(201, msgspec.to_builtins(view))

    async def _fail_quick_game(self, seat_session_id: str, *, close_on_engine: bool) -> None:
        async with self.db.write() as session:
            seat = await _locked(
                session, LobbySeatRow, LobbySeatRow.seat_session_id == seat_session_id
            )
            if seat.state == SeatState.PENDING.value:
                await post(
                    session,
                    f"refund:{seat_session_id}",
                    "refund",
                    [
                        (escrow_account(seat.table_id), -seat.buy_in),
                        (wallet_account(seat.player_id), seat.buy_in),
                    ],
                    reference=f"tables/{seat.table_id}",
                )
                seat.state = SeatState.FAILED.value
                session.add(seat)
            table = await session.get(QuickTableRow, seat.table_id)
            if table is not None and table.status == QuickTableStatus.OPENING.value:
                table.status = QuickTableStatus.FAILED.value
                table.finished_at = utc_now()
                session.add(table)
        if close_on_engine:
            try:
                await self.engine.close_table(seat.table_id, "the opener could not be seated")
            except EngineError as error:
                log.warning("closing failed table %s: %s", seat.table_id, error)

    # --------------------------------------------------------------------- tickets

    async def open_ticket(
        self, player: PlayerRow, data: TicketRequest, key: str, fingerprint: str
    ) -> Answer:
        """Hold the buy-in and look for a seat at once (the ticket waits otherwise)."""

        async def prepare(session: AsyncSession) -> str:
            level = await get_stake_level(session, data.stake_level)
            check_buy_in(level, data.buy_in)
            now = utc_now()
            ticket = TicketRow(
                id=_new_id("tk"),
                player_id=player.id,
                city=player.city,
                stake_level=level.id,
                buy_in=data.buy_in,
                status=TicketStatus.WAITING.value,
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
                raise _insufficient(error, "buy_in") from None
            return ticket.id

        await self.settlement.settle_player(player.id)
        return await run_idempotent(
            self.db,
            player_id=player.id,
            key=key,
            operation="ticket",
            fingerprint=fingerprint,
            prepare=prepare,
            complete=self.complete_ticket,
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
        route = await self.engine.route(ticket.table_id) if seated and ticket.table_id else None
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
            engine_grpc=route.grpc if route is not None else None,
            engine_grpc_web=route.web if route is not None else None,
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
            ticket = await _locked(session, TicketRow, TicketRow.id == ticket_id)
            if ticket is None or ticket.player_id != player_id:
                raise DomainError(
                    404, "ticket_not_found", f"you have no ticket {ticket_id}", "ticket_id"
                )
            if ticket.status == TicketStatus.WAITING.value:
                await self._release(session, ticket, TicketStatus.CANCELLED)
            elif ticket.status in (TicketStatus.SEATING.value, TicketStatus.SEATED.value):
                raise DomainError(
                    409,
                    "ticket_seated",
                    "this ticket found a seat: leave the table instead",
                    "ticket_id",
                )
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
        async with self.db.write() as session:
            ticket = await _locked(session, TicketRow, TicketRow.id == ticket_id)
            if ticket is None or ticket.status != TicketStatus.WAITING.value:
                return None
            if ticket.expires_at <= utc_now():
                await self._release(session, ticket, TicketStatus.EXPIRED)
                return None
            level = await session.get(StakeLevelRow, ticket.stake_level)
            assert level is not None
            capacity = seats_at(level)
            mine = select(LobbySeatRow.table_id).where(
                col(LobbySeatRow.player_id) == ticket.player_id,
                col(LobbySeatRow.state).in_([SeatState.PENDING.value, SeatState.SEATED.value]),
                col(LobbySeatRow.settled_at).is_(None),
            )
            candidates = (
                await session.exec(
                    select(QuickTableRow.table_id)
                    .where(
                        col(QuickTableRow.city) == ticket.city,
                        col(QuickTableRow.stake_level) == ticket.stake_level,
                        col(QuickTableRow.status) == QuickTableStatus.OPEN.value,
                        col(QuickTableRow.table_id).not_in(mine),
                    )
                    .order_by(col(QuickTableRow.created_at))
                )
            ).all()
            for table_id in candidates:
                table = await _locked(session, QuickTableRow, QuickTableRow.table_id == table_id)
                if table is None or table.status != QuickTableStatus.OPEN.value:
                    continue
                if await occupied_seats(session, table_id) >= capacity:
                    continue
                now = utc_now()
                seat = LobbySeatRow(
                    seat_session_id=_new_id("ss", 12),
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
            seated = await self.engine.seat_player(
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
            locked_ticket = await _locked(session, TicketRow, TicketRow.id == ticket_id)
            locked_seat = await _locked(
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
            ticket = await _locked(session, TicketRow, TicketRow.id == ticket_id)
            seat = await _locked(
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

    async def _retry_seating(self, ticket: TicketRow) -> None:
        if not ticket.seat_session_id or ticket.updated_at > utc_now() - SEATING_RETRY:
            return
        if await self._seat(ticket.id, ticket.seat_session_id) is False:
            await self.try_ticket(ticket.id)

    async def match_waiting(self, city: str, stake_level: str) -> None:
        """Try every waiting ticket of a city and stake (a table opened or a seat freed)."""
        async with self.db.read() as session:
            ids = (
                await session.exec(
                    select(TicketRow.id)
                    .where(
                        col(TicketRow.status) == TicketStatus.WAITING.value,
                        col(TicketRow.city) == city,
                        col(TicketRow.stake_level) == stake_level,
                    )
                    .order_by(col(TicketRow.created_at))
                    .limit(100)
                )
            ).all()
        for ticket_id in ids:
            try:
                await self.try_ticket(ticket_id)
            except Exception:
                log.exception("matching ticket %s failed", ticket_id)

    # ---------------------------------------------------------------- at the table

    async def _my_seat(
        self, session: AsyncSession, player_id: str, table_id: str
    ) -> LobbySeatRow | None:
        """The player's latest seat at the table that got (or is getting) a seat."""
        query = (
            select(LobbySeatRow)
            .where(
                col(LobbySeatRow.player_id) == player_id,
                col(LobbySeatRow.table_id) == table_id,
                col(LobbySeatRow.state).in_([SeatState.PENDING.value, SeatState.SEATED.value]),
            )
            .order_by(col(LobbySeatRow.created_at).desc())
            .limit(1)
        )
        return (await session.exec(query)).first()

    async def top_up(
        self, player: PlayerRow, table_id: str, data: TopUpRequest, key: str, fingerprint: str
    ) -> Answer:
        """Add chips between hands (table stakes), within the level's buy-in limits."""

        async def prepare(session: AsyncSession) -> str:
            seat = await self._my_seat(session, player.id, table_id)
            if seat is None or seat.state != SeatState.SEATED.value or seat.settled_at is not None:
                raise _not_seated(table_id)
            engine_session = await session.get(SeatSessionRow, seat.seat_session_id)
            if engine_session is None or engine_session.state != EngineSessionState.OPEN.value:
                raise DomainError(
                    409, "seat_session_closed", "you are leaving or have left this table"
                )
            running = (
                await session.exec(
                    select(HandRow.id)
                    .join(HandPlayerRow, col(HandPlayerRow.hand_id) == col(HandRow.id))
                    .where(
                        col(HandRow.state) == HandState.RUNNING.value,
                        col(HandPlayerRow.seat_session_id) == seat.seat_session_id,
                    )
                )
            ).first()
            if running is not None:
                raise DomainError(
                    409,
                    "hand_in_progress",
                    "chips are added only between hands; retry when this hand has ended",
                    headers={"Retry-After": "1"},
                )
            table = await session.get(QuickTableRow, table_id)
            assert table is not None
            level = await session.get(StakeLevelRow, table.stake_level)
            assert level is not None
            stack = engine_session.stack + data.amount
            if stack > level.max_buy_in:
                raise DomainError(
                    422,
                    "buy_in_out_of_range",
                    f"your stack {engine_session.stack} + {data.amount} would exceed the "
                    f"maximum buy-in {level.max_buy_in}",
                    "amount",
                )
            if level.profile in TOPUP_TO_MINIMUM_PROFILES and stack < level.min_buy_in:
                raise DomainError(
                    422,
                    "buy_in_out_of_range",
                    f"at this table a top-up must bring your stack to at least the minimum "
                    f"buy-in {level.min_buy_in} (it would be {stack})",
                    "amount",
                )
            topup = TopUpRow(
                id=_new_id("tu"),
                seat_session_id=seat.seat_session_id,
                player_id=player.id,
                amount=data.amount,
                state=TopUpState.PENDING.value,
                created_at=utc_now(),
            )
            session.add(topup)
            await session.flush()
            await self._escrow(
                session,
                f"topup:{topup.id}",
                wallet_account(player.id),
                table_id,
                data.amount,
                "amount",
                kind="top_up",
            )
            return topup.id

        await self.settlement.settle_player(player.id)
        return await run_idempotent(
            self.db,
            player_id=player.id,
            key=key,
            operation="topup",
            fingerprint=fingerprint,
            prepare=prepare,
            complete=self.complete_top_up,
        )

    async def complete_top_up(self, topup_id: str) -> Answer:
        async with self.db.read() as session:
            topup = await session.get(TopUpRow, topup_id)
            assert topup is not None
            seat = await session.get(LobbySeatRow, topup.seat_session_id)
            assert seat is not None
        try:
            session_pb = await self.engine.add_chips(
                seat.table_id, seat.seat_session_id, topup_id, topup.amount
            )
        except EngineError as error:
            if error.transient:
                raise Transient(str(error)) from None
            async with self.db.write() as session:
                locked = await _locked(session, TopUpRow, TopUpRow.id == topup_id)
                if locked.state == TopUpState.PENDING.value:
                    await post(
                        session,
                        f"topup-refund:{topup_id}",
                        "refund",
                        [
                            (escrow_account(seat.table_id), -topup.amount),
                            (wallet_account(topup.player_id), topup.amount),
                        ],
                        reference=f"tables/{seat.table_id}",
                    )
                    locked.state = TopUpState.REFUNDED.value
                    session.add(locked)
            field = "amount" if error.reason == "BUY_IN_OUT_OF_RANGE" else None
            return _problem(engine_refusal(error, field))
        async with self.db.write() as session:
            locked = await _locked(session, TopUpRow, TopUpRow.id == topup_id)
            locked.state = TopUpState.DONE.value
            session.add(locked)
        view = TopUpView(
            id=topup_id,
            table=f"tables/{seat.table_id}",
            seat_session_id=seat.seat_session_id,
            amount=topup.amount,
            stack=session_pb.stack,
        )
        return Answer(200, msgspec.to_builtins(view))

    async def leave(self, player: PlayerRow, table_id: str) -> tuple[LeaveView, bool]:
        """Leave the table: paid out now between hands, at the hand's end otherwise.

        Returns the view and whether a seat was freed (so waiting tickets may be placed).
        """
        async with self.db.read() as session:
            seat = await self._my_seat(session, player.id, table_id)
        if seat is None:
            raise _not_seated(table_id)
        if seat.state == SeatState.PENDING.value:
            raise DomainError(
                409, "seat_pending", "your seat is still being set up; retry in a moment"
            )
        if seat.settled_at is None:
            try:
                await self.engine.remove_player(table_id, seat.seat_session_id)
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
        settled = await self.settlement.settle_seat(seat.seat_session_id)
        freed = settled is not None and settled.now
        if freed:
            await self.settlement.wind_up(table_id)
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

    async def rotate_seed(
        self, player: PlayerRow, table_id: str, client_seed: str | None
    ) -> RotateSeedView:
        """The opener reveals the dealer seed and switches to the next (between hands)."""
        seed = _check_client_seed(client_seed) if client_seed is not None else ""
        async with self.db.read() as session:
            table = await session.get(QuickTableRow, table_id)
        if table is None or (
            table.opener_player_id != player.id and not await self._sits_at(player.id, table_id)
        ):
            raise DomainError(404, "table_not_found", f"you have no table {table_id}", "table_id")
        if table.opener_player_id != player.id:
            raise DomainError(403, "not_the_opener", "only the table's opener rotates its seeds")
        if table.status != QuickTableStatus.OPEN.value:
            raise DomainError(409, "table_closed", f"table {table_id} is {table.status}")
        try:
            rotated = await self.engine.rotate_seed(table_id, seed)
        except EngineError as error:
            if error.transient:
                raise DomainError(
                    503, "engine_unavailable", f"the game server could not be reached ({error})"
                ) from None
            raise engine_refusal(
                error, "client_seed" if error.field == "client_seed" else None
            ) from None
        if seed:
            async with self.db.write() as session:
                locked = await session.get(QuickTableRow, table_id)
                if locked is not None:
                    locked.client_seed = seed
                    session.add(locked)
        return RotateSeedView(
            revealed=RevealedSeed(
                commitment=rotated.revealed.commitment,
                client_seed=rotated.revealed.client_seed,
                hands_dealt=rotated.revealed.hands_dealt,
                dealer_seed=rotated.revealed.dealer_seed,
            ),
            current=RevealedSeed(
                commitment=rotated.current.commitment,
                client_seed=rotated.current.client_seed,
                hands_dealt=rotated.current.hands_dealt,
            ),
            next_commitment=rotated.next_commitment,
        )

    async def _sits_at(self, player_id: str, table_id: str) -> bool:
        async with self.db.read() as session:
            return await self._my_seat(session, player_id, table_id) is not None

    async def table_of(self, table_id: str) -> QuickTableRow | None:
        async with self.db.read() as session:
            return await session.get(QuickTableRow, table_id)

    # ----------------------------------------------------------------------- sweep

    async def sweep_once(self) -> None:
        """Settle, rake, wind up tables, expire and place tickets, resume stuck requests."""
        await self.settlement.settle_all()
        await self.settlement.sweep_tables()
        await self._sweep_tickets()
        await self._resume_pending()

    async def sweep_forever(
        self, interval: float, also: Sequence[Callable[[], Awaitable[object]]] = ()
    ) -> None:
        """:meth:`sweep_once` every ``interval`` seconds, then each of ``also`` (the app's
        other housekeeping, e.g. forgetting rate-limit windows that are over)."""
        while True:
            for step in (self.sweep_once, *also):
                try:
                    await step()
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("sweep failed")
            await asyncio.sleep(interval)

    async def _sweep_tickets(self) -> None:
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

    async def _resume_pending(self) -> None:
        async with self.db.read() as session:
            rows = (
                await session.exec(
                    select(IdempotencyRow)
                    .where(
                        col(IdempotencyRow.state) == IdempotencyState.PENDING.value,
                        col(IdempotencyRow.locked_until) < utc_now(),
                    )
                    .limit(100)
                )
            ).all()
        for row in rows:
            complete = self.operations.get(row.operation)
            if complete is None or row.reference is None or not await claim_key(self.db, row):
                continue
            try:
                await complete_and_finish(self.db, row.player_id, row.key, row.reference, complete)
            except DomainError as error:
                log.info("resuming %s/%s: %s", row.operation, row.key, error.detail)
            except Exception:
                log.exception("resuming %s/%s failed", row.operation, row.key)


def _problem(error: DomainError) -> Answer:
    return Answer(error.status, error.document())


def _not_seated(table_id: str) -> DomainError:
    return DomainError(404, "not_seated", f"you have no seat at table {table_id}", "table_id")
