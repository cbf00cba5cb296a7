"""Structured logs: one JSON object per line, carrying table and hand ids where known.

>>> import io, json, logging
>>> stream = io.StringIO()
>>> logger = logging.getLogger("stud.doctest")
>>> configure_logging("INFO", "json", stream=stream, logger=logger)
>>> logger.info("hand over", extra={"table": "t-1", "hand": 7})
>>> record = json.loads(stream.getvalue())
>>> record["message"], record["table"], record["hand"], record["level"]
('hand over', 't-1', 7, 'INFO')
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from types import TracebackType
from typing import IO, Any

__all__ = ["BoundedLog", "JsonFormatter", "configure_logging", "logs_json"]

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


_json_process = False


def logs_json() -> bool:
    """Whether this process logs JSON (:func:`configure_logging` set the root logger so):
    then whatever it reports on stderr should be a log record too (``stud`` reports a
    command's error so)."""
    return _json_process


def configure_logging(
    level: str,
    fmt: str,
    *,
    stream: IO[str] | None = None,
    logger: logging.Logger | None = None,
) -> None:
    """Send ``logger`` (the root logger by default) to ``stream`` as JSON or text.

    For the root logger in JSON, every line the process writes on stderr is JSON: every
    library's logger propagates to the root (uvicorn's too: servers are configured with
    ``log_config=None``), warnings are logged (``py.warnings``) and an uncaught exception,
    in the main thread or another, is logged with its traceback in the record's ``error``
    (``stud.crash``) instead of printed.
    """
    global _json_process
    handler = logging.StreamHandler(stream or sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    target = logger or logging.getLogger()
    target.handlers[:] = [handler]
    target.setLevel(level)
    if logger is not None:
        target.propagate = False
        return
    _json_process = fmt == "json"
    if _json_process:
        logging.captureWarnings(True)
        sys.excepthook = _log_uncaught
        threading.excepthook = _log_thread_uncaught


def _log_uncaught(
    kind: type[BaseException], error: BaseException, trace: TracebackType | None
) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, error, trace)
        return
    logging.getLogger("stud.crash").critical(
        "uncaught %s: %s", kind.__name__, error, exc_info=(kind, error, trace)
    )


def _log_thread_uncaught(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit or args.exc_value is None:
        return
    logging.getLogger("stud.crash").critical(
        "uncaught %s in thread %s: %s",
        args.exc_type.__name__,
        args.thread.name if args.thread is not None else "?",
        args.exc_value,
        exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
    )


class BoundedLog:
    """Log at most one record per ``interval`` seconds: for what strangers can cause at will
    (malformed requests), so that they cannot fill the log.

    The first record is written at once; the ones in the following ``interval`` are only
    counted, and the next record written says how many were left out (``suppressed``).

    >>> import io
    >>> stream = io.StringIO()
    >>> logger = logging.getLogger("stud.doctest.bounded")
    >>> configure_logging("INFO", "json", stream=stream, logger=logger)
    >>> now = [0.0]
    >>> bounded = BoundedLog(logger, 10.0, clock=lambda: now[0])
    >>> for _ in range(5):
    ...     bounded.warning("malformed request")
    >>> now[0] = 10.5
    >>> bounded.warning("malformed request")
    >>> [json.loads(line).get("suppressed") for line in stream.getvalue().splitlines()]
    [None, 4]
    >>> bounded.suppressed
    0
    """

    def __init__(
        self,
        logger: logging.Logger,
        interval: float = 10.0,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.interval = interval
        self.clock = clock
        #: records left out since the last one written
        self.suppressed = 0
        self._next = float("-inf")

    def warning(self, message: str, *args: object, extra: dict[str, Any] | None = None) -> None:
        """Log ``message`` at WARNING (no traceback), unless one was written lately."""
        now = self.clock()
        if now < self._next:
            self.suppressed += 1
            return
        self._next = now + self.interval
        fields = dict(extra or {})
        if self.suppressed:
            fields["suppressed"] = self.suppressed
            message += " (%d more like it not logged)"
            args = (*args, self.suppressed)
        self.suppressed = 0
        self.logger.warning(message, *args, extra=fields)
