"""Helpers for the tournament tests: an ops client, tournaments of a test's own, money sums."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from engine_server.auth import Scope, mint_token
from lobby_api.db import Database
from tests.engine_server.api.conftest import SECRET
from tests.lobby_api.support import rows, scalar

#: Levels of 5 hands, small stakes.
LEVELS = [
    {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10, "hands": 5},
    {"ante": 2, "bring_in": 5, "small_bet": 10, "big_bet": 20, "minutes": 1},
    {"ante": 5, "bring_in": 10, "small_bet": 20, "big_bet": 40, "hands": 5},
]


def ops_headers(scope: Scope = Scope.ADMIN) -> dict[str, str]:
    """The header of an ops token (what ``stud admin token`` prints: scope admin)."""
    return {"Authorization": f"Bearer {mint_token(SECRET, 'ops', [scope])}"}


@dataclass
class Ops:
    client: httpx.AsyncClient

    async def create(self, **fields: Any) -> dict[str, Any]:
        body = {
            "name": "Test Sit & Go",
            "buy_in": 100,
            "fee": 10,
            "starting_chips": 500,
            "max_players": 3,
            "table_size": 7,
            "levels": LEVELS,
            **fields,
        }
        response = await self.client.post("/admin/tournaments", json=body, headers=ops_headers())
        assert response.status_code == 201, response.text
        return dict(response.json())

    async def cancel(self, tournament_id: str, reason: str = "test") -> httpx.Response:
        return await self.client.post(
            f"/admin/tournaments/{tournament_id}/cancel",
            json={"reason": reason},
            headers=ops_headers(),
        )


async def money_in_play(db: Database, player_ids: list[str], tournament_ids: list[str]) -> int:
    """Wallets of these players + house fees + these tournaments' prize pools."""
    accounts = [f"wallet:{p}" for p in player_ids] + [
        f"escrow:tournaments/{t}" for t in tournament_ids
    ]
    total = 0
    for account in accounts:
        total += int(
            await scalar(
                db, "SELECT coalesce(sum(balance), 0) FROM ledger_accounts WHERE id = :a", a=account
            )
        )
    return total + int(await fees(db))


async def fees(db: Database) -> int:
    return int(
        await scalar(
            db, "SELECT coalesce(sum(balance), 0) FROM ledger_accounts WHERE id = 'house:fees'"
        )
    )


async def pool(db: Database, tournament_id: str) -> int:
    return int(
        await scalar(
            db,
            "SELECT coalesce(sum(balance), 0) FROM ledger_accounts WHERE id = :a",
            a=f"escrow:tournaments/{tournament_id}",
        )
    )


async def entries(db: Database, tournament_id: str) -> list[Any]:
    return await rows(
        db,
        "SELECT id, player_id, status, table_id, seat, seat_session_id, seated_at, place, prize, "
        "chips FROM tournament_entries WHERE tournament_id = :t ORDER BY registered_at",
        t=tournament_id,
    )
