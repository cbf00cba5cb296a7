"""What an open gRPC server stream costs in memory, with no engine behind it.

A bare grpc.aio server (one generic handler, bytes in and out, no protobuf, no auth) in one
process, a bare grpc.aio client in another on loopback, the way the engine and its bots
talk. The client opens ``--streams`` streams over ``--connections`` connections (the load
benchmark's bots share one per 50 tables: 350 streams) and reads each stream's first
message; the server then sends ``--messages`` more to every stream (a busy stream, not only
an idle one) and measures itself:

- ``rss``: ``Rss`` of ``/proc/self/smaps_rollup`` after a full collection;
- ``malloc in use`` / ``malloc free``: glibc's ``mallinfo2()`` over every arena (what the
  C heap holds in live blocks, and what it keeps free inside its arenas: fragmentation);
- ``arenas``: glibc's arenas (``malloc_info``), one per thread that allocated, up to
  ``MALLOC_ARENA_MAX``;
- ``python``: what tracemalloc traces (Python objects and buffers; grpc core's own
  allocations go to malloc directly and are not traced), with ``--trace`` only (it
  costs memory of its own).

Each figure is the difference, divided by the streams, between the server with its
streams open and the same server before the first one. Vary one thing at a time::

    .venv/bin/python -m benchmarks.stream_memory [--streams 700] [--connections 2] \
        [--kind bidi|bidi-reader|server] [--messages 20] [--size 1100] \
        [--server-option NAME=VALUE ...] [--env NAME=VALUE ...] [--trace] [--rounds 3]

``--env`` sets a variable in the server's environment before it starts (glibc reads
``MALLOC_ARENA_MAX`` and ``MALLOC_TRIM_THRESHOLD_`` at its first allocation).
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import gc
import multiprocessing
import os
import re
import statistics
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass
from typing import Any

from benchmarks.grpc_floor import channel_option, name_and_value, same_bytes, start_bare_server
from engine_server.loops import DEFAULT_LOOP, LOOPS, run_in_loop

__all__ = ["MemoryReading", "StreamCost", "main", "measure", "read_memory"]

SERVICE = "floor.Memory"
KINDS = ("bidi", "bidi-reader", "server")


@dataclass(frozen=True, slots=True)
class MemoryReading:
    """One process's memory at one moment (bytes)."""

    rss: int
    malloc_in_use: int
    malloc_free: int
    arenas: int
    python: int


@dataclass(frozen=True, slots=True)
class StreamCost:
    """What one open stream added, in KiB (``arenas``: the arenas added in all)."""

    rss: float
    malloc_in_use: float
    malloc_free: float
    python: float | None
    arenas: int


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _libc() -> Any:
    return ctypes.CDLL(None)


def _arenas(libc: Any) -> int:
    """The number of glibc arenas, from ``malloc_info``'s XML (one ``<heap>`` each)."""
    libc.open_memstream.restype = ctypes.c_void_p
    libc.malloc_info.argtypes = (ctypes.c_int, ctypes.c_void_p)
    libc.fclose.argtypes = (ctypes.c_void_p,)
    libc.free.argtypes = (ctypes.c_void_p,)
    size = ctypes.c_size_t()
    buffer = ctypes.c_void_p()
    stream = libc.open_memstream(ctypes.byref(buffer), ctypes.byref(size))
    libc.malloc_info(0, stream)
    libc.fclose(stream)
    text = ctypes.string_at(buffer.value or 0, size.value).decode()
    libc.free(buffer.value)
    return len(re.findall(r"<heap nr=", text))


