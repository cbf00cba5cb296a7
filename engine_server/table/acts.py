"""A player's action at a table: its checks, its answer, and the answers remembered.

An act is idempotent by its action id: the answer of every action taken is remembered
(:class:`AnsweredActions`, a bounded number per table), and a retry gets it again.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from engine_server.game.actions import ActionKind, ActionRefused, RefusalCode
from engine_server.game.events import (
    ActionTaken,
    BringInPosted,
    HandMucked,
    HandShown,
    ProtectionApplied,
)
from engine_server.game.hand import Hand
from engine_server.table.errors import TableError
from engine_server.table.state import TableState

__all__ = [
    "ActAnswer",
    "ActOutcome",
    "AnsweredActions",
    "recorded_outcome",
    "refusal",
    "running_hand",
    "timeout_taken",
]


@dataclass(frozen=True, slots=True)
class ActOutcome:
    sequence: int
    hand_number: int
    seat: int
    kind: ActionKind
    #: chips the action moved, and the seat's bet on this street after it
    amount: int
    to: int
    all_in: bool
    #: answered from memory: the action id had already been accepted (nothing moved now)
    repeated: bool = False


@dataclass(frozen=True, slots=True)
class ActAnswer:
    """The answer to an act sent on a player's own stream (Play), queued in order with the
    stream's updates: a refusal, or a repeated action id's first answer. An accepted new act
    needs none: the update carrying its ``action_id`` answers it."""

    action_id: str
    answer: ActOutcome | TableError


class AnsweredActions:
    """The answers of the last ``limit`` actions taken at a table, by (seat, action id).

    Each is kept as the request's (hand number, kind, amount) and the answer's fields, as
    plain values: the garbage collector stops walking tuples of those, and every table keeps
    many. Answers outlive their hand: a retry of the action that ended the last hand must get
    its answer again, not STALE_HAND.
    """

    __slots__ = ("_answers", "_limit")

    def __init__(self, limit: int) -> None:
        self._answers: OrderedDict[tuple[int, str], tuple[Any, ...]] = OrderedDict()
        self._limit = limit

    def __len__(self) -> int:
        return len(self._answers)

    def repeat(
        self, seat: int, action_id: str, hand_number: int, kind: ActionKind, amount: int | None
    ) -> ActOutcome | None:
        """The first answer to this action id (``repeated``), or None if it is new.

        Raises ``IDEMPOTENCY_KEY_REUSED`` when the id was used for another action.
        """
        known = self._answers.get((seat, action_id))
        if known is None:
            return None
        if known[:3] != (hand_number, kind.value, amount):
            raise TableError.invalid(
                "IDEMPOTENCY_KEY_REUSED",
                f"action id {action_id!r} was used for another action",
                field="action_id",
            )
        sequence, taken, chips, to, all_in = known[3:]
        return ActOutcome(
            sequence, hand_number, seat, ActionKind(taken), chips, to, all_in, repeated=True
        )

    def remember(
        self, action_id: str, kind: ActionKind, amount: int | None, answer: ActOutcome
    ) -> None:
        """Keep ``answer`` to the action asked as (``kind``, ``amount``); forget the oldest."""
        answers = self._answers
        answers[(answer.seat, action_id)] = (
            answer.hand_number,
            kind.value,
            amount,
            answer.sequence,
            answer.kind.value,
            answer.amount,
            answer.to,
            answer.all_in,
        )
        while len(answers) > self._limit:
            answers.popitem(last=False)


def running_hand(state: TableState, hand_number: int) -> Hand:
    """The running hand, if it is hand ``hand_number``; else ``STALE_HAND`` or
    ``NO_HAND_IN_PROGRESS``."""
    hand = state.hand
    if hand is None:
        if hand_number == state.hand_number and state.hand_number > 0:
            raise TableError.precondition(
                "STALE_HAND",
                f"hand {hand_number} is over",
                hand_number=str(state.hand_number),
            )
        raise TableError.precondition("NO_HAND_IN_PROGRESS", "no hand is running")
    if hand_number != state.hand_number:
        raise TableError.precondition(
            "STALE_HAND",
            f"hand {hand_number} is not the running hand {state.hand_number}",
            hand_number=str(state.hand_number),
        )
    return hand


def refusal(hand: Hand, seat: int, refused: ActionRefused) -> TableError:
    """The rules refused ``seat``'s action: the error its caller gets."""
    legal = ",".join(str(a.kind) for a in hand.legal_actions() if hand.to_act == seat)
    if refused.code is RefusalCode.NOT_YOUR_TURN:
        return TableError.precondition(
            "NOT_YOUR_TURN", refused.message, turn_seat=str(hand.to_act or 0)
        )
    return TableError.precondition("ILLEGAL_ACTION", refused.message, legal_actions=legal)


def recorded_outcome(hand: Hand, seat: int, kind: ActionKind, before: int) -> ActOutcome:
    """``seat``'s action as the hand recorded it after its event number ``before`` (a
    bring-in may have been completed; ``sequence`` and ``hand_number`` 0: the caller's)."""
    for e in hand.events[before:]:
        if isinstance(e, ActionTaken) and e.seat == seat:
            return ActOutcome(0, 0, seat, e.kind, e.amount, e.to, e.all_in)
        if isinstance(e, BringInPosted) and e.seat == seat:
            kind = ActionKind.COMPLETE if e.completed else ActionKind.BRING_IN
            return ActOutcome(0, 0, seat, kind, e.amount, e.amount, e.all_in)
        # An ordered showdown's decision is recorded as the hand shown or mucked.
        if isinstance(e, HandShown | HandMucked) and e.seat == seat:
            kind = ActionKind.SHOW if isinstance(e, HandShown) else ActionKind.MUCK
            return ActOutcome(0, 0, seat, kind, 0, 0, False)
    return ActOutcome(0, 0, seat, kind, 0, 0, False)


def timeout_taken(hand: Hand, seat: int, before: int) -> str:
    """What the clock did for ``seat`` when it ran out (fold, check, protect, ...)."""
    taken = str(recorded_outcome(hand, seat, ActionKind.TIMEOUT, before).kind)
    if any(isinstance(e, ProtectionApplied) for e in hand.events[before:]):
        taken = "protect"
    return taken
