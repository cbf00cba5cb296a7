"""A table's writes the database failed: the pause before each try, and a hand's unsaved end.

While the database is away (a restart, a full disk, a read-only file) a table keeps trying
the write it needs — a hand's start, an action, a hand's end — after a pause that doubles
up to a ceiling, rather than at every wake-up. The first failure of an outage is logged
with its cause, the later ones at debug, and the first success after it once.

A hand that is over but whose end is not stored yet waits here with its events (nobody is
told the result before it is stored); the table deals nothing until that write succeeds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from engine_server.table.events import UpdateEvent

__all__ = ["WriteRetry"]

log = logging.getLogger("stud.table")


class WriteRetry:
    """One table's backoff over failed writes, and the hand end it holds back."""

    def __init__(
        self,
        table_id: str,
        first_seconds: float,
        max_seconds: float,
        log_ids: Callable[..., dict[str, Any]],
    ) -> None:
        self._table_id = table_id
        self._first = first_seconds
        self._max = max_seconds
        self._log_ids = log_ids
        #: the pause before the next retry of a failed write (0: the last write succeeded)
        self.delay = 0.0
        #: a hand that is over but whose end the database has not stored yet: its events
        #: (published once stored), and when the write is tried again (loop time)
        self.unsaved_end: list[UpdateEvent] | None = None
        self.end_retry_at: float | None = None

    def failed(self, what: str, error: Exception) -> float:
        """Log a write the database failed (once per outage with its cause, then at debug):
        the pause before it is tried again."""
        first = self.delay == 0
        self.delay = self._first if first else min(self.delay * 2, self._max)
        log.log(
            logging.WARNING if first else logging.DEBUG,
            "table %s: could not %s, the database failed (%s); trying again in %.1f s",
            self._table_id,
            what,
            str(error).splitlines()[0] if str(error) else type(error).__name__,
            self.delay,
            extra=self._log_ids(retry_seconds=self.delay),
        )
        return self.delay

    def succeeded(self) -> None:
        if self.delay:
            log.info("table %s: the database answers again", self._table_id, extra=self._log_ids())
        self.delay = 0.0

    def hold_end(self, events: list[UpdateEvent], what: str, error: Exception, now: float) -> None:
        """The hand's end (``events``) could not be stored: keep it, and try again later."""
        self.unsaved_end = events
        self.end_retry_at = now + self.failed(what, error)

    def end_stored(self) -> None:
        self.succeeded()
        self.unsaved_end = None
        self.end_retry_at = None
