"""Request and response bodies of the quick game, tickets, table and bot desk endpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

__all__ = [
    "BotDeskBots",
    "BotDeskRequest",
    "BotDeskView",
    "BotRequestView",
    "BotsRequest",
    "LeaveView",
    "Opponents",
    "QuickGameRequest",
    "QuickGameView",
    "RevealedSeed",
    "RotateSeedRequest",
    "RotateSeedView",
    "SeedReveal",
    "TableView",
    "TicketRequest",
    "TicketView",
    "TopUpRequest",
    "TopUpView",
]

StakeLevelId = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=32,
        pattern=r"^[a-z0-9][a-z0-9._-]*$",
        description="a stake level id (GET /stakes)",
    ),
]
Chips = Annotated[int, msgspec.Meta(ge=1, le=10**15, description="chips (the level's unit)")]
ClientSeed = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=200,
        description="your client seed (docs/fairness.md §1): 1-64 characters of [A-Za-z0-9_-]",
        examples=["d41f_9c2b-77a0"],
    ),
]


TableIdField = Annotated[
    str,
    msgspec.Meta(
        min_length=1, max_length=63, pattern=r"^[a-z0-9][a-z0-9-]*$", description="a table's id"
    ),
]
Name = Annotated[
    str,
    msgspec.Meta(min_length=1, max_length=32, pattern=r"^[a-z0-9*][a-z0-9._-]*$"),
]


def _doc(text: str) -> msgspec.Meta:
    """A field's description in the OpenAPI document."""
    return msgspec.Meta(description=text)


class Opponents(msgspec.Struct):
    """Who plays at a quick table, and what a player alone there can do.

    Worked out afresh at every answer. A player alone at his table waits for players of his
    city (matchmaking seats only them): he may keep waiting, or — where a bot service
    serves his city and stake level and has bots to send — ask for bots (``POST
    /tables/{table_id}/bots``), up to what the bot services can send (``bots_can_fill_to``).
    """

    state: Annotated[
        Literal["playing", "waiting", "closed"],
        _doc(
            '"playing": someone else sits here (hands are dealt); "waiting": you sit alone, '
            'waiting for players of your city; "closed": the table is closing or closed'
        ),
    ]
    players: Annotated[int, _doc("players seated at the table, you included")]
    waiting: Annotated[
        int,
        _doc(
            "other players of your city looking for a game at this stake level: they hold "
            "a waiting ticket (they sit in here as a seat is free) or sit alone at a quick "
            "table of their own (as counted at most a second ago)"
        ),
    ]
    bots: Annotated[
        Literal["available", "requested", "unavailable"],
        _doc(
            '"available": bots can come (bots_can_fill_to), ask with POST '
            '/tables/{table_id}/bots; "requested": you asked, they are coming or playing; '
            '"unavailable": no bots serve here now, or none is left to send'
        ),
    ]
    bots_fill_to: Annotated[
        int | None,
        _doc(
            "the players bots fill the table to: what you asked for, or fewer where the bot "
            "services serving here can send no more than that now (players below it: more "
            "bots are coming; null: not asked)"
        ),
    ]
    bots_can_fill_to: Annotated[
        int | None,
        _doc(
            "the most players bots can fill the table to now, you included: the players "
            "here besides bots sent on request, plus the bots the bot services serving this "
            "city and stake level can still send to a table, within the table's seats (what "
            "POST /tables/{table_id}/bots takes at most; null: no more bots can come)"
        ),
    ]
    message: Annotated[
        str, _doc("one sentence for the player: what is happening and what he can do")
    ]


class SeedReveal(msgspec.Struct):
    """A rotation of the table's seed pair revealed a dealer seed while the table dealt on.

    Revealing a dealer seed is what makes its hands checkable (docs/fairness.md), and it makes
    the deck of every hand it dealt recomputable by anyone who looks — every down card of every
    seat, folded ones included. Players at the table are told so before they play on.
    """

    commitment: Annotated[str, _doc("the commitment of the dealer seed revealed")]
    revealed_at: Annotated[datetime, _doc("when the rotation revealed it")]
    hands: Annotated[
        list[int], _doc("the table's hands dealt from it (hand numbers): their decks are public")
    ]
    your_hands: Annotated[
        list[int],
        _doc(
            "those of them you were dealt into: your down cards there, folded ones too, can be seen"
        ),
    ]
    message: Annotated[str, _doc("one sentence for the player: what was revealed, and when")]


class QuickGameRequest(msgspec.Struct):
    stake_level: StakeLevelId
    #: Within the level's min_buy_in..max_buy_in (no short buys).
    buy_in: Chips
    client_seed: ClientSeed


class QuickGameView(msgspec.Struct):
    #: The table's resource name, "tables/{table_id}" (what WatchTable and Act take).
    table: str
    table_id: str
    #: The engine's gRPC address (native clients).
    engine_grpc: str
    #: The engine's Connect / gRPC-Web URL (browsers).
    engine_grpc_web: str
    #: SHA-256 commitment of the dealer seed dealing your hands (docs/fairness.md §3).
    commitment: str
    #: The commitment of the dealer seed a rotation switches to.
    next_commitment: str
    client_seed: str
    seat_session_id: str
    seat: int
    buy_in: int
    stake_level: str
    city: str
    #: A player access token for the engine (and the lobby), as short-lived as a log-in's
    #: (renew through the session's refresh token, docs/sessions.md); absent in stored answers.
    token: str | None = None
    opponents: Annotated[
        Opponents | None,
        _doc(
            "who plays at the table now, and what to do while nobody does (worked out "
            "afresh at every answer, a replayed one too)"
        ),
    ] = None