def read_memory() -> MemoryReading:
    """This process's memory now, after a full collection."""
    import tracemalloc

    gc.collect()
    libc = _libc()
    libc.mallinfo2.restype = _MallInfo2
    info = libc.mallinfo2()
    rss = 0
    with open("/proc/self/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith("Rss:"):
                rss = int(line.split()[1]) * 1024
    python = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
    return MemoryReading(
        rss=rss,
        malloc_in_use=info.uordblks + info.hblkhd,
        malloc_free=info.fordblks,
        arenas=_arenas(libc),
        python=python,
    )


async def _serve(options: argparse.Namespace, ports: Any, results: Any) -> None:
    import tracemalloc

    import grpc

    if options.trace:
        tracemalloc.start(1)
    outboxes: list[asyncio.Queue[bytes | None]] = []
    first = b"f" * options.size

    async def stream(outbox: asyncio.Queue[bytes | None]) -> AsyncIterator[bytes]:
        outboxes.append(outbox)
        yield first
        while (message := await outbox.get()) is not None:
            yield message

    async def server_stream(request: bytes, context: Any) -> AsyncIterator[bytes]:
        async for message in stream(asyncio.Queue()):
            yield message

    async def bidi(requests: Any, context: Any) -> AsyncIterator[bytes]:
        async for message in stream(asyncio.Queue()):
            yield message

    async def bidi_reader(requests: Any, context: Any) -> AsyncIterator[bytes]:
        # as Play: a task reads the client's messages while the handler writes
        async def read() -> None:
            async for _ in requests:
                pass

        reader = asyncio.create_task(read())
        try:
            async for message in stream(asyncio.Queue()):
                yield message
        finally:
            reader.cancel()

    handlers = {
        "Stream": grpc.unary_stream_rpc_method_handler(
            server_stream, request_deserializer=same_bytes, response_serializer=same_bytes
        ),
        "Bidi": grpc.stream_stream_rpc_method_handler(
            bidi, request_deserializer=same_bytes, response_serializer=same_bytes
        ),
        "BidiReader": grpc.stream_stream_rpc_method_handler(
            bidi_reader, request_deserializer=same_bytes, response_serializer=same_bytes
        ),
    }
    server, port = await start_bare_server(SERVICE, handlers, options.server_option)
    # one stream opened and closed first, so that what every server pays once
    # (grpc's first call, the handler's code) is in the reading before
    ports.put(port)
    while len(outboxes) < 1:
        await asyncio.sleep(0.02)
    outboxes.pop().put_nowait(None)
    await asyncio.sleep(1.0)
    before = read_memory()
    if options.trace:
        first_snapshot = tracemalloc.take_snapshot()
    if options.pause:
        # time to attach a profiler (heaptrack -p PID) to this process
        print(f"server pid {os.getpid()}: {options.pause:g} s to attach", flush=True)
        await asyncio.sleep(options.pause)
    ports.put("go")
    while len(outboxes) < options.streams:
        await asyncio.sleep(0.05)
    payload = os.urandom(options.size)
    for _ in range(options.messages):
        for outbox in outboxes:
            outbox.put_nowait(payload)
        await asyncio.sleep(0.01)
    # every message written before the reading (none left queued in Python)
    while any(outbox.qsize() for outbox in outboxes):
        await asyncio.sleep(0.05)
    await asyncio.sleep(3.0)
    after = read_memory()
    if options.trace:
        # what grew, by line: the Python objects each stream keeps
        grown = tracemalloc.take_snapshot().compare_to(first_snapshot, "lineno")
        for stat in grown[: options.trace_lines]:
            print(f"{stat.size_diff / options.streams:8.0f} B/stream  {stat}", file=sys.stderr)
    results.put((asdict(before), asdict(after)))
    for outbox in outboxes:
        outbox.put_nowait(None)
    await server.stop(1)


async def _client(options: argparse.Namespace, port: int, go: Any) -> None:
    import grpc

    method = {"bidi": "Bidi", "bidi-reader": "BidiReader", "server": "Stream"}[options.kind]
    channels = [
        grpc.aio.insecure_channel(
            f"127.0.0.1:{port}",
            options=[("grpc.use_local_subchannel_pool", 1), *options.client_option],
        )
        for _ in range(options.connections)
    ]

    def call(channel: Any) -> Any:
        if options.kind == "server":
            return channel.unary_stream(
                f"/{SERVICE}/{method}",
                request_serializer=same_bytes,
                response_deserializer=same_bytes,
            )(b"w")
        return channel.stream_stream(
            f"/{SERVICE}/{method}", request_serializer=same_bytes, response_deserializer=same_bytes
        )()

    async def one(channel: Any, opened: asyncio.Event | None = None) -> None:
        async for _ in call(channel):
            if opened is not None:
                opened.set()

    warm = asyncio.Event()
    warming = asyncio.create_task(one(channels[0], warm))
    await warm.wait()
    await warming
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, go.get)
    calls = []
    for number in range(options.streams):
        calls.append(asyncio.create_task(one(channels[number % len(channels)])))
        if number % 100 == 99:
            await asyncio.sleep(0.05)
    await asyncio.gather(*calls)
    for channel in channels:
        await channel.close()


