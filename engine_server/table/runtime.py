"""One live table: a single owner task that takes every command in order.

Like a Nakama match handler, a :class:`TableRuntime` is the only code that
touches its table's state. Callers (the gRPC and Connect adapters, the admin
RPCs) send commands through :meth:`TableRuntime.call`; the owner task runs
them one at a time, keeps the clock, starts hands, persists each finished
hand in one transaction and pushes every change to the watchers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from engine_server.game.actions import ActionKind, ActionRefused, LegalAction, RefusalCode
from engine_server.game.cards import Card, format_card
from engine_server.game.events import (
    ActionTaken,
    BringInPosted,
    CardBurned,
    CardDealt,
    CommunityCardDealt,
    HandMucked,
    HandShown,
    HandStarted,
    ProtectionApplied,
)
from engine_server.game.fairness import deck_stream
from engine_server.game.hand import Hand, Phase
from engine_server.game.replay import result_to_json
from engine_server.game.views import visible_event
from engine_server.table.errors import ErrorKind, TableError
from engine_server.table.events import (
    CardsShownAfter,
    ChipsAdded,
    ConnectionChanged,
    HandBegan,
    PlayerJoined,
    PlayerLeaving,
    PlayerLeft,
    PlayerSatIn,
    PlayerSatOut,
    SeedRotated,
    TableStatusChanged,
    TurnStarted,
    UpdateEvent,
)
from engine_server.table.model import (
    DrainHold,
    LastHand,
    OwnPart,
    SeatInfo,
    SeatState,
    SeedPair,
    SessionSnapshot,
    TableConfig,
    TableStatus,
    TableView,
)
from engine_server.table.ports import HandRecord, RevealedPair, TableStore

__all__ = [
    "ActAnswer",
    "ActOutcome",
    "RuntimeHooks",
    "TableRuntime",
    "Timing",
    "Update",
    "Watcher",
    "hand_trail",
]

log = logging.getLogger("stud.table")

T = TypeVar("T")

_OPEN_STATUSES = (TableStatus.WAITING, TableStatus.PLAYING)


@dataclass(frozen=True, slots=True)
class Timing:
    """How the table paces itself (the clock per decision is the table's)."""

    between_hands_seconds: float = 2.0
    #: how many messages a watcher may fall behind before its stream is ended
    watcher_backlog: int = 2048
    #: how many answered action ids a table remembers for idempotent retries (about five
    #: hands: a client retries within seconds; more would only grow every collection's walk)
    remembered_actions: int = 128


@dataclass(frozen=True, slots=True)
class Update:
    """One change as one watcher sees it: its events in order and the view after them.

    The view after a change is the public one, shared by every player's stream, with ``own``
    (the watcher's own cards and legal actions) to add; a stream's first update and ops'
    updates carry their whole view instead (``own`` None).
    """

    sequence: int
    hand_number: int
    #: empty in a stream's first update (the full snapshot)
    events: tuple[UpdateEvent, ...]
    view: TableView
    time: datetime
    #: the client's action id, on the update carrying that action
    action_id: str = ""
    own: OwnPart | None = None
    #: conversions the streams of one change share (filled by whoever sends the updates)
    shared: dict[object, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True, slots=True)
class ActOutcome:
    sequence: int
    hand_number: int
    seat: int
    kind: ActionKind
    #: chips the action moved, and the seat's bet on this street after it
    amount: int
    to: int
    all_in: bool
    #: answered from memory: the action id had already been accepted (nothing moved now)
    repeated: bool = False


@dataclass(frozen=True, slots=True)
class ActAnswer:
    """The answer to an act sent on a player's own stream (Play), queued in order with the
    stream's updates: a refusal, or a repeated action id's first answer. An accepted new act
    needs none: the update carrying its ``action_id`` answers it."""

    action_id: str
    answer: ActOutcome | TableError


@dataclass(slots=True)
class RuntimeHooks:
    """Callbacks for metrics and audit logs (all optional)."""

    on_hand_started: Callable[[str], None] | None = None
    on_hand_finished: Callable[[str, bool], None] | None = None
    on_action: Callable[[str, str, bool], None] | None = None
    on_view_latency: Callable[[float], None] | None = None


@dataclass(eq=False)
class Watcher:
    """One WatchTable stream: its queue of updates, or the error that ended it."""

    seat: int | None
    queue: asyncio.Queue[Update | ActAnswer | TableError | None]
    admin: bool = False
    closed: bool = False
    #: when set, the time the command that caused the latest update arrived (for latency)
    pending_since: float | None = field(default=None)


class TableRuntime:
    """The owner of one table's live state."""

    def __init__(
        self,
        config: TableConfig,
        seed: SeedPair,
        store: TableStore,
        *,
        status: TableStatus = TableStatus.WAITING,
        hands_started: int = 0,
        button: int | None = None,
        seats: list[SeatState] | None = None,
        timing: Timing | None = None,
        hooks: RuntimeHooks | None = None,
    ) -> None:
        self.config = config
        self.seed = seed
        self.status = status
        self.hands_started = hands_started
        self.button = button
        self.seats: dict[int, SeatState] = {s.seat: s for s in seats or []}
        self.draining = False
        self.timing = timing or Timing()
        self.hooks = hooks or RuntimeHooks()
        self._store = store
        self._queue: asyncio.Queue[tuple[Callable[[], Awaitable[Any]], asyncio.Future[Any], float]]
        self._queue = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._hand: Hand | None = None
        self._hand_id: str | None = None
        self._hand_number = hands_started
        self._nonce: int | None = None
        self._hand_seats: dict[int, SeatState] = {}
        self._last_hand: LastHand | None = None
        self._last_hand_obj: Hand | None = None
        self._last_hand_seats: dict[int, SeatState] = {}
        self._sequence = 0
        self._watchers: list[Watcher] = []
        self._deadline: float | None = None  # loop time of the turn's end
        self._deadline_wall: datetime | None = None
        self._turn_key: tuple[int, int] | None = None
        self._next_hand_at: float | None = None
        #: (seat, action id) -> the request's (hand number, kind, amount) and the answer's
        #: fields, as plain values: the garbage collector stops walking tuples of those, and
        #: every table keeps many (Timing.remembered_actions)
        self._answers: OrderedDict[tuple[int, str], tuple[Any, ...]] = OrderedDict()
        self._decisions = 0
        #: what each seat had put into a hand CancelHand is cancelling
        self._cancel_returned: dict[int, int] = {}
        self._idle = asyncio.Event()
        self._idle.set()
        self._closed = asyncio.Event()
        if status is TableStatus.CLOSED:
            self._closed.set()

    # ------------------------------------------------------------ lifecycle

    @property
    def table_id(self) -> str:
        return self.config.table_id

    @property
    def hand_running(self) -> bool:
        return self._hand is not None

    @property
    def hand_number(self) -> int:
        return self._hand_number

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._next_hand_at = loop.time() + self.timing.between_hands_seconds
        self._task = asyncio.create_task(self._run(), name=f"table:{self.table_id}")

    async def stop(self) -> None:
        """Stop the owner task (a running hand stays unfinished: recovery cancels it)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for watcher in list(self._watchers):
            self._end_watcher(
                watcher,
                TableError(ErrorKind.UNAVAILABLE, "TABLE_MOVED", "the engine is shutting down"),
            )

    async def wait_idle(self) -> None:
        """Wait until no hand is running."""
        await self._idle.wait()

    async def call(self, command: Callable[[], Awaitable[T]]) -> T:
        """Run ``command`` in the owner task, after every command sent before it."""
        if self._task is None or self._task.done():
            if self._task is None and self.status is TableStatus.CLOSED:
                # A table closed before this node started has no owner task: nothing can change
                # it, so its commands (reads, refusals, retries' first answers) run right here.
                return await command()
            raise TableError(ErrorKind.UNAVAILABLE, "TABLE_MOVED", "the table is not running")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((command, future, time.perf_counter()))
        return await future

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            await self._pay_out_leavers()
        except Exception:
            log.exception(
                "table %s: could not pay out the players who were leaving",
                self.table_id,
                extra=self._log_ids(),
            )
        while True:
            wake = self._next_wakeup()
            try:
                if wake is None:
                    command, future, arrived = await self._queue.get()
                else:
                    async with asyncio.timeout_at(wake):
                        command, future, arrived = await self._queue.get()
            except TimeoutError:
                try:
                    await self._on_timer(loop.time())
                except Exception:
                    log.exception("table %s: timer failed", self.table_id, extra=self._log_ids())
                continue
            self._arrived = arrived
            try:
                result = await command()
            except Exception as error:
                if isinstance(error, TableError):
                    log.debug(
                        "table %s: %s refused: %s",
                        self.table_id,
                        _command_name(command),
                        error.reason,
                        extra=self._log_ids(command=_command_name(command), reason=error.reason),
                    )
                else:
                    log.exception(
                        "table %s: %s failed",
                        self.table_id,
                        _command_name(command),
                        extra=self._log_ids(command=_command_name(command)),
                    )
                if not future.done():
                    future.set_exception(error)
            else:
                if not future.done():
                    future.set_result(result)
            try:
                await self._maybe_start_hand()
            except Exception:
                log.exception(
                    "table %s: could not start a hand", self.table_id, extra=self._log_ids()
                )

    async def _pay_out_leavers(self) -> None:
        """Seats loaded as leaving (a previous engine died during their last hand, which
        recovery cancelled): no hand is running now, so they are paid out at once."""
        for state in [s for s in self.seats.values() if s.leaving]:
            state.leaving = False
            await self._leave(state, state.leave_reason)

    def _next_wakeup(self) -> float | None:
        times = [self._deadline]
        # The next hand's time counts only while a hand may start: a paused, closing or
        # draining table keeps its (past) time, and waking for it would spin the loop.
        if self._hand is None and not self.draining and self.status in _OPEN_STATUSES:
            times.append(self._next_hand_at)
        due = [t for t in times if t is not None]
        return min(due) if due else None

    async def _on_timer(self, now: float) -> None:
        # The timer is this change's cause: a hand it starts must not be timed from the last
        # command's arrival, seconds ago.
        self._arrived = time.perf_counter()
        if self._deadline is not None and now >= self._deadline:
            self._deadline = None
            hand = self._hand
            if hand is not None and hand.to_act is not None:
                seat = hand.to_act
                before = len(hand.events)
                hand.timeout(seat)
                # What the clock did for him (fold, check, protect, ...), not just "timeout".
                taken = str(self._outcome(hand, seat, ActionKind.TIMEOUT, before).kind)
                if any(isinstance(e, ProtectionApplied) for e in hand.events[before:]):
                    taken = "protect"
                log.info(
                    "table %s hand %d: seat %d timed out (%s)",
                    self.table_id,
                    self._hand_number,
                    seat,
                    taken,
                    extra=self._log_ids(seat=seat, action=taken),
                )
                if self.hooks.on_action:
                    self.hooks.on_action(self.table_id, taken, True)
                await self._after_hand_change()
        await self._maybe_start_hand()

    # --------------------------------------------------------------- views

    def view(
        self, viewer: int | None, *, reveal_all: bool = False, sessions: bool = False
    ) -> TableView:
        """The table as ``viewer`` may see it (``reveal_all``: ops' audited view).

        Seat session ids (the lobby's keys) are only in AdminService views: ``reveal_all``
        or ``sessions``.
        """
        hand = self._hand
        players = {p.seat: p for p in hand.players} if hand is not None else {}
        infos = []
        for number in sorted(self.seats.keys() | players.keys()):
            seat = self.seats.get(number) or self._hand_seats.get(number)
            if seat is None:
                continue
            p = players.get(number)
            # SeatInfo's fields by position, in its order: once per seat of every change, and
            # a frozen dataclass takes its 17 arguments by keyword more than twice as slowly.
            if p is not None:
                down = tuple(p.down_cards)
                own = reveal_all or number == viewer
                info = SeatInfo(
                    number,
                    seat.player_id,
                    seat.display_name,
                    p.stack,
                    seat.status,
                    seat.connected,
                    True,  # in_hand
                    p.folded,
                    p.all_in,
                    p.protected,
                    p.bet,
                    p.contributed,  # total_bet
                    tuple(p.up_list),  # up_cards
                    len(down),  # down_count
                    down if own else (),  # down_cards
                    tuple(p.cards) if p.shown and not p.folded else (),  # shown_cards
                    seat.session_id if reveal_all or sessions else "",
                )
            else:
                info = SeatInfo(
                    number,
                    seat.player_id,
                    seat.display_name,
                    seat.stack,
                    seat.status,
                    seat.connected,
                    False,  # in_hand
                    False,  # folded
                    False,  # all_in
                    False,  # protected
                    0,  # bet
                    0,  # total_bet
                    (),  # up_cards
                    0,  # down_count
                    (),  # down_cards
                    (),  # shown_cards
                    seat.session_id if reveal_all or sessions else "",
                )
            infos.append(info)
        legal: tuple[LegalAction, ...] = ()
        turn = None
        if hand is not None and not hand.is_over:
            turn = hand.to_act
            # Ops' view (GetTable) shows the legal actions of the seat to act, as a player
            # sees his own on his turn.
            if turn is not None and (reveal_all or viewer == turn):
                legal = hand.legal_actions()
        return TableView(
            config=self.config,
            status=self.status,
            viewer_seat=viewer,
            seats=tuple(infos),
            button=self.button,
            hand_number=self._hand_number,
            hand_in_progress=hand is not None,
            street=hand.street if hand is not None else None,
            showdown=hand is not None and hand.phase is Phase.SHOWDOWN,
            pots=tuple(hand.live_pots()) if hand is not None else (),
            street_bet=hand.current_bet if hand is not None else 0,
            bring_in_seat=(
                hand.bring_in_info.seat if hand is not None and hand.bring_in_info else None
            ),
            turn_seat=turn,
            turn_deadline=self._deadline_wall if turn is not None else None,
            legal_actions=legal,
            community_cards=tuple(hand.community) if hand is not None else (),
            commitment=self.seed.commitment,
            client_seed=self.seed.client_seed,
            hands_dealt=self.seed.next_nonce,
            nonce=self._nonce if hand is not None else None,
            next_commitment=self.seed.next_commitment,
            last_hand=self._last_hand,
            server_time=datetime.now(UTC),
        )

    # ------------------------------------------------------------ watchers

    async def watch(self, seat: int | None, *, admin: bool = False) -> Watcher:
        """Open a stream for ``seat``: a fresh snapshot first, then every update."""

        async def attach() -> Watcher:
            if self.status is TableStatus.CLOSED:
                raise TableError.precondition("TABLE_CLOSED", f"{self.config.name} is closed")
            if seat is not None and seat not in self.seats and seat not in self._hand_seats:
                raise TableError.denied("NOT_SEATED", f"nobody sits in seat {seat}")
            for old in [w for w in self._watchers if w.seat == seat and seat is not None]:
                self._end_watcher(
                    old,
                    TableError(
                        ErrorKind.ABORTED, "WATCH_REPLACED", "a newer watch replaced this one"
                    ),
                )
            # Connected first (the others hear of it), so that the new stream's snapshot shows
            # him connected, with any reconnect time already on his clock.
            if seat is not None:
                await self._set_connected(seat, True)
            watcher = Watcher(seat, asyncio.Queue(maxsize=self.timing.watcher_backlog), admin)
            self._watchers.append(watcher)
            watcher.queue.put_nowait(
                Update(
                    self._sequence,
                    self._hand_number,
                    (),
                    self.view(seat, reveal_all=admin),
                    datetime.now(UTC),
                )
            )
            return watcher

        return await self.call(attach)

    def open_streams(self) -> tuple[int, int]:
        """How many streams watch this table: players' and ops' (for metrics)."""
        admins = sum(1 for w in self._watchers if w.admin)
        return len(self._watchers) - admins, admins

    async def unwatch(self, watcher: Watcher) -> None:
        """The stream behind ``watcher`` ended (the client went away)."""
        if watcher.closed:
            return

        async def detach() -> None:
            if watcher in self._watchers:
                self._watchers.remove(watcher)
            watcher.closed = True
            seat = watcher.seat
            if seat is not None and not any(w.seat == seat for w in self._watchers):
                await self._set_connected(seat, False)

        with contextlib.suppress(TableError):
            await self.call(detach)

    def _end_watcher(self, watcher: Watcher, reason: TableError | None) -> None:
        if watcher in self._watchers:
            self._watchers.remove(watcher)
        watcher.closed = True
        with contextlib.suppress(asyncio.QueueFull):
            watcher.queue.put_nowait(reason)
        if watcher.queue.full():
            # The reader is far behind: drop its backlog so the ending reaches it.
            while not watcher.queue.empty():
                watcher.queue.get_nowait()
            watcher.queue.put_nowait(reason)

    async def _set_connected(self, seat: int, connected: bool) -> None:
        state = self.seats.get(seat) or self._hand_seats.get(seat)
        if state is None or state.connected == connected:
            return
        state.connected = connected
        if connected:
            self._grant_reconnect_time(state)
        self._publish([ConnectionChanged(seat, connected)])

    def _grant_reconnect_time(self, state: SeatState) -> None:
        extra = self.config.settings.reconnect_extra_seconds
        hand = self._hand
        if (
            extra
            and hand is not None
            and hand.to_act == state.seat
            and self._deadline is not None
            and not state.reconnect_bonus_used
        ):
            state.reconnect_bonus_used = True
            self._set_deadline(self._deadline - asyncio.get_running_loop().time() + extra)

    def _publish(self, events: list[UpdateEvent], hand_number: int | None = None) -> None:
        """Push one change (``events``, in order) to every watcher, with its view after it.

        A change is one message per stream however many events it holds: streaming costs
        per message, and a change's events share the view after the last of them anyway.
        """
        if not events:
            return
        self._sequence += 1
        sequence = self._sequence
        if not self._watchers:
            return
        now = datetime.now(UTC)
        number = self._hand_number if hand_number is None else hand_number
        acting = self._acting
        action_id = acting[1] if acting is not None and acting[0] == sequence else ""
        public = tuple(events)
        # Only a card dealt or burned may read differently from seat to seat (visible_event).
        private = any(isinstance(e, CardDealt | CardBurned) for e in public)
        # One public view for every player's stream, each adding only its own part; ops see
        # every card.
        view = self.view(None)
        admin_view: TableView | None = None
        shared: dict[object, Any] = {}
        owns = self._own_parts()
        for watcher in list(self._watchers):
            if watcher.admin:
                admin_view = admin_view or self.view(None, reveal_all=True)
                update = Update(sequence, number, public, admin_view, now, action_id, shared=shared)
            else:
                seat = watcher.seat
                own = (owns.get(seat) or OwnPart(seat, (), ())) if seat is not None else None
                shown = self._redacted(public, seat) if private else public
                update = Update(sequence, number, shown, view, now, action_id, own, shared)
            try:
                watcher.queue.put_nowait(update)
            except asyncio.QueueFull:
                self._end_watcher(
                    watcher,
                    TableError(
                        ErrorKind.RESOURCE_EXHAUSTED,
                        "SLOW_CONSUMER",
                        "the stream fell too far behind; watch again",
                    ),
                )
        if self.hooks.on_view_latency is not None:
            self.hooks.on_view_latency(time.perf_counter() - self._arrived)

    def _own_parts(self) -> dict[int, OwnPart]:
        """What each seat dealt into the hand sees beyond the public view (as :meth:`view`
        gives it to him): his down cards and, on his turn, his legal actions. A seat not in
        the hand sees nothing more."""
        hand = self._hand
        if hand is None:
            return {}
        turn = hand.to_act if not hand.is_over else None
        parts = {}
        for player in hand.players:
            seat = player.seat
            legal = tuple(hand.legal_actions()) if seat == turn else ()
            parts[seat] = OwnPart(seat, tuple(player.down_cards), legal)
        return parts

    @classmethod
    def _redacted(
        cls, events: tuple[UpdateEvent, ...], viewer: int | None
    ) -> tuple[UpdateEvent, ...]:
        """``events`` as ``viewer`` may see them; the same tuple when nothing is hidden."""
        shown = tuple(cls._redact(event, viewer) for event in events)
        return events if all(a is b for a, b in zip(shown, events, strict=True)) else shown

    @staticmethod
    def _redact(event: UpdateEvent, viewer: int | None) -> UpdateEvent:
        if isinstance(event, CardDealt | CommunityCardDealt) or type(event).__module__.endswith(
            "game.events"
        ):
            return visible_event(event, viewer)  # type: ignore[arg-type]
        return event

    # -------------------------------------------------------------- hands

    async def _maybe_start_hand(self) -> None:
        if self._hand is not None or self.draining or self.status not in _OPEN_STATUSES:
            return
        loop = asyncio.get_running_loop()
        if self._next_hand_at is not None and loop.time() < self._next_hand_at:
            return
        for state in self.seats.values():
            if state.pending_sit_out is not None:
                state.sitting_out = state.pending_sit_out
                state.pending_sit_out = None
        ready = sorted(
            s.seat
            for s in self.seats.values()
            if not s.sitting_out and not s.leaving and s.stack > 0
        )
        if len(ready) < 2:
            self._next_hand_at = None
            if self.status is not TableStatus.WAITING:
                await self._set_status(TableStatus.WAITING, "waiting for players")
            return
        if self.status is not TableStatus.PLAYING:
            await self._set_status(TableStatus.PLAYING, "")
        button = self._next_button(ready)
        hand_number = self.hands_started + 1
        players = [
            (n, self.seats[n].session_id, self.seats[n].player_id, self.seats[n].stack)
            for n in ready
        ]
        started = await self._store.start_hand(
            self.table_id,
            hand_number,
            self.seed.id,
            button,
            players,
            self.config.settings.name,
            self._settings_record(),
        )
        deck, stream = deck_stream(self.seed.dealer_seed, self.seed.client_seed, started.nonce)
        self.hands_started = hand_number
        self._hand_number = hand_number
        self._nonce = started.nonce
        self.seed.next_nonce = started.nonce + 1
        self._hand_id = started.hand_id
        self.button = button
        self._hand_seats = {n: self.seats[n] for n in ready}
        for state in self._hand_seats.values():
            state.reconnect_bonus_used = False
        # Answered action ids outlive their hand (bounded by remembered_actions): a retry of
        # the action that ended the last hand must get its answer again, not STALE_HAND.
        self._idle.clear()
        hand = Hand(
            self.config.settings,
            self.config.stakes,
            [(n, self.seats[n].stack) for n in ready],
            button,
            deck,
            stream=stream,
        )
        self._hand = hand
        self._next_hand_at = None
        log.info(
            "table %s hand %d started (nonce %d, seats %s)",
            self.table_id,
            hand_number,
            started.nonce,
            ",".join(map(str, ready)),
            extra=self._log_ids(hand_id=started.hand_id, nonce=started.nonce, seats=ready),
        )
        if self.hooks.on_hand_started:
            self.hooks.on_hand_started(self.table_id)
        self._published_events = 0
        began = HandBegan(
            hand_number,
            started.nonce,
            self.seed.commitment,
            self.seed.client_seed,
            button,
            tuple(ready),
        )
        await self._after_hand_change(began)

    def _next_button(self, ready: list[int]) -> int:
        if self.button is None:
            return ready[0]
        later = [n for n in ready if n > self.button]
        return later[0] if later else ready[0]

    def _settings_record(self) -> dict[str, Any]:
        return {
            "rules": self.config.settings.to_json(),
            "stakes": self.config.stakes.to_json(),
            "action_seconds": self.config.action_seconds,
        }

    async def _after_hand_change(self, cause: UpdateEvent | None = None) -> None:
        """Publish the hand's new events, move the clock, and finish the hand when over.

        ``cause``: an event of the table's that leads the change (the hand's start).
        """
        hand = self._hand
        assert hand is not None
        new_events: list[UpdateEvent] = [] if cause is None else [cause]
        new_events.extend(
            e for e in hand.events[self._published_events :] if not isinstance(e, HandStarted)
        )
        self._published_events = len(hand.events)
        if hand.is_over:
            await self._end_hand(new_events)
            return
        self._decisions += 1
        self._set_deadline(self.config.action_seconds)
        turn = hand.to_act
        if turn is not None and self._deadline_wall is not None:
            new_events.append(TurnStarted(turn, self._deadline_wall))
        self._publish(new_events)

    def _set_deadline(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + seconds
        self._deadline_wall = datetime.now(UTC) + timedelta(seconds=seconds)

    async def _end_hand(self, hand_events: list[UpdateEvent]) -> None:
        hand = self._hand
        assert hand is not None and self._hand_id is not None
        cancelled = hand.phase is Phase.CANCELLED
        self._deadline = None
        self._deadline_wall = None
        final = (
            {p.seat: p.start_stack for p in hand.players}
            if cancelled
            else {p.seat: p.stack for p in hand.players}
        )
        leaving = [s for s in self._hand_seats.values() if s.leaving]
        if cancelled:
            # What was dealt and done before the cancel is kept for the audit (no chip moves).
            await self._store.cancel_hand(
                self._hand_id, self._cancel_reason, self._hand_record(hand)
            )
        else:
            record = self._hand_record(hand)
            await self._store.finish_hand(
                self._hand_id,
                record,
                {self._hand_seats[n].session_id: stack for n, stack in final.items()},
                [(s.session_id, s.leave_reason) for s in leaving],
                self.button or 0,
            )
        for number, stack in final.items():
            self._hand_seats[number].stack = stack
        result = None if cancelled else hand.result()
        self._last_hand = LastHand(
            hand_number=self._hand_number,
            nonce=self._nonce or 0,
            cancelled=cancelled,
            result=result,
            ended_at=datetime.now(UTC),
            returned=dict(self._cancel_returned) if cancelled else {},
            final_stacks=final if cancelled else {},
        )
        self._last_hand_obj = hand
        self._last_hand_seats = dict(self._hand_seats)
        log.info(
            "table %s hand %d %s",
            self.table_id,
            self._hand_number,
            f"cancelled: {self._cancel_reason}" if cancelled else "finished",
            extra=self._log_ids(
                hand_id=self._hand_id,
                cancelled=cancelled,
                rake=0 if result is None else result.rake,
                final_stacks={str(n): stack for n, stack in sorted(final.items())},
            ),
        )
        self._hand = None
        self._hand_id = None
        if self.hooks.on_hand_finished:
            self.hooks.on_hand_finished(self.table_id, cancelled)
        events: list[UpdateEvent] = list(hand_events)
        for state in leaving:
            self.seats.pop(state.seat, None)
            events.append(
                PlayerLeft(
                    state.seat, state.player_id, state.display_name, state.stack, state.leave_reason
                )
            )
        for state in self.seats.values():
            if state.stack == 0 and not state.sitting_out:
                state.sitting_out = True
                events.append(PlayerSatOut(state.seat))
        self._hand_seats = {}
        self._publish(events, self._last_hand.hand_number)
        # A leaver's stream ends with his seat, as when he leaves between hands: left open,
        # it would show the seat's next occupant's down cards to him.
        gone = {state.seat for state in leaving}
        for watcher in [w for w in self._watchers if w.seat in gone]:
            self._end_watcher(watcher, None)
        self._next_hand_at = asyncio.get_running_loop().time() + self.timing.between_hands_seconds
        self._idle.set()
        if self.status is TableStatus.PAUSING:
            await self._set_status(TableStatus.PAUSED, "paused by ops")
        elif self.status is TableStatus.CLOSING:
            await self._close_now("closed by ops")

    def _hand_record(self, hand: Hand) -> HandRecord:
        from engine_server.game.phh import export_phh

        cards, actions = hand_trail(hand)
        if hand.phase is Phase.CANCELLED:
            # Nothing was won: what each seat had put in went back (kept for the audit).
            returned = {str(n): c for n, c in sorted(self._cancel_returned.items())}
            result: dict[str, Any] = {"cancelled": True, "pots": [], "rake": 0}
            result["returned"] = returned
        else:
            result = result_to_json(hand.result(), hi_lo=self.config.settings.hi_lo)
        names = {n: s.display_name for n, s in self._hand_seats.items()}
        try:
            phh = export_phh(
                hand, table=self.config.name, hand_number=self._hand_number, players=names
            )
        except Exception:
            log.exception("table %s: PHH export failed", self.table_id, extra=self._log_ids())
            phh = None
        return HandRecord(
            cards=cards,
            actions=actions,
            pots=result["pots"],
            rake=result["rake"],
            result=result,
            phh=phh,
        )

    # ----------------------------------------------------------- players

    def _seat_of(self, player_id: str) -> SeatState | None:
        for state in self.seats.values():
            if state.player_id == player_id:
                return state
        return None

    async def act(
        self, seat: int, hand_number: int, kind: ActionKind, amount: int | None, action_id: str
    ) -> ActOutcome:
        """A player's action; idempotent by ``action_id``."""

        async def command() -> ActOutcome:
            params = (hand_number, kind.value, amount)
            known = self._answers.get((seat, action_id))
            if known is not None:
                if known[:3] != params:
                    raise TableError.invalid(
                        "IDEMPOTENCY_KEY_REUSED",
                        f"action id {action_id!r} was used for another action",
                        field="action_id",
                    )
                sequence, taken, chips, to, all_in = known[3:]
                return ActOutcome(
                    sequence, hand_number, seat, ActionKind(taken), chips, to, all_in, repeated=True
                )
            hand = self._hand
            if hand is None:
                if hand_number == self._hand_number and self._hand_number > 0:
                    raise TableError.precondition(
                        "STALE_HAND",
                        f"hand {hand_number} is over",
                        hand_number=str(self._hand_number),
                    )
                raise TableError.precondition("NO_HAND_IN_PROGRESS", "no hand is running")
            if hand_number != self._hand_number:
                raise TableError.precondition(
                    "STALE_HAND",
                    f"hand {hand_number} is not the running hand {self._hand_number}",
                    hand_number=str(self._hand_number),
                )
            before = len(hand.events)
            try:
                hand.act(seat, kind, amount)
            except ActionRefused as refused:
                legal = ",".join(str(a.kind) for a in hand.legal_actions() if hand.to_act == seat)
                if refused.code is RefusalCode.NOT_YOUR_TURN:
                    raise TableError.precondition(
                        "NOT_YOUR_TURN", refused.message, turn_seat=str(hand.to_act or 0)
                    ) from None
                raise TableError.precondition(
                    "ILLEGAL_ACTION", refused.message, legal_actions=legal
                ) from None
            outcome = self._outcome(hand, seat, kind, before)
            # The action's change is the next one published (with the cards and turn after it).
            sequence = self._sequence + 1
            if self.hooks.on_action:
                # The action as taken (a bring-in may have been completed), not as asked.
                self.hooks.on_action(self.table_id, str(outcome.kind), False)
            self._acting = (sequence, action_id)
            try:
                await self._after_hand_change()
            finally:
                self._acting = None
            answer = ActOutcome(
                sequence,
                hand_number,
                seat,
                outcome.kind,
                outcome.amount,
                outcome.to,
                outcome.all_in,
            )
            self._answers[(seat, action_id)] = (
                *params,
                sequence,
                outcome.kind.value,
                outcome.amount,
                outcome.to,
                outcome.all_in,
            )
            while len(self._answers) > self.timing.remembered_actions:
                self._answers.popitem(last=False)
            return answer

        return await self.call(command)

    @staticmethod
    def _outcome(hand: Hand, seat: int, kind: ActionKind, before: int) -> ActOutcome:
        """The action as recorded (``sequence`` 0: the caller numbers it)."""
        for e in hand.events[before:]:
            if isinstance(e, ActionTaken) and e.seat == seat:
                return ActOutcome(0, 0, seat, e.kind, e.amount, e.to, e.all_in)
            if isinstance(e, BringInPosted) and e.seat == seat:
                kind = ActionKind.COMPLETE if e.completed else ActionKind.BRING_IN
                return ActOutcome(0, 0, seat, kind, e.amount, e.amount, e.all_in)
            # An ordered showdown's decision is recorded as the hand shown or mucked.
            if isinstance(e, HandShown | HandMucked) and e.seat == seat:
                kind = ActionKind.SHOW if isinstance(e, HandShown) else ActionKind.MUCK
                return ActOutcome(0, 0, seat, kind, 0, 0, False)
        return ActOutcome(0, 0, seat, kind, 0, 0, False)

    async def leave(self, seat: int, reason: str = "left") -> SessionSnapshot:
        """Leave: paid out at once between hands; in a hand, at its end (RULES.md)."""

        async def command() -> SessionSnapshot:
            state = self.seats.get(seat)
            if state is None:
                raise TableError.denied("NOT_SEATED", f"nobody sits in seat {seat}")
            return await self._leave(state, reason)

        return await self.call(command)

    async def _leave(
        self, state: SeatState, reason: str, removal: str | None = None
    ) -> SessionSnapshot:
        """Pay the player out now, or mark him leaving after his hand. ``removal``: the
        RemovePlayer's reason, stored with the answer in the same write as the change."""
        if state.leaving:
            answer = self._session(state)
            if removal is not None:
                await self._store.record_removal(state.session_id, removal, answer)
            return answer
        if self._hand is not None and state.seat in self._hand_seats:
            await self._store.mark_closing(state.session_id, removal)
            state.leaving = True
            state.leave_reason = reason
            self._publish([PlayerLeaving(state.seat)])
            return self._session(state)
        closed = await self._store.close_session(state.session_id, state.stack, reason, removal)
        self.seats.pop(state.seat, None)
        self._publish(
            [PlayerLeft(state.seat, state.player_id, state.display_name, state.stack, reason)]
        )
        for watcher in [w for w in self._watchers if w.seat == state.seat]:
            self._end_watcher(watcher, None)
        return closed

    def _session(self, state: SeatState) -> SessionSnapshot:
        return SessionSnapshot(
            session_id=state.session_id,
            table_id=self.table_id,
            player_id=state.player_id,
            seat=state.seat,
            chips_in=state.chips_in,
            stack=state.stack,
            open=True,
            closing=state.leaving,
        )

    async def sit_out(self, seat: int, out: bool) -> tuple[SeatState, int]:
        """Sit out (or back in) from the next hand; returns the seat and that hand's number."""

        async def command() -> tuple[SeatState, int]:
            state = self.seats.get(seat)
            if state is None:
                raise TableError.denied("NOT_SEATED", f"nobody sits in seat {seat}")
            if self._hand is None:
                state.sitting_out = out
                state.pending_sit_out = None
            else:
                state.pending_sit_out = out
            self._publish([PlayerSatOut(seat) if out else PlayerSatIn(seat)])
            return state, self.hands_started + 1

        return await self.call(command)

    async def show_cards(self, seat: int, hand_number: int) -> tuple[Card, ...]:
        """A winner by folds shows his cards after the hand (where the profile lets him)."""

        async def command() -> tuple[Card, ...]:
            last, hand = self._last_hand, self._last_hand_obj
            if not self.config.settings.winner_may_show:
                raise TableError.precondition(
                    "SHOW_NOT_ALLOWED", "this table's rules do not let a winner show"
                )
            if (
                self._hand is not None
                or last is None
                or hand is None
                or last.hand_number != hand_number
                or last.result is None
                or not last.result.won_by_fold
                or last.result.pots[0].winners != (seat,)
            ):
                raise TableError.precondition(
                    "SHOW_NOT_ALLOWED", "only the winner by folds may show, before the next hand"
                )
            player = hand.player(seat)
            assert player is not None
            cards = tuple(player.cards)
            self._last_hand = LastHand(
                last.hand_number,
                last.nonce,
                last.cancelled,
                last.result,
                last.ended_at,
                {**last.shown_after, seat: cards},
            )
            self._publish([CardsShownAfter(seat, hand_number, cards)])
            return cards

        return await self.call(command)

    # ---------------------------------------------------------------- ops

    async def seat_player(
        self, session_id: str, player_id: str, display_name: str, seat: int, buy_in: int
    ) -> SessionSnapshot:
        async def command() -> SessionSnapshot:
            for state in self.seats.values():
                if state.session_id == session_id:
                    if state.player_id != player_id or (seat and state.seat != seat):
                        raise TableError.invalid(
                            "IDEMPOTENCY_KEY_REUSED",
                            f"seat session {session_id} was opened with other parameters",
                            field="seat_session_id",
                        )
                    return self._session(state)
            if self.status in (TableStatus.CLOSING, TableStatus.CLOSED):
                raise TableError.precondition("TABLE_CLOSED", f"{self.config.name} is closed")
            self._check_buy_in(buy_in, "buy_in")
            if self._seat_of(player_id) is not None:
                raise TableError.precondition(
                    "ALREADY_SEATED", f"player {player_id} already sits at this table"
                )
            max_players = self.config.settings.max_players
            if seat:
                if not 1 <= seat <= max_players:
                    raise TableError.invalid(
                        "INVALID_SEAT", f"seat {seat} is outside 1..{max_players}", field="seat"
                    )
                if seat in self.seats or seat in self._hand_seats:
                    raise TableError.precondition("SEAT_TAKEN", f"seat {seat} is taken")
                number = seat
            else:
                free = [
                    n
                    for n in range(1, max_players + 1)
                    if n not in self.seats and n not in self._hand_seats
                ]
                if not free:
                    raise TableError.precondition("TABLE_FULL", "every seat is taken")
                number = free[0]
            snapshot = await self._store.seat_player(
                self.table_id, session_id, player_id, display_name, number, buy_in
            )
            if not snapshot.open:
                raise TableError.precondition(
                    "SEAT_SESSION_CLOSED", f"seat session {session_id} is closed"
                )
            state = SeatState(
                seat=snapshot.seat,
                player_id=player_id,
                display_name=display_name,
                session_id=session_id,
                stack=snapshot.stack,
                chips_in=snapshot.chips_in,
            )
            self.seats[state.seat] = state
            self._publish([PlayerJoined(state.seat)])
            return snapshot

        return await self.call(command)

    def _check_buy_in(self, amount: int, field_name: str) -> None:
        low, high = self.config.min_buy_in, self.config.max_buy_in
        if amount <= 0 or amount < low or (high and amount > high):
            limits = f"{low}..{high}" if high else f"at least {max(low, 1)}"
            raise TableError.invalid(
                "BUY_IN_OUT_OF_RANGE",
                f"{field_name} {amount} is outside the table's buy-in {limits}",
                field=field_name,
            )

    async def add_chips(self, session_id: str, request_id: str, amount: int) -> SessionSnapshot:
        async def command() -> SessionSnapshot:
            # A retry of an addition already made gets its first answer and changes nothing,
            # however late it comes: after later hands, the session's close or a restart.
            earlier = (
                await self._store.chip_addition(session_id, request_id, amount)
                if amount > 0
                else None
            )
            if earlier is not None:
                if earlier.table_id != self.table_id:
                    raise TableError.invalid(
                        "IDEMPOTENCY_KEY_REUSED",
                        f"request_id {request_id!r} added chips at another table",
                        field="request_id",
                    )
                return earlier
            state = next((s for s in self.seats.values() if s.session_id == session_id), None)
            if state is None:
                raise TableError.not_found(
                    "SEAT_SESSION_NOT_FOUND", f"no open seat session {session_id} here"
                )
            if amount <= 0:
                raise TableError.invalid(
                    "BUY_IN_OUT_OF_RANGE", "amount must be a positive integer", field="amount"
                )
            if self._hand is not None and state.seat in self._hand_seats:
                raise TableError.precondition(
                    "HAND_IN_PROGRESS", "chips are added only between hands"
                )
            high = self.config.max_buy_in
            snapshot = await self._store.add_chips(session_id, request_id, amount)
            if high and snapshot.stack > high and snapshot.stack != state.stack:
                log.warning(
                    "table %s: stack above the maximum buy-in",
                    self.table_id,
                    extra=self._log_ids(seat=state.seat),
                )
            added = snapshot.stack - state.stack
            state.stack = snapshot.stack
            state.chips_in = snapshot.chips_in
            if added:
                if state.sitting_out and state.pending_sit_out is None and state.stack > 0:
                    state.sitting_out = False
                    self._publish(
                        [ChipsAdded(state.seat, added, state.stack), PlayerSatIn(state.seat)]
                    )
                else:
                    self._publish([ChipsAdded(state.seat, added, state.stack)])
            return snapshot

        return await self.call(command)

    async def remove_player(self, session_id: str, reason: str) -> SessionSnapshot:
        async def command() -> SessionSnapshot:
            # Idempotent on the session: a retry gets the first answer (closing or closed) and
            # changes nothing, however late it comes; another reason is another request.
            earlier = await self._store.removal(session_id)
            if earlier is not None and earlier[1].table_id == self.table_id:
                first_reason, answer = earlier
                if first_reason != reason:
                    raise TableError.invalid(
                        "IDEMPOTENCY_KEY_REUSED",
                        f"seat session {session_id} was removed with another reason",
                        field="reason",
                    )
                return answer
            state = next((s for s in self.seats.values() if s.session_id == session_id), None)
            if state is None:
                raise TableError.not_found(
                    "SEAT_SESSION_NOT_FOUND", f"no open seat session {session_id} here"
                )
            return await self._leave(state, "removed", removal=reason)

        return await self.call(command)

    async def _set_status(self, status: TableStatus, reason: str) -> None:
        if status is self.status:
            return
        log.info(
            "table %s: %s -> %s (%s)",
            self.table_id,
            self.status,
            status,
            reason or "-",
            extra=self._log_ids(status=str(status), reason=reason),
        )
        self.status = status
        if status not in (TableStatus.PAUSING, TableStatus.PAUSED):
            self._held_by_drain = None
        if self._held_by_drain is not None:
            reason = "the engine node is draining"
        # Stored as shown (ListTables filters on it), with the drain holding it, if any: what
        # a node loading the table next does with the pause (DrainHold).
        await self._store.set_table_status(self.table_id, status, self._held_by_drain)
        self._publish([TableStatusChanged(status, reason)])

    async def drain(self, kept: bool = False) -> None:
        """This node drains: no hand starts here any more. An open table shows PAUSING while
        its hand plays out, then PAUSED. ``kept`` (ops' Drain): the pause outlasts a restart;
        else (the node stopping) the next start deals again."""
        hold = DrainHold.DRAIN if kept else DrainHold.SHUTDOWN

        async def command() -> None:
            self.draining = True
            if self.status in _OPEN_STATUSES:
                self._held_by_drain = hold
                target = TableStatus.PAUSING if self._hand is not None else TableStatus.PAUSED
                await self._set_status(target, "")
            elif kept and self._held_by_drain is DrainHold.SHUTDOWN:
                # Ops drain a node that is stopping: their drain's pause outlasts the restart.
                self._held_by_drain = hold
                await self._store.set_table_status(self.table_id, self.status, hold)

        await self.call(command)

    async def pause(self, reason: str) -> None:
        async def command() -> None:
            if self._held_by_drain is not None:
                # Ops pause a table the drain holds: the pause becomes theirs, and is kept.
                self._held_by_drain = None
                await self._store.set_table_status(self.table_id, self.status, None)
                return
            if self.status in (TableStatus.PAUSED, TableStatus.PAUSING):
                raise TableError.precondition("TABLE_STATE", "the table is already paused")
            if self.status in (TableStatus.CLOSING, TableStatus.CLOSED):
                raise TableError.precondition("TABLE_STATE", "the table is closed")
            target = TableStatus.PAUSING if self._hand is not None else TableStatus.PAUSED
            await self._set_status(target, reason or "paused by ops")

        await self.call(command)

    async def resume(self) -> None:
        async def command() -> None:
            if self.status not in (TableStatus.PAUSED, TableStatus.PAUSING):
                raise TableError.precondition("TABLE_STATE", "the table is not paused")
            if self.draining:
                raise TableError.precondition(
                    "DRAINING", "this engine node is draining: it starts no new hands"
                )
            playing = TableStatus.PLAYING if self._hand is not None else TableStatus.WAITING
            await self._set_status(playing, "resumed by ops")
            loop = asyncio.get_running_loop()
            self._next_hand_at = loop.time() + self.timing.between_hands_seconds

        await self.call(command)

    async def close(self, reason: str) -> list[SessionSnapshot]:
        """Close: the running hand finishes, then everyone is paid out."""

        async def command() -> list[SessionSnapshot]:
            if self.status is TableStatus.CLOSED:
                return []
            if self._hand is not None:
                await self._set_status(TableStatus.CLOSING, reason or "closing")
                # No session is final yet: they close (and are listed) once the hand ends.
                return []
            return await self._close_now(reason or "closed by ops")

        return await self.call(command)

    async def wait_closed(self) -> None:
        await self._closed.wait()

    async def _close_now(self, reason: str) -> list[SessionSnapshot]:
        closed, revealed = await self._store.close_table(self.table_id)
        events: list[UpdateEvent] = []
        for session in closed:
            state = self.seats.pop(session.seat, None)
            if state is not None:
                events.append(
                    PlayerLeft(
                        state.seat,
                        state.player_id,
                        state.display_name,
                        session.stack,
                        "table_closed",
                    )
                )
        self.seats.clear()
        events.append(self._rotated_event(revealed))
        log.info(
            "table %s closed (%s): %d seat sessions paid out",
            self.table_id,
            reason,
            len(closed),
            extra=self._log_ids(status=str(TableStatus.CLOSED), reason=reason),
        )
        self.status = TableStatus.CLOSED
        events.append(TableStatusChanged(TableStatus.CLOSED, reason))
        self._publish(events)
        for watcher in list(self._watchers):
            self._end_watcher(watcher, None)
        self._next_hand_at = None
        self._closed.set()
        return closed

    def _rotated_event(self, revealed: RevealedPair) -> SeedRotated:
        return SeedRotated(
            revealed.dealer_seed,
            revealed.commitment,
            revealed.client_seed,
            revealed.hands_dealt,
            self.seed,
        )

    async def cancel_hand(self, hand_number: int, reason: str) -> LastHand:
        """Cancel the running hand: every chip put in goes back."""

        async def command() -> LastHand:
            hand = self._hand
            if hand is None:
                raise TableError.precondition("NO_HAND_IN_PROGRESS", "no hand is running")
            if hand_number and hand_number != self._hand_number:
                raise TableError.precondition(
                    "STALE_HAND",
                    f"hand {hand_number} is not the running hand {self._hand_number}",
                    hand_number=str(self._hand_number),
                )
            self._cancel_reason = reason or "cancelled by ops"
            # What each seat put in, read before cancelling gives it back (CancelHand reports it).
            self._cancel_returned = {p.seat: p.contributed for p in hand.players if p.contributed}
            hand.cancel()
            await self._after_hand_change()
            assert self._last_hand is not None
            return self._last_hand

        return await self.call(command)

    async def rotate_seed(self, client_seed: str | None) -> tuple[RevealedPair, SeedPair]:
        """Reveal the current dealer seed and deal on from the next pair (between hands)."""

        async def command() -> tuple[RevealedPair, SeedPair]:
            if self._hand is not None:
                raise TableError.precondition(
                    "HAND_IN_PROGRESS", "the seed pair rotates only between hands"
                )
            if self.status is TableStatus.CLOSED:
                raise TableError.precondition("TABLE_CLOSED", f"{self.config.name} is closed")
            revealed, current = await self._store.rotate_seed(self.table_id, client_seed)
            self.seed = current
            self._publish([self._rotated_event(revealed)])
            return revealed, current

        return await self.call(command)

    def _log_ids(self, **more: Any) -> dict[str, Any]:
        """``extra`` for a log line about this table: its id and the running hand's number."""
        return {
            "table": self.table_id,
            "hand": self._hand_number if self._hand is not None else None,
            **more,
        }

    _cancel_reason = "cancelled"
    #: paused by a drain (not by ops), and which one (stored with the status)
    _held_by_drain: DrainHold | None = None
    _acting: tuple[int, str] | None = None
    _arrived = 0.0
    _published_events = 0


def hand_trail(hand: Hand) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A hand's trail as its record keeps it, finished or cancelled: every card dealt with its
    deck position, and every action (decisions, bring-in, shows and mucks)."""
    up_by_index = {e.deck_index: (e.up, e.street) for e in hand.events if isinstance(e, CardDealt)}
    cards = []
    for seat, card, index in hand.dealt_cards:
        # A card with no deal event of its own is never claimed to be face up.
        up, street = up_by_index.get(index, (False, None))
        cards.append(
            {
                "seat": seat,
                "card": format_card(card),
                "deck_index": index,
                "up": up,
                "street": str(street) if street else None,
            }
        )
    actions: list[dict[str, Any]] = []
    for e in hand.events:
        if isinstance(e, ActionTaken):
            actions.append(
                {
                    "seat": e.seat,
                    "do": str(e.kind),
                    "amount": e.amount,
                    "to": e.to,
                    "all_in": e.all_in,
                    "timeout": e.by_timeout,
                }
            )
        elif isinstance(e, BringInPosted):
            actions.append(
                {"seat": e.seat, "do": "bring_in", "amount": e.amount, "all_in": e.all_in}
            )
        elif isinstance(e, ProtectionApplied):
            actions.append({"seat": e.seat, "do": "timeout", "protected": True})
        elif isinstance(e, HandShown):
            actions.append({"seat": e.seat, "do": "show"})
        elif isinstance(e, HandMucked):
            actions.append({"seat": e.seat, "do": "muck"})
    return cards, actions


def _command_name(command: Callable[..., Any]) -> str:
    """The runtime method a command closure belongs to ("act", "pause", ...)."""
    parts = getattr(command, "__qualname__", "").split(".")
    return parts[-3] if len(parts) >= 3 and parts[-2] == "<locals>" else "command"
