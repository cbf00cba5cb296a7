"""Finishing places: who busted in which place, and what each place wins.

A player with no chips after a hand is out. With ``left`` players in the tournament before
the hand and ``k`` of them out in it, they take places ``left − k + 1`` … ``left``: more chips
at the hand's start places higher; equal chips tie, and tied players share the prizes of the
places they take equally (each is listed at the best of those places).

>>> out = place_busted(left=5, busted=[Bust("ann", 300), Bust("bob", 900), Bust("cy", 300)])
>>> [(p.player_id, p.place, p.places) for p in out]
[('bob', 3, (3,)), ('ann', 4, (4, 5)), ('cy', 4, (4, 5))]
>>> award([(p.player_id, p.places) for p in out], [500, 300, 120, 80])
{'bob': 120, 'ann': 40, 'cy': 40}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lobby_api.tournaments.payouts import split_evenly

__all__ = ["Bust", "Placement", "award", "place_busted"]


@dataclass(frozen=True, slots=True)
class Bust:
    """A player who has no chips after a hand, and what he had when it started."""

    player_id: str
    chips_at_start: int


@dataclass(frozen=True, slots=True)
class Placement:
    player_id: str
    #: The place he is listed in (the best of ``places`` when tied).
    place: int
    #: Every place he shares with the players tied with him (one place when not tied).
    places: tuple[int, ...]


def place_busted(left: int, busted: Sequence[Bust]) -> list[Placement]:
    """The places of the players out in one hand, best first; ties keep the given order.

    ``left`` counts everyone still in before the hand, the busted players included. When
    every player left busts, the tournament has no winner among them: callers never ask
    (someone always wins the last pot).
    """
    if not busted:
        return []
    if len(busted) >= left:
        raise ValueError(f"{len(busted)} players out of {left}: someone must be left")
    ordered = sorted(busted, key=lambda b: -b.chips_at_start)  # stable: ties keep their order
    placements: list[Placement] = []
    next_place = left - len(busted) + 1
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j].chips_at_start == ordered[i].chips_at_start:
            j += 1
        places = tuple(range(next_place, next_place + (j - i)))
        placements += [Placement(b.player_id, places[0], places) for b in ordered[i:j]]
        next_place += j - i
        i = j
    return placements


def award(
    placed: Sequence[tuple[str, Sequence[int]]], prizes_by_place: Sequence[int]
) -> dict[str, int]:
    """What each placed player wins: the prizes of the places he holds, shared with those tied
    with him (the same ``places``) in equal parts, the odd unit to the first listed.

    Places beyond the paid ones win nothing.
    """

    def prize(place: int) -> int:
        return prizes_by_place[place - 1] if place <= len(prizes_by_place) else 0

    won: dict[str, int] = {}
    groups: dict[tuple[int, ...], list[str]] = {}
    for player_id, places in placed:
        groups.setdefault(tuple(places), []).append(player_id)
    for places, players in groups.items():
        if len(places) != len(players):
            raise ValueError(f"places {places} are shared by {len(players)} players")
        for player_id, amount in zip(
            players, split_evenly(sum(prize(p) for p in places), len(players)), strict=True
        ):
            won[player_id] = amount
    return won
