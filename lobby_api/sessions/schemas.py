"""Request and response bodies of the session endpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

__all__ = ["RefreshRequest", "TokenPair"]

RefreshToken = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=128,
        description="the refresh token the last log-in or refresh answered",
    ),
]


class RefreshRequest(msgspec.Struct):
    refresh_token: RefreshToken


class TokenPair(msgspec.Struct):
    """What log-in, refresh and a password change answer: an access token and the refresh
    token that renews it."""

    #: A JWT (HS256) the lobby and the engine both accept: ``Authorization: Bearer …``.
    access_token: str
    token_type: str
    #: seconds the access token lives (the lobby's STUD_LOBBY_TOKEN_SECONDS)
    expires_in: int
    #: when the access token expires
    expires_at: datetime
    player_id: str
    #: Opaque; exchanged at ``POST /auth/refresh`` for the next pair (once: it is retired
    #: then) and revoked by ``POST /auth/logout``. Keep it out of URLs and logs.
    refresh_token: str
    #: seconds the refresh token lives if not used (each refresh answers a new one)
    refresh_expires_in: int
    #: the session (the family of refresh tokens since the log-in)
    session_id: str
