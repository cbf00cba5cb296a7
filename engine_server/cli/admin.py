"""``stud admin``: every AdminService call from the command line, and admin tokens.

::

    stud admin token [--subject ops] [--ttl 3600] [--scope admin|lobby]
    stud admin [--engine HOST:PORT] [--token T] [--json] [--timeout S] ACTION ...

    ACTION: tables [--status S] [--label K=V] [--all-pages] [--all-nodes]
                                                             list tables (--all-nodes: the room)
            table NAME [--reason R]                          one table, every card (audited);
                                                             any node's (another node's as
                                                             stored, with its node)
            pause NAME [--reason R] | resume NAME | close NAME [--reason R]
            cancel-hand NAME [--hand N] [--reason R]         every chip of the hand goes back
            remove NAME SEAT_SESSION_ID [--reason R] [--by-player]
            rotate-seed NAME [--client-seed S]
            drain [--move]                                   no new hands on this node (the
                                                             pause outlasts a restart); --move:
                                                             its tables go to the other nodes
            move NAME [--node N]                             move a table to another node
                                                             (between hands; default: the
                                                             least loaded live node)
            sessions [--table NAME] [--state open|closing|closed] [--all-pages]

The engine is ``--engine``, else ``$STUD_ENGINE_ADDRESS``, else the room ``stud run`` is
running from this directory (``var/room.json``), else ``127.0.0.1:50051``.
The token is ``--token``, else ``$STUD_ADMIN_TOKEN``, else one minted here for five
minutes from the engine's secret (``$STUD_JWT_SECRET`` or ``var/jwt-secret``, as the
engine finds it), naming the local user as the caller in the engine's audit log.
``--engine``, ``--token``, ``--json`` and ``--timeout`` may also follow the action.

Answers are aligned tables by default and the response message as proto3 JSON
with ``--json``. A refusal prints one line, ``stud admin: <REASON>: <message>``
(the reason of its ``ErrorInfo``), and exits with status 1; so does an engine
that cannot be reached. Bad usage exits with status 2.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine_server.cli import CliError
from engine_server.cli.room import room_address

__all__ = ["configure", "run"]

DEFAULT_ENGINE = "127.0.0.1:50051"
#: how long a token minted for one command lives
COMMAND_TOKEN_SECONDS = 300
#: the deadline of every call but Drain's (which waits for the running hands)
DEFAULT_TIMEOUT = 30.0

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


def _table_name(raw: str) -> str:
    return raw if raw.startswith("tables/") else f"tables/{raw}"


# -------------------------------------------------------------------- run


def run(args: argparse.Namespace) -> int:
    env = os.environ
    if args.action == "token":
        from engine_server.auth import Scope, mint_token

        print(mint_token(_secret(env), args.subject, [Scope(args.scope)], ttl_seconds=args.ttl))
        return 0

    import grpc
    from stud.v1 import admin_service_pb2_grpc

    address = (
        args.engine or env.get("STUD_ENGINE_ADDRESS") or room_address("grpc") or DEFAULT_ENGINE
    )
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise CliError(f"--engine: expected HOST:PORT, got {address!r}")
    token = args.token or env.get("STUD_ADMIN_TOKEN") or _command_token(env)
    timeout = args.timeout or (None if args.action in ("drain", "move") else DEFAULT_TIMEOUT)
    with grpc.insecure_channel(address) as channel:
        client = _Client(admin_service_pb2_grpc.AdminServiceStub(channel), token, timeout, address)
        ACTIONS[args.action](client, args)
    return 0


def _secret(env: os._Environ[str] | dict[str, str]) -> str:
    from engine_server.settings import SECRET_FILE, SettingsError, jwt_secret

    # jwt_secret() would make a new secret when none exists: one no engine knows.
    if not env.get("STUD_JWT_SECRET") and not SECRET_FILE.exists():
        raise CliError(
            f"no secret to sign with: set STUD_JWT_SECRET or run where the engine keeps "
            f"{SECRET_FILE} (or pass --token)",
            code=1,
        )
    try:
        return jwt_secret(env)
    except SettingsError as error:
        raise CliError(str(error), code=1) from None


def _command_token(env: os._Environ[str] | dict[str, str]) -> str:
    from engine_server.auth import Scope, mint_token

    try:
        user = getpass.getuser()
    except (OSError, KeyError):
        user = "unknown"
    return mint_token(_secret(env), f"ops:{user}", [Scope.ADMIN], ttl_seconds=COMMAND_TOKEN_SECONDS)


class _Client:
    """Calls AdminService with the token and deadline; a refusal becomes a :class:`CliError`."""

    def __init__(self, stub: Any, token: str, timeout: float | None, address: str) -> None:
        self.stub = stub
        self.metadata = (("authorization", f"Bearer {token}"),)
        self.timeout = timeout
        self.address = address

    def __call__(self, method: str, request: Any) -> Any:
        import grpc

        try:
            return getattr(self.stub, method)(request, metadata=self.metadata, timeout=self.timeout)
        except grpc.RpcError as error:
            raise self._failure(method, error) from None

    def _failure(self, method: str, error: Any) -> CliError:
        import grpc
        from google.rpc import error_details_pb2
        from grpc_status import rpc_status

        message = " ".join(str(error.details() or "").split())
        try:
            status = rpc_status.from_call(error)
        except ValueError:
            status = None
        for detail in status.details if status is not None else ():
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                return CliError(f"{info.reason}: {message}", code=1)
        code = error.code()
        if code == grpc.StatusCode.UNAVAILABLE:
            return CliError(f"cannot reach the engine at {self.address}: {message}", code=1)
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            hint = " (the drain goes on: run it again to keep waiting)" if method == "Drain" else ""
            return CliError(f"DEADLINE_EXCEEDED: no answer within {self.timeout:g} s{hint}", code=1)
        return CliError(f"{code.name}: {message}", code=1)


# ------------------------------------------------------------------ actions


def _tables(client: _Client, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2, table_pb2

    request = admin_service_pb2.ListTablesRequest(
        page_size=args.page_size,
        page_token=args.page_token,
        statuses=[
            table_pb2.TableStatus.Value(f"TABLE_STATUS_{s.upper()}") for s in args.status or ()
        ],
        labels=dict(args.label or ()),
        all_nodes=args.all_nodes,
    )
    answer = _pages(client, "ListTables", request, "tables", args.all_pages)
    if args.json:
        _print_json(answer)
        return
    if not answer.tables:
        print("no tables")
    else:
        nodes = ("NODE",) if args.all_nodes else ()
        print(
            _columns(
                (
                    "TABLE",
                    *nodes,
                    "STATUS",
                    "PROFILE",
                    "STAKES",
                    "SEATS",
                    "HAND",
                    "RUNNING",
                    "LABELS",
                    "PLAYERS",
                ),
                (
                    (
                        t.name.removeprefix("tables/"),
                        *((_placed(answer.placements.get(t.name)),) if args.all_nodes else ()),
                        _enum(table_pb2.TableStatus, t.status),
                        t.settings.profile + (" (private)" if t.settings.private else ""),
                        _stakes(t.settings.stakes),
                        f"{len(t.seats)}/{t.settings.rules.max_players}",
                        str(t.hand_number),
                        "yes" if t.hand_in_progress else "no",
                        ",".join(f"{k}={v}" for k, v in sorted(t.labels.items())) or "-",
                        ", ".join(_player(s) for s in t.seats) or "-",
                    )
                    for t in answer.tables
                ),
            )
        )
    _more(answer.next_page_token)


def _placed(placement: Any) -> str:
    """A table's node in ``tables --all-nodes``: its id, marked when that node is not live."""
    if placement is None:
        return "-"
    return placement.node + ("" if placement.node_live else " (down)")


