"""The table actor: one owner task that takes a table's commands one at a time, and its clock.

Like Nakama's match loop, it knows nothing of the game it runs: a command queue, one
owner task, and a wake-up at the handler's next deadline. The handler (a
:class:`TableHandler`, for poker :class:`engine_server.table.runtime.TableRuntime`) says when
to wake next and what a wake-up and the end of each command do; the commands are its own
coroutines, run here in the order they were sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from engine_server.table.errors import ErrorKind, TableError

__all__ = ["TableActor", "TableHandler"]

log = logging.getLogger("stud.table")

T = TypeVar("T")

#: a queued command: the coroutine function, its arguments, its caller's future, when it
#: arrived (``time.perf_counter``) and its name for the logs
_Queued = tuple[Callable[..., Awaitable[Any]], tuple[Any, ...], "asyncio.Future[Any]", float, str]


class TableHandler(Protocol):
    """What a table actor runs: the game's side of its loop."""

    async def on_start(self) -> None:
        """Before the first command (in the owner task)."""

    def next_wakeup(self) -> float | None:
        """The loop time of the next deadline (None: sleep until a command comes)."""

    async def on_timer(self, now: float) -> None:
        """A deadline passed (``now``: the loop's time)."""

    async def after_command(self) -> None:
        """After each command, whether it succeeded or was refused."""

    def log_ids(self, **more: Any) -> dict[str, Any]:
        """``extra`` for a log line about this table."""


class TableActor:
    """One table's owner task: its commands in order, and its wake-ups.

    ``inline``: a table that never runs (closed before this node started) has no owner
    task: nothing can change it, so its commands (reads, refusals, retries' first answers)
    run in the caller's task.
    """

    def __init__(self, table_id: str, handler: TableHandler, *, inline: bool = False) -> None:
        self.table_id = table_id
        self._handler = handler
        self._inline = inline
        self._queue: asyncio.Queue[_Queued] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        #: when the change being made now was caused: the running command's arrival, or the
        #: timer's wake-up (``time.perf_counter``; the view latency is measured from it)
        self.arrived = 0.0

    @property
    def task(self) -> asyncio.Task[None] | None:
        return self._task

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"table:{self.table_id}")

    async def stop(self) -> None:
        """Stop the owner task (the command it was running, if any, is cancelled)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def call(self, name: str, command: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run ``command(*args)`` in the owner task, after every command sent before it
        (``name``: the command's, for the logs)."""
        if self._task is None or self._task.done():
            if self._task is None and self._inline:
                return await command(*args)
            raise TableError(ErrorKind.UNAVAILABLE, "TABLE_MOVED", "the table is not running")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((command, args, future, time.perf_counter(), name))
        return await future

    def post(self, name: str, command: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Queue ``command(*args)`` for the owner task without waiting for it (a notice from
        outside any request, e.g. a stall of the loop); nothing happens if the table does not
        run. A failure is logged by the owner task."""
        if self._task is None or self._task.done():
            return
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        # Nobody awaits it: retrieve its outcome so no failure is reported twice.
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._queue.put_nowait((command, args, future, time.perf_counter(), name))

    async def _run(self) -> None:
        handler = self._handler
        loop = asyncio.get_running_loop()
        await handler.on_start()
        queue = self._queue
        while True:
            wake = handler.next_wakeup()
            try:
                if wake is None:
                    command, args, future, arrived, name = await queue.get()
                else:
                    async with asyncio.timeout_at(wake):
                        command, args, future, arrived, name = await queue.get()
            except TimeoutError:
                # The timer is this change's cause: what it does must not be timed from the
                # last command's arrival, seconds ago.
                self.arrived = time.perf_counter()
                try:
                    await handler.on_timer(loop.time())
                except Exception:
                    log.exception("table %s: timer failed", self.table_id, extra=handler.log_ids())
                continue
            self.arrived = arrived
            try:
                result = await command(*args)
            except Exception as error:
                if isinstance(error, TableError):
                    log.debug(
                        "table %s: %s refused: %s",
                        self.table_id,
                        name,
                        error.reason,
                        extra=handler.log_ids(command=name, reason=error.reason),
                    )
                else:
                    log.exception(
                        "table %s: %s failed",
                        self.table_id,
                        name,
                        extra=handler.log_ids(command=name),
                    )
                if not future.done():
                    future.set_exception(error)
            else:
                if not future.done():
                    future.set_result(result)
            await handler.after_command()
