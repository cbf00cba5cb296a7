"""A quick table nobody joins: what the lobby tells its player, and bots on request.

Matchmaking seats only players of the table's city, so a player of a city where nobody else
looks for a game sits alone. :meth:`BotRequests.opponents` says so — how many players sit at
his table, how many other players of his city look for a game at that stake level, whether
bots can come — and the player chooses: keep waiting, or ask for bots
(``POST /tables/{table_id}/bots``: fill my table to N players).

Bots come from a *bot desk*: an operator's bot service (``stud bots``) that polls
``POST /bots/desk`` with a service token (scope ``lobby``, signed with the shared secret —
players cannot pose as one). Each poll says which cities and stake levels it serves and is
answered with the tables that asked for bots there and still miss players; the service sends
bot accounts of the table's city with tickets for that table only
(``TicketRow.for_table_id``), which matchmaking places there while the table still misses
players. Bots are "available" for a city and stake level while a desk serving them has
polled within :data:`DESK_SECONDS`; asking for bots anywhere else is refused (409
``bots_unavailable``), so the lobby never promises bots that do not run.
"""

from __future__ import annotations

from datetime import timedelta
from functools import cache
from typing import Any, Literal

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.auth import Scope, TokenError, verify_token
from engine_server.store.types import UTCDateTime, utc_now
from lobby_api.accounts.models import PlayerRow
from lobby_api.catalog.models import CityRow, StakeLevelRow
from lobby_api.catalog.services import find_stake_level, get_city, get_stake_level, seats_at
from lobby_api.db import Database
from lobby_api.engine_nodes import TableEngines
from lobby_api.problems import DomainError
from lobby_api.quickgame.common import locked, my_seat, not_seated
from lobby_api.quickgame.looking import PlayersLooking, seat_taken
from lobby_api.quickgame.models import (
    BotDeskRow,
    BotRequestRow,
    QuickTableRow,
    QuickTableStatus,
)
from lobby_api.quickgame.reveals import seed_reveals
from lobby_api.quickgame.schemas import (
    BotDeskRequest,
    BotDeskView,
    BotRequestView,
    Opponents,
    TableView,
)
from lobby_api.settlement.models import LobbySeatRow, SeatState
from lobby_api.settlement.services import occupied_seats

__all__ = [
    "DESK_SECONDS",
    "POLL_WITHIN",
    "BotRequests",
    "check_desk_token",
    "still_missing_players",
]

#: A desk that has not polled for this long no longer counts: its bots are not promised.
DESK_SECONDS = 10.0
#: What a desk is told: poll again within this (well inside :data:`DESK_SECONDS`).
POLL_WITHIN = 4.0
#: Desk rows not touched for this long are deleted (each service run has its own name).
DESK_ROWS_KEPT = timedelta(days=1)
#: The most requests one poll lists.
REQUESTS_PER_POLL = 100

_ENDED = (
    QuickTableStatus.CLOSING.value,
    QuickTableStatus.CLOSED.value,
    QuickTableStatus.FAILED.value,
)


def check_desk_token(authorization: str | None, secret: str) -> str:
    """The desk's service name from its ``Bearer`` token (scope ``lobby``): 401 without a
    valid token, 403 with a token of another kind (a player's)."""
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise DomainError(
            401,
            "unauthenticated",
            "a bot desk sends 'Authorization: Bearer <service token>' (scope lobby)",
            "Authorization",
            headers={"WWW-Authenticate": 'Bearer realm="stud"'},
        )
    try:
        identity = verify_token(token.strip(), secret)
    except TokenError as error:
        raise DomainError(
            401,
            "token_invalid",
            str(error),
            "Authorization",
            headers={"WWW-Authenticate": 'Bearer realm="stud"'},
        ) from None
    if not identity.has(Scope.LOBBY):
        raise DomainError(
            403, "not_a_bot_desk", "only a service token (scope lobby) may poll the bot desk"
        )
    return identity.subject


