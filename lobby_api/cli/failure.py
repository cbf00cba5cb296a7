"""What ``stud run`` stops with when a part of the room does not come up."""

from __future__ import annotations

__all__ = ["Failed"]


class Failed(Exception):
    """A part did not come up: reported as one line on stderr, exit status ``code``."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code
