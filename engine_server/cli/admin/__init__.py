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
import os
from collections.abc import Callable

from engine_server.cli import CliError
from engine_server.cli.admin.client import (
    DEFAULT_ENGINE,
    DEFAULT_TIMEOUT,
    AdminClient,
    command_token,
    secret,
)
from engine_server.cli.admin.nodes import drain_node, list_nodes, move_table
from engine_server.cli.admin.parser import configure
from engine_server.cli.admin.sessions import list_sessions
from engine_server.cli.admin.tables import (
    cancel_hand,
    list_tables,
    remove_player,
    rotate_seed,
    show_table,
    status_change,
)
from engine_server.cli.room import gone_note, room_address

__all__ = ["configure", "run"]


def run(args: argparse.Namespace) -> int:
    env = os.environ
    if args.action == "token":
        from engine_server.auth import Scope, mint_token

        print(mint_token(secret(env), args.subject, [Scope(args.scope)], ttl_seconds=args.ttl))
        return 0

    import grpc
    from stud.v1 import admin_service_pb2_grpc

    address = args.engine or env.get("STUD_ENGINE_ADDRESS") or room_address("grpc")
    # Why the default, when a stud run that is gone left its addresses here.
    note = "" if address else gone_note("grpc")
    address = address or DEFAULT_ENGINE
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise CliError(f"--engine: expected HOST:PORT, got {address!r}")
    token = args.token or env.get("STUD_ADMIN_TOKEN") or command_token(env)
    timeout = args.timeout or (None if args.action in ("drain", "move") else DEFAULT_TIMEOUT)
    with grpc.insecure_channel(address) as channel:
        client = AdminClient(
            admin_service_pb2_grpc.AdminServiceStub(channel), token, timeout, address, note
        )
        ACTIONS[args.action](client, args)
    return 0


ACTIONS: dict[str, Callable[[AdminClient, argparse.Namespace], None]] = {
    "tables": list_tables,
    "table": show_table,
    "pause": status_change("PauseTable", "PauseTableRequest"),
    "resume": status_change("ResumeTable", "ResumeTableRequest"),
    "close": status_change("CloseTable", "CloseTableRequest"),
    "cancel-hand": cancel_hand,
    "remove": remove_player,
    "rotate-seed": rotate_seed,
    "drain": drain_node,
    "move": move_table,
    "sessions": list_sessions,
    "nodes": list_nodes,
}
