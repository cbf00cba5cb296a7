"""The table runtime's persistence ports over the aggregates' stores (:class:`EngineStore`).

:class:`StoreTables` turns rows into the runtime's values and store refusals
into :class:`~engine_server.table.errors.TableError` with the same reasons, and queues
the writes on SQLite.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from contextlib import asynccontextmanager
from typing import Any

from engine_server.game.actions import ActionRefused
from engine_server.game.fairness import deck_stream
from engine_server.game.hand import Hand
from engine_server.game.phh import export_phh
from engine_server.game.profiles import PROFILES, ProfileError, Stakes, apply_overrides
from engine_server.game.replay import hand_trail, replay_actions
from engine_server.store import errors as store_errors
from engine_server.store.action_batch import ActionBatcher
from engine_server.store.database import create_engine_for, is_outage, is_sqlite
from engine_server.store.hand_actions import HandAction
from engine_server.store.hands import HandSeat, RunningHand
from engine_server.store.migrate import prepare_database
from engine_server.store.models import DEFAULT_NODE_ID, SeatSessionRow, SeedPairRow, TableRow
from engine_server.store.nodes import NodeRegistry, WriteFence
from engine_server.store.ownership import Takeover
from engine_server.store.repository import EngineStore
from engine_server.store.sessions import Move
from engine_server.store.tables import OpenTable
from engine_server.table.errors import ErrorKind, TableError
from engine_server.table.manager import LoadedTable, TableSpec, normalize_overrides
from engine_server.table.model import (
    Destination,
    DrainHold,
    Removal,
    SeatState,
    SeedPair,
    SessionSnapshot,
    TableConfig,
    TableStatus,
    TournamentTable,
)
from engine_server.table.ports import (
    HandRecord,
    MoveOrder,
    Placement,
    RecordedMove,
    RevealedPair,
    StartedHand,
)
from engine_server.table.rules.tournament import info_from_json, stakes_from_json

__all__ = ["RECOVERY_REASON", "OnTableMoved", "StoreTables", "open_store"]

log = logging.getLogger("stud.store")

#: why a hand a previous engine left running was cancelled
RECOVERY_REASON = "engine restart"

_KINDS = {
    "TABLE_NOT_FOUND": ErrorKind.NOT_FOUND,
    "SEAT_SESSION_NOT_FOUND": ErrorKind.NOT_FOUND,
    "HAND_NOT_FOUND": ErrorKind.NOT_FOUND,
    "INVALID_ARGUMENT": ErrorKind.INVALID_ARGUMENT,
    "IDEMPOTENCY_KEY_REUSED": ErrorKind.INVALID_ARGUMENT,
    "BUY_IN_OUT_OF_RANGE": ErrorKind.INVALID_ARGUMENT,
    "INVALID_SEAT": ErrorKind.INVALID_ARGUMENT,
    "INVALID_PAGE_TOKEN": ErrorKind.INVALID_ARGUMENT,
    # a write refused because another process claimed this node: it stops serving
    "TABLE_MOVED": ErrorKind.UNAVAILABLE,
}


@asynccontextmanager
async def _translated() -> AsyncIterator[None]:
    try:
        yield
    except store_errors.StoreError as error:
        reason = getattr(error, "reason", "INVALID_ARGUMENT")
        raise TableError(
            _KINDS.get(reason, ErrorKind.FAILED_PRECONDITION), reason, str(error)
        ) from None
    except Exception as error:
        if not is_outage(error):
            raise
        # The database is away: a refusal the caller may retry, not an internal error.
        text = str(error)
        raise TableError.database_unavailable(
            text.splitlines()[0] if text else type(error).__name__
        ) from None


@asynccontextmanager
async def _reused(field: str) -> AsyncIterator[None]:
    """An idempotency key reused, naming the request field that holds it."""
    try:
        yield
    except store_errors.IdempotencyKeyReused as error:
        raise TableError.invalid(
            "IDEMPOTENCY_KEY_REUSED", str(error), field=error.field or field
        ) from None


@asynccontextmanager
async def _other_node(table_id: str) -> AsyncIterator[None]:
    try:
        yield
    except store_errors.TableOnOtherNode as error:
        raise TableError.on_other_node(table_id, error.owner) from None


def _session(row: SeatSessionRow) -> SessionSnapshot:
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


def _destination(value: dict[str, str]) -> Destination:
    return Destination(
        value.get("table", ""), value.get("grpc_address", ""), value.get("web_url", "")
    )


def _move(order: MoveOrder | None) -> Move | None:
    if order is None:
        return None
    d = order.destination
    return Move(
        order.request_id,
        {"table": d.table, "grpc_address": d.grpc_address, "web_url": d.web_url},
    )


def _revealed(row: SeedPairRow) -> RevealedPair:
    return RevealedPair(row.id, row.dealer_seed, row.commitment, row.client_seed, row.next_nonce)


def _pair(current: SeedPairRow, following: SeedPairRow) -> SeedPair:
    return SeedPair(
        id=current.id,
        dealer_seed=current.dealer_seed,
        commitment=current.commitment,
        client_seed=current.client_seed,
        next_nonce=current.next_nonce,
        next_commitment=following.commitment,
    )


def _config(row: TableRow) -> TableConfig:
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


def _tournament_state(row: TableRow) -> dict[str, Any]:
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


def _seat(
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
        move_to=_destination(move) if move else None,
    )


def _rebuilt_hand(running: RunningHand) -> Hand:
    """The hand dealt again from its seed pair, nonce, button and start stacks: the same deck
    and dealing as the live hand's."""
    hand = running.hand
    config = _config(running.table)
    deck, stream = deck_stream(running.seed_pair.dealer_seed, hand.client_seed, hand.nonce)
    # The stakes the hand was dealt at (a tournament table's may have changed since).
    stakes = stakes_from_json((hand.settings or {}).get("stakes")) or config.stakes
    return Hand(
        config.settings,
        stakes,
        [(p.seat, p.start_stack) for p in running.players],
        hand.button_seat,
        deck,
        stream=stream,
    )


