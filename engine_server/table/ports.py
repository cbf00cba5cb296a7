"""What a live table needs from persistence, as a narrow interface.

:class:`engine_server.store.adapter.StoreTables` implements it over the
database; the runtime knows nothing else of SQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from engine_server.table.model import (
    Destination,
    DrainHold,
    Removal,
    SeedPair,
    SessionSnapshot,
    TableStatus,
)

__all__ = [
    "HandRecord",
    "MoveOrder",
    "NodeDirectory",
    "NodeEntry",
    "Placement",
    "RecordedMove",
    "RevealedPair",
    "StartedHand",
    "TableStore",
]


@dataclass(frozen=True, slots=True)
class StartedHand:
    hand_id: str
    nonce: int


@dataclass(frozen=True, slots=True)
class HandRecord:
    """Everything written about a finished hand (one transaction with the new stacks)."""

    cards: list[dict[str, Any]]
    actions: list[dict[str, Any]]
    pots: list[dict[str, Any]]
    rake: int
    result: dict[str, Any]
    phh: str | None


@dataclass(frozen=True, slots=True)
class MoveOrder:
    """A MovePlayer (tournament): the director's request_id and where the player goes."""

    request_id: str
    destination: Destination


@dataclass(frozen=True, slots=True)
class RecordedMove:
    """A MovePlayer the store recorded: its session and where he went, and the session as
    it is now (closing while he plays out his hand, then closed)."""

    session_id: str
    destination: Destination
    session: SessionSnapshot


@dataclass(frozen=True, slots=True)
class RevealedPair:
    id: str
    dealer_seed: str
    commitment: str
    client_seed: str
    hands_dealt: int


class TableStore(Protocol):
    async def start_hand(
        self,
        table_id: str,
        hand_number: int,
        seed_pair_id: str,
        button_seat: int,
        players: list[tuple[int, str, str, int]],
        profile: str,
        settings: dict[str, Any],
    ) -> StartedHand: ...

    async def record_actions(
        self, hand_id: str, first_seq: int, actions: list[dict[str, Any]]
    ) -> None:
        """Store the running hand's ``actions`` (its trail's records, the first numbered
        ``first_seq``) before anyone is told of them; returns once they are durable. Storing
        one again changes nothing. Raises ``DATABASE_UNAVAILABLE`` when the database failed
        (then none of them counts as stored)."""
        ...

    async def finish_hand(
        self,
        hand_id: str,
        record: HandRecord,
        final_stacks: dict[str, int],
        close_sessions: list[tuple[str, str]],
        button_seat: int,
    ) -> None: ...

    async def cancel_hand(
        self, hand_id: str, reason: str, record: HandRecord | None = None
    ) -> None:
        """Record the hand cancelled (no chip moves), with what was dealt and done (``record``:
        its cards, actions, PHH and a result saying it was cancelled) for the audit."""
        ...

    async def seat_player(
        self,
        table_id: str,
        session_id: str,
        player_id: str,
        display_name: str,
        seat: int,
        buy_in: int,
    ) -> SessionSnapshot: ...

    async def add_chips(self, session_id: str, request_id: str, amount: int) -> SessionSnapshot: ...

    async def chip_addition(
        self, session_id: str, request_id: str, amount: int
    ) -> SessionSnapshot | None:
        """What an AddChips already applied with ``request_id`` answered (None: none was).

        Raises ``IDEMPOTENCY_KEY_REUSED`` when it added another amount or to another session.
        """
        ...

    async def removal(self, session_id: str) -> tuple[Removal, SessionSnapshot] | None:
        """The RemovePlayer recorded for the session and its answer, if any."""
        ...

    async def record_removal(
        self, session_id: str, removal: Removal, answer: SessionSnapshot
    ) -> None:
        """Record a RemovePlayer that changed nothing itself (he was already leaving)."""
        ...

    async def mark_closing(
        self, session_id: str, removal: Removal | None = None, move: MoveOrder | None = None
    ) -> SessionSnapshot:
        """Record that the player leaves when the running hand ends (survives a restart).

        ``removal``: the RemovePlayer doing it, recorded with this answer in the same
        transaction (a retry after a crash gets it; nothing is half written; a restart closes
        the session as the removal says: removed, or left when it relayed his own leave);
        ``move``: the MovePlayer doing it, likewise.
        """
        ...

    async def close_session(
        self,
        session_id: str,
        final_stack: int,
        reason: str,
        removal: Removal | None = None,
        move: MoveOrder | None = None,
    ) -> SessionSnapshot:
        """Pay the player out between hands (``removal``, ``move`` as for
        :meth:`mark_closing`)."""
        ...

    async def recorded_move(self, request_id: str) -> RecordedMove | None:
        """The MovePlayer recorded under ``request_id`` (None: none was)."""
        ...

    async def update_tournament(self, table_id: str, changes: dict[str, Any]) -> None:
        """Store a tournament table's changed state (level, stakes, hand_held, info,
        places: JSON values)."""
        ...

    async def set_table_status(
        self, table_id: str, status: TableStatus, drain_hold: DrainHold | None = None
    ) -> None:
        """Store the status ops see; ``drain_hold``: the drain holding it paused, if any."""
        ...

    async def rotate_seed(
        self, table_id: str, client_seed: str | None
    ) -> tuple[RevealedPair, SeedPair]: ...

    async def close_table(self, table_id: str) -> tuple[list[SessionSnapshot], RevealedPair]:
        """Close every seat session with its stack, reveal the dealer seed, mark it closed."""
        ...


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a table is served (ListTables across nodes)."""

    node: str
    node_live: bool
    owner_epoch: int


@dataclass(frozen=True, slots=True)
class NodeEntry:
    """An engine node of the registry as ops see it (AdminService ``ListNodes``)."""

    id: str
    #: ``starting``, ``serving``, ``draining`` or ``stopped``.
    state: str
    #: The fencing number of the process that holds the node.
    epoch: int
    admin_address: str
    grpc_address: str
    web_url: str
    started_at: datetime
    heartbeat_at: datetime
    expires_at: datetime
    #: Serving, and its lease has not run out.
    live: bool
    #: Its tables that are not closed.
    open_tables: int
    #: The players seated at them (sessions not closed).
    seated_players: int = 0


class NodeDirectory(Protocol):
    """The registry of the engine nodes sharing one database (the store implements it)."""

    async def listing(self, now: datetime) -> list[NodeEntry]:
        """Every registered node, by id, as it stands at ``now``."""
        ...
