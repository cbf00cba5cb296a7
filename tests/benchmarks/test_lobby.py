"""The lobby benchmark runs end to end, small, on SQLite, and every request it makes succeeds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.lobby import Row, format_table

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
            "--backends",
            "sqlite",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "2 concurrent clients, 0.5 s per endpoint" in run.stdout
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
    assert "sqlite: wallet read at" in run.stdout


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
