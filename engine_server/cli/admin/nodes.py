"""``stud admin`` on engine nodes: drain this node, move a table, list the nodes."""

from __future__ import annotations

import argparse

from engine_server.cli.admin.client import AdminClient, table_name
from engine_server.cli.admin.output import (
    columns,
    count,
    enum_name,
    print_json,
)

__all__ = ["drain_node", "list_nodes", "move_table"]


def drain_node(client: AdminClient, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2

    answer = client("Drain", admin_service_pb2.DrainRequest(move_tables=args.move))
    if args.json:
        print_json(answer)
        return
    if args.move:
        left = answer.tables - answer.tables_moved
        print(
            f"drained: {count(answer.tables_moved, 'table')} moved to other nodes, "
            f"{count(left, 'table')} left here paused; "
            f"{count(answer.hands_finished, 'running hand')} finished first"
        )
        return
    print(
        f"drained: {count(answer.tables, 'table')} on this node, "
        f"{count(answer.hands_finished, 'running hand')} finished; no new hand starts"
        " (the tables stay paused after a restart: `stud admin resume NAME`)"
    )


def move_table(client: AdminClient, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2

    answer = client(
        "MoveTable", admin_service_pb2.MoveTableRequest(name=table_name(args.name), node=args.node)
    )
    if args.json:
        print_json(answer)
        return
    waited = " (after its running hand)" if answer.waited_for_hand else ""
    print(
        f"{table_name(args.name)}: moved to engine node {answer.node}{waited}; players:"
        f" {answer.grpc_address}, browsers: {answer.web_url}"
    )


def list_nodes(client: AdminClient, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2

    answer = client("ListNodes", admin_service_pb2.ListNodesRequest())
    if args.json:
        print_json(answer)
        return
    if not answer.nodes:
        print(f"no node registry on {answer.answered_by or 'this engine'}'s database")
        return
    print(
        columns(
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
                    enum_name(admin_service_pb2.EngineNodeState, n.state),
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
