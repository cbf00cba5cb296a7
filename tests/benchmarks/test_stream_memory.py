"""The bare-gRPC stream memory benchmark runs end to end, small, and reads the server's memory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks.stream_memory", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_a_small_run_reads_what_each_stream_added() -> None:
    run = _run("--streams", "60", "--rounds", "1", "--messages", "3", "--trace", "--kind", "server")
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert lines[0].startswith("bare grpc.aio server, 60 streams on 2 connections, 3 x 1100 B")
    figures = {line.split()[0]: float(line.split()[2]) for line in lines[1:5]}
    assert set(figures) == {"rss", "malloc_in_use", "malloc_free", "python"}
    # An open stream holds grpc core's call and HTTP/2 stream in malloc'd memory and
    # grpcio's objects in Python's: some KiB of each, never nothing.
    assert figures["malloc_in_use"] > 2
    assert figures["python"] > 1
    assert lines[5].startswith("  arenas added")


def test_bad_options_are_refused_in_one_line() -> None:
    run = _run("--streams", "0")
    assert run.returncode == 2
    assert "--streams, --connections and --rounds must be at least 1" in run.stderr
    run = _run("--env", "MALLOC_ARENA_MAX")
    assert run.returncode == 2
    assert "expected NAME=VALUE" in run.stderr
