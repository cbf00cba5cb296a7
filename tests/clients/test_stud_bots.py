"""``stud bots`` (clients/python/stud/bots): the strategy never sends an illegal action and plays
its hands sensibly; the command signs bots in through the lobby, answers a human's quick game
with the bots of his city only, plays through the engine, leaves a table the human left, and
stops cleanly on SIGTERM with no ticket or seat left behind. With ``--on-request`` it keeps a
bot desk: a player alone at a table of any city asks for bots and gets as many as he asked,
up to the ``--per-city`` bots the desk says it can send to a table (the lobby refuses more).
"""

from __future__ import annotations

import asyncio
import contextlib
import doctest
import importlib
import json
import os
import random
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import sqlalchemy as sa
import stud.bots.lobby
import uvicorn
from litestar import Litestar
from sqlmodel import col, select
from stud.bots import strategy
from stud.bots.strategy import Decision, classify, decide
from stud.v1 import admin_service_pb2, admin_service_pb2_grpc, settings_pb2, table_pb2

import engine_server.logs
from engine_server.auth import Scope, mint_token
from engine_server.cli import CliError, main
from engine_server.cli.bots import bot_password
from engine_server.store.migrate import prepare_database
from lobby_api.accounts.models import PlayerRow
from lobby_api.quickgame.models import TicketRow
from lobby_api.sessions.models import RefreshTokenRow
from lobby_api.settings import LobbySettings
from lobby_api.settlement.models import LobbySeatRow
from tests.clients.bots import Observed, passive_player
from tests.clients.room import (
    BotsProcess,
    Room,
    card_room,
    open_quick_game,
    seat_player,
    serve_lobby,
    sign_up,
    tournament_table,
)
from tests.engine_server.api.conftest import SECRET, bearer, fresh_sqlite
from tests.lobby_api.conftest import add_test_levels, build_app
from tests.lobby_api.support import play

K = table_pb2
S = settings_pb2
DECK = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]


def _snapshot(
    cards: tuple[list[str], list[str]],
    street: settings_pb2.Street.ValueType,
    *legal: table_pb2.LegalAction,
) -> table_pb2.TableSnapshot:
    down, up = cards
    return K.TableSnapshot(
        viewer_seat=3,
        street=street,
        seats=[K.Seat(number=3, down_cards=down, up_cards=up), K.Seat(number=5, up_cards=["Kd"])],
        legal_actions=list(legal),
        settings=S.TableSettings(stakes=S.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4)),
    )


def _fixed(kind: table_pb2.ActionKind.ValueType, amount: int = 0) -> table_pb2.LegalAction:
    return K.LegalAction(kind=kind, min_amount=amount, max_amount=amount)


