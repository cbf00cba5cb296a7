"""The tables one engine node owns: creating, finding, loading on start, draining.

The directory is this node's: it loads and lists only the tables this node owns
(``tables.node_id``). A table another node owns is not served here: players get
``TABLE_NOT_FOUND`` as for any table this node does not have, ops and the lobby
``TABLE_ON_OTHER_NODE`` naming the owner, so they call it there.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine_server.game.fairness import FairnessError, validate_client_seed
from engine_server.game.profiles import PROFILES, ProfileError, Stakes, apply_overrides
from engine_server.table.errors import ErrorKind, TableError
from engine_server.table.model import (
    LastHand,
    SeatState,
    SeedPair,
    SessionSnapshot,
    TableConfig,
    TableStatus,
    TournamentInfo,
    TournamentTable,
)
from engine_server.table.ports import Placement, TableStore
from engine_server.table.runtime import RuntimeHooks, TableRuntime, Timing
from engine_server.table.stalls import StallWatch

__all__ = [
    "DEFAULT_ADOPT_ROUND",
    "LoadedTable",
    "TableDirectory",
    "TableManager",
    "TableSpec",
    "TableSummary",
    "check_stakes",
    "normalize_overrides",
]

log = logging.getLogger("stud.tables")

#: engine_server.store.models.DEFAULT_NODE_ID (the table layer does not import the store)
DEFAULT_NODE_ID = "main"

TABLE_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")

#: tables adopted per round (:meth:`TableManager.adopt`; STUD_ENGINE_ADOPT_ROUND, whose
#: default engine_server.settings.DEFAULT_ADOPT_ROUND is this, not imported: the table layer
#: does not read settings): each round's tables deal again as soon as it is loaded, and the
#: node's own tables get the loop and the database between rounds, so a takeover of hundreds
#: of tables neither waits for its last table to play again nor starves the tables already
#: here
DEFAULT_ADOPT_ROUND = 25


@dataclass(frozen=True, slots=True)
class OpenerSeat:
    """The seat session a table is created with: its opener's (CreateTable's opener_seat)."""

    session_id: str
    player_id: str
    display_name: str
    buy_in: int


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A validated CreateTable request."""

    request_id: str
    config: TableConfig
    client_seed: str
    #: seated in the write that creates the table (None: nobody)
    opener: OpenerSeat | None = None


