"""The ``stud`` command line: one subcommand per module of this package, and the
subcommands other packages add through the ``stud.commands`` entry points.

The lobby adds ``stud lobby`` and ``stud run`` that way (``lobby_api.cli``, named in
pyproject.toml), so the engine never imports the lobby. A command found there is a module
(or any object) with ``HELP`` (its one-line help), ``configure(parser)`` and
``run(args) -> int``.

Every subcommand reports bad input as a single line on stderr and exits with a
non-zero status; nothing is printed on stdout in that case. A service (``engine``,
``lobby``, ``bots``) logging JSON reports it as a JSON log record (``stud.cli``).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any

__all__ = ["COMMANDS", "ENTRY_POINTS", "CliError", "main"]

#: subcommand name -> (module in this package, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("replay", "replay hand scripts (docs/hand-scripts.md) and print what happened"),
    "rules": ("rules", "print a rule profile's settings as JSON"),
    "deck": ("deck", "print the commitment and deck of a seed pair and nonce"),
    "verify": (
        "verify",
        "check the lobby's fairness answer (hand or table), or a hand record, against the "
        "revealed seeds",
    ),
    "engine": ("engine", "run the engine server (gRPC and Connect/gRPC-Web)"),
    "describe": (
        "describe",
        "list an engine's services, or describe one of its services or messages",
    ),
    "admin": ("admin", "operate an engine: tables, hands, seeds, drain (AdminService)"),
    "bots": ("bots", "bot players that sit in at quick games through the lobby"),
    "gateway": (
        "gateway",
        "run a gateway: players' TableService streams relayed to the engine nodes",
    ),
}

#: The entry-point group where other packages add subcommands (name -> module).
ENTRY_POINTS = "stud.commands"


class CliError(Exception):
    """Bad input: printed as one line on stderr, exit status ``code``."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


@functools.cache
def added_commands() -> dict[str, Any]:
    """The subcommands other packages add (``stud.commands`` entry points), by name; the
    first of a name wins, and none replaces one of :data:`COMMANDS`."""
    found: dict[str, Any] = {}
    for entry in sorted(entry_points(group=ENTRY_POINTS), key=lambda e: e.name):
        if entry.name not in COMMANDS and entry.name not in found:
            found[entry.name] = entry.load()
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stud", description="Seven-Card Stud card room")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands = [
        (name, importlib.import_module(f"engine_server.cli.{module_name}"), help_text)
        for name, (module_name, help_text) in COMMANDS.items()
    ]
    commands += [(name, command, command.HELP) for name, command in added_commands().items()]
    for name, command, help_text in commands:
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        command.configure(sub)
        sub.set_defaults(run=command.run)
    return parser


#: the commands that run as services and log (STUD_LOG_FORMAT)
SERVICES = frozenset({"engine", "lobby", "bots", "gateway"})


def _logs_json(command: str) -> bool:
    """Whether the command's error is a JSON log record: it logs JSON already, or it is a
    service whose settings were refused before its logging was set up, and JSON was asked
    for (STUD_LOG_FORMAT=json)."""
    from engine_server.logs import configure_logging, logs_json

    if logs_json():
        return True
    if command in SERVICES and os.environ.get("STUD_LOG_FORMAT") == "json":
        configure_logging("INFO", "json")
        return True
    return False


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except CliError as error:
        if _logs_json(args.command):
            # A service logging JSON: its last word is a log record too.
            logging.getLogger("stud.cli").error(
                "stud %s: %s", args.command, error, extra={"exit_code": error.code}
            )
        else:
            print(f"stud {args.command}: {error}", file=sys.stderr)
        return error.code
    except BrokenPipeError:
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
