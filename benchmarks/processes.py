"""A ``stud`` command (or any program) started as a child process that announces itself with
a JSON *ready line* on stdout, for the tests and the benchmarks that run real processes.

``stud engine``, ``stud lobby`` and ``stud run`` print one JSON object when they serve
(``{"grpc": "127.0.0.1:40123", "web": ..., ...}``, ``{"http": ...}``); before it they may
print other lines. :func:`start_stud` starts one, reads stdout up to that line (a timeout
bounds the wait) and returns a :class:`ReadyProcess`: the ready document, the pid and the
signals a test sends (kill -9, SIGTERM, SIGSTOP, SIGCONT). A process that exits or stays
silent instead is killed, and the error names what was awaited and ends with the tail of
the process's stderr::

    env = {**os.environ, "STUD_DATABASE_URL": "sqlite:///engine.sqlite3"}
    engine = await start_stud("engine", "--grpc-port", "0", env=env, ready_key="grpc")
    try:
        channel = grpc.aio.insecure_channel(engine.ready["grpc"])
        ...
        assert await engine.kill_9() == -signal.SIGKILL
    finally:
        await engine.close()

:func:`start_stud_blocking` (:class:`BlockingReadyProcess`) is the same for synchronous
code (the benchmarks' drivers). The module lives in ``benchmarks`` because the tests import
from ``benchmarks`` already and the benchmarks never import the tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Generic, Protocol, TypeVar

__all__ = [
    "STUD",
    "BlockingReadyProcess",
    "NotReady",
    "ReadyProcess",
    "spawn",
    "start_ready",
    "start_ready_blocking",
    "start_stud",
    "start_stud_blocking",
]

#: The ``stud`` console script next to this interpreter (the project's virtual environment).
STUD = Path(sys.executable).with_name("stud")
#: How long a process whose stdout closed before its ready line is given to exit by itself.
EXIT_WAIT_SECONDS = 5.0
#: How much of a failed process's stderr its error quotes.
TAIL_CHARS = 4000


class NotReady(RuntimeError):
    """The process exited, or printed no ready line in time (it has been killed)."""


def _ready_document(line: bytes, ready_key: str | None) -> dict[str, Any] | None:
    """``line`` as the ready document: a JSON object (holding ``ready_key`` if given)."""
    try:
        document = json.loads(line)
    except ValueError:
        return None
    if not isinstance(document, dict) or (ready_key is not None and ready_key not in document):
        return None
    return document


def _awaited(ready_key: str | None) -> str:
    return "a JSON object" if ready_key is None else f"a JSON object with {ready_key!r}"


def _tail(text: str) -> str:
    return text[-TAIL_CHARS:] if text.strip() else "(nothing)"


def _log_tail(log: Path) -> str:
    return _tail(log.read_text(errors="replace")) if log.exists() else "(no log)"


@contextlib.contextmanager
def _stderr(log: Path | None, without_log: int) -> Iterator[IO[bytes] | int]:
    """Where a child's stderr goes: appended to ``log``, else ``without_log`` (a pipe, or
    nowhere). The parent's copy of the log file is closed once the child has started."""
    if log is None:
        yield without_log
        return
    with log.open("ab") as errors:
        yield errors


class _Signalled(Protocol):
    """What :class:`asyncio.subprocess.Process` and :class:`subprocess.Popen` share."""

    @property
    def pid(self) -> int: ...

    def send_signal(self, signal: int) -> None: ...


ProcessT = TypeVar("ProcessT", bound=_Signalled)


