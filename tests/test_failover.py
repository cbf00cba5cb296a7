"""A card room that survives the loss of an engine node (issue 15), end to end.

Three ``stud engine`` processes (nodes ``a``, ``b``, ``c``) and two ``stud lobby`` replicas
share one PostgreSQL database (a server of the test's own: five processes' pools would not fit
in the shared server's connection limit beside the other tests). Players open quick games
through one lobby, ``stud bots`` (the Python bots, through the other lobby's tickets) sit in
and play, one quick table on every node; six players play a tournament whose two tables are on
``a`` and ``c``. Leases are three seconds. About 30 s on a quiet machine (two minutes at a
load average of 20 on two cores).

- ``c`` is killed (SIGKILL) with a hand running at each of its tables: they play again on
  ``a`` and ``b`` within the lease and a few seconds; the bots there follow their table to
  its new node (the lobby's ticket names it) and play on; the tournament's players follow
  theirs (the lobby's entry names it).
- ``b`` is frozen (SIGSTOP) past its lease: ``a`` takes its tables over; woken (SIGCONT) it
  writes nothing — its tables' owners and fencing numbers, and the hands it was playing, are
  as ``a`` left them — and it exits 1; its bots follow their tables to ``a``.
- The tournament plays on to a winner, paid.
- Everyone leaves: every chip is accounted for, to the chip. On the engine, the chips bought
  in are the stacks cashed out plus the rake; in the lobby, the wallets plus the house's
  rake and fees are what was granted, every escrow is empty, and the house's rake is the
  engine's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc
import httpx
from stud.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    table_service_pb2,
    table_service_pb2_grpc,
)

from benchmarks.processes import ReadyProcess, start_stud
from engine_server.auth import Scope, mint_token
from engine_server.store.migrate import prepare_database
from lobby_api.db import Database
from tests.clients.room import BotsProcess
from tests.engine_processes import start_engines
from tests.engine_server.api.conftest import SECRET, bearer
from tests.lobby_api.conftest import add_test_levels
from tests.lobby_api.support import Player, assert_ledger_consistent, register, rows, scalar
from tests.lobby_api.tournaments.support import random_act
from tests.outage import PrivatePostgres, free_port

#: the engines' lease: short, so that a dead node's tables come back quickly (two seconds
#: lost live nodes' leases on this shared machine at a load average of 25: renewals late)
LEASE = 3.0
#: how long after the kill every table of the dead node must have dealt a hand at a live one:
#: the lease runs out up to a lease after the last renewal, a survivor looks every sixth of
#: it, loads the tables, cancels their hands and deals after 0.2 s (slack for a loaded machine)
BOUND = LEASE + 5.0
GRANT = 10_000
ADMIN = bearer("ops", Scope.ADMIN)
OPS = {"Authorization": f"Bearer {mint_token(SECRET, 'ops', [Scope.ADMIN])}"}
#: a few quiet hands (the tables must still play when a node dies), then steep levels: six
#: random players end the tournament within a minute
STEEP = [
    {"ante": 1, "bring_in": 2, "small_bet": 4, "big_bet": 8, "hands": 6},
    {"ante": 4, "bring_in": 8, "small_bet": 16, "big_bet": 32, "hands": 4},
    {"ante": 20, "bring_in": 40, "small_bet": 80, "big_bet": 160, "hands": 3},
    {"ante": 200, "bring_in": 400, "small_bet": 800, "big_bet": 1600, "hands": 3},
]
STARTING = 200


@dataclass
class Node:
    name: str
    process: ReadyProcess
    grpc: str
    channel: grpc.aio.Channel
    admin: admin_service_pb2_grpc.AdminServiceStub


@dataclass
class Room:
    db: Database
    nodes: dict[str, Node]
    lobbies: list[str]
    logs: Path


@dataclass
class Watched:
    """Where each tournament player watched his seat: (table id, engine address), in order."""

    where: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


def lobby_env(url: str) -> dict[str, str]:
    return {
        **os.environ,
        "STUD_DATABASE_URL": url,
        "STUD_JWT_SECRET": SECRET,
        "STUD_LOG_FORMAT": "text",
        "STUD_LOG_LEVEL": "INFO",
        "STUD_LOBBY_PORT": str(free_port()),
        # Nothing listens there: every engine call goes where the node registry says.
        "STUD_LOBBY_ENGINE": "127.0.0.1:1",
        "STUD_LOBBY_SWEEP_SECONDS": "1",
        "STUD_LOBBY_LOGIN_RATE": "0",
        "STUD_LOBBY_MONEY_RATE": "0",
        "STUD_LOBBY_LOGIN_FAILURES": "0",
        "STUD_LOBBY_DB_POOL": "3",
    }


@contextlib.asynccontextmanager
async def card_room(tmp_path: Path) -> AsyncIterator[Room]:
    server = PrivatePostgres()
    processes: list[ReadyProcess] = []
    channels: list[grpc.aio.Channel] = []
    db: Database | None = None
    try:
        server.start()
        await prepare_database(server.url)
        db = Database.from_url(server.url, pool_size=2, max_overflow=2)
        await add_test_levels(db)
        # The lobbies first (they hold no lease), then the engines at once: five processes
        # starting together on a loaded machine starved the engines' lease renewals.
        for n in (1, 2):
            lobby = await start_stud(
                "lobby", env=lobby_env(server.url), log=tmp_path / f"lobby-{n}.log"
            )
            processes.append(lobby)
        engines = await start_engines(server.url, "abc", tmp_path, lease=LEASE, between_hands=0.2)
        processes += engines.values()
        nodes = {}
        for name, process in engines.items():
            channel = grpc.aio.insecure_channel(process.ready["grpc"])
            channels.append(channel)
            nodes[name] = Node(
                name,
                process,
                process.ready["grpc"],
                channel,
                admin_service_pb2_grpc.AdminServiceStub(channel),
            )
        lobbies = [process.ready["http"] for process in processes[:2]]
        yield Room(db, nodes, lobbies, tmp_path)
    finally:
        if db is not None:
            await db.dispose()
        for channel in channels:
            await channel.close()
        for process in reversed(processes):
            # A node left frozen (SIGSTOP) is woken first: stop() sends SIGCONT before SIGTERM.
            await process.stop()
        server.destroy()


async def until(check: Callable[[], Awaitable[Any]], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


async def owners(db: Database, table_ids: list[str]) -> dict[str, str]:
    found = await rows(db, "SELECT id, node_id FROM tables")
    return {r.id: r.node_id for r in found if r.id in table_ids}


async def running(db: Database, table_ids: list[str]) -> dict[str, str]:
    found = await rows(db, "SELECT table_id, id FROM hands WHERE state = 'running'")
    return {r.table_id: r.id for r in found if r.table_id in table_ids}


async def dealt_since(db: Database, table_ids: list[str], since: datetime) -> dict[str, datetime]:
    """For each table, when its first hand started after ``since``."""
    found = await rows(
        db,
        "SELECT table_id, MIN(started_at) AS first FROM hands WHERE started_at > :since "
        "GROUP BY table_id",
        since=since,
    )
    return {r.table_id: r.first for r in found if r.table_id in table_ids}


async def seats_connected(node: Node, table_id: str, player_ids: set[str]) -> bool:
    """Whether each of ``player_ids`` has his stream open at ``node``, the table's owner."""
    try:
        view = await node.admin.GetTable(
            admin_service_pb2.GetTableRequest(name=f"tables/{table_id}", reason="test"),
            metadata=ADMIN,
            timeout=5,
        )
    except grpc.aio.AioRpcError:
        return False
    numbers = {s.player_id: s.number for s in view.table.seats}
    connected = {s.number for s in view.snapshot.seats if s.connected}
    return all(p in numbers and numbers[p] in connected for p in player_ids)


