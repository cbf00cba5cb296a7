"""The lobby over several engine nodes sharing its database (SQLite and PostgreSQL).

The lobby's own engine address (STUD_LOBBY_ENGINE) points where nothing listens, so every
call that works went to the node the registry names: quick games are spread over the live
nodes, players reach their table at the address they were given, and the lobby's later
calls (seating a ticket, leaving, closing the table) go to the table's owner.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import httpx
import pytest
import sqlalchemy as sa
from sqlalchemy import event
from stud.v1 import admin_service_pb2, table_service_pb2, table_service_pb2_grpc

from lobby_api.db import Database
from lobby_api.engine_client import EngineClient
from lobby_api.engine_nodes import TableEngines
from lobby_api.settings import LobbySettings
from tests.engine_server.api.conftest import Engine, launch, shut
from tests.lobby_api.conftest import add_test_levels, build_app, running
from tests.lobby_api.support import Player, register, rows, scalar

#: leases of three seconds: on a loaded machine a node late with a one second renewal would be
#: taken for dead and its tables taken over, which these tests are not about
LEASE = 3.0


@pytest.fixture
def fresh_database() -> None:
    """Asked for so that the test gets a database of its own (see conftest.database_url)."""


@pytest.fixture
async def nodes(database_url: str, fresh_database: None) -> AsyncIterator[dict[str, Engine]]:
    started: dict[str, Engine] = {}
    try:
        for node_id in ("a", "b"):
            started[node_id] = await launch(database_url, node_id=node_id, lease_seconds=LEASE)
        yield started
    finally:
        for engine in started.values():
            await shut(engine)


@pytest.fixture
async def lobby(settings: LobbySettings) -> AsyncIterator[tuple[httpx.AsyncClient, Database]]:
    app = build_app(settings)  # STUD_LOBBY_ENGINE: nothing listens there
    async with running(app):
        await add_test_levels(app.state.db)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://lobby") as http:
            yield http, app.state.db
    await app.state.engine.close()


def quick(seed: str, stake_level: str = "t-austria") -> dict[str, object]:
    return {"stake_level": stake_level, "buy_in": 100, "client_seed": seed}


async def first_view(address: str, table: str, token: str) -> table_service_pb2.TableSnapshot:
    """The player's first view of his table, read at ``address`` (what he was given)."""
    async with grpc.aio.insecure_channel(address) as channel:
        stream = table_service_pb2_grpc.TableServiceStub(channel).WatchTable(
            table_service_pb2.WatchTableRequest(table=table),
            metadata=(("authorization", f"Bearer {token}"),),
        )
        first = await stream.read()
        stream.cancel()
    snapshot: table_service_pb2.TableSnapshot = first.snapshot
    return snapshot


async def owner(db: Database, table_id: str) -> str:
    return str(await scalar(db, "SELECT node_id FROM tables WHERE id = :t", t=table_id))


async def test_quick_games_are_spread_over_the_live_nodes_and_calls_follow_the_owner(
    nodes: dict[str, Engine], lobby: tuple[httpx.AsyncClient, Database], city: str
) -> None:
    client, db = lobby
    players = [await register(client, city) for _ in range(4)]
    games = []
    for number, player in enumerate(players[:3]):
        answer = await player.post("/quickgame", quick(f"seed_{number}"))
        assert answer.status_code == 201, answer.text
        games.append(answer.json())
    # Fewest open tables first, ties by node id: a, b, then a again.
    where = [await owner(db, g["table_id"]) for g in games]
    assert where == ["a", "b", "a"]
    for game, node_id in zip(games, where, strict=True):
        engine = nodes[node_id]
        assert (game["engine_grpc"], game["engine_grpc_web"]) == (
            engine.grpc_address,
            engine.web_url,
        )
        view = await first_view(game["engine_grpc"], game["table"], game["token"])
        assert view.table == game["table"]
        assert [s.number for s in view.seats] == [game["seat"]]

    # A ticket is seated at the oldest table with room (on a) and told a's addresses.
    sitter: Player = players[3]
    ticket = await sitter.post("/tickets", {"stake_level": "t-austria", "buy_in": 100})
    assert ticket.status_code == 201, ticket.text
    placed = ticket.json()
    assert (placed["status"], placed["table_id"]) == ("seated", games[0]["table_id"])
    assert (placed["engine_grpc"], placed["engine_grpc_web"]) == (
        nodes["a"].grpc_address,
        nodes["a"].web_url,
    )
    seated = await nodes["a"].admin.GetTable(
        admin_service_pb2.GetTableRequest(name=placed["table"], reason="test"),
        metadata=nodes["a"].admin_md,
    )
    assert sorted(s.player_id for s in seated.table.seats) == sorted([players[0].id, sitter.id])

    # Leaving b's table: RemovePlayer at b, the wallet credited, the empty table closed at b.
    left = await players[1].post(f"/tables/{games[1]['table_id']}/leave", idempotency=None)
    assert left.status_code == 200, left.text
    assert left.json()["state"] == "closed"
    assert await players[1].balance() == 10_000
    status = await rows(db, "SELECT status FROM tables WHERE id = :t", t=games[1]["table_id"])
    assert status[0][0] == "closed"

    # A draining node gets no new table, though it has fewer.
    await nodes["b"].admin.Drain(admin_service_pb2.DrainRequest(), metadata=nodes["b"].admin_md)
    state = await scalar(db, "SELECT state FROM engine_nodes WHERE id = 'b'")
    assert state == "draining"
    late = await register(client, city)
    answer = await late.post("/quickgame", quick("seed_late"))
    assert answer.status_code == 201, answer.text
    assert await owner(db, answer.json()["table_id"]) == "a"