@pytest.mark.parametrize(
    "module", ["stud.bots.strategy", "stud.bots.runner", "engine_server.cli.bots"]
)
def test_docstring_examples(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0, result


@pytest.mark.parametrize(
    ("cards", "street", "expected"),
    [
        (["2c", "2d", "2h"], S.STREET_THIRD, "strong"),  # trips
        (["Kc", "Kd", "7h"], S.STREET_THIRD, "strong"),  # a big pair early
        (["5c", "5d", "7h", "Ks", "Qd"], S.STREET_FIFTH, "medium"),  # a small pair later
        (["5c", "5d", "7h", "7s", "Qd"], S.STREET_FIFTH, "strong"),  # two pair
        (["Ah", "8h", "3h"], S.STREET_THIRD, "medium"),  # three to a flush
        (["Ah", "8d", "3c"], S.STREET_THIRD, "medium"),  # an ace up front
        (["9h", "8d", "3c"], S.STREET_THIRD, "weak"),
        (["9h", "8h", "3h", "Jc", "2d"], S.STREET_FIFTH, "weak"),  # three to a flush is late
    ],
)
def test_classify(cards: list[str], street: settings_pb2.Street.ValueType, expected: str) -> None:
    assert classify(cards, street) == expected


def test_strong_hands_raise_weak_hands_check_or_fold() -> None:
    rng = random.Random(1)
    trips = (["9c", "9d"], ["9h"])
    facing = (_fixed(K.ACTION_KIND_FOLD), _fixed(K.ACTION_KIND_CALL, 4))
    raise_ = _fixed(K.ACTION_KIND_RAISE, 8)
    assert decide(_snapshot(trips, S.STREET_FIFTH, *facing, raise_), rng, aggression=1.0) == (
        Decision(K.ACTION_KIND_RAISE)
    )
    # Without aggression a strong hand just calls.
    assert decide(_snapshot(trips, S.STREET_FIFTH, *facing, raise_), rng, aggression=0.0) == (
        Decision(K.ACTION_KIND_CALL)
    )
    junk = (["9c", "4d"], ["2h", "Jc", "6d"])
    assert decide(_snapshot(junk, S.STREET_FIFTH, *facing), rng) == Decision(K.ACTION_KIND_FOLD)
    free = (_fixed(K.ACTION_KIND_CHECK), _fixed(K.ACTION_KIND_BET, 4))
    assert decide(_snapshot(junk, S.STREET_FIFTH, *free), rng) == Decision(K.ACTION_KIND_CHECK)
    # Ordered showdown: always show; a bring-in's size choice: the smallest.
    show = (_fixed(K.ACTION_KIND_SHOW), _fixed(K.ACTION_KIND_MUCK))
    assert decide(_snapshot(junk, S.STREET_SHOWDOWN, *show), rng) == Decision(K.ACTION_KIND_SHOW)
    bring_in = (
        K.LegalAction(kind=K.ACTION_KIND_BRING_IN, min_amount=1, max_amount=2),
        _fixed(K.ACTION_KIND_COMPLETE, 2),
    )
    assert decide(_snapshot(junk, S.STREET_THIRD, *bring_in), rng) == Decision(
        K.ACTION_KIND_BRING_IN, 1
    )
    assert decide(_snapshot(junk, S.STREET_THIRD), rng) is None  # not his turn


def test_decisions_are_always_legal_and_sized() -> None:
    """Random hands against random sets of legal actions: the choice is one of them, with an
    amount exactly when the action has a range (then a legal size)."""
    rng = random.Random(20260)
    kinds = [k for k in K.ActionKind.values() if k != K.ACTION_KIND_UNSPECIFIED]
    streets = [s for s in S.Street.values() if s != S.STREET_UNSPECIFIED]
    for _ in range(2000):
        cards = rng.sample(DECK, rng.randint(3, 7))
        legal = []
        for kind in rng.sample(kinds, rng.randint(1, 4)):
            low = rng.randint(0, 20)
            shape = rng.choice(["fixed", "range", "discrete"])
            if shape == "fixed":
                legal.append(K.LegalAction(kind=kind, min_amount=low, max_amount=low))
            elif shape == "range":
                legal.append(K.LegalAction(kind=kind, min_amount=low, max_amount=low + 9))
            else:
                legal.append(
                    K.LegalAction(
                        kind=kind,
                        min_amount=low,
                        max_amount=low * 2 + 1,
                        amounts=[low, low * 2 + 1],
                    )
                )
        snapshot = _snapshot((cards[:2], cards[2:]), rng.choice(streets), *legal)
        decision = decide(snapshot, rng, aggression=rng.random())
        assert decision is not None
        chosen = next(a for a in legal if a.kind == decision.kind)
        if chosen.min_amount == chosen.max_amount:
            assert decision.amount is None
        elif chosen.amounts:
            assert decision.amount in chosen.amounts
        else:
            assert decision.amount is not None
            assert chosen.min_amount <= decision.amount <= chosen.max_amount


def test_bot_passwords(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    secret = {"STUD_JWT_SECRET": "k" * 40}
    password = bot_password(secret)
    assert password("bot_oslo_1") == bot_password(secret)("bot_oslo_1")  # stable
    assert password("bot_oslo_1") != password("bot_oslo_2")
    assert bot_password({"STUD_JWT_SECRET": "j" * 40})("bot_oslo_1") != password("bot_oslo_1")
    assert bot_password({**secret, "STUD_BOTS_PASSWORD": "fixed-pw"})("bot_oslo_1") == "fixed-pw"
    import engine_server.settings

    monkeypatch.setattr(engine_server.settings, "SECRET_FILE", tmp_path / "none")
    with pytest.raises(CliError, match="STUD_BOTS_PASSWORD"):
        bot_password({})
    assert not (tmp_path / "none").exists()  # it never invents a secret


def test_command_line_refusals(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("STUD_BOTS_PASSWORD", "x" * 12)
    monkeypatch.delenv("STUD_BOTS_LOBBY", raising=False)
    monkeypatch.setattr(stud.bots.lobby, "ATTEMPTS", 1)  # no back-off against a closed port
    # In this process: text errors, and pytest's logging left as it is.
    monkeypatch.setenv("STUD_LOG_FORMAT", "text")
    monkeypatch.setattr(engine_server.logs, "configure_logging", lambda *a, **k: None)

    def command(*args: str) -> tuple[int, str, str]:
        try:
            code = main(["bots", *args])
        except SystemExit as exit_:  # argparse's refusals
            code = int(exit_.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    monkeypatch.chdir(tmp_path)  # no var/room.json of a stud run here
    assert command() == (
        2,
        "",
        "stud bots: --lobby URL is required (or STUD_BOTS_LOBBY, or a stud run running from "
        "here)\n",
    )
    code, out, err = command("--lobby", "http://127.0.0.1:9", "--per-city", "0")
    assert code == 2 and "--per-city: must be at least 1" in err
    code, out, err = command("--lobby", "http://127.0.0.1:9", "--on-request", "all,oslo")
    assert (code, out) == (2, "") and "--on-request: all, none, or a list of cities" in err
    monkeypatch.delenv("STUD_JWT_SECRET", raising=False)
    code, out, err = command("--lobby", "http://127.0.0.1:9", "--on-request", "all")
    assert (code, out) == (2, "") and "--on-request needs the token secret" in err, err
    code, out, err = command("--lobby", "http://127.0.0.1:9")
    assert code == 1 and out == "", err
    assert err.startswith("stud bots: the lobby at http://127.0.0.1:9: 0 unreachable"), err


async def test_bots_answer_a_quick_game_of_their_city_and_leave_cleanly(tmp_path: Path) -> None:
    async with card_room(tmp_path) as room:
        bots = await BotsProcess.start(
            room.lobby_url,
            "--cities",
            "oslo,stockholm",
            "--per-city",
            "2",
            "--tables-per-bot",
            "1",
            "--think",
            "0",
            "--seed",
            "3",
        )
        human_task: asyncio.Task[None] | None = None
        try:
            waiting = await bots.wait_for("waiting", 4)
            assert {w["bot"] for w in waiting} == {
                "bot_oslo_1",
                "bot_oslo_2",
                "bot_stockholm_1",
                "bot_stockholm_2",
            }
            token = await sign_up(room.lobby_url, "ann", "ann-password", "oslo")
            auth = {"Authorization": f"Bearer {token}"}
            async with httpx.AsyncClient(base_url=room.lobby_url, headers=auth) as http:
                answer = await open_quick_game(http, "ann")
                table_id = answer["table_id"]

                # Both Oslo bots sit in; the Stockholm bots keep waiting.
                seated = await bots.wait_for("seated", 2)
                assert {s["bot"] for s in seated} == {"bot_oslo_1", "bot_oslo_2"}
                assert {s["table"] for s in seated} == {table_id}

                seen = Observed()
                ann = await http.get("/me")
                human_task = asyncio.create_task(
                    passive_player(room.engine, table_id, ann.json()["id"], seen)
                )
                await seen.reach(3, timeout=30)  # two hands played, the third dealt
                snapshot = await room.engine.admin.GetTable(
                    admin_service_pb2.GetTableRequest(name=f"tables/{table_id}"),
                    metadata=room.engine.admin_md,
                )
                bot_seats = {s.number for s in snapshot.table.seats if s.display_name != "ann"}
                assert len(bot_seats) == 2
                by_bots = [t for t in seen.taken.values() if t[0] in bot_seats]
                assert by_bots, seen.taken
                assert not [t for t in by_bots if t[2]], "a bot let its clock run out"

                # Ann leaves (after the running hand, which she plays out: her stream ends
                # when her seat frees); the bots leave too (no human there), then wait again.
                left = await http.post(f"/tables/{table_id}/leave")
                assert left.status_code == 200, left.text
                await asyncio.wait_for(human_task, 30)
                gone = await bots.wait_for("left", 2)
                assert {(g["bot"], g["table"], g["reason"]) for g in gone} == {
                    ("bot_oslo_1", table_id, "no_humans"),
                    ("bot_oslo_2", table_id, "no_humans"),
                }
                assert all(g["hands"] >= 2 for g in gone), gone
                await bots.wait_for("waiting", 6, timeout=30)
        finally:
            if human_task is not None:
                human_task.cancel()
            code = await bots.stop()
        assert code == 0, bots
        assert bots.named("stopped") and not bots.named("error"), bots

        # Nothing left behind: no ticket waits, every bot wallet holds all its chips again.
        async with room.app.state.db.read() as session:
            bot_ids = (
                await session.exec(
                    select(PlayerRow.id).where(col(PlayerRow.username).startswith("bot_"))
                )
            ).all()
            tickets = (
                await session.exec(select(TicketRow).where(col(TicketRow.player_id).in_(bot_ids)))
            ).all()
        assert len(bot_ids) == 4
        assert tickets and {t.status for t in tickets} <= {"cancelled", "seated"}, [
            (t.id, t.status) for t in tickets
        ]
        total = 0
        async with httpx.AsyncClient(base_url=room.lobby_url) as http:
            for name in ("bot_oslo_1", "bot_oslo_2", "bot_stockholm_1", "bot_stockholm_2"):
                login = await http.post(
                    "/auth/login", json={"username": name, "password": "bot-password-for-tests"}
                )
                wallet = await http.get(
                    "/wallet", headers={"Authorization": f"Bearer {login.json()['access_token']}"}
                )
                total += wallet.json()["balance"]
                if "stockholm" in name:
                    assert wallet.json()["balance"] == 10_000, name  # never played
        # The two Oslo bots and Ann played for chips; the house table takes no rake.
        ann_wallet = await _balance(room.lobby_url, token)
        assert total + ann_wallet == 5 * 10_000


async def test_bots_play_on_past_their_access_tokens_expiry(tmp_path: Path) -> None:
    """With 5-second access tokens the bots play minutes-long sessions as well: their streams
    outlive the tokens, their acts carry tokens renewed by refresh (one session per bot, no
    second log-in), no bot's clock runs out; on stop they log out."""
    async with card_room(tmp_path, token_seconds=5) as room:
        bots = await BotsProcess.start(
            room.lobby_url,
            "--cities",
            "oslo",
            "--per-city",
            "2",
            "--tables-per-bot",
            "1",
            "--think",
            "0",
            "--seed",
            "11",
        )
        human_task: asyncio.Task[None] | None = None
        try:
            await bots.wait_for("waiting", 2)
            token = await sign_up(room.lobby_url, "eve", "eve-password", "oslo")
            auth = {"Authorization": f"Bearer {token}"}
            async with httpx.AsyncClient(base_url=room.lobby_url, headers=auth) as http:
                answer = await open_quick_game(http, "eve")
                table_id = answer["table_id"]
                eve = (await http.get("/me")).json()["id"]
            await bots.wait_for("seated", 2)
            seen = Observed()
            human_task = asyncio.create_task(passive_player(room.engine, table_id, eve, seen))
            await seen.reach(2, timeout=30)
            started = time.monotonic()
            # Three token lifetimes and more, then one more hand.
            while time.monotonic() - started < 16:
                await seen.reach(seen.hand_number + 1, timeout=30)
            late = len(seen.taken)
            await seen.reach(seen.hand_number + 1, timeout=30)

            snapshot = await room.engine.admin.GetTable(
                admin_service_pb2.GetTableRequest(name=f"tables/{table_id}"),
                metadata=room.engine.admin_md,
            )
            bot_seats = {s.number for s in snapshot.table.seats if s.display_name != "eve"}
            assert len(bot_seats) == 2
            by_bots = [t for t in seen.taken.values() if t[0] in bot_seats]
            assert not [t for t in by_bots if t[2]], "a bot let its clock run out"
            after = [t for seq, t in seen.taken.items() if seq > late and t[0] in bot_seats]
            assert list(seen.taken)[late:] and after, "the bots stopped acting"
        finally:
            if human_task is not None:
                human_task.cancel()
            code = await bots.stop()
        assert code == 0, bots
        assert not bots.named("error"), bots

        # One session per bot, renewed by refresh (never a second log-in), logged out at stop.
        async with room.app.state.db.read() as session:
            rows = (
                await session.exec(
                    select(
                        PlayerRow.username,
                        RefreshTokenRow.session_id,
                        RefreshTokenRow.retired_at,
                        RefreshTokenRow.revoked_reason,
                    ).join(PlayerRow, col(PlayerRow.id) == col(RefreshTokenRow.player_id))
                )
            ).all()
        for name in ("bot_oslo_1", "bot_oslo_2"):
            tokens = [r for r in rows if r[0] == name]
            assert len({r[1] for r in tokens}) == 1, tokens
            assert sum(r[2] is not None for r in tokens) >= 3, tokens
            assert {r[3] for r in tokens} == {"logout"}, tokens


async def test_bots_come_to_a_lonely_table_of_any_city_on_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUD_JWT_SECRET", SECRET)  # the bot desk's service token
    async with card_room(tmp_path) as room:
        bots = await BotsProcess.start(
            room.lobby_url,
            "--cities",
            "oslo",
            "--per-city",
            "2",
            "--tables-per-bot",
            "1",
            "--think",
            "0",
            "--seed",
            "5",
            "--on-request",
            "all",
        )
        players: list[asyncio.Task[None]] = []
        try:
            [ready] = await bots.wait_for("ready")
            assert ready["on_request"] == ["*"]
            token = await sign_up(room.lobby_url, "bea", "bea-password", "berlin")
            auth = {"Authorization": f"Bearer {token}"}
            async with httpx.AsyncClient(base_url=room.lobby_url, headers=auth) as http:
                answer = await open_quick_game(http, "bea")
                table_id = answer["table_id"]
                assert answer["opponents"]["state"] == "waiting"

                # Alone in Berlin; the desk says bots serve here (after its first poll), as
                # many as it can send to a table: its 2 of a city (--per-city).
                view = await _opponents_once(
                    http, table_id, lambda v: v["bots"] == "available", 100
                )
                assert view["players"] == 1 and view["bots_can_fill_to"] == 3, view
                assert view["message"].startswith(
                    "Waiting for players of Berlin at 2/4 (house rules): nobody else is looking"
                ), view
                assert not bots.named("seated")  # nobody comes unasked

                beyond = await http.post(f"/tables/{table_id}/bots", json={"players": 4})
                assert beyond.status_code == 409, beyond.text
                assert beyond.json()["code"] == "not_enough_bots", beyond.text
                asked = await http.post(f"/tables/{table_id}/bots", json={"players": 3})
                assert asked.status_code == 200, asked.text
                seated = await bots.wait_for("seated", 2)
                assert {(s["bot"], s["table"]) for s in seated} == {
                    ("bot_berlin_r1", table_id),
                    ("bot_berlin_r2", table_id),
                }
                view = await _opponents_once(http, table_id, lambda v: v["players"] == 3, 50)
                assert view["state"] == "playing" and view["bots_fill_to"] == 3, view
                assert view["message"] == "3 players at the table: the game is on.", view
                assert view["bots_can_fill_to"] is None, view  # both of Berlin's sit here

                seen = Observed()
                bea = await http.get("/me")
                players.append(
                    asyncio.create_task(
                        passive_player(room.engine, table_id, bea.json()["id"], seen)
                    )
                )
                await seen.reach(2, timeout=30)  # a hand played with the bots, the next dealt

                left = await http.post(f"/tables/{table_id}/leave")
                assert left.status_code == 200, left.text
                await asyncio.wait_for(players.pop(), 30)
                gone = await bots.wait_for("left", 2)
                assert {(g["bot"], g["reason"]) for g in gone} == {
                    ("bot_berlin_r1", "no_humans"),
                    ("bot_berlin_r2", "no_humans"),
                }
            # They answered one request: none of them waits for another Berlin game.
            assert not [w for w in bots.named("waiting") if "berlin" in w["bot"]][2:]

            # In Oslo the ticket bots sit in at once; the desk's bots are accounts of their
            # own (bot_oslo_r1, bot_oslo_r2), so its 2 can still come to that table.
            oslo_table = await _oslo_table_filled_to_five(room, players)
            await _seated_at(
                bots, oslo_table, {"bot_oslo_1", "bot_oslo_2", "bot_oslo_r1", "bot_oslo_r2"}
            )
            await bots.stop()
            # Its last poll said it can send none: no bot is promised anywhere from now on.
            vic = await sign_up(room.lobby_url, "vic", "vic-password", "vienna")
            async with httpx.AsyncClient(
                base_url=room.lobby_url, headers={"Authorization": f"Bearer {vic}"}
            ) as http:
                alone = await open_quick_game(http, "vic")
                assert alone["opponents"]["bots"] == "unavailable", alone
        finally:
            for task in players:
                task.cancel()
            code = await bots.stop()
        assert code == 0, bots
        assert bots.named("stopped") and not bots.named("error"), bots


async def test_a_desk_short_of_a_city_s_bots_says_so_and_the_table_is_not_promised_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUD_JWT_SECRET", SECRET)  # the bot desk's service token
    async with card_room(tmp_path) as room:
        # bot_vienna_r2 exists with another password: the desk cannot sign it in.
        await sign_up(room.lobby_url, "bot_vienna_r2", "not-the-bots-password", "vienna")
        bots = await BotsProcess.start(
            room.lobby_url,
            *("--cities", "oslo", "--per-city", "2", "--tables-per-bot", "1"),
            *("--think", "0", "--seed", "7", "--on-request", "all"),
        )
        players: list[asyncio.Task[None]] = []
        try:
            await bots.wait_for("ready")
            token = await sign_up(room.lobby_url, "val", "val-password", "vienna")
            async with httpx.AsyncClient(
                base_url=room.lobby_url, headers={"Authorization": f"Bearer {token}"}
            ) as http:
                answer = await open_quick_game(http, "val")
                table_id = answer["table_id"]
                val = (await http.get("/me")).json()["id"]
                players.append(
                    asyncio.create_task(passive_player(room.engine, table_id, val, Observed()))
                )
                view = await _opponents_once(
                    http, table_id, lambda v: v["bots"] == "available", 100
                )
                assert view["bots_can_fill_to"] == 3, view
                asked = await http.post(f"/tables/{table_id}/bots", json={"players": 3})
                assert asked.status_code == 200, asked.text

                # One bot came, the second could not sign in: the desk's next poll says it
                # has 1 for Vienna, and the table is told no more can come.
                view = await _opponents_once(
                    http, table_id, lambda v: v["players"] == 2 and v["bots_fill_to"] == 2, 100
                )
                assert view["bots_can_fill_to"] is None, view
                assert view["message"] == (
                    "2 players at the table: the game is on. No more bots can come now (you "
                    "asked for 3 players: the bot services serving Vienna at this level have "
                    "no more to send here)."
                ), view
                [refused] = await bots.wait_for("error")
                assert refused["bot"] == "bot_vienna_r2", refused
                assert refused["code"] == "wrong_credentials", refused
                await _seated_at(bots, table_id, {"bot_vienna_r1"})
        finally:
            for task in players:
                task.cancel()
            code = await bots.stop()
        assert code == 0, bots


async def _seated_at(bots: BotsProcess, table_id: str, names: set[str]) -> None:
    """Wait until exactly ``names`` said they sat at ``table_id`` (a bot says so once its
    ticket shows it seated: a moment after the lobby seats it)."""
    at_table: set[str] = set()
    for _ in range(50):
        at_table = {s["bot"] for s in bots.named("seated") if s["table"] == table_id}
        if at_table >= names:
            break
        await bots.wait_for("seated", len(bots.named("seated")) + 1)
    assert at_table == names, bots


async def _opponents_once(
    http: httpx.AsyncClient, table_id: str, done: Callable[[dict[str, Any]], bool], tries: int
) -> dict[str, Any]:
    """``opponents`` of ``GET /tables/{table_id}`` once ``done`` (polled every 0.1 s)."""
    for _ in range(tries):
        view: dict[str, Any] = (await http.get(f"/tables/{table_id}")).json()["opponents"]
        if done(view):
            return view
        await asyncio.sleep(0.1)
    raise AssertionError(f"not reached: {view}")


async def _oslo_table_filled_to_five(room: Room, players: list[asyncio.Task[None]]) -> str:
    """Ola of Oslo opens a quick game: the 2 ticket bots sit in, and he asks bots to fill
    the table to 5 players (what the desk can still send: its own 2)."""
    token = await sign_up(room.lobby_url, "ola", "ola-password", "oslo")
    async with httpx.AsyncClient(
        base_url=room.lobby_url, headers={"Authorization": f"Bearer {token}"}
    ) as http:
        answer = await open_quick_game(http, "ola")
        table_id = str(answer["table_id"])
        ola = (await http.get("/me")).json()["id"]
        players.append(asyncio.create_task(passive_player(room.engine, table_id, ola, Observed())))
        view = await _opponents_once(http, table_id, lambda v: v["players"] == 3, 100)
        assert view["bots"] == "available" and view["bots_can_fill_to"] == 5, view
        asked = await http.post(f"/tables/{table_id}/bots", json={"players": 5})
        assert asked.status_code == 200, asked.text
        view = await _opponents_once(http, table_id, lambda v: v["players"] == 5, 150)
        assert view["message"] == "5 players at the table: the game is on.", view
        return table_id


async def _balance(lobby_url: str, token: str) -> int:
    async with httpx.AsyncClient(base_url=lobby_url) as http:
        wallet = await http.get("/wallet", headers={"Authorization": f"Bearer {token}"})
        assert wallet.status_code == 200, wallet.text
        return int(wallet.json()["balance"])


def test_strategy_module_is_pure() -> None:
    """The strategy imports nothing of the engine or the lobby (clients stay independent)."""
    source = Path(strategy.__file__).read_text()
    assert "engine_server" not in source and "lobby_api" not in source


# ------------------------------------------------------------------ engine restarts


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _start_engine(database: Path, port: int, log: Path) -> asyncio.subprocess.Process:
    """``stud engine`` on ``port`` (a restart after kill -9 waits out the 3 s lease: short, yet
    long enough to be renewed on a busy machine)."""
    env = {
        **os.environ,
        "STUD_JWT_SECRET": SECRET,
        "STUD_DATABASE_URL": f"sqlite:///{database}",
        "STUD_ENGINE_BETWEEN_HANDS": "0.05",
        "STUD_ENGINE_LEASE_SECONDS": "3",
        "STUD_LOG_FORMAT": "text",
        "STUD_LOG_LEVEL": "WARNING",
    }
    with log.open("ab") as errors:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "engine_server",
            "engine",
            "--grpc-port",
            str(port),
            "--web-port",
            "0",
            "--metrics-port",
            "0",
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=errors,
        )
    assert process.stdout is not None
    async with asyncio.timeout(60):
        line = await process.stdout.readline()
    assert line, f"stud engine did not start: {log.read_text()}"
    return process


async def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGKILL)
    await process.wait()


@contextlib.asynccontextmanager
async def _lobby(database: Path, engine_port: int) -> AsyncIterator[tuple[Litestar, str]]:
    settings = LobbySettings(
        database_url=f"sqlite:///{database}",
        jwt_secret=SECRET,
        engine_grpc=f"127.0.0.1:{engine_port}",
        engine_grpc_public=f"127.0.0.1:{engine_port}",
        sweep_seconds=1,
        login_rate_per_minute=0,
        money_rate_per_minute=0,
    )
    app = build_app(settings)
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", log_config=None
        )
    )
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if serving.done():
                serving.result()
            await asyncio.sleep(0.01)
        await add_test_levels(app.state.db)
        yield app, f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(serving, 10)
        await app.state.engine.close()


