"""Request and response bodies of the tournament endpoints (the names front ends use)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

__all__ = [
    "CancelRequest",
    "LevelSpec",
    "LevelView",
    "NewTournament",
    "PayoutBracket",
    "PayoutView",
    "StandingView",
    "TournamentDetail",
    "TournamentEntryView",
    "TournamentSummary",
    "TournamentTableView",
]

Kind = Literal["sit_and_go", "scheduled"]
Status = Literal["registering", "running", "finished", "cancelled"]
EntryStatus = Literal["registered", "playing", "busted", "finished", "unregistered"]
Amount = Annotated[int, msgspec.Meta(ge=0, le=10**12)]
Count = Annotated[int, msgspec.Meta(ge=0, le=10**9)]


def _doc(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


class LevelView(msgspec.Struct):
    """One level: its stakes in tournament chips, and its length in minutes or in hands."""

    ante: int
    bring_in: int
    small_bet: int
    big_bet: int
    minutes: int | None = None
    hands: int | None = None


class PayoutView(msgspec.Struct):
    place: int
    amount: int


class StandingView(msgspec.Struct):
    player_id: str
    username: str
    status: EntryStatus
    chips: int | None
    place: int | None
    prize: int | None


class TournamentTableView(msgspec.Struct):
    table_id: str
    number: int
    status: Literal["planned", "open", "closed"]
    players: int
    engine_grpc: str
    engine_grpc_web: str


class TournamentSummary(msgspec.Struct):
    """A tournament as the lobby lists it."""

    id: str
    name: str
    kind: Kind
    status: Status
    profile: str
    buy_in: int
    fee: int
    starting_chips: int
    min_players: int
    max_players: int
    entries: Annotated[int, _doc("players registered (or in, once it started)")]
    city: Annotated[str | None, _doc("open to the players of this city only (null: to all)")]
    starts_at: datetime | None
    prize_pool: Annotated[int, _doc("the buy-ins of every entry")]
    template: str | None


class TournamentDetail(msgspec.Struct):
    """A tournament with its structure, standings and tables."""

    id: str
    name: str
    kind: Kind
    status: Status
    profile: str
    rule_overrides: dict[str, Any]
    buy_in: int
    fee: int
    starting_chips: int
    min_players: int
    max_players: int
    table_size: int
    entries: int
    city: str | None
    starts_at: datetime | None
    prize_pool: int
    template: str | None
    late_registration_levels: int
    levels: list[LevelView]
    current_level: Annotated[int, _doc("the level in force, from 1 (0 before the start)")]
    level_started_at: datetime | None
    payouts: Annotated[
        list[PayoutView], _doc("prizes by place, for the entries so far (final at the start)")
    ]
    standings: Annotated[list[StandingView], _doc("players in by chips, then players out by place")]
    tables: list[TournamentTableView]
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    cancel_reason: str | None


class TournamentEntryView(msgspec.Struct):
    """My entry: while playing, where my seat is and the token the engine takes."""

    tournament_id: str
    entry_id: str
    status: EntryStatus
    buy_in: int
    fee: int
    registered_at: datetime
    table_id: str | None = None
    seat: int | None = None
    seat_session_id: str | None = None
    engine_grpc: str | None = None
    engine_grpc_web: str | None = None
    token: Annotated[str | None, _doc("a player token for the engine (WatchTable, Act)")] = None
    chips: int | None = None
    place: int | None = None
    prize: int | None = None


class LevelSpec(msgspec.Struct, forbid_unknown_fields=True):
    ante: Annotated[int, msgspec.Meta(ge=0, le=10**12)]
    bring_in: Annotated[int, msgspec.Meta(ge=1, le=10**12)]
    small_bet: Annotated[int, msgspec.Meta(ge=1, le=10**12)]
    big_bet: Annotated[int, msgspec.Meta(ge=1, le=10**12)]
    minutes: Annotated[int, msgspec.Meta(ge=1, le=10_000)] | None = None
    hands: Annotated[int, msgspec.Meta(ge=1, le=10_000)] | None = None


class PayoutBracket(msgspec.Struct, forbid_unknown_fields=True):
    max_entrants: Annotated[int, msgspec.Meta(ge=1, le=100_000)]
    percentages: Annotated[
        list[Annotated[float, msgspec.Meta(gt=0, le=100)]],
        msgspec.Meta(min_length=1, max_length=1000),
    ]


class NewTournament(msgspec.Struct, forbid_unknown_fields=True):
    """A tournament from a template (``template``, any other field overriding it) or from a
    full structure; what is left out takes its default (docs/tournaments.md)."""

    template: (
        Annotated[
            str, msgspec.Meta(max_length=32, description="a template of seeds/tournaments.json")
        ]
        | UnsetType
    ) = UNSET
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=80)] | UnsetType = UNSET
    kind: Kind | UnsetType = UNSET
    profile: Annotated[str, msgspec.Meta(min_length=1, max_length=32)] | UnsetType = UNSET
    rule_overrides: dict[str, Any] | UnsetType = UNSET
    buy_in: Amount | UnsetType = UNSET
    fee: Amount | UnsetType = UNSET
    starting_chips: Annotated[int, msgspec.Meta(ge=1, le=10**12)] | UnsetType = UNSET
    min_players: Annotated[int, msgspec.Meta(ge=2, le=10_000)] | UnsetType = UNSET
    max_players: Annotated[int, msgspec.Meta(ge=2, le=10_000)] | UnsetType = UNSET
    table_size: Annotated[int, msgspec.Meta(ge=2, le=10)] | UnsetType = UNSET
    levels: Annotated[list[LevelSpec], msgspec.Meta(min_length=1, max_length=200)] | UnsetType = (
        UNSET
    )
    city: Annotated[str, msgspec.Meta(min_length=1, max_length=32)] | UnsetType | None = UNSET
    starts_at: datetime | UnsetType = UNSET
    late_registration_levels: Annotated[int, msgspec.Meta(ge=0, le=200)] | UnsetType = UNSET
    payouts: (
        Annotated[list[PayoutBracket], msgspec.Meta(min_length=1, max_length=100)]
        | UnsetType
        | None
    ) = UNSET

    @property
    def template_name(self) -> str | None:
        return None if isinstance(self.template, UnsetType) else self.template

    def given(self) -> dict[str, Any]:
        """The structure fields the request gives (the template's name left out)."""
        data: dict[str, Any] = msgspec.to_builtins(self)
        data.pop("template", None)
        if not isinstance(self.starts_at, UnsetType):
            data["starts_at"] = self.starts_at
        for level in data.get("levels") or []:
            for key in ("minutes", "hands"):
                if level.get(key) is None:
                    level.pop(key, None)
        return data


class CancelRequest(msgspec.Struct, forbid_unknown_fields=True):
    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] = "cancelled by ops"
