"""``stud admin``'s command line: its actions and their options."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from engine_server.cli.admin.client import DEFAULT_ENGINE, DEFAULT_TIMEOUT

__all__ = ["SESSION_STATES", "TABLE_STATUSES", "configure"]

TABLE_STATUSES = ("waiting", "playing", "pausing", "paused", "closing", "closed")
SESSION_STATES = ("open", "closing", "closed")


def configure(parser: argparse.ArgumentParser) -> None:
    _connection_options(parser, lambda _: None)
    # The same options after the action; SUPPRESS keeps what was given before it.
    common = argparse.ArgumentParser(add_help=False)
    _connection_options(common, lambda _: argparse.SUPPRESS)
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    token = actions.add_parser(
        "token",
        help="mint a token for AdminService",
        description="Mint a token signed with the engine's secret and print it.",
    )
    token.add_argument("--subject", default="ops", help="who the token names (default: ops)")
    token.add_argument(
        "--ttl", type=_positive_int, default=3600, help="seconds it is valid (default: 3600)"
    )
    token.add_argument(
        "--scope",
        choices=("admin", "lobby"),
        default="admin",
        help="admin: every call; lobby: the lobby's service token (default: admin)",
    )

    def action(name: str, help_text: str) -> argparse.ArgumentParser:
        return actions.add_parser(name, parents=[common], help=help_text, description=help_text)

    tables = action("tables", "list tables, newest first (every status but closed by default)")
    tables.add_argument(
        "--status",
        action="append",
        type=_table_status,
        metavar="STATUS",
        help=f"only tables in this status ({', '.join(TABLE_STATUSES)}); repeatable",
    )
    tables.add_argument(
        "--label", action="append", type=_label, metavar="KEY=VALUE", help="repeatable"
    )
    tables.add_argument(
        "--all-nodes",
        action="store_true",
        help="every engine node's tables (the whole room), with the node serving each",
    )
    _paging(tables, 50)

    table = action("table", "one table with every seat's cards (the call is audited)")
    table.add_argument("name", help="the table: its id or tables/{id}")
    table.add_argument("--reason", default="", help="why you look (written to the audit log)")

    for name, help_text in (
        ("pause", "pause a table (between hands: PAUSING while a hand runs)"),
        ("close", "close a table: the running hand ends, then everyone is paid out"),
    ):
        sub = action(name, help_text)
        sub.add_argument("name", help="the table: its id or tables/{id}")
        sub.add_argument("--reason", default="", help="shown to the players")
    action("resume", "resume a paused table").add_argument("name", help="the table")

    cancel = action("cancel-hand", "cancel the running hand: every chip goes back")
    cancel.add_argument("name", help="the table: its id or tables/{id}")
    cancel.add_argument(
        "--hand",
        type=_positive_int,
        default=0,
        help="the running hand's number (refused if another hand runs); default: whichever runs",
    )
    cancel.add_argument("--reason", default="", help="shown to the players, kept in the record")

    remove = action("remove", "remove a player (paid out now, or after the hand he plays)")
    remove.add_argument("name", help="the table: its id or tables/{id}")
    remove.add_argument("seat_session_id", help="his seat session (see `sessions`)")
    remove.add_argument("--reason", default="", help="kept with the session")
    remove.add_argument(
        "--by-player",
        action="store_true",
        help="he asked to leave (e.g. through support): the session closes as LEFT, not REMOVED",
    )

    rotate = action("rotate-seed", "reveal the dealer seed and deal on from the next one")
    rotate.add_argument("name", help="the table: its id or tables/{id}")
    rotate.add_argument("--client-seed", default="", help="a new client seed (default: keep)")

    drain = action(
        "drain",
        "start no new hand on this engine node; returns when the running ones end (its tables"
        " stay paused after a restart, until resumed)",
    )
    drain.add_argument(
        "--move",
        action="store_true",
        help="move every table to the other live nodes instead (each between hands, to the"
        " least loaded node): a rolling upgrade that closes no table",
    )

    move = action("move", "move a table to another live engine node, between hands")
    move.add_argument("name", help="the table: its id or tables/{id}")
    move.add_argument(
        "--node", default="", help="the node to move it to (default: the least loaded live one)"
    )

    action(
        "nodes",
        "list the engine nodes sharing this node's database: addresses, state, lease, open tables",
    )

    sessions = action("sessions", "list seat sessions, oldest first")
    sessions.add_argument("--table", help="only this table's")
    sessions.add_argument(
        "--state",
        action="append",
        choices=SESSION_STATES,
        help="only sessions in this state; repeatable",
    )
    _paging(sessions, 100)


def _connection_options(parser: argparse.ArgumentParser, default: Callable[[str], Any]) -> None:
    parser.add_argument(
        "--engine",
        default=default("engine"),
        metavar="HOST:PORT",
        help="the engine's gRPC address ($STUD_ENGINE_ADDRESS, else the running stud run's, "
        f"else {DEFAULT_ENGINE})",
    )
    parser.add_argument(
        "--token",
        default=default("token"),
        help="an admin token ($STUD_ADMIN_TOKEN; default: minted from the engine's secret)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        default=default("json") or False,
        help="print the response as JSON",
    )
    parser.add_argument(
        "--timeout",
        type=_positive_float,
        default=default("timeout"),
        metavar="SECONDS",
        help=f"deadline of the call (default {DEFAULT_TIMEOUT:g}; drain and move: none)",
    )


def _paging(parser: argparse.ArgumentParser, size: int) -> None:
    parser.add_argument("--page-size", type=_positive_int, default=size, help=f"default {size}")
    parser.add_argument("--page-token", default="", help="the next page, from a previous page")
    parser.add_argument("--all-pages", action="store_true", help="follow every page")


def _positive_int(raw: str) -> int:
    if not raw.isdigit() or int(raw) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {raw!r}")
    return int(raw)


def _positive_float(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {raw!r}")
    return value


def _table_status(raw: str) -> str:
    name = raw.lower().removeprefix("table_status_")
    if name not in TABLE_STATUSES:
        raise argparse.ArgumentTypeError(
            f"unknown status {raw!r} (known: {', '.join(TABLE_STATUSES)})"
        )
    return name


def _label(raw: str) -> tuple[str, str]:
    key, sep, value = raw.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {raw!r}")
    return key, value
