"""The engine load benchmark runs end to end (its quick mode) and reports sane figures."""

from __future__ import annotations

import doctest
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

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
    # Go load processes take 500 tables each, Python ones 250 (at most 4 either way).
    assert engine_load.parse_options(["--tables", "1000"]).processes == 2
    assert engine_load.parse_options(["--tables", "1000", "--bots", "python"]).processes == 4
    assert engine_load.parse_options(["--tables", "9000"]).processes == 4
    assert engine_load.parse_options(["--tables", "10", "--load-processes", "3"]).processes == 3
    nodes = engine_load.parse_options(["--nodes", "2", "--database-url", "postgresql://h/db"])
    assert (nodes.nodes, nodes.database_url) == (2, "postgresql://h/db")
    assert engine_load.parse_options([]).nodes == 1


def test_go_bots_act_over_play_by_default_and_python_bots_by_unary_calls_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert engine_load.parse_options([]).transport == "play"
    assert engine_load.parse_options(["--act-over", "unary"]).transport == "unary"
    assert engine_load.parse_options(["--bots", "python"]).transport == "unary"
    python = ["--bots", "python", "--act-over", "unary"]
    assert engine_load.parse_options(python).transport == "unary"
    with pytest.raises(SystemExit) as exit_:
        engine_load.parse_options(["--bots", "python", "--act-over", "play"])
    assert exit_.value.code == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.endswith(
        "error: --act-over play needs --bots go: the Python bots act by unary Act calls"
    )


