"""``stud admin sessions``: the seat sessions, oldest first."""

from __future__ import annotations

import argparse

from engine_server.cli.admin.client import AdminClient, table_name
from engine_server.cli.admin.output import (
    more,
    pages,
    print_json,
    sessions_columns,
)

__all__ = ["list_sessions"]


def list_sessions(client: AdminClient, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2, table_pb2

    request = admin_service_pb2.ListSeatSessionsRequest(
        table=table_name(args.table) if args.table else "",
        states=[
            table_pb2.SeatSessionState.Value(f"SEAT_SESSION_STATE_{s.upper()}")
            for s in args.state or ()
        ],
        page_size=args.page_size,
        page_token=args.page_token,
    )
    answer = pages(client, "ListSeatSessions", request, "sessions", args.all_pages)
    if args.json:
        print_json(answer)
        return
    print(sessions_columns(answer.sessions) if answer.sessions else "no seat sessions")
    more(answer.next_page_token)