def _run_server(options: argparse.Namespace, ports: Any, results: Any) -> None:
    run_in_loop(options.loop, _serve(options, ports, results))


def _run_client(options: argparse.Namespace, port: int, go: Any) -> None:
    run_in_loop(options.loop, _client(options, port, go))


def _round(options: argparse.Namespace) -> tuple[MemoryReading, MemoryReading]:
    context = multiprocessing.get_context("spawn")
    ports, go, results = context.Queue(), context.Queue(), context.Queue()
    saved = dict(os.environ)
    os.environ.update(dict(options.env))
    try:
        server = context.Process(target=_run_server, args=(options, ports, results))
        server.start()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    port = ports.get(timeout=60)
    client = context.Process(target=_run_client, args=(options, port, go))
    client.start()
    if ports.get(timeout=60) != "go":
        raise RuntimeError("the server did not read its memory before the streams")
    go.put("go")
    before, after = results.get(timeout=120 + options.messages + options.pause)
    client.join(30)
    server.join(30)
    return MemoryReading(**before), MemoryReading(**after)


def measure(options: argparse.Namespace) -> StreamCost:
    """One round: what a stream added to the server (see the module's docstring)."""
    before, after = _round(options)
    per = 1024 * options.streams
    return StreamCost(
        rss=(after.rss - before.rss) / per,
        malloc_in_use=(after.malloc_in_use - before.malloc_in_use) / per,
        malloc_free=(after.malloc_free - before.malloc_free) / per,
        python=(after.python - before.python) / per if options.trace else None,
        arenas=after.arenas - before.arenas,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.stream_memory",
        description="Bare grpc.aio on loopback: the server's memory per open stream.",
    )
    parser.add_argument("--streams", type=int, default=700, help="streams (default 700)")
    parser.add_argument("--connections", type=int, default=2, help="client connections (default 2)")
    parser.add_argument("--kind", choices=KINDS, default="bidi", help="the handler (bidi)")
    parser.add_argument(
        "--messages", type=int, default=20, help="messages per stream after the first (20)"
    )
    parser.add_argument("--size", type=int, default=1100, help="bytes a message (1100)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--trace", action="store_true", help="trace Python's allocations")
    parser.add_argument(
        "--trace-lines", type=int, default=0, help="with --trace: print the lines that grew"
    )
    parser.add_argument(
        "--server-option", type=channel_option, action="append", default=[], metavar="N=V"
    )
    parser.add_argument(
        "--client-option", type=channel_option, action="append", default=[], metavar="N=V"
    )
    parser.add_argument("--env", type=name_and_value, action="append", default=[], metavar="N=V")
    parser.add_argument("--loop", choices=LOOPS, default=DEFAULT_LOOP)
    parser.add_argument(
        "--pause", type=float, default=0.0, help="seconds to attach a profiler to the server"
    )
    options = parser.parse_args(argv)
    if options.streams < 1 or options.connections < 1 or options.rounds < 1:
        parser.error("--streams, --connections and --rounds must be at least 1")
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    costs = []
    started = time.monotonic()
    for _ in range(options.rounds):
        costs.append(measure(options))
    chosen = [*options.server_option, *options.env]
    print(
        f"bare grpc.aio {options.kind}, {options.streams} streams on {options.connections} "
        f"connections, {options.messages} x {options.size} B each, {options.loop}, "
        f"load {load}, {time.monotonic() - started:.0f} s"
        + (" | " + ", ".join(f"{k}={v}" for k, v in chosen) if chosen else "")
    )
    for name in ("rss", "malloc_in_use", "malloc_free", "python"):
        values = [getattr(cost, name) for cost in costs]
        if values[0] is None:
            continue
        shown = " ".join(f"{v:6.1f}" for v in values)
        print(f"  {name:14s} KiB/stream {statistics.median(values):6.1f}   ({shown})")
    print(f"  arenas added   {' '.join(str(cost.arenas) for cost in costs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
