"""Registering players, checking passwords (argon2id, :mod:`lobby_api.accounts.passwords`)
and minting their tokens."""

from __future__ import annotations

import logging
import secrets
from typing import Any

import sqlalchemy as sa
from argon2 import PasswordHasher
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.ids import new_id
from engine_server.store.types import utc_now
from lobby_api.accounts.models import PlayerRow
from lobby_api.accounts.passwords import hash_password, needs_upgrade, verify_password
from lobby_api.accounts.schemas import LoginRequest, PasswordChangeRequest, RegisterRequest
from lobby_api.catalog.services import get_city
from lobby_api.db import Database, insert_ignore
from lobby_api.problems import DomainError
from lobby_api.ratelimit.logins import LoginFailures
from lobby_api.sessions.services import RevokeReason, revoke_sessions
from lobby_api.wallet.ledger import ISSUER, post, wallet_account
from lobby_api.wallet.models import AccountKind, LedgerAccountRow

__all__ = ["Accounts", "new_player_id"]

log = logging.getLogger("stud.lobby.accounts")


def new_player_id() -> str:
    return new_id("p")


class Accounts:
    """Registration and log-in (argon2 runs on a worker thread: it is slow on purpose)."""

    def __init__(
        self,
        db: Database,
        hasher: PasswordHasher,
        signup_grant: int,
        login_failures: LoginFailures | None = None,
    ) -> None:
        self.db = db
        self.hasher = hasher
        self.signup_grant = signup_grant
        #: the per-account limit on failed log-ins (None: none)
        self.login_failures = login_failures
        # Checked against when the username is unknown, so that both refusals take as long.
        self._dummy_hash = hasher.hash(secrets.token_urlsafe(16))

    async def register(self, data: RegisterRequest) -> PlayerRow:
        """A new player with a wallet holding the sign-up grant of play money."""
        key = data.username.lower()
        async with self.db.read() as session:
            await get_city(session, data.city)
            if await self._by_key(session, key) is not None:
                raise _taken(data.username)
        password_hash = await hash_password(self.hasher, data.password)
        now = utc_now()
        player = PlayerRow(
            id=new_player_id(),
            username=data.username,
            username_key=key,
            password_hash=password_hash,
            city=data.city,
            created_at=now,
        )
        try:
            async with self.db.write() as session:
                if await self._by_key(session, key) is not None:
                    raise _taken(data.username)
                session.add(player)
                await session.flush()
                wallet = wallet_account(player.id)
                if self.signup_grant > 0:
                    await post(
                        session,
                        f"grant:{player.id}",
                        "signup_grant",
                        [(ISSUER, -self.signup_grant), (wallet, self.signup_grant)],
                        reference=f"players/{player.id}",
                        now=now,
                    )
                else:
                    await session.exec(
                        insert_ignore(session, LedgerAccountRow.__table__).values(  # type: ignore[attr-defined]
                            id=wallet,
                            kind=AccountKind.WALLET.value,
                            player_id=player.id,
                            balance=0,
                            created_at=now,
                        )
                    )
        except IntegrityError:
            # Another registration of the same name (in any case) committed first.
            raise _taken(data.username) from None
        return player

    async def log_in(self, data: LoginRequest, *, clear_failures: bool = True) -> PlayerRow:
        """The player, if the password is his (an unknown name is refused alike). While the
        name waits after too many failures, refused (429) before the password is checked.
        ``clear_failures=False``: the caller forgets the account's failed attempts itself, in
        a transaction of its own (:meth:`failures_cleared`)."""
        if self.login_failures is not None:
            await self.login_failures.attempt(data.username)
        # A lone read (one statement, no transaction), built once.
        found = await self.db.fetch(_PLAYER_BY_KEY, {"key": data.username.lower()})
        player = PlayerRow(**found[0]._mapping) if found else None
        stored = player.password_hash if player is not None else self._dummy_hash
        if not await verify_password(self.hasher, stored, data.password):
            player = None
        if player is None:
            raise DomainError(401, "wrong_credentials", "wrong username or password", "password")
        if self.login_failures is not None and clear_failures:
            await self.login_failures.succeeded(data.username)
        if needs_upgrade(self.hasher, stored):
            player = await self._upgrade_hash(player, data.password)
        return player

    def failures_cleared(self, username: str) -> list[tuple[sa.Delete, dict[str, Any]]]:
        """The writes that forget the account's failed log-ins (none without a limit), for the
        transaction that opens the session of a log-in that succeeded."""
        if self.login_failures is None:
            return []
        return [self.login_failures.cleared(username)]

    async def _upgrade_hash(self, player: PlayerRow, password: str) -> PlayerRow:
        """Hash the password again with the current parameters (it was just checked), unless
        the hash changed meanwhile (another log-in upgraded it first)."""
        upgraded = await hash_password(self.hasher, password)
        changed = await self.db.execute_write(
            sa.update(PlayerRow)
            .where(
                col(PlayerRow.id) == player.id,
                col(PlayerRow.password_hash) == player.password_hash,
            )
            .values(password_hash=upgraded)
        )
        if changed:
            log.info("player %s: password hash upgraded to the current parameters", player.id)
            player.password_hash = upgraded
        return player

    async def change_password(self, player_id: str, data: PasswordChangeRequest) -> PlayerRow:
        """Set a new password, if ``current_password`` is the player's, and revoke every
        session of the account (their refresh tokens) in the same transaction.

        The current password is checked as a log-in checks it, under the same per-account
        limit on failures: a stolen access token is not a way to guess the password.
        """
        async with self.db.read() as session:
            player = await session.get(PlayerRow, player_id)
        if player is None:
            raise DomainError(401, "token_invalid", "the token names no account", "Authorization")
        if self.login_failures is not None:
            await self.login_failures.attempt(player.username)
        if not await verify_password(self.hasher, player.password_hash, data.current_password):
            raise DomainError(
                403, "wrong_password", "the current password is wrong", "current_password"
            )
        if self.login_failures is not None:
            await self.login_failures.succeeded(player.username)
        if data.new_password == data.current_password:
            raise DomainError(
                422,
                "password_unchanged",
                "the new password must differ from the current one",
                "new_password",
            )
        new_hash = await hash_password(self.hasher, data.new_password)
        async with self.db.write() as session:
            stored = await session.get(PlayerRow, player_id, with_for_update=True)
            if stored is None or stored.password_hash != player.password_hash:
                # Another change committed since the check: that one stands.
                raise DomainError(
                    409,
                    "password_changed_meanwhile",
                    "the password was changed by another request meanwhile; nothing was changed",
                    "current_password",
                )
            stored.password_hash = new_hash
            session.add(stored)
            await revoke_sessions(session, player_id=player_id, reason=RevokeReason.PASSWORD_CHANGE)
        return stored

    @staticmethod
    async def _by_key(session: AsyncSession, key: str) -> PlayerRow | None:
        query = select(PlayerRow).where(PlayerRow.username_key == key)
        return (await session.exec(query)).first()


#: The player by the lower-cased username (bound as ``key``).
_PLAYER_BY_KEY = sa.select(*PlayerRow.__table__.columns).where(  # type: ignore[attr-defined]
    PlayerRow.__table__.c.username_key == sa.bindparam("key", type_=sa.String)  # type: ignore[attr-defined]
)


def _taken(username: str) -> DomainError:
    return DomainError(409, "username_taken", f"the username {username!r} is taken", "username")
