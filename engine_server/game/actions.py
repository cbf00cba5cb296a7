"""What a player may do, and how a refused action is reported.

>>> LegalAction(ActionKind.RAISE, min_to=8, max_to=12, sizes=(8, 12))
LegalAction(kind=<ActionKind.RAISE: 'raise'>, min_to=8, max_to=12, sizes=(8, 12))
>>> str(ActionRefused(RefusalCode.NOT_YOUR_TURN, "seat 4 acted, seat 5 is to act"))
'NOT_YOUR_TURN: seat 4 acted, seat 5 is to act'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

__all__ = [
    "LEGAL_ORDER",
    "ActionKind",
    "ActionRefused",
    "LegalAction",
    "RefusalCode",
]


class ActionKind(StrEnum):
    """Everything a seat can do on its turn (``timeout`` is the clock acting for it)."""

    FOLD = "fold"
    CHECK = "check"
    BET = "bet"
    CALL = "call"
    COMPLETE = "complete"
    RAISE = "raise"
    BRING_IN = "bring_in"
    SHOW = "show"
    MUCK = "muck"
    TIMEOUT = "timeout"


#: The order docs/hand-scripts.md §5 lists legal actions in.
LEGAL_ORDER: Final[tuple[ActionKind, ...]] = (
    ActionKind.FOLD,
    ActionKind.CHECK,
    ActionKind.BET,
    ActionKind.CALL,
    ActionKind.COMPLETE,
    ActionKind.RAISE,
    ActionKind.BRING_IN,
    ActionKind.SHOW,
    ActionKind.MUCK,
)


class RefusalCode(StrEnum):
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    ILLEGAL_ACTION = "ILLEGAL_ACTION"
    HAND_OVER = "HAND_OVER"


@dataclass(frozen=True, slots=True, init=False)
class LegalAction:
    """One legal action for the seat to act.

    ``min_to``/``max_to`` are the totals the seat's bet on this street becomes
    (for ``call`` the amount it becomes after calling, all in included); where
    only some totals in between are allowed they are listed in ``sizes``.
    Actions that move no chips have ``0`` for both.
    """

    kind: ActionKind
    min_to: int = 0
    max_to: int = 0
    sizes: tuple[int, ...] = ()

    def __init__(
        self, kind: ActionKind, min_to: int = 0, max_to: int = 0, sizes: tuple[int, ...] = ()
    ) -> None:
        # Set field by field with literal names: compiled by mypyc, a direct store (see
        # engine_server.game.events; every decision builds a few of these).
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "min_to", min_to)
        object.__setattr__(self, "max_to", max_to)
        object.__setattr__(self, "sizes", sizes)

    def allows(self, to: int) -> bool:
        """Whether ``to`` is a total this action may bring the bet to."""
        if self.sizes:
            return to in self.sizes
        return self.min_to <= to <= self.max_to


class ActionRefused(Exception):
    """An action the hand refused; the hand is unchanged."""

    def __init__(self, code: RefusalCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