async def still_missing_players(session: AsyncSession, table_id: str) -> int:
    """Seats a table that asked for bots still wants filled (0: none, or it did not ask)."""
    request = await session.get(BotRequestRow, table_id)
    if request is None:
        return 0
    return max(0, request.players - await occupied_seats(session, table_id))


async def _desk_serves(session: AsyncSession, city: str, stake_level: str) -> bool:
    since = utc_now() - timedelta(seconds=DESK_SECONDS)
    found = await session.exec(
        select(BotDeskRow.desk)
        .where(
            col(BotDeskRow.city) == city,
            col(BotDeskRow.stake_level) == stake_level,
            col(BotDeskRow.seen_at) > since,
        )
        .limit(1)
    )
    return found.first() is not None


@cache
def _opponents_query() -> sa.Select[Any]:
    """Everything :meth:`BotRequests.opponents` says of the table, in one statement (issue 16:
    it was eight, in a read transaction of their own, at every quick game): the table, the
    names of its city and stake level, whether the player's latest seat there is unsettled
    (NULL: he has none), how many seats are taken, the bot request, and whether a desk serves
    the city and level now. How many other players of the city look for a game there comes
    from :class:`~lobby_api.quickgame.looking.PlayersLooking`.

    Bound at each use: ``table_id``, ``player_id`` and ``since`` (a desk that polled after it
    serves). Built once: building SQLAlchemy expressions costs more than the SQL.
    """
    table = sa.alias(QuickTableRow.__table__, "t")  # type: ignore[attr-defined]
    player_id = sa.bindparam("player_id", type_=sa.String)
    time_type = UTCDateTime()
    seat_open = (
        sa.select(sa.case((col(LobbySeatRow.settled_at).is_(None), 1), else_=0))
        .where(
            col(LobbySeatRow.player_id) == player_id,
            col(LobbySeatRow.table_id) == table.c.table_id,
            col(LobbySeatRow.state).in_([SeatState.PENDING.value, SeatState.SEATED.value]),
        )
        .order_by(col(LobbySeatRow.created_at).desc())
        .limit(1)
        .correlate(table)
        .scalar_subquery()
        .label("seat_open")
    )
    taken = (
        sa.select(sa.func.count())
        .select_from(LobbySeatRow)
        .where(col(LobbySeatRow.table_id) == table.c.table_id, seat_taken())
        .correlate(table)
        .scalar_subquery()
    )
    desk = sa.exists().where(
        col(BotDeskRow.city) == table.c.city,
        col(BotDeskRow.stake_level) == table.c.stake_level,
        col(BotDeskRow.seen_at) > sa.bindparam("since", type_=time_type),
    )
    return sa.select(
        table.c.status,
        table.c.city,
        table.c.stake_level,
        sa.select(col(CityRow.name))
        .where(col(CityRow.id) == table.c.city)
        .correlate(table)
        .scalar_subquery(),
        sa.select(col(StakeLevelRow.name))
        .where(col(StakeLevelRow.id) == table.c.stake_level)
        .correlate(table)
        .scalar_subquery(),
        seat_open,
        taken,
        sa.select(col(BotRequestRow.players))
        .where(col(BotRequestRow.table_id) == table.c.table_id)
        .correlate(table)
        .scalar_subquery(),
        sa.case((desk.correlate(table), 1), else_=0),
    ).where(table.c.table_id == sa.bindparam("table_id", type_=sa.String))


def _opponents_parameters(table_id: str, player_id: str) -> dict[str, Any]:
    return {
        "table_id": table_id,
        "player_id": player_id,
        "since": utc_now() - timedelta(seconds=DESK_SECONDS),
    }


