"""Who is calling: the ``Authorization: Bearer`` token, the same JWT the engine accepts.

Tokens are minted and checked with :mod:`engine_server.auth` (HS256, the
shared ``STUD_JWT_SECRET``, scope ``player``), so the token the lobby gives at
log-in also opens the player's ``WatchTable`` stream on the engine.

Access tokens are short-lived (``STUD_LOBBY_TOKEN_SECONDS``, 15 minutes by default): an
expired one is refused with the code ``token_expired``, and the client renews it with its
refresh token (:mod:`lobby_api.sessions`).

Dependencies: ``player_id`` (the token's subject, no database access) and
``current_player`` (the :class:`~lobby_api.accounts.models.PlayerRow`). Either
answers 401 (a problem document with ``WWW-Authenticate: Bearer``) otherwise.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from litestar import Request
from litestar.datastructures import State
from litestar.di import NamedDependency

from engine_server.auth import Scope, TokenError, TokenExpired, mint_token, verify_token
from lobby_api.accounts.models import PlayerRow
from lobby_api.problems import DomainError

__all__ = ["issue_token", "provide_current_player", "provide_player_id", "token_subject"]


def _unauthenticated(detail: str, code: str = "unauthenticated") -> DomainError:
    return DomainError(
        401,
        code,
        detail,
        "Authorization",
        headers={"WWW-Authenticate": 'Bearer realm="stud"'},
    )


def issue_token(secret: str, player: PlayerRow, ttl_seconds: int) -> str:
    """A player token for ``player`` (the lobby's and the engine's)."""
    return mint_token(
        secret, player.id, [Scope.PLAYER], ttl_seconds=ttl_seconds, name=player.username
    )


def token_subject(authorization: str | None, secret: str) -> str:
    """The player id a ``Bearer`` header names (raises a 401 :class:`DomainError`)."""
    if not authorization:
        raise _unauthenticated("an 'Authorization: Bearer <token>' header is required")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _unauthenticated("expected 'Authorization: Bearer <token>'", "token_invalid")
    try:
        identity = verify_token(token.strip(), secret)
    except TokenExpired as error:
        # Its own code: the client renews it (POST /auth/refresh) and sends the request again.
        raise _unauthenticated(str(error), "token_expired") from None
    except TokenError as error:
        raise _unauthenticated(str(error), "token_invalid") from None
    if not identity.has(Scope.PLAYER):
        raise _unauthenticated("the token is not a player token", "token_invalid")
    return identity.subject


def provide_player_id(request: Request[Any, Any, Any], state: State) -> str:
    return token_subject(request.headers.get("authorization"), state.settings.jwt_secret)


#: The player a token names: one statement, built once (bound parameter).
_PLAYER_BY_ID = sa.select(*PlayerRow.__table__.columns).where(  # type: ignore[attr-defined]
    PlayerRow.__table__.c.id == sa.bindparam("player_id")  # type: ignore[attr-defined]
)


async def provide_current_player(state: State, player_id: NamedDependency[str]) -> PlayerRow:
    # A lone read (no transaction around it, no session): every request that moves money asks
    # it first (issue 16). The request's shared session would hold a connection throughout.
    found = await state.db.fetch(_PLAYER_BY_ID, {"player_id": player_id})
    if not found:
        raise _unauthenticated("the token names no account", "token_invalid")
    return PlayerRow(**found[0]._mapping)