async def open_quick_game(lobby: str, bots: BotsProcess, seated_before: int) -> dict[str, Any]:
    """A player of Oslo opens a quick game (he never connects: his clock acts for him); two
    bots sit in."""
    async with httpx.AsyncClient(base_url=lobby, timeout=30) as client:
        opener = await register(client, "oslo")
        opened = await opener.post(
            "/quickgame", {"stake_level": "t-fast", "buy_in": 200, "client_seed": "failover"}
        )
    assert opened.status_code == 201, opened.text
    game = dict(opened.json())
    game["opener"] = opener
    seated = await bots.wait_for("seated", seated_before + 2, timeout=60)
    assert {s["table"] for s in seated[seated_before:]} == {game["table_id"]}, seated
    game["bots"] = {s["bot"] for s in seated[seated_before:]}
    return game


async def tournament_player(
    lobby: str, player: Player, tournament_id: str, seed: int, watched: Watched
) -> None:
    """Plays his seat with random legal actions wherever the lobby's entry says it is served,
    asking the lobby again whenever his stream ends or fails, until he is out or it is over."""
    rng = random.Random(seed)
    trail = watched.where.setdefault(player.id, [])
    async with httpx.AsyncClient(base_url=lobby, timeout=30) as client:
        me_player = Player(client, player.id, player.username, player.city, player.token)
        while True:
            answer = await me_player.get(f"/tournaments/{tournament_id}/entries/me")
            assert answer.status_code == 200, answer.text
            me = answer.json()
            if me["status"] != "playing":
                return
            if not me.get("table_id") or not me.get("engine_grpc") or not me.get("token"):
                await asyncio.sleep(0.1)
                continue
            where = (me["table_id"], me["engine_grpc"])
            if not trail or trail[-1] != where:
                trail.append(where)
            table = f"tables/{me['table_id']}"
            metadata = (("authorization", f"Bearer {me['token']}"),)
            with contextlib.suppress(grpc.aio.AioRpcError):
                async with grpc.aio.insecure_channel(me["engine_grpc"]) as channel:
                    stub = table_service_pb2_grpc.TableServiceStub(channel)
                    stream = stub.WatchTable(
                        table_service_pb2.WatchTableRequest(table=table), metadata=metadata
                    )
                    async for message in stream:
                        snap = message.snapshot
                        if snap.viewer_seat == 0:
                            stream.cancel()  # out, or not seated here (yet): ask the lobby
                            break
                        if snap.turn_seat == snap.viewer_seat and snap.legal_actions:
                            request = random_act(table, snap, rng)
                            # A stale view is refused and changes nothing.
                            with contextlib.suppress(grpc.aio.AioRpcError):
                                await stub.Act(request, metadata=metadata, timeout=10)
            await asyncio.sleep(0.2)


