"""Password hashing: argon2id at OWASP's minimum cost, and the upgrade of older hashes.

OWASP's Password Storage Cheat Sheet gives argon2id with m=19 MiB (19456 KiB), t=2, p=1 as
its minimum (the other rows of its table cost the same). argon2-cffi's defaults (RFC 9106's
low-memory profile: 64 MiB, t=3, p=4) cost ten times as much CPU: on the two cores the lobby
shares with the engine that capped log-in at 7-8 per second (issue 16). The hashes carry their
parameters; a hash made with others (older, cheaper or dearer) is hashed again with these at
the player's next successful log-in (:func:`needs_upgrade`).

The hashing runs on a worker thread (argon2-cffi releases the GIL): the event loop goes on
serving while a password is checked.
"""

from __future__ import annotations

import asyncio

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

__all__ = [
    "MEMORY_KIB",
    "PARALLELISM",
    "TIME_COST",
    "default_hasher",
    "hash_password",
    "needs_upgrade",
    "verify_password",
]

#: OWASP's minimum for argon2id: 19 MiB of memory, two passes, one lane.
MEMORY_KIB = 19 * 1024
TIME_COST = 2
PARALLELISM = 1


def default_hasher() -> PasswordHasher:
    """argon2id at OWASP's minimum (see the module's docstring)."""
    return PasswordHasher(
        time_cost=TIME_COST, memory_cost=MEMORY_KIB, parallelism=PARALLELISM, type=Type.ID
    )


async def hash_password(hasher: PasswordHasher, password: str) -> str:
    """The password's hash, computed on a worker thread."""
    return await asyncio.to_thread(hasher.hash, password)


async def verify_password(hasher: PasswordHasher, stored: str, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from (checked on a worker thread);
    a malformed hash matches nothing."""
    try:
        return await asyncio.to_thread(hasher.verify, stored, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_upgrade(hasher: PasswordHasher, stored: str) -> bool:
    """Whether ``stored`` was made with other parameters (or another variant) than
    ``hasher``'s: it is to be hashed again at the next successful log-in."""
    try:
        return hasher.check_needs_rehash(stored)
    except InvalidHashError:
        return True
