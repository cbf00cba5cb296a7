"""``POST /auth/refresh`` (the next pair of tokens) and ``POST /auth/logout``."""

from __future__ import annotations

from litestar import Controller, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from lobby_api.problems import problem_responses
from lobby_api.sessions.schemas import RefreshRequest, TokenPair
from lobby_api.sessions.services import Sessions

__all__ = ["SessionsController"]


class SessionsController(Controller):
    tags = ["accounts"]  # noqa: RUF012 (Litestar's API)

    @post(
        "/auth/refresh",
        status_code=200,
        summary="Renew the access token: exchange the refresh token for a new pair",
        description=(
            "The refresh token is retired: use the new one next time. A retired refresh token "
            "presented again revokes its whole session (`refresh_token_reused`): log in again."
            " Refusals (401): `refresh_token_invalid`, `refresh_token_expired`, "
            "`refresh_token_revoked`, `refresh_token_reused`."
        ),
        responses=problem_responses(400, 401),
    )
    async def refresh(
        self, data: JSONBody[RefreshRequest], sessions: NamedDependency[Sessions]
    ) -> TokenPair:
        return await sessions.refresh(data.refresh_token)

    @post(
        "/auth/logout",
        status_code=204,
        summary="Log out: revoke the session of this refresh token",
        description=(
            "Every refresh token of the session stops working at once; the access tokens "
            "already issued expire by themselves within minutes (the engine checks them "
            "without the lobby). Logging out of an ended session again changes nothing."
        ),
        responses=problem_responses(400, 401),
    )
    async def log_out(
        self, data: JSONBody[RefreshRequest], sessions: NamedDependency[Sessions]
    ) -> None:
        await sessions.log_out(data.refresh_token)
