"""A hand whose last action is stored but whose end is not (the engine died between the two
writes): its stored actions decide it, so the next start settles it as the engine would
have — finished, the pots to their winners — on SQLite and on PostgreSQL. Nobody watched it
end: every stream opened afterwards is told (HandSettled), as one is told of a hand the
restart cancelled (HandCancelled, "engine restart"), while it is the table's last hand.

The crash point is made exact: the hand-end write never returns (the engine is stopped while
it hangs there), after the action that ended the hand was stored.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from stud.v1 import events_pb2, table_pb2

from engine_server.store.adapter import StoreTables
from engine_server.store.recovery import RECOVERY_REASON
from engine_server.table.model import TableStatus
from tests.engine_server.api.conftest import Engine, launch, shut
from tests.engine_server.api.players import Decide, Player, action, caller, open_table
from tests.engine_server.api.test_nodes import database_url

__all__ = ["database_url"]

K = table_pb2


def folder(snapshot: table_pb2.TableSnapshot) -> tuple[int, int | None] | None:
    """Folds at his first decision."""
    return action(snapshot, K.ACTION_KIND_FOLD) or caller(snapshot)


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def stored(url: str, query: str, **params: Any) -> list[dict[str, Any]]:
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg2")
    engine = sa.create_engine(parsed)
    try:
        with engine.connect() as connection:
            return [dict(row._mapping) for row in connection.execute(sa.text(query), params)]
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("strategies", "by_fold"),
    [([folder, caller], True), ([caller, caller], False)],
    ids=["everyone-folded-to-one", "showdown"],
)
async def test_a_hand_ended_by_its_stored_actions_is_settled_after_the_crash(
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    strategies: list[Decide],
    by_fold: bool,
) -> None:
    reached = asyncio.Event()

    async def dies_here(self: StoreTables, *args: Any, **kwargs: Any) -> None:
        # The process dies between the last action's write and the hand-end write.
        reached.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(StoreTables, "finish_hand", dies_here)
    first = await launch(database_url)
    players = await open_table(first, "t1", strategies, stakes=(1, 1, 2, 4))
    try:
        await asyncio.wait_for(reached.wait(), 30)
        hand = stored(database_url, "SELECT id, state FROM hands WHERE table_id = 't1'")
        assert [h["state"] for h in hand] == ["running"]
        hand_id = hand[0]["id"]
        actions = [
            _json(r["action"])
            for r in stored(
                database_url,
                "SELECT action FROM hand_actions WHERE hand_id = :h ORDER BY seq",
                h=hand_id,
            )
        ]
        assert actions, "the hand's actions were stored as they were taken"
        assert (actions[-1]["do"] == "fold") == by_fold
        # Nobody was told how it ended: the end was never stored.
        assert not any(
            e.WhichOneof("kind") == "hand_ended"
            for p in players
            for m in p.messages
            for e in m.events
        )
    finally:
        # Stopped while the write hangs: the act that ended the hand never gets its answer.
        await shut(first)
        for player in players:
            await player.close()
    monkeypatch.undo()

    # No next hand for a minute: the settled hand stays the table's last while it is watched.
    second = await launch(database_url, between_hands_seconds=60)
    try:
        runtime = second.server.manager.tables["t1"]
        hands = stored(
            database_url,
            "SELECT id, state, cancel_reason, rake, result, actions, phh FROM hands"
            " WHERE table_id = 't1' ORDER BY hand_number",
        )
        settled = hands[0]
        assert settled["state"] == "complete" and settled["cancel_reason"] is None
        result = _json(settled["result"])
        assert "cancelled" not in result and "they had ended the hand" in result["trail"]
        assert [a["do"] for a in _json(settled["actions"])][-len(actions) :] == [
            a["do"] for a in actions
        ]
        assert settled["phh"]
        players_rows = stored(
            database_url,
            "SELECT seat, seat_session_id, start_stack, final_stack FROM hand_players"
            " WHERE hand_id = :h ORDER BY seat",
            h=hand_id,
        )
        final = {p["seat"]: p["final_stack"] for p in players_rows}
        assert sum(final.values()) + settled["rake"] == 200
        # The pots went to their winners.
        winners = {int(s) for pot in result["pots"] for s in pot["winners"]}
        assert winners and all(final[s] >= 100 for s in winners)
        assert all(final[s] < 100 for s in final if s not in winners)
        if by_fold:
            assert result["pots"][0]["winners"] == [2]
        else:
            assert set(_json(result["hands"]) or {}) == {"1", "2"}
        # The seats' stacks are the settled hand's, and the table deals on with them.
        sessions = {
            r["id"]: r["stack"] for r in stored(database_url, "SELECT id, stack FROM seat_sessions")
        }
        assert {p["seat"]: sessions[p["seat_session_id"]] for p in players_rows} == final
        assert runtime.status is not TableStatus.CLOSED
        if len(hands) > 1:
            # The next hand (dealt at once: nobody paused the table) began with those stacks.
            began = stored(
                database_url,
                "SELECT seat, start_stack FROM hand_players WHERE hand_id = :h",
                h=hands[1]["id"],
            )
            assert {p["seat"]: p["start_stack"] for p in began} == final
        # Nobody watched it end: each stream opened now is told, as a hand's end is told.
        for player_id in ("p1", "p2", "p1"):
            told = await told_on_watching(second, player_id)
            assert told.hand_number == 1 and told.WhichOneof("kind") == "hand_settled"
            assert told.hand_settled.reason == RECOVERY_REASON
            shown = told.hand_settled.result
            assert shown.hand_number == 1 and not shown.cancelled
            assert shown.won_by_fold == by_fold
            assert dict(shown.final_stacks) == final
            assert [list(pot.winners) for pot in shown.pots] == [
                pot["winners"] for pot in result["pots"]
            ]
            assert sum(a.amount for pot in shown.pots for a in pot.awards) + shown.rake == sum(
                pot["amount"] for pot in result["pots"]
            )
            assert {h.seat for h in shown.shown} == (set() if by_fold else {1, 2})
    finally:
        await shut(second)


async def told_on_watching(engine: Engine, player_id: str) -> events_pb2.Event:
    """The one event of the first message of a stream ``player_id`` opens now (its snapshot's
    last hand is the same result)."""
    watcher = Player(player_id, engine.grpc_address, "tables/t1", engine.player_md(player_id))
    try:
        first = await watcher.connect()
    finally:
        await watcher.close()
    assert len(first.events) == 1, first.events
    told = first.events[0]
    kind = told.WhichOneof("kind")
    assert kind in ("hand_settled", "hand_cancelled")
    assert getattr(told, kind).result == first.snapshot.last_hand
    assert not first.snapshot.hand_in_progress
    return told


async def test_a_hand_a_restart_cancelled_is_told_to_whoever_watches_again(
    database_url: str,
) -> None:
    first = await launch(database_url)
    # Seat 2 never acts: the hand waits on his clock, running, when the engine stops.
    players = await open_table(first, "t1", [caller, lambda snapshot: None], stakes=(1, 1, 2, 4))
    try:
        runtime = first.server.manager.tables["t1"]
        async with asyncio.timeout(30):
            while not (runtime.hand_running and runtime.state.hand_number == 1):
                await asyncio.sleep(0.05)
    finally:
        # Stopped at once: the drain gives up on the hand, which stays running in the store.
        await shut(first)
        for player in players:
            await player.close()
    assert [
        h["state"] for h in stored(database_url, "SELECT state FROM hands WHERE table_id = 't1'")
    ] == ["running"]

    second = await launch(database_url, between_hands_seconds=60)
    try:
        rows = stored(database_url, "SELECT state, cancel_reason FROM hands WHERE table_id = 't1'")
        assert [(r["state"], r["cancel_reason"]) for r in rows] == [("cancelled", RECOVERY_REASON)]
        for player_id in ("p2", "p1"):
            told = await told_on_watching(second, player_id)
            assert told.hand_number == 1 and told.WhichOneof("kind") == "hand_cancelled"
            assert told.hand_cancelled.reason == RECOVERY_REASON
            shown = told.hand_cancelled.result
            assert shown.cancelled and not shown.pots and not shown.shown
            # Every chip back: the stacks it began with, and what each had put in (antes at
            # least) listed as returned.
            assert dict(shown.final_stacks) == {1: 100, 2: 100}
            assert set(shown.returned) == {1, 2} and all(c > 0 for c in shown.returned.values())
    finally:
        await shut(second)


async def test_a_hand_whose_forced_bring_in_was_never_stored_is_cancelled_from_its_deal(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine dies after a hand's start is stored and before its first actions are (the
    forced bring-in goes with the next write). The restart deals it again, and the bring-in
    the rules post by themselves replays: the hand is cancelled from its deal, every chip
    back, not kept as a record that "does not replay"."""
    reached = asyncio.Event()

    async def dies_here(self: StoreTables, *args: Any, **kwargs: Any) -> None:
        reached.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(StoreTables, "record_actions", dies_here)
    first = await launch(database_url)
    players = await open_table(first, "t1", [caller, caller], stakes=(1, 1, 2, 4))
    try:
        await asyncio.wait_for(reached.wait(), 30)
        assert [
            h["state"]
            for h in stored(database_url, "SELECT state FROM hands WHERE table_id = 't1'")
        ] == ["running"]
        assert stored(database_url, "SELECT seq FROM hand_actions") == []
    finally:
        await shut(first)
        for player in players:
            await player.close()
    monkeypatch.undo()

    second = await launch(database_url)
    try:
        cancelled = stored(
            database_url,
            "SELECT id, state, result, actions FROM hands WHERE table_id = 't1'"
            " ORDER BY hand_number",
        )[0]
        assert cancelled["state"] == "cancelled"
        result = _json(cancelled["result"])
        assert result["cancelled"] is True
        assert result["trail"].startswith("the deal only"), result["trail"]
        # Its record holds what the deal did: the forced bring-in, posted by the rules.
        assert [a["do"] for a in _json(cancelled["actions"])] == ["bring_in"]
        players_rows = stored(
            database_url,
            "SELECT start_stack, final_stack FROM hand_players WHERE hand_id = :h",
            h=cancelled["id"],
        )
        assert [p["final_stack"] for p in players_rows] == [p["start_stack"] for p in players_rows]
    finally:
        await shut(second)
