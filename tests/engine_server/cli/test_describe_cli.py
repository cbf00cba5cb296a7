"""``stud describe`` as a process against a live engine: what grpcurl's list/describe gave the
README tour, with nothing to install beyond the project."""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.engine_server.api.conftest import Engine, launch, shut

pytestmark = pytest.mark.asyncio(loop_scope="module")

STUD = Path(sys.executable).with_name("stud")


async def stud_describe(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        str(STUD),
        "describe",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    directory = tmp_path_factory.mktemp("describe")
    running = await launch(f"sqlite:///{directory}/engine.sqlite3")
    try:
        yield running
    finally:
        await shut(running)


async def test_lists_the_services_the_engine_serves(engine: Engine) -> None:
    code, out, err = await stud_describe("--engine", engine.grpc_address)
    assert (code, err) == (0, "")
    services = out.split()
    assert {"stud.v1.TableService", "stud.v1.AdminService", "grpc.health.v1.Health"} <= set(
        services
    )
    assert services == sorted(services)


async def test_describes_a_service_with_its_streaming_methods(engine: Engine) -> None:
    code, out, _ = await stud_describe("stud.v1.TableService", "--engine", engine.grpc_address)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "service stud.v1.TableService {"
    assert "  rpc Act(stud.v1.ActRequest) returns (stud.v1.ActResponse);" in lines
    assert (
        "  rpc WatchTable(stud.v1.WatchTableRequest) returns (stream stud.v1.WatchTableResponse);"
        in lines
    )
    assert any(line.startswith("  rpc Play(stream stud.v1.") for line in lines)


async def test_describes_a_message_and_an_enum(engine: Engine) -> None:
    code, out, _ = await stud_describe("stud.v1.ActRequest", "--engine", engine.grpc_address)
    assert code == 0
    assert out.splitlines()[0] == "message stud.v1.ActRequest {"
    assert "  string action_id" in out
    assert "  optional int64 amount = 4;" in out
    assert "  stud.v1.ActionKind kind = " in out
    code, out, _ = await stud_describe("stud.v1.ActionKind", "--engine", engine.grpc_address)
    assert code == 0
    assert "  ACTION_KIND_UNSPECIFIED = 0;" in out.splitlines()


async def test_an_unknown_symbol_is_one_line_and_exit_1(engine: Engine) -> None:
    code, out, err = await stud_describe("stud.v1.NoSuchThing", "--engine", engine.grpc_address)
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "stud describe: the engine serves no service, message or enum named 'stud.v1.NoSuchThing'"
    ]


@pytest.mark.parametrize(
    ("address", "code", "message"),
    [
        ("no-port", 2, "stud describe: --engine: expected HOST:PORT, got 'no-port'"),
        (None, 1, "stud describe: cannot reach the engine at 127.0.0.1:{port}"),
    ],
)
async def test_a_bad_or_unreachable_engine_is_one_line(
    address: str | None, code: int, message: str
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = await stud_describe("--engine", address or f"127.0.0.1:{port}")
    assert result == (code, "", message.format(port=port) + "\n")
