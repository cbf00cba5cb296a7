"""``stud verify FILE``: check a hand record, or the lobby's fairness answer, offline.

``FILE`` (``-`` for stdin) holds one of:

* a hand record's fairness part, the JSON object that
  :func:`engine_server.game.fairness.parse_record` reads::

    {"commitment": HEX, "dealer_seed": HEX, "client_seed": STR, "nonce": N,
     "dealt": [{"seat": 1, "card": "Ah", "deck_index": 7}, ...]}

  (``deck_index`` is the card's position in the 52-card derived deck);
* the lobby's answer to ``GET /hands/{hand_id}/fairness``, as it is (an object with
  ``hand_id`` and ``check``): the commitment, and the deck it shows at every position, are
  recomputed from the seeds, and the cards it says the caller was dealt (``dealt``) are
  checked against that deck;
* the lobby's answer to ``GET /tables/{table_id}/fairness`` (or ``/seed-pairs``), as it is
  (a list of seed pairs): every revealed pair's commitment, and the nonce and the dealt cards
  of every hand it lists (see :mod:`engine_server.game.fairness_answers`).

The lobby's own verdict in an answer is not trusted: everything is recomputed. The command
prints one line of JSON, ``{"ok", "commitment_ok", "mismatches", "problems"}`` for a record,
the same keys and the answer's own (``input``, ``cards_checked``: how many dealt cards it
checked, ...) for an answer, and exits 0 when the input checks out, 1 when it does not. A file that cannot be read, is not JSON or has a missing or
wrong-typed field is bad input, and so is an answer whose dealer seed is not revealed yet
(nothing to verify): one line on stderr naming the file and the field or the reason, exit 2,
nothing on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine_server.cli import CliError
from engine_server.game.fairness import FairnessError, Verification, parse_record, verify_record
from engine_server.game.fairness_answers import (
    AnswerVerification,
    is_hand_answer,
    verify_hand_answer,
    verify_table_answer,
)

__all__ = ["configure", "run"]

STDIN = "-"


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare the FILE argument."""
    parser.add_argument(
        "file",
        metavar="FILE",
        help=(
            "a hand record's fairness part, or the lobby's answer to GET /hands/ID/fairness "
            "or GET /tables/ID/fairness, as JSON; - reads stdin"
        ),
    )


def _read(path: str) -> tuple[str, str]:
    """The name to report the input by, and its text."""
    name = "<stdin>" if path == STDIN else path
    try:
        if path == STDIN:
            raw = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                raw = handle.read()
    except OSError as error:
        raise CliError(f"{name}: cannot read: {error.strerror or error}") from None
    try:
        return name, raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CliError(f"{name}: not UTF-8 text") from None


def _json_type(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def run(args: argparse.Namespace) -> int:
    """Verify the record in ``args.file`` and print the report."""
    name, text = _read(args.file)
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as error:
        # Only the summary: the full message repeats the whole document.
        raise CliError(
            f"{name}: not valid JSON: {error.msg} (line {error.lineno} column {error.colno})"
        ) from None
    try:
        if isinstance(data, list):
            verification: Verification | AnswerVerification = verify_table_answer(data)
        elif not isinstance(data, dict):
            raise CliError(
                f"{name}: the record must be a JSON object (or the lobby's list of seed "
                f"pairs), not {_json_type(data)}"
            )
        elif is_hand_answer(data):
            verification = verify_hand_answer(data)
        else:
            verification = verify_record(parse_record(data))
    except FairnessError as error:
        # A bad field (RecordError names it) or a dealer seed not revealed yet.
        raise CliError(f"{name}: {error}") from None
    print(json.dumps(verification.as_json()))
    return 0 if verification.ok else 1