async def test_with_no_live_node_the_lobby_falls_back_to_its_own_engine_address(
    nodes: dict[str, Engine],
    lobby: tuple[httpx.AsyncClient, Database],
    settings: LobbySettings,
    city: str,
) -> None:
    client, db = lobby
    for engine in nodes.values():
        await engine.admin.Drain(admin_service_pb2.DrainRequest(), metadata=engine.admin_md)
    engines = TableEngines(db, EngineClient(settings.engine_grpc, settings.jwt_secret), settings)
    async with db.read() as session:
        assert await engines.choose(session) is None
    route = await engines.route("no-such-table")
    assert (route.node_id, route.client.address) == (None, settings.engine_grpc)
    assert (route.grpc, route.web) == (settings.engine_grpc_public, settings.engine_grpc_web)
    # A quick game now waits for STUD_LOBBY_ENGINE (where nothing listens here), as before
    # nodes existed: its table names no node, and no node got it.
    player = await register(client, city)
    answer = await player.post("/quickgame", quick("seed_fallback"))
    assert answer.status_code == 503, answer.text
    chosen = await rows(
        db, "SELECT node_id FROM quick_tables WHERE opener_player_id = :p", p=player.id
    )
    assert [tuple(r) for r in chosen] == [(None,)]
    assert all(engine.server.manager.tables == {} for engine in nodes.values())
    await engines.close()
    await engines.default.close()


