"""Running the engine: health and reflection without a token, schema checks, restarts.

``stud engine`` itself is run as a subprocess for what only the command line
shows (its exit status, its one-line message, its ready line); the rest uses
an engine in this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import grpc
import httpx
import pytest
import pytest_asyncio
from google.protobuf import struct_pb2
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from stud.v1 import admin_service_pb2, settings_pb2

from benchmarks.processes import STUD, start_stud
from engine_server.store.migrate import head_revisions, prepare_database
from lobby_api.cli.ports import port_of as run_port_of
from tests.engine_server.api.conftest import SECRET, Engine, launch, shut
from tests.ipv6 import needs_ipv6_loopback

pytestmark = pytest.mark.asyncio(loop_scope="module")

#: ``stud engine`` on ports the system picks (its ready line names them).
ANY_PORTS = ("--grpc-port", "0", "--web-port", "0")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    directory: Path = tmp_path_factory.mktemp("ops")
    running = await launch(f"sqlite:///{directory}/engine.sqlite3")
    try:
        yield running
    finally:
        await shut(running)


def revisions(path: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return [row[0] for row in db.execute("SELECT version_num FROM alembic_version")]


def engine_env(database: Path) -> dict[str, str]:
    return {
        **os.environ,
        "STUD_DATABASE_URL": f"sqlite:///{database}",
        "STUD_JWT_SECRET": SECRET,
        "STUD_ENGINE_HOST": "127.0.0.1",
        "STUD_ENGINE_METRICS_PORT": "0",
        "STUD_LOG_FORMAT": "text",
        "STUD_LOG_LEVEL": "WARNING",
    }


# ------------------------------------------------------- health, reflection


async def test_health_answers_without_a_token(engine: Engine) -> None:
    health = health_pb2_grpc.HealthStub(engine.channel)
    for service in ("", "stud.v1.TableService", "stud.v1.AdminService"):
        answer = await health.Check(health_pb2.HealthCheckRequest(service=service))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING, service
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await health.Check(health_pb2.HealthCheckRequest(service="stud.v1.NoSuchService"))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


async def test_reflection_lists_the_services_without_a_token(engine: Engine) -> None:
    def reflect() -> tuple[list[str], list[str], list[str]]:
        # The reflection client is synchronous: it runs on a worker thread, off the loop
        # that serves it.
        with grpc.insecure_channel(engine.grpc_address) as channel:
            database = ProtoReflectionDescriptorDatabase(channel)
            pool = DescriptorPool(database)
            tables = pool.FindServiceByName("stud.v1.TableService")
            admin = pool.FindServiceByName("stud.v1.AdminService")
            return (
                list(database.get_services()),
                [m.name for m in tables.methods],
                [m.name for m in admin.methods],
            )

    services, table_methods, admin_methods = await asyncio.to_thread(reflect)
    assert {"stud.v1.TableService", "stud.v1.AdminService"} <= set(services)
    assert {"WatchTable", "Act", "Play", "Leave", "SitOut", "SitIn", "ShowCards"} == set(
        table_methods
    )
    assert {"CreateTable", "GetTable", "Drain", "RotateSeed"} <= set(admin_methods)


# ------------------------------------------------------------------ schema


async def test_stud_engine_refuses_a_database_newer_than_itself(tmp_path: Path) -> None:
    database = tmp_path / "newer.sqlite3"
    await prepare_database(f"sqlite:///{database}")
    assert revisions(database) == list(head_revisions())
    with contextlib.closing(sqlite3.connect(database)) as db, db:
        db.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    before = database.read_bytes()

    process = await asyncio.create_subprocess_exec(
        str(STUD),
        "engine",
        *ANY_PORTS,
        env=engine_env(database),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode not in (0, None)
    assert out == b""
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1, err.decode()
    assert lines[0].startswith("stud engine: ")
    assert "9999_from_the_future" in lines[0] and "newer" in lines[0]
    assert database.read_bytes() == before, "the database was left untouched"


async def test_stud_engine_migrates_an_empty_database_and_serves(tmp_path: Path) -> None:
    database = tmp_path / "empty.sqlite3"
    database.touch()
    process = await start_stud("engine", *ANY_PORTS, env=engine_env(database))
    try:
        ready = process.ready
        assert set(ready) >= {"grpc", "web"}
        assert revisions(database) == list(head_revisions())
        async with grpc.aio.insecure_channel(ready["grpc"]) as channel:
            answer = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="stud.v1.TableService")
            )
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        process.terminate()
        _, err = await asyncio.wait_for(process.process.communicate(), 30)
    assert process.returncode == 0, err.decode()


@needs_ipv6_loopback
@pytest.mark.parametrize("host", ["::1", "[::1]"])
async def test_stud_engine_on_an_ipv6_host_writes_its_addresses_in_brackets(
    tmp_path: Path, host: str
) -> None:
    """``::1`` (or ``[::1]``) binds every port, and every host:port it writes — the ready line,
    the addresses it advertises in the node registry — is ``[::1]:PORT``, which gRPC, URL
    parsers and ``stud run`` read (``::1:PORT`` is a host without a port to them)."""
    database = tmp_path / "v6.sqlite3"
    env = {**engine_env(database), "STUD_ENGINE_HOST": host}
    process = await start_stud("engine", *ANY_PORTS, env=env)
    try:
        ready = process.ready
        grpc_port = urlsplit(f"//{ready['grpc']}").port
        assert ready["grpc"] == f"[::1]:{grpc_port}" and run_port_of(ready["grpc"]) == grpc_port
        for key, path in (("web", ""), ("metrics", "/metrics")):
            url = urlsplit(ready[key])
            assert (url.scheme, url.hostname, url.path) == ("http", "::1", path), ready
            assert ready[key] == f"http://[::1]:{url.port}{path}"
        async with grpc.aio.insecure_channel(ready["grpc"]) as channel:
            answer = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="stud.v1.TableService")
            )
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
        async with httpx.AsyncClient(timeout=10) as http:
            assert (await http.get(ready["metrics"])).status_code == 200
        with contextlib.closing(sqlite3.connect(database)) as db:
            advertised = db.execute(
                "SELECT admin_address, grpc_address, web_url FROM engine_nodes"
            ).fetchall()
        assert advertised == [(ready["grpc"], ready["grpc"], ready["web"])]
    finally:
        process.terminate()
        _, err = await asyncio.wait_for(process.process.communicate(), 30)
    assert process.returncode == 0, err.decode()


# --------------------------------------------------------------- event loop


@pytest.mark.parametrize(("setting", "loop"), [(None, "uvloop"), ("asyncio", "asyncio")])
async def test_stud_engine_runs_on_the_loop_its_settings_name(
    tmp_path: Path, setting: str | None, loop: str
) -> None:
    """uvloop by default, asyncio when STUD_ENGINE_LOOP says so: both ports and SIGTERM work."""
    env = engine_env(tmp_path / "loop.sqlite3")
    env.pop("STUD_ENGINE_LOOP", None)
    if setting is not None:
        env["STUD_ENGINE_LOOP"] = setting
    process = await start_stud("engine", *ANY_PORTS, env=env)
    try:
        ready = process.ready
        assert ready["loop"] == loop
        async with grpc.aio.insecure_channel(ready["grpc"]) as channel:
            answer = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="stud.v1.TableService")
            )
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
        # The web port is served by the same loop: a CORS preflight answers.
        host, _, port = ready["web"].removeprefix("http://").rpartition(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            b"OPTIONS /stud.v1.TableService/Act HTTP/1.1\r\nHost: x\r\n"
            b"Origin: http://example.test\r\nConnection: close\r\n\r\n"
        )
        status = await asyncio.wait_for(reader.readline(), 10)
        writer.close()
        assert status.split()[1] == b"204", status
    finally:
        process.terminate()
        _, err = await asyncio.wait_for(process.process.communicate(), 30)
    assert process.returncode == 0, err.decode()


async def test_stud_engine_refuses_an_unknown_loop(tmp_path: Path) -> None:
    env = {**engine_env(tmp_path / "loop.sqlite3"), "STUD_ENGINE_LOOP": "trio"}
    process = await asyncio.create_subprocess_exec(
        str(STUD),
        "engine",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode not in (0, None)
    assert out == b""
    assert err.decode().strip() == (
        "stud engine: STUD_ENGINE_LOOP: expected uvloop or asyncio, got 'trio'"
    )


# ----------------------------------------------------------------- restart


async def test_a_table_keeps_its_rules_across_a_restart(tmp_path: Path) -> None:
    """Overrides come through a Struct (numbers as floats) and back from the store's JSON."""
    url = f"sqlite:///{tmp_path}/restart.sqlite3"
    overrides = struct_pb2.Struct()
    overrides.update(
        {
            "max_players": 4,
            "max_raises": 5,
            "action_seconds": 20,
            "rake": {"schedule": [[10, 1], [50, 2]]},
            "burns": ["fourth"],
        }
    )
    request = admin_service_pb2.CreateTableRequest(
        request_id="keep",
        table_id="keep",
        profile="multipoker",
        rule_overrides=overrides,
        stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
        min_buy_in=10,
        max_buy_in=100,
        client_seed="keep",
    )
    first = await launch(url)
    try:
        created = (await first.admin.CreateTable(request, metadata=first.admin_md)).table
    finally:
        await shut(first)
    rules = created.settings.rules
    assert (rules.max_players, rules.max_raises, rules.action_seconds) == (4, 5, 20)
    assert created.settings.profile == "multipoker"

    second = await launch(url)
    try:
        again = await second.admin.GetTable(
            admin_service_pb2.GetTableRequest(name="tables/keep"), metadata=second.admin_md
        )
    finally:
        await shut(second)
    assert again.table.settings == created.settings
    assert again.table.seed.commitment == created.seed.commitment
