"""Each stream's message of a change is that seat's own view, though built from a shared one.

A change's public snapshot and events are converted once and copied into every stream, each
adding its own down cards and legal actions (``add_own_part``); the gRPC port sends them
encoded, the public parts encoded once and joined with each seat's own (``response_bytes``).
These tests play hands through a table runtime and hold every message, both ways, against a
conversion of the seat's own view, made from scratch at the same moment.
"""

from __future__ import annotations

import asyncio
import doctest
import random

import pytest
from stud.v1 import table_service_pb2

from engine_server.api import wire
from engine_server.api.convert import event_message, snapshot_message
from engine_server.api.table_service import response_bytes, response_of
from engine_server.game.profiles import PROFILES, Stakes
from engine_server.game.views import visible_event
from engine_server.table.model import SeatState, SeedPair, TableConfig
from engine_server.table.runtime import TableRuntime, Timing
from tests.engine_server.table.stubs import HandCountingStore, drain


def _as_seen_by(event: object, seat: int) -> object:
    """A game event as a player sees it (the table's own events hide nothing)."""
    return visible_event(event, seat) if type(event).__module__.endswith("game.events") else event  # type: ignore[arg-type]


def _from_scratch(runtime: TableRuntime, seat: int) -> table_service_pb2.WatchTableResponse:
    """The snapshot of ``seat``'s own view, converted on its own (no clock reading)."""
    message = table_service_pb2.WatchTableResponse(snapshot=snapshot_message(runtime.view(seat)))
    message.snapshot.ClearField("server_time")
    return message


@pytest.mark.parametrize("profile", ["house", "memaid", "casinos_austria_hilo"])
async def test_every_seat_gets_its_own_view_and_the_events_it_may_see(profile: str) -> None:
    rng = random.Random(profile)
    config = TableConfig("t1", PROFILES[profile], Stakes(1, 1, 2, 4), min_buy_in=10)
    seed = SeedPair("s1", "0" * 64, "c" * 64, "client", 0, "d" * 64)
    seats = [
        SeatState(n, f"p{n}", f"P{n}", f"ss{n}", rng.choice((12, 60, 400)), 400)
        for n in (1, 3, 4, 6)
    ]
    runtime = TableRuntime(
        config,
        seed,
        HandCountingStore(),  # type: ignore[arg-type]
        seats=seats,
        timing=Timing(between_hands_seconds=0.0),
    )
    runtime.start()
    try:
        watchers = {n: await runtime.watch(n) for n in (1, 3, 4, 6)}
        changes = 0
        async with asyncio.timeout(10):
            while True:
                await asyncio.sleep(0)
                hand = runtime.state.hand
                if runtime.hand_number > 3:
                    break
                pending = {n: drain(w) for n, w in watchers.items()}
                for number, updates in pending.items():
                    # Only the latest change: the table still stands where it left it.
                    for update in updates[-1:]:
                        if not update.events:
                            continue  # the stream's first message: its own view already
                        changes += 1
                        # The encoded message parses to the very message (the first of the
                        # change's streams to send may be either kind: alternate).
                        if changes % 2:
                            encoded = response_bytes(update)
                            message = response_of(update)
                        else:
                            message = response_of(update)
                            encoded = response_bytes(update)
                        parsed = table_service_pb2.WatchTableResponse.FromString(encoded)
                        assert parsed == message
                        seats = {s.number: s for s in parsed.snapshot.seats}
                        assert list(seats) == sorted(seats), "the seats keep their order"
                        message.snapshot.ClearField("server_time")
                        assert message.snapshot == _from_scratch(runtime, number).snapshot
                        # The events as this seat may see them: his own down cards only.
                        expected = [
                            event_message(
                                _as_seen_by(event, number),
                                update.hand_number,
                                update.time,
                                update.view.last_hand,
                            )
                            for event in update.events
                        ]
                        assert message.event == message.events[0]
                        got = list(message.events)
                        for event in got:
                            if event.HasField("action_taken"):
                                # The client's id, on the action it sent (the change's first).
                                assert event.action_taken.action_id == update.action_id
                                event.action_taken.ClearField("action_id")
                        assert got == expected
                if hand is None or hand.to_act is None:
                    await asyncio.sleep(0.001)
                    continue
                choice = rng.choice(hand.legal_actions())
                if choice.sizes:
                    amount: int | None = rng.choice(choice.sizes)
                elif choice.min_to != choice.max_to:
                    amount = rng.randint(choice.min_to, choice.max_to)
                else:
                    amount = None
                await runtime.act(
                    hand.to_act, runtime.hand_number, choice.kind, amount, f"a{changes}"
                )
        assert changes > 20
    finally:
        await runtime.stop()


def test_the_encoding_helpers_do_as_documented() -> None:
    result = doctest.testmod(wire)
    assert result.attempted > 0 and result.failed == 0
