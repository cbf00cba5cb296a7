"""The broadcaster: a table's watchers, their queues, and every change fanned out to them.

One change is one message per stream, numbered in order (``Update.sequence``): the events
as that stream may see them (redacted per seat) and the view after them, the public one
shared by every player's stream with his own part beside it. A stream that falls more than
its queue holds behind is ended (``SLOW_CONSUMER``) rather than slowing the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from engine_server.table.errors import ErrorKind, TableError
from engine_server.table.events import HandEndedOnLoad, UpdateEvent, WatchersChanged
from engine_server.table.mailbox import Mailbox
from engine_server.table.model import OwnPart, TableView
from engine_server.table.state import TableState
from engine_server.table.views import MAY_HIDE, own_parts, redacted, table_view

if TYPE_CHECKING:
    from engine_server.table.acts import ActAnswer

__all__ = ["Broadcaster", "Update", "Watcher"]


@dataclass(frozen=True, slots=True)
class Update:
    """One change as one watcher sees it: its events in order and the view after them.

    The view after a change is the public one, shared by every player's stream, with ``own``
    (the watcher's own cards and legal actions) to add; a stream's first update and ops'
    updates carry their whole view instead (``own`` None).
    """

    sequence: int
    hand_number: int
    #: empty in a stream's first update (the full snapshot), but for the end of a hand the
    #: table's previous engine left running (:class:`HandEndedOnLoad`)
    events: tuple[UpdateEvent, ...]
    view: TableView
    time: datetime
    #: the client's action id, on the update carrying that action
    action_id: str = ""
    own: OwnPart | None = None
    #: conversions the streams of one change share (filled by whoever sends the updates)
    shared: dict[object, Any] = field(default_factory=dict, compare=False)


@dataclass(eq=False)
class Watcher:
    """One WatchTable stream: its queue of updates, or the error that ended it."""

    seat: int | None
    #: a mailbox, not an asyncio.Queue: one per open stream, a quarter of the memory
    queue: Mailbox[Update | ActAnswer | TableError | None]
    admin: bool = False
    closed: bool = False
    #: when set, the time the command that caused the latest update arrived (for latency)
    pending_since: float | None = field(default=None)


class _Clock(Protocol):
    #: when the change being published was caused (``time.perf_counter``)
    arrived: float


class _Hooks(Protocol):
    on_view_latency: Callable[[float], None] | None


class Broadcaster:
    """The watchers of one table (``state``) and the numbering of its changes."""

    def __init__(self, state: TableState, backlog: int, hooks: _Hooks, clock: _Clock) -> None:
        self._state = state
        #: how many messages a watcher may fall behind before its stream is ended
        self._backlog = backlog
        self._hooks = hooks
        self._clock = clock
        self.watchers: list[Watcher] = []
        #: the number of the last change (published to nobody, too, when nobody watched)
        self.sequence = 0
        #: the next change's number and the action id it carries (an act's own change)
        self.acting: tuple[int, str] | None = None
        #: the railbird count the streams were last told (WatchersChanged)
        self._shown_watchers = 0

    def open_streams(self) -> tuple[int, int]:
        """How many streams watch this table: players' and ops' (for metrics)."""
        admins = sum(1 for w in self.watchers if w.admin)
        return len(self.watchers) - admins, admins

    def _count_railbirds(self) -> bool:
        """Count the railbirds (streams with no seat, not ops') into the state; whether the
        count changed."""
        count = sum(1 for w in self.watchers if w.seat is None and not w.admin)
        changed = count != self._state.watchers
        self._state.watchers = count
        return changed

    def attach(self, seat: int | None, admin: bool) -> Watcher:
        """A new stream for ``seat`` (None and not ``admin``: a railbird's): its first update
        is the whole view as it may see it."""
        state = self._state
        watcher = Watcher(seat, Mailbox(self._backlog), admin)
        self.watchers.append(watcher)
        self._count_railbirds()
        last = state.last_hand
        # A hand ended as the table was loaded (a restart, a takeover) was watched by nobody:
        # each stream is told in its first message, while it is the last hand.
        told = (HandEndedOnLoad(last.hand_number),) if last and last.ended_on_load else ()
        watcher.queue.put_nowait(
            Update(
                self.sequence,
                state.hand_number,
                told,
                table_view(state, seat, reveal_all=admin),
                datetime.now(UTC),
            )
        )
        return watcher

    def detach(self, watcher: Watcher) -> bool:
        """The stream behind ``watcher`` ended; whether its seat has no stream left."""
        if watcher in self.watchers:
            self.watchers.remove(watcher)
        watcher.closed = True
        seat = watcher.seat
        self._count_railbirds()
        return seat is not None and not any(w.seat == seat for w in self.watchers)

    def railbirds_changed(self) -> list[UpdateEvent]:
        """The railbird count, if it changed since the last :meth:`railbirds_changed`."""
        count = self._state.watchers
        if count == self._shown_watchers:
            return []
        self._shown_watchers = count
        return [WatchersChanged(count)]

    def to_rail(self, seats: Iterable[int]) -> None:
        """The players of ``seats`` are out of the game (busted): their streams go on as
        railbirds', with the public view only."""
        gone = set(seats)
        for watcher in self.watchers:
            if watcher.seat in gone and not watcher.admin:
                watcher.seat = None
        self._count_railbirds()

    def end(self, watcher: Watcher, reason: TableError | None) -> None:
        """End ``watcher``'s stream: ``reason`` (None: it ends cleanly) is its last message."""
        if watcher in self.watchers:
            self.watchers.remove(watcher)
            self._count_railbirds()
        watcher.closed = True
        with contextlib.suppress(asyncio.QueueFull):
            watcher.queue.put_nowait(reason)
        if watcher.queue.full():
            # The reader is far behind: drop its backlog so the ending reaches it.
            while not watcher.queue.empty():
                watcher.queue.get_nowait()
            watcher.queue.put_nowait(reason)

    def end_seats(self, seats: Iterable[int]) -> None:
        """End the streams of ``seats``, cleanly: their players have left them."""
        gone = set(seats)
        for watcher in [w for w in self.watchers if w.seat in gone]:
            self.end(watcher, None)

    def end_all(self) -> None:
        """End every stream, cleanly (the table has closed)."""
        for watcher in list(self.watchers):
            self.end(watcher, None)

    def publish(self, events: list[UpdateEvent], hand_number: int | None = None) -> None:
        """Push one change (``events``, in order) to every watcher, with its view after it.

        A change is one message per stream however many events it holds: streaming costs
        per message, and a change's events share the view after the last of them anyway.
        """
        if not events:
            return
        # Every change tells the streams of a new railbird count (the views show it anyway).
        events = [*events, *self.railbirds_changed()]
        self.sequence += 1
        sequence = self.sequence
        if not self.watchers:
            return
        state = self._state
        now = datetime.now(UTC)
        number = state.hand_number if hand_number is None else hand_number
        acting = self.acting
        action_id = acting[1] if acting is not None and acting[0] == sequence else ""
        public = tuple(events)
        # Only a card dealt or burned may read differently from seat to seat (MAY_HIDE).
        private = any(isinstance(e, MAY_HIDE) for e in public)
        # One public view for every player's stream, each adding only its own part; ops see
        # every card.
        view = table_view(state, None)
        admin_view: TableView | None = None
        shared: dict[object, Any] = {}
        owns = own_parts(state)
        for watcher in list(self.watchers):
            if watcher.admin:
                admin_view = admin_view or table_view(state, None, reveal_all=True)
                update = Update(sequence, number, public, admin_view, now, action_id, shared=shared)
            else:
                seat = watcher.seat
                own = (owns.get(seat) or OwnPart(seat, (), ())) if seat is not None else None
                shown = redacted(public, seat) if private else public
                update = Update(sequence, number, shown, view, now, action_id, own, shared)
            try:
                watcher.queue.put_nowait(update)
            except asyncio.QueueFull:
                self.end(
                    watcher,
                    TableError(
                        ErrorKind.RESOURCE_EXHAUSTED,
                        "SLOW_CONSUMER",
                        "the stream fell too far behind; watch again",
                    ),
                )
        on_latency = self._hooks.on_view_latency
        if on_latency is not None:
            on_latency(time.perf_counter() - self._clock.arrived)