def _table(client: _Client, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2, settings_pb2, table_pb2

    answer = client(
        "GetTable",
        admin_service_pb2.GetTableRequest(name=_table_name(args.name), reason=args.reason),
    )
    if args.json:
        _print_json(answer)
        return
    t, snap = answer.table, answer.snapshot
    # Another node's open table comes as stored, without its live view: its seats without
    # cards (Table.seats), and the node to ask for the rest.
    detailed = answer.HasField("snapshot")
    seats = snap.seats if detailed else t.seats
    hand = f"{t.hand_number}"
    if not detailed:
        hand += " (running, on its node)" if t.hand_in_progress else ""
    elif snap.hand_in_progress:
        hand += (
            f" (running: {_enum(settings_pb2.Street, snap.street)}, pot {snap.pot_total}, "
            f"turn seat {snap.turn_seat or '-'})"
        )
    elif t.hand_number:
        hand += " (over)"
    settings = t.settings
    facts = [
        ("table", t.name),
        ("status", _enum(table_pb2.TableStatus, t.status)),
        (
            "profile",
            f"{settings.profile}, stakes {_stakes(settings.stakes)}, "
            f"buy-in {settings.min_buy_in}..{settings.max_buy_in or '-'}"
            + (", private" if settings.private else ""),
        ),
        ("hand", hand),
    ]
    if answer.HasField("placement"):
        where = answer.placement
        facts.append(
            (
                "node",
                f"{where.node} ({'live' if where.node_live else 'down'}, "
                f"table epoch {where.owner_epoch})"
                + ("" if detailed else ": shown as stored, ask that node for its cards"),
            )
        )
    facts += [
        (
            "seed",
            f"{t.seed.commitment} (client seed {t.seed.client_seed}, "
            f"{_count(t.seed.hands_dealt, 'hand')} dealt)",
        ),
        ("next seed", t.next_commitment),
    ]
    if t.seed.dealer_seed:
        facts.append(("dealer seed", t.seed.dealer_seed))
    if t.labels:
        facts.append(("labels", ",".join(f"{k}={v}" for k, v in sorted(t.labels.items()))))
    if settings.HasField("tournament"):
        tour, state = settings.tournament, t.tournament
        level = f"level {state.level}"
        if state.next_level:
            level += f" (level {state.next_level}, {_stakes(state.next_stakes)}, next hand)"
        facts.append(
            (
                "tournament",
                f"{tour.tournament_id}, {tour.table_name} (#{tour.table_number}), {level}"
                + (", hand-for-hand: next hand held" if state.hand_held else ""),
            )
        )
    if t.watchers:
        facts.append(("railbirds", str(t.watchers)))
    width = max(len(k) for k, _ in facts)
    for key, value in facts:
        print(f"{key.ljust(width)}  {value}")
    print()
    if not seats:
        print("no seats taken")
        return
    print(
        _columns(
            (
                "SEAT",
                "PLAYER",
                "SESSION",
                "STACK",
                "BET",
                "IN POT",
                "STATUS",
                "FLAGS",
                "DOWN",
                "UP",
            ),
            (
                (
                    str(s.number),
                    _player(s),
                    s.seat_session_id,
                    str(s.stack),
                    str(s.bet_this_street),
                    str(s.total_bet),
                    _enum(table_pb2.SeatStatus, s.status),
                    _flags(s, snap.turn_seat),
                    " ".join(s.down_cards),
                    " ".join(s.up_cards),
                )
                for s in seats
            ),
        )
    )


def _flags(seat: Any, turn: int) -> str:
    flags = [
        name
        for name, on in (
            ("to-act", seat.number == turn),
            ("in-hand", seat.in_hand and not seat.folded),
            ("folded", seat.folded),
            ("all-in", seat.all_in),
            ("protected", seat.all_in_protected),
            ("away", not seat.connected),
        )
        if on
    ]
    return ",".join(flags) or "-"


def _status_change(method: str, request_type: str) -> Callable[[_Client, argparse.Namespace], None]:
    def change(client: _Client, args: argparse.Namespace) -> None:
        from stud.v1 import admin_service_pb2, table_pb2

        fields: dict[str, Any] = {"name": _table_name(args.name)}
        if hasattr(args, "reason"):
            fields["reason"] = args.reason
        answer = client(method, getattr(admin_service_pb2, request_type)(**fields))
        if args.json:
            _print_json(answer)
            return
        t = answer.table
        running = f", hand {t.hand_number} running" if t.hand_in_progress else ""
        print(f"{t.name}: {_enum(table_pb2.TableStatus, t.status)}{running}")
        sessions = getattr(answer, "sessions", ())
        if sessions:
            print(_sessions_columns(sessions))

    return change


def _cancel_hand(client: _Client, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2

    answer = client(
        "CancelHand",
        admin_service_pb2.CancelHandRequest(
            name=_table_name(args.name), hand_number=args.hand, reason=args.reason
        ),
    )
    if args.json:
        _print_json(answer)
        return
    result = answer.result
    print(f"{_table_name(args.name)}: hand {result.hand_number} cancelled, every chip returned")
    seats = sorted(set(result.final_stacks) | set(result.returned))
    print(
        _columns(
            ("SEAT", "RETURNED", "STACK"),
            (
                (str(n), str(result.returned.get(n, 0)), str(result.final_stacks.get(n, "")))
                for n in seats
            ),
        )
    )


def _remove(client: _Client, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2

    answer = client(
        "RemovePlayer",
        admin_service_pb2.RemovePlayerRequest(
            table=_table_name(args.name),
            seat_session_id=args.seat_session_id,
            reason=args.reason,
            by_player=args.by_player,
        ),
    )
    if args.json:
        _print_json(answer)
        return
    print(_sessions_columns([answer.session]))


def _rotate_seed(client: _Client, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2

    answer = client(
        "RotateSeed",
        admin_service_pb2.RotateSeedRequest(
            name=_table_name(args.name), client_seed=args.client_seed
        ),
    )
    if args.json:
        _print_json(answer)
        return
    old, new = answer.revealed, answer.current
    facts = (
        ("revealed", f"dealer seed {old.dealer_seed}"),
        (
            "",
            f"commitment {old.commitment}, client seed {old.client_seed}, "
            f"{_count(old.hands_dealt, 'hand')} dealt",
        ),
        ("now dealing", f"commitment {new.commitment}, client seed {new.client_seed}"),
        ("next", f"commitment {answer.next_commitment}"),
    )
    for key, value in facts:
        print(f"{key.ljust(11)}  {value}")


def _drain(client: _Client, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2

    answer = client("Drain", admin_service_pb2.DrainRequest(move_tables=args.move))
    if args.json:
        _print_json(answer)
        return
    if args.move:
        left = answer.tables - answer.tables_moved
        print(
            f"drained: {_count(answer.tables_moved, 'table')} moved to other nodes, "
            f"{_count(left, 'table')} left here paused; "
            f"{_count(answer.hands_finished, 'running hand')} finished first"
        )
        return
    print(
        f"drained: {_count(answer.tables, 'table')} on this node, "
        f"{_count(answer.hands_finished, 'running hand')} finished; no new hand starts"
        " (the tables stay paused after a restart: `stud admin resume NAME`)"
    )


def _move(client: _Client, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2

    answer = client(
        "MoveTable", admin_service_pb2.MoveTableRequest(name=_table_name(args.name), node=args.node)
    )
    if args.json:
        _print_json(answer)
        return
    waited = " (after its running hand)" if answer.waited_for_hand else ""
    print(
        f"{_table_name(args.name)}: moved to engine node {answer.node}{waited}; players:"
        f" {answer.grpc_address}, browsers: {answer.web_url}"
    )


def _sessions(client: _Client, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2, table_pb2

    request = admin_service_pb2.ListSeatSessionsRequest(
        table=_table_name(args.table) if args.table else "",
        states=[
            table_pb2.SeatSessionState.Value(f"SEAT_SESSION_STATE_{s.upper()}")
            for s in args.state or ()
        ],
        page_size=args.page_size,
        page_token=args.page_token,
    )
    answer = _pages(client, "ListSeatSessions", request, "sessions", args.all_pages)
    if args.json:
        _print_json(answer)
        return
    print(_sessions_columns(answer.sessions) if answer.sessions else "no seat sessions")
    _more(answer.next_page_token)


def _nodes(client: _Client, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2

    answer = client("ListNodes", admin_service_pb2.ListNodesRequest())
    if args.json:
        _print_json(answer)
        return
    if not answer.nodes:
        print(f"no node registry on {answer.answered_by or 'this engine'}'s database")
        return
    print(
        _columns(
            (
                "NODE",
                "STATE",
                "LIVE",
                "EPOCH",
                "TABLES",
                "PLAYERS",
                "LEASE UNTIL",
                "GRPC",
                "ADMIN",
                "WEB",
            ),
            (
                (
                    n.id + (" *" if n.id == answer.answered_by else ""),
                    _enum(admin_service_pb2.EngineNodeState, n.state),
                    "yes" if n.live else "no",
                    str(n.epoch),
                    str(n.open_tables),
                    str(n.seated_players),
                    n.expires_at.ToDatetime().strftime("%Y-%m-%d %H:%M:%S"),
                    n.grpc_address,
                    n.admin_address,
                    n.web_url,
                )
                for n in answer.nodes
            ),
        )
    )
    print("(* answered; lease times in UTC)")


ACTIONS: dict[str, Callable[[_Client, argparse.Namespace], None]] = {
    "tables": _tables,
    "table": _table,
    "pause": _status_change("PauseTable", "PauseTableRequest"),
    "resume": _status_change("ResumeTable", "ResumeTableRequest"),
    "close": _status_change("CloseTable", "CloseTableRequest"),
    "cancel-hand": _cancel_hand,
    "remove": _remove,
    "rotate-seed": _rotate_seed,
    "drain": _drain,
    "move": _move,
    "sessions": _sessions,
    "nodes": _nodes,
}


# ------------------------------------------------------------------ output


def _pages(client: _Client, method: str, request: Any, field: str, every: bool) -> Any:
    """One page, or (``every``) every page merged into one response without a next token."""
    answer = client(method, request)
    while every and answer.next_page_token:
        request.page_token = answer.next_page_token
        page = client(method, request)
        getattr(answer, field).extend(getattr(page, field))
        if method == "ListTables":
            for name, placement in page.placements.items():
                answer.placements[name].CopyFrom(placement)
        answer.next_page_token = page.next_page_token
    return answer


def _more(token: str) -> None:
    if token:
        print(f"more: --page-token {token} (or --all-pages)", file=sys.stderr)


def _print_json(message: Any) -> None:
    from google.protobuf import json_format

    print(
        json_format.MessageToJson(
            message, always_print_fields_with_no_presence=True, indent=2, sort_keys=False
        )
    )


def _sessions_columns(sessions: Iterable[Any]) -> str:
    from stud.v1 import table_pb2

    return _columns(
        ("SESSION", "TABLE", "PLAYER", "SEAT", "STATE", "CHIPS IN", "STACK", "CLOSED BECAUSE"),
        (
            (
                s.seat_session_id,
                s.table.removeprefix("tables/"),
                _player(s),
                str(s.seat),
                _enum(table_pb2.SeatSessionState, s.state),
                str(s.chips_in),
                str(s.stack),
                _enum(table_pb2.SeatSessionCloseReason, s.close_reason) if s.close_reason else "-",
            )
            for s in sessions
        ),
    )


def _player(seat_or_session: Any) -> str:
    """``username (player id)``: the name the lobby seated him under, beside the id ops
    look him up by; the id alone when no other name was given."""
    name, player_id = seat_or_session.display_name, seat_or_session.player_id
    return f"{name} ({player_id})" if name and name != player_id else player_id


def _enum(enum: Any, value: int) -> str:
    """``TABLE_STATUS_PAUSED`` -> ``PAUSED``."""
    name: str = enum.Name(value)
    prefix = "".join(
        f"_{c}" if c.isupper() and i else c for i, c in enumerate(enum.DESCRIPTOR.name)
    ).upper()
    return name.removeprefix(prefix + "_")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _stakes(stakes: Any) -> str:
    return f"{stakes.ante}/{stakes.bring_in}/{stakes.small_bet}/{stakes.big_bet}"


def _columns(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """Rows under their headers, each column as wide as its widest cell."""
    table = [list(headers), *(list(r) for r in rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(headers))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in table
    )
