"""The Android client (clients/android): the generated Java lite messages and gRPC stubs and the
Kotlin example, compiled with Debian's javac/kotlinc against Debian's jars (scripts/build-android),
play at a real engine on loopback over gRPC.

The test needs java and kotlinc (scripts/install-system-deps installs them; scripts/test runs
it). Without them it is skipped — loudly, and never in CI (CI=true), where it fails instead.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import pytest_asyncio
from sqlmodel import select
from stud.bots.runner import moved_to
from stud.v1 import admin_service_pb2

from engine_server.api.table_service import TableServiceCore
from engine_server.auth import Identity, Scope, mint_token
from lobby_api.sessions.models import RefreshTokenRow
from tests.clients.bots import ROOT, Observed, assert_bot_played, passive_player, run_bot
from tests.clients.node_processes import LEASE, nodes_room
from tests.clients.room import card_room
from tests.engine_server.api.conftest import SECRET, Engine, launch, shut

MISSING = [tool for tool in ("java", "javac", "kotlinc") if shutil.which(tool) is None]
if MISSING and os.environ.get("CI") != "true":
    pytest.skip(
        f"ANDROID CLIENT NOT TESTED: {', '.join(MISSING)} missing on this machine; "
        "run scripts/install-system-deps (scripts/test does)",
        allow_module_level=True,
    )

HANDS = 2


@pytest.fixture(scope="module")
def classpath() -> str:
    """Build the Android client (cached in clients/android/build) and return its class path."""
    assert not MISSING, (
        f"{MISSING} missing in CI: scripts/test must run scripts/install-system-deps"
    )
    result = subprocess.run(
        ["scripts/build-android"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return (ROOT / "clients/android/build/classpath").read_text().strip()


@pytest_asyncio.fixture
async def engine(tmp_path: Path) -> AsyncIterator[Engine]:
    running = await launch(f"sqlite:///{tmp_path}/engine.sqlite3")
    try:
        yield running
    finally:
        await shut(running)


def test_build_writes_classes_for_every_generated_file(classpath: str) -> None:
    classes = Path(classpath.split(":")[0])
    generated = ROOT / "clients/android/src/gen/java"
    sources = sorted(generated.rglob("*.java"))
    assert len(sources) > 100
    for source in sources:
        compiled = classes / source.relative_to(generated).with_suffix(".class")
        assert compiled.is_file(), compiled
    assert (classes / "stud/example/TableBotKt.class").is_file()


#: How each transport is chosen: Play is the bot's default (STUD_TRANSPORT unset, whatever the
#: test's own environment holds); WatchTable with unary Act calls is STUD_TRANSPORT=watch.
TRANSPORTS = {
    "play": ["env", "-u", "STUD_TRANSPORT"],
    "watch": ["env", "STUD_TRANSPORT=watch"],
}


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The TableService calls the engine serves, as (method, player), in order: which way a
    client played is seen at the engine, not taken from its own word."""
    seen: list[tuple[str, str]] = []

    def spy(method: Callable[..., Any]) -> Callable[..., Any]:
        def called(self: TableServiceCore, request: Any, identity: Identity) -> Any:
            seen.append((method.__name__, identity.subject))
            return method(self, request, identity)

        return called

    for name in ("watch", "act", "play"):
        monkeypatch.setattr(TableServiceCore, name, spy(getattr(TableServiceCore, name)))
    return seen


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
async def test_kotlin_client_watches_the_table_and_acts(
    engine: Engine, classpath: str, calls: list[tuple[str, str]], transport: str
) -> None:
    await engine.create_table("t1", overrides={"action_seconds": 20})
    await engine.seat("t1", "kotlin", buy_in=100, seat=1)
    await engine.seat("t1", "python", buy_in=100, seat=2)
    seen = Observed()
    other = asyncio.create_task(passive_player(engine, "t1", "python", seen))
    try:
        run = await run_bot(
            [
                *TRANSPORTS[transport],
                "java",
                "-cp",
                classpath,
                "stud.example.TableBotKt",
                "127.0.0.1",
                str(engine.server.grpc_port),
                "t1",
                str(HANDS),
                "90",
            ],
            token=mint_token(SECRET, "kotlin", [Scope.PLAYER], ttl_seconds=600),
            timeout=120,
        )
        await seen.reach(HANDS + 1, timeout=30)
    finally:
        other.cancel()
        await asyncio.gather(other, return_exceptions=True)
    assert_bot_played(run, table_id="t1", seat=1, hands=HANDS, seen=seen)
    # Over Play the bot opened one stream and took every action on it (the ACT lines above
    # are the updates that carried its acts); otherwise one WatchTable and an Act per action.
    mine = [method for method, player in calls if player == "kotlin"]
    if transport == "play":
        assert mine == ["play"], calls
    else:
        assert mine == ["watch"] + ["act"] * (len(run.words("ACT")) + len(run.words("REFUSED")))


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
async def test_kotlin_client_renews_its_token_through_the_lobby(
    tmp_path: Path, classpath: str, calls: list[tuple[str, str]], transport: str
) -> None:
    """With 5-second access tokens from a real lobby, the bot plays hands for several token
    lifetimes: it renews its token by refresh (each new refresh token used once), over Play
    opens a new stream with each token, and no act is refused."""
    async with card_room(tmp_path, between_hands_seconds=2.5, token_seconds=5) as room:
        async with httpx.AsyncClient(base_url=room.lobby_url) as http:
            account = {"username": f"kotlin_{transport}", "password": "kotlin-pw-1", "city": "oslo"}
            assert (await http.post("/accounts", json=account)).status_code == 201
            login = await http.post("/auth/login", json=account)
            assert login.status_code == 200, login.text
            pair = login.json()
        me = pair["player_id"]
        engine = room.engine
        await engine.create_table("t1", overrides={"action_seconds": 20})
        await engine.seat("t1", me, buy_in=100, seat=1)
        await engine.seat("t1", "python", buy_in=100, seat=2)
        seen = Observed()
        other = asyncio.create_task(passive_player(engine, "t1", "python", seen))
        hands = 6  # with 2.5 s between hands: past three token lifetimes
        try:
            run = await run_bot(
                [
                    *TRANSPORTS[transport],
                    "java",
                    "-cp",
                    classpath,
                    "stud.example.TableBotKt",
                    "127.0.0.1",
                    str(engine.server.grpc_port),
                    "t1",
                    str(hands),
                    "120",
                ],
                token=pair["access_token"],
                timeout=150,
                extra_env={
                    "STUD_LOBBY": room.lobby_url,
                    "STUD_REFRESH_TOKEN": pair["refresh_token"],
                    "STUD_TOKEN_SECONDS": str(pair["expires_in"]),
                },
            )
            await seen.reach(hands + 1, timeout=30)
        finally:
            other.cancel()
            await asyncio.gather(other, return_exceptions=True)
        async with room.app.state.db.read() as session:
            tokens = (
                await session.exec(select(RefreshTokenRow).where(RefreshTokenRow.player_id == me))
            ).all()

    assert run.returncode == 0, run
    assert not run.words("REFUSED") and not run.words("STREAM_FAILED"), run
    assert not run.words("RENEW_FAILED") and not run.words("SESSION_ENDED"), run
    renewed = run.words("RENEWED")
    assert len(renewed) >= 3, run
    assert int(run.lines[-1].fields["actions"]) == len(run.words("ACT")) > 0
    # It acted in the last hands as in the first, its own actions (not its clock's).
    acted_hands = {int(act.fields["hand"]) for act in run.words("ACT")}
    assert {1, hands} <= acted_hands, acted_hands
    assert not [t for t in seen.taken.values() if t[0] == 1 and t[2]], seen.taken
    # The lobby's side: one session, each of its refresh tokens exchanged once.
    assert len({t.session_id for t in tokens}) == 1
    assert sum(t.retired_at is not None for t in tokens) == len(renewed)
    assert not any(t.revoked for t in tokens)
    mine = [method for method, player in calls if player == me]
    if transport == "play":
        # A new Play stream with each renewed token (the seat stays).
        assert len(run.words("REOPENED")) >= 2, run
        assert mine == ["play"] * (1 + len(run.words("REOPENED"))), calls
    else:
        assert mine[0] == "watch" and set(mine[1:]) == {"act"}, calls


