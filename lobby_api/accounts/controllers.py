"""``POST /accounts`` (register), ``POST /auth/login``, ``GET /me`` and
``POST /accounts/me/password``."""

from __future__ import annotations

from litestar import Controller, get, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from lobby_api.accounts.models import PlayerRow
from lobby_api.accounts.schemas import (
    LoginRequest,
    PasswordChangeRequest,
    PlayerView,
    RegisterRequest,
)
from lobby_api.accounts.services import Accounts
from lobby_api.problems import problem_responses
from lobby_api.sessions.schemas import TokenPair
from lobby_api.sessions.services import Sessions

__all__ = ["AccountsController", "player_view"]


def player_view(player: PlayerRow) -> PlayerView:
    return PlayerView(player.id, player.username, player.city, player.created_at)


class AccountsController(Controller):
    tags = ["accounts"]  # noqa: RUF012 (Litestar's API)

    @post(
        "/accounts",
        status_code=201,
        summary="Register (a wallet with the sign-up grant of play money comes with it)",
        responses=problem_responses(409, 422),
    )
    async def register(
        self, data: JSONBody[RegisterRequest], accounts: NamedDependency[Accounts]
    ) -> PlayerView:
        return player_view(await accounts.register(data))

    @post(
        "/auth/login",
        status_code=200,
        summary="Log in: a short-lived JWT access token (lobby and engine) and a refresh token",
        description=(
            "Opens a session. The access token expires after `expires_in` seconds (15 minutes "
            "by default): renew it with the refresh token at `POST /auth/refresh` before then, "
            "and end the session with `POST /auth/logout`."
        ),
        responses=problem_responses(401, 429),
        opt={"rate_limit": "login"},
    )
    async def log_in(
        self,
        data: JSONBody[LoginRequest],
        accounts: NamedDependency[Accounts],
        sessions: NamedDependency[Sessions],
    ) -> TokenPair:
        # Forgetting the failed attempts commits with the new session: one write fewer.
        player = await accounts.log_in(data, clear_failures=False)
        return await sessions.open(player, also=accounts.failures_cleared(data.username))

    @post(
        "/accounts/me/password",
        status_code=200,
        summary="Change my password: every session ends, and a new one starts",
        description=(
            "Needs the current password (checked as a log-in checks it, under the same limit "
            "on failures). The new one follows the rules of registration. Every session of the "
            "account is revoked (their refresh tokens stop at once; access tokens already "
            "issued expire within minutes); the answer is the first pair of a new session. "
            "Refusals: `wrong_password` (403), `password_unchanged` (422), "
            "`too_many_failed_logins` (429)."
        ),
        responses=problem_responses(400, 401, 403, 409, 422, 429),
        security=[{"BearerToken": []}],
    )
    async def change_password(
        self,
        data: JSONBody[PasswordChangeRequest],
        player_id: NamedDependency[str],
        accounts: NamedDependency[Accounts],
        sessions: NamedDependency[Sessions],
    ) -> TokenPair:
        player = await accounts.change_password(player_id, data)
        return await sessions.open(player)

    @get(
        "/me",
        summary="My profile",
        responses=problem_responses(401),
        security=[{"BearerToken": []}],
    )
    async def me(self, current_player: NamedDependency[PlayerRow]) -> PlayerView:
        return player_view(current_player)
