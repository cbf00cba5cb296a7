"""Seven-card high-hand evaluators side by side: the engine against eval7, phevaluator,
treys and pokerkit.

Run from the repository root::

    .venv/bin/python -m benchmarks.evaluators [--hands 100000] [--repeats 5] [--seed 7]

Every library gets the same random seven-card hands (fixed seed), converted into
its own card objects before the clock starts, so only evaluation is timed. Each
figure is the median of several repeats. Slow libraries are timed on a prefix of
the hands and reported as a rate all the same. Before timing, the engine's
ordering is checked against eval7's on the first hands, so a fast wrong answer
cannot pass unnoticed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import eval7
import phevaluator
import pokerkit
import treys

from engine_server.game import _evaluator
from engine_server.game.cards import Card, format_cards
from engine_server.game.evaluation import evaluate_high

__all__ = ["Result", "main", "make_hands", "run"]

# treys and pokerkit are pure Python and much slower: a prefix of the hands
# gives a stable rate without stretching the run past a minute.
TREYS_HANDS = 20_000
POKERKIT_HANDS = 2_000
POKERKIT_REPEATS = 3


@dataclass(frozen=True)
class Result:
    """One row of the table."""

    name: str
    hands: int
    rate: float  # evaluations per second, median over the repeats


def make_hands(count: int, seed: int) -> list[list[Card]]:
    """``count`` random seven-card hands, the same for a given seed."""
    rng = random.Random(seed)
    deck = list(range(52))
    return [rng.sample(deck, 7) for _ in range(count)]


def _rate(run_all: Callable[[], object], hands: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run_all()
        times.append(time.perf_counter() - start)
    return hands / statistics.median(times)


def _check_engine_against_eval7(hands: Sequence[Sequence[Card]]) -> None:
    ours = [evaluate_high(hand) for hand in hands]
    theirs = [eval7.evaluate([eval7.Card(text) for text in format_cards(hand)]) for hand in hands]
    for (a1, b1), (a2, b2) in pairwise(zip(ours, theirs, strict=True)):
        if (a1 > a2) != (b1 > b2) or (a1 == a2) != (b1 == b2):
            raise SystemExit("engine and eval7 disagree on the order of two hands")


def run(hands: list[list[Card]], repeats: int) -> list[Result]:
    """Time every evaluator on ``hands``."""
    results: list[Result] = []
    texts = [format_cards(hand) for hand in hands]

    def timed(name: str, converted: Sequence[Any], evaluate_all: Callable[[], object]) -> None:
        count = len(converted)
        reps = POKERKIT_REPEATS if name.startswith("pokerkit") else repeats
        results.append(Result(name, count, _rate(evaluate_all, count, reps)))

    # The engine, through its Python API and straight into C.
    engine_hands = hands
    timed("engine evaluate_high", engine_hands, lambda: [evaluate_high(h) for h in engine_hands])
    c_evaluate = _evaluator.evaluate
    timed("engine C evaluate(seq)", engine_hands, lambda: [c_evaluate(h) for h in engine_hands])
    c_evaluate7 = _evaluator.evaluate7
    tuples = [tuple(hand) for hand in hands]
    timed("engine C evaluate7(*cards)", tuples, lambda: [c_evaluate7(*h) for h in tuples])

    eval7_hands = [[eval7.Card(text) for text in hand] for hand in texts]
    eval7_evaluate = eval7.evaluate
    timed("eval7", eval7_hands, lambda: [eval7_evaluate(h) for h in eval7_hands])

    # phevaluator's card ids use the engine's rank * 4 + suit order; ints are its
    # fastest input.
    ph_hands = [tuple(phevaluator.Card(text).id_ for text in hand) for hand in texts]
    ph_evaluate = phevaluator.evaluate_cards
    timed("phevaluator", ph_hands, lambda: [ph_evaluate(*h) for h in ph_hands])

    treys_evaluator = treys.Evaluator()
    treys_hands = [
        ([treys.Card.new(t) for t in hand[:2]], [treys.Card.new(t) for t in hand[2:]])
        for hand in texts[:TREYS_HANDS]
    ]
    treys_evaluate = treys_evaluator.evaluate
    timed("treys", treys_hands, lambda: [treys_evaluate(h, b) for h, b in treys_hands])

    pk_hands = [list(pokerkit.Card.parse("".join(hand))) for hand in texts[:POKERKIT_HANDS]]
    pk_from_game = pokerkit.StandardHighHand.from_game
    timed(
        "pokerkit StandardHighHand",
        pk_hands,
        lambda: [pk_from_game(h) for h in pk_hands],
    )
    return results


def format_table(results: Sequence[Result]) -> str:
    """The results as a text table with each rate relative to eval7."""
    baseline = next(r.rate for r in results if r.name == "eval7")
    width = max(len(r.name) for r in results)
    lines = [f"{'library':<{width}}  {'hands':>8}  {'evals/s':>12}  {'vs eval7':>8}"]
    lines.append("-" * len(lines[0]))
    for r in results:
        lines.append(
            f"{r.name:<{width}}  {r.hands:>8,}  {r.rate:>12,.0f}  {r.rate / baseline:>7.3f}x"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=100_000, help="random 7-card hands")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per library")
    parser.add_argument("--seed", type=int, default=7, help="seed of the random hands")
    args = parser.parse_args(argv)

    hands = make_hands(args.hands, args.seed)
    _check_engine_against_eval7(hands[:5_000])
    print(
        f"{args.hands:,} random 7-card hands (seed {args.seed}); "
        f"median of {args.repeats} runs ({POKERKIT_REPEATS} for pokerkit); "
        f"treys on {min(TREYS_HANDS, args.hands):,} hands, "
        f"pokerkit on {min(POKERKIT_HANDS, args.hands):,}"
    )
    print(format_table(run(hands, args.repeats)))


if __name__ == "__main__":
    main()