async def test_kotlin_client_without_a_token_exits_with_usage(classpath: str) -> None:
    run = await run_bot(
        ["java", "-cp", classpath, "stud.example.TableBotKt", "127.0.0.1", "1", "t1"],
        token="",
        timeout=60,
    )
    assert run.returncode == 2, run
    assert "STUD_TOKEN" in run.stderr


async def test_kotlin_client_refuses_an_unknown_transport(classpath: str) -> None:
    run = await run_bot(
        [
            "env",
            "STUD_TRANSPORT=grpc-web",
            "java",
            "-cp",
            classpath,
            "stud.example.TableBotKt",
            "127.0.0.1",
            "1",
            "t1",
        ],
        token="unused",
        timeout=60,
    )
    assert run.returncode == 2, run
    assert "STUD_TRANSPORT must be play" in run.stderr, run
    assert run.stdout == "", run


async def following_player(
    first: Engine, then: Engine, table_id: str, player_id: str, seen: Observed
) -> None:
    """:func:`passive_player` at ``first`` until its table moves to ``then`` (the stream ends
    UNAVAILABLE / TABLE_MOVED naming ``then``), then at ``then``."""
    try:
        await passive_player(first, table_id, player_id, seen)
    except grpc.aio.AioRpcError as error:
        assert moved_to(error) == then.grpc_address, error
    await passive_player(then, table_id, player_id, seen)


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
async def test_kotlin_client_follows_its_table_to_another_node(
    tmp_path: Path, classpath: str, transport: str
) -> None:
    """Two engine nodes on one database; the table moves from a to b (a MoveTable call:
    between hands) while the bot plays: its stream ends with TABLE_MOVED, it reads b's gRPC
    address from the ErrorInfo metadata, opens a channel there and plays on, the same seat."""
    url = f"sqlite:///{tmp_path}/nodes.sqlite3"
    a = await launch(url, node_id="a", lease_seconds=2.0, between_hands_seconds=1.0)
    b = await launch(url, node_id="b", lease_seconds=2.0, between_hands_seconds=1.0)
    hands = 4
    try:
        await a.create_table("t1", overrides={"action_seconds": 20})
        await a.seat("t1", "kotlin", buy_in=100, seat=1)
        await a.seat("t1", "python", buy_in=100, seat=2)
        seen = Observed()
        other = asyncio.create_task(following_player(a, b, "t1", "python", seen))
        bot = asyncio.create_task(
            run_bot(
                [
                    *TRANSPORTS[transport],
                    *("java", "-cp", classpath, "stud.example.TableBotKt"),
                    *("127.0.0.1", str(a.server.grpc_port), "t1", str(hands), "120"),
                ],
                token=mint_token(SECRET, "kotlin", [Scope.PLAYER], ttl_seconds=600),
                timeout=150,
            )
        )
        try:
            # Once the bot has acted at a (its own action, not its clock's), the table moves.
            async with seen.changed:
                await asyncio.wait_for(
                    seen.changed.wait_for(
                        lambda: any(t[0] == 1 and not t[2] for t in seen.taken.values())
                    ),
                    90,
                )
            moved_at = seen.hand_number
            await a.admin.MoveTable(
                admin_service_pb2.MoveTableRequest(name="tables/t1", node="b"),
                metadata=a.admin_md,
            )
            run = await bot
            await seen.reach(hands + 1, timeout=30)
        finally:
            bot.cancel()
            other.cancel()
            await asyncio.gather(bot, other, return_exceptions=True)
    finally:
        await shut(a)
        await shut(b)

    assert run.returncode == 0, run
    assert not run.words("STREAM_FAILED") and not run.words("DEADLINE"), run
    [moved] = run.words("MOVED")
    assert moved.fields == {"node": "b", "address": b.grpc_address}, run
    # At b it watched from its own seat, from a fresh snapshot, and acted in later hands.
    after = run.lines[run.lines.index(moved) + 1]
    assert after.word == "SNAPSHOT" and after.fields["viewer"] == "1", run
    assert after.fields["table"] == "tables/t1", run
    acted = {int(act.fields["hand"]) for act in run.words("ACT")}
    assert any(hand <= moved_at for hand in acted) and any(hand > moved_at for hand in acted), run
    assert int(run.lines[-2].fields["hand"]) == hands + 1, run
    # The actions it took at b were its own, as the other player saw them there.
    assert [t for t in seen.taken.values() if t[0] == 1 and not t[2]], seen.taken


