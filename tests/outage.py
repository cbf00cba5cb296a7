"""A database that goes away for a moment, for the outage tests: a SQLite file made read-only,
and a private PostgreSQL server to stop and start.

The suite's shared PostgreSQL (127.0.0.1:5432) serves other tests at the same time, so it is
never restarted: :class:`PrivatePostgres` runs a server of its own (``initdb`` into a
temporary directory, ``pg_ctl`` on a free port). PostgreSQL refuses to run as root: then it
runs as the ``postgres`` user. Without the PostgreSQL binaries the test is skipped on a
developer's machine and fails in CI (:func:`tests.postgres.postgres_unreachable`).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.postgres import postgres_unreachable

__all__ = ["PrivatePostgres", "free_port", "read_only_sqlite"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _set_writable(paths: list[Path], writable: bool) -> None:
    if os.geteuid() == 0:
        # Root writes whatever the mode bits say: the immutable attribute stops root too.
        subprocess.run(
            ["chattr", "-i" if writable else "+i", *map(str, paths)], check=True, timeout=10
        )
        return
    for path in paths:
        mode = path.stat().st_mode
        path.chmod(mode | 0o200 if writable else mode & ~0o222)


@contextlib.contextmanager
def read_only_sqlite(database: Path) -> Iterator[None]:
    """The SQLite file ``database``, its write-ahead log and its directory read-only (no
    journal can be made either) until the block ends. Its ``-shm`` file is left alone: SQLite
    maps it into memory, and a write to a mapping of a file that cannot be written is a
    SIGBUS, which no database outage causes."""
    paths = [database.parent, database]
    wal = database.with_name(database.name + "-wal")
    if wal.exists():
        paths.append(wal)
    _set_writable(paths, False)
    try:
        yield
    finally:
        _set_writable(paths, True)


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not found:
        path = shutil.which("pg_ctl")
        return Path(path).parent if path else None
    return Path(found[-1]).parent


class PrivatePostgres:
    """A PostgreSQL server of the test's own, on a free port of loopback, trust auth."""

    def __init__(self) -> None:
        binaries = _binaries()
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        if binaries is None:
            postgres_unreachable(self.url, FileNotFoundError("no PostgreSQL binaries (pg_ctl)"))
        self._bin = binaries
        self._root = Path(tempfile.mkdtemp(prefix="stud-pg-"))
        self.data = self._root / "data"
        self._log = self._root / "server.log"
        self._user: str | None = None
        if os.geteuid() == 0:
            self._user = "postgres"
            entry = pwd.getpwnam(self._user)
            os.chown(self._root, entry.pw_uid, entry.pw_gid)
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"port = {self.port}\nlisten_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{self._root}'\nfsync = off\n"
                "max_connections = 200\nshared_buffers = 32MB\n"
            )

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self._bin / tool), *args]
        if self._user is not None:
            command = ["runuser", "-u", self._user, "--", *command]
        completed = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if completed.returncode != 0:
            log = self._log.read_text() if self._log.exists() else ""
            raise RuntimeError(
                f"{tool} failed ({completed.returncode}): {completed.stderr}{completed.stdout}"
                f"\n--- server log\n{log}"
            )

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self._log), "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: every connection is cut, as in a restart)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def destroy(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.stop("immediate")
        shutil.rmtree(self._root, ignore_errors=True)
