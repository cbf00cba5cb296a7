"""How ``stud admin`` prints answers: aligned columns, or proto3 JSON with ``--json``."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any

from engine_server.cli.admin.client import AdminClient

__all__ = [
    "columns",
    "count",
    "enum_name",
    "more",
    "pages",
    "player",
    "print_json",
    "sessions_columns",
    "stakes_text",
]


def pages(client: AdminClient, method: str, request: Any, field: str, every: bool) -> Any:
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


def more(token: str) -> None:
    if token:
        print(f"more: --page-token {token} (or --all-pages)", file=sys.stderr)


def print_json(message: Any) -> None:
    from google.protobuf import json_format

    print(
        json_format.MessageToJson(
            message, always_print_fields_with_no_presence=True, indent=2, sort_keys=False
        )
    )


def sessions_columns(sessions: Iterable[Any]) -> str:
    from stud.v1 import table_pb2

    return columns(
        ("SESSION", "TABLE", "PLAYER", "SEAT", "STATE", "CHIPS IN", "STACK", "CLOSED BECAUSE"),
        (
            (
                s.seat_session_id,
                s.table.removeprefix("tables/"),
                player(s),
                str(s.seat),
                enum_name(table_pb2.SeatSessionState, s.state),
                str(s.chips_in),
                str(s.stack),
                enum_name(table_pb2.SeatSessionCloseReason, s.close_reason)
                if s.close_reason
                else "-",
            )
            for s in sessions
        ),
    )


def player(seat_or_session: Any) -> str:
    """``username (player id)``: the name the lobby seated him under, beside the id ops
    look him up by; the id alone when no other name was given."""
    name, player_id = seat_or_session.display_name, seat_or_session.player_id
    return f"{name} ({player_id})" if name and name != player_id else player_id


def enum_name(enum: Any, value: int) -> str:
    """``TABLE_STATUS_PAUSED`` -> ``PAUSED``."""
    name: str = enum.Name(value)
    prefix = "".join(
        f"_{c}" if c.isupper() and i else c for i, c in enumerate(enum.DESCRIPTOR.name)
    ).upper()
    return name.removeprefix(prefix + "_")


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def stakes_text(stakes: Any) -> str:
    return f"{stakes.ante}/{stakes.bring_in}/{stakes.small_bet}/{stakes.big_bet}"


def columns(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """Rows under their headers, each column as wide as its widest cell."""
    table = [list(headers), *(list(r) for r in rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(headers))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in table
    )
