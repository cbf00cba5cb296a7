"""A real engine on loopback (gRPC + Connect) over a fresh SQLite file, and real clients."""

from __future__ import annotations

import asyncio
import atexit
import os
import secrets
import shutil
import tempfile
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import psycopg2
import pytest
from google.protobuf import struct_pb2
from sqlalchemy.engine import make_url
from stud.v1 import admin_service_pb2, admin_service_pb2_grpc, settings_pb2, table_service_pb2_grpc

from engine_server.auth import Scope, mint_token
from engine_server.server import EngineServer, start_engine
from engine_server.settings import EngineSettings
from engine_server.store.adapter import open_store
from engine_server.store.migrate import upgrade_to_head
from engine_server.store.models import DEFAULT_NODE_ID
from tests.postgres import postgres_unreachable

SECRET = "test-secret-" + "x" * 40
#: The PostgreSQL server of the tests that run on both backends (test_nodes' database_url).
POSTGRES_URL = os.environ.get("STUD_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


def bearer(
    subject: str, *scopes: Scope, secret: str = SECRET, ttl: int = 3600
) -> tuple[tuple[str, str]]:
    return (("authorization", "Bearer " + mint_token(secret, subject, scopes, ttl_seconds=ttl)),)


@dataclass
class Engine:
    """The engine under test and the clients to drive it."""

    server: EngineServer
    database_url: str
    channel: grpc.aio.Channel
    admin: admin_service_pb2_grpc.AdminServiceStub
    tables: table_service_pb2_grpc.TableServiceStub
    admin_md: tuple[tuple[str, str]] = field(default_factory=lambda: bearer("ops", Scope.ADMIN))

    @property
    def grpc_address(self) -> str:
        return f"127.0.0.1:{self.server.grpc_port}"

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.server.web_port}"

    def player_md(self, player_id: str) -> tuple[tuple[str, str]]:
        return bearer(player_id, Scope.PLAYER)

    async def create_table(
        self,
        table_id: str = "t1",
        *,
        profile: str = "house",
        stakes: tuple[int, int, int, int] = (1, 1, 2, 4),
        overrides: dict[str, Any] | None = None,
        min_buy_in: int = 10,
        max_buy_in: int = 10_000,
        client_seed: str = "alice",
    ) -> admin_service_pb2.CreateTableResponse:
        rule_overrides = struct_pb2.Struct()
        rule_overrides.update(overrides or {})
        ante, bring_in, small, big = stakes
        return await self.admin.CreateTable(
            admin_service_pb2.CreateTableRequest(
                request_id=f"create-{table_id}",
                table_id=table_id,
                profile=profile,
                rule_overrides=rule_overrides,
                stakes=settings_pb2.Stakes(
                    ante=ante, bring_in=bring_in, small_bet=small, big_bet=big
                ),
                min_buy_in=min_buy_in,
                max_buy_in=max_buy_in,
                client_seed=client_seed,
            ),
            metadata=self.admin_md,
        )

    async def seat(
        self, table_id: str, player_id: str, buy_in: int = 100, seat: int = 0
    ) -> admin_service_pb2.SeatPlayerResponse:
        return await self.admin.SeatPlayer(
            admin_service_pb2.SeatPlayerRequest(
                table=f"tables/{table_id}",
                seat_session_id=f"ss-{player_id}-{uuid.uuid4().hex[:8]}",
                player_id=player_id,
                display_name=player_id.upper(),
                seat=seat,
                buy_in=buy_in,
            ),
            metadata=self.admin_md,
        )


_template_lock = threading.Lock()
_template_dir: list[Path] = []


def _migrated_template() -> Path:
    """A SQLite file migrated to head once per test process (removed at its exit)."""
    with _template_lock:
        if not _template_dir:
            directory = Path(tempfile.mkdtemp(prefix="stud-engine-template-"))
            atexit.register(shutil.rmtree, directory, ignore_errors=True)
            upgrade_to_head(f"sqlite:///{directory}/template.sqlite3")
            _template_dir.append(directory)
        return _template_dir[0] / "template.sqlite3"


async def fresh_sqlite(database_url: str) -> None:
    """A SQLite file that does not exist yet becomes a copy of one migrated once: running the
    migrations takes a second or more, for every test that starts an engine."""
    if not database_url.startswith("sqlite:///"):
        return
    target = Path(database_url.removeprefix("sqlite:///"))
    if target.exists():
        return
    template = await asyncio.to_thread(_migrated_template)
    for suffix in ("", "-wal"):
        if Path(f"{template}{suffix}").exists():
            shutil.copy(f"{template}{suffix}", f"{target}{suffix}")


async def launch(database_url: str, **overrides: Any) -> Engine:
    await fresh_sqlite(database_url)
    directory, store, close_store = await open_store(
        database_url, overrides.get("node_id", DEFAULT_NODE_ID)
    )
    settings = EngineSettings(
        database_url=database_url,
        jwt_secret=SECRET,
        grpc_port=0,
        web_port=0,
        between_hands_seconds=overrides.pop("between_hands_seconds", 0.05),
        # Any free port: engines of concurrent test runs must not meet on the default 9464.
        metrics_port=overrides.pop("metrics_port", 0),
        **overrides,
    )
    server = await start_engine(settings, directory=directory, store=store)
    server._close_store = close_store  # type: ignore[attr-defined]
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc_port}")
    return Engine(
        server,
        database_url,
        channel,
        admin_service_pb2_grpc.AdminServiceStub(channel),
        table_service_pb2_grpc.TableServiceStub(channel),
    )


async def shut(engine: Engine) -> None:
    await engine.channel.close()
    await engine.server.stop(0.1)
    await engine.server._close_store()  # type: ignore[attr-defined]


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[Engine]:
    running = await launch(f"sqlite:///{tmp_path}/engine.sqlite3")
    try:
        yield running
    finally:
        await shut(running)


@pytest.fixture(scope="session")
def postgres_engine_template() -> Iterator[str]:
    """A database migrated once per session: each test's is a copy (the migrations take a
    second or more)."""
    try:
        admin = psycopg2.connect(POSTGRES_URL, connect_timeout=3)
    except psycopg2.OperationalError as error:
        postgres_unreachable(POSTGRES_URL, error)
    admin.autocommit = True
    name = f"stud_test_engine_tmpl_{os.getpid()}_{secrets.token_hex(3)}"
    with admin.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    try:
        upgrade_to_head(make_url(POSTGRES_URL).set(database=name).render_as_string(False))
        yield name
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