async def _bots_at(port: int, table_id: str, seats: set[int]) -> tuple[bool, int]:
    """Whether every one of ``seats`` is connected (its stream open), and the hand number."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        view = await admin_service_pb2_grpc.AdminServiceStub(channel).GetTable(
            admin_service_pb2.GetTableRequest(name=f"tables/{table_id}"),
            metadata=bearer("ops", Scope.ADMIN),
            timeout=5,
        )
    by_number = {s.number: s for s in view.snapshot.seats}
    connected = all(n in by_number and by_number[n].connected for n in seats)
    return connected, view.snapshot.hand_number


async def _until_playing(port: int, table_id: str, seats: set[int], timeout: float = 60) -> int:
    """Wait until the bots' seats are connected and a new hand has started; its number."""
    deadline = time.monotonic() + timeout
    first_hand = None
    while True:
        with contextlib.suppress(grpc.aio.AioRpcError):
            connected, hand = await _bots_at(port, table_id, seats)
            if connected:
                first_hand = hand if first_hand is None else first_hand
                if hand > first_hand:
                    return hand
        assert time.monotonic() < deadline, f"the bots at seats {seats} are not playing"
        await asyncio.sleep(0.2)


async def _seats(app: Litestar, table_id: str) -> list[tuple[str, object]]:
    """The table's lobby seats: (player, when settled: None while the seat is held)."""
    async with app.state.db.read() as session:
        found = await session.exec(
            select(LobbySeatRow.player_id, LobbySeatRow.settled_at).where(
                LobbySeatRow.table_id == table_id, LobbySeatRow.state == "seated"
            )
        )
        return [(player, settled) for player, settled in found.all()]


