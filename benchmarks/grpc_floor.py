"""What gRPC itself costs in Python, with no engine behind it: the floor under the engine.

A bare grpc.aio server (no protobuf, no auth: bytes in, bytes out) in one process and a
bare client in another, on loopback, the way the engine and its bots talk:

- **streams**: ``--streams`` server streams, each fed from an asyncio queue by an async
  generator, as WatchTable is; messages go out in bursts of seven (one table's seats) at
  ``--rate`` messages a second, ``--size`` bytes each;
- **unary**: ``--rate``/7 unary calls a second (one Act per burst), 10 in flight at a time.

Printed: the server's and the client's CPU per message and per call. The engine under
load needs seven stream messages and one Act per action: multiply to read its floor, and
compare with ``benchmarks.engine_load``'s "ms CPU / action" from the same machine.

    .venv/bin/python -m benchmarks.grpc_floor [--streams 700] [--rate 700] [--seconds 10] \
        [--loop uvloop|asyncio]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from engine_server.loops import DEFAULT_LOOP, LOOPS, run_in_loop

__all__ = [
    "FloorResult",
    "channel_option",
    "main",
    "measure",
    "name_and_value",
    "same_bytes",
    "start_bare_server",
]

SERVICE = "floor.Floor"


def same_bytes(data: bytes) -> bytes:
    """The bare servers' and clients' (de)serializer: bytes pass as they are."""
    return data


@dataclass(frozen=True, slots=True)
class FloorResult:
    messages: int
    server_us_per_message: float
    client_us_per_message: float
    calls: int
    server_us_per_call: float
    client_us_per_call: float


async def start_bare_server(
    service: str, handlers: dict[str, Any], server_options: list[tuple[str, int | str]]
) -> tuple[Any, int]:
    """A started grpc.aio server on a free loopback port with only ``handlers`` (generic,
    under ``service``), and its port."""
    import grpc

    server = grpc.aio.server(options=server_options)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


def name_and_value(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` split at its first ``=``; :class:`argparse.ArgumentTypeError` without.

    >>> name_and_value("MALLOC_ARENA_MAX=2")
    ('MALLOC_ARENA_MAX', '2')
    """
    name, equals, value = text.partition("=")
    if not name or not equals:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, value


