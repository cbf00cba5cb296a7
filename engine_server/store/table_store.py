"""The ``TableStore`` port over the stores: each write a live table makes (hands, actions,
seats, chips, status, seeds), refusals translated, queued on SQLite.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from engine_server.store.action_batch import ActionBatcher
from engine_server.store.hand_actions import HandAction, Pruned
from engine_server.store.hands import HandSeat
from engine_server.store.models import DEFAULT_NODE_ID
from engine_server.store.node_writes import NodeWrites
from engine_server.store.repository import EngineStore
from engine_server.store.translation import reused, translated
from engine_server.store.values import (
    destination_of,
    move_of,
    revealed_pair,
    seed_pair_of,
    session_snapshot,
)
from engine_server.table.model import (
    DrainHold,
    Removal,
    SeedPair,
    SessionSnapshot,
    TableStatus,
)
from engine_server.table.ports import (
    HandRecord,
    MoveOrder,
    RecordedMove,
    RevealedPair,
    StartedHand,
)

__all__ = ["TableStoreAdapter"]


class TableStoreAdapter(NodeWrites):
    """The writes of a node's live tables."""

    def __init__(
        self, store: EngineStore, *, one_writer: bool = False, node_id: str = DEFAULT_NODE_ID
    ) -> None:
        super().__init__(store, one_writer=one_writer, node_id=node_id)
        #: the actions every table of the node took in one turn of the loop, one write
        self.actions = ActionBatcher(self._write_actions)

    # -- TableStore

    async def start_hand(
        self,
        table_id: str,
        hand_number: int,
        seed_pair_id: str,
        button_seat: int,
        players: list[tuple[int, str, str, int]],
        profile: str,
        settings: dict[str, Any],
    ) -> StartedHand:
        async with self._writes, self._owned():
            row = await self.store.hands.start_hand(
                table_id,
                hand_number=hand_number,
                seed_pair_id=seed_pair_id,
                button_seat=button_seat,
                players=[HandSeat(*p) for p in players],
                profile=profile,
                settings=settings,
            )
        return StartedHand(row.id, row.nonce)

    async def finish_hand(
        self,
        hand_id: str,
        record: HandRecord,
        final_stacks: dict[str, int],
        close_sessions: list[tuple[str, str]],
        button_seat: int,
    ) -> None:
        async with self._writes, self._owned():
            await self.store.hands.finish_hand(
                hand_id,
                cards=record.cards,
                actions=record.actions,
                pots=record.pots,
                rake=record.rake,
                result=record.result,
                phh=record.phh,
                final_stacks=final_stacks,
                close_sessions=close_sessions,
                button_seat=button_seat,
            )

    async def record_actions(
        self, hand_id: str, first_seq: int, actions: list[dict[str, Any]]
    ) -> None:
        await self.actions.record(
            [HandAction(hand_id, first_seq + n, a) for n, a in enumerate(actions)]
        )

    async def prune_actions(self, kept_seconds: float, *, batch: int = 500) -> Pruned:
        """Delete the stored actions of the hands that ended more than ``kept_seconds`` ago
        (their rows hold their whole trail), ``batch`` hands per transaction, queued with the
        tables' writes. Returns how many hands' actions it deleted, and how many rows."""
        ended_before = self.store.tx.clock() - timedelta(seconds=kept_seconds)
        pruned = Pruned()
        while True:
            async with self._writes:
                done = await self.store.hand_actions.prune(ended_before, hands=batch)
            pruned = Pruned(pruned.hands + done.hands, pruned.rows + done.rows)
            if done.hands < batch:
                return pruned
            await asyncio.sleep(0)  # the tables' writes go between two batches

    async def _write_actions(self, batch: list[HandAction]) -> None:
        async with self._writes, translated():
            await self.store.hand_actions.record(batch)

    async def cancel_hand(
        self, hand_id: str, reason: str, record: HandRecord | None = None
    ) -> None:
        async with self._writes, self._owned():
            if record is None:
                await self.store.hands.cancel_hand(hand_id, reason)
                return
            await self.store.hands.cancel_hand(
                hand_id,
                reason,
                cards=record.cards,
                actions=record.actions,
                result=record.result,
                phh=record.phh,
            )

    async def seat_player(
        self,
        table_id: str,
        session_id: str,
        player_id: str,
        display_name: str,
        seat: int,
        buy_in: int,
    ) -> SessionSnapshot:
        async with self._writes, translated(), self._owned():
            row = await self.store.sessions.seat_player(
                table_id,
                session_id,
                player_id=player_id,
                display_name=display_name,
                seat=seat,
                buy_in=buy_in,
            )
        return session_snapshot(row)

    async def add_chips(self, session_id: str, request_id: str, amount: int) -> SessionSnapshot:
        async with self._writes, translated(), reused("request_id"), self._owned():
            return session_snapshot(
                await self.store.sessions.add_chips(session_id, request_id, amount)
            )

    async def chip_addition(
        self, session_id: str, request_id: str, amount: int
    ) -> SessionSnapshot | None:
        async with translated(), reused("request_id"):
            row = await self.store.sessions.chip_addition(session_id, request_id, amount)
        return None if row is None else session_snapshot(row)

    async def removal(self, session_id: str) -> tuple[Removal, SessionSnapshot] | None:
        async with translated():
            record = await self.store.sessions.removal(session_id)
            if record is None:
                return None
            row = await self.store.sessions.get_session(session_id)
        return Removal(record.reason, record.by_player), SessionSnapshot(
            session_id=row.id,
            table_id=row.table_id,
            player_id=row.player_id,
            seat=row.seat,
            chips_in=record.chips_in,
            stack=record.stack,
            open=record.state != "closed",
            close_reason=record.close_reason,
            closing=record.state == "closing",
            display_name=row.display_name,
        )

    async def record_removal(
        self, session_id: str, removal: Removal, answer: SessionSnapshot
    ) -> None:
        state = "closed" if not answer.open else "closing" if answer.closing else "open"
        async with self._writes, translated(), reused("reason"), self._owned():
            await self.store.sessions.record_removal(
                session_id,
                removal.reason,
                state=state,
                chips_in=answer.chips_in,
                stack=answer.stack,
                close_reason=answer.close_reason,
                by_player=removal.by_player,
            )

    async def mark_closing(
        self, session_id: str, removal: Removal | None = None, move: MoveOrder | None = None
    ) -> SessionSnapshot:
        field = "request_id" if move is not None else "reason"
        async with self._writes, translated(), reused(field), self._owned():
            return session_snapshot(
                await self.store.sessions.mark_closing(
                    session_id,
                    removal=None if removal is None else removal.reason,
                    by_player=removal is not None and removal.by_player,
                    move=move_of(move),
                )
            )

    async def close_session(
        self,
        session_id: str,
        final_stack: int,
        reason: str,
        removal: Removal | None = None,
        move: MoveOrder | None = None,
    ) -> SessionSnapshot:
        field = "request_id" if move is not None else "reason"
        async with self._writes, translated(), reused(field), self._owned():
            return session_snapshot(
                await self.store.sessions.close_session(
                    session_id,
                    final_stack,
                    reason,
                    removal=None if removal is None else removal.reason,
                    by_player=removal is not None and removal.by_player,
                    move=move_of(move),
                )
            )

    async def recorded_move(self, request_id: str) -> RecordedMove | None:
        async with translated():
            found = await self.store.sessions.move(request_id)
        if found is None:
            return None
        record, row = found
        return RecordedMove(row.id, destination_of(record.destination or {}), session_snapshot(row))

    async def update_tournament(self, table_id: str, changes: dict[str, Any]) -> None:
        async with self._writes, translated(), self._owned():
            await self.store.tables.update_tournament(table_id, changes)

    async def set_table_status(
        self, table_id: str, status: TableStatus, drain_hold: DrainHold | None = None
    ) -> None:
        async with self._writes, translated(), self._owned():
            await self.store.tables.set_table_status(
                table_id, str(status), None if drain_hold is None else str(drain_hold)
            )

    async def rotate_seed(
        self, table_id: str, client_seed: str | None
    ) -> tuple[RevealedPair, SeedPair]:
        async with self._writes, translated(), self._owned():
            rotation = await self.store.seeds.rotate_seed(table_id, client_seed)
        return revealed_pair(rotation.revealed), seed_pair_of(rotation.current, rotation.next)

    async def close_table(self, table_id: str) -> tuple[list[SessionSnapshot], RevealedPair]:
        async with self._writes, translated(), self._owned():
            closure = await self.store.tables.close_table(table_id)
        return [session_snapshot(s) for s in closure.closed_sessions], revealed_pair(
            closure.revealed
        )
