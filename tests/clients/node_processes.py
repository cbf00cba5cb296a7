"""A card room whose engine nodes are real ``stud engine`` processes, so that a test can kill
one (SIGKILL: it says nothing, its streams just break) and watch its clients find their
table at the node that takes it over (issue 15).

Two nodes (``a`` and ``b``) with short leases share a PostgreSQL database of the test's own
(on ``$STUD_TEST_POSTGRES_URL``'s server, dropped at the end) with the lobby, which runs in
the test's event loop (uvicorn, with the test stake levels). The lobby's own engine address
points where nothing listens: every engine call and every address it gives players comes
from the node registry, as in a room of several nodes.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg2
import sqlalchemy as sa
from litestar import Litestar
from sqlalchemy.engine import make_url

from benchmarks.processes import ReadyProcess
from engine_server.store.migrate import prepare_database
from lobby_api.settings import LobbySettings
from tests.clients.room import serve_lobby
from tests.engine_processes import start_engines
from tests.engine_server.api.conftest import POSTGRES_URL, SECRET
from tests.lobby_api.conftest import add_test_levels, build_app
from tests.postgres import postgres_unreachable

__all__ = ["LEASE", "NodesRoom", "nodes_room"]

#: The nodes' lease: short, so that a dead node's tables come back soon; not shorter (three
#: seconds lost live nodes' leases again and again on this shared machine at a load of 30).
LEASE = 6.0
#: How long an engine process may take to start (a minute at a load average of 30).
START_SECONDS = 180.0


@dataclass
class NodesRoom:
    #: node id -> its process (``ready``: its ``grpc`` address and ``web`` URL)
    nodes: dict[str, ReadyProcess]
    app: Litestar
    lobby_url: str
    database_url: str

    def grpc(self, node: str) -> str:
        return str(self.nodes[node].ready["grpc"])

    def web(self, node: str) -> str:
        return str(self.nodes[node].ready["web"])

    async def owner(self, table_id: str) -> str | None:
        """The node that owns the table now, as the database says."""
        rows = await self.app.state.db.fetch(
            sa.text("SELECT node_id FROM tables WHERE id = :t"), {"t": table_id}
        )
        return str(rows[0][0]) if rows and rows[0][0] is not None else None

    async def hands_started(self, table_id: str) -> int:
        rows = await self.app.state.db.fetch(
            sa.text("SELECT hands_started FROM tables WHERE id = :t"), {"t": table_id}
        )
        return int(rows[0][0]) if rows else 0

    async def kill(self, node: str) -> None:
        """SIGKILL: no clean stop, no TABLE_MOVED to anyone."""
        await self.nodes[node].kill_9()

    async def taken_over(self, table_id: str, dead: str, timeout: float) -> str:
        """Wait until another node owns the table (the dead node's lease ran out); its id."""
        async with asyncio.timeout(timeout):
            while (owner := await self.owner(table_id)) in (dead, None):
                await asyncio.sleep(0.1)
        assert owner is not None
        return owner


@asynccontextmanager
async def _database() -> AsyncIterator[str]:
    try:
        admin = psycopg2.connect(POSTGRES_URL, connect_timeout=3)
    except psycopg2.OperationalError as error:
        postgres_unreachable(POSTGRES_URL, error)
    admin.autocommit = True
    name = f"stud_test_nodes_room_{os.getpid()}_{secrets.token_hex(3)}"
    try:
        with admin.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}"')
        url = make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
        await prepare_database(url)
        yield url
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@asynccontextmanager
async def nodes_room(tmp_path: Path, *, token_seconds: int = 15 * 60) -> AsyncIterator[NodesRoom]:
    async with _database() as url:
        processes: dict[str, ReadyProcess] = {}
        app: Litestar | None = None
        try:
            # Started with up to START_SECONDS: on this shared machine at a load average of 30
            # a Python process took a minute to import.
            processes = await start_engines(
                url, "ab", tmp_path, lease=LEASE, between_hands=1.0, timeout=START_SECONDS
            )
            settings = LobbySettings(
                database_url=url,
                jwt_secret=SECRET,
                sweep_seconds=1,
                login_rate_per_minute=0,
                money_rate_per_minute=0,
                token_seconds=token_seconds,
                db_pool_size=3,
            )
            # Nothing listens at the lobby's own engine address: the registry names the nodes.
            app = build_app(
                settings,
                engine_grpc="127.0.0.1:9",
                engine_grpc_public="127.0.0.1:9",
                engine_grpc_web="http://127.0.0.1:9",
            )
            async with serve_lobby(app) as lobby_url:
                await add_test_levels(app.state.db)
                yield NodesRoom(processes, app, lobby_url, url)
        finally:
            if app is not None:
                await app.state.engine.close()
            for process in processes.values():
                await process.stop()
