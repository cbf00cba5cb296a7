"""A hand a previous engine left running, ended on the next start: its deal rebuilt from its
seed pair and nonce, its stored actions taken again on it; settled if they had ended it,
else cancelled, every chip back (docs/operations.md, "Crashes").
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from engine_server.game.actions import ActionRefused
from engine_server.game.fairness import deck_stream
from engine_server.game.hand import Hand, Phase
from engine_server.game.phh import export_phh
from engine_server.game.replay import hand_trail, replay_actions, result_to_json
from engine_server.store.hands import RunningHand
from engine_server.store.values import (
    table_config,
)
from engine_server.table.model import LastHand
from engine_server.table.ports import (
    HandRecord,
)
from engine_server.table.rules.tournament import stakes_from_json

__all__ = ["RECOVERY_REASON", "Recovered", "cancelled_last_hand", "rebuilt_hand", "recovered"]

log = logging.getLogger("stud.store")

#: why a hand a previous engine left running was cancelled
RECOVERY_REASON = "engine restart"


def rebuilt_hand(running: RunningHand) -> Hand:
    """The hand dealt again from its seed pair, nonce, button and start stacks: the same deck
    and dealing as the live hand's."""
    hand = running.hand
    config = table_config(running.table)
    deck, stream = deck_stream(running.seed_pair.dealer_seed, hand.client_seed, hand.nonce)
    # The stakes the hand was dealt at (a tournament table's may have changed since).
    stakes = stakes_from_json((hand.settings or {}).get("stakes")) or config.stakes
    return Hand(
        config.settings,
        stakes,
        [(p.seat, p.start_stack) for p in running.players],
        hand.button_seat,
        deck,
        stream=stream,
    )


#: how the record of a hand cancelled on start-up was made (its result's ``trail``)
_REPLAYED = (
    "every action recorded before the engine stopped, taken again on the deal rebuilt from the"
    " seed pair and nonce when the engine restarted"
)
_DEAL_ONLY = (
    "the deal only, rebuilt from the seed pair and nonce when the engine restarted: no"
    " action after it was recorded"
)
_SETTLED = (
    "every action recorded before the engine stopped, taken again on the deal rebuilt from the"
    " seed pair and nonce when the engine restarted: they had ended the hand, which was settled"
    " then"
)
_UNREPLAYED = (
    "the deal rebuilt from the seed pair and nonce when the engine restarted, and the actions"
    " recorded before it stopped, which did not replay on it"
)


def cancelled_last_hand(running: RunningHand, returned: dict[int, int]) -> LastHand:
    """A hand a crash left running, cancelled on the next load, as the table's last hand (what
    its streams are told): every seat back to its start stack, ``returned`` what each had put
    in (empty when its actions could not be replayed)."""
    return LastHand(
        hand_number=running.hand.hand_number,
        nonce=running.hand.nonce,
        cancelled=True,
        result=None,
        ended_at=datetime.now(UTC),
        returned=returned,
        final_stacks={p.seat: p.start_stack for p in running.players},
        reason=RECOVERY_REASON,
        ended_on_load=True,
    )


@dataclass(frozen=True, slots=True)
class Recovered:
    """What becomes of a hand a crash left running."""

    record: HandRecord
    #: the table's last hand after it, as its streams are told
    last: LastHand
    #: each seat session's stack after the hand, when its stored actions finished it (it is
    #: settled as the engine would have: finished, chips to the winners); None: cancelled
    final_stacks: dict[str, int] | None = None
    #: the sessions it closes (a tournament player it left with no chip: busted)
    closed: list[tuple[str, str]] = field(default_factory=list)


def recovered(
    running: RunningHand, recorded: list[dict[str, Any]], names: dict[int, str]
) -> Recovered:
    """The record of a hand a crash left running: its deal, and every action stored while it
    ran (taken again on the deal, which also deals the streets they reached).

    If those actions end it (everyone folded to one, or the showdown reached), the crash came
    between its last action's write and its end's: its outcome is decided by the stored
    actions alone, and it is settled as the engine would have settled it. Otherwise it is
    cancelled, every chip back."""
    hand = rebuilt_hand(running)
    cancelled: dict[str, Any] = {"cancelled": True, "pots": [], "rake": 0}
    try:
        replay_actions(hand, recorded, whole=False)
    except (ValueError, ActionRefused):
        # Kept as stored all the same: the audit must show what players were told.
        log.exception("hand %s: its recorded actions do not replay", running.hand.id)
        cards, _ = hand_trail(rebuilt_hand(running))
        return Recovered(
            HandRecord(cards, recorded, [], 0, {**cancelled, "trail": _UNREPLAYED}, None),
            cancelled_last_hand(running, {}),
        )
    settled = hand.is_over and hand.phase is not Phase.CANCELLED
    # What each seat had put in, read before the cancel gives it back (its streams are told).
    returned = {p.seat: p.contributed for p in hand.players if p.contributed}
    if not hand.is_over:
        hand.cancel()
    cards, actions = hand_trail(hand)
    config = table_config(running.table)
    if settled:
        outcome = hand.result()
        result = {
            **result_to_json(outcome, hi_lo=config.settings.hi_lo),
            "trail": _SETTLED,
        }
    else:
        result = {**cancelled, "trail": _REPLAYED if recorded else _DEAL_ONLY}
    try:
        phh = export_phh(
            hand, table=config.name, hand_number=running.hand.hand_number, players=names
        )
    except Exception:
        log.exception("hand %s: PHH export failed", running.hand.id)
        phh = None
    record = HandRecord(cards, actions, result["pots"], result["rake"], result, phh)
    if not settled:
        return Recovered(record, cancelled_last_hand(running, returned))
    sessions = {p.seat: p.seat_session_id for p in running.players}
    final = {sessions[p.seat]: p.stack for p in hand.players}
    # As the tournament rules close them at a hand's end (TournamentRules.busted).
    busted = (
        []
        if running.table.tournament_id is None
        else [(sid, "busted") for sid, stack in sorted(final.items()) if stack == 0]
    )
    last = LastHand(
        hand_number=running.hand.hand_number,
        nonce=running.hand.nonce,
        cancelled=False,
        result=outcome,
        ended_at=datetime.now(UTC),
        reason=RECOVERY_REASON,
        ended_on_load=True,
    )
    return Recovered(record, last, final, busted)
