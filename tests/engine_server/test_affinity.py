"""STUD_ENGINE_CPUS: every thread of a running engine stays on the CPUs it names."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchmarks.processes import STUD, start_ready_blocking
from engine_server.affinity import describe_cpus, parse_cpus
from engine_server.settings import EngineSettings, SettingsError

ALL = os.sched_getaffinity(0)
SECRET = {"STUD_JWT_SECRET": "s" * 40}


def allowed(pid: int) -> dict[int, str]:
    """Each thread of ``pid`` and the CPUs it may run on, as /proc lists them."""
    threads = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith("Cpus_allowed_list:"):
                threads[int(task.name)] = line.split(":", 1)[1].strip()
    return threads


@pytest.mark.parametrize("cpus", [{0}, {0, 1}, {0, 1, 2, 3, 7}, {1, 3, 4, 5}])
def test_a_cpu_list_reads_back_as_written(cpus: set[int]) -> None:
    assert parse_cpus(describe_cpus(cpus)) == cpus


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("x", "expected CPU numbers and ranges"),
        ("1-0", "the range 1-0 runs backwards"),
        ("4096", "CPU 4096 is not available to this process"),
    ],
)
def test_a_bad_cpu_list_is_refused_by_name(raw: str, message: str) -> None:
    with pytest.raises(SettingsError, match=f"STUD_ENGINE_CPUS: .*{message}"):
        EngineSettings.from_env({**SECRET, "STUD_ENGINE_CPUS": raw})


def test_threads_running_before_and_started_after_the_pinning_stay_on_the_cpus() -> None:
    child = textwrap.dedent(
        """
        import os, threading
        from engine_server.affinity import pin_process
        gate = threading.Event()
        before = threading.Thread(target=gate.wait)
        before.start()
        pin_process({0})
        after = threading.Thread(target=gate.wait)
        after.start()
        print(os.getpid(), before.native_id, after.native_id, flush=True)
        input()
        gate.set()
        """
    )
    with subprocess.Popen(
        [sys.executable, "-c", child], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as process:
        try:
            assert process.stdout is not None and process.stdin is not None
            pid, before, after = map(int, process.stdout.readline().split())
            threads = allowed(pid)
            assert {before, after, pid} <= set(threads)
            assert set(threads.values()) == {"0"}
            process.stdin.write("\n")
            process.stdin.flush()
            assert process.wait(10) == 0
        finally:
            process.kill()


@pytest.mark.skipif(len(ALL) < 2, reason="needs two CPUs to tell a pinned engine apart")
def test_stud_engine_runs_every_thread_on_the_cpus_it_is_given(tmp_path: Path) -> None:
    cpu = max(ALL)
    env = {
        **os.environ,
        **SECRET,
        "STUD_ENGINE_CPUS": str(cpu),
        "STUD_ENGINE_METRICS_PORT": "0",
        "STUD_LOG_LEVEL": "WARNING",
    }
    command = [str(STUD), "engine", "--grpc-port", "0", "--web-port", "0"]
    command += ["--database-url", f"sqlite:///{tmp_path}/engine.sqlite3"]
    engine = start_ready_blocking(
        command, name="stud engine", env=env, log=tmp_path / "engine.log", cwd=tmp_path
    )
    try:
        assert engine.ready["cpus"] == str(cpu)
        threads = allowed(engine.pid)
        # The loop's, grpcio's and the database's threads alike.
        assert len(threads) > 3
        assert set(threads.values()) == {str(cpu)}
    finally:
        engine.stop(timeout=30)
