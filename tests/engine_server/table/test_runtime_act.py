"""Act's answer names the change number of the action's own event, showdown decisions too."""

from __future__ import annotations

import asyncio

from engine_server.game.actions import ActionKind
from engine_server.game.events import ActionTaken, BringInPosted, HandMucked, HandShown
from engine_server.game.profiles import PROFILES, Stakes
from engine_server.table.model import SeatState, SeedPair, TableConfig
from engine_server.table.runtime import TableRuntime, Timing, Update
from tests.engine_server.table.stubs import HandCountingStore, drain


async def test_every_answer_names_its_own_event_through_an_ordered_showdown() -> None:
    # memaid: the bring-in is a choice and the showdown is ordered (show or muck in turn).
    config = TableConfig("t1", PROFILES["memaid"], Stakes(1, 1, 2, 4), min_buy_in=10)
    seed = SeedPair("s1", "0" * 64, "c" * 64, "client", 0, "d" * 64)
    seats = [SeatState(n, f"p{n}", f"P{n}", f"ss{n}", 1000, 1000) for n in (1, 2, 3)]
    runtime = TableRuntime(
        config,
        seed,
        HandCountingStore(),  # type: ignore[arg-type]
        seats=seats,
        timing=Timing(between_hands_seconds=0.0),
    )
    runtime.start()
    try:
        watcher = await runtime.watch(None, admin=True)
        by_sequence: dict[int, Update] = {}
        decisions: set[ActionKind] = set()
        async with asyncio.timeout(10):
            while len(decisions) < 2 and runtime.hand_number < 10:
                hand = runtime.state.hand
                if hand is None or hand.to_act is None:
                    await asyncio.sleep(0.001)
                    continue
                seat, kinds = hand.to_act, [a.kind for a in hand.legal_actions()]
                # Check or call down; at the showdown muck once where it is allowed, else show.
                choice = next(
                    k
                    for k in (
                        ActionKind.CHECK,
                        ActionKind.CALL,
                        ActionKind.BRING_IN,
                        ActionKind.SHOW if ActionKind.MUCK in decisions else ActionKind.MUCK,
                        ActionKind.SHOW,
                    )
                    if k in kinds
                )
                number = runtime.hand_number
                answer = await runtime.act(seat, number, choice, None, f"a{len(by_sequence)}")
                by_sequence.update((u.sequence, u) for u in drain(watcher))
                if choice in (ActionKind.SHOW, ActionKind.MUCK):
                    decisions.add(choice)
                # The action's change opens with the action as recorded.
                event = by_sequence[answer.sequence].events[0]
                expected = {
                    ActionKind.SHOW: HandShown,
                    ActionKind.MUCK: HandMucked,
                    ActionKind.BRING_IN: BringInPosted,
                }.get(choice, ActionTaken)
                assert type(event) is expected, (choice, event)
                assert isinstance(event, ActionTaken | BringInPosted | HandShown | HandMucked)
                assert event.seat == seat
                assert answer.kind is choice
        assert decisions == {ActionKind.SHOW, ActionKind.MUCK}
    finally:
        await runtime.stop()
