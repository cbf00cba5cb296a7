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
"""

from __future__ import annotations

from grpc.experimental.aio import init_grpc_aio

__all__: list[str] = []

init_grpc_aio()
