"""Helpers for the lobby's tests: an HTTP player, ledger checks, a bot that plays hands."""

from __future__ import annotations

import asyncio
import random
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc
import httpx
import sqlalchemy as sa
from stud.v1 import table_service_pb2, table_service_pb2_grpc

from lobby_api.db import Database

PASSWORD = "correct-horse-9"


def key() -> dict[str, str]:
    """A fresh Idempotency-Key header."""
    return {"Idempotency-Key": uuid.uuid4().hex}


@dataclass
class Player:
    """A registered, logged-in player and the client he talks to the lobby with."""

    client: httpx.AsyncClient
    id: str
    username: str
    city: str
    token: str
    quick: dict[str, Any] = field(default_factory=dict)

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    async def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return await self.client.get(path, headers=self.auth, **kwargs)

    async def post(
        self, path: str, body: Any = None, *, idempotency: str | None = "auto", **kwargs: Any
    ) -> httpx.Response:
        headers = dict(self.auth)
        if idempotency == "auto":
            headers.update(key())
        elif idempotency is not None:
            headers["Idempotency-Key"] = idempotency
        return await self.client.post(path, json=body, headers=headers, **kwargs)

    async def balance(self) -> int:
        response = await self.get("/wallet")
        assert response.status_code == 200, response.text
        return int(response.json()["balance"])


async def register(
    client: httpx.AsyncClient, city: str = "oslo", name: str | None = None
) -> Player:
    username = name or "u_" + uuid.uuid4().hex[:10]
    created = await client.post(
        "/accounts", json={"username": username, "password": PASSWORD, "city": city}
    )
    assert created.status_code == 201, created.text
    login = await client.post("/auth/login", json={"username": username, "password": PASSWORD})
    assert login.status_code == 200, login.text
    return Player(client, created.json()["id"], username, city, login.json()["access_token"])


async def scalar(db: Database, sql: str, **params: Any) -> Any:
    async with db.read() as session:
        return (await session.exec(sa.text(sql), params=params)).scalar()  # type: ignore[call-overload]


async def rows(db: Database, sql: str, **params: Any) -> list[Any]:
    async with db.read() as session:
        return list((await session.exec(sa.text(sql), params=params)).all())  # type: ignore[call-overload]


async def counts(db: Database) -> dict[str, int]:
    """Row counts of every lobby table (to show a refusal wrote nothing)."""
    tables = (
        "players",
        "ledger_accounts",
        "ledger_transactions",
        "ledger_entries",
        "idempotency_keys",
        "quick_tables",
        "lobby_seats",
        "tickets",
        "topups",
        "tables",
        "seat_sessions",
    )
    return {t: int(await scalar(db, f"SELECT count(*) FROM {t}")) for t in tables}


async def assert_ledger_consistent(db: Database) -> None:
    """Entries sum to zero overall and per transaction; every balance is its entries' sum."""
    assert await scalar(db, "SELECT coalesce(sum(amount), 0) FROM ledger_entries") == 0
    unbalanced = await rows(
        db,
        "SELECT transaction_id FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0",
    )
    assert unbalanced == []
    drift = await rows(
        db,
        "SELECT a.id, a.balance, coalesce(sum(e.amount), 0) FROM ledger_accounts a "
        "LEFT JOIN ledger_entries e ON e.account_id = a.id GROUP BY a.id, a.balance "
        "HAVING a.balance <> coalesce(sum(e.amount), 0)",
    )
    assert drift == []
    negative = await rows(
        db, "SELECT id, balance FROM ledger_accounts WHERE balance < 0 AND kind <> 'issuer'"
    )
    assert negative == []
    below_zero = await rows(
        db,
        "SELECT e.id FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id "
        "WHERE e.balance_after < 0 AND a.kind <> 'issuer'",
    )
    assert below_zero == []


async def play(
    address: str,
    table: str,
    token: str,
    *,
    until_hand: int,
    seed: int,
    stop: asyncio.Event | None = None,
) -> int:
    """Watch the table and take random legal actions until hand ``until_hand`` has ended.

    Returns the last hand number seen. Refused actions (a stale view) are fine: the
    engine refuses, never applies them.
    """
    rng = random.Random(seed)
    metadata = (("authorization", f"Bearer {token}"),)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        stream = stub.WatchTable(
            table_service_pb2.WatchTableRequest(table=table), metadata=metadata
        )
        last = 0
        async for message in stream:
            snap = message.snapshot
            last = snap.hand_number
            if stop is not None and stop.is_set():
                stream.cancel()
                return last
            if snap.hand_number >= until_hand and not snap.hand_in_progress:
                stream.cancel()
                return last
            if snap.hand_number > until_hand:
                stream.cancel()
                return last
            if snap.turn_seat and snap.turn_seat == snap.viewer_seat and snap.legal_actions:
                choice = rng.choice(list(snap.legal_actions))
                request = table_service_pb2.ActRequest(
                    table=table,
                    hand_number=snap.hand_number,
                    kind=choice.kind,
                    action_id=uuid.uuid4().hex,
                )
                if choice.max_amount != choice.min_amount and not choice.amounts:
                    request.amount = choice.min_amount
                elif choice.amounts:
                    request.amount = rng.choice(list(choice.amounts))
                try:
                    await stub.Act(request, metadata=metadata)
                except grpc.aio.AioRpcError as error:
                    assert error.code() in (
                        grpc.StatusCode.FAILED_PRECONDITION,
                        grpc.StatusCode.INVALID_ARGUMENT,
                    ), error
        return last