async def start_tournament(
    room: Room, watched: Watched
) -> tuple[str, list[Player], list[asyncio.Task[None]]]:
    """Six players of Stockholm in a sit & go of two tables of three, and their play."""
    lobby = room.lobbies[0]
    async with httpx.AsyncClient(base_url=lobby, timeout=30) as client:
        made = await client.post(
            "/admin/tournaments",
            headers=OPS,
            json={
                "name": "Failover Sit & Go",
                "city": "stockholm",
                "buy_in": 100,
                "fee": 10,
                "starting_chips": STARTING,
                "max_players": 6,
                "table_size": 3,
                "levels": STEEP,
                "rule_overrides": {"action_seconds": 1},
            },
        )
        assert made.status_code == 201, made.text
        tournament_id = str(made.json()["id"])
        players = [await register(client, "stockholm") for _ in range(6)]
        for player in players:
            entered = await player.post(f"/tournaments/{tournament_id}/entries")
            assert entered.status_code == 201, entered.text
    playing = [
        asyncio.create_task(
            tournament_player(room.lobbies[n % 2], p, tournament_id, seed=n, watched=watched)
        )
        for n, p in enumerate(players)
    ]
    return tournament_id, players, playing


async def move_table(room: Room, table_id: str, to: str) -> None:
    """Ops move the table (between hands) to node ``to``, from whichever node has it."""
    owner = (await owners(room.db, [table_id]))[table_id]
    if owner == to:
        return
    moved = await room.nodes[owner].admin.MoveTable(
        admin_service_pb2.MoveTableRequest(name=f"tables/{table_id}", node=to),
        metadata=ADMIN,
        timeout=30,
    )
    assert moved.node == to