#: how the record of a hand cancelled on start-up was made (its result's ``trail``)
_REPLAYED = (
    "every action recorded before the engine stopped, taken again on the deal rebuilt from the"
    " seed pair and nonce when the engine restarted"
)
_DEAL_ONLY = (
    "the deal only, rebuilt from the seed pair and nonce when the engine restarted: no"
    " action after it was recorded"
)
_UNREPLAYED = (
    "the deal rebuilt from the seed pair and nonce when the engine restarted, and the actions"
    " recorded before it stopped, which did not replay on it"
)


def _recovered_record(
    running: RunningHand, recorded: list[dict[str, Any]], names: dict[int, str]
) -> HandRecord:
    """The record of a hand a crash left running: its deal, and every action stored while it
    ran (taken again on the deal, which also deals the streets they reached), cancelled."""
    hand = _rebuilt_hand(running)
    result: dict[str, Any] = {"cancelled": True, "pots": [], "rake": 0}
    try:
        replay_actions(hand, recorded)
    except (ValueError, ActionRefused):
        # Kept as stored all the same: the audit must show what players were told.
        log.exception("hand %s: its recorded actions do not replay", running.hand.id)
        cards, _ = hand_trail(_rebuilt_hand(running))
        return HandRecord(cards, recorded, [], 0, {**result, "trail": _UNREPLAYED}, None)
    if not hand.is_over:
        hand.cancel()
    cards, actions = hand_trail(hand)
    result["trail"] = _REPLAYED if recorded else _DEAL_ONLY
    try:
        phh = export_phh(
            hand,
            table=_config(running.table).name,
            hand_number=running.hand.hand_number,
            players=names,
        )
    except Exception:
        log.exception("hand %s: PHH export failed", running.hand.id)
        phh = None
    return HandRecord(cards, actions, [], 0, result, phh)


#: told when a write found its table taken over or moved: (table id, its owner now)
OnTableMoved = Callable[[str, str], None]


