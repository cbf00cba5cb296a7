"""The tournament's pure rules: payouts, places, levels, the draw, balancing and breaking."""

from __future__ import annotations

import doctest
import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lobby_api.tournaments import levels, payouts, places, seating
from lobby_api.tournaments.levels import Level, LevelClock, LevelError, parse_levels
from lobby_api.tournaments.payouts import (
    PayoutError,
    default_payout_percentages,
    parse_payout_table,
    payout_percentages,
    prizes,
    share_by_chips,
)
from lobby_api.tournaments.places import Bust, award, place_busted
from lobby_api.tournaments.seating import Table, initial_draw, plan_moves, tables_needed


@pytest.mark.parametrize("module", [payouts, places, levels, seating], ids=lambda m: m.__name__)
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.failed == 0
    assert result.attempted > 0


# ------------------------------------------------------------------ payouts


@pytest.mark.parametrize(
    ("entrants", "expected"),
    [
        (2, [65, 35]),
        (7, [65, 35]),
        (8, [50, 30, 20]),
        (14, [50, 30, 20]),
        (15, [40, 25, 17, 11, 7]),
    ],
)
def test_the_default_table_by_entrants(entrants: int, expected: list[int]) -> None:
    assert [share * 100 for share in default_payout_percentages(entrants)] == expected


@pytest.mark.parametrize("entrants", [1, 2, 7, 8, 20, 36, 56, 57, 143, 1000, 5000])
def test_every_default_payout_adds_up_and_never_rises(entrants: int) -> None:
    shares = default_payout_percentages(entrants)
    assert sum(shares) == 1
    assert all(a >= b > 0 for a, b in itertools.pairwise(shares))
    assert len(shares) <= entrants


@given(pool=st.integers(0, 10**9), entrants=st.integers(1, 2000))
@settings(max_examples=300, deadline=None)
def test_prizes_hand_out_the_whole_pool_higher_places_never_less(pool: int, entrants: int) -> None:
    amounts = prizes(pool, default_payout_percentages(entrants))
    assert sum(amounts) == pool
    assert all(a >= b for a, b in itertools.pairwise(amounts))


def test_remainders_go_to_the_higher_places() -> None:
    third = Fraction(1, 3)
    assert prizes(100, [third, third, third]) == [34, 33, 33]
    assert prizes(101, [third, third, third]) == [34, 34, 33]


def test_a_payout_table_from_ops_is_checked_field_by_field() -> None:
    table = parse_payout_table(
        [
            {"max_entrants": 5, "percentages": [100]},
            {"max_entrants": 9, "percentages": [60.5, 39.5]},
        ]
    )
    assert payout_percentages(3, table) == (Fraction(1),)
    assert payout_percentages(9, table) == (Fraction(121, 200), Fraction(79, 200))
    assert payout_percentages(50, table) == table[-1][1]  # beyond the table: the last bracket
    bad = [
        ([], "payouts must be a non-empty list of brackets"),
        ([{"max_entrants": 0, "percentages": [100]}], "payouts[0].max_entrants must be"),
        ([{"max_entrants": 5, "percentages": [40, 60]}], "place 2 may not win more than place 1"),
        ([{"max_entrants": 2, "percentages": [50, 30, 20]}], "pays 3 places to at most 2"),
        ([{"max_entrants": 5, "percentages": ["100"]}], "percentages[0] must be a positive"),
        (
            [{"max_entrants": 5, "percentages": [100]}, {"max_entrants": 5, "percentages": [100]}],
            "payouts[1].max_entrants must be an integer above 5",
        ),
    ]
    for value, message in bad:
        with pytest.raises(PayoutError) as error:
            parse_payout_table(value)
        assert message in str(error.value)


@given(
    pool=st.integers(0, 10**7),
    stacks=st.lists(st.integers(0, 10**6), min_size=1, max_size=30).filter(lambda s: sum(s) > 0),
)
@settings(max_examples=300, deadline=None)
def test_a_cancelled_pool_is_shared_by_chips_to_the_unit(pool: int, stacks: list[int]) -> None:
    named = [(f"p{i}", chips) for i, chips in enumerate(stacks)]
    shares = share_by_chips(pool, named)
    assert sum(shares.values()) == pool
    total = sum(stacks)
    for player, chips in named:
        exact = Fraction(pool * chips, total)
        assert exact - 1 < shares[player] < exact + 1
        if chips == 0:
            assert shares[player] == 0


def test_a_pool_cannot_be_shared_without_chips() -> None:
    with pytest.raises(PayoutError, match="no chips left"):
        share_by_chips(100, [("ann", 0)])