async def test_with_one_live_node_a_placement_counts_nothing(
    nodes: dict[str, Engine], lobby: tuple[httpx.AsyncClient, Database], settings: LobbySettings
) -> None:
    """One live node is the least loaded without a count: the placement reads the live
    nodes and nothing else (no load counted, no placement lock); with two it counts."""
    _client, db = lobby
    sent: list[str] = []

    def record(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        sent.append(statement)

    engines = TableEngines(db, EngineClient(settings.engine_grpc, settings.jwt_secret), settings)
    event.listen(db.engine.sync_engine, "before_cursor_execute", record)
    try:
        async with db.write() as session:
            assert await engines.choose(session) == "a"  # a and b live: fewest tables, by id
            assert await engines.spread(session, [3, 3]) == ["a", "b"]
        assert any("count(" in s for s in sent) and any("tables" in s for s in sent)
        await nodes["b"].admin.Drain(admin_service_pb2.DrainRequest(), metadata=nodes["b"].admin_md)
        sent.clear()
        async with db.write() as session:
            assert await engines.choose(session) == "a"
            assert await engines.spread(session, [3, 3]) == ["a", "a"]
        chosen = [s for s in sent if s.lstrip().upper().startswith("SELECT")]
        assert len(chosen) == 2 and all("engine_nodes" in s for s in chosen), sent
        assert not any("count(" in s or "advisory" in s for s in sent), sent
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", record)
        await engines.close()
        await engines.default.close()


async def test_a_tournaments_tables_are_spread_over_the_live_nodes(
    nodes: dict[str, Engine],
    lobby: tuple[httpx.AsyncClient, Database],
    settings: LobbySettings,
) -> None:
    # A draw of five tables (a tournament of 34): each goes to the node with the fewest
    # players once the tables chosen before it are counted, not all to one node.
    _client, db = lobby
    engines = TableEngines(db, EngineClient(settings.engine_grpc, settings.jwt_secret), settings)
    async with db.write() as session:
        chosen = await engines.spread(session, [7, 7, 7, 7, 6])
    assert chosen == ["a", "b", "a", "b", "a"]
    # A draining node gets none of them.
    await nodes["b"].admin.Drain(admin_service_pb2.DrainRequest(), metadata=nodes["b"].admin_md)
    async with db.write() as session:
        assert await engines.spread(session, [7, 7]) == ["a", "a"]
    await engines.close()
    await engines.default.close()


async def test_the_lobbys_answers_name_the_node_serving_the_table_now(
    nodes: dict[str, Engine], lobby: tuple[httpx.AsyncClient, Database], city: str
) -> None:
    client, db = lobby
    # The fast clock: the seated ticket starts a hand at once, and the move waits for it to
    # end; nobody acts, so at the 30 s clock it waited out two timeouts (a minute).
    opener, sitter = await register(client, city), await register(client, city)
    opened = await opener.post("/quickgame", quick("seed_moving", "t-fast"), idempotency="open-1")
    assert opened.status_code == 201, opened.text
    game = opened.json()
    assert await owner(db, game["table_id"]) == "a"
    ticket = await sitter.post(
        "/tickets", {"stake_level": "t-fast", "buy_in": 100}, idempotency="ticket-1"
    )
    assert ticket.status_code == 201, ticket.text
    assert ticket.json()["table_id"] == game["table_id"]
    assert ticket.json()["engine_grpc"] == nodes["a"].grpc_address
    where = f"/tables/{game['table_id']}"
    table = await opener.get(where)
    assert table.status_code == 200, table.text
    assert (table.json()["engine_grpc"], table.json()["engine_grpc_web"]) == (
        nodes["a"].grpc_address,
        nodes["a"].web_url,
    )

    # The table moves to b (between hands).
    await nodes["a"].server.manager.move(game["table_id"], "b")
    assert await owner(db, game["table_id"]) == "b"
    here = (nodes["b"].grpc_address, nodes["b"].web_url)
    # Where a client whose node stopped answering asks: his table's node now, for each
    # player at it (the opener's and the ticket's).
    for player in (opener, sitter):
        table = await player.get(where)
        assert table.status_code == 200, table.text
        assert (table.json()["engine_grpc"], table.json()["engine_grpc_web"]) == here
    # Retries get their stored answers, with the addresses of the node serving it now.
    again = await opener.post("/quickgame", quick("seed_moving", "t-fast"), idempotency="open-1")
    assert again.status_code == 201, again.text
    assert again.headers["Idempotent-Replayed"] == "true"
    assert (again.json()["engine_grpc"], again.json()["engine_grpc_web"]) == here
    assert again.json()["seat_session_id"] == game["seat_session_id"]
    ticket_again = await sitter.post(
        "/tickets", {"stake_level": "t-fast", "buy_in": 100}, idempotency="ticket-1"
    )
    assert ticket_again.status_code == 201, ticket_again.text
    assert (ticket_again.json()["engine_grpc"], ticket_again.json()["engine_grpc_web"]) == here
    polled = await sitter.get(f"/tickets/{ticket.json()['id']}")
    assert (polled.json()["engine_grpc"], polled.json()["engine_grpc_web"]) == here
    # The player reaches his table there; the lobby's calls go there too (he leaves at b).
    async with asyncio.timeout(LEASE * 3):
        while game["table_id"] not in nodes["b"].server.manager.tables:
            await asyncio.sleep(0.05)
    view = await first_view(again.json()["engine_grpc"], game["table"], again.json()["token"])
    assert sorted(s.player_id for s in view.seats) == sorted([opener.id, sitter.id])
    left = await sitter.post(f"/tables/{game['table_id']}/leave", idempotency=None)
    assert left.status_code == 200, left.text
    # Paid out at once, or after the hand he is dealt into (the two of them deal on there).
    assert left.json()["state"] in ("closed", "leaving")


@pytest.mark.many_connections
async def test_quick_games_opened_at_once_through_two_lobbies_spread_evenly(
    database_url: str, fresh_database: None, settings: LobbySettings, city: str
) -> None:
    started = []
    try:
        first, second = build_app(settings), build_app(settings)
        async with running(first), running(second):
            await add_test_levels(first.state.db)
            async with (
                httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=first), base_url="http://lobby-1"
                ) as one,
                httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=second), base_url="http://lobby-2"
                ) as two,
            ):
                # Registered before the engines start: password hashing holds this one loop
                # (the engines' too, here) long enough for a lease to run out.
                players = await asyncio.gather(
                    *(register(one if n % 2 else two, city) for n in range(50))
                )
                # Long leases: 50 quick games at once on this one loop (two lobbies, three
                # engines, SQLite's one writer) delay renewals by seconds; a node taken for
                # dead would hand its tables to the others, which is not this test's subject.
                for node_id in ("a", "b", "c"):
                    started.append(await launch(database_url, node_id=node_id, lease_seconds=15))

                async def open_game(n: int, player: Player) -> httpx.Response:
                    # A 503 (an engine slow to answer on this loaded machine) is retried with
                    # the same key, as clients are told to.
                    for _ in range(10):
                        answer = await player.post(
                            "/quickgame", quick(f"seed_{n}"), idempotency=f"open-{n}"
                        )
                        if answer.status_code != 503:
                            break
                        await asyncio.sleep(0.5)
                    return answer

                answers = await asyncio.gather(*(open_game(n, p) for n, p in enumerate(players)))
                assert [a.status_code for a in answers] == [201] * 50, [
                    a.text for a in answers if a.status_code != 201
                ]
                counts = {
                    node: int(
                        await scalar(
                            first.state.db,
                            "SELECT COUNT(*) FROM tables WHERE node_id = :n AND status <> 'closed'",
                            n=node,
                        )
                    )
                    for node in "abc"
                }
            await first.state.engine.close()
            await second.state.engine.close()
        # Each choice saw every earlier one: within one table of even (17, 17, 16).
        assert sum(counts.values()) == 50
        assert max(counts.values()) - min(counts.values()) <= 1, counts
    finally:
        for engine in started:
            await shut(engine)