async def _open_seats(app: Litestar, table_id: str) -> int:
    return sum(1 for _, settled in await _seats(app, table_id) if settled is None)


async def test_bots_ride_out_engine_restarts_and_leave_a_seat_they_give_up(
    tmp_path: Path,
) -> None:
    """kill -9 of the engine, five times: each time the bots watch their table again and play
    on (their failures counted per outage, not for ever). Then the engine comes back at
    another address: the lobby's answer for their tickets names it, and they follow it there.
    Then the engine stays away longer than --reconnect-seconds: they give their seats up
    through the lobby (never keeping them), and sit in again from new tickets.
    """
    database = tmp_path / "room.sqlite3"
    await prepare_database(f"sqlite:///{database}")
    port = _free_port()
    log = tmp_path / "engine.log"
    engine = await _start_engine(database, port, log)
    bots: BotsProcess | None = None
    try:
        async with _lobby(database, port) as (app, lobby_url):
            token = await sign_up(lobby_url, "ann", "ann-password", "oslo")
            async with httpx.AsyncClient(base_url=lobby_url) as http:
                # Ann never connects: her clock (0.3 s at t-fast) acts for her.
                game = await http.post(
                    "/quickgame",
                    json={"stake_level": "t-fast", "buy_in": 100, "client_seed": "ann-seed"},
                    headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "ann-1"},
                )
            assert game.status_code == 201, game.text
            table_id = game.json()["table_id"]
            bots = await BotsProcess.start(
                lobby_url,
                "--cities",
                "oslo",
                "--per-city",
                "2",
                "--tables-per-bot",
                "1",
                "--stake",
                "t-fast",
                "--think",
                "0",
                "--idle-hands",
                "100000",
                "--reconnect-seconds",
                "20",
                "--seed",
                "7",
            )
            seated = await bots.wait_for("seated", 2, timeout=60)
            assert {s["table"] for s in seated} == {table_id}
            seats = {int(s["seat"]) for s in seated}
            await _until_playing(port, table_id, seats)

            for _ in range(5):
                await _kill(engine)
                engine = await _start_engine(database, port, log)
                await _until_playing(port, table_id, seats)
            assert not bots.named("left"), bots
            assert not [e for e in bots.named("error") if "stream" in e.get("detail", "")], bots
            assert await _open_seats(app, table_id) == 3  # Ann and the two bots

            # The table's engine moves to another port: the bots' stream address is gone, and
            # the lobby's answer for their tickets names the new one (the node's registry row).
            await _kill(engine)
            moved = _free_port()
            engine = await _start_engine(database, moved, log)
            followed = await bots.wait_for("moved", 2, timeout=60)
            assert {(f["table"], f["engine"]) for f in followed} == {
                (table_id, f"127.0.0.1:{moved}")
            }
            await _until_playing(moved, table_id, seats)
            assert not bots.named("left"), bots

            # Away for longer than --reconnect-seconds: they give their seats up.
            await _kill(engine)
            await asyncio.sleep(22)
            engine = await _start_engine(database, moved, log)
            gave_up = await bots.wait_for("left", 2, timeout=60)
            assert {(g["table"], g["reason"]) for g in gave_up} == {(table_id, "stream_failed")}
            # They left their seats through the lobby, then sat in again from new tickets
            # (whose address is the engine's new one), and play.
            again = await bots.wait_for("seated", 4, timeout=60)
            assert {s["table"] for s in again[2:]} == {table_id}
            await _until_playing(moved, table_id, {int(s["seat"]) for s in again[2:]})
            # The seats given up were paid out (the sweep settles a seat once its hand is
            # over): Ann's and the bots' new ones are all that is open.
            deadline = time.monotonic() + 30
            while await _open_seats(app, table_id) != 3 or len(await _seats(app, table_id)) != 5:
                assert time.monotonic() < deadline, await _seats(app, table_id)
                await asyncio.sleep(0.2)
            code = await bots.stop()
            assert code == 0, bots
    finally:
        if bots is not None and bots.process.returncode is None:
            bots.process.kill()
            await bots.process.wait()
        await _kill(engine)


