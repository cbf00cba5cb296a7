"""Fairness pages: a hand's seeds with the check, and the seed pairs of a table.

Plain async functions over the caller's :class:`AsyncSession`, reading the engine's hands
and seed pairs through the lobby's read port (:mod:`lobby_api.engine_reads`). The check is the engine's own
(:func:`engine_server.game.fairness.verify_record`) over the cards the hand's record
stores, each at its ``deck_index``, against the hand's stored commitment, client seed and
nonce — so a card changed in the database, a dealer seed that does not match the
commitment shown before the hand, or a wrong nonce all fail it.

A dealer seed is given only once the pair's ``revealed_at`` is set (after a rotation or
the table's closing): before that it would make the running pair's decks — folded and
undealt cards included — computable.

Every hand also carries the caller's own cards with their deck positions (``dealt``), chosen
by the hand history's own rule (:func:`lobby_api.history.redaction.own_visible_cards`), so
that he can check them himself (``stud verify``, the web page) without building a record.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.game.cards import format_cards
from engine_server.game.fairness import (
    FairnessError,
    FairnessRecord,
    parse_record,
    verify_record,
)
from lobby_api import engine_reads
from lobby_api.engine_reads import HandRecord
from lobby_api.fairness.schemas import (
    DealtCard,
    FairnessCheck,
    HandFairness,
    HandVerdict,
    Mismatch,
    SeedPairCheck,
    SeedPairView,
)
from lobby_api.history.redaction import RecordInconsistent, own_visible_cards
from lobby_api.history.services import HistoryError, dealt_in, is_stored_id

__all__ = ["TableNotFound", "check_hand", "dealt_to", "hand_fairness", "table_seed_pairs"]


class TableNotFound(HistoryError):
    """No table the caller played at by that id (absent, or never dealt in: same answer)."""

    status = 404
    code = "table_not_found"


def check_hand(hand: HandRecord, dealer_seed: str) -> FairnessCheck:
    """Verify the hand's stored cards against the deck its seeds derive.

    A record that does not parse (a card that is no card, a deck index out of range, a
    malformed seed) fails the check with the reason, rather than raising.
    """
    data = {
        "commitment": hand.commitment,
        "dealer_seed": dealer_seed,
        "client_seed": hand.client_seed,
        "nonce": hand.nonce,
        # Only what the check reads; an entry that is no object makes parse_record fail.
        "dealt": [
            {k: c.get(k) for k in ("seat", "card", "deck_index")} if isinstance(c, Mapping) else c
            for c in hand.cards or ()
        ],
    }
    try:
        record: FairnessRecord = parse_record(data)
        verification = verify_record(record)
    except FairnessError as error:
        return FairnessCheck(
            commitment_ok=False,
            deck_ok=False,
            mismatches=[],
            ok=False,
            problems=[str(error)],
            cards_checked=0,
            deck=[],
        )
    # verify_record lists the commitment mismatch among its problems; everything else is
    # about the cards.
    card_problems = len(verification.problems) - (0 if verification.commitment_ok else 1)
    return FairnessCheck(
        commitment_ok=verification.commitment_ok,
        deck_ok=card_problems == 0,
        mismatches=[Mismatch(**m.as_json()) for m in verification.mismatches],  # type: ignore[arg-type]
        ok=verification.ok,
        problems=list(verification.problems),
        cards_checked=len(record.dealt),
        deck=format_cards(verification.deck),
    )


def dealt_to(hand: HandRecord, seat: int) -> list[DealtCard]:
    """The cards of ``seat`` that its player may see, each at its deck index.

    A record whose cards do not parse gives none: its check (:func:`check_hand`) fails and
    says why, and nothing of it is shown.
    """
    try:
        cards = own_visible_cards(hand, seat)
    except RecordInconsistent:
        return []
    return [DealtCard(seat=seat, card=c.card, deck_index=c.deck_index) for c in cards]


async def hand_fairness(session: AsyncSession, player_id: str, hand_id: str) -> HandFairness:
    """The hand's fairness page (``HandNotFound`` unless the caller was dealt in)."""
    hand, _, mine = await dealt_in(session, player_id, hand_id)
    pair = await engine_reads.seed_pair(session, hand.seed_pair_id)
    revealed = pair is not None and pair.revealed_at is not None
    return HandFairness(
        hand_id=hand.id,
        table=hand.table_id,
        hand_number=hand.hand_number,
        commitment=hand.commitment,
        client_seed=hand.client_seed,
        nonce=hand.nonce,
        dealer_seed=pair.dealer_seed if revealed and pair is not None else None,
        revealed=revealed,
        revealed_at=pair.revealed_at if pair is not None else None,
        check=check_hand(hand, pair.dealer_seed) if revealed and pair is not None else None,
        dealt=dealt_to(hand, mine.seat),
    )


async def table_seed_pairs(
    session: AsyncSession, player_id: str, table_id: str
) -> list[SeedPairView]:
    """The table's seed pairs, oldest first, for a caller dealt into one of its hands.

    Revealed pairs come with their dealer seed and the check of every hand of the pair that
    the caller was dealt into. ``TableNotFound`` when he never played there.
    """
    if not is_stored_id(table_id):
        raise TableNotFound(f"no table {table_id} that you played at")
    mine = await engine_reads.player_hands_at_table(session, table_id, player_id)
    if not mine:
        raise TableNotFound(f"no table {table_id} that you played at")
    pairs = await engine_reads.seed_pairs_of(session, table_id)
    views = []
    for pair in pairs:
        revealed = pair.revealed_at is not None
        check = None
        if revealed:
            verdicts = [
                HandVerdict(
                    hand_id=hand.id,
                    hand_number=hand.hand_number,
                    nonce=hand.nonce,
                    ok=check_hand(hand, pair.dealer_seed).ok,
                    dealt=dealt_to(hand, seat.seat),
                )
                for hand, seat in mine
                if hand.seed_pair_id == pair.id
            ]
            check = SeedPairCheck(ok=all(v.ok for v in verdicts), hands=verdicts)
        views.append(
            SeedPairView(
                ordinal=pair.ordinal,
                state=pair.state,
                commitment=pair.commitment,
                # A next pair's client seed is provisional until a rotation makes it current.
                client_seed=None if pair.is_next else pair.client_seed,
                hands_dealt=pair.next_nonce,
                dealer_seed=pair.dealer_seed if revealed else None,
                revealed_at=pair.revealed_at,
                check=check,
            )
        )
    return views
