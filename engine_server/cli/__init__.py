"""The ``stud`` command line: one subcommand per module of this package.

Every subcommand reports bad input as a single line on stderr and exits with a
non-zero status; nothing is printed on stdout in that case.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

__all__ = ["CliError", "main"]

#: subcommand name -> (module in this package, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("replay", "replay hand scripts (HAND_SCRIPT.md) and print what happened"),
    "rules": ("rules", "print a rule profile's settings as JSON"),
    "deck": ("deck", "print the commitment and deck of a seed pair and nonce"),
    "verify": ("verify", "check a hand record against its revealed seeds"),
    "engine": ("engine", "run the engine server (gRPC and Connect/gRPC-Web)"),
    "lobby": ("lobby", "run the lobby REST API (accounts, wallets, quick games)"),
    "describe": (
        "describe",
        "list an engine's services, or describe one of its services or messages",
    ),
    "admin": ("admin", "operate an engine: tables, hands, seeds, drain (AdminService)"),
    "run": ("run", "run the whole card room: engine, lobby and demo bots"),
    "bots": ("bots", "bot players that sit in at quick games through the lobby"),
}


class CliError(Exception):
    """Bad input: printed as one line on stderr, exit status ``code``."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stud", description="Seven-Card Stud card room")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(f"engine_server.cli.{module_name}")
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        module.configure(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except CliError as error:
        print(f"stud {args.command}: {error}", file=sys.stderr)
        return error.code
    except BrokenPipeError:
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