async def everyone_left(room: Room, games: list[dict[str, Any]]) -> None:
    for game in games:
        async with httpx.AsyncClient(base_url=room.lobbies[1], timeout=30) as client:
            opener: Player = game["opener"]
            me = Player(client, opener.id, opener.username, opener.city, opener.token)
            left = await me.post(f"/tables/{game['table_id']}/leave", idempotency=None)
            assert left.status_code in (200, 409), left.text

    async def settled() -> bool:
        open_sessions = await scalar(
            room.db, "SELECT count(*) FROM seat_sessions WHERE state <> 'closed'"
        )
        escrow = await scalar(
            room.db,
            "SELECT coalesce(sum(balance), 0) FROM ledger_accounts WHERE id LIKE 'escrow:%'",
        )
        unsettled = await scalar(
            room.db,
            "SELECT count(*) FROM lobby_seats WHERE state = 'seated' AND settled_at IS NULL",
        )
        return bool(open_sessions == 0 and escrow == 0 and unsettled == 0)

    await until(settled, 60, "every seat to be paid out")


async def chips_are_conserved(db: Database) -> None:
    """To the chip, on the engine's side and the lobby's."""
    states = await rows(db, "SELECT DISTINCT state FROM hands")
    assert {s.state for s in states} <= {"complete", "cancelled"}, states
    bought = await scalar(db, "SELECT coalesce(sum(chips_in), 0) FROM seat_sessions")
    cashed = await scalar(db, "SELECT coalesce(sum(stack), 0) FROM seat_sessions")
    rake = await scalar(db, "SELECT coalesce(sum(rake), 0) FROM hands WHERE state = 'complete'")
    assert bought == cashed + rake, (bought, cashed, rake)
    players = await scalar(db, "SELECT count(*) FROM players")
    wallets = await scalar(
        db, "SELECT coalesce(sum(balance), 0) FROM ledger_accounts WHERE id LIKE 'wallet:%'"
    )
    # The house's accounts but the issuer's (where granted chips come from: their negative).
    house = {
        r.id: r.balance
        for r in await rows(
            db,
            "SELECT id, balance FROM ledger_accounts WHERE id LIKE 'house:%' AND kind <> 'issuer'",
        )
    }
    assert house.get("house:rake", 0) == rake, (house, rake)
    assert wallets + sum(house.values()) == players * GRANT, (wallets, house, players)
    await assert_ledger_consistent(db)


async def hand_numbers_are_whole(db: Database) -> None:
    """Each table's hands are numbered 1, 2, … without a gap or a repeat."""
    found = await rows(db, "SELECT table_id, hand_number FROM hands ORDER BY table_id, hand_number")
    by_table: dict[str, list[int]] = {}
    for r in found:
        by_table.setdefault(r.table_id, []).append(r.hand_number)
    for table_id, numbers in by_table.items():
        assert numbers == list(range(1, len(numbers) + 1)), table_id


