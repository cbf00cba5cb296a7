"""Views of a table state: what each seat, a spectator and ops see, and events redacted."""

from __future__ import annotations

from dataclasses import fields

from engine_server.game.events import CardBurned, CardDealt, HandStarted
from engine_server.game.profiles import Street
from engine_server.game.views import HiddenCardDealt
from engine_server.table.events import PlayerJoined
from engine_server.table.model import SeatInfo, SeatStatus
from engine_server.table.views import (
    own_parts,
    redacted,
    seat_in_hand,
    seat_out_of_hand,
    table_view,
)
from tests.engine_server.table.states import deal, seat, table_state


def test_a_seat_in_the_hand_is_built_field_by_field() -> None:
    # SeatInfo is built by position (the hot path): every field must land where it is named.
    state = table_state(seat(1, connected=True), seat(2), seat(3))
    deal(state)
    assert state.hand is not None
    player = state.hand.player(1)
    assert player is not None
    info = seat_in_hand(1, state.seats[1], player, True, "ss1")
    down = tuple(player.down_cards)
    assert {f.name: getattr(info, f.name) for f in fields(SeatInfo)} == {
        "number": 1,
        "player_id": "p1",
        "display_name": "P1",
        "stack": player.stack,
        "status": SeatStatus.SEATED,
        "connected": True,
        "in_hand": True,
        "folded": False,
        "all_in": False,
        "protected": False,
        "bet": player.bet,
        "total_bet": player.contributed,
        "up_cards": tuple(player.up_cards),
        "down_count": 2,
        "down_cards": down,
        "shown_cards": (),
        "session_id": "ss1",
    }
    assert len(down) == 2 and player.contributed == 1  # the ante
    hidden = seat_in_hand(1, state.seats[1], player, False, "")
    assert hidden.down_cards == () and hidden.down_count == 2 and hidden.session_id == ""


def test_a_seat_out_of_the_hand_is_built_field_by_field() -> None:
    out = seat(4, 250, sitting_out=True)
    info = seat_out_of_hand(4, out, "ss4")
    assert {f.name: getattr(info, f.name) for f in fields(SeatInfo)} == {
        "number": 4,
        "player_id": "p4",
        "display_name": "P4",
        "stack": 250,
        "status": SeatStatus.SITTING_OUT,
        "connected": False,
        "in_hand": False,
        "folded": False,
        "all_in": False,
        "protected": False,
        "bet": 0,
        "total_bet": 0,
        "up_cards": (),
        "down_count": 0,
        "down_cards": (),
        "shown_cards": (),
        "session_id": "ss4",
    }


def test_each_seat_sees_its_own_down_cards_only_and_ops_see_all() -> None:
    state = table_state(seat(1), seat(2), seat(3), seat(5, sitting_out=True))
    deal(state)
    assert state.hand is not None
    down = {p.seat: tuple(p.down_cards) for p in state.hand.players}
    mine = table_view(state, 2)
    assert [s.number for s in mine.seats] == [1, 2, 3, 5]
    assert {s.number: s.down_cards for s in mine.seats} == {1: (), 2: down[2], 3: (), 5: ()}
    assert {s.number: s.in_hand for s in mine.seats} == {1: True, 2: True, 3: True, 5: False}
    public = table_view(state, None)
    assert all(s.down_cards == () for s in public.seats)
    assert all(s.session_id == "" for s in public.seats)
    ops = table_view(state, None, reveal_all=True)
    assert {s.number: s.down_cards for s in ops.seats if s.in_hand} == down
    assert [s.session_id for s in ops.seats] == ["ss1", "ss2", "ss3", "ss5"]
    # Session ids alone (AdminService views without the cards).
    sessions = table_view(state, None, sessions=True)
    assert all(s.down_cards == () for s in sessions.seats)
    assert [s.session_id for s in sessions.seats] == ["ss1", "ss2", "ss3", "ss5"]


def test_the_legal_actions_are_shown_to_the_seat_to_act_and_to_ops() -> None:
    state = table_state(seat(1), seat(2), seat(3))
    deal(state)
    assert state.hand is not None
    turn = state.hand.to_act
    assert turn is not None
    legal = state.hand.legal_actions()
    assert table_view(state, turn).legal_actions == legal
    assert table_view(state, None, reveal_all=True).legal_actions == legal
    other = next(n for n in (1, 2, 3) if n != turn)
    assert table_view(state, other).legal_actions == ()
    view = table_view(state, None)
    assert view.turn_seat == turn and view.hand_in_progress and view.hand_number == 1
    assert view.nonce == 0 and view.hands_dealt == 1  # the seed pair's next nonce


def test_between_hands_the_nonce_is_the_last_hand_dealt_from_the_seed_pair() -> None:
    """table.proto: the running hand's nonce, or the last one's between hands (was: 0)."""
    state = table_state(seat(1), seat(2), seat(3))
    assert table_view(state, None).nonce is None  # nothing dealt from this pair yet
    deal(state, nonce=0)
    state.hand = None  # the hand ended
    deal(state, nonce=1)
    assert table_view(state, None).nonce == 1
    state.hand = None
    between = table_view(state, None)
    assert not between.hand_in_progress
    assert (between.nonce, between.hands_dealt) == (1, 2)
    # A rotation hands the table a fresh pair: no hand has been dealt from it yet.
    state.seed.next_nonce = 0
    assert table_view(state, None).nonce is None


def test_own_parts_give_each_seat_in_the_hand_its_cards_and_the_turn_its_actions() -> None:
    state = table_state(seat(1), seat(2), seat(3), seat(4, sitting_out=True))
    assert own_parts(state) == {}
    deal(state)
    assert state.hand is not None
    parts = own_parts(state)
    assert sorted(parts) == [1, 2, 3]
    turn = state.hand.to_act
    for number, part in parts.items():
        player = state.hand.player(number)
        assert player is not None
        assert part.down_cards == tuple(player.down_cards)
        assert part.legal_actions == (state.hand.legal_actions() if number == turn else ())
        # The public view with the own part is the seat's own view.
        assert part.down_cards == next(
            s.down_cards for s in table_view(state, number).seats if s.number == number
        )


def test_redaction_hides_other_seats_down_cards_and_burned_cards() -> None:
    down = CardDealt(2, 7, False, Street.THIRD, 4)
    up = CardDealt(3, 9, True, Street.THIRD, 5)
    burned = CardBurned(11, 12, Street.FOURTH)
    joined = PlayerJoined(4)
    events = (down, up, burned, joined)
    assert redacted(events, 2) == (down, up, HiddenCardDealt(None, Street.FOURTH), joined)
    assert redacted(events, 3) == (
        HiddenCardDealt(2, Street.THIRD),
        up,
        HiddenCardDealt(None, Street.FOURTH),
        joined,
    )
    # Nothing hidden: the very same tuple (the streams then share its conversion).
    public = (up, joined)
    assert redacted(public, 3) is public
    # The hand's other events are public, to every seat.
    started = HandStarted(1, (2, 3), ((2, 100), (3, 100)))
    assert redacted((started, down), 3)[0] is started
