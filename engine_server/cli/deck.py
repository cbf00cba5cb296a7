"""``stud deck DEALER_SEED CLIENT_SEED NONCE``: a seed pair's commitment and deck.

Prints one line of JSON, ``{"commitment": HEX, "deck": [52 card names]}``, in
deal order (docs/fairness.md §2). For the test vector of docs/fairness.md §5:

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="stud deck")
>>> configure(parser)
>>> run(parser.parse_args(["0" * 62 + "2a", "alice", "0"]))  # doctest: +ELLIPSIS
{"commitment": "9cf49eea...", "deck": ["5h", "5s", "9d", "As", ..., "5d"]}
0
"""

from __future__ import annotations

import argparse
import json
import re

from engine_server.cli import CliError
from engine_server.game.cards import format_cards
from engine_server.game.fairness import (
    FairnessError,
    commitment,
    derive_deck,
    validate_client_seed,
    validate_dealer_seed,
)

__all__ = ["configure", "parse_nonce", "run"]

_DIGITS = re.compile(r"[0-9]+")


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare the three positional arguments."""
    parser.add_argument("dealer_seed", metavar="DEALER_SEED", help="64 lowercase hex characters")
    parser.add_argument(
        "client_seed", metavar="CLIENT_SEED", help="1-64 characters of [A-Za-z0-9_-]"
    )
    parser.add_argument("nonce", metavar="NONCE", help="the hand number on this seed pair, from 0")


def parse_nonce(text: str) -> int:
    """A nonce from the command line: decimal digits only.

    ``int()`` alone would also take ``" 7"``, ``"+7"`` and ``"7_0"``; a hand
    number written any of those ways is more likely a slip than intended.

    >>> parse_nonce("12")
    12
    >>> parse_nonce("-1")
    Traceback (most recent call last):
    ...
    ValueError: must be a non-negative integer, not '-1'
    """
    if not _DIGITS.fullmatch(text):
        raise ValueError(f"must be a non-negative integer, not {text!r}")
    return int(text)


def run(args: argparse.Namespace) -> int:
    """Print the commitment and deck; bad arguments raise :class:`CliError`."""
    try:
        dealer_seed = validate_dealer_seed(args.dealer_seed)
    except FairnessError as error:
        raise CliError(f"argument DEALER_SEED: {error}") from None
    try:
        client_seed = validate_client_seed(args.client_seed)
    except FairnessError as error:
        raise CliError(f"argument CLIENT_SEED: {error}") from None
    try:
        nonce = parse_nonce(args.nonce)
    except ValueError as error:
        raise CliError(f"argument NONCE: nonce {error}") from None
    deck = derive_deck(dealer_seed, client_seed, nonce)
    print(json.dumps({"commitment": commitment(dealer_seed), "deck": format_cards(deck)}))
    return 0
