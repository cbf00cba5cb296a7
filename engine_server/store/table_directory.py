"""The ``TableDirectory`` port over the stores: one node's tables — created, loaded, listed,
recovered after a crash, taken over and handed over.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from engine_server.store.node_writes import NodeWrites
from engine_server.store.ownership import Takeover
from engine_server.store.recovery import (
    RECOVERY_REASON,
    Recovered,
    cancelled_last_hand,
    recovered,
)
from engine_server.store.tables import OpeningSeat, OpenTable
from engine_server.store.translation import other_node, translated
from engine_server.store.values import (
    seat_state,
    seed_pair_of,
    session_snapshot,
    table_config,
    tournament_state,
)
from engine_server.table.errors import TableError
from engine_server.table.manager import LoadedTable, TableSpec
from engine_server.table.model import (
    LastHand,
    SessionSnapshot,
    TableStatus,
)
from engine_server.table.ports import (
    HandRecord,
    Placement,
)

__all__ = ["TableDirectoryAdapter"]

log = logging.getLogger("stud.store")


class TableDirectoryAdapter(NodeWrites):
    """The tables of one node (``node_id``): it creates them as that node's, and loads,
    recovers and lists only that node's."""

    # -- TableDirectory

    async def create_table(self, spec: TableSpec) -> tuple[LoadedTable, bool]:
        c = spec.config
        overrides = dict(c.rule_overrides)
        async with self._writes, translated(), other_node(c.table_id):
            opened = await self.store.tables.create_open_table(
                node_id=self.node_id,
                request_id=spec.request_id,
                table_id=c.table_id,
                profile=c.settings.name,
                ante=c.stakes.ante,
                bring_in=c.stakes.bring_in,
                small_bet=c.stakes.small_bet,
                big_bet=c.stakes.big_bet,
                min_buy_in=c.min_buy_in,
                max_buy_in=c.max_buy_in,
                client_seed=spec.client_seed,
                rule_overrides=overrides,
                private=c.private,
                opener_player_id=c.opener_player_id,
                labels=c.labels,
                tournament_id=None if c.tournament is None else c.tournament.tournament_id,
                tournament=None
                if c.tournament is None
                else {
                    "table_name": c.tournament.table_name,
                    "table_number": c.tournament.table_number,
                },
                opener=None
                if spec.opener is None
                else OpeningSeat(
                    seat_session_id=spec.opener.session_id,
                    player_id=spec.opener.player_id,
                    display_name=spec.opener.display_name,
                    buy_in=spec.opener.buy_in,
                ),
            )
        row = opened.table
        self._hold(row.id, row.owner_epoch)
        # Everything from the write's own transaction: no read after it (issue 16).
        return (
            LoadedTable(
                config=table_config(row),
                seed=seed_pair_of(opened.current_pair, opened.next_pair),
                status=TableStatus(row.status),
                hands_started=row.hands_started,
                button=row.button_seat,
                seats=[seat_state(session, frozenset()) for session in opened.sessions],
                **tournament_state(row),
            ),
            True,
        )

    async def open_tables(self) -> list[LoadedTable]:
        tables = await self.store.tables.open_tables(self.node_id)
        for item in tables:
            self._hold(item.table.id, item.table.owner_epoch)
        return self._loaded(tables, self._take_ended(None))

    async def closed_table_ids(self) -> list[str]:
        return await self.store.tables.closed_table_ids(self.node_id)

    async def table_owner(self, table_id: str) -> str | None:
        return await self.store.tables.table_owner(table_id)

    async def load_tables(self, table_ids: list[str]) -> list[LoadedTable]:
        return self._loaded(await self.store.tables.load_tables(table_ids))

    def _take_ended(self, table_ids: Collection[str] | None) -> dict[str, LastHand]:
        """The hands recovery ended (:meth:`_recover`) at these tables (None: every table),
        forgotten here: each goes to its table as it is loaded."""
        ended = self._ended_on_load
        if table_ids is None:
            taken = dict(ended)
            ended.clear()
            return taken
        return {t: ended.pop(t) for t in table_ids if t in ended}

    @staticmethod
    def _loaded(
        tables: list[OpenTable], ended: dict[str, LastHand] | None = None
    ) -> list[LoadedTable]:
        ended = ended or {}
        loaded = []
        for item in tables:
            row = item.table
            loaded.append(
                LoadedTable(
                    config=table_config(row),
                    seed=seed_pair_of(item.current_pair, item.next_pair),
                    status=TableStatus(row.status),
                    hands_started=row.hands_started,
                    button=row.button_seat,
                    seats=[seat_state(s, item.removed, item.moves) for s in item.sessions],
                    **tournament_state(row),
                    ended_on_load=ended.get(row.id),
                )
            )
        return loaded

    async def recover_running_hands(self) -> int:
        """End the hands a previous engine left running, each with its trail for the audit.

        Every action a player was told was accepted was stored before (``record_actions``):
        the deal is rebuilt from the hand's seed pair, nonce, button and start stacks (the
        same deck and dealing as the live hand's) and those actions are taken on it again,
        which deals the streets they reached; its cards, actions and PHH are the hand's
        record. A hand they do not end is cancelled: nothing is won and no chip moves. A hand
        they end (the engine stopped between its last action's write and its end's) is
        settled as the engine would have: finished, the pots to their winners. Returns how
        many hands it ended.
        """
        return await self._recover(None)

    async def _recover(self, table_ids: list[str] | None) -> int:
        """End the running hands of this node's tables (``table_ids``: of those only): settled
        where their stored actions had ended them, else cancelled. Returns how many."""
        hands = await self.store.hands.running_hands(self.node_id, table_ids=table_ids)
        # All their actions and their players' names in two reads, not one per hand and one
        # per player: a takeover recovers hundreds of hands while the node's own tables wait
        # on the same pool. Each hand is then ended in a short write of its own, the queue of
        # writes (SQLite's one writer) taken for that write only, so the node's own tables'
        # writes go in between.
        trails = await self.store.hand_actions.actions_of_hands(r.hand.id for r in hands)
        shown = await self.store.sessions.display_names(
            [p.seat_session_id for r in hands for p in r.players]
        )
        ended = 0
        for running in hands:
            try:
                # a seat session gone (KeyError) spoils the trail: cancelled below
                names = {p.seat: shown[p.seat_session_id] for p in running.players}
                ending = recovered(running, trails[running.hand.id], names)
            except Exception:
                # The chips matter more than the trail: cancel it all the same.
                log.exception("hand %s: its trail could not be rebuilt", running.hand.id)
                ending = Recovered(
                    HandRecord([], [], [], 0, {"cancelled": True, "pots": [], "rake": 0}, None),
                    cancelled_last_hand(running, {}),
                )
            record = ending.record
            if ending.final_stacks is not None:
                async with self._writes:
                    await self.store.hands.finish_hand(
                        running.hand.id,
                        cards=record.cards,
                        actions=record.actions,
                        pots=record.pots,
                        rake=record.rake,
                        result=record.result,
                        phh=record.phh,
                        final_stacks=ending.final_stacks,
                        close_sessions=ending.closed,
                    )
                log.warning(
                    "hand %s of table %s: its stored actions had ended it before the engine "
                    "stopped; settled as finished",
                    running.hand.id,
                    running.table.id,
                    extra={"table": running.table.id, "hand": running.hand.hand_number},
                )
                self._ended_on_load[running.table.id] = ending.last
                ended += 1
                continue
            async with self._writes:
                await self.store.hands.cancel_hand(
                    running.hand.id,
                    RECOVERY_REASON,
                    cards=record.cards,
                    actions=record.actions,
                    result=record.result,
                    phh=record.phh,
                )
            self._ended_on_load[running.table.id] = ending.last
            ended += 1
        # Any hand started meanwhile by another engine on this database (none on start-up).
        async with self._writes:
            ended += len(
                await self.store.hands.recover_running_hands(
                    RECOVERY_REASON, node_id=self.node_id, table_ids=table_ids
                )
            )
        return ended

    # -- tables changing hands (engine_server.store.ownership)

    async def take_over_expired(self) -> list[Takeover]:
        """Retire the nodes whose lease ran out and spread their tables over the live nodes
        (this one included); each node then adopts its share (:meth:`adopt_tables`)."""
        async with self._writes:
            return await self.store.owners.take_over_expired(
                self.node_id, now=self.store.tx.clock()
            )

    async def tables_to_adopt(self, known: Collection[str]) -> list[str]:
        """This node's open tables not among ``known`` (given to it by a takeover or a move),
        oldest id first."""
        assigned = await self.store.owners.assigned(self.node_id)
        return sorted(set(assigned) - set(known))

    async def adopt_tables(self, table_ids: list[str]) -> list[LoadedTable]:
        """Load tables given to this node as after a crash: the hand their last owner left
        running cancelled (every chip back, its nonce used), a shutdown's hold lifted, a
        pausing table paused; seated players keep their seats. Tables no longer this node's
        are left out."""
        assigned = await self.store.owners.assigned(self.node_id)
        ids = [t for t in table_ids if t in assigned]
        if not ids:
            return []
        for table_id in ids:
            self._hold(table_id, assigned[table_id])
        await self._recover(ids)
        async with self._writes:
            await self.store.tables.settle_statuses_on_start(self.node_id, table_ids=ids)
        tables = [
            item
            for item in await self.store.tables.load_tables(ids)
            if item.table.node_id == self.node_id
            and item.table.owner_epoch == assigned[item.table.id]
        ]
        for table_id in set(ids) - {item.table.id for item in tables}:
            self._release(table_id)
        return self._loaded(tables, self._take_ended(ids))

    async def hand_over(self, table_id: str, to_node: str) -> None:
        """Give the table (between hands) to live node ``to_node``."""
        try:
            async with self._writes, translated(), self._owned():
                await self.store.owners.hand_over(table_id, to_node, now=self.store.tx.clock())
        except TableError as error:
            if error.reason == "INVALID_ARGUMENT":  # NodeNotLive: the node asked for
                raise TableError.invalid(error.reason, error.message, field="node") from None
            raise
        self._release(table_id)

    async def least_loaded_node(self) -> str | None:
        """The live node but this one a table of this node should go to (the least loaded:
        seated players, then open tables); None when no other node is live."""
        return await self.store.owners.least_loaded_node(
            now=self.store.tx.clock(), exclude=self.node_id
        )

    async def node_addresses(self, node_id: str) -> tuple[str, str] | None:
        """The players' gRPC address and gRPC-Web URL node ``node_id`` advertises."""
        row = await self.registry.get(node_id)
        return None if row is None else (row.grpc_address, row.web_url)

    async def settle_statuses_on_start(self) -> tuple[list[str], list[str]]:
        """Once running hands are cancelled: tables a stopped node's drain held deal again,
        tables left pausing are paused. Returns (resumed, paused) table ids."""
        async with self._writes:
            settled = await self.store.tables.settle_statuses_on_start(self.node_id)
        return settled.resumed, settled.paused

    async def list_tables(
        self,
        page_size: int,
        page_token: str,
        statuses: list[TableStatus],
        include_private: bool,
        labels: dict[str, str] | None = None,
        all_nodes: bool = False,
    ) -> tuple[list[str], str]:
        async with translated():
            page = await self.store.tables.list_tables(
                page_size=page_size,
                page_token=page_token,
                statuses=[str(s) for s in statuses] or None,
                include_private=include_private,
                labels=labels or None,
                node_id=None if all_nodes else self.node_id,
            )
        return [row.id for row in page.items], page.next_page_token

    async def placements(self, table_ids: list[str]) -> dict[str, Placement]:
        owners = await self.store.owners.owners(table_ids)
        live = {n.id for n in await self.registry.listing(self.store.tx.clock()) if n.live}
        return {
            table_id: Placement(node, node in live, epoch)
            for table_id, (node, epoch) in owners.items()
        }

    async def list_sessions(
        self, table_id: str | None, states: list[str], page_size: int, page_token: str
    ) -> tuple[list[SessionSnapshot], str]:
        wanted = [s.removeprefix("SEAT_SESSION_STATE_").lower() for s in states] or None
        async with translated():
            page = await self.store.sessions.list_sessions(
                table_id, wanted, page_size=page_size, page_token=page_token
            )
        return [session_snapshot(row) for row in page.items], page.next_page_token
