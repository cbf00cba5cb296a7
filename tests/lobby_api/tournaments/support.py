"""Helpers for the tournament tests: an ops client, tournaments of a test's own, money sums,
a bot that plays a tournament to its end."""

from __future__ import annotations

import asyncio
import random
import uuid
from dataclasses import dataclass
from typing import Any

import grpc
import httpx
from stud.v1 import table_service_pb2, table_service_pb2_grpc

from engine_server.auth import Scope, mint_token
from lobby_api.db import Database
from tests.engine_server.api.conftest import SECRET
from tests.lobby_api.support import Player, rows, scalar

#: Levels of 5 hands, small stakes.
LEVELS = [
    {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10, "hands": 5},
    {"ante": 2, "bring_in": 5, "small_bet": 10, "big_bet": 20, "minutes": 1},
    {"ante": 5, "bring_in": 10, "small_bet": 20, "big_bet": 40, "hands": 5},
]


#: Steep levels in hands, so that random bots bust each other quickly (the last ones put a
#: deep final table all in within a few hands: random bots at one level can trade chips for
#: hundreds of hands).
STEEP = [
    {"ante": 1, "bring_in": 2, "small_bet": 4, "big_bet": 8, "hands": 3},
    {"ante": 2, "bring_in": 4, "small_bet": 8, "big_bet": 16, "hands": 3},
    {"ante": 4, "bring_in": 8, "small_bet": 16, "big_bet": 32, "hands": 3},
    {"ante": 8, "bring_in": 16, "small_bet": 32, "big_bet": 64, "hands": 3},
    {"ante": 20, "bring_in": 40, "small_bet": 80, "big_bet": 160, "hands": 3},
    {"ante": 60, "bring_in": 120, "small_bet": 240, "big_bet": 480, "hands": 3},
    {"ante": 200, "bring_in": 400, "small_bet": 800, "big_bet": 1600, "hands": 3},
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
    """Wallets of these players + house fees + these tournaments' prize pools, read in one
    statement (one snapshot: a prize paid while it reads is counted on one side only)."""
    accounts = [f"wallet:{p}" for p in player_ids] + [
        f"escrow:tournaments/{t}" for t in tournament_ids
    ]
    names = {f"a{n}": account for n, account in enumerate([*accounts, "house:fees"])}
    listed = ", ".join(f":{name}" for name in names)
    return int(
        await scalar(
            db,
            f"SELECT coalesce(sum(balance), 0) FROM ledger_accounts WHERE id IN ({listed})",
            **names,
        )
    )


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


#: How a bot's stream (or action) may end when his seat there ended — moved away, the table
#: closed, not seated there yet — or the engine went away (killed, restarting): he asks the
#: lobby where he plays now.
_SEAT_ENDED = (
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.UNAVAILABLE,
)


def random_act(table: str, snap: Any, rng: random.Random) -> table_service_pb2.ActRequest:
    """One of the seat's legal actions, chosen at random, with a legal amount."""
    choice = rng.choice(list(snap.legal_actions))
    request = table_service_pb2.ActRequest(
        table=table, hand_number=snap.hand_number, kind=choice.kind, action_id=uuid.uuid4().hex
    )
    if choice.amounts:
        request.amount = rng.choice(list(choice.amounts))
    elif choice.max_amount != choice.min_amount:
        request.amount = choice.min_amount
    return request


async def tournament_bot(player: Player, tournament_id: str, seed: int) -> None:
    """A player who acts at once with random legal actions at whatever table (and engine)
    the lobby says he sits, following every move and engine restart, until he is out or the
    tournament is over."""
    rng = random.Random(seed)
    while True:
        me = (await player.get(f"/tournaments/{tournament_id}/entries/me")).json()
        if me["status"] != "playing":
            return
        if not me.get("table_id") or not me.get("token") or not me.get("engine_grpc"):
            await asyncio.sleep(0.05)
            continue
        table = f"tables/{me['table_id']}"
        metadata = (("authorization", f"Bearer {me['token']}"),)
        try:
            async with grpc.aio.insecure_channel(me["engine_grpc"]) as channel:
                stub = table_service_pb2_grpc.TableServiceStub(channel)
                stream = stub.WatchTable(
                    table_service_pb2.WatchTableRequest(table=table), metadata=metadata
                )
                async for message in stream:
                    snap = message.snapshot
                    if snap.viewer_seat == 0:
                        # Out (a railbird now) or not seated here yet: ask the lobby again.
                        stream.cancel()
                        break
                    if snap.turn_seat == snap.viewer_seat and snap.legal_actions:
                        request = random_act(table, snap, rng)
                        try:
                            await stub.Act(request, metadata=metadata)
                        except grpc.aio.AioRpcError as error:
                            # A stale view is refused (never applied); anything else ends
                            # the stream's turn below.
                            if error.code() not in (
                                grpc.StatusCode.FAILED_PRECONDITION,
                                grpc.StatusCode.INVALID_ARGUMENT,
                            ):
                                raise
        except grpc.aio.AioRpcError as error:
            assert error.code() in _SEAT_ENDED, error
        await asyncio.sleep(0.05)
