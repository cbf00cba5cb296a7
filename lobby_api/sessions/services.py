"""Sessions: a log-in opens one, each refresh rotates its refresh token, reuse revokes it.

An access token (a JWT the engine checks by itself) lives minutes; the refresh token lives
days and is exchanged at ``POST /auth/refresh`` for the next pair, once: the token presented
is retired and a new one of the same session answered. A retired token presented again means
that two parties hold it (one of them a thief, and no telling which): the whole session is
revoked, and both have to log in again. A log-out revokes its session, a password change every
session of the account. Revoking stops the refresh tokens at once; an access token already
issued lives out its few minutes (the engine asks no database).

Each exchange is one write transaction that locks the token's row (``SELECT … FOR UPDATE``
on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), so of two concurrent exchanges of one token
exactly one succeeds and the other counts as reuse.

>>> len(new_refresh_token()) >= 43, token_hash("rt_x") == token_hash("rt_x") != token_hash("rt_y")
(True, True)
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from prometheus_client import Counter
from sqlalchemy.sql import Executable
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.auth import Scope, mint_token
from engine_server.ids import new_id
from lobby_api.accounts.models import PlayerRow
from lobby_api.db import Database
from lobby_api.problems import DomainError
from lobby_api.sessions.models import RefreshTokenRow
from lobby_api.sessions.schemas import TokenPair

__all__ = [
    "RevokeReason",
    "Sessions",
    "new_refresh_token",
    "revoke_sessions",
    "token_hash",
]

_TABLE: sa.Table = RefreshTokenRow.__table__  # type: ignore[attr-defined]
_INSERT = sa.insert(_TABLE)

#: Sessions revoked because a retired refresh token came back (theft, or a client renewing twice).
REUSES = Counter(
    "stud_lobby_refresh_token_reuses", "Sessions revoked for the reuse of a refresh token"
)

#: How long a token's row outlives its expiry: meanwhile it is refused as expired (revoked,
#: reused), not as unknown.
KEEP_EXPIRED_MS = 24 * 3600 * 1000


class RevokeReason:
    """Why a session was revoked (``refresh_tokens.revoked_reason``)."""

    LOGOUT = "logout"
    PASSWORD_CHANGE = "password_change"
    REUSE = "reuse"


_REVOKED_DETAIL = {
    RevokeReason.LOGOUT: "the session was logged out",
    RevokeReason.PASSWORD_CHANGE: "the account's password was changed, which ends every session",
    RevokeReason.REUSE: "the session was revoked: one of its refresh tokens was used twice",
}


def new_refresh_token() -> str:
    """An opaque refresh token: 256 random bits."""
    return "rt_" + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What the database keeps of a refresh token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


def _refused(code: str, detail: str) -> DomainError:
    return DomainError(401, code, detail, "refresh_token")


async def revoke_sessions(
    session: AsyncSession,
    *,
    player_id: str | None = None,
    session_id: str | None = None,
    reason: str,
) -> int:
    """Revoke, in the caller's transaction, every live refresh token of a player or of one
    session; how many."""
    statement = sa.update(_TABLE).where(_TABLE.c.revoked == sa.false())
    if player_id is not None:
        statement = statement.where(_TABLE.c.player_id == player_id)
    if session_id is not None:
        statement = statement.where(_TABLE.c.session_id == session_id)
    result = await session.exec(statement.values(revoked=True, revoked_reason=reason))
    return int(result.rowcount or 0)


class Sessions:
    """Opens sessions, rotates their refresh tokens and revokes them."""

    def __init__(
        self,
        db: Database,
        secret: str,
        access_seconds: int,
        refresh_seconds: int,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = db
        self.secret = secret
        self.access_seconds = access_seconds
        self.refresh_seconds = refresh_seconds
        self.clock = clock

    def access_token(self, player: PlayerRow) -> tuple[str, float]:
        """A player token for the lobby and the engine, and when it expires."""
        now = self.clock()
        token = mint_token(
            self.secret,
            player.id,
            [Scope.PLAYER],
            ttl_seconds=self.access_seconds,
            name=player.username,
            now=now,
        )
        return token, int(now) + self.access_seconds

    async def open(
        self, player: PlayerRow, *, also: Sequence[tuple[Executable, Mapping[str, Any]]] = ()
    ) -> TokenPair:
        """A new session for ``player`` (a log-in): its first pair of tokens. ``also``: writes
        (statement, parameters) to commit with it (a log-in forgets the account's failed
        attempts here: one write transaction fewer per log-in)."""
        pair, row = self._issue(player, new_id("s"))
        async with self.db.write_connection() as connection:
            for statement, parameters in also:
                await connection.execute(statement, parameters)
            await connection.execute(_INSERT, row)
        return pair

    async def refresh(self, token: str) -> TokenPair:
        """The next pair of ``token``'s session; ``token`` is retired. Refused (401) when it is
        unknown, expired, revoked, or retired already (then its session is revoked too)."""
        digest = token_hash(token)
        refusal: DomainError | None = None
        async with self.db.write() as session:
            row = (
                await session.exec(
                    select(RefreshTokenRow)
                    .where(RefreshTokenRow.token_hash == digest)
                    .with_for_update()
                )
            ).first()
            now = self._now_ms()
            if row is None:
                refusal = _refused("refresh_token_invalid", "no session has this refresh token")
            elif row.revoked:
                refusal = _refused(
                    "refresh_token_revoked",
                    _REVOKED_DETAIL.get(row.revoked_reason or "", "the session was revoked"),
                )
            elif row.retired_at is not None:
                # Its successor was issued already: someone else holds this token too.
                await revoke_sessions(session, session_id=row.session_id, reason=RevokeReason.REUSE)
                refusal = _refused(
                    "refresh_token_reused",
                    "this refresh token was used already: the session is revoked as stolen; "
                    "log in again",
                )
            elif row.expires_at <= now:
                refusal = _refused(
                    "refresh_token_expired", "the refresh token has expired: log in again"
                )
            else:
                player = await session.get(PlayerRow, row.player_id)
                if player is None:
                    refusal = _refused("refresh_token_invalid", "the session's account is gone")
                else:
                    row.retired_at = now
                    session.add(row)
                    pair, issued = self._issue(player, row.session_id)
                    await session.exec(_INSERT, params=issued)
        if refusal is not None:
            if refusal.code == "refresh_token_reused":
                REUSES.inc()  # (committed)
            raise refusal
        return pair

    async def log_out(self, token: str) -> None:
        """Revoke ``token``'s session (every token of it). Logging out of a session that has
        ended already changes nothing; an unknown token is refused (401)."""
        async with self.db.write() as session:
            row = await session.get(RefreshTokenRow, token_hash(token))
            if row is not None:
                await revoke_sessions(
                    session, session_id=row.session_id, reason=RevokeReason.LOGOUT
                )
        if row is None:
            raise _refused("refresh_token_invalid", "no session has this refresh token")

    async def forget_expired(self) -> int:
        """Delete the tokens expired for a day (the sweep); how many."""
        cutoff = self._now_ms() - KEEP_EXPIRED_MS
        return await self.db.execute_write(sa.delete(_TABLE).where(_TABLE.c.expires_at <= cutoff))

    def _issue(self, player: PlayerRow, session_id: str) -> tuple[TokenPair, dict[str, Any]]:
        """A new pair of the session, and its refresh token's row to insert (as it is, with
        SQLAlchemy Core: not through the ORM's unit of work)."""
        refresh = new_refresh_token()
        now = self._now_ms()
        row = {
            "token_hash": token_hash(refresh),
            "session_id": session_id,
            "player_id": player.id,
            "issued_at": now,
            "expires_at": now + self.refresh_seconds * 1000,
            "retired_at": None,
            "revoked": False,
            "revoked_reason": None,
        }
        access, expires = self.access_token(player)
        pair = TokenPair(
            access_token=access,
            token_type="bearer",
            expires_in=self.access_seconds,
            expires_at=datetime.fromtimestamp(expires, UTC),
            player_id=player.id,
            refresh_token=refresh,
            refresh_expires_in=self.refresh_seconds,
            session_id=session_id,
        )
        return pair, row

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)
