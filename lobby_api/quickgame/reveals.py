"""What a seed rotation made public, told to the players at the table before they play on.

A rotation reveals the dealer seed the table dealt from so far (docs/fairness.md, section 3).
That is what lets each player check his hands, and it is also what lets anyone recompute the
deck of every hand that seed dealt — every seat's down cards, folded ones included. It cannot
be otherwise, so the lobby says it where it matters: ``GET /tables/{table_id}`` lists every
rotation of the table with the hands it opened up (and which were the player's), and the
rotation's own answer carries the same for the opener.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel.ext.asyncio.session import AsyncSession

from lobby_api import engine_reads
from lobby_api.quickgame.schemas import SeedReveal

__all__ = ["hand_list", "seed_reveals"]


def hand_list(numbers: Sequence[int]) -> str:
    """Hand numbers in words, runs shortened: ``#1-#4, #7`` (``#3`` for one)."""
    runs: list[tuple[int, int]] = []
    for number in sorted(set(numbers)):
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return ", ".join(f"#{a}" if a == b else f"#{a}\u2013#{b}" for a, b in runs)


def _message(pair: engine_reads.RotatedPair) -> str:
    when = pair.revealed_at.strftime("%H:%M:%S UTC on %d %b %Y")
    if not pair.hand_numbers:
        return (
            f"The seed pair was rotated at {when} before it dealt any hand: nothing was made "
            "public."
        )
    hands = hand_list(pair.hand_numbers)
    plural = len(pair.hand_numbers) > 1
    text = (
        f"The seed pair was rotated at {when}: its dealer seed "
        f"({pair.commitment[:12]}\u2026) is revealed, so the deck{'s' if plural else ''} of "
        f"hand{'s' if plural else ''} {hands} can be recomputed by anyone, every player's down "
        "cards included, folded or not."
    )
    if pair.player_hand_numbers:
        text += (
            f" You were dealt into {hand_list(pair.player_hand_numbers)}: your down cards "
            "there can be seen."
        )
    else:
        text += " You were dealt into none of them."
    return text


async def seed_reveals(session: AsyncSession, table_id: str, player_id: str) -> list[SeedReveal]:
    """Every rotation of the table so far, oldest first, as ``player_id`` is told of it."""
    return [
        SeedReveal(
            commitment=pair.commitment,
            revealed_at=pair.revealed_at,
            hands=list(pair.hand_numbers),
            your_hands=list(pair.player_hand_numbers),
            message=_message(pair),
        )
        for pair in await engine_reads.rotated_pairs(session, table_id, player_id)
    ]
