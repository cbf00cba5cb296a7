"""Seeds: the table's seed pair, rotated between hands (its dealer seed revealed)."""

from __future__ import annotations

from engine_server.table.errors import TableError
from engine_server.table.events import SeedRotated
from engine_server.table.model import SeedPair, TableStatus
from engine_server.table.ports import RevealedPair
from engine_server.table.state import TableState

__all__ = ["check_rotation", "revealed", "rotated"]


def check_rotation(state: TableState) -> None:
    """The seed pair rotates only between hands, at a table not closed."""
    if state.hand is not None:
        raise TableError.precondition(
            "HAND_IN_PROGRESS", "the seed pair rotates only between hands"
        )
    if state.status is TableStatus.CLOSED:
        raise TableError.precondition("TABLE_CLOSED", f"{state.config.name} is closed")


def revealed(state: TableState, pair: RevealedPair) -> SeedRotated:
    """The event revealing ``pair`` (the pair dealt so far), with the pair dealt from now."""
    return SeedRotated(
        pair.dealer_seed, pair.commitment, pair.client_seed, pair.hands_dealt, state.seed
    )


def rotated(state: TableState, pair: RevealedPair, current: SeedPair) -> SeedRotated:
    """The store rotated the seed pair: ``pair`` is revealed, ``current`` deals from now."""
    state.seed = current
    return revealed(state, pair)
