"""A hand cancelled by a crash keeps every action its players were told was accepted.

A real engine process deals a hand to three lobby players; they act several times (over
more than one street); the engine is killed with SIGKILL and started again on the same
database (SQLite and PostgreSQL). The cancelled hand's record, the lobby's history of it and
its PHH show every acknowledged action in order, and still no card a player may not see.
"""

from __future__ import annotations

import re
import signal
import tomllib
from pathlib import Path

import httpx
import pytest
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from stud.v1 import admin_service_pb2, settings_pb2, table_pb2

from engine_server.auth import Scope
from engine_server.store.database import create_engine_for
from engine_server.store.models import HandActionRow, HandRow
from tests.engine_server.api.conftest import bearer
from tests.engine_server.api.players import Player, caller
from tests.engine_server.api.test_crash_recovery import ADMIN, EngineProcess, start
from tests.lobby_api.history.support import as_player, phh_card_tokens, sign_up

K = table_pb2


@pytest.fixture
def fresh_database() -> None:
    """A database of this test's own (the engine must not load other tests' tables)."""


async def _stored(url: str) -> tuple[HandRow, list[dict[str, object]]]:
    """The table's first hand and its actions as stored one by one."""
    engine = create_engine_for(url)
    try:
        async with AsyncSession(engine) as session:
            # Hand 1 (the restarted engine may deal hand 2 at once).
            hand = (await session.exec(select(HandRow).where(HandRow.hand_number == 1))).one()
            rows = await session.exec(
                select(HandActionRow)
                .where(HandActionRow.hand_id == hand.id)
                .order_by(col(HandActionRow.seq))
            )
            return hand, [r.action for r in rows.all()]
    finally:
        await engine.dispose()


async def _open_table(engine: EngineProcess, players: list[str]) -> None:
    await engine.admin.CreateTable(
        admin_service_pb2.CreateTableRequest(
            request_id="create-crash",
            table_id="crash",
            profile="house",
            stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
            min_buy_in=10,
            max_buy_in=1000,
            client_seed="crash-history",
        ),
        metadata=ADMIN,
    )
    await engine.admin.PauseTable(
        admin_service_pb2.PauseTableRequest(name="tables/crash", reason="seating"),
        metadata=ADMIN,
    )
    for seat, player_id in enumerate(players, start=1):
        await engine.admin.SeatPlayer(
            admin_service_pb2.SeatPlayerRequest(
                table="tables/crash",
                seat_session_id=f"ss-crash-{seat}",
                player_id=player_id,
                display_name=f"P{seat}",
                seat=seat,
                buy_in=100,
            ),
            metadata=ADMIN,
        )


async def test_a_hand_cancelled_by_kill_9_shows_every_acknowledged_action(
    client: httpx.AsyncClient, database_url: str, fresh_database: None, tmp_path: Path
) -> None:
    ids = await sign_up(client, 3)
    log = tmp_path / "engine.log"
    engine = await start(tmp_path / "unused.sqlite3", log, url=database_url)
    bots = [Player(pid, engine.address, "tables/crash", bearer(pid, Scope.PLAYER)) for pid in ids]
    acknowledged: list[tuple[int, str]] = []
    try:
        await _open_table(engine, ids)
        for bot in bots:
            await bot.connect()
        await engine.admin.ResumeTable(
            admin_service_pb2.ResumeTableRequest(name="tables/crash"), metadata=ADMIN
        )
        watcher = bots[0]
        # Six decisions (the bring-in is the deal's): third street and into the next ones.
        mark = 0
        while len(acknowledged) < 6:
            turn = await watcher.wait_for(
                lambda m: m.snapshot.hand_number == 1 and m.snapshot.turn_seat > 0,
                after=mark,
                timeout=20,
            )
            actor = bots[turn.snapshot.turn_seat - 1]
            own = await actor.wait_for(lambda m, s=turn.sequence: m.sequence >= s, timeout=5)
            chosen = caller(own.snapshot)
            assert chosen is not None
            answer = await actor.act(own.snapshot.hand_number, *chosen)
            assert answer is not None, actor.refusal_reasons()
            kind = K.ActionKind.Name(answer.action.kind).removeprefix("ACTION_KIND_").lower()
            acknowledged.append((answer.action.seat, kind))
            # The change that told it names the next turn.
            told = await watcher.wait_for(
                lambda m, s=answer.sequence: m.sequence >= s, after=mark, timeout=5
            )
            mark = watcher.messages.index(told)
        assert await engine.process.kill_9() == -signal.SIGKILL
    finally:
        for bot in bots:
            await bot.close()
        await engine.close()

    # Before the restart the hand is running: its actions are already stored, in order.
    hand, journal = await _stored(database_url)
    assert hand.state == "running"
    decisions = [(a["seat"], a["do"]) for a in journal if a["do"] != "bring_in"]
    assert decisions == acknowledged
    assert [a["do"] for a in journal[:1]] == ["bring_in"]

    again = await start(tmp_path / "unused.sqlite3", log, url=database_url)
    try:
        hand, _ = await _stored(database_url)
    finally:
        await again.close()
    assert hand.state == "cancelled" and hand.cancel_reason
    assert hand.actions == journal  # the record is the acknowledged trail, nothing more
    assert hand.result is not None and hand.result["cancelled"] is True
    # The cards of the streets those actions reached were dealt again with them.
    streets = {c["street"] for c in hand.cards or ()}
    assert {"third", "fourth"} <= streets
    assert hand.phh is not None and "_cancelled = true" in hand.phh

    down = {
        seat: {c["card"] for c in hand.cards or () if c["seat"] == seat and not c["up"]}
        for seat in (1, 2, 3)
    }
    for seat, player_id in enumerate(ids, start=1):
        view = await client.get(f"/hands/{hand.id}", headers=as_player(player_id))
        assert view.status_code == 200, view.text
        body = view.json()
        assert body["state"] == "cancelled"
        shown = [(a["seat"], a["do"]) for a in body["actions"] if a["do"] != "bring_in"]
        assert shown == acknowledged
        hidden = set().union(*(cards for s, cards in down.items() if s != seat))
        assert not any(f'"{card}"' in view.text for card in hidden)
        phh = await client.get(f"/hands/{hand.id}/phh", headers=as_player(player_id))
        assert phh.status_code == 200, phh.text
        assert "_cancelled = true" in phh.text
        assert not set(phh_card_tokens(phh.text)) & hidden
        # Every decision is an action of the PHH (a bring-in's last turn as a comment).
        decided = [
            line
            for line in tomllib.loads(phh.text)["actions"]
            if re.match(r"^(# )?p\d+ (f|cc|cbr)\b", line)
        ]
        assert len(decided) == len(acknowledged), decided
