"""``POST /accounts`` (register), ``POST /auth/login`` and ``GET /me``."""

from __future__ import annotations

from litestar import Controller, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import JSONBody

from lobby_api.accounts.models import PlayerRow
from lobby_api.accounts.schemas import LoginRequest, PlayerView, RegisterRequest, TokenResponse
from lobby_api.accounts.services import Accounts
from lobby_api.auth import issue_token
from lobby_api.problems import problem_responses

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
        summary="Log in: a JWT access token for the lobby and the engine",
        responses=problem_responses(401, 429),
        opt={"rate_limit": "login"},
    )
    async def log_in(
        self, data: JSONBody[LoginRequest], accounts: NamedDependency[Accounts], state: State
    ) -> TokenResponse:
        player = await accounts.log_in(data)
        ttl = state.settings.token_seconds
        return TokenResponse(
            access_token=issue_token(state.settings.jwt_secret, player, ttl),
            token_type="bearer",
            expires_in=ttl,
            player_id=player.id,
        )

    @get(
        "/me",
        summary="My profile",
        responses=problem_responses(401),
        security=[{"BearerToken": []}],
    )
    async def me(self, current_player: NamedDependency[PlayerRow]) -> PlayerView:
        return player_view(current_player)