async def test_routes_are_remembered_and_a_stale_one_corrects_itself(
    nodes: dict[str, Engine],
    lobby: tuple[httpx.AsyncClient, Database],
    settings: LobbySettings,
    city: str,
) -> None:
    client, db = lobby
    player = await register(client, city)
    answer = await player.post("/quickgame", quick("seed_remembered"))
    assert answer.status_code == 201, answer.text
    table_id = answer.json()["table_id"]
    node_id = await owner(db, table_id)
    address = await scalar(db, "SELECT admin_address FROM engine_nodes WHERE id = :n", n=node_id)
    sent: list[str] = []

    def record(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        sent.append(statement)

    for engine in {db.engine.sync_engine, db._lone_reads.sync_engine}:
        event.listen(engine, "before_cursor_execute", record)
    engines = TableEngines(db, EngineClient(settings.engine_grpc, settings.jwt_secret), settings)
    assert [s.player_id for s in await engines.list_seat_sessions(table_id)] == [player.id]
    assert sent  # the route was read once ...
    sent.clear()
    assert [s.player_id for s in await engines.list_seat_sessions(table_id)] == [player.id]
    assert sent == []  # ... and remembered
    route = await engines.route(table_id)
    assert (route.node_id, route.client.address) == (node_id, address)

    # Another lobby remembers the node at addresses where nothing listens any more (the
    # node moved); the registry names the right ones. Its call finds them and goes there.
    moved = "UPDATE engine_nodes SET admin_address = :a WHERE id = :n"
    await db.execute_write(sa.text(moved).bindparams(a="127.0.0.1:1", n=node_id))
    stale = TableEngines(db, EngineClient(settings.engine_grpc, settings.jwt_secret), settings)
    stale.expect(table_id, node_id)
    assert (await stale.route(table_id)).client.address == "127.0.0.1:1"
    await db.execute_write(sa.text(moved).bindparams(a=address, n=node_id))
    assert [s.player_id for s in await stale.list_seat_sessions(table_id)] == [player.id]
    assert (await stale.route(table_id)).client.address == address
    for made in (engines, stale):
        await made.close()
        await made.default.close()
