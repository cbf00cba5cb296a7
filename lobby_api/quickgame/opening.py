"""Opening a quick game: a private table dealt from the opener's seed pair, and his seat.

Money first, then the engine: the buy-in moves from the wallet to the new table's escrow in
one transaction with the table's and the seat's rows (and the request's idempotency key);
then CreateTable with the opener's seat (one engine call, one engine write: issue 16),
idempotent on the ids the lobby chose; SeatPlayer only where the engine did not seat him (an
engine older than CreateTable's ``opener_seat``). If the engine refuses
for good, the buy-in goes back (key ``refund:{seat_session_id}``); if it cannot be reached,
the money waits in escrow and the request is finished by a retry with the same
Idempotency-Key or by the sweep (:mod:`lobby_api.idempotency`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import msgspec
import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession
from stud.v1 import admin_service_pb2

from engine_server.ids import new_id
from engine_server.store.types import utc_now
from lobby_api.accounts.models import PlayerRow
from lobby_api.catalog.models import StakeLevel
from lobby_api.catalog.services import (
    check_buy_in,
    find_stake_level,
    get_stake_level,
    rule_overrides,
)
from lobby_api.db import Database
from lobby_api.engine_client import EngineError, TableSpec
from lobby_api.engine_nodes import TableEngines
from lobby_api.idempotency import Answer, Transient, finish_with, run_idempotent
from lobby_api.problems import DomainError
from lobby_api.quickgame.common import check_client_seed, engine_refusal, escrow, locked, problem
from lobby_api.quickgame.models import QuickTableRow, QuickTableStatus
from lobby_api.quickgame.schemas import QuickGameRequest, QuickGameView
from lobby_api.quickgame.tables import quick_settlement
from lobby_api.settlement.models import LobbySeatRow, SeatSource, SeatState
from lobby_api.wallet.ledger import escrow_account, post, wallet_account

__all__ = ["QuickGameOpening"]

log = logging.getLogger("stud.lobby.quickgame")


_SEATS: sa.Table = LobbySeatRow.__table__  # type: ignore[attr-defined]
_TABLES: sa.Table = QuickTableRow.__table__  # type: ignore[attr-defined]
# The quick game's writes as SQLAlchemy Core statements, built once with bound parameters
# (issue 16: the ORM's unit of work and building the statements cost more than the SQL).
_INSERT_TABLE = sa.insert(_TABLES)
_INSERT_SEAT = sa.insert(_SEATS)
_SEATED = (
    sa.update(_SEATS)
    .where(_SEATS.c.seat_session_id == sa.bindparam("seat_id", type_=sa.String))
    .values(state=SeatState.SEATED.value, seat=sa.bindparam("number", type_=sa.Integer))
)
_OPENED = (
    sa.update(_TABLES)
    .where(
        _TABLES.c.table_id == sa.bindparam("opened_id", type_=sa.String),
        _TABLES.c.status == QuickTableStatus.OPENING.value,
    )
    .values(status=QuickTableStatus.OPEN.value)
)


@dataclass(frozen=True, slots=True)
class _Opening:
    """What completing a quick game needs: its rows as prepare wrote them, or as a retry
    (or the sweep) reads them."""

    table_id: str
    node_id: str | None
    city: str
    client_seed: str
    level: StakeLevel
    player_id: str
    username: str
    buy_in: int
    seat_state: str
    seat: int | None


class QuickGameOpening:
    """``POST /quickgame``: escrow the buy-in, open the table on the engine, seat the opener."""

    #: The operation name its idempotency keys carry (the sweep resumes it by this name).
    OPERATION = "quickgame"

    def __init__(self, db: Database, engines: TableEngines) -> None:
        self.db = db
        self.engines = engines

    async def open_quick_game(
        self, player: PlayerRow, data: QuickGameRequest, key: str, fingerprint: str
    ) -> Answer:
        """Escrow the buy-in, open a private table dealt from the player's seed pair, seat him."""
        prepared: list[_Opening] = []
        seat_session_id = new_id("ss", size=12)

        async def prepare(session: AsyncSession) -> None:
            level = await get_stake_level(session, data.stake_level)
            check_buy_in(level, data.buy_in)
            client_seed = check_client_seed(data.client_seed)
            now = utc_now()
            table_id = new_id("qg", size=8)
            await escrow(
                session,
                f"buyin:{seat_session_id}",
                wallet_account(player.id),
                table_id,
                data.buy_in,
                "buy_in",
            )
            # Chosen once: a retried CreateTable goes to the same node. Chosen last: the
            # placement lock (PostgreSQL) is held from here to the commit, and every quick
            # game of the room waits for it.
            node_id = await self.engines.choose(session)
            # Inserted as rows (SQLAlchemy Core), not as objects of the ORM's unit of work
            # (issue 16): every column named, as the models' defaults would fill them.
            await session.exec(
                _INSERT_TABLE,
                params={
                    "table_id": table_id,
                    "opener_player_id": player.id,
                    "city": player.city,
                    "stake_level": level.id,
                    "client_seed": client_seed,
                    "status": QuickTableStatus.OPENING.value,
                    "node_id": node_id,
                    "raked_through": 0,
                    "created_at": now,
                    "closed_at": None,
                    "finished_at": None,
                },
            )
            await session.exec(
                _INSERT_SEAT,
                params={
                    "seat_session_id": seat_session_id,
                    "table_id": table_id,
                    "player_id": player.id,
                    "buy_in": data.buy_in,
                    "source": SeatSource.QUICKGAME.value,
                    "ticket_id": None,
                    "state": SeatState.PENDING.value,
                    "seat": None,
                    "settled_amount": None,
                    "settled_at": None,
                    "created_at": now,
                },
            )
            prepared.append(
                _Opening(
                    table_id=table_id,
                    node_id=node_id,
                    city=player.city,
                    client_seed=client_seed,
                    level=level,
                    player_id=player.id,
                    username=player.username,
                    buy_in=data.buy_in,
                    seat_state=SeatState.PENDING.value,
                    seat=None,
                )
            )

        async def complete(seat_session_id: str) -> Answer:
            # Right after prepare (this request's), its rows as it committed them; a retry or
            # the sweep (which may finish a request another process began) reads them.
            return await self.complete_quick_game(
                seat_session_id, prepared[0] if prepared else None
            )

        await quick_settlement(self.db, self.engines).settle_player(player.id)
        return await run_idempotent(
            self.db,
            player_id=player.id,
            key=key,
            operation=self.OPERATION,
            fingerprint=fingerprint,
            reference=seat_session_id,
            prepare=prepare,
            complete=complete,
        )

    async def _read_opening(self, seat_session_id: str) -> _Opening:
        async with self.db.read() as session:
            seat = await session.get(LobbySeatRow, seat_session_id)
            assert seat is not None, seat_session_id
            table = await session.get(QuickTableRow, seat.table_id)
            assert table is not None
            level = await find_stake_level(session, table.stake_level)
            player = await session.get(PlayerRow, seat.player_id)
            assert level is not None and player is not None
        return _Opening(
            table_id=table.table_id,
            node_id=table.node_id,
            city=table.city,
            client_seed=table.client_seed,
            level=level,
            player_id=player.id,
            username=player.username,
            buy_in=seat.buy_in,
            seat_state=seat.state,
            seat=seat.seat,
        )

    async def complete_quick_game(
        self, seat_session_id: str, known: _Opening | None = None
    ) -> Answer:
        """CreateTable and SeatPlayer, then the seat and the table marked open (``known``:
        the rows prepare has just committed, else they are read)."""
        opening = known or await self._read_opening(seat_session_id)
        level = opening.level
        if opening.seat_state == SeatState.FAILED.value:
            return problem(
                DomainError(502, "engine_refused", "the game server refused to open the table")
            )
        spec = TableSpec(
            request_id=opening.table_id,
            table_id=opening.table_id,
            profile=level.profile,
            ante=level.ante,
            bring_in=level.bring_in,
            small_bet=level.small_bet,
            big_bet=level.big_bet,
            min_buy_in=level.min_buy_in,
            max_buy_in=level.max_buy_in,
            client_seed=opening.client_seed,
            opener_player_id=opening.player_id,
            rule_overrides=rule_overrides(level),
            labels={"city": opening.city, "stake_level": level.id, "kind": "quickgame"},
            opener_seat=admin_service_pb2.OpenerSeat(
                seat_session_id=seat_session_id,
                display_name=opening.username,
                buy_in=opening.buy_in,
            ),
        )
        self.engines.expect(opening.table_id, opening.node_id)
        try:
            opened = await self.engines.open_table(spec)
            engine_table = opened.table
            number = opening.seat
            if opened.HasField("opener_session"):
                number = opened.opener_session.seat
            elif opening.seat_state != SeatState.SEATED.value:
                seated = await self.engines.seat_player(
                    opening.table_id,
                    seat_session_id,
                    opening.player_id,
                    opening.username,
                    opening.buy_in,
                )
                number = seated.seat
        except EngineError as error:
            if error.transient:
                raise Transient(str(error)) from None
            log.warning("quick game %s refused by the engine: %s", opening.table_id, error)
            # Closed on the engine whatever the refusal: a refused seat at a table an
            # earlier try created leaves the table there (none found: nothing to close).
            await self._fail_quick_game(seat_session_id)
            field = "client_seed" if error.field == "client_seed" else None
            return problem(engine_refusal(error, field))
        # The node that owns the table now (it created it).
        route = await self.engines.route(opening.table_id)
        view = QuickGameView(
            table=f"tables/{opening.table_id}",
            table_id=opening.table_id,
            engine_grpc=route.grpc,
            engine_grpc_web=route.web,
            commitment=engine_table.seed.commitment,
            next_commitment=engine_table.next_commitment,
            client_seed=opening.client_seed,
            seat_session_id=seat_session_id,
            seat=number or 0,
            buy_in=opening.buy_in,
            stake_level=level.id,
            city=opening.city,
        )
        # The seat and the table marked, and the answer stored, at once; no read first: each
        # row is locked as it is updated.
        return await finish_with(
            self.db,
            (
                (_SEATED, {"seat_id": seat_session_id, "number": number}),
                (_OPENED, {"opened_id": opening.table_id}),
            ),
            Answer(201, msgspec.to_builtins(view)),
        )

    async def _fail_quick_game(self, seat_session_id: str) -> None:
        async with self.db.write() as session:
            seat = await locked(
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
        try:
            await self.engines.close_table(seat.table_id, "the opener could not be seated")
        except EngineError as error:
            if error.reason != "TABLE_NOT_FOUND":
                log.warning("closing failed table %s: %s", seat.table_id, error)
