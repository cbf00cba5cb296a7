"""Snapshots share the conversion of a table's settings and last hand, never the messages."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from engine_server.api.convert import hand_result_message, settings_message, snapshot_message
from engine_server.game.profiles import PROFILES, Stakes
from engine_server.table.model import LastHand, SeatState, SeedPair, TableConfig, TableView
from engine_server.table.runtime import TableRuntime


def _view() -> TableView:
    config = TableConfig(
        "t1",
        PROFILES["house"],
        Stakes(1, 1, 2, 4),
        rule_overrides={"action_seconds": 20},
        min_buy_in=10,
        max_buy_in=500,
    )
    seed = SeedPair("s1", "0" * 64, "c" * 64, "client", 3, "d" * 64)
    seats = [SeatState(n, f"p{n}", f"P{n}", f"ss{n}", 100, 100) for n in (1, 2)]
    runtime = TableRuntime(config, seed, store=None, seats=seats)  # type: ignore[arg-type]
    return runtime.view(1)


def _cancelled(number: int, returned: dict[int, int]) -> LastHand:
    moment = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    return LastHand(number, number, True, None, moment, returned=returned, final_stacks={1: 100})


def test_snapshots_carry_the_settings_and_last_hand_of_their_own_view() -> None:
    view = dataclasses.replace(_view(), last_hand=_cancelled(4, {1: 2}))
    first = snapshot_message(view)
    assert first.settings == settings_message(view.config)
    assert first.last_hand == hand_result_message(view.last_hand)  # type: ignore[arg-type]
    assert first.settings.rule_overrides["action_seconds"] == 20

    # A later hand's result is converted anew, not served from the earlier one.
    later = dataclasses.replace(view, last_hand=_cancelled(5, {1: 3, 2: 1}))
    second = snapshot_message(later)
    assert second.last_hand.hand_number == 5 and dict(second.last_hand.returned) == {1: 3, 2: 1}
    other = dataclasses.replace(
        view, config=dataclasses.replace(view.config, max_buy_in=900), last_hand=None
    )
    assert snapshot_message(other).settings.max_buy_in == 900
    assert not snapshot_message(other).HasField("last_hand")


def test_changing_one_snapshot_changes_no_other() -> None:
    view = dataclasses.replace(_view(), last_hand=_cancelled(4, {1: 2}))
    first = snapshot_message(view)
    first.settings.max_buy_in = 1
    first.last_hand.returned[1] = 99
    second = snapshot_message(view)
    assert second.settings.max_buy_in == 500
    assert dict(second.last_hand.returned) == {1: 2}


def test_a_seat_in_a_new_state_is_converted_anew_and_shared_seats_stay_unchanged() -> None:
    view = _view()
    first = snapshot_message(view)
    first.seats[0].stack = 1
    first.seats[0].down_cards.append("As")
    again = snapshot_message(view)
    assert again.seats[0].stack == 100 and not again.seats[0].down_cards
    # Seat 1 wins chips: his seat shows the new stack, seat 2's is as it was.
    richer = dataclasses.replace(view.seats[0], stack=150)
    later = snapshot_message(dataclasses.replace(view, seats=(richer, *view.seats[1:])))
    assert [s.stack for s in later.seats] == [150, 100]
    assert later.seats[1] == again.seats[1]


def test_only_each_tables_latest_seats_settings_and_result_are_kept() -> None:
    """The shared conversions are bounded by what they are for: a table's latest value of
    each (a node-wide cache of every recent state held tens of MiB under load)."""
    from engine_server.api import convert, wire

    view = _view()
    table_id = view.config.table_id
    for stack in range(100, 400):
        richer = dataclasses.replace(view.seats[0], stack=stack)
        hand = _cancelled(stack, {1: stack})
        later = dataclasses.replace(view, seats=(richer, *view.seats[1:]), last_hand=hand)
        assert snapshot_message(later).seats[0].stack == stack
        assert wire.snapshot_parts(later).seats[0][3] == stack + richer.bet
    kept = [key for key in convert._shared_seat._entries if key[0] == table_id]
    assert sorted(kept) == [(table_id, 1), (table_id, 2)]
    assert [k for k in convert._shared_result._entries if k[0] == table_id] == [(table_id, 0)]
    assert sorted(k for k in wire._seat_parts if k[0] == table_id) == [(table_id, 1), (table_id, 2)]