@pytest.mark.parametrize("nodes", ["0", "9"])
def test_a_node_count_out_of_range_is_refused(
    nodes: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        engine_load.parse_options(["--nodes", nodes])
    assert exit_.value.code == 2
    assert f"--nodes must be 1-8, got {nodes}" in capsys.readouterr().err


@pytest.mark.slow
def test_quick_run_measures_every_action_at_all_seven_seats(tmp_path: Path) -> None:
    output = tmp_path / "result.json"
    run = subprocess.run(
        [
            *(sys.executable, "-m", "benchmarks.engine_load", "--quick", "--bots", "python"),
            # --quick, shortened: the suite's time budget
            *("--seconds", "6", "--idle-tables", "20"),
            *("--json", str(output)),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=150,
        # Full collections every 2 s: the window must show them, each with its pause.
        env={**os.environ, "STUD_ENGINE_GC_FULL_EVERY": "2"},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(output.read_text())
    assert result["tables"] == 50 and result["seats"] == 7
    assert result["actions"] > 0 and result["actions_per_second"] > 0
    # Every answered Act in the window was timed to its update at the seventh seat.
    assert result["measured"] == result["actions"]
    assert result["incomplete"] == 0 and result["unanswered"] == 0
    assert result["act_errors"] == {} and result["stream_errors"] == {}
    assert 0 < result["p50_ms"] <= result["p99_ms"] <= result["p999_ms"] <= result["max_ms"]
    assert 0 < result["act_p50_ms"] <= result["act_p99_ms"]
    # Each action's change reaches all seven streams as one message (hands' starts add more;
    # an action answered at the window's very end may have its messages counted after it).
    assert result["updates_per_second"] >= 6.5 * result["actions_per_second"]
    assert result["engine_cpu_ms_per_action"] > 0
    assert result["idle_tables"] == 20 and result["idle_table_kib"] > 0
    assert result["rss_idle_mib"] > result["rss_warm_mib"] > 0
    # Memory under load: read from the tables' resumption to the window's end.
    assert result["rss_samples"][0][0] < 1 and result["rss_samples"][-1][0] >= 6
    assert result["rss_before_load_mib"] >= result["rss_idle_mib"]
    assert result["busy_table_kib"] > 0 and "busy table" in run.stdout
    assert result["engine_pauses"]["beats"] > 0 and "engine loop" in run.stdout
    full = [c for c in result["collections"] if c["kind"] == "full"]
    assert full and all(c["node"] == 1 and c["count"] >= 1 and c["seconds"] > 0 for c in full)
    assert sum(c["count"] for c in full) <= result["engine_pauses"]["full_collections"]
    assert re.search(r"^collections +\d+ full \(longest \d+ ms; node 1 ", run.stdout, re.M)
    # The printed table names the figures.
    assert "actions/s" in run.stdout and "p99" in run.stdout and "load average" in run.stdout
    # How fast the machine ran the reference loop, before and during the window.
    assert result["reference_ms_before"] > 0 and result["reference_ms_window"] > 0
    assert "machine speed" in run.stdout
    assert result["bots"] == "python" and result["act_over"] == "unary"
    assert "(python bots, acts over unary Act)" in run.stdout


def run_load(tmp_path: Path, *arguments: str) -> tuple[dict[str, Any], str]:
    """``engine_load`` with ``arguments`` and its JSON output: the result and what it printed."""
    output = tmp_path / "result.json"
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.engine_load", *arguments, "--json", str(output)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,  # the first run builds the Go binary
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(output.read_text()), run.stdout


def assert_every_action_measured(result: dict[str, Any], rate: float) -> None:
    """About ``rate`` actions a second, each timed to its update at all seven seats."""
    assert 0.8 * rate <= result["actions_per_second"] <= 1.2 * rate
    assert result["measured"] == result["actions"] > 0
    assert result["incomplete"] == 0 and result["unanswered"] == 0
    assert result["act_errors"] == {} and result["stream_errors"] == {}
    assert result["error_samples"] == []
    assert 0 < result["p50_ms"] <= result["p99_ms"] <= result["p999_ms"] <= result["max_ms"]
    assert 0 < result["act_p50_ms"] <= result["act_p99_ms"]


@pytest.mark.slow
def test_go_bots_over_play_measure_every_action_at_all_seven_seats_of_two_engine_nodes(
    tmp_path: Path,
) -> None:
    result, stdout = run_load(
        tmp_path,
        *("--bots", "go", "--tables", "40", "--nodes", "2", "--pin"),
        *("--seconds", "6", "--warmup", "2", "--idle-tables", "0"),
    )
    # Pinned: node i (and its load) on the i-th CPU this process may use, round them.
    cpus = sorted(os.sched_getaffinity(0))
    assert result["cpus"] == [cpus[0], cpus[1 % len(cpus)]]
    assert f"engine nodes pinned to CPU {cpus[0]},{cpus[1 % len(cpus)]}" in stdout
    # Each node serves half the tables, to a load process of its own; the bots act on their
    # Play streams (the default).
    assert result["bots"] == "go" and result["act_over"] == "play"
    assert result["nodes"] == 2 and result["load_processes"] == 2
    assert len(result["engine_cpu_percents"]) == 2 and min(result["engine_cpu_percents"]) > 0
    assert result["engine_cpu_percent"] == pytest.approx(sum(result["engine_cpu_percents"]))
    assert "on 2 engine nodes" in stdout and "by node" in stdout
    assert result["tables"] == 40 and result["seats"] == 7
    # 40 tables at one action per 2 s each: 20 actions/s.
    assert_every_action_measured(result, 20)
    assert result["updates_per_second"] >= 6.5 * result["actions_per_second"]
    # The Go process's CPU over the window, in all and per action.
    assert result["load_cpu_percent"] > 0 and result["load_cpu_ms_per_action"] > 0
    assert "(go bots, acts over Play)" in stdout
    assert "ms per action)" in stdout.split("load processes")[1]


def test_go_bots_through_a_gateway_measure_every_action_and_its_memory_per_stream(
    tmp_path: Path,
) -> None:
    result, stdout = run_load(
        tmp_path,
        *("--bots", "go", "--tables", "20", "--nodes", "2", "--gateway"),
        *("--seconds", "6", "--warmup", "2", "--idle-tables", "0"),
    )
    # Every act answered at all seven seats, through the gateway's relays to both nodes.
    assert result["gateway"] is True and result["nodes"] == 2
    assert_every_action_measured(result, 10)
    assert min(result["engine_cpu_percents"]) > 0
    # The gateway held the 140 streams: its memory grew with them, and it worked.
    assert result["gateway_rss_streams_open_mib"] > result["gateway_rss_before_load_mib"] > 0
    assert result["gateway_stream_kib"] > 0 and result["gateway_cpu_percent"] > 0
    assert "KiB a player stream" in stdout.split("gateway")[-1]


@pytest.mark.slow
def test_go_bots_over_unary_act_calls_measure_every_action_at_all_seven_seats(
    tmp_path: Path,
) -> None:
    result, stdout = run_load(
        tmp_path,
        *("--bots", "go", "--act-over", "unary", "--tables", "10", "--pace", "1"),
        *("--seconds", "4", "--warmup", "1", "--idle-tables", "0"),
    )
    assert result["bots"] == "go" and result["act_over"] == "unary"
    assert "(go bots, acts over unary Act)" in stdout
    # 10 tables at one action per second each: 10 actions/s.
    assert_every_action_measured(result, 10)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("bots", "act_over"), [("go", "play"), ("go", "unary"), ("python", "unary")]
)
def test_load_bots_follow_their_tables_moved_to_another_node_mid_window(
    tmp_path: Path, bots: str, act_over: str
) -> None:
    # Two nodes on one database (a table moves only within one registry); 1 s into the
    # window, MoveTable hands node-1's 2 tables to node-2 between hands, ending their 14
    # streams with UNAVAILABLE / TABLE_MOVED naming node-2.
    result, stdout = run_load(
        tmp_path,
        *("--bots", bots, "--act-over", act_over, "--tables", "4", "--pace", "0.1"),
        *("--nodes", "2", "--database-url", f"sqlite:///{tmp_path}/shared.sqlite3"),
        *("--seconds", "8", "--warmup", "1", "--idle-tables", "0", "--move-tables-at", "1"),
    )
    assert result["bots"] == bots and result["act_over"] == act_over
    assert result["tables_to_move"] == result["tables_moved"] == 2
    assert 0 < result["move_seconds"] < 7
    # Every seat of the moved tables followed once, counted as a follow, not as an error.
    assert result["followed"] == 2 * 7
    assert result["act_errors"] == {} and result["stream_errors"] == {}
    # The moved tables played on at node-2: acts sent after the move were answered there, and
    # timed to their update at all seven seats as every other.
    assert result["actions_moved"] > 0
    assert result["incomplete"] == 0 and result["unanswered"] == 0
    assert result["measured"] == result["actions"]
    # Had the moved tables stopped at the move, the 4 tables' 40 actions/s would be 25 at most.
    assert result["actions_per_second"] >= 0.75 * 40
    assert "2 of 2 tables moved node-1 -> node-2" in stdout
    assert "streams followed to another node: 14" in stdout


@pytest.mark.parametrize(
    "arguments",
    [
        ["--move-tables-at", "1"],
        ["--move-tables-at", "1", "--nodes", "2"],
        ["--move-tables-at", "1", "--database-url", "sqlite:////tmp/x.sqlite3"],
        ["--move-tables-at", "-1", "--nodes", "2", "--database-url", "sqlite:////tmp/x.sqlite3"],
    ],
)
def test_moving_tables_needs_two_nodes_on_one_database(
    arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        engine_load.parse_options(arguments)
    assert exit_.value.code == 2
    assert "--move-tables-at needs --nodes 2 or more on one --database-url" in (
        capsys.readouterr().err
    )


class _Roll(random.Random):
    """A random source whose draw is fixed: the bot's one roll per choice."""

    def __init__(self, roll: float) -> None:
        super().__init__()
        self.roll = roll

    def random(self) -> float:
        return self.roll


@pytest.mark.slow
def test_go_bots_choose_as_choose_action() -> None:
    from stud.v1 import table_pb2 as t

    binary = engine_load.build_loadgen()
    rng = random.Random(3)
    kinds = list(range(1, 10))
    cases: list[dict[str, Any]] = []
    for _ in range(400):
        legal = []
        for kind in rng.sample(kinds, rng.randint(1, 5)):
            low = rng.choice([0, 2, 4])
            high = low + rng.choice([0, 0, 2, 4])
            amounts = (
                sorted(rng.sample(range(low, high + 1), 2))
                if high > low and rng.random() < 0.5
                else []
            )
            legal.append({"kind": kind, "min_amount": low, "max_amount": high, "amounts": amounts})
        # Below, at and above the aggression threshold.
        roll = rng.choice([0.0, 0.05, engine_load.AGGRESSION, 0.5, 0.99])
        cases.append({"legal": legal, "roll": roll, "aggression": engine_load.AGGRESSION})
    run = subprocess.run(
        [str(binary), "-selftest"],
        input="".join(json.dumps(case) + "\n" for case in cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(answers) == len(cases)
    pressed = 0
    for case, answer in zip(cases, answers, strict=True):
        legal = [t.LegalAction(**action) for action in case["legal"]]
        kind, amount = engine_load.choose_action(legal, _Roll(case["roll"]))
        assert (answer["kind"], answer["amount"]) == (kind, amount), case
        pressed += (kind, amount) != engine_load.choose_action(legal, _Roll(0.99))
    assert pressed > 20  # many cases take the pressing branch, and it makes a difference


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["smoke-signals", None])
def test_go_load_process_refuses_a_spec_without_a_known_transport(transport: str | None) -> None:
    spec: dict[str, Any] = {
        "worker": 0,
        "address": "127.0.0.1:1",
        "pace": 2.0,
        "seed": 7,
        "tables_per_channel": 50,
        "opening": 100,
        "settle_seconds": 5.0,
        "aggression": engine_load.AGGRESSION,
        "tables": [{"name": "tables/t1", "tokens": ["token"] * engine_load.SEATS}],
    }
    if transport is not None:
        spec["transport"] = transport
    run = subprocess.run(
        [str(engine_load.build_loadgen())],
        input=json.dumps(spec) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    shown = json.dumps(transport or "")
    assert json.loads(run.stdout) == {
        "event": "failed",
        "detail": f'bad spec: transport {shown} is not "play" or "unary"',
    }


def test_a_run_that_cannot_start_ends_with_one_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(options: engine_load.Options) -> engine_load.LoadResult:
        raise RuntimeError("stud engine did not start")

    monkeypatch.setattr(engine_load, "run", broken)
    assert engine_load.main(["--quick"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "engine_load: stud engine did not start\n"
