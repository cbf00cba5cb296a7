"""A quick table nobody joins: what the lobby tells its player, and bots on request.

Matchmaking seats only players of the table's city, so a player of a city where nobody else
looks for a game sits alone. :meth:`BotRequests.opponents` says so — how many players sit at
his table, how many other players of his city look for a game at that stake level, whether
bots can come and how many — and the player chooses: keep waiting, or ask for bots
(``POST /tables/{table_id}/bots``: fill my table to N players).

Bots come from a *bot desk*: an operator's bot service (``stud bots``) that polls
``POST /bots/desk`` with a service token (scope ``lobby``, signed with the shared secret —
players cannot pose as one). Each poll says which cities and stake levels it serves and how
many bots it can still send to one table there, and is answered with the tables that asked
for bots there and still miss players; the service sends bot accounts of the table's city
with tickets for that table only (``TicketRow.for_table_id``), which matchmaking places there
while the table still misses players. Bots can come to a table while desks serving its city
and level have polled within :data:`~lobby_api.quickgame.opponents.DESK_SECONDS` and can
send more than they sent there (:class:`~lobby_api.quickgame.opponents.BotSupply`). Asking
where no desk can send any is refused (409 ``bots_unavailable``), and asking for more
players than they can fill the table to is refused too (409 ``not_enough_bots``, naming
``players``), so the lobby never promises bots that cannot come.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.auth import Scope, TokenError, verify_token
from engine_server.store.types import utc_now
from lobby_api.accounts.models import PlayerRow
from lobby_api.catalog.models import CityRow, StakeLevelRow
from lobby_api.catalog.services import get_city, get_stake_level
from lobby_api.db import Database
from lobby_api.engine_nodes import TableEngines
from lobby_api.problems import DomainError
from lobby_api.quickgame.common import locked, my_seat, not_seated
from lobby_api.quickgame.looking import PlayersLooking
from lobby_api.quickgame.models import (
    BotDeskRow,
    BotRequestRow,
    QuickTableRow,
    QuickTableStatus,
)
from lobby_api.quickgame.opponents import (
    DEFAULT_FILL_TO,
    ENDED,
    opponents_parameters,
    opponents_query,
    supply_of,
    told,
)
from lobby_api.quickgame.reveals import seed_reveals
from lobby_api.quickgame.schemas import (
    BotDeskBots,
    BotDeskRequest,
    BotDeskView,
    BotRequestView,
    Opponents,
    TableView,
)
from lobby_api.settlement.services import occupied_seats

__all__ = [
    "POLL_WITHIN",
    "BotRequests",
    "check_desk_token",
    "still_missing_players",
]

#: What a desk is told: poll again within this (well inside ``DESK_SECONDS``).
POLL_WITHIN = 4.0
#: Desk rows not touched for this long are deleted (each service run has its own name).
DESK_ROWS_KEPT = timedelta(days=1)
#: The most requests one poll lists.
REQUESTS_PER_POLL = 100


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
        row = await self._row(session, table.table_id, player_id)
        return await self._told(row, table.table_id, player_id)

    @staticmethod
    async def _row(session: AsyncSession, table_id: str, player_id: str) -> Any:
        return (
            await session.exec(  # type: ignore[call-overload]
                opponents_query(), params=opponents_parameters(table_id, player_id)
            )
        ).one()

    async def _told(self, row: Any, table_id: str, player_id: str) -> Opponents:
        waiting = await self.looking.count(row.city, row.stake_level, besides=player_id)
        return told(row, table_id, waiting)

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
        rows = await self.db.fetch(opponents_query(), opponents_parameters(table_id, player_id))
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

    async def ask(self, player: PlayerRow, table_id: str, players: int | None) -> TableView:
        """Ask for bots to fill the table to ``players`` (asked again: the new number; None:
        :data:`~lobby_api.quickgame.opponents.DEFAULT_FILL_TO`, or fewer where bots can fill
        the table to fewer).

        Refused beyond the table's seats (422 ``too_many_players``), where no bot desk serving
        the table's city and stake level can send a bot (409 ``bots_unavailable``), beyond
        what the desks can fill the table to now (409 ``not_enough_bots``, naming
        ``players``), or at a table that is closing (409 ``table_closed``).
        """
        async with self.db.write() as session:
            table = await locked(session, QuickTableRow, QuickTableRow.table_id == table_id)
            if table is None:
                raise not_seated(table_id)
            await self._my_table(session, player.id, table_id)
            if table.status in ENDED:
                raise DomainError(409, "table_closed", f"table {table_id} is closing", "table_id")
            row = await self._row(session, table_id, player.id)
            supply = supply_of(row)
            city = row.city_name or table.city
            level = row.level_name or table.stake_level
            if players is not None and players > supply.seats:
                raise DomainError(
                    422,
                    "too_many_players",
                    f"a quick game at {level} seats at most {supply.seats} players",
                    "players",
                )
            if supply.can_send == 0:
                raise DomainError(
                    409,
                    "bots_unavailable",
                    f"no bots serve {city} at {level} now: keep waiting for players",
                    "table_id",
                )
            most = supply.fill_max
            if players is None:
                players = max(2, min(DEFAULT_FILL_TO, most))
            if players > most:
                raise DomainError(
                    409,
                    "not_enough_bots",
                    f"bots can fill this table to {most} players now (the bot services "
                    f"serving {city} at {level} send up to {supply.can_send} to a table; "
                    f"{supply.sent} sent on request sit here): ask for {most} or fewer",
                    "players",
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
        """A bot desk's poll: note that it serves these cities and levels and how many bots
        it can still send to a table of each, and list the tables there that asked for bots
        and still miss players, oldest first."""
        now = utc_now()
        async with self.db.write() as session:
            cities = await self._names(session, data.cities, CityRow, "cities")
            levels = await self._names(session, data.stake_levels, StakeLevelRow, "stake_levels")
            self._check_bots_at(data, cities, levels)
            for city in cities:
                for level in levels:
                    await session.merge(
                        BotDeskRow(
                            desk=data.desk,
                            city=city,
                            stake_level=level,
                            seen_at=now,
                            bots=_bots_at(data.bots, data.bots_at, city, level),
                        )
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
    def _check_bots_at(data: BotDeskRequest, cities: list[str], levels: list[str]) -> None:
        """Each ``bots_at`` entry names a city and a level the desk serves (or ``*``): a
        number for a place it does not serve would be promised nowhere (422 otherwise)."""
        for entry in data.bots_at:
            for name, served, what in (
                (entry.city, cities, "city"),
                (entry.stake_level, levels, "stake level"),
            ):
                if name != "*" and name not in served:
                    raise DomainError(
                        422,
                        "not_served",
                        f"bots_at names the {what} {name!r}, which this poll does not serve",
                        "bots_at",
                    )

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


def _bots_at(bots: int, bots_at: list[BotDeskBots], city: str, level: str) -> int:
    """The bots a desk can send to a table of ``city`` at ``level``: its ``bots``, or the last
    entry of ``bots_at`` that names them (or ``*``).

    >>> berlin = BotDeskBots(city="berlin", stake_level="*", bots=1)
    >>> _bots_at(3, [berlin], "berlin", "house-2-4"), _bots_at(3, [berlin], "oslo", "house-2-4")
    (1, 3)
    """
    for entry in bots_at:
        if entry.city in ("*", city) and entry.stake_level in ("*", level):
            bots = entry.bots
    return bots