async def test_bots_fill_a_tournament_a_human_registered_for_and_play_it_to_the_end(
    tmp_path: Path,
) -> None:
    """``--tournaments with-humans``: the bots leave a tournament nobody entered alone; once
    Ann registers they fill its seats (it starts), play their seats from the entry's table
    and token, and report their places; the money adds up to the wallets it came from."""
    async with card_room(tmp_path) as room:
        ops = {"Authorization": f"Bearer {mint_token(SECRET, 'ops', [Scope.ADMIN])}"}
        async with httpx.AsyncClient(base_url=room.lobby_url, timeout=15) as http:
            made = await http.post(
                "/admin/tournaments",
                headers=ops,
                json={
                    "name": "Bots Freezeout",
                    "city": "oslo",
                    "buy_in": 100,
                    "fee": 10,
                    "starting_chips": 40,
                    "max_players": 3,
                    "rule_overrides": {"action_seconds": 2},
                    # Steep after a few hands: at one level the random players' tournament
                    # took from 18 s to 157 s (the test asks for a winner, not a long game).
                    "levels": [
                        {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10, "hands": 6},
                        {"ante": 5, "bring_in": 10, "small_bet": 20, "big_bet": 40, "hands": 50},
                    ],
                },
            )
            assert made.status_code == 201, made.text
            tournament_id = made.json()["id"]
            bots = await BotsProcess.start(
                room.lobby_url,
                "--cities",
                "oslo,stockholm",
                "--per-city",
                "2",
                "--tables-per-bot",
                "1",
                "--think",
                "0",
                "--seed",
                "5",
                "--tournaments",
                "with-humans",
            )
            ann_task: asyncio.Task[int] | None = None
            try:
                ready = await bots.wait_for("ready")
                assert ready[0]["tournaments"] == "with_humans"
                await bots.wait_for("waiting", 4)  # their quick-game tickets
                await asyncio.sleep(3)  # more than one look at the tournaments
                assert not bots.named("registered"), bots  # no human there yet
                page = (await http.get(f"/tournaments/{tournament_id}")).json()
                assert page["entries"] == 0

                token = await sign_up(room.lobby_url, "ann", "ann-password", "oslo")
                ann = {"Authorization": f"Bearer {token}"}
                entered = await http.post(
                    f"/tournaments/{tournament_id}/entries",
                    headers={**ann, "Idempotency-Key": "ann-entry"},
                )
                assert entered.status_code == 201, entered.text

                # The two Oslo bots fill it (the Stockholm ones may not enter an Oslo event).
                registered = await bots.wait_for("registered", 2, timeout=30)
                assert {r["bot"] for r in registered} == {"bot_oslo_1", "bot_oslo_2"}
                assert {r["tournament"] for r in registered} == {tournament_id}
                seated = await bots.wait_for("tournament_seated", 2, timeout=30)
                mine = await http.get(f"/tournaments/{tournament_id}/entries/me", headers=ann)
                assert mine.json()["status"] == "playing", mine.text
                assert {s["table"] for s in seated} == {mine.json()["table_id"]}
                ann_task = asyncio.create_task(
                    play(
                        room.engine.grpc_address,
                        f"tables/{mine.json()['table_id']}",
                        mine.json()["token"],
                        until_hand=10_000,
                        seed=1,
                    )
                )

                # Played to the end: each bot reports its place (and prize) once.
                deadline = asyncio.get_running_loop().time() + 180
                while True:
                    page = (await http.get(f"/tournaments/{tournament_id}")).json()
                    if page["status"] == "finished":
                        break
                    assert asyncio.get_running_loop().time() < deadline, page
                    await asyncio.sleep(0.5)
                ends = [
                    e
                    for e in bots.named("busted") + bots.named("finished")
                    if e["tournament"] == tournament_id
                ]
                for _ in range(60):
                    if len(ends) == 2:
                        break
                    await asyncio.sleep(0.5)
                    ends = [
                        e
                        for e in bots.named("busted") + bots.named("finished")
                        if e["tournament"] == tournament_id
                    ]
                standings = {s["username"]: s for s in page["standings"]}
                assert {(e["bot"], e["place"], e["prize"]) for e in ends} == {
                    (name, standings[name]["place"], standings[name]["prize"])
                    for name in ("bot_oslo_1", "bot_oslo_2")
                }, (ends, standings)
                assert sorted(s["place"] for s in standings.values())[0] == 1
                assert sum(s["prize"] or 0 for s in standings.values()) == 300
            finally:
                if ann_task is not None:
                    ann_task.cancel()
                    await asyncio.gather(ann_task, return_exceptions=True)
                code = await bots.stop()
            assert code == 0, bots
            assert not bots.named("error"), bots

            # Every unit is where it came from: three wallets and the house's fees.
            total = await _balance(room.lobby_url, token)
            for name in ("bot_oslo_1", "bot_oslo_2"):
                login = await http.post(
                    "/auth/login", json={"username": name, "password": "bot-password-for-tests"}
                )
                total += await _balance(room.lobby_url, login.json()["access_token"])
            assert total + 3 * 10 == 3 * 10_000


