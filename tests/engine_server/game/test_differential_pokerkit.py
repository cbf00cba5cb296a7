"""Differential test: the engine against pokerkit 0.7.7 on random house-profile hands.

Each hand is played by :class:`engine_server.game.hand.Hand` (house profile)
and by pokerkit's ``FixedLimitSevenCardStud`` through :mod:`benchmarks.bridge`,
which checks at every decision that both ask the same seat, hold the same
chips and offer the same call and full bet, and at the end that every card
went where slot dealing puts it and the final stacks are equal. The bridge's
module docstring lists where the house rules and pokerkit differ and how each
difference is bridged.

2,000 hands at mixed stacks (2-7 players) plus 400 at short stacks only run
in the default suite, about a minute in all.
"""

from __future__ import annotations

import doctest
import random

import pytest

from benchmarks import bridge
from benchmarks.bridge import (
    CHIP_UNIT,
    Deal,
    Disagreement,
    Stats,
    deal_pokerkit,
    new_pokerkit_state,
    pk_card,
    play_bridged,
    play_engine,
    play_pokerkit,
    random_deal,
)
from engine_server.game.cards import parse_card, parse_cards
from engine_server.game.hand import Hand
from engine_server.game.profiles import PROFILES, Stakes

MIXED_CHUNKS = 8
MIXED_HANDS_PER_CHUNK = 250  # 2,000 hands in all
SHORT_HANDS = 400


def _play(seed: str, hands: int, short_share: float = 0.4) -> Stats:
    rng = random.Random(seed)
    stats = Stats()
    for _ in range(hands):
        play_bridged(random_deal(rng, short_share=short_share), rng, stats)
    return stats


@pytest.mark.parametrize("chunk", range(MIXED_CHUNKS))
def test_random_hands_agree_with_pokerkit(chunk: int) -> None:
    stats = _play(f"mixed-{chunk}", MIXED_HANDS_PER_CHUNK)
    assert stats.hands == MIXED_HANDS_PER_CHUNK
    # The hands reached every situation the bridge maps, not just quick folds.
    assert sorted(stats.by_players) == [2, 3, 4, 5, 6, 7]
    assert stats.showdowns > 0
    assert stats.won_by_fold > 0
    assert stats.side_pots > 0
    assert stats.short_all_in_calls > 0
    assert stats.full_all_in_bets > 0
    assert stats.bring_in_last_turns > 0
    assert stats.bring_ins_by_suit > 0
    assert stats.free_folds > 0
    assert stats.caps > 0


def test_short_stacks_agree_with_pokerkit() -> None:
    stats = _play("short", SHORT_HANDS, short_share=1.0)
    assert stats.hands == SHORT_HANDS
    assert stats.short_all_in_calls > SHORT_HANDS // 4
    assert stats.short_bring_ins > 0  # all in for less than the bring-in
    assert stats.lone_checks > 0  # pokerkit's extra turn for the last player with chips
    assert stats.unanswerable_raises > 0


def _deal_with_doors(doors: list[str], stacks: list[int] | None = None) -> Deal:
    """Seats 1..n, button on the last seat (so seat s deals at position s - 1),
    door cards as given, the rest of the deck in card order."""
    count = len(doors)
    door_cards = parse_cards(doors)
    rest = [c for c in range(52) if c not in door_cards]
    deck = rest[:14] + door_cards + rest[14:]
    u = CHIP_UNIT
    return Deal(
        stakes=Stakes(1 * u, 1 * u, 2 * u, 4 * u),
        seats=tuple((s + 1, (stacks or [100 * u] * count)[s]) for s in range(count)),
        button=count,
        deck=tuple(deck),
    )


@pytest.mark.parametrize(
    ("doors", "bring_in_seat"),
    [
        # Equal ranks go by suit, clubs < diamonds < hearts < spades.
        (["5s", "5h", "5d", "9c"], 3),
        (["Kd", "2s", "Qc", "2h"], 4),
        (["3h", "3c", "3s", "3d"], 2),
        # Aces are high for the bring-in.
        (["Ac", "Kd", "As"], 2),
    ],
)
def test_both_pick_the_house_bring_in(doors: list[str], bring_in_seat: int) -> None:
    deal = _deal_with_doors(doors)
    hand = Hand(PROFILES["house"], deal.stakes, deal.seats, deal.button, deal.deck)
    assert hand.bring_in_info is not None
    assert hand.bring_in_info.seat == bring_in_seat
    assert hand.bring_in_info.card == parse_card(doors[bring_in_seat - 1])
    state = new_pokerkit_state(deal)
    deal_pokerkit(state, [pk_card(c) for c in deal.deck])
    assert state.actor_index == bring_in_seat - 1  # pokerkit player = seat - 1 here
    assert state.can_post_bring_in()


def test_pokerkit_differs_when_the_lowest_door_is_all_in_from_the_ante() -> None:
    # Seat 1 has exactly the ante: all in before the cards. docs/rules.md §2.7: the
    # lowest door among players with chips brings in, 5d (seat 3) against 9c.
    # pokerkit picks 2c and, finding him all in, asks the next seat (2).
    u = CHIP_UNIT
    deal = _deal_with_doors(["2c", "9c", "5d"], stacks=[u, 100 * u, 100 * u])
    hand = Hand(PROFILES["house"], deal.stakes, deal.seats, deal.button, deal.deck)
    assert hand.bring_in_info is not None and hand.bring_in_info.seat == 3
    with pytest.raises(Disagreement, match="bring-in: engine seat 3, pokerkit seat 2"):
        play_bridged(deal, random.Random(0))


def test_replays_repeat_the_bridged_hands() -> None:
    # The benchmark times these replays; they must play the very same hands.
    rng = random.Random("replay")
    for _ in range(40):
        deal = random_deal(rng, players=rng.choice([2, 7]))
        record = play_bridged(deal, rng)
        hand = play_engine(deal, record.engine_actions)
        assert hand.is_over
        assert hand.result().final_stacks == record.final_stacks
        state = play_pokerkit(deal, record.pk_actions, [pk_card(c) for c in deal.deck])
        assert not state.status
        order = deal.dealing_order()
        assert {order[i]: stack for i, stack in enumerate(state.stacks)} == record.final_stacks


def test_bridge_doctests() -> None:
    result = doctest.testmod(bridge)
    assert result.attempted > 0
    assert result.failed == 0
