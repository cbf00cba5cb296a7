"""The web client (clients/web, npm package @stud/client): it type-checks with tsc --strict, and
its Node build plays at a real engine on loopback over both browser protocols, Connect and
gRPC-Web (clients/web/test/bot.ts on createTableClient), and reads the engine's error reasons.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from stud.v1 import admin_service_pb2, settings_pb2

from engine_server.auth import Scope, mint_token
from tests.clients.bots import ROOT, Observed, assert_bot_played, passive_player, run_bot
from tests.engine_server.api.conftest import SECRET, Engine, launch, shut

WEB = ROOT / "clients/web"
TSC = WEB / "node_modules/.bin/tsc"
HANDS = 2


def _run(*cmd: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture(scope="module")
def npm_packages() -> None:
    """clients/web's npm packages, installed by the project's own script (npm ci)."""
    assert shutil.which("node") is not None, "Node.js is needed for the web client"
    result = _run("scripts/setup-web")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def bot(npm_packages: None, web_tests_build: Path) -> Path:
    """The client's test bot, compiled for Node with the rest of the web tests (conftest)."""
    return web_tests_build / "test/bot.js"


@pytest_asyncio.fixture
async def engine(tmp_path: Path) -> AsyncIterator[Engine]:
    running = await launch(f"sqlite:///{tmp_path}/engine.sqlite3")
    try:
        yield running
    finally:
        await shut(running)


def test_tsc_strict_passes(npm_packages: None) -> None:
    # The package's own settings: browser libraries only (no Node types), strict on top.
    result = _run(TSC, "--strict", "--noEmit", "-p", ".", cwd=WEB)
    assert result.returncode == 0, result.stdout + result.stderr


def test_npm_packages_are_pinned_exactly() -> None:
    import json

    package = json.loads((WEB / "package.json").read_text())
    lock = json.loads((WEB / "package-lock.json").read_text())
    pins = {**package["dependencies"], **package["devDependencies"]}
    assert pins["@bufbuild/protoc-gen-es"] == pins["@bufbuild/protobuf"] == "2.17.0"
    assert pins["@connectrpc/connect"] == pins["@connectrpc/connect-web"] == "2.3.0"
    for name, version in pins.items():
        assert version[0].isdigit(), f"{name} {version}: pin an exact version"
        assert lock["packages"][f"node_modules/{name}"]["version"] == version, name


async def _play(engine: Engine, bot: Path, table_id: str, protocol: str) -> None:
    await engine.create_table(table_id, overrides={"action_seconds": 20})
    await engine.seat(table_id, "web", buy_in=100, seat=3)
    await engine.seat(table_id, "python", buy_in=100, seat=5)
    seen = Observed()
    other = asyncio.create_task(passive_player(engine, table_id, "python", seen))
    try:
        run = await run_bot(
            ["node", str(bot), engine.web_url, table_id, protocol, str(HANDS), "90"],
            token=mint_token(SECRET, "web", [Scope.PLAYER], ttl_seconds=600),
            timeout=120,
        )
        await seen.reach(HANDS + 1, timeout=30)
    finally:
        other.cancel()
        await asyncio.gather(other, return_exceptions=True)
    assert_bot_played(run, table_id=table_id, seat=3, hands=HANDS, seen=seen)


async def test_web_client_plays_over_connect_and_grpc_web(engine: Engine, bot: Path) -> None:
    # Two tables at once, one per protocol, each with a Python player across the table.
    await asyncio.gather(
        _play(engine, bot, "connect", "connect"), _play(engine, bot, "grpcweb", "grpc-web")
    )


@pytest.mark.parametrize("protocol", ["connect", "grpc-web"])
async def test_web_client_reads_the_engine_error_reason(
    engine: Engine, bot: Path, protocol: str
) -> None:
    # A private table (a public one lets any player watch as a railbird).
    await engine.admin.CreateTable(
        admin_service_pb2.CreateTableRequest(
            request_id="create-t1",
            table_id="t1",
            profile="house",
            stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
            min_buy_in=10,
            max_buy_in=10_000,
            client_seed="alice",
            private=True,
        ),
        metadata=engine.admin_md,
    )
    # A player with a valid token but no seat at the table: PERMISSION_DENIED / NOT_SEATED.
    run = await run_bot(
        ["node", str(bot), engine.web_url, "t1", protocol, "1", "30"],
        token=mint_token(SECRET, "stranger", [Scope.PLAYER], ttl_seconds=600),
        timeout=60,
    )
    assert run.returncode == 1, run
    (failed,) = run.words("STREAM_FAILED")
    assert failed.fields["code"] == "7", run  # Code.PermissionDenied
    assert failed.fields["reason"] == "NOT_SEATED", run
