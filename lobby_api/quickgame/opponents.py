"""What a player at a quick table is told of its opponents, and how many bots can still come.

Bots come from bot desks (:mod:`lobby_api.quickgame.bots`), and each desk's poll says how many
bots it can still send to one table of each city and stake level it serves
(``BotDeskRow.bots``). A table can have, besides the players who came by themselves, as many
bots as the desks serving its city and level can send together, within its seats: the lobby
promises no more than that (:class:`BotSupply`), so a player never hears of bots on their
way that no desk can send, nor keeps hearing of more once those that could come came.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any, Literal

import sqlalchemy as sa
from sqlmodel import col

from engine_server.store.types import UTCDateTime, utc_now
from lobby_api.catalog.models import CityRow, StakeLevelRow
from lobby_api.catalog.services import quick_seats
from lobby_api.quickgame.looking import seat_taken
from lobby_api.quickgame.models import (
    BotDeskRow,
    BotRequestRow,
    QuickTableRow,
    QuickTableStatus,
    TicketRow,
)
from lobby_api.quickgame.schemas import Opponents
from lobby_api.settlement.models import LobbySeatRow, SeatState

__all__ = [
    "DEFAULT_FILL_TO",
    "DESK_SECONDS",
    "ENDED",
    "BotSupply",
    "opponents_parameters",
    "opponents_query",
    "supply_of",
    "told",
]

#: A desk that has not polled for this long no longer counts: its bots are not promised.
DESK_SECONDS = 10.0
#: Players bots fill a table to when the player does not say (fewer where fewer can come).
DEFAULT_FILL_TO = 3

ENDED = (
    QuickTableStatus.CLOSING.value,
    QuickTableStatus.CLOSED.value,
    QuickTableStatus.FAILED.value,
)


@dataclass(frozen=True, slots=True)
class BotSupply:
    """How many bots can still come to one table, from its row of :func:`opponents_query`.

    >>> alone = BotSupply(players=1, sent=0, can_send=3, seats=7, asked=None)
    >>> alone.fill_max, alone.can_fill_to, alone.fill_to
    (4, 4, None)
    >>> served = BotSupply(players=4, sent=3, can_send=3, seats=7, asked=7)
    >>> served.fill_max, served.can_fill_to, served.fill_to
    (4, None, 4)
    """

    #: Seats taken at the table (the player included).
    players: int
    #: Of them, bots that came on request (with a ticket for this table only).
    sent: int
    #: Bots the fresh desks serving the table's city and level can still send to a table.
    can_send: int
    #: The most players the table seats.
    seats: int
    #: Players the table asked bots to fill it to (None: it did not ask).
    asked: int | None

    @property
    def fill_max(self) -> int:
        """The most players bots can fill the table to now (at least who sits here): the
        desks' bots count once at a table, so those they sent here use up what they can
        send; players who came by themselves do not."""
        return max(self.players, min(self.seats, self.players - self.sent + self.can_send))

    @property
    def can_fill_to(self) -> int | None:
        """:attr:`fill_max` where a bot can still come (None: none can)."""
        return self.fill_max if self.fill_max > self.players else None

    @property
    def fill_to(self) -> int | None:
        """The players bots fill the table to: what was asked, or fewer where no more can
        come now (None: not asked)."""
        return None if self.asked is None else min(self.asked, self.fill_max)


@cache
def opponents_query() -> sa.Select[Any]:
    """Everything :func:`told` says of the table, in one statement (issue 16: it was eight,
    in a read transaction of their own, at every quick game): the table, the names of its
    city and stake level and the level's profile, whether the player's latest seat there is
    unsettled (NULL: he has none), how many seats are taken and how many of them by bots that
    came on request, the bot request, and how many bots the desks serving the city and level
    now can still send. How many other players of the city look for a game there comes from
    :class:`~lobby_api.quickgame.looking.PlayersLooking`.

    Bound at each use: ``table_id``, ``player_id`` and ``since`` (a desk that polled after it
    serves). Built once: building SQLAlchemy expressions costs more than the SQL.
    """
    table = sa.alias(QuickTableRow.__table__, "t")  # type: ignore[attr-defined]
    player_id = sa.bindparam("player_id", type_=sa.String)
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
        .label("taken")
    )
    # A seat placed from a ticket for this table only: a bot a desk sent (by the ticket's
    # primary key, at most a seat per player of the table).
    sent_here = sa.exists().where(
        col(TicketRow.id) == col(LobbySeatRow.ticket_id),
        col(TicketRow.for_table_id) == table.c.table_id,
    )
    sent = (
        sa.select(sa.func.count())
        .select_from(LobbySeatRow)
        .where(col(LobbySeatRow.table_id) == table.c.table_id, seat_taken(), sent_here)
        .correlate(table)
        .scalar_subquery()
        .label("sent")
    )
    can_send = (
        sa.select(sa.func.coalesce(sa.func.sum(col(BotDeskRow.bots)), 0))
        .where(
            col(BotDeskRow.city) == table.c.city,
            col(BotDeskRow.stake_level) == table.c.stake_level,
            col(BotDeskRow.seen_at) > sa.bindparam("since", type_=UTCDateTime()),
        )
        .correlate(table)
        .scalar_subquery()
        .label("can_send")
    )
    return sa.select(
        table.c.status,
        table.c.city,
        table.c.stake_level,
        sa.select(col(CityRow.name))
        .where(col(CityRow.id) == table.c.city)
        .correlate(table)
        .scalar_subquery()
        .label("city_name"),
        sa.select(col(StakeLevelRow.name))
        .where(col(StakeLevelRow.id) == table.c.stake_level)
        .correlate(table)
        .scalar_subquery()
        .label("level_name"),
        sa.select(col(StakeLevelRow.profile))
        .where(col(StakeLevelRow.id) == table.c.stake_level)
        .correlate(table)
        .scalar_subquery()
        .label("profile"),
        seat_open,
        taken,
        sent,
        sa.select(col(BotRequestRow.players))
        .where(col(BotRequestRow.table_id) == table.c.table_id)
        .correlate(table)
        .scalar_subquery()
        .label("asked"),
        can_send,
    ).where(table.c.table_id == sa.bindparam("table_id", type_=sa.String))


def opponents_parameters(table_id: str, player_id: str) -> dict[str, Any]:
    return {
        "table_id": table_id,
        "player_id": player_id,
        "since": utc_now() - timedelta(seconds=DESK_SECONDS),
    }


def supply_of(row: Any) -> BotSupply:
    """The :class:`BotSupply` of a table's row of :func:`opponents_query`."""
    return BotSupply(
        players=int(row.taken),
        sent=int(row.sent),
        can_send=int(row.can_send),
        seats=quick_seats(row.profile),
        asked=None if row.asked is None else int(row.asked),
    )


