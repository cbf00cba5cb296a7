"""``GET /wallet``: my balance and my statement (settling closed seat sessions first)."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.params import Parameter

from lobby_api.db import Database
from lobby_api.problems import problem_responses
from lobby_api.settlement import Settlement
from lobby_api.wallet.schemas import WalletView
from lobby_api.wallet.services import read_wallet

__all__ = ["WalletController"]


class WalletController(Controller):
    tags = ["wallet"]  # noqa: RUF012 (Litestar's API)

    @get(
        "/wallet",
        summary="My wallet: balance and ledger entries, newest first",
        responses=problem_responses(401),
        security=[{"BearerToken": []}],
    )
    async def wallet(
        self,
        db: Database,
        settlement: Settlement,
        player_id: str,
        page_size: Annotated[int, Parameter(ge=1, le=100, description="entries per page")] = 20,
        page_token: Annotated[
            str | None, Parameter(max_length=200, description="next_page_token of a page")
        ] = None,
    ) -> WalletView:
        return await read_wallet(db, settlement, player_id, page_size, page_token)