# ------------------------------------------------------------------ places


def test_one_player_out_takes_the_last_place_left() -> None:
    assert [(p.player_id, p.place, p.places) for p in place_busted(9, [Bust("ann", 40)])] == [
        ("ann", 9, (9,))
    ]


def test_two_out_in_one_hand_more_chips_at_its_start_places_higher() -> None:
    out = place_busted(4, [Bust("small", 100), Bust("big", 500)])
    assert [(p.player_id, p.place) for p in out] == [("big", 3), ("small", 4)]


def test_equal_chips_tie_and_split_the_prizes_of_their_places() -> None:
    out = place_busted(3, [Bust("ann", 200), Bust("bob", 200)])
    assert [(p.player_id, p.place, p.places) for p in out] == [
        ("ann", 2, (2, 3)),
        ("bob", 2, (2, 3)),
    ]
    prizes_by_place = [650, 350, 101]
    won = award([(p.player_id, p.places) for p in out], prizes_by_place)
    assert won == {"ann": 226, "bob": 225}  # (350 + 101) / 2, the odd unit to the first


def test_places_beyond_the_paid_ones_win_nothing() -> None:
    out = place_busted(10, [Bust("ann", 10), Bust("bob", 10)])
    assert award([(p.player_id, p.places) for p in out], [650, 350]) == {"ann": 0, "bob": 0}


def test_a_bubble_tie_shares_the_last_paid_place() -> None:
    # Three paid; four left; two bust together with equal stacks at the bubble: places 3 and 4.
    out = place_busted(4, [Bust("ann", 300), Bust("bob", 300)])
    assert award([(p.player_id, p.places) for p in out], [500, 300, 200]) == {
        "ann": 100,
        "bob": 100,
    }


def test_everyone_cannot_bust() -> None:
    with pytest.raises(ValueError, match="someone must be left"):
        place_busted(2, [Bust("ann", 1), Bust("bob", 2)])


# ------------------------------------------------------------------ levels


def test_a_minutes_level_changes_when_its_time_is_up_and_not_before() -> None:
    clock = LevelClock(
        [Level(0, 1, 2, 4, minutes=1), Level(1, 2, 4, 8, minutes=1), Level(2, 3, 6, 12, hands=1)]
    )
    assert clock.level_at(0, 59.9, hands_in_level=100) == 0  # a minutes-level ignores hands
    assert clock.level_at(0, 60, 0) == 1
    assert clock.level_at(1, 10_000, 0) == 2  # one step at a time
    assert clock.seconds_left(0, 45) == 15
    assert clock.hands_left(0, 0) is None
    assert clock.hands_left(2, 0) is None  # the last level lasts forever


def test_levels_from_json_are_checked() -> None:
    good = [{"ante": 1, "bring_in": 2, "small_bet": 4, "big_bet": 8, "minutes": 10}]
    assert parse_levels(good) == (Level(1, 2, 4, 8, minutes=10),)
    bad = [
        ([], "levels must be a non-empty list"),
        ([{"ante": -1, "bring_in": 2, "small_bet": 4, "big_bet": 8, "hands": 1}], "levels[0].ante"),
        (
            [{"ante": 0, "bring_in": 5, "small_bet": 4, "big_bet": 8, "hands": 1}],
            "bring_in <= small_bet",
        ),
        (
            [{"ante": 0, "bring_in": 1, "small_bet": 2, "big_bet": 4, "hands": 1, "minutes": 2}],
            "either minutes or hands",
        ),
        (
            [{"ante": 0, "bring_in": 1, "small_bet": 2, "big_bet": 4, "hands": "3"}],
            "levels[0].hands",
        ),
        (
            [{"ante": 0, "bring_in": True, "small_bet": 2, "big_bet": 4, "hands": 3}],
            "levels[0].bring_in",
        ),
    ]
    for value, message in bad:
        with pytest.raises(LevelError) as error:
            parse_levels(value)
        assert message in str(error.value)


# ------------------------------------------------------------------ seating


@pytest.mark.parametrize(
    ("players", "size", "tables"), [(7, 7, 1), (8, 7, 2), (14, 7, 2), (15, 7, 3), (1000, 7, 143)]
)
def test_the_draw_fills_as_few_tables_as_evenly_as_possible(
    players: int, size: int, tables: int
) -> None:
    ids = [f"p{i}" for i in range(players)]
    draw = initial_draw(ids, size, key=b"secret")
    assert len(draw) == tables == tables_needed(players, size)
    sizes = [len(t) for t in draw]
    assert max(sizes) - min(sizes) <= 1 and max(sizes) <= size
    seated = [p for t in draw for p in t.values()]
    assert sorted(seated) == sorted(ids)
    assert all(1 <= seat <= size for t in draw for seat in t)


