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
from datetime import UTC, datetime
from typing import IO, Any

__all__ = ["JsonFormatter", "configure_logging"]

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


def configure_logging(
    level: str,
    fmt: str,
    *,
    stream: IO[str] | None = None,
    logger: logging.Logger | None = None,
) -> None:
    """Send ``logger`` (the root logger by default) to ``stream`` as JSON or text."""
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
