"""Set-up shared by the whole test suite.

grpc.aio keeps one poller thread per process, counted by the channels and servers alive:
when the last of them is freed, grpcio shuts the poller down and joins its thread. In a test
process that happens again and again, at test boundaries or whenever the collector frees an
earlier test's channel — after that test's event loop has closed and stopped reading the
poller's wake-up socket. A poller thread blocked writing to that socket then never ends, and
the join hangs the whole suite (seen once: the main thread joined the poller from a
collection inside a pure-Python test; grpc/grpc#40989, #22365). Counting this process as one
more user from the start keeps that shutdown from running before the process exits; each
test still closes its own channels and servers.

The suite's workers (pytest-xdist, ``scripts/test``) share the local PostgreSQL server and its
100 connections. A test marked ``many_connections`` opens dozens at once (concurrent money
moves, two lobbies' pools): its PostgreSQL case runs while no other worker runs a PostgreSQL
case, and the others share the server freely (a lock file in the session's temporary
directory, exclusive for the one, shared for the rest).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator

import pytest
from grpc.experimental.aio import init_grpc_aio

__all__: list[str] = []

init_grpc_aio()


@pytest.fixture(autouse=True)
def postgres_connections_shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    if "PYTEST_XDIST_WORKER" not in os.environ or "postgresql" not in request.node.nodeid:
        yield
        return
    many = request.node.get_closest_marker("many_connections") is not None
    lock = tmp_path_factory.getbasetemp().parent / "postgres-connections.lock"
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if many else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