async def test_the_room_plays_through_a_killed_node_and_a_frozen_one(tmp_path: Path) -> None:
    async with card_room(tmp_path) as room:
        db, nodes = room.db, room.nodes
        bots = await BotsProcess.start(
            room.lobbies[1],
            "--cities",
            "oslo",
            "--per-city",
            "2",
            "--tables-per-bot",
            "3",
            "--stake",
            "t-fast",
            "--think",
            "0",
            "--idle-hands",
            "100000",
            "--reconnect-seconds",
            "60",
            "--seed",
            "15",
        )
        watched = Watched()
        playing: list[asyncio.Task[None]] = []
        try:
            await bots.wait_for("waiting", 6, timeout=60)
            # One quick game at a time: each goes to the node with the fewest seated players.
            games = []
            for n in range(3):
                games.append(await open_quick_game(room.lobbies[0], bots, 2 * n))
            cash = {g["table_id"]: g for g in games}
            placed = await owners(db, list(cash))
            assert sorted(placed.values()) == ["a", "b", "c"], placed

            tournament_id, _entrants, playing = await start_tournament(room, watched)
            tables = [f"{tournament_id}-1", f"{tournament_id}-2"]
            await until(lambda: _all_owned(db, tables), 60, "the tournament's tables")
            # Its tables on two nodes: one on the node to be killed, one on a survivor.
            await move_table(room, tables[0], "c")
            await move_table(room, tables[1], "a")
            on_c = [t for t, node in (await owners(db, [*cash, *tables])).items() if node == "c"]
            assert sorted(on_c) == sorted([*(t for t in cash if placed[t] == "c"), tables[0]])

            # kill -9 of c with a hand running at each of its tables (as far as timing allows).
            await until(lambda: _all_running(db, on_c), 30, "a hand running at c's tables")
            killed = datetime.now(UTC)
            await nodes["c"].process.kill_9()
            # A commit c sent just before it died may still land: read once it has.
            await asyncio.sleep(0.2)
            left_running = await running(db, on_c)  # c writes nothing more
            assert left_running
            again = await until(
                lambda: _all_dealt(db, on_c, killed), BOUND + 10, "c's tables dealing again"
            )
            took = {t: (when - killed).total_seconds() for t, when in again.items()}
            assert max(took.values()) < BOUND, took
            new_owners = await owners(db, on_c)
            assert set(new_owners.values()) <= {"a", "b"}, new_owners
            # The hands c left running were ended by the new owners: cancelled, every chip
            # back, or settled when c had stored the action that ended one but not its end.
            await _ended_on_takeover(db, list(left_running.values()))
            # The bots at c's quick table followed it to its new node and play there.
            c_game = next(g for g in games if placed[g["table_id"]] == "c")
            new_node = nodes[new_owners[c_game["table_id"]]]
            followed = await bots.wait_for("moved", 2, timeout=30)
            assert {(f["bot"], f["table"], f["engine"]) for f in followed} == {
                (bot, c_game["table_id"], new_node.grpc) for bot in c_game["bots"]
            }, followed
            bot_ids = await _player_ids(db, c_game["bots"])
            await until(
                lambda: seats_connected(new_node, c_game["table_id"], bot_ids),
                30,
                "the bots' streams at the new node",
            )
            assert not bots.named("left"), bots  # none gave its seat up

            # SIGSTOP of b past its lease: a takes its tables over; woken, b writes nothing.
            on_b = [t for t, n in (await owners(db, [*cash, *tables])).items() if n == "b"]
            assert on_b
            frozen = nodes["b"].process
            await until(lambda: _all_running(db, on_b), 30, "a hand running at b's tables")
            stopped_at = datetime.now(UTC)
            frozen.pause()
            await asyncio.sleep(0.1)
            frozen_hands = await running(db, on_b)
            assert frozen_hands
            await until(
                lambda: _all_dealt(db, on_b, stopped_at), BOUND + 10, "b's tables dealing again"
            )
            assert set((await owners(db, on_b)).values()) == {"a"}
            fenced = await _fenced_rows(db, on_b, list(frozen_hands.values()))
            frozen.resume()
            code = await frozen.wait(30)
            assert code == 1
            log = (room.logs / "engine-b.log").read_text()
            assert "stud engine: engine node 'b' stopped serving its tables" in log, log[-3000:]
            # Nothing of b's late writes landed: its tables' owners, fencing numbers and the
            # hands it was playing are as a left them (those hands: cancelled by a).
            assert await _fenced_rows(db, on_b, list(frozen_hands.values())) == fenced
            await _ended_on_takeover(db, list(frozen_hands.values()))
            node_b = await rows(db, "SELECT state FROM engine_nodes WHERE id = 'b'")
            assert node_b[0].state == "stopped"
            # The bots there followed them to a once b's streams ended (frozen, b held them
            # open: the bots keep no keepalive), the lobby's tickets naming a.
            for game in (g for g in games if g["table_id"] in on_b):
                ids = await _player_ids(db, game["bots"])
                await until(
                    lambda game=game, ids=ids: seats_connected(nodes["a"], game["table_id"], ids),
                    30,
                    "the bots' streams at a",
                )
                moved = {(f["bot"], f["engine"]) for f in bots.named("moved")}
                assert {(bot, nodes["a"].grpc) for bot in game["bots"]} <= moved, bots

            await tournament_finishes(room, tournament_id, tables[0], watched, playing)

            # Everyone leaves; every chip is accounted for.
            assert await bots.stop() == 0, bots
            # The bots kept their seats through both failures: each left as it stopped.
            assert {e["reason"] for e in bots.named("left")} == {"stopped"}, bots
            await everyone_left(room, games)
        finally:
            for task in playing:
                task.cancel()
            await asyncio.gather(*playing, return_exceptions=True)
            if bots.process.returncode is None:
                bots.process.kill()
                await bots.process.wait()
        await chips_are_conserved(db)
        await hand_numbers_are_whole(db)
        assert not [e for e in bots.named("error") if "stream" in e.get("detail", "")], bots