def _opponents(row: Any, table_id: str, waiting: int) -> Opponents:
    """What a player at the table is told, from its row of :func:`_opponents_query` and how
    many other players of its city look for a game at its level (``waiting``)."""
    status, city, stake_level, city_name, level_name, _, taken, fill_to, desk = row
    players = int(taken)
    city_name = city_name if city_name is not None else city
    level_name = level_name if level_name is not None else stake_level
    bots: Literal["available", "requested", "unavailable"]
    state: Literal["playing", "waiting", "closed"]
    if fill_to is not None:
        bots = "requested"
    elif desk:
        bots = "available"
    else:
        bots = "unavailable"
    if status in _ENDED:
        state, message = "closed", "The table is closed."
    elif players >= 2:
        state = "playing"
        message = f"{players} players at the table: the game is on."
        if fill_to is not None and players < fill_to:
            message += f" More bots are on their way (to {fill_to} players)."
    else:
        state = "waiting"
        others = (
            "nobody else is looking for a game there now"
            if waiting == 0
            else f"{waiting} other player{'s' if waiting > 1 else ''} "
            f"{'are' if waiting > 1 else 'is'} looking for a game there (a player "
            "with a ticket sits in here as a seat is free)"
        )
        message = f"Waiting for players of {city_name} at {level_name}: {others}."
        path = f"/tables/{table_id}"
        if bots == "requested":
            message += f" Bots are on their way (to fill the table to {fill_to} players)."
        elif bots == "available":
            message += f" Keep waiting, or play with bots (POST {path}/bots)."
        else:
            message += (
                f" No bots serve {city_name} at this level: keep waiting, "
                f"or leave (POST {path}/leave)."
            )
    return Opponents(
        state=state,
        players=players,
        waiting=waiting,
        bots=bots,
        bots_fill_to=fill_to,
        message=message,
    )


