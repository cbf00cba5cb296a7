"""``stud verify FILE``: check a hand record's fairness part offline.

``FILE`` (``-`` for stdin) holds the JSON object that
:func:`engine_server.game.fairness.parse_record` reads::

    {"commitment": HEX, "dealer_seed": HEX, "client_seed": STR, "nonce": N,
     "dealt": [{"seat": 1, "card": "Ah", "deck_index": 7}, ...]}

``deck_index`` is the card's position in the 52-card derived deck. The command
prints one line of JSON, ``{"ok", "commitment_ok", "mismatches", "problems"}``,
and exits 0 when the record checks out, 1 when it does not. A file that cannot
be read, is not JSON or has a missing or wrong-typed field is bad input: one
line on stderr naming the file and the field, exit 2, nothing on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine_server.cli import CliError
from engine_server.game.fairness import RecordError, parse_record, verify_record

__all__ = ["configure", "run"]

STDIN = "-"


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare the FILE argument."""
    parser.add_argument(
        "file", metavar="FILE", help="the record's fairness part as JSON; - reads stdin"
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
    if not isinstance(data, dict):
        raise CliError(f"{name}: the record must be a JSON object, not {_json_type(data)}")
    try:
        record = parse_record(data)
    except RecordError as error:
        raise CliError(f"{name}: {error}") from None
    verification = verify_record(record)
    print(json.dumps(verification.as_json()))
    return 0 if verification.ok else 1
