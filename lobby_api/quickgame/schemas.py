"""Request and response bodies of the quick game, tickets and table endpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

__all__ = [
    "LeaveView",
    "QuickGameRequest",
    "QuickGameView",
    "RevealedSeed",
    "RotateSeedRequest",
    "RotateSeedView",
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
        description="your client seed (FAIRNESS.md): 1-64 characters of [A-Za-z0-9_-]",
        examples=["d41f_9c2b-77a0"],
    ),
]


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
    #: SHA-256 commitment of the dealer seed dealing your hands (FAIRNESS.md).
    commitment: str
    #: The commitment of the dealer seed a rotation switches to.
    next_commitment: str
    client_seed: str
    seat_session_id: str
    seat: int
    buy_in: int
    stake_level: str
    city: str
    #: A player token for the engine (and the lobby); absent in stored answers.
    token: str | None = None


class TicketRequest(msgspec.Struct):
    stake_level: StakeLevelId
    buy_in: Chips


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
