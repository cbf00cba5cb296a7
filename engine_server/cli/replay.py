"""``stud replay FILE|- …``: replay hand scripts (docs/hand-scripts.md).

Prints one JSON result per script (a JSON array when there are several).
Exit status 0 when every script replayed to the end of its hand, 1 when any
stopped early, 2 when a file is not a valid script (nothing is printed then).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine_server.cli import CliError
from engine_server.game.replay import ScriptError, parse_script, replay

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="a hand script, or - for stdin")


def _load(name: str) -> Any:
    try:
        if name == "-":
            text = sys.stdin.read()
        else:
            with open(name, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as error:
        raise CliError(f"{name}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError:
        raise CliError(f"{name}: not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise CliError(
            f"{name}: malformed JSON at line {error.lineno} column {error.colno}: {error.msg}"
        ) from None


def run(args: argparse.Namespace) -> int:
    scripts = []
    for name in args.files:
        data = _load(name)
        try:
            scripts.append(parse_script(data))
        except ScriptError as error:
            raise CliError(f"{name}: {error}") from None
    results = [replay(script) for script in scripts]
    output = results[0] if len(results) == 1 else results
    print(json.dumps(output))
    return 0 if all(result["ok"] for result in results) else 1
