"""The engine load benchmark runs end to end (its quick mode) and reports sane figures."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import engine_load

ROOT = Path(__file__).resolve().parents[2]


def test_the_bots_choices_are_as_documented() -> None:
    assert doctest.testmod(engine_load).failed == 0


def test_quick_mode_is_small_and_explicit_options_override_it() -> None:
    quick = engine_load.parse_options(["--quick"])
    assert (quick.tables, quick.seconds, quick.idle) == (50, 10.0, 50)
    assert quick.processes == 1
    custom = engine_load.parse_options(["--quick", "--tables", "8", "--pace", "0"])
    assert (custom.tables, custom.pace, custom.seconds) == (8, 0.0, 10.0)
    assert engine_load.parse_options(["--tables", "1000"]).processes == 4


@pytest.mark.slow
def test_quick_run_measures_every_action_at_all_seven_seats(tmp_path: Path) -> None:
    output = tmp_path / "result.json"
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.engine_load", "--quick", "--json", str(output)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(output.read_text())
    assert result["tables"] == 50 and result["seats"] == 7
    assert result["actions"] > 0 and result["actions_per_second"] > 0
    # Every answered Act in the window was timed to its update at the seventh seat.
    assert result["measured"] == result["actions"]
    assert result["incomplete"] == 0 and result["unanswered"] == 0
    assert result["act_errors"] == {} and result["stream_errors"] == {}
    assert 0 < result["p50_ms"] <= result["p99_ms"] <= result["max_ms"]
    assert 0 < result["act_p50_ms"] <= result["act_p99_ms"]
    # Each action's change reaches all seven streams as one message (hands' starts add more;
    # an action answered at the window's very end may have its messages counted after it).
    assert result["updates_per_second"] >= 6.5 * result["actions_per_second"]
    assert result["engine_cpu_ms_per_action"] > 0
    assert result["idle_tables"] == 50 and result["idle_table_kib"] > 0
    assert result["rss_idle_mib"] > result["rss_warm_mib"] > 0
    # The printed table names the figures.
    assert "actions/s" in run.stdout and "p99" in run.stdout and "load average" in run.stdout
