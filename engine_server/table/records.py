"""A hand's record as the store keeps it: its trail, result and PHH text.

The trail itself (every card dealt, every action) is the hand's own:
:func:`engine_server.game.replay.hand_trail`.
"""

from __future__ import annotations

import logging
from typing import Any

from engine_server.game.hand import Hand, Phase
from engine_server.game.replay import hand_trail, result_to_json
from engine_server.table.ports import HandRecord
from engine_server.table.state import TableState

__all__ = ["hand_record"]

log = logging.getLogger("stud.table")


def hand_record(state: TableState, hand: Hand) -> HandRecord:
    """The record of ``hand``, the table's running hand, finished or cancelled."""
    from engine_server.game.phh import export_phh

    cards, actions = hand_trail(hand)
    if hand.phase is Phase.CANCELLED:
        # Nothing was won: what each seat had put in went back (kept for the audit).
        returned = {str(n): c for n, c in sorted(state.cancel_returned.items())}
        result: dict[str, Any] = {"cancelled": True, "pots": [], "rake": 0}
        result["returned"] = returned
    else:
        result = result_to_json(hand.result(), hi_lo=state.config.settings.hi_lo)
    names = {n: s.display_name for n, s in state.hand_seats.items()}
    try:
        phh = export_phh(
            hand, table=state.config.name, hand_number=state.hand_number, players=names
        )
    except Exception:
        log.exception(
            "table %s: PHH export failed",
            state.table_id,
            extra={"table": state.table_id, "hand": state.hand_number},
        )
        phh = None
    return HandRecord(
        cards=cards,
        actions=actions,
        pots=result["pots"],
        rake=result["rake"],
        result=result,
        phh=phh,
    )