class StoreTables:
    """Both ports the table layer needs: ``TableStore`` (runtime) and ``TableDirectory``.

    The directory is one node's (``node_id``): the tables it creates are that node's, and it
    loads, recovers and lists only that node's tables.
    """

    def __init__(
        self, store: EngineStore, *, one_writer: bool = False, node_id: str = DEFAULT_NODE_ID
    ) -> None:
        self.store = store
        self.node_id = node_id
        #: the node registry on the same database (engine_server.node claims the node there)
        self.registry = store.nodes
        # SQLite takes one writer at a time. Left to SQLite, concurrent writers (one per table
        # starting or finishing a hand) poll its lock with growing sleeps while the holder
        # waits on this busy loop: under load the wait passed the busy timeout and writes
        # failed with "database is locked". Queued here, each starts as the last one ends.
        self._writes: contextlib.AbstractAsyncContextManager[Any] = (
            asyncio.Lock() if one_writer else contextlib.nullcontext()
        )
        #: told when a write finds its table changed hands (the manager stops serving it)
        self.on_table_moved: OnTableMoved | None = None

        #: the actions every table of the node took in one turn of the loop, one write
        self.actions = ActionBatcher(self._write_actions)

    @asynccontextmanager
    async def _owned(self) -> AsyncIterator[None]:
        """A table write: one refused because the table changed hands since it was loaded
        here (``TableMoved``) tells :attr:`on_table_moved` and becomes ``UNAVAILABLE`` /
        ``TABLE_MOVED`` naming the owner (metadata ``node``)."""
        try:
            yield
        except store_errors.TableMoved as error:
            if self.on_table_moved is not None and error.table_id:
                self.on_table_moved(error.table_id, error.owner)
            raise TableError(
                ErrorKind.UNAVAILABLE,
                "TABLE_MOVED",
                str(error),
                table=f"tables/{error.table_id}",
                node=error.owner,
            ) from None

    def fence_writes(self, epoch: int, on_stale: Callable[[str], None]) -> None:
        """Refuse every table write once the node's epoch is no longer ``epoch`` (another
        process claimed the node); ``on_stale(reason)`` at the first refusal. Each table's
        writes are refused, too, once the table changed hands since it was loaded here."""
        self.store.tx.fence = WriteFence(self.node_id, epoch, on_stale)

    def _hold(self, table_id: str, owner_epoch: int) -> None:
        fence = self.store.tx.fence
        if fence is not None:
            fence.hold(table_id, owner_epoch)

    def _release(self, table_id: str) -> None:
        fence = self.store.tx.fence
        if fence is not None:
            fence.release(table_id)

    # -- TableDirectory

    async def create_table(self, spec: TableSpec) -> tuple[LoadedTable, bool]:
        c = spec.config
        overrides = dict(c.rule_overrides)
        async with self._writes, _translated(), _other_node(c.table_id):
            row = await self.store.tables.create_table(
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
            )
            current, following = await self.store.seeds.live_seed_pairs(row.id)
        self._hold(row.id, row.owner_epoch)
        return (
            LoadedTable(
                config=_config(row),
                seed=_pair(current, following),
                status=TableStatus(row.status),
                hands_started=row.hands_started,
                button=row.button_seat,
                **_tournament_state(row),
            ),
            True,
        )

    async def open_tables(self) -> list[LoadedTable]:
        tables = await self.store.tables.open_tables(self.node_id)
        for item in tables:
            self._hold(item.table.id, item.table.owner_epoch)
        return self._loaded(tables)

    async def closed_table_ids(self) -> list[str]:
        return await self.store.tables.closed_table_ids(self.node_id)

    async def table_owner(self, table_id: str) -> str | None:
        return await self.store.tables.table_owner(table_id)

    async def load_tables(self, table_ids: list[str]) -> list[LoadedTable]:
        return self._loaded(await self.store.tables.load_tables(table_ids))

    @staticmethod
    def _loaded(tables: list[OpenTable]) -> list[LoadedTable]:
        loaded = []
        for item in tables:
            row = item.table
            loaded.append(
                LoadedTable(
                    config=_config(row),
                    seed=_pair(item.current_pair, item.next_pair),
                    status=TableStatus(row.status),
                    hands_started=row.hands_started,
                    button=row.button_seat,
                    seats=[_seat(s, item.removed, item.moves) for s in item.sessions],
                    **_tournament_state(row),
                )
            )
        return loaded

    async def recover_running_hands(self) -> int:
        """Cancel the hands a previous engine left running, each with its trail for the audit.

        Every action a player was told was accepted was stored before (``record_actions``):
        the deal is rebuilt from the hand's seed pair, nonce, button and start stacks (the
        same deck and dealing as the live hand's) and those actions are taken on it again,
        which deals the streets they reached; its cards, actions and PHH are the cancelled
        hand's record. Nothing is won and no chip moves.
        """
        return await self._recover(None)

    async def _recover(self, table_ids: list[str] | None) -> int:
        """Cancel the running hands of this node's tables (``table_ids``: of those only)."""
        cancelled = 0
        async with self._writes:
            for running in await self.store.hands.running_hands(self.node_id, table_ids=table_ids):
                try:
                    recorded = await self.store.hand_actions.actions_of(running.hand.id)
                    names = {
                        p.seat: (
                            await self.store.sessions.get_session(p.seat_session_id)
                        ).display_name
                        for p in running.players
                    }
                    record = _recovered_record(running, recorded, names)
                except Exception:
                    # The chips matter more than the trail: cancel it all the same.
                    log.exception("hand %s: its trail could not be rebuilt", running.hand.id)
                    record = HandRecord(
                        [], [], [], 0, {"cancelled": True, "pots": [], "rake": 0}, None
                    )
                await self.store.hands.cancel_hand(
                    running.hand.id,
                    RECOVERY_REASON,
                    cards=record.cards,
                    actions=record.actions,
                    result=record.result,
                    phh=record.phh,
                )
                cancelled += 1
            # Any hand started meanwhile by another engine on this database (none on start-up).
            cancelled += len(
                await self.store.hands.recover_running_hands(
                    RECOVERY_REASON, node_id=self.node_id, table_ids=table_ids
                )
            )
        return cancelled

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
        return self._loaded(tables)

    async def hand_over(self, table_id: str, to_node: str) -> None:
        """Give the table (between hands) to live node ``to_node``."""
        try:
            async with self._writes, _translated(), self._owned():
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
        async with _translated():
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
        async with _translated():
            page = await self.store.sessions.list_sessions(
                table_id, wanted, page_size=page_size, page_token=page_token
            )
        return [_session(row) for row in page.items], page.next_page_token

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

    async def _write_actions(self, batch: list[HandAction]) -> None:
        async with self._writes, _translated():
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
        async with self._writes, _translated(), self._owned():
            row = await self.store.sessions.seat_player(
                table_id,
                session_id,
                player_id=player_id,
                display_name=display_name,
                seat=seat,
                buy_in=buy_in,
            )
        return _session(row)

    async def add_chips(self, session_id: str, request_id: str, amount: int) -> SessionSnapshot:
        async with self._writes, _translated(), _reused("request_id"), self._owned():
            return _session(await self.store.sessions.add_chips(session_id, request_id, amount))

    async def chip_addition(
        self, session_id: str, request_id: str, amount: int
    ) -> SessionSnapshot | None:
        async with _translated(), _reused("request_id"):
            row = await self.store.sessions.chip_addition(session_id, request_id, amount)
        return None if row is None else _session(row)

    async def removal(self, session_id: str) -> tuple[Removal, SessionSnapshot] | None:
        async with _translated():
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
        async with self._writes, _translated(), _reused("reason"), self._owned():
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
        async with self._writes, _translated(), _reused(field), self._owned():
            return _session(
                await self.store.sessions.mark_closing(
                    session_id,
                    removal=None if removal is None else removal.reason,
                    by_player=removal is not None and removal.by_player,
                    move=_move(move),
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
        async with self._writes, _translated(), _reused(field), self._owned():
            return _session(
                await self.store.sessions.close_session(
                    session_id,
                    final_stack,
                    reason,
                    removal=None if removal is None else removal.reason,
                    by_player=removal is not None and removal.by_player,
                    move=_move(move),
                )
            )

    async def recorded_move(self, request_id: str) -> RecordedMove | None:
        async with _translated():
            found = await self.store.sessions.move(request_id)
        if found is None:
            return None
        record, row = found
        return RecordedMove(row.id, _destination(record.destination or {}), _session(row))

    async def update_tournament(self, table_id: str, changes: dict[str, Any]) -> None:
        async with self._writes, _translated(), self._owned():
            await self.store.tables.update_tournament(table_id, changes)

    async def set_table_status(
        self, table_id: str, status: TableStatus, drain_hold: DrainHold | None = None
    ) -> None:
        async with self._writes, _translated(), self._owned():
            await self.store.tables.set_table_status(
                table_id, str(status), None if drain_hold is None else str(drain_hold)
            )

    async def rotate_seed(
        self, table_id: str, client_seed: str | None
    ) -> tuple[RevealedPair, SeedPair]:
        async with self._writes, _translated(), self._owned():
            rotation = await self.store.seeds.rotate_seed(table_id, client_seed)
        return _revealed(rotation.revealed), _pair(rotation.current, rotation.next)

    async def close_table(self, table_id: str) -> tuple[list[SessionSnapshot], RevealedPair]:
        async with self._writes, _translated(), self._owned():
            closure = await self.store.tables.close_table(table_id)
        return [_session(s) for s in closure.closed_sessions], _revealed(closure.revealed)


async def open_store(
    url: str, node_id: str = DEFAULT_NODE_ID
) -> tuple[StoreTables, StoreTables, Callable[[], Awaitable[None]]]:
    """Migrate the database at ``url`` to this code's schema and open it for node
    ``node_id``.

    Raises :class:`~engine_server.store.migrate.SchemaTooNew` for a newer database.
    """
    await prepare_database(url)
    store = EngineStore(create_engine_for(url))
    tables = StoreTables(store, one_writer=is_sqlite(url), node_id=node_id)
    # The lease's renewals on connections of their own: on a busy node every pooled connection
    # can be in a table write at once, and a renewal queued behind them for a connection would
    # let the lease run out (the node would stop, and its tables be taken over).
    lease_engine = create_engine_for(url, pool_size=2, max_overflow=0)
    tables.registry = NodeRegistry(lease_engine)

    async def close() -> None:
        await store.dispose()
        await lease_engine.dispose()

    return tables, tables, close