@dataclass(frozen=True, slots=True)
class LoadedTable:
    config: TableConfig
    seed: SeedPair
    status: TableStatus
    hands_started: int
    button: int | None
    seats: list[SeatState] = field(default_factory=list)
    #: a tournament table's own state (see TableRow.tournament)
    level: int = 0
    hand_held: bool = False
    tournament_info: TournamentInfo | None = None
    places: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: the hand its previous engine left running, ended as it was loaded (cancelled, or
    #: settled): the table's last hand, told to each stream opened while it is
    ended_on_load: LastHand | None = None


@dataclass(frozen=True, slots=True)
class TableSummary:
    table_id: str
    status: TableStatus


class TableDirectory(Protocol):
    async def create_table(self, spec: TableSpec) -> tuple[LoadedTable, bool]: ...

    async def open_tables(self) -> list[LoadedTable]: ...

    async def closed_table_ids(self) -> list[str]: ...

    async def load_tables(self, table_ids: list[str]) -> list[LoadedTable]: ...

    async def table_owner(self, table_id: str) -> str | None: ...

    async def recover_running_hands(self) -> int: ...

    async def settle_statuses_on_start(self) -> tuple[list[str], list[str]]: ...

    async def list_tables(
        self,
        page_size: int,
        page_token: str,
        statuses: list[TableStatus],
        include_private: bool,
        labels: dict[str, str] | None = None,
        all_nodes: bool = False,
    ) -> tuple[list[str], str]: ...

    async def placements(self, table_ids: list[str]) -> dict[str, Placement]:
        """Where each of these tables is served (its node, whether live, its owner epoch)."""
        ...

    async def list_sessions(
        self, table_id: str | None, states: list[str], page_size: int, page_token: str
    ) -> tuple[list[SessionSnapshot], str]: ...

    async def tables_to_adopt(self, known: Collection[str]) -> list[str]:
        """This node's open tables not among ``known`` (given to it since it loaded)."""
        ...

    async def adopt_tables(self, table_ids: list[str]) -> list[LoadedTable]:
        """Load tables given to this node, as after a crash (running hands cancelled)."""
        ...

    async def hand_over(self, table_id: str, to_node: str) -> None:
        """Give the table (between hands) to live node ``to_node``."""
        ...

    async def node_addresses(self, node_id: str) -> tuple[str, str] | None:
        """The players' gRPC address and gRPC-Web URL of ``node_id`` (None: no such node)."""
        ...

    async def least_loaded_node(self) -> str | None:
        """The live node but this one a table should move to (None: no other is live)."""
        ...


def normalize_overrides(value: Any) -> Any:
    """Rule overrides with every whole-number float made an int, at any depth.

    A ``google.protobuf.Struct`` (and JSON read back from the store) carries every
    number as a float, while the rules take counts as ints: ``{"max_players": 2.0}``
    or a rake schedule ``[[10.0, 1.0]]`` would otherwise be refused, or dropped.

    >>> normalize_overrides({"max_players": 2.0, "rake": {"schedule": [[10.0, 1.0]]}, "x": 0.5})
    {'max_players': 2, 'rake': {'schedule': [[10, 1]]}, 'x': 0.5}
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: normalize_overrides(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [normalize_overrides(item) for item in value]
    return value


def build_config(
    *,
    table_id: str,
    profile: str,
    overrides: dict[str, Any],
    stakes: Stakes,
    private: bool,
    min_buy_in: int,
    max_buy_in: int,
    opener_player_id: str | None,
    labels: dict[str, str],
    tournament: TournamentTable | None = None,
) -> TableConfig:
    """Check a table's settings and build its :class:`TableConfig` (raises :class:`TableError`)."""
    if not TABLE_ID.match(table_id):
        raise TableError.invalid(
            "INVALID_ARGUMENT",
            "table_id must be 1-63 characters of [a-z0-9-], starting with a letter or digit",
            field="table_id",
        )
    if profile not in PROFILES:
        raise TableError.invalid(
            "UNKNOWN_PROFILE",
            f"unknown profile {profile!r} (known: {', '.join(PROFILES)})",
            field="profile",
        )
    overrides = normalize_overrides(dict(overrides))
    clock = overrides.get("action_seconds")
    rule_overrides = dict(overrides)
    action_seconds: float | None = None
    if isinstance(clock, int | float) and not isinstance(clock, bool) and 0 < clock < 1:
        # A live table may run a sub-second clock (demos, tests); the rules keep whole seconds.
        action_seconds = float(clock)
        rule_overrides.pop("action_seconds")
    try:
        settings = apply_overrides(PROFILES[profile], rule_overrides, where="rule_overrides")
    except ProfileError as error:
        raise TableError.invalid(
            "INVALID_SETTING", str(error), field=error.field.removeprefix("rule_overrides.")
        ) from None
    for name in ("ante", "bring_in", "small_bet", "big_bet"):
        if getattr(stakes, name) < 0:
            raise TableError.invalid(
                "INVALID_ARGUMENT", f"stakes.{name} must not be negative", field=f"stakes.{name}"
            )
    if stakes.small_bet < 1 or stakes.big_bet < stakes.small_bet:
        raise TableError.invalid(
            "INVALID_ARGUMENT",
            "stakes need small_bet >= 1 and big_bet >= small_bet",
            field="stakes",
        )
    if tournament is not None:
        _check_tournament(tournament)
        if min_buy_in or max_buy_in:
            raise TableError.invalid(
                "INVALID_ARGUMENT",
                "a tournament table has no buy-in range: leave min_buy_in and max_buy_in 0",
                field="min_buy_in" if min_buy_in else "max_buy_in",
            )
    elif min_buy_in < 0 or max_buy_in < 0 or (max_buy_in and max_buy_in < min_buy_in):
        raise TableError.invalid(
            "INVALID_ARGUMENT", "the buy-in range is not valid", field="min_buy_in"
        )
    return TableConfig(
        table_id=table_id,
        settings=settings,
        stakes=stakes,
        rule_overrides=overrides,
        private=private,
        min_buy_in=min_buy_in,
        max_buy_in=max_buy_in,
        opener_player_id=opener_player_id,
        labels=labels,
        action_seconds=action_seconds or float(settings.action_seconds),
        tournament=tournament,
    )


def check_stakes(stakes: Stakes, field: str = "stakes") -> Stakes:
    """Stakes as CreateTable takes them: bring_in and big_bet 0 take the defaults of docs/rules.md §2.2
    (small_bet / 2, 2 × small_bet); refused when negative or out of order."""
    for name in ("ante", "bring_in", "small_bet", "big_bet"):
        if getattr(stakes, name) < 0:
            raise TableError.invalid(
                "INVALID_ARGUMENT", f"{field}.{name} must not be negative", field=f"{field}.{name}"
            )
    stakes = Stakes(
        stakes.ante,
        stakes.bring_in or stakes.small_bet // 2,
        stakes.small_bet,
        stakes.big_bet or 2 * stakes.small_bet,
    )
    if stakes.small_bet < 1 or stakes.big_bet < stakes.small_bet:
        raise TableError.invalid(
            "INVALID_ARGUMENT", f"{field} need small_bet >= 1 and big_bet >= small_bet", field=field
        )
    return stakes


def _check_tournament(tournament: TournamentTable) -> None:
    tid = tournament.tournament_id
    if not tid or len(tid) > 64 or not tid.isprintable():
        raise TableError.invalid(
            "INVALID_ARGUMENT",
            "tournament.tournament_id must be 1-64 printable characters",
            field="tournament.tournament_id",
        )
    if len(tournament.table_name) > 64 or not tournament.table_name.isprintable():
        raise TableError.invalid(
            "INVALID_ARGUMENT",
            "tournament.table_name must be at most 64 printable characters",
            field="tournament.table_name",
        )
    if tournament.table_number < 1:
        raise TableError.invalid(
            "INVALID_ARGUMENT",
            "tournament.table_number must be 1 or more",
            field="tournament.table_number",
        )


def check_client_seed(seed: str) -> str:
    try:
        return validate_client_seed(seed)
    except FairnessError as error:
        raise TableError.invalid("INVALID_ARGUMENT", str(error), field="client_seed") from None


class TableManager:
    """Every live table of this engine node, by id."""

    def __init__(
        self,
        directory: TableDirectory,
        store: TableStore,
        *,
        timing: Timing | None = None,
        hooks: RuntimeHooks | None = None,
        adopt_round: int = DEFAULT_ADOPT_ROUND,
    ) -> None:
        if adopt_round < 1:
            raise ValueError(f"adopt_round must be at least 1, got {adopt_round}")
        self._directory = directory
        self._store = store
        self._adopt_round_size = adopt_round
        self._timing = timing or Timing()
        self._hooks = hooks or RuntimeHooks()
        self._tables: dict[str, TableRuntime] = {}
        #: tables closed before this node started: no runtime of theirs lives here (ops' views
        #: of them are built from the store when asked for)
        self._closed: set[str] = set()
        self._lock = asyncio.Lock()
        #: tables being created here now, by id (how many requests for each): see create_table
        self._creating: dict[str, int] = {}
        self.draining = False
        #: the node's heartbeat: every table's clock gets back the time the loop was stalled
        self.stalls = StallWatch()
        #: tables this process served until they changed hands: the refusal their players get
        #: here (UNAVAILABLE / TABLE_MOVED naming the owner now)
        self._moved: dict[str, TableError] = {}
        self._losing: set[asyncio.Task[None]] = set()

    @property
    def node_id(self) -> str:
        """The node whose tables these are (the directory's)."""
        return str(getattr(self._directory, "node_id", DEFAULT_NODE_ID))

    @property
    def tables(self) -> dict[str, TableRuntime]:
        return self._tables

    async def load(self) -> None:
        """On start: cancel hands a crash left running, then bring every open table back."""
        ended = await self._directory.recover_running_hands()
        if ended:
            log.warning(
                "ended %d hand(s) left running by a previous engine (cancelled, every chip "
                "back, or settled where their stored actions had ended them)",
                ended,
            )
        resumed, paused = await self._directory.settle_statuses_on_start()
        if resumed:
            log.info("%d table(s) paused by the last node's shutdown deal again", len(resumed))
        if paused:
            log.info("%d table(s) left pausing are paused: %s", len(paused), ", ".join(paused))
        closing = []
        for loaded in await self._directory.open_tables():
            runtime = self._start(loaded)
            if loaded.status is TableStatus.CLOSING:
                closing.append(runtime)
        self._closed = set(await self._directory.closed_table_ids())
        for runtime in closing:
            # Its close waited for a hand that recovery has just cancelled: carry it out.
            log.info("table %s was closing: closed now", runtime.table_id)
            await runtime.close("closed after a restart")

    async def placements(self, table_ids: list[str]) -> dict[str, Placement]:
        """Where each of these tables is served."""
        return await self._directory.placements(table_ids)

    def _stored_runtime(self, loaded: LoadedTable) -> TableRuntime:
        """A table as stored (another node's, or closed): read only, with no task."""
        if loaded.status is TableStatus.CLOSED:
            return self._closed_runtime(loaded)
        return TableRuntime(
            loaded.config,
            loaded.seed,
            self._store,
            status=loaded.status,
            hands_started=loaded.hands_started,
            button=loaded.button,
            seats=loaded.seats,
            timing=self._timing,
            hooks=self._hooks,
        )

    def _closed_runtime(self, loaded: LoadedTable) -> TableRuntime:
        """A closed table as ops see it: its settings, revealed seed and counters, no task
        (its commands only read or refuse, and run in the caller's task)."""
        return TableRuntime(
            loaded.config,
            loaded.seed,
            self._store,
            status=TableStatus.CLOSED,
            hands_started=loaded.hands_started,
            button=loaded.button,
            timing=self._timing,
            hooks=self._hooks,
            level=loaded.level,
            hand_held=loaded.hand_held,
            tournament_info=loaded.tournament_info,
            places=loaded.places,
        )

    def _start(self, loaded: LoadedTable) -> TableRuntime:
        runtime = TableRuntime(
            loaded.config,
            loaded.seed,
            self._store,
            status=loaded.status,
            hands_started=loaded.hands_started,
            button=loaded.button,
            seats=loaded.seats,
            timing=self._timing,
            hooks=self._hooks,
            stalls=self.stalls,
            level=loaded.level,
            hand_held=loaded.hand_held,
            tournament_info=loaded.tournament_info,
            places=loaded.places,
            last_hand=loaded.ended_on_load,
        )
        runtime.draining = self.draining
        self._tables[loaded.config.table_id] = runtime
        if loaded.status is not TableStatus.CLOSED:
            self.stalls.start()
            runtime.start()
        return runtime

    async def create_table(self, spec: TableSpec) -> TableRuntime:
        table_id = spec.config.table_id
        existing = self._tables.get(table_id)
        if existing is None and self.draining:
            raise TableError.precondition("DRAINING", "this engine node is draining")
        # Creations run side by side, outside the manager's lock (the store orders their
        # writes): a burst of quick games must not queue behind one another's round trips.
        # Until it has started here, a table being created is no table handed to this node
        # for adopt() to load.
        self._creating[table_id] = self._creating.get(table_id, 0) + 1
        try:
            # The store answers a retry with the table the first request made.
            loaded, _ = await self._directory.create_table(spec)
        finally:
            if self._creating[table_id] == 1:
                del self._creating[table_id]
            else:
                self._creating[table_id] -= 1
        # No await from here on: the check and the start are one step of the loop.
        existing = self._tables.get(loaded.config.table_id)
        return existing if existing is not None else self._start(loaded)

    def get(self, table_id: str) -> TableRuntime:
        """A table players may use (TableService): ``TABLE_NOT_FOUND``, ``TABLE_CLOSED``
        (FAILED_PRECONDITION) once it has closed, whether before this node started or since,
        or ``TABLE_MOVED`` (UNAVAILABLE, naming the owner) once it went to another node."""
        runtime = self._tables.get(table_id)
        if runtime is None and table_id in self._moved:
            raise self._moved[table_id]
        if runtime is None or runtime.status is TableStatus.CLOSED:
            if runtime is not None or table_id in self._closed:
                raise TableError.precondition(
                    "TABLE_CLOSED", f"tables/{table_id} is closed", table=f"tables/{table_id}"
                )
            raise self._not_found(table_id)
        return runtime

    async def get_or_adopt(self, table_id: str) -> TableRuntime:
        """:meth:`get`, and a table handed to this node that it has not loaded yet is loaded
        now: a client following ``TABLE_MOVED`` may arrive before the next look of the
        takeover watch (a sixth of the lease), and must find its table here, not
        ``TABLE_NOT_FOUND``. Only a table unknown here costs a read (its owner)."""
        try:
            return self.get(table_id)
        except TableError as error:
            if error.reason != "TABLE_NOT_FOUND":
                raise
            try:
                owner = await self._directory.table_owner(table_id)
            except Exception:  # the database cannot say: not found here, as before
                log.warning("could not read the owner of tables/%s", table_id, exc_info=True)
                raise error from None
            if owner != self.node_id:
                raise
        await self.adopt(first=table_id)
        return self.get(table_id)

    async def find(self, table_id: str) -> TableRuntime:
        """Any table, closed ones included (AdminService): one closed before this node started
        is read from the store, as it is now (``TABLE_NOT_FOUND`` when there is none)."""
        runtime = self._tables.get(table_id)
        if runtime is not None:
            return runtime
        if table_id in self._closed:
            loaded = await self._directory.load_tables([table_id])
            if loaded:
                return self._closed_runtime(loaded[0])
        await self.check_own(table_id)
        raise self._not_found(table_id)

    async def inspect(self, table_id: str) -> tuple[TableRuntime, Placement | None, bool]:
        """Any table of the room for ops (GetTable from any node): the runtime, where it is
        served (None: its node is not recorded) and whether its live detail is here — this
        node's own table, or a closed one (nothing runs anywhere). Another node's open table
        is read from the store as it is stored (``TABLE_NOT_FOUND`` when the room has none)."""
        placed = (await self._directory.placements([table_id])).get(table_id)
        runtime = self._tables.get(table_id)
        if runtime is not None:
            return runtime, placed, True
        loaded = await self._directory.load_tables([table_id])
        if not loaded:
            raise self._not_found(table_id)
        stored = self._stored_runtime(loaded[0])
        return stored, placed, stored.status is TableStatus.CLOSED

    async def check_own(self, table_id: str) -> None:
        """Refuse a table another node owns (``TABLE_ON_OTHER_NODE``: ops and the lobby call
        the owner); a table of this node, or none at all, passes."""
        if table_id in self._tables or table_id in self._closed:
            return
        owner = await self._directory.table_owner(table_id)
        if owner is not None and owner != self.node_id:
            raise TableError.on_other_node(table_id, owner)

    @staticmethod
    def _not_found(table_id: str) -> TableError:
        return TableError.not_found(
            "TABLE_NOT_FOUND", f"no table tables/{table_id}", table=f"tables/{table_id}"
        )

    async def list_tables(
        self,
        page_size: int,
        page_token: str,
        statuses: list[TableStatus],
        include_private: bool,
        labels: dict[str, str] | None = None,
        all_nodes: bool = False,
    ) -> tuple[list[TableRuntime], str]:
        """One page of tables, newest first (``labels``: only tables carrying all of them;
        ``all_nodes``: every node's, another node's as stored, else this node's)."""
        ids, token = await self._directory.list_tables(
            page_size, page_token, statuses, include_private, labels, all_nodes
        )
        stored = [i for i in ids if i not in self._tables and (all_nodes or i in self._closed)]
        read: dict[str, TableRuntime] = {}
        if stored:
            for loaded in await self._directory.load_tables(stored):
                read[loaded.config.table_id] = self._stored_runtime(loaded)
        tables = [self._tables.get(i) or read.get(i) for i in ids]
        return [t for t in tables if t is not None], token

    async def list_sessions(
        self, table_id: str | None, states: list[str], page_size: int, page_token: str
    ) -> tuple[list[SessionSnapshot], str]:
        """Seat sessions (``states``: ``SEAT_SESSION_STATE_*`` names; empty for all)."""
        return await self._directory.list_sessions(table_id, states, page_size, page_token)

    async def drain_onto_others(self, *, kept: bool = True) -> tuple[int, int, int]:
        """Ops' Drain moving the tables away, or a clean stop handing them over: each open
        table goes, between hands, to the least loaded live node at the time; the tables no
        node can take are drained here (paused; ``kept`` as for :meth:`drain`). Returns
        (tables, hands finished, tables moved)."""
        self.draining = True
        tables = len(self._tables)
        running = sum(1 for t in self._tables.values() if t.hand_running)
        # One choice at a time: two tables ready at once must not both read the same loads.
        choosing = asyncio.Lock()

        async def away(runtime: TableRuntime) -> bool:
            runtime.draining = True
            await runtime.wait_idle()
            async with choosing:
                to_node = await self._directory.least_loaded_node()
                if to_node is None:
                    return False
                try:
                    await self.move(runtime.table_id, to_node)
                except TableError as error:
                    log.warning("table %s could not move: %s", runtime.table_id, error.message)
                    return False
            return True

        moving = [t for t in self._tables.values() if t.status is not TableStatus.CLOSED]
        moved = sum(await asyncio.gather(*(away(t) for t in moving)))
        await self.drain(kept=kept)
        return tables, running, moved

    async def drain(self, *, kept: bool = False) -> tuple[int, int]:
        """Start no new hands; wait for the running ones. Returns (tables, hands finished).

        ``kept`` (ops' Drain): the tables it pauses stay paused after a restart, until ops
        resume them; else (the node stopping: SIGTERM) the next start deals again.
        """
        self.draining = True
        running = [t for t in self._tables.values() if t.hand_running]
        for runtime in self._tables.values():
            runtime.draining = True
        # Each open table then shows it: PAUSING while its hand plays out, then PAUSED.
        shown = await asyncio.gather(
            *(t.drain(kept) for t in self._tables.values() if t.status is not TableStatus.CLOSED),
            return_exceptions=True,
        )
        for failed in shown:
            if isinstance(failed, BaseException) and not isinstance(failed, TableError):
                log.error("a table could not show the drain", exc_info=failed)
        await asyncio.gather(*(t.wait_idle() for t in running))
        return len(self._tables), len(running)

    async def shutdown(self) -> None:
        await asyncio.gather(*(t.stop() for t in self._tables.values()))
        await self.stalls.stop()

    # -------------------------------------------------- tables changing hands

    async def adopt(self, first: str | None = None) -> list[str]:
        """Load the tables given to this node since it started (taken over from a node whose
        lease ran out, or moved here): as after a crash, each table's running hand
        cancelled, every chip back. Returns their ids. ``first``: a table a client is
        waiting for, adopted in the first round."""
        async with self._lock:
            known = [*self._tables, *self._closed, *self._creating]
            wanted = await self._directory.tables_to_adopt(known)
        if first in wanted:
            wanted.remove(first)
            wanted.insert(0, first)
        adopted: list[str] = []
        size = self._adopt_round_size
        for start in range(0, len(wanted), size):
            adopted += await self._adopt_round(wanted[start : start + size])
            # Let the tables here (and the ones just started) act before the next round.
            await asyncio.sleep(0)
        if adopted:
            log.warning(
                "node %s took on %d table(s): %s", self.node_id, len(adopted), ", ".join(adopted)
            )
        return adopted

    async def _adopt_round(self, table_ids: list[str]) -> list[str]:
        """Adopt these tables (one round of :meth:`adopt`) and start them at once."""
        async with self._lock:
            # Another adopt() (get_or_adopt) may have taken some on since the list was read:
            # loading one again would cancel the hand it is dealing now.
            ids = [
                t
                for t in table_ids
                if t not in self._tables and t not in self._closed and t not in self._creating
            ]
            if not ids:
                return []
            closing = []
            adopted = []
            for loaded in await self._directory.adopt_tables(ids):
                table_id = loaded.config.table_id
                if table_id in self._tables:
                    continue
                self._moved.pop(table_id, None)
                runtime = self._start(loaded)
                adopted.append(table_id)
                if loaded.status is TableStatus.CLOSING:
                    closing.append(runtime)
        for runtime in closing:
            await runtime.close("closed after it changed hands")
        return adopted

    async def moved_error(self, table_id: str, owner: str) -> TableError:
        """UNAVAILABLE / TABLE_MOVED for a table node ``owner`` serves now, with its
        addresses (metadata ``node``, ``grpc_address``, ``web_url``)."""
        where: dict[str, str] = {"table": f"tables/{table_id}", "node": owner}
        try:
            addresses = await self._directory.node_addresses(owner)
        except Exception:  # the refusal still names the node; the lobby knows the rest
            log.exception("could not read the addresses of engine node %s", owner)
            addresses = None
        if addresses is not None:
            where["grpc_address"], where["web_url"] = addresses
        return TableError(
            ErrorKind.UNAVAILABLE,
            "TABLE_MOVED",
            f"tables/{table_id} moved to engine node {owner}: open it there",
            **where,
        )

    def table_moved(self, table_id: str, owner: str) -> None:
        """A write found the table served by ``owner`` now: stop serving it here (its streams
        end with TABLE_MOVED naming the owner). Called from inside the table's own task, so
        the stop runs as a task of its own."""
        if table_id not in self._tables or owner == self.node_id:
            return
        task = asyncio.get_running_loop().create_task(self._lose(table_id, owner))
        self._losing.add(task)
        task.add_done_callback(self._losing.discard)

    async def _lose(self, table_id: str, owner: str) -> None:
        runtime = self._tables.pop(table_id, None)
        if runtime is None:
            return
        error = await self.moved_error(table_id, owner)
        self._moved[table_id] = error
        log.warning("table %s is served by engine node %s now: stopped here", table_id, owner)
        await runtime.stop(error)

    async def node_addresses(self, node_id: str) -> tuple[str, str] | None:
        """The players' gRPC address and gRPC-Web URL of ``node_id`` (None: no such node)."""
        return await self._directory.node_addresses(node_id)

    async def least_loaded_node(self) -> str | None:
        """The live node but this one a table should move to (None: no other is live)."""
        return await self._directory.least_loaded_node()

    async def move(self, table_id: str, to_node: str) -> bool:
        """Give the table to live node ``to_node`` between hands: no new hand starts, the
        running one (if any) plays out, the table is handed over in the store, and its
        streams end with TABLE_MOVED naming ``to_node``; the node there loads it. Returns
        whether a hand had to finish first. A table on ``to_node`` already (a retry) is left
        as it is."""
        if to_node == self.node_id:
            raise TableError.invalid(
                "INVALID_ARGUMENT",
                f"tables/{table_id} is on engine node {to_node} already",
                field="node",
            )
        runtime = self._tables.get(table_id)
        if runtime is None:
            if await self._directory.table_owner(table_id) == to_node:
                return False
            await self.check_own(table_id)
            raise self._not_found(table_id)
        if runtime.status is TableStatus.CLOSED:
            raise TableError.precondition(
                "TABLE_CLOSED", f"tables/{table_id} is closed", table=f"tables/{table_id}"
            )
        waited = runtime.hand_running
        runtime.draining = True
        try:
            while True:
                await runtime.wait_idle()

                async def hand_over() -> bool:
                    if runtime.hand_running:
                        return False
                    await self._directory.hand_over(table_id, to_node)
                    return True

                if await runtime.call(hand_over):
                    break
        except BaseException:
            runtime.draining = self.draining
            raise
        async with self._lock:
            self._tables.pop(table_id, None)
            error = await self.moved_error(table_id, to_node)
            self._moved[table_id] = error
        await runtime.stop(error)
        log.info("table %s moved to engine node %s", table_id, to_node)
        return waited
