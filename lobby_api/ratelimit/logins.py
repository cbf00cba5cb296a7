"""A limit on failed log-ins per account, whatever address they come from.

The per-address limit (:mod:`lobby_api.ratelimit.limiter`) cannot stop someone who rotates
addresses from trying passwords on one account without end. This one counts the failed
log-ins of each account (by the lower-cased username given, whether or not an account has
that name) in the database, so that every lobby replica sees the same count:

- the first ``free`` failures cost nothing;
- after each further failure the account's log-ins wait 1 s, then 2 s, 4 s, ... up to
  ``max_seconds``: an attempt during the wait is refused with ``429`` (``Retry-After``)
  before the password is looked at, and changes nothing;
- a successful log-in clears the count; so does ``forget_after`` without a failure.

An attempt is counted as it starts, in one write transaction that first checks the wait
(the row is taken by an upsert, which locks it on PostgreSQL; ``BEGIN IMMEDIATE`` on
SQLite): concurrent attempts on one account queue on its row, so no burst of them slips past
a wait that one of them started. The success of an attempt deletes its row (in the
transaction that opens the session: :meth:`LoginFailures.cleared`).

>>> failures = LoginFailures.__new__(LoginFailures)
>>> failures.free, failures.max_ms = 5, 900_000
>>> [failures.wait_ms(n) // 1000 for n in (1, 5, 6, 7, 8, 15, 16, 40)]
[0, 0, 1, 2, 4, 512, 900, 900]
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from lobby_api.db import Database
from lobby_api.problems import DomainError
from lobby_api.ratelimit.models import ACCOUNT_LENGTH, LoginFailureRow

__all__ = ["LoginFailures"]

_TABLE: sa.Table = LoginFailureRow.__table__  # type: ignore[attr-defined]


#: Forgets an account's failures (bound: ``cleared``), built once.
_CLEAR = sa.delete(_TABLE).where(_TABLE.c.account == sa.bindparam("cleared", type_=sa.String))


@cache
def _statements(dialect: str) -> tuple[Any, sa.Update]:
    """Built once for ``dialect``: the upsert that creates the account's row if new, locks it
    and returns ``(failures, locked_until, last_failure)``, and the update that counts the
    attempt (bound: ``counted``, and the three values)."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    fresh = insert(_TABLE).values(
        account=sa.bindparam("account", type_=sa.String),
        failures=0,
        locked_until=0,
        last_failure=0,
    )
    take = fresh.on_conflict_do_update(
        index_elements=[_TABLE.c.account], set_={"account": fresh.excluded.account}
    ).returning(_TABLE.c.failures, _TABLE.c.locked_until, _TABLE.c.last_failure)
    count = sa.update(_TABLE).where(_TABLE.c.account == sa.bindparam("counted", type_=sa.String))
    return take, count


class LoginFailures:
    """Failed log-ins per account, with a wait that doubles after ``free`` of them."""

    def __init__(
        self,
        db: Database,
        free: int,
        max_seconds: int,
        *,
        forget_after_seconds: int | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = db
        self.free = free
        self.max_ms = max_seconds * 1000
        #: quiet this long after its last failure, an account starts again from nothing
        self.forget_ms = 1000 * (forget_after_seconds or max(3600, 2 * max_seconds))
        self.clock = clock

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def wait_ms(self, failures: int) -> int:
        """How long log-ins wait after the ``failures``-th failure in a row."""
        if failures <= self.free:
            return 0
        doublings = failures - self.free - 1
        if doublings >= 40:
            return self.max_ms
        return min(self.max_ms, 1000 << doublings)

    @staticmethod
    def account(username: str) -> str:
        """The key of a username (lower case, as names are unique regardless of case)."""
        return username.lower()[:ACCOUNT_LENGTH]

    async def attempt(self, username: str) -> None:
        """Count an attempt to log in as ``username``, or refuse it (a 429
        :class:`DomainError` with ``Retry-After``) while the account waits."""
        account = self.account(username)
        take, count = _statements(self.db.dialect)
        async with self.db.write_connection() as connection:
            # The account's row, created if new, and locked (an upsert locks the row it
            # updates, as SELECT … FOR UPDATE would): one statement.
            row = (await connection.execute(take, {"account": account})).one()
            failures, locked_until, last_failure = (int(v) for v in row)
            now = self._now_ms()
            if locked_until > now:
                wait = max(1, math.ceil((locked_until - now) / 1000))
                raise DomainError(
                    429,
                    "too_many_failed_logins",
                    f"too many failed log-ins for this username: try again in {wait} s",
                    "username",
                    headers={"Retry-After": str(wait)},
                )
            failures = 1 if now - last_failure >= self.forget_ms else failures + 1
            await connection.execute(
                count,
                {
                    "counted": account,
                    "failures": failures,
                    "locked_until": now + self.wait_ms(failures),
                    "last_failure": now,
                },
            )

    def cleared(self, username: str) -> tuple[sa.Delete, dict[str, Any]]:
        """The statement that forgets the account's failures, with its parameters (a log-in
        that succeeded runs it in the transaction that opens its session)."""
        return _CLEAR, {"cleared": self.account(username)}

    async def succeeded(self, username: str) -> None:
        """The attempt logged in: the account's failures are forgotten."""
        async with self.db.write_connection() as connection:
            await connection.execute(*self.cleared(username))

    async def forget_stale(self) -> int:
        """Delete the rows of accounts that neither wait nor failed lately; how many."""
        now = self._now_ms()
        statement = sa.delete(_TABLE).where(
            _TABLE.c.last_failure <= now - self.forget_ms, _TABLE.c.locked_until <= now
        )
        return await self.db.execute_write(statement)
