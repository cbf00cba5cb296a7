"""End to end: three clients play at a real engine; the lobby serves what it stored.

The engine (gRPC, its own store) writes the hands; the lobby's app reads the same database
(SQLite and PostgreSQL). One player folds every hand: his down cards appear in no
response and no PHH download. The opener's pair is rotated mid-game and the table closed at
the end, so both pairs are revealed and every hand verifies.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from stud.v1 import admin_service_pb2, table_pb2

from engine_server.store.database import create_engine_for
from engine_server.store.models import HandRow
from tests.engine_server.api.conftest import Engine
from tests.engine_server.api.players import Player as Bot
from tests.engine_server.api.players import action, caller
from tests.lobby_api.history.support import as_player, phh_card_tokens, sign_up


def folder(snapshot: table_pb2.TableSnapshot) -> tuple[int, int | None] | None:
    """Folds whenever he may; otherwise does what a caller does."""
    return action(snapshot, table_pb2.ACTION_KIND_FOLD) or caller(snapshot)


async def stored_hands(url: str) -> list[HandRow]:
    engine = create_engine_for(url)
    try:
        async with AsyncSession(engine) as session:
            return list(
                (await session.exec(select(HandRow).order_by(col(HandRow.hand_number)))).all()
            )
    finally:
        await engine.dispose()


async def test_hands_played_at_a_real_engine(
    engine: Engine, client: httpx.AsyncClient, database_url: str
) -> None:
    table = "tables/t1"
    p1, p2, p3 = await sign_up(client, 3)
    players: list[Bot] = []
    try:
        await engine.create_table("t1", client_seed="opener-1")
        # Paused while everyone sits down, so that every hand deals all three in.
        await engine.admin.PauseTable(
            admin_service_pb2.PauseTableRequest(name=table), metadata=engine.admin_md
        )
        for seat, (player_id, decide) in enumerate(
            ((p1, caller), (p2, caller), (p3, folder)), start=1
        ):
            await engine.seat("t1", player_id, buy_in=100, seat=seat)
            bot = Bot(player_id, engine.grpc_address, table, engine.player_md(player_id), decide)
            await bot.connect()
            players.append(bot)
        watcher = players[0]

        def status_is(status: int) -> Any:
            return lambda m: m.snapshot.status == status

        async def resume() -> None:
            await engine.admin.ResumeTable(
                admin_service_pb2.ResumeTableRequest(name=table), metadata=engine.admin_md
            )

        await resume()
        await watcher.wait_for(lambda m: m.snapshot.hand_number >= 2, timeout=20)
        mark = len(watcher.messages)
        await engine.admin.PauseTable(
            admin_service_pb2.PauseTableRequest(name=table), metadata=engine.admin_md
        )
        await watcher.wait_for(status_is(table_pb2.TABLE_STATUS_PAUSED), after=mark, timeout=20)
        await engine.admin.RotateSeed(
            admin_service_pb2.RotateSeedRequest(name=table, client_seed="opener-2"),
            metadata=engine.admin_md,
        )
        rotated_after = watcher.last.snapshot.hand_number
        await resume()
        await watcher.wait_for(
            lambda m: m.snapshot.hand_number >= rotated_after + 2, after=mark, timeout=20
        )
        await engine.admin.CloseTable(
            admin_service_pb2.CloseTableRequest(name=table), metadata=engine.admin_md
        )
        await watcher.wait_for(status_is(table_pb2.TABLE_STATUS_CLOSED), after=mark, timeout=20)
    finally:
        await asyncio.gather(*(p.close() for p in players))

    hands = await stored_hands(database_url)
    assert len(hands) >= rotated_after + 2 and all(h.state == "complete" for h in hands)
    folded_down = {
        hand.id: [c["card"] for c in hand.cards or () if c["seat"] == 3 and not c["up"]]
        for hand in hands
    }
    assert all(folded_down.values())

    listing = (await client.get("/hands", headers=as_player(p1))).json()
    assert [h["hand_id"] for h in listing["hands"]] == [h.id for h in reversed(hands)]
    for hand in hands:
        for seat, player in ((1, p1), (2, p2), (3, p3)):
            others_down = [
                c["card"] for c in hand.cards or () if c["seat"] not in (seat, 1, 2) and not c["up"]
            ]
            view = await client.get(f"/hands/{hand.id}", headers=as_player(player))
            assert view.status_code == 200, view.text
            body = view.json()
            assert body["my_seat"] == seat
            for card in folded_down[hand.id] + others_down:
                assert f'"{card}"' not in view.text
            # p1 and p2 went to the showdown: everyone sees their cards.
            assert body["shown"].keys() == {"1", "2"}
            phh = await client.get(f"/hands/{hand.id}/phh", headers=as_player(player))
            assert phh.status_code == 200, phh.text
            tokens = set(phh_card_tokens(phh.text))
            assert not tokens & set(folded_down[hand.id])
            if seat != 3:
                mine = [c["card"] for c in hand.cards or () if c["seat"] == seat]
                assert set(mine) <= tokens
        page = (await client.get(f"/hands/{hand.id}/fairness", headers=as_player(p3))).json()
        assert page["revealed"] is True
        assert page["client_seed"] == (
            "opener-1" if hand.hand_number <= rotated_after else "opener-2"
        )
        assert page["check"]["ok"] is True, page["check"]["problems"]
    pairs = (await client.get("/tables/t1/seed-pairs", headers=as_player(p2))).json()
    assert [p["state"] for p in pairs] == ["retired", "current", "next"]
    assert [p["hands_dealt"] for p in pairs[:2]] == [rotated_after, len(hands) - rotated_after]
    assert pairs[0]["check"]["ok"] and pairs[1]["check"]["ok"]
    assert pairs[2]["dealer_seed"] is None
