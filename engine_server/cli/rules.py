"""``stud rules [NAME]``: a rule profile's settings as JSON (all profiles without NAME)."""

from __future__ import annotations

import argparse
import json

from engine_server.cli import CliError
from engine_server.game.profiles import PROFILES, ProfileError, profile

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help=f"one of: {', '.join(PROFILES)}")


def run(args: argparse.Namespace) -> int:
    if args.name is None:
        print(json.dumps({name: s.to_json() for name, s in PROFILES.items()}, indent=2))
        return 0
    try:
        settings = profile(args.name, "NAME")
    except ProfileError as error:
        raise CliError(str(error)) from None
    print(json.dumps(settings.to_json(), indent=2))
    return 0