async def test_bots_withdraw_their_waiting_entries_when_they_stop(tmp_path: Path) -> None:
    """``--tournaments`` (all): the bots register for an open tournament of their city with
    nobody else; stopped before it starts, they unregister and get buy-in and fee back."""
    async with card_room(tmp_path) as room:
        ops = {"Authorization": f"Bearer {mint_token(SECRET, 'ops', [Scope.ADMIN])}"}
        async with httpx.AsyncClient(base_url=room.lobby_url, timeout=15) as http:
            made = await http.post(
                "/admin/tournaments",
                headers=ops,
                json={"name": "Stockholm Six", "city": "stockholm", "max_players": 6},
            )
            assert made.status_code == 201, made.text
            tournament_id = made.json()["id"]
            bots = await BotsProcess.start(
                room.lobby_url,
                "--cities",
                "stockholm",
                "--per-city",
                "2",
                "--think",
                "0",
                "--tournaments",
            )
            try:
                registered = await bots.wait_for("registered", 2, timeout=30)
                assert {r["bot"] for r in registered if r["tournament"] == tournament_id} == {
                    "bot_stockholm_1",
                    "bot_stockholm_2",
                }
                page = (await http.get(f"/tournaments/{tournament_id}")).json()
                assert page["entries"] == 2 and page["status"] == "registering"
            finally:
                code = await bots.stop()
            assert code == 0, bots
            assert not bots.named("error"), bots
            withdrawn = {u["bot"] for u in bots.named("unregistered")}
            assert {"bot_stockholm_1", "bot_stockholm_2"} <= withdrawn, bots
            page = (await http.get(f"/tournaments/{tournament_id}")).json()
            assert page["entries"] == 0
            for name in ("bot_stockholm_1", "bot_stockholm_2"):
                login = await http.post(
                    "/auth/login", json={"username": name, "password": "bot-password-for-tests"}
                )
                assert await _balance(room.lobby_url, login.json()["access_token"]) == 10_000


