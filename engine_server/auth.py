"""Bearer tokens shared by the engine and the lobby: JWT, HS256, with scopes.

A token names its holder in ``sub`` and what it may do in ``scope``
(space-separated): ``player`` (play at tables where he sits), ``lobby`` (the
lobby's service token: seat players and move chips) and ``admin`` (every
admin RPC).

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

import jwt

__all__ = ["ALGORITHM", "Identity", "Scope", "TokenError", "mint_token", "verify_token"]

ALGORITHM = "HS256"


class Scope(StrEnum):
    PLAYER = "player"
    LOBBY = "lobby"
    ADMIN = "admin"


class TokenError(Exception):
    """A token that is malformed, badly signed, expired or without a subject."""


@dataclass(frozen=True, slots=True)
class Identity:
    subject: str
    scopes: frozenset[Scope]
    name: str = ""

    def has(self, scope: Scope) -> bool:
        return scope in self.scopes


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


def verify_token(token: str, secret: str) -> Identity:
    try:
        claims = jwt.decode(
            token, secret, algorithms=[ALGORITHM], options={"require": ["sub", "exp"]}
        )
    except jwt.ExpiredSignatureError:
        raise TokenError("the token has expired") from None
    except jwt.PyJWTError as error:
        raise TokenError(f"the token is not valid: {error}") from None
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject:
        raise TokenError("the token names no subject")
    raw = claims.get("scope", "")
    scopes = frozenset(Scope(s) for s in str(raw).split() if s in Scope.__members__.values())
    name = claims.get("name", "")
    return Identity(subject, scopes, name if isinstance(name, str) else "")
