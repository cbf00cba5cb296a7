"""Table events: what happens at a table around the hands (seats, clock, status, seeds).

Together with the hand's own events (:mod:`engine_server.game.events`) they
make up the updates a ``WatchTable`` stream carries.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engine_server.game.cards import Card
from engine_server.game.events import Event as HandEvent
from engine_server.game.profiles import Stakes
from engine_server.game.views import HiddenCardDealt
from engine_server.table.model import Destination, SeedPair, TableStatus, TournamentInfo

__all__ = [
    "CardsShownAfter",
    "ChipsAdded",
    "ConnectionChanged",
    "HandBegan",
    "HandEndedOnLoad",
    "HandHoldChanged",
    "PlayerBusted",
    "PlayerJoined",
    "PlayerLeaving",
    "PlayerLeft",
    "PlayerMoved",
    "PlayerSatIn",
    "PlayerSatOut",
    "SeedRotated",
    "StakesChanged",
    "TableEvent",
    "TableStatusChanged",
    "TournamentInfoChanged",
    "TournamentPlaced",
    "TurnExtended",
    "TurnStarted",
    "UpdateEvent",
    "WatchersChanged",
]


@dataclass(frozen=True, slots=True)
class HandBegan:
    hand_number: int
    nonce: int
    commitment: str
    client_seed: str
    button: int
    seats: tuple[int, ...]
    #: the stakes it is dealt at (a tournament table's change with its levels)
    stakes: Stakes | None = None


@dataclass(frozen=True, slots=True)
class TurnStarted:
    seat: int
    deadline: datetime


@dataclass(frozen=True, slots=True)
class TurnExtended:
    """The turn's clock got ``seconds`` more: the engine was stalled while it ran."""

    seat: int
    deadline: datetime
    seconds: float


@dataclass(frozen=True, slots=True)
class PlayerJoined:
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    seat: int
    player_id: str
    display_name: str
    final_stack: int
    reason: str


@dataclass(frozen=True, slots=True)
class PlayerLeaving:
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerSatOut:
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerSatIn:
    seat: int


@dataclass(frozen=True, slots=True)
class ConnectionChanged:
    seat: int
    connected: bool


@dataclass(frozen=True, slots=True)
class ChipsAdded:
    seat: int
    amount: int
    stack: int


@dataclass(frozen=True, slots=True)
class TableStatusChanged:
    status: TableStatus
    reason: str


@dataclass(frozen=True, slots=True)
class SeedRotated:
    revealed_dealer_seed: str
    revealed_commitment: str
    revealed_client_seed: str
    hands_dealt: int
    current: SeedPair


@dataclass(frozen=True, slots=True)
class CardsShownAfter:
    """A winner by folds chose to show his cards after the hand (where the profile allows)."""

    seat: int
    hand_number: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class PlayerBusted:
    """A tournament player has no chips left after the hand: he is out, his seat frees."""

    seat: int
    player_id: str
    display_name: str
    hand_number: int
    start_stack: int


@dataclass(frozen=True, slots=True)
class PlayerMoved:
    """A tournament player was moved to another table with his chips; his seat frees."""

    seat: int
    player_id: str
    display_name: str
    stack: int
    destination: Destination


@dataclass(frozen=True, slots=True)
class TournamentPlaced:
    """The director told a player his final place and prize."""

    player_id: str
    display_name: str
    place: int
    prize: int


@dataclass(frozen=True, slots=True)
class StakesChanged:
    """A tournament level's stakes, from hand ``from_hand_number`` on."""

    level: int
    stakes: Stakes
    from_hand_number: int


@dataclass(frozen=True, slots=True)
class HandHoldChanged:
    held: bool


@dataclass(frozen=True, slots=True)
class TournamentInfoChanged:
    info: TournamentInfo


@dataclass(frozen=True, slots=True)
class WatchersChanged:
    watchers: int


@dataclass(frozen=True, slots=True)
class HandEndedOnLoad:
    """Hand ``hand_number``, which the table's previous engine left running, was ended as
    the table was loaded again: cancelled, or settled where its stored actions had ended it
    (the table's ``last_hand`` says which, and why). Nobody watched it end: a stream opened
    while it is the last hand gets this in its first message."""

    hand_number: int


TableEvent = (
    HandBegan
    | TurnStarted
    | TurnExtended
    | PlayerJoined
    | PlayerLeft
    | PlayerLeaving
    | PlayerSatOut
    | PlayerSatIn
    | ConnectionChanged
    | ChipsAdded
    | TableStatusChanged
    | SeedRotated
    | CardsShownAfter
    | PlayerBusted
    | PlayerMoved
    | TournamentPlaced
    | StakesChanged
    | HandHoldChanged
    | TournamentInfoChanged
    | WatchersChanged
    | HandEndedOnLoad
)

UpdateEvent = TableEvent | HandEvent | HiddenCardDealt