async def test_kotlin_clients_find_their_table_when_its_node_dies(
    tmp_path: Path, classpath: str
) -> None:
    """Two ``stud engine`` processes and the lobby on PostgreSQL; two Kotlin bots (one over
    Play, one over WatchTable and Act) sit at a quick table (its opener and a ticket). The
    table's node is killed (SIGKILL: no TABLE_MOVED) in its second hand: both bots' streams
    fail UNAVAILABLE and every new one is refused; they retry with a back-off, from the second
    failure in a row ask the lobby where the table is (GET /tables/{id}), and once the other
    node has taken the table over (the dead node's lease ran out) follow it there and play on
    from the same seats."""
    hands = 4
    async with nodes_room(tmp_path) as room:
        async with httpx.AsyncClient(base_url=room.lobby_url, timeout=30) as http:
            logins = []
            for name in ("kotlin_play", "kotlin_watch"):
                account = {"username": name, "password": "kotlin-pw-1", "city": "oslo"}
                assert (await http.post("/accounts", json=account)).status_code == 201
                login = await http.post("/auth/login", json=account)
                assert login.status_code == 200, login.text
                logins.append(login.json())
            opened = await http.post(
                "/quickgame",
                json={"stake_level": "t-austria", "buy_in": 100, "client_seed": "kotlin_dead"},
                headers={
                    "Authorization": f"Bearer {logins[0]['access_token']}",
                    "Idempotency-Key": "kotlin-dead-open",
                },
            )
            assert opened.status_code == 201, opened.text
            ticket = await http.post(
                "/tickets",
                json={"stake_level": "t-austria", "buy_in": 100},
                headers={
                    "Authorization": f"Bearer {logins[1]['access_token']}",
                    "Idempotency-Key": "kotlin-dead-ticket",
                },
            )
            assert ticket.status_code == 201, ticket.text
        game, seated = opened.json(), ticket.json()
        table_id = game["table_id"]
        assert (seated["status"], seated["table_id"]) == ("seated", table_id), seated
        dead = await room.owner(table_id)
        assert dead is not None and game["engine_grpc"] == room.grpc(dead)
        host, port = game["engine_grpc"].rsplit(":", 1)
        bots = {
            transport: asyncio.create_task(
                run_bot(
                    [
                        *TRANSPORTS[transport],
                        *("java", "-cp", classpath, "stud.example.TableBotKt"),
                        *(host, port, table_id, str(hands), "240"),
                    ],
                    token=login["access_token"],
                    timeout=300,
                    extra_env={"STUD_LOBBY": room.lobby_url},
                )
            )
            for transport, login in zip(("play", "watch"), logins, strict=True)
        }
        try:
            # Two JVMs starting at a load average of 25 took a minute before their first act.
            async with asyncio.timeout(180):
                while await room.hands_started(table_id) < 2:
                    ended = [bot for bot in bots.values() if bot.done()]
                    assert not ended, [str(bot.result()) for bot in ended]
                    await asyncio.sleep(0.1)
            killed_in = await room.hands_started(table_id)
            await room.kill(dead)
            heir = await room.taken_over(table_id, dead, LEASE * 4)
            runs = {transport: await bot for transport, bot in bots.items()}
        finally:
            for bot in bots.values():
                bot.cancel()
            await asyncio.gather(*bots.values(), return_exceptions=True)
        heir_address = room.grpc(heir)

    seats = {"play": game["seat"], "watch": seated["seat"]}
    for transport, run in runs.items():
        assert run.returncode == 0, run
        assert not run.words("STREAM_FAILED") and not run.words("DEADLINE"), run
        # It retried at the dead node, asked the lobby, and followed the table to the heir.
        assert len(run.words("RETRY")) >= 2 and run.words("LOCATED"), run
        [moved] = run.words("MOVED")
        assert moved.fields == {"address": heir_address, "via": "lobby"}, run
        located = [line for line in run.words("LOCATED") if line.fields["address"]]
        assert located[-1].fields == {"status": "200", "address": heir_address}, run
        # There it watched from its own seat, from a fresh snapshot, and acted in later hands.
        after = next(
            line for line in run.lines[run.lines.index(moved) :] if line.word == "SNAPSHOT"
        )
        assert after.fields["viewer"] == str(seats[transport]), run
        assert after.fields["table"] == f"tables/{table_id}", run
        acted = {int(act.fields["hand"]) for act in run.words("ACT")}
        assert any(hand < killed_in for hand in acted), run
        assert any(hand > killed_in for hand in acted), run
        assert int(run.lines[-2].fields["hand"]) == hands + 1, run