def test_the_draw_depends_on_the_key_and_only_on_it() -> None:
    ids = [f"p{i}" for i in range(14)]
    assert initial_draw(ids, 7, b"a") == initial_draw(list(reversed(ids)), 7, b"a")
    assert initial_draw(ids, 7, b"a") != initial_draw(ids, 7, b"b")


def _tables(*sizes: int) -> list[Table]:
    made, n = [], 0
    for order, size in enumerate(sizes):
        made.append(
            Table(f"t{order + 1}", order, {seat: f"p{n + seat}" for seat in range(1, size + 1)})
        )
        n += size
    return made


def _apply(tables: list[Table], moves: list[seating.Move]) -> dict[str, dict[int, str]]:
    state = {t.table_id: dict(t.seats) for t in tables}
    for m in moves:
        seat = next(s for s, p in state[m.from_table].items() if p == m.player_id)
        del state[m.from_table][seat]
        assert m.to_seat not in state[m.to_table], m
        state[m.to_table][m.to_seat] = m.player_id
    return state


def test_balancing_moves_from_the_fullest_to_the_shortest_only_when_two_apart() -> None:
    assert plan_moves(_tables(7, 6), 7, movable={"t1", "t2"}, key=b"k") == []
    moves = plan_moves(_tables(7, 5), 7, movable={"t1", "t2"}, key=b"k")
    assert [(m.from_table, m.to_table, m.breaking) for m in moves] == [("t1", "t2", False)]


def test_a_table_in_a_hand_is_not_taken_from_but_can_receive() -> None:
    assert plan_moves(_tables(7, 4), 7, movable={"t2"}, key=b"k") == []
    moves = plan_moves(_tables(7, 4), 7, movable={"t1"}, key=b"k")
    assert len(moves) == 1 and moves[0].to_table == "t2"


def test_a_table_breaks_when_the_players_fit_at_fewer() -> None:
    tables = _tables(5, 5, 4)  # 14 players fit at two tables of 7
    moves = plan_moves(tables, 7, movable={"t1", "t2", "t3"}, key=b"k")
    assert {m.from_table for m in moves} == {"t3"} and all(m.breaking for m in moves)
    after = _apply(tables, moves)
    assert after["t3"] == {}
    assert sorted(len(after[t]) for t in ("t1", "t2")) == [7, 7]


def test_down_to_the_final_table() -> None:
    tables = _tables(3, 2, 2)
    moves = plan_moves(tables, 7, movable={"t1", "t2", "t3"}, key=b"k")
    after = _apply(tables, moves)
    assert [t for t, s in after.items() if s] == ["t1"] and len(after["t1"]) == 7


def test_breaking_waits_for_a_table_between_hands() -> None:
    assert plan_moves(_tables(5, 5, 4), 7, movable=(), key=b"k") == []


@given(
    sizes=st.lists(st.integers(1, 7), min_size=1, max_size=25),
    seed=st.integers(0, 2**32),
)
@settings(max_examples=200, deadline=None)
def test_with_every_table_between_hands_the_room_ends_balanced(sizes: list[int], seed: int) -> None:
    tables = _tables(*sizes)
    moves = plan_moves(tables, 7, movable={t.table_id for t in tables}, key=seed.to_bytes(8, "big"))
    after = _apply(tables, moves)
    counts = [len(s) for s in after.values() if s]
    players = sum(sizes)
    assert len(counts) == tables_needed(players, 7)
    assert max(counts) - min(counts) <= 1 and max(counts) <= 7
    assert Counter(p for s in after.values() for p in s.values()) == Counter(
        p for t in tables for p in t.seats.values()
    )
    # No one moves twice, and no move is undone.
    assert len({m.player_id for m in moves}) == len(moves)


def test_who_moves_is_drawn_not_always_the_same_seat() -> None:
    movers = set()
    for key in range(40):
        (move,) = plan_moves(_tables(7, 5), 7, movable={"t1"}, key=random.Random(key).randbytes(8))
        movers.add(move.player_id)
    assert len(movers) >= 4


def test_a_unit_left_over_never_goes_to_a_share_that_was_exact() -> None:
    # Ann's exact share is 3: the unit left over goes to the biggest stack rounded down.
    assert share_by_chips(6, [("ann", 2), ("bob", 1), ("cy", 1)]) == {"ann": 3, "bob": 2, "cy": 1}
