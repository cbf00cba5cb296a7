"""Bearer tokens shared by the engine and the lobby: JWT, HS256, with scopes.

A token names its holder in ``sub`` and what it may do in ``scope``
(space-separated): ``player`` (play at tables where he sits), ``lobby`` (the
lobby's service token: seat players and move chips), ``admin`` (every
admin RPC) and ``gateway`` (a gateway's RelayService call: it carries players'
streams, each opened with the player's own token).

>>> token = mint_token("secret-with-enough-length-0123456789", "p_1", [Scope.PLAYER], name="ann")
>>> identity = verify_token(token, "secret-with-enough-length-0123456789")
>>> identity.subject, identity.has(Scope.PLAYER), identity.has(Scope.ADMIN), identity.name
('p_1', True, False, 'ann')
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

import jwt

__all__ = [
    "ALGORITHM",
    "Identity",
    "Scope",
    "TokenError",
    "TokenExpired",
    "mint_token",
    "verify_token",
]

ALGORITHM = "HS256"


class Scope(StrEnum):
    PLAYER = "player"
    LOBBY = "lobby"
    ADMIN = "admin"
    GATEWAY = "gateway"


class TokenError(Exception):
    """A token that is malformed, badly signed, expired or without a subject."""


class TokenExpired(TokenError):
    """A well-signed token past its ``exp``: its holder should fetch a fresh one (the lobby's
    ``POST /auth/refresh``) rather than log in again."""


@dataclass(frozen=True, slots=True)
class Identity:
    subject: str
    scopes: frozenset[Scope]
    name: str = ""
    #: when the token expires (seconds since the epoch; 0: unknown). A stream checks its acts
    #: against it: the stream outlives its token, the right to act does not.
    expires: float = 0.0

    def has(self, scope: Scope) -> bool:
        return scope in self.scopes

    def expired(self, now: float | None = None) -> bool:
        """Whether the token this identity came from has expired by ``now``."""
        return bool(self.expires) and self.expires <= (time.time() if now is None else now)


def mint_token(
    secret: str,
    subject: str,
    scopes: Iterable[Scope],
    *,
    ttl_seconds: int = 24 * 3600,
    name: str = "",
    now: float | None = None,
) -> str:
    issued = int(time.time() if now is None else now)
    claims: dict[str, object] = {
        "sub": subject,
        "scope": " ".join(sorted(str(s) for s in scopes)),
        "iat": issued,
        "exp": issued + ttl_seconds,
    }
    if name:
        claims["name"] = name
    return jwt.encode(claims, secret, algorithm=ALGORITHM)


def verify_token(token: str, secret: str, *, now: float | None = None) -> Identity:
    """The holder of ``token``, or :class:`TokenError` saying what is wrong with it.

    A player's client sends the same token with every action: its signature is checked
    once and the verdict remembered (only good tokens, a bounded number), while expiry is
    checked at every use.

    >>> secret = "secret-with-enough-length-0123456789"
    >>> token = mint_token(secret, "p_1", [Scope.PLAYER], ttl_seconds=60, now=1_000_000)
    >>> verify_token(token, secret, now=1_000_059).subject
    'p_1'
    >>> verify_token(token, secret, now=1_000_060)
    Traceback (most recent call last):
    ...
    engine_server.auth.TokenExpired: the token has expired
    """
    identity = _verified(token, secret)
    if identity.expired(now):
        raise TokenExpired("the token has expired")
    return identity


@lru_cache(maxsize=16_384)
def _verified(token: str, secret: str) -> Identity:
    """The holder of a well-signed token, with when it expires (expiry is the caller's)."""
    try:
        claims = jwt.decode(
            token,
            secret,
            algorithms=[ALGORITHM],
            options={"require": ["sub", "exp"], "verify_exp": False},
        )
    except jwt.PyJWTError as error:
        raise TokenError(f"the token is not valid: {error}") from None
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject:
        raise TokenError("the token names no subject")
    expires = claims["exp"]
    if isinstance(expires, bool) or not isinstance(expires, int | float):
        raise TokenError("the token is not valid: exp must be a number")
    raw = claims.get("scope", "")
    scopes = frozenset(Scope(s) for s in str(raw).split() if s in Scope.__members__.values())
    name = claims.get("name", "")
    return Identity(subject, scopes, name if isinstance(name, str) else "", float(expires))