def told(row: Any, table_id: str, waiting: int) -> Opponents:
    """What a player at the table is told, from its row of :func:`opponents_query` and how
    many other players of its city look for a game at its level (``waiting``)."""
    supply = supply_of(row)
    players, fill_to, can_fill_to = supply.players, supply.fill_to, supply.can_fill_to
    city_name = row.city_name if row.city_name is not None else row.city
    level_name = row.level_name if row.level_name is not None else row.stake_level
    path = f"/tables/{table_id}"
    bots: Literal["available", "requested", "unavailable"]
    state: Literal["playing", "waiting", "closed"]
    if supply.asked is not None:
        bots = "requested"
    elif can_fill_to is not None and row.status not in ENDED:
        bots = "available"
    else:
        bots = "unavailable"
    # Whether the bots asked for are all here or coming: a table short of them says so once
    # no more can come, instead of promising bots no desk can send.
    coming = fill_to is not None and players < fill_to
    short = supply.asked is not None and not coming and players < supply.asked
    if row.status in ENDED:
        state, message = "closed", "The table is closed."
        can_fill_to = None
    elif players >= 2:
        state = "playing"
        message = f"{players} players at the table: the game is on."
        if coming:
            message += f" More bots are on their way (to {fill_to} players)."
        elif short:
            message += (
                f" No more bots can come now (you asked for {supply.asked} players: the bot "
                f"services serving {city_name} at this level have no more to send here)."
            )
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
        if coming:
            message += f" Bots are on their way (to fill the table to {fill_to} players)."
        elif short:
            message += (
                f" No bots can come to {city_name} at this level now (you asked for "
                f"{supply.asked} players): keep waiting, or leave (POST {path}/leave)."
            )
        elif bots == "available":
            message += (
                f" Keep waiting, or play with bots (POST {path}/bots): they can fill the "
                f"table to {can_fill_to} players."
            )
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
        bots_can_fill_to=can_fill_to,
        message=message,
    )