@dataclass
class _Started(ABC, Generic[ProcessT]):
    """A started child process, its name, where its stderr goes and its ready line."""

    process: ProcessT
    #: what errors call it, e.g. ``stud engine``
    name: str
    log: Path | None = None
    #: the ready line, once ``wait_ready`` read it
    ready: dict[str, Any] = field(default_factory=dict)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    @abstractmethod
    def returncode(self) -> int | None:
        """Its exit status; None while it runs (asyncio's and Popen's ask differently)."""

    def send_signal(self, signum: int) -> None:
        """Send ``signum`` unless the process is gone already."""
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def pause(self) -> None:
        """SIGSTOP: the process freezes (holds its sockets and answers nothing)."""
        self.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT after :meth:`pause`."""
        self.send_signal(signal.SIGCONT)

    def log_tail(self) -> str:
        """The end of its log (what it said last on stderr)."""
        return "(stderr not logged)" if self.log is None else _log_tail(self.log)

    def _found(self, line: bytes, ready_key: str | None) -> bool:
        """Whether ``line`` is the ready line (then kept in :attr:`ready`)."""
        document = _ready_document(line, ready_key)
        if document is not None:
            self.ready = document
        return document is not None

    def _not_ready(self, what: str, ready_key: str | None, tail: str) -> NotReady:
        return NotReady(
            f"{self.name} {what} (waited for its ready line: {_awaited(ready_key)} on stdout); "
            f"exit status {self.returncode}; the tail of its stderr:\n{tail}"
        )


@dataclass
class ReadyProcess(_Started[asyncio.subprocess.Process]):
    """A child process started by :func:`start_ready` / :func:`start_stud` (asyncio).

    Its stderr goes to :attr:`log` (appended), or, without a log, to a pipe the caller reads
    (``process.stderr``): a pipe nobody reads fills up and stalls a talkative process.
    """

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    async def wait_ready(self, ready_key: str | None = None, timeout: float = 60) -> dict[str, Any]:
        """Read stdout up to the ready line (skipping other lines); keep it in :attr:`ready`
        and return it. A process that exits first or takes longer than ``timeout`` seconds is
        killed, and :class:`NotReady` says why, with its stderr's tail."""
        stdout = self.process.stdout
        assert stdout is not None, "start the process with stdout=PIPE"
        what = "exited before its ready line"
        try:
            async with asyncio.timeout(timeout):
                while line := await stdout.readline():
                    if self._found(line, ready_key):
                        return self.ready
            # Its stdout closed: it is exiting. Its own status, not the kill's, says why.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), EXIT_WAIT_SECONDS)
        except TimeoutError:
            what = f"printed no ready line in {timeout:g} s"
        except BaseException:
            await self.close()
            raise
        await self.close()
        raise self._not_ready(what, ready_key, await self._tail())

    async def _tail(self) -> str:
        if self.log is not None:
            return self.log_tail()
        if self.process.stderr is None:
            return "(not captured)"
        return _tail((await self.process.stderr.read()).decode(errors="replace"))

    async def wait(self, timeout: float | None = None) -> int:
        """The exit status, once it exited (``TimeoutError`` after ``timeout`` seconds)."""
        async with asyncio.timeout(timeout):
            return await self.process.wait()

    async def kill_9(self) -> int:
        """SIGKILL, as a crash: returns the exit status (``-SIGKILL`` if it was running)."""
        self.send_signal(signal.SIGKILL)
        return await self.process.wait()

    async def stop(self, timeout: float = 30) -> int:
        """A clean stop: SIGCONT (a paused process would not hear the rest), SIGTERM and its
        exit status; killed if it has not exited after ``timeout`` seconds."""
        self.resume()
        self.terminate()
        try:
            return await self.wait(timeout)
        except TimeoutError:
            return await self.kill_9()

    async def close(self) -> None:
        """Kill it if it still runs, and reap it: the cleanup after a test."""
        self.kill()
        await self.process.wait()


async def start_ready(
    command: Sequence[str | os.PathLike[str]],
    *,
    name: str,
    env: Mapping[str, str],
    ready_key: str | None = None,
    log: Path | None = None,
    timeout: float = 60,
    cwd: Path | None = None,
) -> ReadyProcess:
    """Start ``command`` and return once it printed its ready line (:meth:`ReadyProcess.wait_ready`).

    ``env`` is its whole environment; its stderr is appended to ``log``, or piped without one.
    """
    started = await spawn(command, name=name, env=env, log=log, cwd=cwd)
    await started.wait_ready(ready_key, timeout)
    return started


async def spawn(
    command: Sequence[str | os.PathLike[str]],
    *,
    name: str,
    env: Mapping[str, str],
    log: Path | None = None,
    cwd: Path | None = None,
) -> ReadyProcess:
    """Start ``command`` without waiting for its ready line (for a test that expects the
    process to refuse to start; :meth:`ReadyProcess.wait_ready` waits for it otherwise)."""
    with _stderr(log, asyncio.subprocess.PIPE) as errors:
        process = await asyncio.create_subprocess_exec(
            *command, env=dict(env), cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=errors
        )
    return ReadyProcess(process, name, log)


