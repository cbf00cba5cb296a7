"""One replay of recorded actions for the engine and the lobby: the caller names the error a
record that is not an action raises (the engine's ValueError, the lobby's RecordInconsistent)."""

from __future__ import annotations

from typing import Any

import pytest

from engine_server.game.fairness import derive_deck
from engine_server.game.hand import Hand
from engine_server.game.profiles import PROFILES, Stakes
from engine_server.game.replay import apply_record
from lobby_api.history.redaction import RecordInconsistent


def dealt() -> Hand:
    return Hand(
        PROFILES["house"],
        Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
        [(1, 100), (2, 100)],
        1,
        derive_deck("ab" * 32, "client", 0),
    )


@pytest.mark.parametrize("error", [ValueError, RecordInconsistent])
@pytest.mark.parametrize(
    ("action", "message"),
    [({"do": "fold"}, "names no seat"), ({"seat": 1, "do": "steal"}, "unknown action")],
)
def test_a_record_that_is_no_action_raises_the_callers_error(
    error: type[Exception], action: dict[str, Any], message: str
) -> None:
    with pytest.raises(error, match=message):
        apply_record(dealt(), action, error)
