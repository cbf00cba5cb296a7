"""Rows as the table layer's values (seat sessions, seed pairs, table settings, seats), for
the adapters (:mod:`engine_server.store.adapter`).
"""

from __future__ import annotations

from typing import Any

from engine_server.game.profiles import PROFILES, ProfileError, Stakes, apply_overrides
from engine_server.store.models import SeatSessionRow, SeedPairRow, TableRow
from engine_server.store.sessions import Move
from engine_server.table.manager import normalize_overrides
from engine_server.table.model import (
    Destination,
    SeatState,
    SeedPair,
    SessionSnapshot,
    TableConfig,
    TournamentTable,
)
from engine_server.table.ports import (
    MoveOrder,
    RevealedPair,
)
from engine_server.table.rules.tournament import info_from_json, stakes_from_json

__all__ = [
    "destination_of",
    "move_of",
    "revealed_pair",
    "seat_state",
    "seed_pair_of",
    "session_snapshot",
    "table_config",
    "tournament_state",
]


def session_snapshot(row: SeatSessionRow) -> SessionSnapshot:
    return SessionSnapshot(
        session_id=row.id,
        table_id=row.table_id,
        player_id=row.player_id,
        seat=row.seat,
        chips_in=row.chips_in,
        stack=row.stack,
        open=row.state != "closed",
        close_reason=row.close_reason,
        closing=row.state == "closing",
        display_name=row.display_name,
        busted_hand_number=row.busted_hand_number or 0,
        busted_start_stack=row.busted_start_stack or 0,
    )


def destination_of(value: dict[str, str]) -> Destination:
    return Destination(
        value.get("table", ""), value.get("grpc_address", ""), value.get("web_url", "")
    )


def move_of(order: MoveOrder | None) -> Move | None:
    if order is None:
        return None
    d = order.destination
    return Move(
        order.request_id,
        {"table": d.table, "grpc_address": d.grpc_address, "web_url": d.web_url},
    )


def revealed_pair(row: SeedPairRow) -> RevealedPair:
    return RevealedPair(row.id, row.dealer_seed, row.commitment, row.client_seed, row.next_nonce)


def seed_pair_of(current: SeedPairRow, following: SeedPairRow) -> SeedPair:
    return SeedPair(
        id=current.id,
        dealer_seed=current.dealer_seed,
        commitment=current.commitment,
        client_seed=current.client_seed,
        next_nonce=current.next_nonce,
        next_commitment=following.commitment,
    )


def table_config(row: TableRow) -> TableConfig:
    overrides = normalize_overrides(dict(row.rule_overrides))
    clock = overrides.get("action_seconds")
    live_clock: float | None = None
    if isinstance(clock, float):
        live_clock = clock
        overrides.pop("action_seconds")
    try:
        settings = apply_overrides(PROFILES[row.profile], overrides)
    except (KeyError, ProfileError):
        settings = PROFILES["house"]
    stakes = Stakes(row.ante, row.bring_in, row.small_bet, row.big_bet)
    tournament = None
    if row.tournament_id is not None:
        kept = row.tournament or {}
        tournament = TournamentTable(
            row.tournament_id, str(kept.get("table_name", "")), int(kept.get("table_number", 1))
        )
        # The next hand's stakes: the level SetStakes set last, else the first level's.
        stakes = stakes_from_json(kept.get("stakes")) or stakes
    return TableConfig(
        table_id=row.id,
        settings=settings,
        stakes=stakes,
        rule_overrides=dict(row.rule_overrides),
        private=row.private,
        min_buy_in=row.min_buy_in,
        max_buy_in=row.max_buy_in,
        opener_player_id=row.opener_player_id,
        labels=dict(row.labels),
        action_seconds=live_clock or float(settings.action_seconds),
        tournament=tournament,
    )


def tournament_state(row: TableRow) -> dict[str, Any]:
    """LoadedTable's tournament fields from the row (none for a cash table)."""
    kept = row.tournament
    if row.tournament_id is None or kept is None:
        return {}
    places = kept.get("places") or {}
    return {
        "level": int(kept.get("level") or 0),
        "hand_held": bool(kept.get("hand_held")),
        "tournament_info": info_from_json(kept.get("info")),
        "places": {pid: (int(v[0]), int(v[1])) for pid, v in places.items()},
    }


def seat_state(
    row: SeatSessionRow, removed: frozenset[str], moves: dict[str, dict[str, str]] | None = None
) -> SeatState:
    move = (moves or {}).get(row.id)
    return SeatState(
        seat=row.seat,
        player_id=row.player_id,
        display_name=row.display_name,
        session_id=row.id,
        stack=row.stack,
        chips_in=row.chips_in,
        sitting_out=row.stack == 0,
        leaving=row.state == "closing",
        leave_reason="moved" if move else "removed" if row.id in removed else "left",
        move_to=destination_of(move) if move else None,
    )
