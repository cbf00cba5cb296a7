"""A tournament table's rules on states built by hand: chips, busts, levels, the hold, moves,
info and places, and what every viewer sees of them."""

from __future__ import annotations

from dataclasses import replace

from engine_server.game.events import CardDealt
from engine_server.game.profiles import Stakes
from engine_server.table.broadcast import Broadcaster
from engine_server.table.events import (
    HandHoldChanged,
    PlayerBusted,
    PlayerLeaving,
    PlayerMoved,
    StakesChanged,
    TournamentInfoChanged,
    TournamentPlaced,
    WatchersChanged,
)
from engine_server.table.model import Destination, TournamentInfo, TournamentTable
from engine_server.table.rules import CASH_RULES, TOURNAMENT_RULES, rules_for, seating, tournament
from engine_server.table.state import TableState
from engine_server.table.views import table_view
from tests.engine_server.table.states import deal, refused, seat, table_state
from tests.engine_server.table.stubs import drain

LEVEL_2 = Stakes(2, 2, 4, 8)
WHERE = Destination("tables/t2", "127.0.0.1:1", "http://127.0.0.1:2")


def tournament_state(*seats: object) -> TableState:
    state = table_state(*seats, min_buy_in=0)  # type: ignore[arg-type]
    state.config = replace(state.config, tournament=TournamentTable("tour-1", "Table 1", 1))
    state.level = 1
    return state


class _Clock:
    arrived = 0.0


class _Hooks:
    on_view_latency = None


# ---------------------------------------------------------------------------- the table


def test_the_rules_follow_the_table_kind() -> None:
    assert rules_for(tournament_state().config) is TOURNAMENT_RULES
    assert rules_for(table_state().config) is CASH_RULES


def test_any_positive_chips_seat_a_tournament_player_and_none_is_refused() -> None:
    config = tournament_state().config
    TOURNAMENT_RULES.check_buy_in(config, 1, "buy_in")
    TOURNAMENT_RULES.check_buy_in(config, 1_000_000, "buy_in")
    assert refused(TOURNAMENT_RULES.check_buy_in, config, 0, "buy_in") == "BUY_IN_OUT_OF_RANGE"


def test_no_top_up_cash_out_or_sitting_out_at_a_tournament_table() -> None:
    state = tournament_state(seat(1), seat(2))
    for command in ("AddChips", "Leave", "SitOut"):
        assert refused(TOURNAMENT_RULES.check_player_choice, state, command) == "TOURNAMENT_TABLE"
        CASH_RULES.check_player_choice(table_state(seat(1)), command)  # a cash table allows it


def test_an_away_player_is_dealt_in() -> None:
    state = tournament_state(seat(1, connected=False), seat(2, connected=True))
    assert deal(state) == [1, 2]


def test_a_player_without_chips_after_the_hand_busts_with_his_start_stack() -> None:
    state = tournament_state(seat(1, 40), seat(2, 100), seat(3, 60))
    deal(state)
    state.hand_seats[2].move_to = WHERE  # moved after the hand, but he busts first
    final = {1: 0, 2: 0, 3: 200}
    busted = TOURNAMENT_RULES.busted(state, final)
    assert [s.seat for s in busted] == [1, 2]
    assert all(s.leaving and s.leave_reason == "busted" and s.move_to is None for s in busted)
    for number, stack in final.items():
        state.hand_seats[number].stack = stack
    events = seating.remove_leavers(state, busted, {1: 40, 2: 100, 3: 60})
    assert events == [
        PlayerBusted(1, "p1", "P1", state.hand_number, 40),
        PlayerBusted(2, "p2", "P2", state.hand_number, 100),
    ]
    assert sorted(state.seats) == [3]
    # A cash table's empty stack sits out instead.
    cash = table_state(seat(1), seat(2))
    deal(cash)
    assert CASH_RULES.busted(cash, {1: 0, 2: 200}) == []


# -------------------------------------------------------------------------------- levels


def test_stakes_set_between_hands_play_from_the_next_hand() -> None:
    state = tournament_state(seat(1), seat(2))
    first, events, stored = tournament.set_stakes(state, 2, LEVEL_2)
    assert first == 1 and state.config.stakes == LEVEL_2 and state.level == 2
    assert events == [StakesChanged(2, LEVEL_2, 1)]
    assert stored == {"level": 2, "stakes": LEVEL_2.to_json()}
    # The same again changes nothing.
    assert tournament.set_stakes(state, 2, LEVEL_2) == (1, [], {})
    view = table_view(state, None)
    assert view.tournament is not None and view.tournament.level == 2
    assert view.config.stakes == LEVEL_2


def test_stakes_set_during_a_hand_wait_for_its_end() -> None:
    state = tournament_state(seat(1), seat(2))
    before = state.config.stakes
    deal(state)
    first, events, _ = tournament.set_stakes(state, 2, LEVEL_2)
    assert first == 2 and events == [StakesChanged(2, LEVEL_2, 2)]
    assert state.config.stakes == before and state.level == 1  # never mid-hand
    view = table_view(state, None)
    assert view.tournament is not None
    assert (view.tournament.level, view.tournament.next_level) == (1, 2)
    assert view.tournament.next_stakes == LEVEL_2
    assert tournament.set_stakes(state, 2, LEVEL_2)[1] == []  # already coming
    state.hand = None
    assert TOURNAMENT_RULES.after_hand(state) == []
    assert state.config.stakes == LEVEL_2 and state.level == 2 and state.next_level is None
    assert TOURNAMENT_RULES.stakes(state) == LEVEL_2