class TableView(msgspec.Struct):
    """``GET /tables/{table_id}``: a quick table you sit at, as the lobby sees it now."""

    table: str
    table_id: str
    engine_grpc: Annotated[
        str,
        _doc(
            "the gRPC address of the engine node serving the table now (native clients): "
            "where to watch it again when its node stopped answering"
        ),
    ]
    engine_grpc_web: Annotated[
        str,
        _doc(
            "the Connect / gRPC-Web URL of the engine node serving the table now (browsers): "
            "where to watch it again when its node stopped answering"
        ),
    ]
    city: str
    stake_level: str
    opponents: Opponents
    seed_reveals: Annotated[
        list[SeedReveal],
        _doc(
            "every rotation of the table's seed pair so far, oldest first: the hands whose "
            "decks (every down card) it made public, and which of them were yours"
        ),
    ]


class BotsRequest(msgspec.Struct):
    players: (
        Annotated[
            int,
            msgspec.Meta(
                ge=2,
                le=7,
                description="fill the table to this many players, you included (bots take "
                "the missing seats; at most the level's seats and what the bot services can "
                "send, opponents.bots_can_fill_to: more is refused, 409 not_enough_bots); "
                "omitted: 3, or fewer where bots can fill the table to fewer",
            ),
        ]
        | None
    ) = None


class BotDeskBots(msgspec.Struct):
    """Where a bot desk can send another number of bots than its ``bots``."""

    city: Annotated[Name, _doc('a city it serves ("*": every one)')]
    stake_level: Annotated[Name, _doc('a stake level it serves ("*": every one)')]
    bots: Annotated[
        int,
        msgspec.Meta(ge=0, le=1000, description="bots it can still send to one table there"),
    ]


class BotDeskRequest(msgspec.Struct):
    desk: Annotated[Name, _doc("the bot service's name, one per running service")]
    cities: Annotated[
        list[Name],
        msgspec.Meta(min_length=1, max_length=100, description='cities it serves; ["*"]: every'),
    ]
    stake_levels: Annotated[
        list[Name],
        msgspec.Meta(
            min_length=1, max_length=100, description='stake levels it serves; ["*"]: every'
        ),
    ]
    bots: Annotated[
        int,
        msgspec.Meta(
            ge=0,
            le=1000,
            description="bots it can still send to one table of each city and stake level it "
            "serves (distinct accounts: a bot sits once at a table); the lobby promises "
            "players no more than the desks serving their table can send together, and "
            "none while that is 0",
        ),
    ]
    bots_at: Annotated[
        list[BotDeskBots],
        msgspec.Meta(
            max_length=100,
            description="where it can send another number than bots (a city whose accounts "
            "cannot all sign in, say); a later entry over an earlier one where both apply",
        ),
    ] = msgspec.field(default_factory=list)


class BotRequestView(msgspec.Struct):
    """A table that asked for bots and still misses players."""

    table: str
    table_id: str
    city: str
    stake_level: str
    players: Annotated[int, _doc("players the table asked to be filled to")]
    missing: Annotated[
        int, _doc("seats still to fill: send this many bots, less those already on their way")
    ]
    requested_at: datetime


class BotDeskView(msgspec.Struct):
    requests: Annotated[
        list[BotRequestView], _doc("open requests of the desk's cities and levels, oldest first")
    ]
    poll_within: Annotated[
        float,
        _doc("poll again within this many seconds, or the desk's bots are no longer promised"),
    ]


class TicketRequest(msgspec.Struct):
    stake_level: StakeLevelId
    buy_in: Chips
    table_id: Annotated[
        TableIdField | None,
        _doc(
            "sit at this table only: a quick table of your city and stake level that asked "
            "for bots and still misses players (what POST /bots/desk lists); omitted: any"
        ),
    ] = None


class TicketView(msgspec.Struct):
    id: str
    #: waiting, seating, seated, expired or cancelled.
    status: str
    stake_level: str
    city: str
    buy_in: int
    created_at: datetime
    expires_at: datetime
    table: str | None = None
    table_id: str | None = None
    seat_session_id: str | None = None
    seat: int | None = None
    engine_grpc: str | None = None
    engine_grpc_web: str | None = None
    for_table_id: Annotated[
        str | None, _doc("the one table this ticket sits at (null: any of its city and level)")
    ] = None


class TopUpRequest(msgspec.Struct):
    amount: Chips


class TopUpView(msgspec.Struct):
    id: str
    table: str
    seat_session_id: str
    amount: int
    #: The stack after the chips were added.
    stack: int


class LeaveView(msgspec.Struct):
    table: str
    seat_session_id: str
    #: "closed" (paid out) or "leaving" (he plays out the running hand; paid when it ends).
    state: str
    final_stack: int | None = None
    #: Chips credited to the wallet (once closed).
    credited: int | None = None


class RotateSeedRequest(msgspec.Struct):
    #: A new client seed; omitted: keep the current one.
    client_seed: ClientSeed | None = None


class RevealedSeed(msgspec.Struct):
    commitment: str
    client_seed: str
    hands_dealt: int
    dealer_seed: str | None = None


class RotateSeedView(msgspec.Struct):
    revealed: RevealedSeed
    current: RevealedSeed
    next_commitment: str
    reveal: Annotated[
        SeedReveal | None,
        _doc(
            "what this rotation made public: the hands dealt from the revealed seed, their "
            "decks recomputable with every down card (also told to every player at the table "
            "by GET /tables/{table_id})"
        ),
    ] = None
