"""A stream's mailbox: order, its bound, waiting on both sides, and what it costs."""

from __future__ import annotations

import asyncio
import tracemalloc

import pytest

from engine_server.table.mailbox import Mailbox


async def test_items_come_out_in_order_and_the_bound_holds() -> None:
    box: Mailbox[int] = Mailbox(3)
    for n in range(3):
        box.put_nowait(n)
    assert box.full() and box.qsize() == 3
    with pytest.raises(asyncio.QueueFull):
        box.put_nowait(3)
    assert [await box.get(), box.get_nowait(), box.get_nowait()] == [0, 1, 2]
    assert box.empty()
    with pytest.raises(asyncio.QueueEmpty):
        box.get_nowait()


async def test_a_reader_waits_for_the_next_item() -> None:
    box: Mailbox[str] = Mailbox(2)
    reader = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    assert not reader.done()
    box.put_nowait("update")
    assert await asyncio.wait_for(reader, 1) == "update"


async def test_a_writer_waits_for_room() -> None:
    box: Mailbox[str] = Mailbox(1)
    box.put_nowait("first")
    writer = asyncio.create_task(box.put("answer"))
    await asyncio.sleep(0)
    assert not writer.done() and box.qsize() == 1
    assert box.get_nowait() == "first"
    await asyncio.wait_for(writer, 1)
    assert box.get_nowait() == "answer"


async def test_a_cancelled_reader_leaves_the_mailbox_usable() -> None:
    box: Mailbox[int] = Mailbox(2)
    reader = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    box.put_nowait(7)
    assert await asyncio.wait_for(box.get(), 1) == 7


async def test_one_reader_at_a_time() -> None:
    box: Mailbox[int] = Mailbox(2)
    first = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="one reader"):
        await box.get()
    box.put_nowait(1)
    assert await asyncio.wait_for(first, 1) == 1


def test_a_zero_bound_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Mailbox(0)


async def test_an_empty_mailbox_costs_a_third_of_an_asyncio_queue() -> None:
    # Every open stream holds one (BENCHMARKS.md, "Memory of a busy table"): 3.2 KiB for an
    # asyncio.Queue, 0.8 KiB for a mailbox, measured.
    def cost(make: object) -> float:
        assert callable(make)
        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            held = [make() for _ in range(500)]
            size = tracemalloc.get_traced_memory()[0] - start
        finally:
            tracemalloc.stop()
        assert len(held) == 500
        return size / 500

    queue = cost(lambda: asyncio.Queue(maxsize=2048))
    box = cost(lambda: Mailbox(2048))
    assert box < queue / 3
    assert box < 1200