def test_a_level_below_one_and_a_cash_table_are_refused() -> None:
    assert refused(tournament.set_stakes, tournament_state(), 0, LEVEL_2) == "INVALID_ARGUMENT"
    cash = table_state()
    assert refused(tournament.set_stakes, cash, 2, LEVEL_2) == "NOT_A_TOURNAMENT_TABLE"
    assert refused(tournament.set_hold, cash, True) == "NOT_A_TOURNAMENT_TABLE"


# ------------------------------------------------------------------------------ the hold


def test_a_held_table_deals_no_hand_until_released() -> None:
    state = tournament_state(seat(1), seat(2))
    assert TOURNAMENT_RULES.may_deal(state)
    assert tournament.set_hold(state, True) == ([HandHoldChanged(True)], {"hand_held": True})
    assert not TOURNAMENT_RULES.may_deal(state)
    assert tournament.set_hold(state, True) == ([], {})  # idempotent
    view = table_view(state, None)
    assert view.tournament is not None and view.tournament.hand_held
    assert tournament.set_hold(state, False)[0] == [HandHoldChanged(False)]
    assert TOURNAMENT_RULES.may_deal(state)
    assert tournament.set_hold(state, False) == ([], {})


# ------------------------------------------------------------------- info and places


def test_tournament_info_is_shown_as_pushed_and_refused_when_negative() -> None:
    state = tournament_state(seat(1), seat(2))
    info = TournamentInfo(
        level=3,
        stakes=LEVEL_2,
        hands_to_next_level=4,
        players_left=12,
        entrants=20,
        average_stack=2500,
        prize_pool=1000,
    )
    events, stored = tournament.set_info(state, info)
    assert events == [TournamentInfoChanged(info)]
    assert tournament.info_from_json(stored["info"]) == info
    assert tournament.set_info(state, info) == ([], {})
    view = table_view(state, 1)
    assert view.tournament is not None and view.tournament.info == info
    bad = replace(info, players_left=-1)
    assert refused(tournament.set_info, state, bad) == "INVALID_ARGUMENT"


def test_a_place_is_told_once() -> None:
    state = tournament_state(seat(1), seat(2))
    events, stored = tournament.award_place(state, "p9", "P9", 3, 150)
    assert events == [TournamentPlaced("p9", "P9", 3, 150)]
    assert stored == {"places": {"p9": [3, 150]}}
    assert tournament.award_place(state, "p9", "P9", 3, 150) == ([], {})
    assert refused(tournament.award_place, state, "p9", "P9", 2, 150) == "IDEMPOTENCY_KEY_REUSED"
    assert refused(tournament.award_place, state, "p8", "P8", 0, 0) == "INVALID_ARGUMENT"
    assert refused(tournament.award_place, state, "p8", "P8", 4, -1) == "INVALID_ARGUMENT"


# --------------------------------------------------------------------------------- moves


def test_a_move_between_hands_frees_the_seat_with_his_chips() -> None:
    state = tournament_state(seat(1, 70), seat(2))
    events = tournament.moved(state, state.seats[1], WHERE)
    assert events == [PlayerMoved(1, "p1", "P1", 70, WHERE)]
    assert sorted(state.seats) == [2]


def test_a_move_during_his_hand_waits_for_its_end() -> None:
    state = tournament_state(seat(1, 70), seat(2))
    deal(state)
    mover = state.seats[1]
    assert tournament.move_after_hand(mover, WHERE) == [PlayerLeaving(1)]
    assert refused(tournament.check_move, state, mover) == "IDEMPOTENCY_KEY_REUSED"
    events = seating.remove_leavers(state, [mover])
    assert events == [PlayerMoved(1, "p1", "P1", 70, WHERE)]


# ------------------------------------------------------------------------------ railbirds


def test_railbirds_are_counted_and_never_see_a_down_card() -> None:
    state = tournament_state(seat(1), seat(2))
    broadcast = Broadcaster(state, 64, _Hooks(), _Clock())
    player = broadcast.attach(1, admin=False)
    rail = broadcast.attach(None, admin=False)
    ops = broadcast.attach(None, admin=True)
    assert state.watchers == 1  # ops and players are not railbirds
    assert broadcast.railbirds_changed() == [WatchersChanged(1)]
    deal(state)
    hand = state.hand
    assert hand is not None
    broadcast.publish(list(hand.events))
    dealt_down = [e for e in hand.events if isinstance(e, CardDealt) and not e.up]
    assert dealt_down
    for update in drain(rail):
        assert update.own is None and update.view.viewer_seat is None
        assert all(not s.down_cards for s in update.view.seats)
        assert not any(isinstance(e, CardDealt) and not e.up for e in update.events)
    assert any(
        isinstance(e, CardDealt) and not e.up and e.seat == 1
        for update in drain(player)
        for e in update.events
    )
    assert any(s.down_cards for u in drain(ops) for s in u.view.seats)
    # A busted player's stream goes on from the rail.
    broadcast.to_rail([1])
    assert player.seat is None and state.watchers == 2
    broadcast.detach(rail)
    assert state.watchers == 1
    assert table_view(state, None).watchers == 1
