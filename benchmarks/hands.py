"""Complete seven-handed house hands per second: the engine against pokerkit 0.7.7.

Run from the repository root::

    .venv/bin/python -m benchmarks.hands [--hands 300] [--random-hands 3000] \
        [--repeats 5] [--seed 7]

The hands are 7-handed, with the mixed deep and short stacks of
:func:`benchmarks.bridge.random_deal`. Each is first played once by both
sides in lockstep through :func:`benchmarks.bridge.play_bridged` (random
full-size play; the two must agree at every decision), which records each
side's actions. Then each side replays its own actions on its own, timed:
the same decks, stacks and choices, so both play the very same hands. The
engine's time covers building the :class:`~engine_server.game.hand.Hand`
(antes, dealing, bring-in, the events it always records) and every
:meth:`~engine_server.game.hand.Hand.act` call with its legality check;
pokerkit's covers creating its state, dealing each card and every action.
Decks are converted to pokerkit's cards before the clock starts.

The engine is also timed on its own random legal play (any legal action and
size, short all-ins included: not bridged), choosing by
:meth:`~engine_server.game.hand.Hand.legal_actions` each turn.

Each figure is the median of several runs (three for pokerkit, which is slow).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pokerkit import Card as PkCard

from benchmarks.bridge import (
    Deal,
    Record,
    Stats,
    pk_card,
    play_bridged,
    play_engine,
    play_engine_random,
    play_pokerkit,
    random_deal,
)

__all__ = ["Result", "format_table", "main", "record_hands", "run"]

PLAYERS = 7
POKERKIT_REPEATS = 3


@dataclass(frozen=True)
class Result:
    """One row of the table."""

    name: str
    hands: int
    rate: float  # complete hands per second, median over the runs


def record_hands(count: int, seed: int, stats: Stats | None = None) -> list[Record]:
    """``count`` 7-handed hands played by both sides in lockstep, with their actions."""
    rng = random.Random(seed)
    return [play_bridged(random_deal(rng, players=PLAYERS), rng, stats) for _ in range(count)]


def _check_replays(records: Sequence[Record], pk_decks: Sequence[Sequence[PkCard]]) -> None:
    """A fast wrong replay must not pass: both must end every hand as recorded."""
    for record, pk_deck in zip(records, pk_decks, strict=True):
        hand = play_engine(record.deal, record.engine_actions)
        if hand.result().final_stacks != record.final_stacks:
            raise SystemExit("the engine's replay ended a hand differently")
        state = play_pokerkit(record.deal, record.pk_actions, pk_deck)
        order = record.deal.dealing_order()
        if {order[i]: s for i, s in enumerate(state.stacks)} != record.final_stacks:
            raise SystemExit("pokerkit's replay ended a hand differently")


def _rate(run_all: Callable[[], object], hands: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run_all()
        times.append(time.perf_counter() - start)
    return hands / statistics.median(times)


def run(records: Sequence[Record], random_deals: Sequence[Deal], repeats: int) -> list[Result]:
    """Time both sides on the recorded hands, and the engine on its own random play."""
    pk_decks = [[pk_card(c) for c in record.deal.deck] for record in records]
    _check_replays(records, pk_decks)

    def engine_all() -> None:
        for record in records:
            play_engine(record.deal, record.engine_actions)

    def pokerkit_all() -> None:
        for record, pk_deck in zip(records, pk_decks, strict=True):
            play_pokerkit(record.deal, record.pk_actions, pk_deck)

    def engine_random_all() -> None:
        rng = random.Random(0)
        for deal in random_deals:
            play_engine_random(deal, rng)

    n = len(records)
    return [
        Result("pokerkit, bridged play", n, _rate(pokerkit_all, n, min(repeats, POKERKIT_REPEATS))),
        Result("engine, bridged play", n, _rate(engine_all, n, repeats)),
        Result(
            "engine, own random play",
            len(random_deals),
            _rate(engine_random_all, len(random_deals), repeats),
        ),
    ]


def format_table(results: Sequence[Result]) -> str:
    """The results as a text table, each rate relative to pokerkit's."""
    baseline = next(r.rate for r in results if r.name.startswith("pokerkit"))
    width = max(len(r.name) for r in results)
    lines = [f"{'side':<{width}}  {'hands':>6}  {'hands/s':>10}  {'vs pokerkit':>11}"]
    lines.append("-" * len(lines[0]))
    for r in results:
        lines.append(
            f"{r.name:<{width}}  {r.hands:>6,}  {r.rate:>10,.0f}  {r.rate / baseline:>10.1f}x"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=300, help="bridged 7-handed hands")
    parser.add_argument(
        "--random-hands", type=int, default=3_000, help="hands of the engine's own random play"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed runs (3 for pokerkit)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the hands and choices")
    args = parser.parse_args(argv)

    stats = Stats()
    records = record_hands(args.hands, args.seed, stats)
    deal_rng = random.Random(args.seed + 1)
    random_deals = [random_deal(deal_rng, players=PLAYERS) for _ in range(args.random_hands)]
    engine_actions = sum(len(r.engine_actions) for r in records)
    print(
        f"{args.hands:,} bridged {PLAYERS}-handed house hands (seed {args.seed}): "
        f"{engine_actions / args.hands:.1f} engine actions a hand, "
        f"{stats.showdowns} showdowns, {stats.side_pots} with side pots; "
        f"median of {args.repeats} runs ({min(args.repeats, POKERKIT_REPEATS)} for pokerkit)"
    )
    load_before = os.getloadavg()[0]
    results = run(records, random_deals, args.repeats)
    load_after = os.getloadavg()[0]
    print(format_table(results))
    # Both sides share the machine: a ratio means most on a quiet one (see BENCHMARKS.md).
    print(f"load average (1 min): {load_before:.2f} before, {load_after:.2f} after")


if __name__ == "__main__":
    main()
