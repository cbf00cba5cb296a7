"""Top-ups: chips added between hands (table stakes), within the level's buy-in limits.

The amount moves from the wallet to the table's escrow with a :class:`TopUpRow` (and the
request's idempotency key), then AddChips, idempotent on the top-up's id. A definite refusal
gives the money back (key ``topup-refund:{id}``); an unreachable engine leaves the request to
a retry with the same key or to the sweep.
"""

from __future__ import annotations

import msgspec
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.ids import new_id
from engine_server.store.types import utc_now
from lobby_api import engine_reads
from lobby_api.accounts.models import PlayerRow
from lobby_api.catalog.services import TOPUP_TO_MINIMUM_PROFILES, find_stake_level
from lobby_api.db import Database
from lobby_api.engine_client import EngineError
from lobby_api.engine_nodes import TableEngines
from lobby_api.idempotency import Answer, Transient, run_idempotent
from lobby_api.problems import DomainError
from lobby_api.quickgame.common import (
    engine_refusal,
    escrow,
    locked,
    my_seat,
    not_seated,
    problem,
)
from lobby_api.quickgame.models import QuickTableRow, TopUpRow, TopUpState
from lobby_api.quickgame.schemas import TopUpRequest, TopUpView
from lobby_api.quickgame.tables import quick_settlement
from lobby_api.settlement.models import LobbySeatRow, SeatState
from lobby_api.wallet.ledger import escrow_account, post, wallet_account

__all__ = ["TopUps"]


class TopUps:
    """``POST /tables/{table_id}/topup``."""

    #: The operation name its idempotency keys carry (the sweep resumes it by this name).
    OPERATION = "topup"

    def __init__(self, db: Database, engines: TableEngines) -> None:
        self.db = db
        self.engines = engines

    async def top_up(
        self, player: PlayerRow, table_id: str, data: TopUpRequest, key: str, fingerprint: str
    ) -> Answer:
        """Add chips between hands (table stakes), within the level's buy-in limits."""

        topup_id = new_id("tu", size=10)

        async def prepare(session: AsyncSession) -> None:
            seat = await my_seat(session, player.id, table_id)
            if seat is None or seat.state != SeatState.SEATED.value or seat.settled_at is not None:
                raise not_seated(table_id)
            engine_session = await engine_reads.seat_session(session, seat.seat_session_id)
            if engine_session is None or not engine_session.is_open:
                raise DomainError(
                    409, "seat_session_closed", "you are leaving or have left this table"
                )
            if await engine_reads.running_hand_of(session, seat.seat_session_id) is not None:
                raise DomainError(
                    409,
                    "hand_in_progress",
                    "chips are added only between hands; retry when this hand has ended",
                    headers={"Retry-After": "1"},
                )
            table = await session.get(QuickTableRow, table_id)
            assert table is not None
            level = await find_stake_level(session, table.stake_level)
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
                id=topup_id,
                seat_session_id=seat.seat_session_id,
                player_id=player.id,
                amount=data.amount,
                state=TopUpState.PENDING.value,
                created_at=utc_now(),
            )
            session.add(topup)
            await session.flush()
            await escrow(
                session,
                f"topup:{topup.id}",
                wallet_account(player.id),
                table_id,
                data.amount,
                "amount",
                kind="top_up",
            )

        await quick_settlement(self.db, self.engines).settle_player(player.id)
        return await run_idempotent(
            self.db,
            player_id=player.id,
            key=key,
            operation=self.OPERATION,
            fingerprint=fingerprint,
            reference=topup_id,
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
            session_pb = await self.engines.add_chips(
                seat.table_id, seat.seat_session_id, topup_id, topup.amount
            )
        except EngineError as error:
            if error.transient:
                raise Transient(str(error)) from None
            async with self.db.write() as session:
                row = await locked(session, TopUpRow, TopUpRow.id == topup_id)
                if row.state == TopUpState.PENDING.value:
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
                    row.state = TopUpState.REFUNDED.value
                    session.add(row)
            field = "amount" if error.reason == "BUY_IN_OUT_OF_RANGE" else None
            return problem(engine_refusal(error, field))
        async with self.db.write() as session:
            row = await locked(session, TopUpRow, TopUpRow.id == topup_id)
            row.state = TopUpState.DONE.value
            session.add(row)
        view = TopUpView(
            id=topup_id,
            table=f"tables/{seat.table_id}",
            seat_session_id=seat.seat_session_id,
            amount=topup.amount,
            stack=session_pb.stack,
        )
        return Answer(200, msgspec.to_builtins(view))
