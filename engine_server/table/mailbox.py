"""A stream's mailbox: a bounded FIFO with one reader, lighter than :class:`asyncio.Queue`.

Every open stream has one (:class:`~engine_server.table.broadcast.Watcher`), so what it
costs is paid per stream: an :class:`asyncio.Queue` is four deques (its items, its getters,
its putters, the ``join`` event's waiters) and two objects with their dicts, 3.2 KiB empty;
this is one deque and a slotted object, about 0.8 KiB (BENCHMARKS.md, "Memory of a busy
table"). A stream has one reader (its handler) and at most one writer that waits for room
(a Play stream's acts task), so one waiting future of each kind is all it keeps.

A relay channel (:mod:`engine_server.api.relay_service`) has no reader of its own: one
writer serves every channel of a relay call, told by the mailbox's ``listener`` when an
item arrives, and takes the items with :meth:`Mailbox.get_nowait`.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Mailbox"]

T = TypeVar("T")


class Mailbox(Generic[T]):
    """Up to ``maxsize`` items in order, for one reader (:meth:`get`) at a time."""

    __slots__ = ("_getter", "_items", "_putter", "listener", "maxsize")

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError(f"a mailbox holds at least one item, not {maxsize}")
        self.maxsize = maxsize
        self._items: deque[T] = deque()
        #: the reader waiting for an item, if it waits
        self._getter: asyncio.Future[None] | None = None
        #: the writer waiting for room, if it waits
        self._putter: asyncio.Future[None] | None = None
        #: called after each item is added, when set (a relay's writer, which has no
        #: waiting :meth:`get` per channel)
        self.listener: Callable[[], None] | None = None

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items

    def full(self) -> bool:
        return len(self._items) >= self.maxsize

    def put_nowait(self, item: T) -> None:
        """Add ``item``; :class:`asyncio.QueueFull` if the mailbox is full."""
        if len(self._items) >= self.maxsize:
            raise asyncio.QueueFull
        self._items.append(item)
        _wake(self._getter)
        if self.listener is not None:
            self.listener()

    async def put(self, item: T) -> None:
        """Add ``item``, waiting for room first if the mailbox is full."""
        while len(self._items) >= self.maxsize:
            if self._putter is not None and not self._putter.done():
                raise RuntimeError("a mailbox has one writer waiting for room at a time")
            self._putter = asyncio.get_running_loop().create_future()
            try:
                await self._putter
            finally:
                self._putter = None
        self.put_nowait(item)

    def get_nowait(self) -> T:
        """The oldest item; :class:`asyncio.QueueEmpty` if there is none."""
        if not self._items:
            raise asyncio.QueueEmpty
        item = self._items.popleft()
        _wake(self._putter)
        return item

    async def get(self) -> T:
        """The oldest item, waiting for one if there is none."""
        while not self._items:
            if self._getter is not None and not self._getter.done():
                raise RuntimeError("a mailbox has one reader at a time")
            self._getter = asyncio.get_running_loop().create_future()
            try:
                await self._getter
            finally:
                self._getter = None
        return self.get_nowait()


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)
