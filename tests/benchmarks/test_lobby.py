"""The lobby benchmark runs end to end, small, on SQLite, and every request it makes succeeds;
its figures are medians over runs, checked against the goals."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.lobby import Row, cpu_seconds, format_table, median_rows

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_small_run_measures_every_endpoint_without_errors() -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.lobby",
            "--seconds",
            "0.5",
            "--concurrency",
            "2",
            "--database",
            "sqlite",
            "--runs",
            "2",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "2 concurrent clients, 0.5 s per endpoint" in run.stdout
    assert "median of 2 runs" in run.stdout
    rows = [
        line.split("|")[1:-1] for line in run.stdout.splitlines() if line.startswith("| sqlite")
    ]
    assert [cells[1].strip() for cells in rows] == [
        "bare Litestar GET",
        "log in",
        "wallet read",
        "quick game",
    ]
    for cells in rows:
        requests, errors = int(cells[2]), int(cells[3])
        assert requests > 0 and errors == 0, cells
        # The CPU the lobby (or the bare app) spent per request, and the engine (not for the
        # bare endpoint: it calls no engine).
        assert float(cells[8]) > 0, cells
        assert (cells[9].strip() == "–") == cells[1].strip().startswith("bare"), cells
    assert "sqlite: wallet read at" in run.stdout
    assert "sqlite: quick game p99" in run.stdout
    assert "sqlite: log in at" in run.stdout


def test_the_verdict_compares_the_wallet_read_with_the_bare_endpoint() -> None:
    rows = [
        Row("sqlite", "bare Litestar GET", 1000, 0, 400.0, 10.0, 20.0),
        Row("sqlite", "wallet read", 500, 0, 99.0, 40.0, 80.0),
        Row("postgresql", "bare Litestar GET", 1000, 0, 400.0, 10.0, 20.0),
        Row("postgresql", "wallet read", 500, 0, 100.0, 40.0, 80.0),
    ]
    table = format_table(rows)
    assert "sqlite: wallet read at 24.8 % of the bare endpoint (goal ≥ 25 %: NOT met)" in table
    assert "postgresql: wallet read at 25.0 % of the bare endpoint (goal ≥ 25 %: met)" in table


def test_the_goals_are_checked_on_the_quick_game_and_log_in_too() -> None:
    rows = [
        Row("sqlite", "bare Litestar GET", 1000, 0, 400.0, 10.0, 20.0),
        Row("sqlite", "log in", 300, 0, 50.0, 200.0, 400.0),
        Row("sqlite", "quick game", 500, 0, 90.0, 150.0, 250.4),
        Row("postgresql", "bare Litestar GET", 1000, 0, 400.0, 10.0, 20.0),
        Row("postgresql", "log in", 300, 0, 49.9, 200.0, 400.0),
        Row("postgresql", "quick game", 500, 0, 90.0, 150.0, 250.0),
    ]
    table = format_table(rows)
    assert "sqlite: log in at 50.0 per second (goal ≥ 50/s: met)" in table
    assert "sqlite: quick game p99 250 ms (goal ≤ 250 ms: NOT met)" in table
    assert "postgresql: log in at 49.9 per second (goal ≥ 50/s: NOT met)" in table
    assert "postgresql: quick game p99 250 ms (goal ≤ 250 ms: met)" in table


def test_repeated_runs_give_their_medians_and_their_spread() -> None:
    runs = [
        [Row("sqlite", "quick game", n, e, rate, p50, p99, server_cpu_ms=cpu, engine_cpu_ms=7.0)]
        for n, e, rate, p50, p99, cpu in (
            (100, 0, 10.0, 50.0, 900.0, 30.0),
            (300, 1, 30.0, 40.0, 100.0, 10.0),
            (200, 0, 20.0, 45.0, 200.0, 20.0),
        )
    ]
    (row,) = median_rows(runs)
    assert (row.requests, row.errors, row.rps, row.p50_ms, row.p99_ms) == (
        200,
        1,
        20.0,
        45.0,
        200.0,
    )
    assert (row.server_cpu_ms, row.engine_cpu_ms, row.runs) == (20.0, 7.0, 3)
    assert row.rps_range == (10.0, 30.0) and row.p99_range == (100.0, 900.0)
    line = next(x for x in format_table([row]).splitlines() if x.startswith("| sqlite"))
    assert "| 20 (10–30) | 45.0 | 200.0 (100–900) |" in line


def test_the_cpu_time_of_a_process_is_read_from_proc() -> None:
    before = cpu_seconds(os.getpid())
    assert before is not None
    sum(i * i for i in range(2_000_000))  # some CPU work
    after = cpu_seconds(os.getpid())
    assert after is not None and after > before
    assert cpu_seconds(2**22 + 12345) is None  # no such process
