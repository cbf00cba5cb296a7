"""The recovery benchmark's harness: its load bots are collected as their window opens (from
the kill) and must be waited for until that window has ended, however long it is."""

from __future__ import annotations

import argparse
import doctest
import json
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from stud.v1 import admin_service_pb2_grpc

from benchmarks import engine_load, recovery


@pytest.mark.slow
async def test_bots_collected_as_their_window_opens_report_after_a_window_longer_than_the_grace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The grace after a window, shortened below the window's length: a wait counted from the
    # call (as `--after 50` met: 65 s for a 60 s window and its settling) gives up here.
    monkeypatch.setattr(engine_load, "SETTLE_SECONDS", 0.5)
    monkeypatch.setattr(engine_load, "DONE_GRACE_SECONDS", 1.5)
    window = 4.0
    engine_load.build_loadgen()
    engine = engine_load.start_engine_process(tmp_path, between_hands=0.1)
    try:
        tables = ["r-0", "r-1"]
        async with grpc.aio.insecure_channel(engine.address) as channel:
            admin = admin_service_pb2_grpc.AdminServiceStub(channel)
            await engine_load.create_tables(admin, recovery.ADMIN, tables)
            options = engine_load.Options(pace=0.5, seed=7, bots="go", act_over="play")
            bots = recovery.Bots(options, [(engine.address, tables)], pin=False)
            try:
                await bots.ready()
                await engine_load.resume_tables(admin, recovery.ADMIN, tables)
                start = time.monotonic()
                bots.window(start, start + window)
                stats = await bots.collect()
                waited = time.monotonic() - start
            finally:
                bots.stop()
    finally:
        engine.stop()
    assert waited >= window
    measured = recovery.latency(stats)
    # Two tables at an action each half second, over most of the 4 s: every one measured.
    assert measured["measured"] >= 8
    assert measured["incomplete"] == 0
    assert measured["act_errors"] == {} and measured["stream_errors"] == {}


def test_the_summary_is_as_documented() -> None:
    assert doctest.testmod(recovery).failed == 0


def test_round_sizes_alternate_run_by_run_and_their_medians_are_summarised(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    order: list[tuple[int, int | None]] = []

    async def fake_run(
        admin_url: str | None, tables: int, adopt_round: int | None, args: argparse.Namespace
    ) -> dict[str, Any]:
        order.append((tables, adopt_round))
        if len(order) == 2:
            raise RuntimeError("c lost its lease while set up")
        # The last table deals again after as many seconds as runs so far.
        return {
            "tables": tables,
            "adopt_round": adopt_round,
            "retired_after": 8.0,
            "first": 9.0,
            "median": 10.0,
            "last": float(len(order)),
            "last_after_retired": float(len(order)) - 8.0,
            "steady": {"p99_ms": 10.0},
            "takeover": {"p99_ms": 100.0 * len(order), "max_ms": None, "load": [2.0, 1.0, 1.0]},
        }

    monkeypatch.setattr(recovery, "one_run", fake_run)
    monkeypatch.setattr(engine_load, "build_loadgen", lambda: engine_load.LOADGEN)
    code = recovery.main(["--tables", "500", "--adopt-rounds", "10", "25", "50", "--runs", "3"])
    # One run failed: said in its line, the series went on, and the exit status says so.
    assert code == 1
    assert [size for _, size in order] == [10, 25, 50, 25, 50, 10, 50, 10, 25]
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[1] == {
        "tables": 500,
        "adopt_round": 25,
        "run": 1,
        "failed": "RuntimeError('c lost its lease while set up')",
    }
    summaries = {line["adopt_round"]: line for line in lines if line.get("summary")}
    assert set(summaries) == {10, 25, 50}
    # 10 ran 1st, 6th and 8th; 25 4th and 9th (its 2nd failed).
    assert (summaries[10]["runs"], summaries[10]["last"]) == (3, 6.0)
    assert (summaries[25]["runs"], summaries[25]["last"]) == (2, 6.5)
    assert summaries[25]["takeover_p99_ms"] == 650.0
    assert summaries[10]["takeover_max_ms"] is None and summaries[10]["load"] == 2.0


@pytest.mark.parametrize("arguments", [["--runs", "0"], ["--adopt-rounds", "25", "0"]])
def test_run_counts_and_round_sizes_below_one_are_refused(
    arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        recovery.main(arguments)
    assert exit_.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


async def test_a_node_logs_into_the_logs_directory_made_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``STUD_BENCH_LOGS`` naming a directory not made yet: made, not a run failing with a
    bare FileNotFoundError for every table count."""
    logs = tmp_path / "logs" / "of-this-run"
    monkeypatch.setenv("STUD_BENCH_LOGS", str(logs))
    url = f"sqlite:///{tmp_path / 'engine.sqlite3'}"
    async with recovery.engine(url, "c", lease=5, cpu=None) as (process, _, address):
        assert address == process.ready["grpc"]
        assert process.returncode is None
    assert (logs / "recovery-c.log").is_file()
