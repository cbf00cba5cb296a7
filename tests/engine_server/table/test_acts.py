"""An act's checks, the answer it gets, and the answers remembered for retries."""

from __future__ import annotations

import pytest

from engine_server.game.actions import ActionKind, ActionRefused
from engine_server.game.events import ProtectionApplied
from engine_server.table.acts import (
    ActOutcome,
    AnsweredActions,
    recorded_outcome,
    refusal,
    running_hand,
    timeout_taken,
)
from engine_server.table.errors import TableError
from tests.engine_server.table.states import deal, refused, seat, table_state


def test_an_answer_is_given_again_to_a_retry_and_refused_to_another_action() -> None:
    answers = AnsweredActions(limit=2)
    answer = ActOutcome(5, 1, 3, ActionKind.COMPLETE, 2, 2, False)
    assert answers.repeat(3, "a1", 1, ActionKind.BRING_IN, None) is None
    answers.remember("a1", ActionKind.BRING_IN, None, answer)
    again = answers.repeat(3, "a1", 1, ActionKind.BRING_IN, None)
    assert again == ActOutcome(5, 1, 3, ActionKind.COMPLETE, 2, 2, False, repeated=True)
    for other in (
        (2, ActionKind.BRING_IN, None),
        (1, ActionKind.CALL, None),
        (1, ActionKind.BRING_IN, 4),
    ):
        with pytest.raises(TableError) as error:
            answers.repeat(3, "a1", *other)
        assert error.value.reason == "IDEMPOTENCY_KEY_REUSED"
    # Another seat's action id of the same name is another action.
    assert answers.repeat(4, "a1", 1, ActionKind.CALL, None) is None
    # Only the last ``limit`` answers are kept.
    answers.remember("a2", ActionKind.CALL, None, ActOutcome(6, 1, 4, ActionKind.CALL, 1, 2, False))
    answers.remember("a3", ActionKind.FOLD, None, ActOutcome(7, 1, 5, ActionKind.FOLD, 0, 0, False))
    assert len(answers) == 2
    assert answers.repeat(3, "a1", 1, ActionKind.BRING_IN, None) is None
    assert answers.repeat(5, "a3", 1, ActionKind.FOLD, None) is not None


def test_an_act_names_the_running_hand() -> None:
    state = table_state(seat(1), seat(2))
    assert refused(running_hand, state, 1) == "NO_HAND_IN_PROGRESS"
    deal(state)
    assert running_hand(state, 1) is state.hand
    assert refused(running_hand, state, 2) == "STALE_HAND"
    state.hand = None
    assert refused(running_hand, state, 1) == "STALE_HAND"  # it is over


def test_the_rules_refusals_become_the_callers_errors() -> None:
    state = table_state(seat(1), seat(2), seat(3))
    deal(state)
    hand = state.hand
    assert hand is not None and hand.to_act is not None
    turn = hand.to_act
    other = next(n for n in (1, 2, 3) if n != turn)
    code = hand.refusal(other, ActionKind.CALL)
    assert isinstance(code, ActionRefused)
    error = refusal(hand, other, code)
    assert (error.reason, error.metadata) == ("NOT_YOUR_TURN", {"turn_seat": str(turn)})
    illegal = hand.refusal(turn, ActionKind.CHECK)
    assert isinstance(illegal, ActionRefused)
    error = refusal(hand, turn, illegal)
    legal = ",".join(str(a.kind) for a in hand.legal_actions())
    assert (error.reason, error.metadata) == ("ILLEGAL_ACTION", {"legal_actions": legal})


def test_the_outcome_is_the_action_as_the_hand_recorded_it() -> None:
    state = table_state(seat(1), seat(2), seat(3))
    deal(state)
    hand = state.hand
    assert hand is not None and hand.to_act is not None
    seat_to_act = hand.to_act
    before = len(hand.events)
    hand.act(seat_to_act, ActionKind.COMPLETE, None)
    outcome = recorded_outcome(hand, seat_to_act, ActionKind.COMPLETE, before)
    assert (outcome.seat, outcome.kind, outcome.to) == (seat_to_act, ActionKind.COMPLETE, 2)
    assert outcome.amount == 2 and not outcome.all_in
    # The clock's action is named for what it did.
    turn = hand.to_act
    assert turn is not None
    before = len(hand.events)
    hand.timeout(turn)
    taken = timeout_taken(hand, turn, before)
    protected = any(isinstance(e, ProtectionApplied) for e in hand.events[before:])
    assert taken == ("protect" if protected else "fold")
