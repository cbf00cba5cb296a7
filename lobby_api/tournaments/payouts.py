"""Prize money: the payout table, prizes by place, shared places and a cancelled tournament.

Everything here is exact integer arithmetic in the wallet's smallest unit; every function
hands out the whole amount it is given, no more and no less, and the rounding rule is the
same everywhere: what the division leaves goes one unit at a time to the higher places (or
the bigger stacks), first place first.

The default payout table depends on the number of entrants (:func:`default_payout_percentages`):

>>> [int(share * 100) for share in default_payout_percentages(7)]
[65, 35]
>>> [int(share * 100) for share in default_payout_percentages(14)]
[50, 30, 20]
>>> prizes(1000, default_payout_percentages(9))
[500, 300, 200]
>>> prizes(101, default_payout_percentages(2))  # 65.65 and 35.35: the odd unit to 1st
[66, 35]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

__all__ = [
    "PayoutError",
    "default_payout_percentages",
    "parse_payout_table",
    "payout_percentages",
    "prizes",
    "share_by_chips",
    "split_evenly",
]


class PayoutError(ValueError):
    """A payout table that does not describe a payout (the message says why)."""


def _percent(*values: int) -> tuple[Fraction, ...]:
    shares = tuple(Fraction(v, 100) for v in values)
    assert sum(shares) == 1, values
    return shares


#: (most entrants, percentages of the prize pool by place), smallest fields first.
DEFAULT_TABLE: tuple[tuple[int, tuple[Fraction, ...]], ...] = (
    (7, _percent(65, 35)),
    (14, _percent(50, 30, 20)),
    (21, _percent(40, 25, 17, 11, 7)),
    (35, _percent(33, 21, 15, 11, 8, 7, 5)),
    (56, _percent(30, 19, 13, 10, 8, 6, 5, 5, 4)),
)
#: Above the table: this share of the field is paid (at least one more than the last bracket)…
PAID_SHARE = Fraction(15, 100)
#: …with place i weighted 1 / i**CURVE, so prizes fall off steadily from the winner.
CURVE = 0.9


def default_payout_percentages(entrants: int) -> tuple[Fraction, ...]:
    """The share of the prize pool each place wins, first place first, for ``entrants``.

    Up to 56 entrants the table above; beyond, 15 % of the field paid on a smooth curve
    (rounded to hundredths of a percent, the remainder to first place).

    >>> len(default_payout_percentages(1000)), sum(default_payout_percentages(1000))
    (150, Fraction(1, 1))
    >>> default_payout_percentages(1)
    (Fraction(1, 1),)
    """
    if entrants < 1:
        raise PayoutError(f"entrants must be at least 1, not {entrants}")
    if entrants == 1:
        return (Fraction(1),)
    for most, shares in DEFAULT_TABLE:
        if entrants <= most:
            return shares
    places = max(len(DEFAULT_TABLE[-1][1]) + 1, math.floor(entrants * PAID_SHARE))
    weights = [1 / (i**CURVE) for i in range(1, places + 1)]
    total = sum(weights)
    # Hundredths of a percent (basis points), so the table reads as people expect it to.
    basis = [math.floor(10_000 * w / total) for w in weights]
    basis[0] += 10_000 - sum(basis)
    return tuple(Fraction(b, 10_000) for b in basis)


def parse_payout_table(value: object) -> tuple[tuple[int, tuple[Fraction, ...]], ...]:
    """A payout table given by ops: ``[{"max_entrants": 7, "percentages": [65, 35]}, …]``.

    Brackets come in order of ``max_entrants``; each bracket's percentages are positive,
    never rise from one place to the next, and add up to 100 (decimals allowed).

    >>> parse_payout_table([{"max_entrants": 9, "percentages": [70, 30]}])[0][1]
    (Fraction(7, 10), Fraction(3, 10))
    >>> parse_payout_table([{"max_entrants": 9, "percentages": [70, 20]}])
    Traceback (most recent call last):
    ...
    lobby_api.tournaments.payouts.PayoutError: payouts[0].percentages must add up to 100, not 90
    """
    if not isinstance(value, list) or not value:
        raise PayoutError("payouts must be a non-empty list of brackets")
    brackets: list[tuple[int, tuple[Fraction, ...]]] = []
    previous = 0
    for index, bracket in enumerate(value):
        where = f"payouts[{index}]"
        if not isinstance(bracket, dict):
            raise PayoutError(f"{where} must be an object")
        most = bracket.get("max_entrants")
        if not isinstance(most, int) or isinstance(most, bool) or most <= previous:
            raise PayoutError(f"{where}.max_entrants must be an integer above {previous}")
        raw = bracket.get("percentages")
        if not isinstance(raw, list) or not raw:
            raise PayoutError(f"{where}.percentages must be a non-empty list")
        shares: list[Fraction] = []
        for place, percent in enumerate(raw, start=1):
            if isinstance(percent, bool) or not isinstance(percent, int | float) or percent <= 0:
                raise PayoutError(f"{where}.percentages[{place - 1}] must be a positive number")
            share = Fraction(str(percent)) / 100
            if shares and share > shares[-1]:
                raise PayoutError(f"{where}: place {place} may not win more than place {place - 1}")
            shares.append(share)
        if len(shares) > most:
            raise PayoutError(f"{where} pays {len(shares)} places to at most {most} entrants")
        if sum(shares) != 1:
            total = sum(shares) * 100
            shown = total.numerator if total.denominator == 1 else float(total)
            raise PayoutError(f"{where}.percentages must add up to 100, not {shown}")
        brackets.append((most, tuple(shares)))
        previous = most
    return tuple(brackets)


def payout_percentages(
    entrants: int, table: Sequence[tuple[int, tuple[Fraction, ...]]] | None = None
) -> tuple[Fraction, ...]:
    """The shares by place for ``entrants`` from ``table`` (the default table when None).

    A field larger than the table's last bracket uses the last bracket.
    """
    if table is None:
        return default_payout_percentages(entrants)
    for most, shares in table:
        if entrants <= most:
            return shares
    return table[-1][1]


def prizes(pool: int, shares: Sequence[Fraction]) -> list[int]:
    """``pool`` split by ``shares`` (first place first), rounded down, the units left over
    given one each to the highest places; the prizes add up to ``pool`` exactly."""
    if pool < 0:
        raise PayoutError(f"the prize pool cannot be negative ({pool})")
    amounts = [math.floor(pool * share) for share in shares]
    left = pool - sum(amounts)
    for place in range(left):
        amounts[place % len(amounts)] += 1
    return amounts


def split_evenly(amount: int, ways: int) -> list[int]:
    """``amount`` shared by ``ways`` people tied for places: equal parts, the units left over
    one each to the first in the given order.

    >>> split_evenly(101, 2)
    [51, 50]
    """
    if ways < 1:
        raise PayoutError(f"cannot share between {ways} people")
    part, left = divmod(amount, ways)
    return [part + (1 if i < left else 0) for i in range(ways)]


def share_by_chips(pool: int, stacks: Sequence[tuple[str, int]]) -> dict[str, int]:
    """A cancelled tournament's remaining pool, shared in proportion to chips.

    Each player gets ``pool × chips / all chips`` rounded down; the units left over go one
    each to the biggest stacks whose share was rounded down (equal stacks in the given order). Players with no chips get
    nothing; the amounts add up to ``pool`` exactly.

    >>> share_by_chips(100, [("ann", 2000), ("bob", 1000), ("cy", 0)])
    {'ann': 67, 'bob': 33, 'cy': 0}
    """
    total = sum(chips for _, chips in stacks)
    if total <= 0:
        raise PayoutError("no chips left to share the pool by")
    shares = {player: pool * chips // total for player, chips in stacks}
    left = pool - sum(shares.values())
    # Only shares that were rounded down take a unit: each share stays within one unit of
    # its exact value (the fractions lost add up to ``left``, each below one, so there are
    # always more such shares than units left).
    by_size = sorted(
        (i for i in range(len(stacks)) if pool * stacks[i][1] % total),
        key=lambda i: -stacks[i][1],
    )
    for i in range(left):
        shares[stacks[by_size[i]][0]] += 1
    return shares
