"""The tournament services, built per request from the app's state (Litestar ``Provide``),
and ``ops``: the caller of the admin routes, from an ops token.

An ops token is a token of scope ``admin`` signed with the shared secret — the one
``stud admin token`` prints. A player's token (scope ``player``) is refused there (403), and
a request without a valid token is a 401.
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.datastructures import State
from litestar.di import Provide

from engine_server.auth import Scope, TokenError, verify_token
from lobby_api.problems import DomainError
from lobby_api.tournaments.director import Director
from lobby_api.tournaments.services import Registrations, TournamentAdmin, TournamentPages

__all__ = [
    "DEPENDENCIES",
    "OPS_DEPENDENCIES",
    "ops_subject",
    "provide_admin",
    "provide_director",
    "provide_ops",
    "provide_pages",
    "provide_registrations",
]


def _unauthenticated(detail: str, code: str = "unauthenticated") -> DomainError:
    return DomainError(
        401, code, detail, "Authorization", headers={"WWW-Authenticate": 'Bearer realm="stud"'}
    )


def ops_subject(authorization: str | None, secret: str) -> str:
    """Who the ops token names: 401 without a valid token, 403 with another kind of token."""
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _unauthenticated("an ops token is required: 'Authorization: Bearer <token>'")
    try:
        identity = verify_token(token.strip(), secret)
    except TokenError as error:
        raise _unauthenticated(str(error), "token_invalid") from None
    if not identity.has(Scope.ADMIN):
        raise DomainError(403, "not_ops", "only ops (an admin token: stud admin token) may do this")
    return identity.subject


def provide_ops(request: Request[Any, Any, Any], state: State) -> str:
    return ops_subject(request.headers.get("authorization"), state.settings.jwt_secret)


def provide_pages(state: State) -> TournamentPages:
    return TournamentPages(state.db, state.engines)


def provide_registrations(state: State) -> Registrations:
    return Registrations(state.db, state.engines, state.settings, state.wallet_reader.owed.collect)


def provide_admin(state: State) -> TournamentAdmin:
    return TournamentAdmin(state.db, state.engines)


def provide_director(state: State) -> Director:
    return state.director  # type: ignore[no-any-return]


#: The services of the players' routes, by the name handlers ask for them.
DEPENDENCIES = {
    "pages": Provide(provide_pages, sync_to_thread=False),
    "registrations": Provide(provide_registrations, sync_to_thread=False),
    "director": Provide(provide_director, sync_to_thread=False),
}
#: The ops routes' services and their caller.
OPS_DEPENDENCIES = {
    **DEPENDENCIES,
    "ops": Provide(provide_ops, sync_to_thread=False),
    "admin": Provide(provide_admin, sync_to_thread=False),
}