async def _serve(
    options: argparse.Namespace, ports: Any, control: Any, results: Any, unary: bool
) -> None:
    import grpc

    queues: list[asyncio.Queue[bytes | None]] = []

    async def watch(request: bytes, context: Any) -> AsyncIterator[bytes]:
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        queues.append(queue)
        while (message := await queue.get()) is not None:
            yield message

    async def act(request: bytes, context: Any) -> bytes:
        return request[:64]

    handlers = {
        "Watch": grpc.unary_stream_rpc_method_handler(
            watch, request_deserializer=same_bytes, response_serializer=same_bytes
        ),
        "Act": grpc.unary_unary_rpc_method_handler(
            act, request_deserializer=same_bytes, response_serializer=same_bytes
        ),
    }
    server, port = await start_bare_server(SERVICE, handlers, options.server_option)
    ports.put(port)
    loop = asyncio.get_running_loop()
    if unary:
        await loop.run_in_executor(None, control.get)  # the client starts
        cpu = time.process_time()
        await loop.run_in_executor(None, control.get)  # the client is done
        results.put(("server", time.process_time() - cpu))
    else:
        while len(queues) < options.streams:
            await asyncio.sleep(0.05)
        payload = os.urandom(options.size)
        bursts_per_tick = max(1, options.rate // 7 // 50)
        cpu, start, sent = time.process_time(), time.monotonic(), 0
        while time.monotonic() - start < options.seconds:
            for _ in range(bursts_per_tick):
                first = (sent // 7 * 7) % len(queues)
                for seat in range(7):
                    queues[(first + seat) % len(queues)].put_nowait(payload)
                    sent += 1
            await asyncio.sleep(0.02)
        results.put(("server", time.process_time() - cpu))
        results.put(("sent", sent))
        for queue in queues:
            queue.put_nowait(None)
    await server.stop(1)


async def _client(options: argparse.Namespace, port: int, control: Any, results: Any) -> None:
    import grpc

    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options.client_option)
    if options.unary:
        act = channel.unary_unary(
            f"/{SERVICE}/Act", request_serializer=same_bytes, response_deserializer=same_bytes
        )
        calls = max(10, int(options.rate / 7 * options.seconds) // 10 * 10)
        control.put("start")
        cpu = time.process_time()
        for _ in range(calls // 10):
            await asyncio.gather(*(act(b"a" * 80) for _ in range(10)))
            await asyncio.sleep(10 * 7 / options.rate)
        results.put(("client", time.process_time() - cpu))
        results.put(("calls", calls))
        control.put("done")
    else:
        watch = channel.unary_stream(
            f"/{SERVICE}/Watch", request_serializer=same_bytes, response_deserializer=same_bytes
        )
        received = 0

        async def one() -> None:
            nonlocal received
            async for _ in watch(b"w"):
                received += 1

        cpu = time.process_time()
        await asyncio.gather(*(one() for _ in range(options.streams)))
        results.put(("client", time.process_time() - cpu))
        results.put(("received", received))
    await channel.close()


def _run_server(options: argparse.Namespace, ports: Any, control: Any, results: Any) -> None:
    run_in_loop(options.loop, _serve(options, ports, control, results, options.unary))


def _run_client(options: argparse.Namespace, port: int, control: Any, results: Any) -> None:
    run_in_loop(options.loop, _client(options, port, control, results))


def channel_option(text: str) -> tuple[str, int | str]:
    """``NAME=VALUE`` as a gRPC channel argument (a whole number stays a number).

    >>> channel_option("grpc.http2.bdp_probe=0")
    ('grpc.http2.bdp_probe', 0)
    >>> channel_option("grpc.optimization_target=throughput")
    ('grpc.optimization_target', 'throughput')
    """
    name, value = name_and_value(text)
    return name, int(value) if value.lstrip("-").isdigit() else value


def _round(options: argparse.Namespace) -> dict[str, float]:
    context = multiprocessing.get_context("spawn")
    ports, control, results = context.Queue(), context.Queue(), context.Queue()
    server = context.Process(target=_run_server, args=(options, ports, control, results))
    server.start()
    port = ports.get(timeout=60)
    client = context.Process(target=_run_client, args=(options, port, control, results))
    client.start()
    figures: dict[str, float] = {}
    # server CPU, client CPU, and what was counted: messages sent and received, or calls
    while len(figures) < (3 if options.unary else 4):
        key, value = results.get(timeout=options.seconds + 120)
        figures[key] = value
    client.join(30)
    server.join(30)
    return figures


def measure(options: argparse.Namespace) -> FloorResult:
    streams = _round(argparse.Namespace(**{**vars(options), "unary": False}))
    calls = _round(argparse.Namespace(**{**vars(options), "unary": True}))
    sent, received = streams["sent"], streams["received"]
    return FloorResult(
        messages=int(received),
        server_us_per_message=1e6 * streams["server"] / sent,
        client_us_per_message=1e6 * streams["client"] / max(received, 1),
        calls=int(calls["calls"]),
        server_us_per_call=1e6 * calls["server"] / calls["calls"],
        client_us_per_call=1e6 * calls["client"] / calls["calls"],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.grpc_floor",
        description="Bare grpc.aio on loopback: CPU per streamed message and per unary call.",
    )
    parser.add_argument("--streams", type=int, default=700, help="server streams (default 700)")
    parser.add_argument("--rate", type=int, default=700, help="messages a second (default 700)")
    parser.add_argument("--size", type=int, default=1100, help="bytes a message (default 1100)")
    parser.add_argument("--seconds", type=float, default=10.0, help="each round (default 10)")
    parser.add_argument(
        "--server-option",
        type=channel_option,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a grpc.aio server option to try (repeatable)",
    )
    parser.add_argument(
        "--client-option",
        type=channel_option,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a client channel option to try (repeatable)",
    )
    parser.add_argument(
        "--loop",
        choices=LOOPS,
        default=DEFAULT_LOOP,
        help=f"event loop of the server and the client (default {DEFAULT_LOOP}, as the engine)",
    )
    options = parser.parse_args(argv)
    if options.streams < 7 or options.rate < 7 or options.size < 1 or options.seconds <= 0:
        parser.error("--streams and --rate must be at least 7, --size and --seconds positive")
    result = measure(options)
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"bare grpc.aio, {options.streams} streams, {options.size} B messages, "
        f"{options.loop}, load {load}"
    )
    for side, chosen in (("server", options.server_option), ("client", options.client_option)):
        if chosen:
            print(f"{side} options  " + ", ".join(f"{k}={v}" for k, v in chosen))
    print(
        f"stream message  server {result.server_us_per_message:6.0f} us CPU, "
        f"client {result.client_us_per_message:6.0f} us CPU ({result.messages} messages)"
    )
    print(
        f"unary call      server {result.server_us_per_call:6.0f} us CPU, "
        f"client {result.client_us_per_call:6.0f} us CPU ({result.calls} calls)"
    )
    action = 7 * result.server_us_per_message + result.server_us_per_call
    print(f"engine floor    {action / 1000:.2f} ms server CPU per action (7 messages + 1 Act)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
