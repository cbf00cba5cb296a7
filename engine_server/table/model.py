"""The table runtime's values: configuration, seats, seed pairs and seat views."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from engine_server.game.actions import LegalAction
from engine_server.game.cards import Card
from engine_server.game.hand import HandResult
from engine_server.game.profiles import RuleSettings, Stakes, Street

__all__ = [
    "Destination",
    "DrainHold",
    "LastHand",
    "OwnPart",
    "Removal",
    "SeatInfo",
    "SeatState",
    "SeatStatus",
    "SeedPair",
    "SessionSnapshot",
    "TableConfig",
    "TableStatus",
    "TableView",
    "TournamentInfo",
    "TournamentTable",
    "TournamentView",
]


class TableStatus(StrEnum):
    WAITING = "waiting"  # fewer than two players can play
    PLAYING = "playing"
    PAUSING = "pausing"  # paused after the running hand
    PAUSED = "paused"
    CLOSING = "closing"  # closes after the running hand
    CLOSED = "closed"


class DrainHold(StrEnum):
    """Which drain holds a table paused (stored with it: what the next start does)."""

    DRAIN = "drain"  # ops drained the node (Drain): it stays paused until ops resume it
    SHUTDOWN = "shutdown"  # the node stopped (SIGTERM): the next start deals again


class SeatStatus(StrEnum):
    SEATED = "seated"
    SITTING_OUT = "sitting_out"
    LEAVING = "leaving"


@dataclass(frozen=True, slots=True)
class TournamentTable:
    """What makes a table one of a tournament's (CreateTable's ``tournament``)."""

    tournament_id: str
    table_name: str
    table_number: int

    def to_json(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament_id,
            "table_name": self.table_name,
            "table_number": self.table_number,
        }


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    """The tournament as the director pushed it to a table (shown as given)."""

    level: int = 0
    stakes: Stakes | None = None
    next_level_time: datetime | None = None
    hands_to_next_level: int = 0
    next_stakes: Stakes | None = None
    players_left: int = 0
    entrants: int = 0
    average_stack: int = 0
    prize_pool: int = 0
    hand_for_hand: bool = False
    places_paid: int = 0


@dataclass(frozen=True, slots=True)
class Destination:
    """Where a moved tournament player goes: a table and the engine that serves it."""

    table: str
    grpc_address: str
    web_url: str


@dataclass(frozen=True, slots=True)
class TableConfig:
    table_id: str
    settings: RuleSettings
    stakes: Stakes
    rule_overrides: dict[str, Any] = field(default_factory=dict)
    private: bool = False
    min_buy_in: int = 0
    max_buy_in: int = 0
    opener_player_id: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    #: the clock per decision; a live table may run a finer clock than whole seconds
    action_seconds: float = 30.0
    #: set on a tournament table (no buy-in range, no top-ups or cash-outs, busts)
    tournament: TournamentTable | None = None

    @property
    def name(self) -> str:
        return f"tables/{self.table_id}"


@dataclass(slots=True)
class SeedPair:
    id: str
    dealer_seed: str
    commitment: str
    client_seed: str
    next_nonce: int
    next_commitment: str


@dataclass(slots=True, eq=False)
class SeatState:
    """One occupied seat (a seat session) at a live table."""

    seat: int
    player_id: str
    display_name: str
    session_id: str
    stack: int
    chips_in: int
    sitting_out: bool = False
    #: a SitOut / SitIn that takes effect from the next hand
    pending_sit_out: bool | None = None
    leaving: bool = False
    leave_reason: str = "left"
    #: a tournament player moved when the running hand ends: where he goes
    move_to: Destination | None = None
    connected: bool = False
    #: multipoker: the extra time on reconnecting is given once per hand
    reconnect_bonus_used: bool = False

    @property
    def status(self) -> SeatStatus:
        if self.leaving:
            return SeatStatus.LEAVING
        return SeatStatus.SITTING_OUT if self.sitting_out else SeatStatus.SEATED


@dataclass(frozen=True, slots=True)
class SessionSnapshot:
    """A seat session as reported to the lobby (open or just closed)."""

    session_id: str
    table_id: str
    player_id: str
    seat: int
    chips_in: int
    stack: int
    open: bool
    close_reason: str | None = None
    #: open, but leaving when the running hand ends (Leave or RemovePlayer during it)
    closing: bool = False
    #: the name the lobby seated him under (ops' views show it beside the id)
    display_name: str = ""
    #: closed "busted" (tournament): the hand he lost his last chip in, and his chips at its
    #: start
    busted_hand_number: int = 0
    busted_start_stack: int = 0


@dataclass(frozen=True, slots=True)
class Removal:
    """An AdminService.RemovePlayer: the request's reason, and whether it relays the player's
    own leave (``by_player``: the session closes as left, as TableService.Leave closes it)."""

    reason: str
    by_player: bool = False

    @property
    def close_reason(self) -> str:
        """What the session closes as."""
        return "left" if self.by_player else "removed"


@dataclass(frozen=True, slots=True)
class LastHand:
    hand_number: int
    nonce: int
    cancelled: bool
    result: HandResult | None
    ended_at: datetime
    #: cards a winner by folds chose to show afterwards
    shown_after: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    #: a cancelled hand (no ``result``): the chips each seat had put in and got back, and
    #: the stacks it ended with (those it began with)
    returned: dict[int, int] = field(default_factory=dict)
    final_stacks: dict[int, int] = field(default_factory=dict)
    #: why it was cancelled (CancelHand's reason, a restart), or settled outside play
    reason: str = ""
    #: a hand the table's previous engine left running, ended as the table was loaded again
    #: (cancelled, or settled where its stored actions had ended it): nobody watched it end,
    #: so each stream opened while it is the last hand is told in its first message
    ended_on_load: bool = False


@dataclass(frozen=True, slots=True)
class SeatInfo:
    number: int
    player_id: str
    display_name: str
    stack: int
    status: SeatStatus
    connected: bool
    in_hand: bool
    folded: bool
    all_in: bool
    protected: bool
    bet: int
    total_bet: int
    up_cards: tuple[Card, ...]
    down_count: int
    #: the viewer's own down cards (or every card, in the ops view)
    down_cards: tuple[Card, ...]
    #: every card of a hand shown at the showdown, in dealing order
    shown_cards: tuple[Card, ...]
    session_id: str


@dataclass(frozen=True, slots=True)
class TournamentView:
    """A tournament table's own state as every viewer sees it."""

    level: int
    #: set when the next hand plays another level than the running one
    next_level: int
    next_stakes: Stakes | None
    hand_held: bool
    info: TournamentInfo | None


@dataclass(frozen=True, slots=True)
class TableView:
    """A table as one seat (or a spectator, or ops) may see it."""

    config: TableConfig
    status: TableStatus
    viewer_seat: int | None
    seats: tuple[SeatInfo, ...]
    button: int | None
    hand_number: int
    hand_in_progress: bool
    street: Street | None
    showdown: bool
    pots: tuple[tuple[int, tuple[int, ...]], ...]
    street_bet: int
    bring_in_seat: int | None
    turn_seat: int | None
    turn_deadline: datetime | None
    legal_actions: tuple[LegalAction, ...]
    community_cards: tuple[Card, ...]
    commitment: str
    client_seed: str
    hands_dealt: int
    nonce: int | None
    next_commitment: str
    last_hand: LastHand | None
    server_time: datetime
    #: railbirds watching without a seat
    watchers: int = 0
    tournament: TournamentView | None = None


@dataclass(frozen=True, slots=True)
class OwnPart:
    """What one seat sees beyond the public view: its own down cards and, on its turn, its
    legal actions. A seat's view is the public view (``viewer_seat`` None) with this part."""

    seat: int
    down_cards: tuple[Card, ...]
    legal_actions: tuple[LegalAction, ...]