class BotRequests:
    """What a player alone at a quick table is told, his request for bots, the bot desk."""

    def __init__(self, db: Database, engines: TableEngines, looking: PlayersLooking) -> None:
        self.db = db
        self.engines = engines
        self.looking = looking

    # ------------------------------------------------------------------ player side

    async def opponents(
        self, session: AsyncSession, table: QuickTableRow, player_id: str
    ) -> Opponents:
        """Who plays at ``table`` now, and (alone) what ``player_id`` can do about it."""
        row = (
            await session.exec(  # type: ignore[call-overload]
                _opponents_query(), params=_opponents_parameters(table.table_id, player_id)
            )
        ).one()
        return await self._told(row, table.table_id, player_id)

    async def _told(self, row: Any, table_id: str, player_id: str) -> Opponents:
        waiting = await self.looking.count(row.city, row.stake_level, besides=player_id)
        return _opponents(row, table_id, waiting)

    async def _my_table(
        self, session: AsyncSession, player_id: str, table_id: str
    ) -> QuickTableRow:
        seat = await my_seat(session, player_id, table_id)
        table = await session.get(QuickTableRow, table_id)
        if seat is None or seat.settled_at is not None or table is None:
            raise not_seated(table_id)
        return table

    async def table_view(self, player_id: str, table_id: str) -> TableView:
        """``GET /tables/{table_id}`` for a player seated there (404 ``not_seated`` else)."""
        async with self.db.read() as session:
            table = await self._my_table(session, player_id, table_id)
            return await self._view(session, table, player_id)

    async def opponents_at(self, player_id: str, table_id: str) -> Opponents | None:
        """:meth:`opponents` at a table the player sits at (None: he left it since), in one
        statement without a transaction."""
        rows = await self.db.fetch(_opponents_query(), _opponents_parameters(table_id, player_id))
        if not rows or rows[0].seat_open != 1:
            return None
        return await self._told(rows[0], table_id, player_id)

    async def _view(self, session: AsyncSession, table: QuickTableRow, player_id: str) -> TableView:
        # Where the table is served now: a client whose node died without a word (no
        # TABLE_MOVED) asks here where its table went (docs/operations.md).
        where = await self.engines.addresses(table.table_id, session)
        return TableView(
            table=f"tables/{table.table_id}",
            table_id=table.table_id,
            engine_grpc=where["engine_grpc"],
            engine_grpc_web=where["engine_grpc_web"],
            city=table.city,
            stake_level=table.stake_level,
            opponents=await self.opponents(session, table, player_id),
            seed_reveals=await seed_reveals(session, table.table_id, player_id),
        )

    async def ask(self, player: PlayerRow, table_id: str, players: int) -> TableView:
        """Ask for bots to fill the table to ``players`` (asked again: the new number).

        Refused where no bot desk serves the table's city and stake level (409
        ``bots_unavailable``), beyond the table's seats (422 ``too_many_players``), or at a
        table that is closing (409 ``table_closed``).
        """
        async with self.db.write() as session:
            table = await locked(session, QuickTableRow, QuickTableRow.table_id == table_id)
            if table is None:
                raise not_seated(table_id)
            await self._my_table(session, player.id, table_id)
            if table.status in _ENDED:
                raise DomainError(409, "table_closed", f"table {table_id} is closing", "table_id")
            level = await find_stake_level(session, table.stake_level)
            assert level is not None
            capacity = seats_at(level)
            if players > capacity:
                raise DomainError(
                    422,
                    "too_many_players",
                    f"a quick game at {level.name} seats at most {capacity} players",
                    "players",
                )
            if not await _desk_serves(session, table.city, table.stake_level):
                city = await session.get(CityRow, table.city)
                raise DomainError(
                    409,
                    "bots_unavailable",
                    f"no bots serve {city.name if city else table.city} at {level.name} now: "
                    "keep waiting for players",
                    "table_id",
                )
            request = await session.get(BotRequestRow, table_id)
            if request is None:
                request = BotRequestRow(
                    table_id=table_id, player_id=player.id, players=players, created_at=utc_now()
                )
            request.players = players
            session.add(request)
            await session.flush()
            return await self._view(session, table, player.id)

    async def withdraw(self, player: PlayerRow, table_id: str) -> TableView:
        """Keep waiting after all: no more bots are sent (those seated stay while you play)."""
        async with self.db.write() as session:
            table = await self._my_table(session, player.id, table_id)
            request = await session.get(BotRequestRow, table_id)
            if request is not None:
                await session.delete(request)
                await session.flush()
            return await self._view(session, table, player.id)

    # -------------------------------------------------------------------- bot desk

    async def desk(self, data: BotDeskRequest) -> BotDeskView:
        """A bot desk's poll: note that it serves these cities and levels, and list the
        tables there that asked for bots and still miss players, oldest first."""
        now = utc_now()
        async with self.db.write() as session:
            cities = await self._names(session, data.cities, CityRow, "cities")
            levels = await self._names(session, data.stake_levels, StakeLevelRow, "stake_levels")
            for city in cities:
                for level in levels:
                    await session.merge(
                        BotDeskRow(desk=data.desk, city=city, stake_level=level, seen_at=now)
                    )
            await session.exec(
                sa.delete(BotDeskRow).where(col(BotDeskRow.seen_at) < now - DESK_ROWS_KEPT)
            )
            rows = (
                await session.exec(
                    select(BotRequestRow, QuickTableRow)
                    .join(QuickTableRow, col(QuickTableRow.table_id) == col(BotRequestRow.table_id))
                    .where(
                        col(QuickTableRow.status) == QuickTableStatus.OPEN.value,
                        col(QuickTableRow.city).in_(cities),
                        col(QuickTableRow.stake_level).in_(levels),
                    )
                    .order_by(col(BotRequestRow.created_at))
                    .limit(REQUESTS_PER_POLL)
                )
            ).all()
            requests = []
            for request, table in rows:
                missing = request.players - await occupied_seats(session, table.table_id)
                if missing > 0:
                    requests.append(
                        BotRequestView(
                            table=f"tables/{table.table_id}",
                            table_id=table.table_id,
                            city=table.city,
                            stake_level=table.stake_level,
                            players=request.players,
                            missing=missing,
                            requested_at=request.created_at,
                        )
                    )
        return BotDeskView(requests=requests, poll_within=POLL_WITHIN)

    @staticmethod
    async def _names(
        session: AsyncSession, names: list[str], model: type[CityRow | StakeLevelRow], field: str
    ) -> list[str]:
        """The ids named (``*``: every one), each checked to exist (422 otherwise)."""
        if "*" in names:
            return list((await session.exec(select(model.id))).all())
        for name in names:
            if model is CityRow:
                await get_city(session, name, field)
            else:
                await get_stake_level(session, name, field)
        return sorted(set(names))