async def test_a_tournament_bot_follows_a_move_and_plays_at_its_destination(
    tmp_path: Path,
) -> None:
    """A bot at a tournament table of the engine (as the director seats it) is moved
    (MovePlayer): it takes the destination from PlayerMoved, watches it before the director
    has seated it there (a railbird's view), watches again once seated, and plays its turns."""
    from stud.bots.runner import BotsConfig, _Bot, _Shared
    from stud.bots.tournaments import _Entry, _Where

    async with card_room(tmp_path) as room:
        engine = room.engine
        events: list[tuple[str, dict[str, object]]] = []
        config = BotsConfig(lobby=room.lobby_url, password=lambda _u: "bot-pass-1", think=0)
        shared = _Shared(config, lambda event, **f: events.append((event, f)), asyncio.Event())
        async with httpx.AsyncClient(timeout=10) as http:
            lobby = stud.bots.lobby.LobbyClient(http, room.lobby_url)
            await lobby.sign_in("bot_oslo_1", "bot-pass-1", "oslo")
            assert lobby.player_id is not None
            entry = _Entry(shared, _Bot("bot_oslo_1", "oslo", lobby), "tour-move", random.Random(3))
            source = await tournament_table(engine, "tour-move", 1)
            destination = await tournament_table(engine, "tour-move", 2)
            session_id = await seat_player(
                engine, f"tables/{source}", lobby.player_id, "bot_oslo_1", 700
            )
            playing = asyncio.create_task(
                entry._play(_Where(f"tables/{source}", engine.grpc_address))
            )
            carl: asyncio.Task[None] | None = None
            try:
                await asyncio.sleep(1.0)  # its stream is up
                await engine.admin.MovePlayer(
                    admin_service_pb2.MovePlayerRequest(
                        table=f"tables/{source}",
                        seat_session_id=session_id,
                        request_id="move-bot",
                        destination_table=f"tables/{destination}",
                        grpc_address=engine.grpc_address,
                        web_url=engine.web_url,
                    ),
                    metadata=engine.admin_md,
                )
                moved = await asyncio.wait_for(playing, 15)
                assert moved == _Where(f"tables/{destination}", engine.grpc_address)

                # As if it had acted far into the source table's changes: the destination
                # numbers its own from the start, and the bot must act there all the same.
                entry._acted_through = 10_000
                # It arrives first; the director seats it (and another player) a moment later.
                playing = asyncio.create_task(entry._play(moved))
                await asyncio.sleep(1.0)
                await seat_player(
                    engine, f"tables/{destination}", lobby.player_id, "bot_oslo_1", 700, seat=1
                )
                await seat_player(engine, f"tables/{destination}", "carl", "carl", 700, seat=2)
                seen = Observed()
                carl = asyncio.create_task(passive_player(engine, destination, "carl", seen))
                await engine.admin.SetHandHold(
                    admin_service_pb2.SetHandHoldRequest(name=f"tables/{destination}", held=False),
                    metadata=engine.admin_md,
                )
                await seen.reach(3, timeout=60)  # two hands played there, the third dealt
                by_bot = [t for t in seen.taken.values() if t[0] == 1]
                assert by_bot and not [t for t in by_bot if t[2]], seen.taken  # never timed out
                assert entry.hands >= 2
            finally:
                if carl is not None:
                    carl.cancel()
                shared.stop.set()
                assert await asyncio.wait_for(playing, 15) == "stopped"
                await lobby.log_out()
                for channel in shared.channels.values():
                    await channel.close()
        assert not [e for e in events if e[0] == "error"], events


