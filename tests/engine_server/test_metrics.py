"""The engine's /metrics: Prometheus text from its own port, counters that move with play.

Hands are played by real players through the engine (folds end them at once)
and by the clock (a 0.3 s clock folds for the seat to act); a WatchTable
stream is open on one table so that its views are published and timed.
"""

from __future__ import annotations

import asyncio
import doctest
import time
from collections.abc import Mapping
from pathlib import Path

import grpc
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from stud.v1 import admin_service_pb2, table_pb2, table_service_pb2

import engine_server.metrics
from engine_server.pruning import ActionPruning
from engine_server.server import start_engine
from engine_server.settings import EngineSettings
from engine_server.store.adapter import open_store
from engine_server.store.hand_actions import Pruned
from tests.engine_server.api.conftest import SECRET, Engine, launch, shut
from tests.engine_server.api.test_admin import (
    Watch,
    fold_out,
    get_table,
    open_table,
    refused,
    until_hand,
)

a = admin_service_pb2
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]

#: above the 2.5 s bucket that every view must fall in: a view timed from a stale start is over it
PAUSE_BETWEEN_HANDS_SECONDS = 3.0


async def scrape(engine: Engine) -> Samples:
    """Every sample of the engine's /metrics, by name and labels (the page must parse)."""
    async with httpx.AsyncClient() as http:
        answer = await http.get(f"http://127.0.0.1:{engine.server.metrics_port}/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    samples: Samples = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def family(samples: Samples, name: str) -> Mapping[frozenset[tuple[str, str]], float]:
    return {labels: v for (n, labels), v in samples.items() if n == name}


async def until_last_hand(engine: Engine, table_id: str, number: int) -> None:
    deadline = time.monotonic() + 10
    while (await get_table(engine, table_id)).snapshot.last_hand.hand_number < number:
        assert time.monotonic() < deadline, f"hand {number} of {table_id} never ended"
        await asyncio.sleep(0.05)


async def test_metrics_parse_and_move_as_hands_are_played(tmp_path: Path) -> None:
    # A between-hands pause longer than any view takes even on a loaded host: a hand the
    # timer starts must not be timed from the last command (that pause before), as it once
    # was. A view slowed by a busy machine has taken over half a second (seen in CI with the
    # suite's two workers); one timed from a stale start takes the whole pause.
    engine = await launch(
        f"sqlite:///{tmp_path}/engine.sqlite3", between_hands_seconds=PAUSE_BETWEEN_HANDS_SECONDS
    )
    watch: Watch | None = None
    try:
        assert engine.server.metrics_port not in (0, 9464)
        before = await scrape(engine)
        assert family(before, "stud_engine_tables") == {
            frozenset({("status", s)}): 0.0
            for s in ("waiting", "playing", "pausing", "paused", "closing", "closed")
        }
        assert value(before, "stud_engine_seats_occupied") == 0

        played, _ = await open_table(engine)
        watch = Watch(engine, played, "ann")
        clocked, _ = await open_table(engine, ("cat", "dan"), overrides={"action_seconds": 0.3})
        await until_hand(engine, played, 1)
        during = await scrape(engine)
        assert value(during, "stud_engine_tables", status="playing") >= 1
        assert value(during, "stud_engine_seats_occupied") == 4
        assert value(during, "stud_engine_hands_running") >= 1
        assert value(during, "stud_engine_open_streams", audience="player") == 1
        assert value(during, "stud_engine_open_streams", audience="admin") == 0

        # Two hands ended by folds, a third cancelled (paused first, so none follows).
        await fold_out(engine, played)
        await until_hand(engine, played, 2)
        await fold_out(engine, played)
        await until_hand(engine, played, 3)
        name = f"tables/{played}"
        await engine.admin.PauseTable(a.PauseTableRequest(name=name), metadata=engine.admin_md)
        await engine.admin.CancelHand(
            a.CancelHandRequest(name=name, hand_number=3), metadata=engine.admin_md
        )
        # The clock plays the other table's first hand, then it pauses.
        await until_last_hand(engine, clocked, 1)
        await engine.admin.PauseTable(
            a.PauseTableRequest(name=f"tables/{clocked}"), metadata=engine.admin_md
        )

        # Refusals, over gRPC and over Connect, are counted by reason.
        await refused(
            engine.tables.Act(
                table_service_pb2.ActRequest(
                    table=name, hand_number=3, kind=table_pb2.ACTION_KIND_FOLD, action_id="x"
                ),
                metadata=engine.player_md("ann"),
            ),
            grpc.StatusCode.FAILED_PRECONDITION,
            "STALE_HAND",
        )
        await refused(
            engine.tables.Act(table_service_pb2.ActRequest(table=name)),
            grpc.StatusCode.UNAUTHENTICATED,
            "TOKEN_MISSING",
        )
        await refused(
            engine.admin.PauseTable(
                a.PauseTableRequest(name="tables/nope"), metadata=engine.admin_md
            ),
            grpc.StatusCode.NOT_FOUND,
            "TABLE_NOT_FOUND",
        )
        async with httpx.AsyncClient() as http:
            connect = await http.post(
                f"{engine.web_url}/stud.v1.TableService/Act",
                json={"table": name},
                headers={"connect-protocol-version": "1"},
            )
        assert connect.status_code == 401, connect.text

        await watch.close()
        watch = None
        deadline = time.monotonic() + 5
        while True:
            after = await scrape(engine)
            if value(after, "stud_engine_open_streams", audience="player") == 0:
                break
            assert time.monotonic() < deadline, "the closed stream is still counted"
            await asyncio.sleep(0.02)
    finally:
        if watch is not None:
            await watch.close()
        await shut(engine)

    # Hands: three on the played table (one cancelled), at least one on the clocked one.
    assert moved(before, after, "stud_engine_hands_started_total") >= 4
    assert moved(before, after, "stud_engine_hands_finished_total", cancelled="false") >= 3
    assert moved(before, after, "stud_engine_hands_finished_total", cancelled="true") == 1
    assert moved(before, after, "stud_engine_actions_total", kind="fold", timeout="false") >= 2
    clock_actions = sum(
        v
        for labels, v in family(after, "stud_engine_actions_total").items()
        if ("timeout", "true") in labels
    )
    assert clock_actions >= 1
    assert value(after, "stud_engine_actions_total", kind="timeout", timeout="true") == 0, (
        "the clock's actions are counted by what it did (fold, check, ...)"
    )
    # Errors by reason and code, both transports.
    assert (
        moved(
            before,
            after,
            "stud_engine_errors_total",
            reason="STALE_HAND",
            code="FAILED_PRECONDITION",
        )
        == 1
    )
    assert (
        moved(
            before,
            after,
            "stud_engine_errors_total",
            reason="TOKEN_MISSING",
            code="UNAUTHENTICATED",
        )
        == 2
    )
    assert (
        moved(before, after, "stud_engine_errors_total", reason="TABLE_NOT_FOUND", code="NOT_FOUND")
        == 1
    )
    # Latency: every view the watched table published was timed, none from a stale start.
    count = value(after, "stud_engine_action_to_view_seconds_count")
    assert count - value(before, "stud_engine_action_to_view_seconds_count") >= 6
    buckets = sorted(
        (float(dict(labels)["le"]), v)
        for labels, v in family(after, "stud_engine_action_to_view_seconds_bucket").items()
    )
    assert [v for _, v in buckets] == sorted(v for _, v in buckets)
    assert buckets[-1] == (float("inf"), count)
    assert value(after, "stud_engine_action_to_view_seconds_bucket", le="2.5") == count, (
        "a view timed from before the pause between hands"
    )
    assert 0 < value(after, "stud_engine_action_to_view_seconds_sum") < 0.5 * count
    # Live gauges at the end: both tables paused, four players seated.
    assert value(after, "stud_engine_tables", status="paused") == 2
    assert value(after, "stud_engine_seats_occupied") == 4
    assert value(after, "stud_engine_hands_running") == 0


async def test_the_loop_lag_histogram_sees_the_loop_blocked(tmp_path: Path) -> None:
    """The heartbeat (every 0.1 s, once a table is live) counts how late it woke: a loop
    blocked for 0.5 s shows as a beat later than 0.25 s."""
    engine = await launch(f"sqlite:///{tmp_path}/engine.sqlite3")
    try:
        await open_table(engine)
        await asyncio.sleep(0.35)
        before = await scrape(engine)
        beats = value(before, "stud_engine_loop_lag_seconds_count", cause="busy") + value(
            before, "stud_engine_loop_lag_seconds_count", cause="waiting"
        )
        assert beats >= 2
        # Blocked (the loop's thread asleep: "waiting"; which cause a late beat is given is the
        # metrics' doctest's: on a loaded machine a spinning thread waits for a core too).
        time.sleep(0.5)  # blocks the engine's loop: this test shares it
        await asyncio.sleep(0.25)
        after = await scrape(engine)
        late = sum(
            moved(before, after, "stud_engine_loop_lag_seconds_count", cause=cause)
            - moved(before, after, "stud_engine_loop_lag_seconds_bucket", cause=cause, le="0.25")
            for cause in ("waiting", "busy")
        )
        assert late >= 1
        assert moved(before, after, "stud_engine_loop_lag_seconds_sum", cause="waiting") >= 0.4
    finally:
        await shut(engine)


async def test_each_engine_counts_its_own_and_serves_only_metrics(tmp_path: Path) -> None:
    """Two engines in one process: each /metrics shows its own tables (own registry)."""
    first = await launch(f"sqlite:///{tmp_path}/first.sqlite3")
    second = await launch(f"sqlite:///{tmp_path}/second.sqlite3")
    try:
        assert first.server.metrics_port != second.server.metrics_port
        await first.create_table("only-here")
        await refused(
            first.admin.Drain(a.DrainRequest()), grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING"
        )
        one, two = await scrape(first), await scrape(second)
        assert value(one, "stud_engine_tables", status="waiting") == 1
        assert value(two, "stud_engine_tables", status="waiting") == 0
        assert (
            value(one, "stud_engine_errors_total", reason="TOKEN_MISSING", code="UNAUTHENTICATED")
            == 1
        )
        assert not family(two, "stud_engine_errors_total")
        async with httpx.AsyncClient() as http:
            other = await http.get(f"http://127.0.0.1:{first.server.metrics_port}/")
        assert other.status_code == 404
    finally:
        await shut(first)
        await shut(second)


async def test_a_metrics_port_in_use_fails_the_start_with_os_error(tmp_path: Path) -> None:
    first = await launch(f"sqlite:///{tmp_path}/first.sqlite3")
    url = f"sqlite:///{tmp_path}/second.sqlite3"
    directory, store, close_store = await open_store(url)
    try:
        settings = EngineSettings(
            database_url=url,
            jwt_secret=SECRET,
            grpc_port=0,
            web_port=0,
            metrics_port=first.server.metrics_port,
        )
        with pytest.raises(OSError):
            await start_engine(settings, directory=directory, store=store)
    finally:
        await close_store()
        await shut(first)


def test_the_module_examples_run() -> None:
    result = doctest.testmod(engine_server.metrics)
    assert result.failed == 0 and result.attempted > 0


async def test_the_action_pruning_rounds_are_counted_failed_ones_apart(tmp_path: Path) -> None:
    engine = await launch(f"sqlite:///{tmp_path}/e.sqlite3")
    try:
        metrics = engine.server.metrics
        assert metrics is not None
        outcomes: list[Pruned | Exception] = [OSError("the database is away"), Pruned(3, 41)]

        async def prune(kept_seconds: float) -> Pruned:
            outcome = outcomes.pop(0)
            if isinstance(outcome, Exception):
                raise outcome
            return outcome

        pruning = ActionPruning(prune, 0, on_round=metrics.pruning_round)
        before = await scrape(engine)
        assert value(before, "stud_engine_action_pruning_last_round_timestamp_seconds") == 0
        assert await pruning.once() == Pruned(0, 0)
        failed = await scrape(engine)
        assert moved(before, failed, "stud_engine_action_pruning_rounds_total", outcome="failed")
        assert not moved(before, failed, "stud_engine_action_pruning_rounds_total", outcome="ok")
        assert not moved(before, failed, "stud_engine_hand_actions_pruned_total")
        ended = value(failed, "stud_engine_action_pruning_last_round_timestamp_seconds")
        assert abs(ended - time.time()) < 60

        assert await pruning.once() == Pruned(3, 41)
        after = await scrape(engine)
        assert moved(failed, after, "stud_engine_action_pruning_rounds_total", outcome="ok") == 1
        assert moved(failed, after, "stud_engine_hand_actions_pruned_total") == 41
        assert value(after, "stud_engine_action_pruning_last_round_timestamp_seconds") >= ended
        assert 0 <= value(after, "stud_engine_action_pruning_last_round_seconds") < 5
    finally:
        await shut(engine)
