"""One live table of poker: the commands callers send it, and its hands from start to end.

A :class:`TableRuntime` is the only code that touches its table's state. It is the
handler of its :class:`~engine_server.table.actor.TableActor` (the owner task that runs
the commands one at a time and keeps the clock, knowing no poker), as a Nakama match
handler is of its match loop: callers (the gRPC and Connect adapters, the admin RPCs) send
commands through its methods; each command checks and changes the
:class:`~engine_server.table.state.TableState` through the rules
(:mod:`engine_server.table.rules`), asks the store between a check and its change, and
hands the resulting events to the :class:`~engine_server.table.broadcast.Broadcaster`,
which sends every watcher its view. Here too: starting hands, moving the clock, storing
every action before anyone is told of it, and persisting each finished hand in one
transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from engine_server.game.actions import ActionKind, ActionRefused
from engine_server.game.cards import Card
from engine_server.game.events import HandStarted
from engine_server.game.hand import Phase
from engine_server.game.profiles import Stakes
from engine_server.game.replay import action_record, hand_trail
from engine_server.table import tournament_ops, views
from engine_server.table.actor import TableActor
from engine_server.table.acts import (
    ActAnswer,
    ActOutcome,
    AnsweredActions,
    recorded_outcome,
    refusal,
    running_hand,
    timeout_taken,
)
from engine_server.table.broadcast import Broadcaster, Update, Watcher
from engine_server.table.errors import ErrorKind, TableError
from engine_server.table.events import TurnStarted, UpdateEvent
from engine_server.table.model import (
    Destination,
    LastHand,
    Removal,
    SeatState,
    SeedPair,
    SessionSnapshot,
    TableConfig,
    TableStatus,
    TableView,
    TournamentInfo,
)
from engine_server.table.ports import RevealedPair, TableStore
from engine_server.table.records import hand_record
from engine_server.table.retry import WriteRetry
from engine_server.table.rules import (
    TableRules,
    chips,
    hands,
    ops,
    rules_for,
    seating,
    seeds,
    tournament,
)
from engine_server.table.rules.ops import StatusChange
from engine_server.table.stalls import StallWatch
from engine_server.table.state import OPEN_STATUSES, TableState
from engine_server.table.turn_clock import TurnClock

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


@dataclass(frozen=True, slots=True)
class Timing:
    """How the table paces itself (the clock per decision is the table's)."""

    between_hands_seconds: float = 2.0
    #: how many messages a watcher may fall behind before its stream is ended
    watcher_backlog: int = 2048
    #: how many answered action ids a table remembers for idempotent retries (about four
    #: decisions of each seat of a full table: a client retries its last action, within
    #: seconds; more only held memory, about 0.3 KiB an answer)
    remembered_actions: int = 32
    #: the first and the longest pause before a write the database failed is tried again
    #: (a hand's start or end while the database is away; doubled after each failure)
    retry_seconds: float = 0.5
    retry_max_seconds: float = 5.0


@dataclass(slots=True)
class RuntimeHooks:
    """Callbacks for metrics and audit logs (all optional)."""

    on_hand_started: Callable[[str], None] | None = None
    on_hand_finished: Callable[[str, bool], None] | None = None
    on_action: Callable[[str, str, bool], None] | None = None
    on_view_latency: Callable[[float], None] | None = None


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
        rules: TableRules | None = None,
        stalls: StallWatch | None = None,
        level: int = 0,
        hand_held: bool = False,
        tournament_info: TournamentInfo | None = None,
        places: dict[str, tuple[int, int]] | None = None,
        last_hand: LastHand | None = None,
    ) -> None:
        self.state = TableState(
            config,
            seed,
            status,
            hands_started=hands_started,
            button=button,
            seats={s.seat: s for s in seats or []},
            hand_number=hands_started,
            level=level,
            hand_held=hand_held,
            tournament_info=tournament_info,
            places=dict(places or {}),
            last_hand=last_hand,
        )
        self.timing = timing or Timing()
        self.hooks = hooks or RuntimeHooks()
        self.rules = rules or rules_for(config)
        self._store = store
        self._actor = TableActor(config.table_id, self, inline=status is TableStatus.CLOSED)
        self._broadcast = Broadcaster(
            self.state, self.timing.watcher_backlog, self.hooks, self._actor
        )
        self._answers = AnsweredActions(self.timing.remembered_actions)
        #: the turn's clock, given back what the node's heartbeat saw stalled
        self._clock = TurnClock(
            self.state, stalls or StallWatch(), self._broadcast, self._actor, self.log_ids
        )
        #: loop time of the next hand's start
        self._next_hand_at: float | None = None
        #: how many of the running hand's events have been published
        self._published_events = 0
        #: how many of its events were looked at for actions to store, and how many actions
        #: the store holds (the next one's ``seq``)
        self._recorded_events = 0
        self._recorded_actions = 0
        #: the decisions taken in it, in order, (seat, kind, to) or (seat, None, None) for a
        #: timeout: what deals it again up to the last one if that one is not stored
        self._decisions: list[tuple[int, ActionKind | None, int | None]] = []
        #: failed writes' backoff, and a hand end not stored yet
        self._retry = WriteRetry(
            config.table_id,
            self.timing.retry_seconds,
            self.timing.retry_max_seconds,
            self.log_ids,
        )
        self._idle = asyncio.Event()
        self._idle.set()
        self._closed = asyncio.Event()
        if status is TableStatus.CLOSED:
            self._closed.set()

    # ------------------------------------------------------------ the table

    @property
    def table_id(self) -> str:
        return self.state.config.table_id

    @property
    def config(self) -> TableConfig:
        return self.state.config

    @property
    def seed(self) -> SeedPair:
        return self.state.seed

    @property
    def status(self) -> TableStatus:
        return self.state.status

    @property
    def hands_started(self) -> int:
        return self.state.hands_started

    @property
    def button(self) -> int | None:
        return self.state.button

    @property
    def seats(self) -> dict[int, SeatState]:
        return self.state.seats

    @property
    def draining(self) -> bool:
        return self.state.draining

    @draining.setter
    def draining(self, value: bool) -> None:
        self.state.draining = value

    @property
    def hand_running(self) -> bool:
        return self.state.hand is not None

    @property
    def hand_number(self) -> int:
        return self.state.hand_number

    @property
    def running(self) -> bool:
        """Whether the owner task runs (it takes commands)."""
        task = self._actor.task
        return task is not None and not task.done()

    # ------------------------------------------------------------ lifecycle

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._next_hand_at = loop.time() + self.timing.between_hands_seconds
        self._actor.start()
        self._clock.subscribe()

    async def stop(self, ending: TableError | None = None) -> None:
        """Stop the owner task (a running hand stays unfinished: recovery cancels it); every
        stream ends with ``ending`` (default: UNAVAILABLE / TABLE_MOVED, the engine is
        shutting down; a moved table's names its new owner)."""
        self._clock.unsubscribe()
        await self._actor.stop()
        for watcher in list(self._broadcast.watchers):
            self._broadcast.end(
                watcher,
                ending
                or TableError(ErrorKind.UNAVAILABLE, "TABLE_MOVED", "the engine is shutting down"),
            )

    async def wait_idle(self) -> None:
        """Wait until no hand is running."""
        await self._idle.wait()

    async def wait_closed(self) -> None:
        await self._closed.wait()

    async def call(self, command: Callable[[], Awaitable[T]]) -> T:
        """Run ``command`` in the owner task, after every command sent before it."""
        return await self._actor.call("command", command)

    # ---------------------------------------------- the actor's handler (TableHandler)

    async def on_start(self) -> None:
        try:
            await self._pay_out_leavers()
        except Exception:
            log.exception(
                "table %s: could not pay out the players who were leaving",
                self.table_id,
                extra=self.log_ids(),
            )

    def next_wakeup(self) -> float | None:
        if self._retry.end_retry_at is not None:
            # nothing else happens until the hand's end is stored
            return self._retry.end_retry_at
        turn_ends = self._clock.ends_at
        # The next hand's time counts only while a hand may start: a paused, closing or
        # draining table keeps its (past) time, and waking for it would spin the loop.
        if self._may_deal():
            next_hand = self._next_hand_at
            if next_hand is not None and (turn_ends is None or next_hand < turn_ends):
                return next_hand
        return turn_ends

    async def on_timer(self, now: float) -> None:
        retry = self._retry
        if retry.end_retry_at is not None:
            if now >= retry.end_retry_at and retry.unsaved_end is not None:
                await self._end_hand(retry.unsaved_end)
            return
        clock = self._clock
        if clock.ends_at is not None and now >= clock.ends_at:
            # On the first turn of the loop after a freeze this timer may run before the
            # heartbeat: the stall is counted here all the same.
            self._clock.give_back(now)
        if clock.ends_at is not None and now >= clock.ends_at:
            clock.ends_at = None
            hand = self.state.hand
            if hand is not None and hand.to_act is not None:
                seat = hand.to_act
                before = len(hand.events)
                hand.timeout(seat)
                self._decisions.append((seat, None, None))
                try:
                    await self._record_actions()
                except Exception as error:
                    # Not stored, so not taken: the clock tries again after a pause (nobody
                    # has been told of it, and a crash now must not lose it).
                    self._take_back()
                    if isinstance(error, TableError) and not error.database_outage:
                        raise
                    clock.ends_at = now + self._retry.failed(f"store seat {seat}'s timeout", error)
                    return
                self._retry.succeeded()
                # What the clock did for him (fold, check, protect, ...), not just "timeout".
                taken = timeout_taken(hand, seat, before)
                log.info(
                    "table %s hand %d: seat %d timed out (%s)",
                    self.table_id,
                    self.state.hand_number,
                    seat,
                    taken,
                    extra=self.log_ids(seat=seat, action=taken),
                )
                if self.hooks.on_action:
                    self.hooks.on_action(self.table_id, taken, True)
                await self._after_hand_change()
        await self._maybe_start_hand()

    async def after_command(self) -> None:
        if not self._may_deal():
            return  # (most commands: a hand is running)
        try:
            await self._maybe_start_hand()
        except Exception:
            log.exception("table %s: could not start a hand", self.table_id, extra=self.log_ids())

    def log_ids(self, **more: Any) -> dict[str, Any]:
        """``extra`` for a log line about this table: its id and the running hand's number."""
        state = self.state
        return {
            "table": state.config.table_id,
            "hand": state.hand_number if state.hand is not None else None,
            **more,
        }

    async def _pay_out_leavers(self) -> None:
        """Seats loaded as leaving (a previous engine died during their last hand, which
        recovery cancelled): no hand is running now, so they are paid out at once."""
        for seat in [s for s in self.state.seats.values() if s.leaving]:
            seat.leaving = False
            if seat.move_to is not None:
                # A tournament player moved after that hand: he goes with the chips he has.
                await self._store.close_session(seat.session_id, seat.stack, "moved")
                self._broadcast.publish(tournament.moved(self.state, seat, seat.move_to))
                continue
            await self._leave(seat, seat.leave_reason)

    # ------------------------------------------------------------ views and watchers

    def view(
        self, viewer: int | None, *, reveal_all: bool = False, sessions: bool = False
    ) -> TableView:
        """The table as ``viewer`` may see it (``reveal_all``: ops' audited view).

        Seat session ids (the lobby's keys) are only in AdminService views: ``reveal_all``
        or ``sessions``.
        """
        return views.table_view(self.state, viewer, reveal_all=reveal_all, sessions=sessions)

    async def watch(self, seat: int | None, *, admin: bool = False) -> Watcher:
        """Open a stream for ``seat`` (None: a railbird's, or ops' with ``admin``): a fresh
        snapshot first, then every update."""
        return await self._actor.call("watch", self._watch, seat, admin)

    async def _watch(self, seat: int | None, admin: bool) -> Watcher:
        seating.check_may_watch(self.state, seat)
        if seat is None:
            watcher = self._broadcast.attach(None, admin)
            # Everyone's view counts the railbirds.
            self._broadcast.publish(self._broadcast.railbirds_changed())
            return watcher
        if seat is not None:
            broadcast = self._broadcast
            for old in [w for w in broadcast.watchers if w.seat == seat]:
                broadcast.end(
                    old,
                    TableError(
                        ErrorKind.ABORTED, "WATCH_REPLACED", "a newer watch replaced this one"
                    ),
                )
            # Connected first (the others hear of it), so that the new stream's snapshot shows
            # him connected, with any reconnect time already on his clock.
            await self._set_connected(seat, True)
        return self._broadcast.attach(seat, admin)

    def open_streams(self) -> tuple[int, int]:
        """How many streams watch this table: players' and ops' (for metrics)."""
        return self._broadcast.open_streams()

    async def unwatch(self, watcher: Watcher) -> None:
        """The stream behind ``watcher`` ended (the client went away)."""
        if watcher.closed:
            return
        with contextlib.suppress(TableError):
            await self._actor.call("unwatch", self._unwatch, watcher)

    async def _unwatch(self, watcher: Watcher) -> None:
        if self._broadcast.detach(watcher) and watcher.seat is not None:
            await self._set_connected(watcher.seat, False)
        self._broadcast.publish(self._broadcast.railbirds_changed())

    async def _set_connected(self, seat: int, connected: bool) -> None:
        # A stall not yet given back is owed before the clock is set anew.
        self._clock.give_back(asyncio.get_running_loop().time())
        turn_ends = self._clock.ends_at
        events, extra = seating.connect(self.state, seat, connected, turn_ends is not None)
        if extra and turn_ends is not None:
            self._clock.set(turn_ends - asyncio.get_running_loop().time() + extra)
        self._broadcast.publish(events)

    # ------------------------------------------------------------------ hands

    def _may_deal(self) -> bool:
        """Whether a hand may start when its time comes: none runs, the table is open, this
        node is not draining, and the table's rules do not hold it."""
        state = self.state
        return (
            state.hand is None
            and not state.draining
            and state.status in OPEN_STATUSES
            and self.rules.may_deal(state)
        )

    async def _maybe_start_hand(self) -> None:
        if not self._may_deal():
            return
        loop = asyncio.get_running_loop()
        if self._next_hand_at is not None and loop.time() < self._next_hand_at:
            return
        state = self.state
        ready = seating.ready_seats(state)
        if len(ready) < 2:
            self._next_hand_at = None
            if state.status is not TableStatus.WAITING:
                await self._set_status(TableStatus.WAITING, "waiting for players")
            return
        button = seating.next_button(state.button, ready)
        stakes = self.rules.stakes(state)
        try:
            if state.status is not TableStatus.PLAYING:
                await self._set_status(TableStatus.PLAYING, "")
            started = await self._store.start_hand(
                self.table_id,
                state.hands_started + 1,
                state.seed.id,
                button,
                hands.players(state, ready),
                state.config.settings.name,
                {
                    "rules": state.config.settings.to_json(),
                    "stakes": stakes.to_json(),
                    "action_seconds": state.config.action_seconds,
                },
            )
        except Exception as error:
            if isinstance(error, TableError) and not error.database_outage:
                raise
            # The database is away (a restart, a full disk, a read-only file): nothing was
            # dealt. Try again after a pause that grows, rather than at every wake-up.
            self._next_hand_at = loop.time() + self._retry.failed("start a hand", error)
            return
        self._retry.succeeded()
        # Answered action ids outlive their hand (bounded by remembered_actions): a retry of
        # the action that ended the last hand must get its answer again, not STALE_HAND.
        self._idle.clear()
        began = hands.begin(state, started, ready, button, stakes)
        self._next_hand_at = None
        log.info(
            "table %s hand %d started (nonce %d, seats %s)",
            self.table_id,
            state.hand_number,
            started.nonce,
            ",".join(map(str, ready)),
            extra=self.log_ids(hand_id=started.hand_id, nonce=started.nonce, seats=ready),
        )
        if self.hooks.on_hand_started:
            self.hooks.on_hand_started(self.table_id)
        self._published_events = 0
        self._recorded_events = 0
        self._recorded_actions = 0
        self._decisions = []
        with contextlib.suppress(Exception):
            # Its forced actions (antes, a forced bring-in) are the deal's: a restart deals
            # them again from the seed pair. Not stored now, they go with the next action.
            await self._record_actions()
        await self._after_hand_change(began)

    async def _after_hand_change(self, cause: UpdateEvent | None = None) -> None:
        """Publish the hand's new events, move the clock, and finish the hand when over.

        ``cause``: an event of the table's that leads the change (the hand's start).
        """
        state = self.state
        hand = state.hand
        assert hand is not None
        new_events: list[UpdateEvent] = [] if cause is None else [cause]
        new_events.extend(
            e for e in hand.events[self._published_events :] if not isinstance(e, HandStarted)
        )
        self._published_events = len(hand.events)
        if hand.is_over:
            await self._end_hand(new_events)
            return
        self._clock.set(state.config.action_seconds)
        turn = hand.to_act
        if turn is not None and state.turn_deadline is not None:
            new_events.append(TurnStarted(turn, state.turn_deadline))
        self._broadcast.publish(new_events)

    async def _record_actions(self) -> None:
        """Store the running hand's actions nobody has been told of yet (all of them, before
        anyone is): raises when the database failed (then none of them is stored)."""
        state = self.state
        hand = state.hand
        assert hand is not None and state.hand_id is not None
        events = hand.events
        new = [a for a in map(action_record, events[self._recorded_events :]) if a is not None]
        if new:
            await self._store.record_actions(state.hand_id, self._recorded_actions, new)
            self._recorded_actions += len(new)
        self._recorded_events = len(events)

    def _take_back(self) -> None:
        """The hand's last decision was not stored: the hand as it was before it (dealt
        again, and every earlier decision taken again: the rules are deterministic)."""
        state = self.state
        assert state.hand is not None
        hand = hands.deal_again(state, state.hand)
        self._decisions.pop()
        for seat, kind, to in self._decisions:
            if kind is None:
                hand.timeout(seat)
            else:
                hand.act(seat, kind, to)
        state.hand = hand

    async def _end_hand(self, hand_events: list[UpdateEvent]) -> None:
        state = self.state
        hand = state.hand
        assert hand is not None and state.hand_id is not None
        cancelled = hand.phase is Phase.CANCELLED
        self._clock.stop()
        final = hands.final_stacks(hand, cancelled)
        # A tournament player with no chips left is out: closed with the hand, in its write.
        busted = [] if cancelled else self.rules.busted(state, final)
        leaving = hands.leaving(state)
        try:
            if cancelled:
                # What was dealt and done before the cancel is kept for the audit (no chip
                # moves).
                await self._store.cancel_hand(
                    state.hand_id, state.cancel_reason, hand_record(state, hand)
                )
                # No hand runs now: those leaving after it leave with the stacks they began
                # it with (a move's or removal's record was written when it was asked).
                for seat in leaving:
                    await self._store.close_session(
                        seat.session_id, final.get(seat.seat, seat.stack), seat.leave_reason
                    )
            else:
                record = hand_record(state, hand)
                await self._store.finish_hand(
                    state.hand_id,
                    record,
                    {state.hand_seats[n].session_id: stack for n, stack in final.items()},
                    [(s.session_id, s.leave_reason) for s in leaving],
                    state.button or 0,
                )
        except Exception as error:
            if isinstance(error, TableError) and not error.database_outage:
                raise
            # The hand is over but its end is not stored: the database is away. Nobody is
            # told the result yet (a crash now cancels the hand, every chip back, and it must
            # not have been shown as won); the table tries the same write again, with pauses
            # that grow, and deals nothing meanwhile.
            self._retry.hold_end(
                hand_events,
                f"store the end of hand {state.hand_number}",
                error,
                asyncio.get_running_loop().time(),
            )
            return
        self._retry.end_stored()
        result = None if cancelled else hand.result()
        last = hands.finished(state, hand, final, result, datetime.now(UTC))
        log.info(
            "table %s hand %d %s",
            self.table_id,
            state.hand_number,
            f"cancelled: {state.cancel_reason}" if cancelled else "finished",
            extra=self.log_ids(
                hand_id=state.hand_id,
                cancelled=cancelled,
                rake=0 if result is None else result.rake,
                final_stacks={str(n): stack for n, stack in sorted(final.items())},
            ),
        )
        state.hand = None
        state.hand_id = None
        if self.hooks.on_hand_finished:
            self.hooks.on_hand_finished(self.table_id, cancelled)
        events = list(hand_events)
        starts = {p.seat: p.start_stack for p in hand.players}
        events.extend(seating.remove_leavers(state, leaving, starts))
        events.extend(self.rules.after_hand(state))
        state.hand_seats = {}
        # A busted player's stream goes on as a railbird's (his place is told there); the
        # others' end with their seats (below).
        self._broadcast.to_rail(s.seat for s in busted)
        self._broadcast.publish(events, last.hand_number)
        # A leaver's stream ends with his seat, as when he leaves between hands: left open,
        # it would show the seat's next occupant's down cards to him.
        self._broadcast.end_seats(s.seat for s in leaving if s not in busted)
        self._next_hand_at = asyncio.get_running_loop().time() + self.timing.between_hands_seconds
        self._idle.set()
        if state.status is TableStatus.PAUSING:
            await self._set_status(TableStatus.PAUSED, "paused by ops")
        elif state.status is TableStatus.CLOSING:
            await self._close_now("closed by ops")

    # ----------------------------------------------------------------- players

    async def act(
        self, seat: int, hand_number: int, kind: ActionKind, amount: int | None, action_id: str
    ) -> ActOutcome:
        """A player's action; idempotent by ``action_id``."""
        return await self._actor.call("act", self._act, seat, hand_number, kind, amount, action_id)

    async def _act(
        self, seat: int, hand_number: int, kind: ActionKind, amount: int | None, action_id: str
    ) -> ActOutcome:
        repeated = self._answers.repeat(seat, action_id, hand_number, kind, amount)
        if repeated is not None:
            return repeated
        hand = running_hand(self.state, hand_number)
        before = len(hand.events)
        try:
            hand.act(seat, kind, amount)
        except ActionRefused as refused:
            raise refusal(hand, seat, refused) from None
        self._decisions.append((seat, kind, amount))
        try:
            # Stored before anyone is told of it: the answer, the stream and the views.
            await self._record_actions()
        except Exception as error:
            # Not stored, so not taken: he is told so, and the hand is as it was.
            self._take_back()
            if isinstance(error, TableError) and not error.database_outage:
                raise
            self._retry.failed(f"store seat {seat}'s action", error)
            if isinstance(error, TableError):
                raise
            text = str(error)
            raise TableError.database_unavailable(
                text.splitlines()[0] if text else type(error).__name__
            ) from None
        self._retry.succeeded()
        outcome = recorded_outcome(hand, seat, kind, before)
        broadcast = self._broadcast
        # The action's change is the next one published (with the cards and turn after it).
        sequence = broadcast.sequence + 1
        if self.hooks.on_action:
            # The action as taken (a bring-in may have been completed), not as asked.
            self.hooks.on_action(self.table_id, str(outcome.kind), False)
        broadcast.acting = (sequence, action_id)
        try:
            await self._after_hand_change()
        finally:
            broadcast.acting = None
        answer = ActOutcome(
            sequence,
            hand_number,
            seat,
            outcome.kind,
            outcome.amount,
            outcome.to,
            outcome.all_in,
        )
        self._answers.remember(action_id, kind, amount, answer)
        return answer

    async def leave(self, seat: int, reason: str = "left") -> SessionSnapshot:
        """Leave: paid out at once between hands; in a hand, at its end (docs/rules.md §2.8)."""
        return await self._actor.call("leave", self._leave_seat, seat, reason)

    async def _leave_seat(self, seat: int, reason: str) -> SessionSnapshot:
        self.rules.check_player_choice(self.state, "Leave")
        return await self._leave(seating.seated_at(self.state, seat), reason)

    async def _leave(
        self, seat: SeatState, reason: str, removal: Removal | None = None
    ) -> SessionSnapshot:
        """Pay the player out now, or mark him leaving after his hand. ``removal``: the
        RemovePlayer doing it, stored with the answer in the same write as the change."""
        state = self.state
        if seat.leaving:
            answer = seating.session(state, seat)
            if removal is not None:
                await self._store.record_removal(seat.session_id, removal, answer)
            return answer
        if state.in_running_hand(seat):
            await self._store.mark_closing(seat.session_id, removal)
            self._broadcast.publish(seating.leave_after_hand(state, seat, reason))
            return seating.session(state, seat)
        closed = await self._store.close_session(seat.session_id, seat.stack, reason, removal)
        self._broadcast.publish(seating.left(state, seat, reason))
        self._broadcast.end_seats([seat.seat])
        return closed

    async def sit_out(self, seat: int, out: bool) -> tuple[SeatState, int]:
        """Sit out (or back in) from the next hand; returns the seat and that hand's number."""
        return await self._actor.call("sit_out", self._sit_out, seat, out)

    async def _sit_out(self, seat: int, out: bool) -> tuple[SeatState, int]:
        if out:
            self.rules.check_player_choice(self.state, "SitOut")
        state, events = seating.sit_out(self.state, seat, out)
        self._broadcast.publish(events)
        return state, self.state.hands_started + 1

    async def show_cards(self, seat: int, hand_number: int) -> tuple[Card, ...]:
        """A winner by folds shows his cards after the hand (where the profile lets him)."""
        return await self._actor.call("show_cards", self._show_cards, seat, hand_number)

    async def _show_cards(self, seat: int, hand_number: int) -> tuple[Card, ...]:
        cards, events = hands.show_after(self.state, seat, hand_number)
        self._broadcast.publish(events)
        return cards

    # --------------------------------------------------------------------- ops

    async def seat_player(
        self, session_id: str, player_id: str, display_name: str, seat: int, buy_in: int
    ) -> SessionSnapshot:
        return await self._actor.call(
            "seat_player", self._seat_player, session_id, player_id, display_name, seat, buy_in
        )

    async def _seat_player(
        self, session_id: str, player_id: str, display_name: str, seat: int, buy_in: int
    ) -> SessionSnapshot:
        state = self.state
        repeated = seating.repeated_seating(state, session_id, player_id, seat)
        if repeated is not None:
            return repeated
        seating.check_open_for_seating(state)
        self.rules.check_buy_in(state.config, buy_in, "buy_in")
        number = seating.seat_to_take(state, player_id, seat)
        snapshot = await self._store.seat_player(
            self.table_id, session_id, player_id, display_name, number, buy_in
        )
        self._broadcast.publish(
            seating.seated(state, snapshot, session_id, player_id, display_name)
        )
        return snapshot

    async def add_chips(self, session_id: str, request_id: str, amount: int) -> SessionSnapshot:
        return await self._actor.call("add_chips", self._add_chips, session_id, request_id, amount)

    async def _add_chips(self, session_id: str, request_id: str, amount: int) -> SessionSnapshot:
        state = self.state
        # A retry of an addition already made gets its first answer and changes nothing,
        # however late it comes: after later hands, the session's close or a restart.
        earlier = (
            await self._store.chip_addition(session_id, request_id, amount) if amount > 0 else None
        )
        if earlier is not None:
            return chips.repeated_addition(state, earlier, request_id)
        self.rules.check_player_choice(state, "AddChips")
        seat = chips.addition_seat(state, session_id, amount)
        snapshot = await self._store.add_chips(session_id, request_id, amount)
        if chips.above_maximum(state.config, seat, snapshot):
            log.warning(
                "table %s: stack above the maximum buy-in",
                self.table_id,
                extra=self.log_ids(seat=seat.seat),
            )
        self._broadcast.publish(chips.chips_added(seat, snapshot))
        return snapshot

    async def remove_player(self, session_id: str, removal: Removal) -> SessionSnapshot:
        return await self._actor.call("remove_player", self._remove_player, session_id, removal)

    async def _remove_player(self, session_id: str, removal: Removal) -> SessionSnapshot:
        state = self.state
        # Idempotent on the session: a retry gets the first answer (closing or closed) and
        # changes nothing, however late it comes; another reason is another request.
        earlier = await self._store.removal(session_id)
        answer = seating.repeated_removal(state, session_id, earlier, removal)
        if answer is not None:
            return answer
        seat = seating.seat_of_session(state, session_id)
        # The lobby relaying his own leave closes the session as Leave does: "left".
        return await self._leave(seat, removal.close_reason, removal=removal)

    async def _set_status(self, status: TableStatus, reason: str) -> None:
        state = self.state
        if status is state.status:
            return
        log.info(
            "table %s: %s -> %s (%s)",
            self.table_id,
            state.status,
            status,
            reason or "-",
            extra=self.log_ids(status=str(status), reason=reason),
        )
        before = state.status, state.held_by_drain
        event = ops.change_status(state, status, reason)
        # Stored as shown (ListTables filters on it), with the drain holding it, if any: what
        # a node loading the table next does with the pause (DrainHold).
        try:
            await self._store.set_table_status(self.table_id, status, state.held_by_drain)
        except BaseException:
            # Not stored (the database is away): nothing changed, and the change is made
            # again by whatever asks for it next.
            state.status, state.held_by_drain = before
            raise
        self._broadcast.publish([event])

    async def _change_status(self, change: StatusChange | None) -> None:
        """Carry out what an ops rule decided."""
        if change is None:
            return
        if change.status is None:
            state = self.state
            await self._store.set_table_status(self.table_id, state.status, state.held_by_drain)
        else:
            await self._set_status(change.status, change.reason)

    async def drain(self, kept: bool = False) -> None:
        """This node drains: no hand starts here any more. An open table shows PAUSING while
        its hand plays out, then PAUSED. ``kept`` (ops' Drain): the pause outlasts a restart;
        else (the node stopping) the next start deals again."""
        await self._actor.call("drain", self._drain, kept)

    async def _drain(self, kept: bool) -> None:
        await self._change_status(ops.drain(self.state, kept))

    async def pause(self, reason: str) -> None:
        await self._actor.call("pause", self._pause, reason)

    async def _pause(self, reason: str) -> None:
        await self._change_status(ops.pause(self.state, reason))

    async def resume(self) -> None:
        await self._actor.call("resume", self._resume)

    async def _resume(self) -> None:
        await self._change_status(ops.resume(self.state))
        loop = asyncio.get_running_loop()
        self._next_hand_at = loop.time() + self.timing.between_hands_seconds

    async def close(self, reason: str) -> list[SessionSnapshot]:
        """Close: the running hand finishes, then everyone is paid out."""
        return await self._actor.call("close", self._close, reason)

    async def _close(self, reason: str) -> list[SessionSnapshot]:
        state = self.state
        if state.status is TableStatus.CLOSED:
            return []
        if state.hand is not None:
            await self._set_status(TableStatus.CLOSING, reason or "closing")
            # No session is final yet: they close (and are listed) once the hand ends.
            return []
        return await self._close_now(reason or "closed by ops")

    async def _close_now(self, reason: str) -> list[SessionSnapshot]:
        state = self.state
        closed, revealed = await self._store.close_table(self.table_id)
        log.info(
            "table %s closed (%s): %d seat sessions paid out",
            self.table_id,
            reason,
            len(closed),
            extra=self.log_ids(status=str(TableStatus.CLOSED), reason=reason),
        )
        self._broadcast.publish(ops.closed(state, closed, seeds.revealed(state, revealed), reason))
        self._broadcast.end_all()
        self._next_hand_at = None
        self._closed.set()
        return closed

    async def cancel_hand(self, hand_number: int, reason: str) -> LastHand:
        """Cancel the running hand: every chip put in goes back."""
        return await self._actor.call("cancel_hand", self._cancel_hand, hand_number, reason)

    async def _cancel_hand(self, hand_number: int, reason: str) -> LastHand:
        hands.cancel(self.state, hand_number, reason)
        await self._after_hand_change()
        assert self.state.last_hand is not None
        return self.state.last_hand

    async def rotate_seed(self, client_seed: str | None) -> tuple[RevealedPair, SeedPair]:
        """Reveal the current dealer seed and deal on from the next pair (between hands)."""
        return await self._actor.call("rotate_seed", self._rotate_seed, client_seed)

    async def _rotate_seed(self, client_seed: str | None) -> tuple[RevealedPair, SeedPair]:
        seeds.check_rotation(self.state)
        revealed, current = await self._store.rotate_seed(self.table_id, client_seed)
        self._broadcast.publish([seeds.rotated(self.state, revealed, current)])
        return revealed, current

    # -------------------------------------------------------------- tournaments

    async def set_stakes(self, level: int, stakes: Stakes) -> int:
        """SetStakes: ``level``'s stakes from the next hand on; returns that hand's number."""
        return await self._actor.call(
            "set_stakes", tournament_ops.set_stakes, *self._parts(), level, stakes
        )

    async def set_hand_hold(self, held: bool) -> None:
        """SetHandHold: hold the next hand (hand-for-hand), or release it."""
        await self._actor.call("set_hand_hold", self._set_hand_hold, held)

    async def _set_hand_hold(self, held: bool) -> None:
        if await tournament_ops.set_hand_hold(*self._parts(), held):
            # Released: the tables of a hand-for-hand round start together, now.
            self._next_hand_at = asyncio.get_running_loop().time()

    async def set_tournament_info(self, info: TournamentInfo) -> None:
        await self._actor.call("set_tournament_info", tournament_ops.set_info, *self._parts(), info)

    async def award_place(self, player_id: str, display_name: str, place: int, prize: int) -> None:
        await self._actor.call(
            "award_place",
            tournament_ops.award_place,
            *self._parts(),
            player_id,
            display_name,
            place,
            prize,
        )

    async def move_player(
        self, session_id: str, request_id: str, destination: Destination
    ) -> SessionSnapshot:
        """MovePlayer: off this table for a seat elsewhere, now or when his hand ends."""
        return await self._actor.call(
            "move_player",
            tournament_ops.move_player,
            *self._parts(),
            session_id,
            request_id,
            destination,
        )

    def _parts(self) -> tuple[TableState, TableStore, Broadcaster]:
        """What a command module works on: the state, the store and the broadcaster."""
        return self.state, self._store, self._broadcast