async def _stud_bots(lobby_url: str, cwd: Path, secret: str, *args: str) -> tuple[int, list, str]:
    """``stud bots`` run to its end with the token secret ``secret`` (the bots' passwords are
    derived from it): its exit status, its events, its log (stderr)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
    env.update(STUD_JWT_SECRET=secret, STUD_LOG_FORMAT="json")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "engine_server", "bots", "--lobby", lobby_url, *args),
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    # A bot that waited out a lockout (up to a quarter of an hour) would miss this.
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, [json.loads(line) for line in out.splitlines()], err.decode()


async def test_prefix_names_other_bots_and_a_wrong_secret_is_named_at_once(
    tmp_path: Path,
) -> None:
    """``--prefix`` gives bots of their own in the same city. Run with another token secret than
    the one they were registered with, their log-ins are refused: the events give the lobby's
    code, the log says the likely cause in one line, and the command ends at once — also once
    the refusals made the account's log-ins wait (before, every bot waited that out, up to a
    quarter of an hour each, saying nothing, to fail again)."""
    database_url = f"sqlite:///{tmp_path}/bots.sqlite3"
    await fresh_sqlite(database_url)
    await prepare_database(database_url)
    settings = LobbySettings(
        database_url=database_url,
        jwt_secret=SECRET,
        sweep_seconds=0,
        login_rate_per_minute=0,
        money_rate_per_minute=0,
    )
    app = build_app(settings, None)  # no engine: the bots' tickets wait
    flags = ("--cities", "oslo", "--per-city", "1", "--duration", "1")
    try:
        async with serve_lobby(app) as lobby_url:
            theirs = "t" * 40
            code, events, log = await _stud_bots(lobby_url, tmp_path, theirs, *flags)
            assert code == 0, (events, log)
            assert events[0]["event"] == "ready" and events[0]["bots"] == ["bot_oslo_1"]
            code, events, log = await _stud_bots(
                lobby_url, tmp_path, theirs, *flags, "--prefix", "extra"
            )
            assert code == 0 and events[0]["bots"] == ["extra_oslo_1"], (events, log)

            # Another secret: the accounts exist with other passwords.
            for prefix in ("bot", "extra"):
                code, events, log = await _stud_bots(
                    lobby_url, tmp_path, "w" * 40, *flags, "--prefix", prefix
                )
                assert code == 1, (events, log)
                assert [(e["event"], e["bot"], e["code"]) for e in events] == [
                    ("error", f"{prefix}_oslo_1", "wrong_credentials")
                ]
                (line,) = log.splitlines()
                record = json.loads(line)
                assert (record["level"], record["logger"]) == ("WARNING", "stud.bots")
                assert record["message"] == (
                    f"{prefix}_oslo_1 exists with another password: bot passwords are derived "
                    "from the token secret, and STUD_JWT_SECRET is most likely not the lobby's "
                    "(the one they were registered with); run with the lobby's, or --prefix "
                    "NAME for bots of your own"
                )

            # Enough refusals and the account's log-ins wait (here ten minutes): said at once.
            async with app.state.db.write() as session:
                await session.exec(
                    sa.text(  # type: ignore[call-overload]
                        "UPDATE login_failures SET failures = 20, locked_until = :until "
                        "WHERE account = 'bot_oslo_1'"
                    ),
                    params={"until": int((time.time() + 600) * 1000)},
                )
            started = time.monotonic()
            code, events, log = await _stud_bots(lobby_url, tmp_path, "w" * 40, *flags)
            assert code == 1 and time.monotonic() - started < 30, (events, log)
            assert [(e["bot"], e["code"]) for e in events] == [
                ("bot_oslo_1", "too_many_failed_logins")
            ]
            (line,) = log.splitlines()
            assert json.loads(line)["message"].startswith(
                "bot_oslo_1 may not log in for a while after failed log-ins: bot passwords are "
                "derived from the token secret"
            )
    finally:
        await app.state.engine.close()