async def start_stud(
    subcommand: str,
    *args: str,
    env: Mapping[str, str],
    ready_key: str | None = None,
    log: Path | None = None,
    timeout: float = 60,
) -> ReadyProcess:
    """``stud <subcommand> <args>`` started with :func:`start_ready`."""
    return await start_ready(
        [STUD, subcommand, *args],
        name=f"stud {subcommand}",
        env=env,
        ready_key=ready_key,
        log=log,
        timeout=timeout,
    )


@dataclass
class BlockingReadyProcess(_Started[subprocess.Popen[bytes]]):
    """A child process started by :func:`start_ready_blocking` (no event loop).

    Its stderr goes to :attr:`log` (appended), or is thrown away without one.
    """

    @property
    def returncode(self) -> int | None:
        return self.process.poll()

    def wait_ready(self, ready_key: str | None = None, timeout: float = 60) -> dict[str, Any]:
        """As :meth:`ReadyProcess.wait_ready`. Reads stdout a byte at a time (after a
        ``select`` that bounds the wait), so nothing past the ready line is taken from the
        pipe: the caller may go on reading ``process.stdout``."""
        stdout = self.process.stdout
        assert stdout is not None, "start the process with stdout=PIPE"
        deadline = time.monotonic() + timeout
        line = b""
        what = "exited before its ready line"
        try:
            while True:
                readable, _, _ = select.select(
                    [stdout], [], [], max(deadline - time.monotonic(), 0)
                )
                if not readable:
                    what = f"printed no ready line in {timeout:g} s"
                    break
                byte = os.read(stdout.fileno(), 1)
                if not byte:
                    # Its stdout closed: it is exiting. Its own status, not the kill's, says why.
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        self.process.wait(EXIT_WAIT_SECONDS)
                    break
                line += byte
                if byte == b"\n":
                    if self._found(line, ready_key):
                        return self.ready
                    line = b""
        except BaseException:
            self.close()
            raise
        self.close()
        raise self._not_ready(
            what, ready_key, "(not captured)" if self.log is None else self.log_tail()
        )

    def wait(self, timeout: float | None = None) -> int:
        """The exit status (``subprocess.TimeoutExpired`` after ``timeout`` seconds)."""
        return self.process.wait(timeout)

    def kill_9(self) -> int:
        self.send_signal(signal.SIGKILL)
        return self.process.wait()

    def stop(self, timeout: float = 30) -> int:
        """As :meth:`ReadyProcess.stop`, and :meth:`close` after it."""
        self.resume()
        self.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout)
        return self.close()

    def close(self) -> int:
        """Kill it if it still runs, reap it and close its stdout; its exit status."""
        code = self.kill_9()
        if self.process.stdout is not None:
            self.process.stdout.close()
        return code


def start_ready_blocking(
    command: Sequence[str | os.PathLike[str]],
    *,
    name: str,
    env: Mapping[str, str],
    ready_key: str | None = None,
    log: Path | None = None,
    timeout: float = 60,
    cwd: Path | None = None,
) -> BlockingReadyProcess:
    """:func:`start_ready` for synchronous code."""
    with _stderr(log, subprocess.DEVNULL) as errors:
        process = subprocess.Popen(
            list(command), env=dict(env), cwd=cwd, stdout=subprocess.PIPE, stderr=errors
        )
    started = BlockingReadyProcess(process, name, log)
    started.wait_ready(ready_key, timeout)
    return started


def start_stud_blocking(
    subcommand: str,
    *args: str,
    env: Mapping[str, str],
    ready_key: str | None = None,
    log: Path | None = None,
    timeout: float = 60,
) -> BlockingReadyProcess:
    """``stud <subcommand> <args>`` started with :func:`start_ready_blocking`."""
    return start_ready_blocking(
        [STUD, subcommand, *args],
        name=f"stud {subcommand}",
        env=env,
        ready_key=ready_key,
        log=log,
        timeout=timeout,
    )
