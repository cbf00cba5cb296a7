"""An ended hand's stored actions (``hand_actions``) are deleted after the time kept: a real
engine plays hands, its housekeeping round deletes the copies, and the lobby's history, PHH
and fairness answers of those hands are the same before and after; on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.store.database import create_engine_for
from engine_server.store.hand_actions import Pruned
from engine_server.table.model import TableStatus
from lobby_api.fairness.services import hand_fairness
from lobby_api.history.services import get_hand, get_hand_phh
from tests.engine_server.api.conftest import launch, shut
from tests.engine_server.api.players import caller, is_event, open_table, pause
from tests.engine_server.api.test_nodes import database_url

__all__ = ["database_url"]


async def answers(url: str, hand_ids: list[str]) -> list[tuple[Any, ...]]:
    """What the lobby answers player p1 about each hand: history, PHH and fairness."""
    engine = create_engine_for(url)
    try:
        async with AsyncSession(engine) as session:
            return [
                (
                    await get_hand(session, "p1", hand_id),
                    await get_hand_phh(session, "p1", hand_id),
                    await hand_fairness(session, "p1", hand_id),
                )
                for hand_id in hand_ids
            ]
    finally:
        await engine.dispose()


async def stored_actions(url: str) -> dict[str, int]:
    engine = create_engine_for(url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(
                sa.text("SELECT hand_id, count(*) FROM hand_actions GROUP BY hand_id")
            )
            return {hand_id: n for hand_id, n in rows.all()}
    finally:
        await engine.dispose()


def metric(page: str, name: str) -> float:
    """The value of the sample ``name`` (with its labels) on a metrics page."""
    for line in page.splitlines():
        sample, _, value = line.rpartition(" ")
        if sample == name:
            return float(value)
    raise AssertionError(f"{name} is not on the page")


async def test_ended_hands_actions_are_pruned_and_history_phh_and_fairness_are_unchanged(
    database_url: str,
) -> None:
    engine = await launch(database_url, hand_actions_kept_seconds=0)
    players = await open_table(engine, "t1", [caller, caller])
    try:
        await players[0].wait_for(is_event("hand_ended", 2), timeout=60)
        await pause(engine, "t1")
        runtime = engine.server.manager.tables["t1"]
        async with asyncio.timeout(30):
            while runtime.status is not TableStatus.PAUSED:
                await asyncio.sleep(0.05)
        # The seed revealed: the fairness answer recomputes the decks.
        await runtime.rotate_seed(None)
        kept = await stored_actions(database_url)
        assert len(kept) >= 2 and all(n > 0 for n in kept.values())
        before = await answers(database_url, sorted(kept))
        assert all(f.check is not None for _, _, f in before)

        assert engine.server.pruning is not None
        assert await engine.server.pruning.once() == Pruned(len(kept), sum(kept.values()))
        assert await stored_actions(database_url) == {}
        assert await answers(database_url, sorted(kept)) == before
        assert await engine.server.pruning.once() == Pruned(0, 0)
        # The metrics count the rows and the rounds, and say when the last one ended.
        assert engine.server.metrics is not None
        page = engine.server.metrics.exposition().decode()
        assert metric(page, "stud_engine_hand_actions_pruned_total") == sum(kept.values())
        assert metric(page, 'stud_engine_action_pruning_rounds_total{outcome="ok"}') == 2
        assert metric(page, 'stud_engine_action_pruning_rounds_total{outcome="failed"}') == 0
        ended = metric(page, "stud_engine_action_pruning_last_round_timestamp_seconds")
        assert abs(ended - time.time()) < 60
        assert 0 < metric(page, "stud_engine_action_pruning_last_round_seconds") < 30
    finally:
        for player in players:
            await player.close()
        await shut(engine)


async def test_a_running_hands_actions_are_kept(database_url: str) -> None:
    engine = await launch(database_url, hand_actions_kept_seconds=0)
    players = await open_table(engine, "t1", [caller, lambda snapshot: None])
    try:
        # Seat 2 never acts by himself: hand 1 waits on his clock, running.
        runtime = engine.server.manager.tables["t1"]
        async with asyncio.timeout(30):
            while not (runtime.hand_running and await stored_actions(database_url)):
                await asyncio.sleep(0.05)
        assert engine.server.pruning is not None
        assert await engine.server.pruning.once() == Pruned(0, 0)
        assert list(await stored_actions(database_url)) == [runtime.state.hand_id]
    finally:
        for player in players:
            await player.close()
        await shut(engine)
