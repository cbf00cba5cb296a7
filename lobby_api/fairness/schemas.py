"""What the fairness endpoints answer (docs/fairness.md §4).

A dealer seed appears only once its pair is revealed (``SeedPairRow.revealed_at``): after
a rotation or when the table closes. Until then only its commitment is shown.

Each hand comes with the cards the caller was dealt in it (``dealt``, in the form of a hand
record's, so that ``stud verify`` checks them against the deck the seeds derive): his own
and only those he may see, as his hand history shows them — never another seat's, and not
his own down cards of a hand he folded (folded cards are never shown, not even to him).
"""

from __future__ import annotations

from datetime import datetime

import msgspec

__all__ = [
    "DealtCard",
    "FairnessCheck",
    "HandFairness",
    "HandVerdict",
    "Mismatch",
    "SeedPairCheck",
    "SeedPairView",
]


class Mismatch(msgspec.Struct, kw_only=True):
    """A recorded card that is not where the derived deck puts it."""

    seat: int | None
    card: str
    deck_index: int
    deck_card: str


class DealtCard(msgspec.Struct, kw_only=True):
    """A card the caller was dealt, and the position of the derived deck it was dealt from."""

    #: His seat in the hand.
    seat: int
    card: str
    #: 0 for the deck's first card … 51.
    deck_index: int


class FairnessCheck(msgspec.Struct, kw_only=True):
    """The check of one hand, computed with :func:`engine_server.game.fairness.verify_record`."""

    #: SHA-256 of the revealed dealer seed equals the commitment shown before the hand.
    commitment_ok: bool
    #: Every card the history records as dealt sits where the derived deck puts it.
    deck_ok: bool
    mismatches: list[Mismatch]
    #: Both of the above, and nothing else wrong (a deck position recorded twice, …).
    ok: bool
    #: Everything wrong, in words (empty when ``ok``).
    problems: list[str]
    #: How many recorded cards were checked: every seat's (``dealt`` has only the caller's).
    cards_checked: int
    #: The derived deck, index 0 first (docs/fairness.md §4.4: the page shows the recomputed deck);
    #: empty when the dealer seed is not a valid seed.
    deck: list[str]


class HandFairness(msgspec.Struct, kw_only=True):
    """GET /hands/{hand_id}/fairness."""

    hand_id: str
    table: str
    hand_number: int
    #: The commitment shown before the hand (SHA-256 of the dealer seed).
    commitment: str
    client_seed: str
    #: The hand's number on its seed pair, from 0.
    nonce: int
    #: None until the pair is revealed.
    dealer_seed: str | None
    revealed: bool
    revealed_at: datetime | None
    #: None until revealed.
    check: FairnessCheck | None
    #: The cards he was dealt that he may see (not his folded down cards), in dealing order:
    #: what he checks against the deck once the dealer seed is revealed.
    dealt: list[DealtCard]


class HandVerdict(msgspec.Struct, kw_only=True):
    """One hand of a revealed pair that the caller was dealt into, checked."""

    hand_id: str
    hand_number: int
    nonce: int
    #: The lobby's check of every card the hand's record lists, every seat's.
    ok: bool
    #: The cards he was dealt in it that he may see, as in the hand's own answer.
    dealt: list[DealtCard]


class SeedPairCheck(msgspec.Struct, kw_only=True):
    """The caller's hands of a revealed pair, each checked."""

    ok: bool
    hands: list[HandVerdict]


class SeedPairView(msgspec.Struct, kw_only=True):
    """One seed pair of a table (GET /tables/{table_id}/seed-pairs), oldest first."""

    #: 1, 2, 3, … in the order the table's pairs were generated.
    ordinal: int
    #: next (committed ahead), current (dealing) or retired (rotated away).
    state: str
    commitment: str
    #: None for the next pair: its client seed is set when it takes over.
    client_seed: str | None
    #: Hands dealt with this pair (its nonces 0 … hands_dealt − 1).
    hands_dealt: int
    #: None until revealed.
    dealer_seed: str | None
    revealed_at: datetime | None
    #: None until revealed.
    check: SeedPairCheck | None
