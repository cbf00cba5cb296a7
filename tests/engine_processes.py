"""Engine nodes as real ``stud engine`` processes, for the tests that kill or freeze one.

Shared by the failover test (tests/test_failover.py: three nodes and two lobby replicas) and
the killed-node client tests (tests/clients/node_processes.py: two nodes and an in-process
lobby): the same environment, the same start of every node at once.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from pathlib import Path

from benchmarks.processes import ReadyProcess, start_stud
from tests.engine_server.api.conftest import SECRET

__all__ = ["engine_env", "start_engines"]


def engine_env(url: str, node: str, *, lease: float, between_hands: float) -> dict[str, str]:
    """The environment of node ``node`` on the database at ``url``: its lease and pause
    between hands, no metrics port, text logs (a failing test's log is read by a person)."""
    return {
        **os.environ,
        "STUD_DATABASE_URL": url,
        "STUD_JWT_SECRET": SECRET,
        "STUD_LOG_FORMAT": "text",
        "STUD_LOG_LEVEL": "INFO",
        "STUD_ENGINE_NODE_ID": node,
        "STUD_ENGINE_METRICS_PORT": "0",
        "STUD_ENGINE_BETWEEN_HANDS": str(between_hands),
        "STUD_ENGINE_LEASE_SECONDS": str(lease),
    }


async def start_engines(
    url: str,
    nodes: Iterable[str],
    logs: Path,
    *,
    lease: float,
    between_hands: float,
    timeout: float = 60,
) -> dict[str, ReadyProcess]:
    """``stud engine`` for each node at once (each logging to ``logs/engine-<node>.log``),
    once each printed its ready line (its ``grpc`` and ``web`` addresses), in the order given.

    If one fails to start, the others are stopped and its error is raised: the caller has
    nothing to clean up."""
    names = list(nodes)
    started = await asyncio.gather(
        *(
            start_stud(
                "engine",
                *("--grpc-port", "0", "--web-port", "0"),
                env=engine_env(url, node, lease=lease, between_hands=between_hands),
                ready_key="grpc",
                log=logs / f"engine-{node}.log",
                timeout=timeout,
            )
            for node in names
        ),
        return_exceptions=True,
    )
    failures = [result for result in started if isinstance(result, BaseException)]
    if failures:
        for result in started:
            if isinstance(result, ReadyProcess):
                await result.stop()
        raise failures[0]
    return {
        node: process
        for node, process in zip(names, started, strict=True)
        if isinstance(process, ReadyProcess)
    }