async def tournament_finishes(
    room: Room,
    tournament_id: str,
    table_on_c: str,
    watched: Watched,
    playing: list[asyncio.Task[None]],
) -> None:
    """The tournament plays on to a winner, paid; its players at the killed node's table
    followed it."""
    await until(lambda: _tournament_over(room.db, tournament_id), 150, "the tournament to finish")
    await asyncio.wait_for(asyncio.gather(*playing), 30)
    # Its players at the killed node's table followed it there (the lobby's entry
    # named c until a survivor had taken it over, then the survivor).
    dead = room.nodes["c"].grpc
    survivors = {room.nodes["a"].grpc, room.nodes["b"].grpc}
    followers = [
        trail
        for trail in watched.where.values()
        if (table_on_c, dead) in trail
        and any(
            t == table_on_c and address in survivors
            for t, address in trail[trail.index((table_on_c, dead)) :]
        )
    ]
    assert followers, watched.where
    prizes = await scalar(
        room.db,
        "SELECT coalesce(sum(prize), 0) FROM tournament_entries WHERE tournament_id = :t",
        t=tournament_id,
    )
    assert prizes == 600


async def _all_owned(db: Database, table_ids: list[str]) -> dict[str, str] | None:
    found = await owners(db, table_ids)
    return found if len(found) == len(table_ids) else None


async def _all_running(db: Database, table_ids: list[str]) -> dict[str, str] | None:
    found = await running(db, table_ids)
    return found if len(found) == len(table_ids) else None


async def _all_dealt(
    db: Database, table_ids: list[str], since: datetime
) -> dict[str, datetime] | None:
    found = await dealt_since(db, table_ids, since)
    return found if len(found) == len(table_ids) else None


async def _player_ids(db: Database, usernames: set[str]) -> set[str]:
    found = await rows(db, "SELECT id, username FROM players")
    return {r.id for r in found if r.username in usernames}


async def _ended_on_takeover(db: Database, hand_ids: list[str]) -> None:
    """The hands a lost node left running were ended by their tables' new owners: cancelled,
    every chip back, or settled when the lost node had stored the action that ended one but
    not the hand's end (docs/operations.md, "Crashes")."""
    ended = {
        r.id: (r.state, r.result)
        for r in await rows(db, "SELECT id, state, result FROM hands")
        if r.id in hand_ids
    }
    assert set(ended) == set(hand_ids), ended
    for hand_id, (state, result) in ended.items():
        result = json.loads(result) if isinstance(result, str) else result
        trail = result["trail"]
        if state == "complete":
            assert "they had ended the hand, which was settled then" in trail, (hand_id, result)
        else:
            assert state == "cancelled", (hand_id, state)
            assert result["cancelled"] is True, (hand_id, result)
            assert "when the engine restarted" in trail, (hand_id, result)
            assert "did not replay" not in trail, (hand_id, result)


async def _fenced_rows(
    db: Database, table_ids: list[str], hand_ids: list[str]
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """What a frozen node must not change: its tables' owners and fencing numbers, and the
    hands it was playing (state, when ended)."""
    tables = sorted(
        (r.id, r.node_id, r.owner_epoch)
        for r in await rows(db, "SELECT id, node_id, owner_epoch FROM tables")
        if r.id in table_ids
    )
    hands = sorted(
        (r.id, r.ended_at, r.state)
        for r in await rows(db, "SELECT id, ended_at, state FROM hands")
        if r.id in hand_ids
    )
    return tables, hands


async def _tournament_over(db: Database, tournament_id: str) -> bool:
    status = await scalar(db, "SELECT status FROM tournaments WHERE id = :t", t=tournament_id)
    return bool(status == "finished")
