"""Type stub for the C hand evaluator (see _evaluator.c for the strength encoding)."""

from collections.abc import Sequence

__all__ = ["evaluate", "evaluate7"]

def evaluate7(c0: int, c1: int, c2: int, c3: int, c4: int, c5: int, c6: int, /) -> int: ...
def evaluate(cards: Sequence[int], /) -> int: ...
