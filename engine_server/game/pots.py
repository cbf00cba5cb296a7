"""Main and side pots: how the chips put in split when players are all in.

One rule for the pots shown during a hand and the pots awarded at its end: a pot ends at
every capped player's total (a player all in, or protected by a table-stakes rule) and at
the top total of the players still in; each pot takes from every player (folded or not) the
chips between its floor and its cap, and goes to the players still in who reached its cap.

>>> # Seat 0 all in for 20, seats 1 and 2 put in 50, seat 3 folded after 5.
>>> layer_pots([20, 50, 50, 5], [20, 50, 50], caps=[20])
[(65, [0, 1, 2]), (60, [1, 2])]
>>> layer_pots([10, 10], [10, 10], caps=[])
[(20, [0, 1])]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["layer_pots"]


def layer_pots(
    amounts: Sequence[int], live_amounts: Sequence[int], caps: Iterable[int]
) -> list[tuple[int, list[int]]]:
    """The pots, main pot first, as ``(chips, indices into live_amounts of those eligible)``.

    ``amounts`` are the chips every player put in (folded players too); ``live_amounts`` those
    of the players still in, at least one; ``caps`` the totals of the capped players still in.
    Empty pots are left out, so the pots' chips add up to what the players still in cover.
    """
    levels = sorted(set(caps) | {max(live_amounts)})
    pots: list[tuple[int, list[int]]] = []
    floor = 0
    for level in levels:
        amount = 0
        for chips in amounts:
            amount += min(chips, level) - min(chips, floor)
        if amount > 0:
            eligible = [i for i, chips in enumerate(live_amounts) if chips >= level]
            pots.append((amount, eligible))
        floor = level
    return pots
