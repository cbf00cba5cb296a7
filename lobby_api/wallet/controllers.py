"""``GET /wallet``: my balance and my statement (settling closed seat sessions first)."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.di import NamedDependency, Provide
from litestar.params import Parameter

from lobby_api.problems import problem_responses
from lobby_api.wallet.dependencies import provide_player_wallet
from lobby_api.wallet.schemas import WalletView
from lobby_api.wallet.services import PlayerWallet

__all__ = ["WalletController"]


class WalletController(Controller):
    tags = ["wallet"]  # noqa: RUF012 (Litestar's API)
    dependencies = {  # noqa: RUF012 (Litestar's API)
        "wallet": Provide(provide_player_wallet, sync_to_thread=False)
    }

    @get(
        "/wallet",
        summary="My wallet: balance and ledger entries, newest first",
        responses=problem_responses(401),
        security=[{"BearerToken": []}],
    )
    async def wallet(
        self,
        wallet: NamedDependency[PlayerWallet],
        page_size: Annotated[int, Parameter(ge=1, le=100, description="entries per page")] = 20,
        page_token: Annotated[
            str | None, Parameter(max_length=200, description="next_page_token of a page")
        ] = None,
    ) -> WalletView:
        return await wallet.read(page_size, page_token)
