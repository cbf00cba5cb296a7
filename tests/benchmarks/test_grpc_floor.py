"""The bare-gRPC floor benchmark runs end to end, small, and counts what it sent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_small_run_measures_every_message_and_call() -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.grpc_floor",
            "--streams",
            "14",
            "--rate",
            "140",
            "--seconds",
            "1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert lines[0].startswith("bare grpc.aio, 14 streams, 1100 B messages")
    stream, unary, floor = lines[1], lines[2], lines[3]
    # Bursts of seven every 20 ms for a second, every message received; 20 calls (ten at a
    # time).
    assert stream.startswith("stream message")
    assert int(stream.rsplit("(", 1)[1].split()[0]) >= 7 * 40
    assert unary.endswith("(20 calls)")
    assert floor.startswith("engine floor") and float(floor.split()[2]) > 0


def test_bad_options_are_refused_in_one_line() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.grpc_floor", "--streams", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2
    assert "--streams and --rate must be at least 7" in run.stderr


def test_options_to_try_parse_as_documented() -> None:
    import doctest

    from benchmarks import grpc_floor

    result = doctest.testmod(grpc_floor)
    assert result.attempted > 0 and result.failed == 0
