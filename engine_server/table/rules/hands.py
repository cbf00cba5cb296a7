"""Hands at the table: dealing one in, cancelling it, what its end leaves, showing after it.

The hand itself is :class:`engine_server.game.hand.Hand`; these rules keep the table's side
of it (hand numbers, the button, the seed pair's nonces, the seats dealt in, the last hand).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from engine_server.game.cards import Card
from engine_server.game.fairness import deck_stream
from engine_server.game.hand import Hand, HandResult
from engine_server.game.profiles import Stakes
from engine_server.table.errors import TableError
from engine_server.table.events import CardsShownAfter, HandBegan, UpdateEvent
from engine_server.table.model import LastHand, SeatState
from engine_server.table.ports import StartedHand
from engine_server.table.state import TableState

__all__ = [
    "begin",
    "cancel",
    "deal_again",
    "final_stacks",
    "finished",
    "leaving",
    "players",
    "show_after",
]


def players(state: TableState, ready: list[int]) -> list[tuple[int, str, str, int]]:
    """The seats dealt in as the store records them: (seat, session, player, stack)."""
    seats = state.seats
    return [(n, seats[n].session_id, seats[n].player_id, seats[n].stack) for n in ready]


def begin(
    state: TableState, started: StartedHand, ready: list[int], button: int, stakes: Stakes
) -> HandBegan:
    """The store started the hand (``started``: its id and nonce): deal it to ``ready``."""
    seed = state.seed
    deck, stream = deck_stream(seed.dealer_seed, seed.client_seed, started.nonce)
    hand_number = state.hands_started + 1
    state.hands_started = hand_number
    state.hand_number = hand_number
    state.nonce = started.nonce
    seed.next_nonce = started.nonce + 1
    state.hand_id = started.hand_id
    state.button = button
    state.hand_seats = {n: state.seats[n] for n in ready}
    for seat in state.hand_seats.values():
        seat.reconnect_bonus_used = False
    state.hand = Hand(
        state.config.settings,
        stakes,
        [(n, state.seats[n].stack) for n in ready],
        button,
        deck,
        stream=stream,
    )
    return HandBegan(
        hand_number, started.nonce, seed.commitment, seed.client_seed, button, tuple(ready), stakes
    )


def deal_again(state: TableState, hand: Hand) -> Hand:
    """The running ``hand`` as it was dealt, before anyone acted: the same deck and stream
    (from the seed pair and the hand's nonce), seats, stacks, button and stakes."""
    seed = state.seed
    assert state.nonce is not None  # a hand is running
    deck, stream = deck_stream(seed.dealer_seed, seed.client_seed, state.nonce)
    starts = {p.seat: p.start_stack for p in hand.players}
    return Hand(
        hand.settings,
        hand.stakes,
        [(n, starts[n]) for n in state.hand_seats],
        hand.button,
        deck,
        stream=stream,
    )


def cancel(state: TableState, hand_number: int, reason: str) -> Hand:
    """CancelHand: every chip put into the running hand (``hand_number``, 0: whichever
    runs) goes back. Returns the hand, cancelled (its end is the caller's to carry out)."""
    hand = state.hand
    if hand is None:
        raise TableError.precondition("NO_HAND_IN_PROGRESS", "no hand is running")
    if hand_number and hand_number != state.hand_number:
        raise TableError.precondition(
            "STALE_HAND",
            f"hand {hand_number} is not the running hand {state.hand_number}",
            hand_number=str(state.hand_number),
        )
    state.cancel_reason = reason or "cancelled by ops"
    # What each seat put in, read before cancelling gives it back (CancelHand reports it).
    state.cancel_returned = {p.seat: p.contributed for p in hand.players if p.contributed}
    hand.cancel()
    return hand


def final_stacks(hand: Hand, cancelled: bool) -> dict[int, int]:
    """The stacks the hand leaves each seat: those it began with, if it was cancelled."""
    if cancelled:
        return {p.seat: p.start_stack for p in hand.players}
    return {p.seat: p.stack for p in hand.players}


def finished(
    state: TableState,
    hand: Hand,
    final: dict[int, int],
    result: HandResult | None,
    ended_at: datetime,
) -> LastHand:
    """The store recorded the hand's end (``result`` None: it was cancelled): the seats get
    their stacks, and it becomes the last hand. Those leaving after it are still seated."""
    cancelled = result is None
    for number, stack in final.items():
        state.hand_seats[number].stack = stack
    last = LastHand(
        hand_number=state.hand_number,
        nonce=state.nonce or 0,
        cancelled=cancelled,
        result=result,
        ended_at=ended_at,
        returned=dict(state.cancel_returned) if cancelled else {},
        final_stacks=final if cancelled else {},
        reason=state.cancel_reason if cancelled else "",
    )
    state.last_hand = last
    state.last_hand_played = hand
    return last


def leaving(state: TableState) -> list[SeatState]:
    """The seats dealt into the running hand whose players leave when it ends."""
    return [s for s in state.hand_seats.values() if s.leaving]


def show_after(
    state: TableState, number: int, hand_number: int
) -> tuple[tuple[Card, ...], list[UpdateEvent]]:
    """A winner by folds shows his cards after the hand, before the next one (where the
    profile lets him): the cards, and the event."""
    last, hand = state.last_hand, state.last_hand_played
    if not state.config.settings.winner_may_show:
        raise TableError.precondition(
            "SHOW_NOT_ALLOWED", "this table's rules do not let a winner show"
        )
    if (
        state.hand is not None
        or last is None
        or hand is None
        or last.hand_number != hand_number
        or last.result is None
        or not last.result.won_by_fold
        or last.result.pots[0].winners != (number,)
    ):
        raise TableError.precondition(
            "SHOW_NOT_ALLOWED", "only the winner by folds may show, before the next hand"
        )
    player = hand.player(number)
    assert player is not None
    cards = tuple(player.cards)
    state.last_hand = replace(last, shown_after={**last.shown_after, number: cards})
    return cards, [CardsShownAfter(number, hand_number, cards)]
