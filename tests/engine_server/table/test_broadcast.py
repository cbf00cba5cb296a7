"""The broadcaster alone: numbering, fan-out, redaction per seat, back-pressure, endings."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine_server.game.events import CardDealt
from engine_server.game.profiles import Street
from engine_server.game.views import HiddenCardDealt
from engine_server.table.broadcast import Broadcaster, Update, Watcher
from engine_server.table.errors import TableError
from engine_server.table.events import PlayerJoined, PlayerSatOut
from engine_server.table.state import TableState
from tests.engine_server.table.states import deal, seat, table_state


@dataclass
class Hooks:
    latencies: list[float] = field(default_factory=list)
    on_view_latency: Callable[[float], None] | None = None

    def __post_init__(self) -> None:
        self.on_view_latency = self.latencies.append


@dataclass
class Clock:
    arrived: float = 0.0


def _broadcaster(state: TableState, backlog: int = 16) -> tuple[Broadcaster, Hooks, Clock]:
    hooks, clock = Hooks(), Clock(time.perf_counter())
    return Broadcaster(state, backlog, hooks, clock), hooks, clock


def _queued(watcher: Watcher) -> list[object]:
    items = []
    while not watcher.queue.empty():
        items.append(watcher.queue.get_nowait())
    return items


async def test_every_change_is_numbered_whoever_watches() -> None:
    broadcaster, hooks, _ = _broadcaster(table_state(seat(1), seat(2)))
    broadcaster.publish([PlayerJoined(1)])
    broadcaster.publish([])  # no change: no number
    broadcaster.publish([PlayerJoined(2)])
    assert broadcaster.sequence == 2
    assert hooks.latencies == []  # nobody watched: no view was built
    watcher = broadcaster.attach(1, admin=False)
    (first,) = _queued(watcher)
    # A stream's first update is the whole view as of the last change, with no events.
    assert isinstance(first, Update)
    assert (first.sequence, first.events, first.own) == (2, (), None)
    assert first.view.viewer_seat == 1


async def test_one_change_is_one_message_per_stream_redacted_for_each_seat() -> None:
    state = table_state(seat(1), seat(2), seat(3))
    deal(state)
    broadcaster, hooks, clock = _broadcaster(state)
    players = {n: broadcaster.attach(n, admin=False) for n in (1, 2)}
    ops = broadcaster.attach(None, admin=True)
    for watcher in (*players.values(), ops):
        _queued(watcher)
    assert broadcaster.open_streams() == (2, 1)
    hidden = CardDealt(2, 7, False, Street.THIRD, 4)
    broadcaster.publish([hidden, PlayerSatOut(3)])
    one = _queued(players[1])
    two = _queued(players[2])
    admin = _queued(ops)
    assert len(one) == len(two) == len(admin) == 1
    first, second, audit = one[0], two[0], admin[0]
    assert isinstance(first, Update) and isinstance(second, Update) and isinstance(audit, Update)
    assert first.sequence == second.sequence == audit.sequence == 1
    assert first.events == (HiddenCardDealt(2, Street.THIRD), PlayerSatOut(3))
    assert second.events == (hidden, PlayerSatOut(3))
    assert audit.events == (hidden, PlayerSatOut(3))
    # One public view for every player, each with his own part; ops get their whole view.
    assert first.view is second.view and first.view.viewer_seat is None
    assert all(s.down_cards == () for s in first.view.seats)
    assert state.hand is not None
    for number, update in ((1, first), (2, second)):
        player = state.hand.player(number)
        assert player is not None and update.own is not None
        assert update.own.down_cards == tuple(player.down_cards)
    assert audit.own is None and all(s.down_cards for s in audit.view.seats)
    # The streams of one change share its conversions.
    assert first.shared is second.shared is audit.shared
    assert (
        len(hooks.latencies) == 1 and 0 <= hooks.latencies[0] <= time.perf_counter() - clock.arrived
    )


async def test_only_the_acts_own_change_carries_its_action_id() -> None:
    broadcaster, _, _ = _broadcaster(table_state(seat(1), seat(2)))
    watcher = broadcaster.attach(1, admin=False)
    _queued(watcher)
    broadcaster.acting = (broadcaster.sequence + 1, "a-1")
    broadcaster.publish([PlayerSatOut(2)])
    broadcaster.publish([PlayerJoined(3)])
    updates = _queued(watcher)
    assert [u.action_id for u in updates if isinstance(u, Update)] == ["a-1", ""]


async def test_a_stream_too_far_behind_is_ended_and_the_others_go_on() -> None:
    broadcaster, _, _ = _broadcaster(table_state(seat(1), seat(2)), backlog=3)
    slow = broadcaster.attach(1, admin=False)  # never read
    quick = broadcaster.attach(2, admin=False)
    for n in range(4):
        _queued(quick)
        broadcaster.publish([PlayerJoined(3 + n)])
    # Its backlog is dropped so that its ending reaches it at once.
    (ending,) = _queued(slow)
    assert isinstance(ending, TableError) and ending.reason == "SLOW_CONSUMER"
    assert slow.closed and broadcaster.watchers == [quick]
    assert [u.sequence for u in _queued(quick) if isinstance(u, Update)] == [4]


async def test_streams_end_cleanly_with_their_seat_or_the_table() -> None:
    broadcaster, _, _ = _broadcaster(table_state(seat(1), seat(2)))
    one, two, ops = (broadcaster.attach(n, admin=n is None) for n in (1, 2, None))
    broadcaster.end_seats([1])
    assert _queued(one)[-1] is None and one.closed
    assert broadcaster.watchers == [two, ops]
    broadcaster.end_all()
    assert _queued(two)[-1] is None and _queued(ops)[-1] is None
    assert broadcaster.watchers == []


async def test_detaching_says_whether_the_seat_still_has_a_stream() -> None:
    broadcaster, _, _ = _broadcaster(table_state(seat(1), seat(2)))
    first = broadcaster.attach(1, admin=False)
    second = broadcaster.attach(1, admin=False)
    ops = broadcaster.attach(None, admin=True)
    assert broadcaster.detach(first) is False
    assert broadcaster.detach(second) is True
    assert broadcaster.detach(ops) is False  # ops watch no seat
    assert first.closed and second.closed and broadcaster.watchers == []
