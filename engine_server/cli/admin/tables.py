"""``stud admin`` on tables: list, show (audited), pause, resume, close, cancel a hand, remove a
player, rotate the seed.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from engine_server.cli.admin.client import AdminClient, table_name
from engine_server.cli.admin.output import (
    columns,
    count,
    enum_name,
    more,
    pages,
    player,
    print_json,
    sessions_columns,
    stakes_text,
)

__all__ = [
    "cancel_hand",
    "list_tables",
    "remove_player",
    "rotate_seed",
    "show_table",
    "status_change",
]


def list_tables(client: AdminClient, args: argparse.Namespace) -> None:
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
    answer = pages(client, "ListTables", request, "tables", args.all_pages)
    if args.json:
        print_json(answer)
        return
    if not answer.tables:
        print("no tables")
    else:
        nodes = ("NODE",) if args.all_nodes else ()
        print(
            columns(
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
                        enum_name(table_pb2.TableStatus, t.status),
                        t.settings.profile + (" (private)" if t.settings.private else ""),
                        stakes_text(t.settings.stakes),
                        f"{len(t.seats)}/{t.settings.rules.max_players}",
                        str(t.hand_number),
                        "yes" if t.hand_in_progress else "no",
                        ",".join(f"{k}={v}" for k, v in sorted(t.labels.items())) or "-",
                        ", ".join(player(s) for s in t.seats) or "-",
                    )
                    for t in answer.tables
                ),
            )
        )
    more(answer.next_page_token)


def _placed(placement: Any) -> str:
    """A table's node in ``tables --all-nodes``: its id, marked when that node is not live."""
    if placement is None:
        return "-"
    return placement.node + ("" if placement.node_live else " (down)")


def show_table(client: AdminClient, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2, settings_pb2, table_pb2

    answer = client(
        "GetTable",
        admin_service_pb2.GetTableRequest(name=table_name(args.name), reason=args.reason),
    )
    if args.json:
        print_json(answer)
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
            f" (running: {enum_name(settings_pb2.Street, snap.street)}, pot {snap.pot_total}, "
            f"turn seat {snap.turn_seat or '-'})"
        )
    elif t.hand_number:
        hand += " (over)"
    settings = t.settings
    facts = [
        ("table", t.name),
        ("status", enum_name(table_pb2.TableStatus, t.status)),
        (
            "profile",
            f"{settings.profile}, stakes {stakes_text(settings.stakes)}, "
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
            f"{count(t.seed.hands_dealt, 'hand')} dealt)",
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
            level += f" (level {state.next_level}, {stakes_text(state.next_stakes)}, next hand)"
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
        columns(
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
                    player(s),
                    s.seat_session_id,
                    str(s.stack),
                    str(s.bet_this_street),
                    str(s.total_bet),
                    enum_name(table_pb2.SeatStatus, s.status),
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


def status_change(
    method: str, request_type: str
) -> Callable[[AdminClient, argparse.Namespace], None]:
    def change(client: AdminClient, args: argparse.Namespace) -> None:
        from stud.v1 import admin_service_pb2, table_pb2

        fields: dict[str, Any] = {"name": table_name(args.name)}
        if hasattr(args, "reason"):
            fields["reason"] = args.reason
        answer = client(method, getattr(admin_service_pb2, request_type)(**fields))
        if args.json:
            print_json(answer)
            return
        t = answer.table
        running = f", hand {t.hand_number} running" if t.hand_in_progress else ""
        print(f"{t.name}: {enum_name(table_pb2.TableStatus, t.status)}{running}")
        sessions = getattr(answer, "sessions", ())
        if sessions:
            print(sessions_columns(sessions))

    return change


def cancel_hand(client: AdminClient, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2

    answer = client(
        "CancelHand",
        admin_service_pb2.CancelHandRequest(
            name=table_name(args.name), hand_number=args.hand, reason=args.reason
        ),
    )
    if args.json:
        print_json(answer)
        return
    result = answer.result
    print(f"{table_name(args.name)}: hand {result.hand_number} cancelled, every chip returned")
    seats = sorted(set(result.final_stacks) | set(result.returned))
    print(
        columns(
            ("SEAT", "RETURNED", "STACK"),
            (
                (str(n), str(result.returned.get(n, 0)), str(result.final_stacks.get(n, "")))
                for n in seats
            ),
        )
    )


def remove_player(client: AdminClient, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2

    answer = client(
        "RemovePlayer",
        admin_service_pb2.RemovePlayerRequest(
            table=table_name(args.name),
            seat_session_id=args.seat_session_id,
            reason=args.reason,
            by_player=args.by_player,
        ),
    )
    if args.json:
        print_json(answer)
        return
    print(sessions_columns([answer.session]))


def rotate_seed(client: AdminClient, args: argparse.Namespace) -> None:
    from stud.v1 import admin_service_pb2

    answer = client(
        "RotateSeed",
        admin_service_pb2.RotateSeedRequest(
            name=table_name(args.name), client_seed=args.client_seed
        ),
    )
    if args.json:
        print_json(answer)
        return
    old, new = answer.revealed, answer.current
    facts = (
        ("revealed", f"dealer seed {old.dealer_seed}"),
        (
            "",
            f"commitment {old.commitment}, client seed {old.client_seed}, "
            f"{count(old.hands_dealt, 'hand')} dealt",
        ),
        ("now dealing", f"commitment {new.commitment}, client seed {new.client_seed}"),
        ("next", f"commitment {answer.next_commitment}"),
    )
    for key, value in facts:
        print(f"{key.ljust(11)}  {value}")
