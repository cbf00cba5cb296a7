"""One request size limit on both ports, from the settings.

An engine started with a small limit (4 KiB) refuses a request over it, on gRPC and on the
web port (Connect and gRPC-Web), with RESOURCE_EXHAUSTED / MESSAGE_TOO_LARGE and its
ErrorInfo; over twice the limit the transport refuses the request before the engine sees it:
still RESOURCE_EXHAUSTED, but with no ErrorInfo (errors.proto documents both). Nothing changes
and the engine keeps serving.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
import pytest_asyncio
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from grpc_status import rpc_status
from stud.v1 import admin_service_pb2, table_pb2, table_service_pb2
from stud.v1.table_service_connect import TableServiceClient

from engine_server.settings import EngineSettings, SettingsError
from tests.engine_server.api.conftest import Engine, launch, shut
from tests.engine_server.api.players import error_info
from tests.engine_server.api.test_connect import the_info

pytestmark = pytest.mark.asyncio(loop_scope="module")

LIMIT = 4096
EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    directory: Path = tmp_path_factory.mktemp("size")
    running = await launch(f"sqlite:///{directory}/engine.sqlite3", max_request_bytes=LIMIT)
    try:
        await running.create_table("size")
        await running.seat("size", "ann")
        yield running
    finally:
        await shut(running)


def act(size: int) -> table_service_pb2.ActRequest:
    """An Act whose encoding is about ``size`` bytes (its action id makes it up)."""
    return table_service_pb2.ActRequest(
        table="tables/size", hand_number=1, kind=table_pb2.ACTION_KIND_FOLD, action_id="a" * size
    )


async def too_large(call: object) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code() == EXHAUSTED, caught.value.details()
    info = error_info(caught.value)
    assert (info.reason, dict(info.metadata)) == ("MESSAGE_TOO_LARGE", {"max_bytes": str(LIMIT)})


async def unread(call: object) -> None:
    """Refused by grpc core: RESOURCE_EXHAUSTED with no google.rpc.Status details."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code() == EXHAUSTED
    assert "larger than max" in (caught.value.details() or "")
    assert rpc_status.from_call(caught.value) is None


async def test_grpc_refuses_a_request_over_the_limit_with_its_error_info(engine: Engine) -> None:
    md = engine.player_md("ann")
    before = await engine.admin.GetTable(
        admin_service_pb2.GetTableRequest(name="tables/size"), metadata=engine.admin_md
    )
    await too_large(engine.tables.Act(act(LIMIT + 1), metadata=md))
    # A stream's request, and AdminService's, alike.
    watch = engine.tables.WatchTable(
        table_service_pb2.WatchTableRequest(table="tables/" + "t" * LIMIT), metadata=md
    )
    await too_large(watch.read())
    await too_large(
        engine.admin.GetTable(
            admin_service_pb2.GetTableRequest(name="tables/size", reason="r" * LIMIT),
            metadata=engine.admin_md,
        )
    )
    # Over twice the limit grpc core refuses it unread.
    await unread(engine.tables.Act(act(2 * LIMIT + 1), metadata=md))
    await unread(
        engine.admin.GetTable(
            admin_service_pb2.GetTableRequest(name="tables/size", reason="r" * 3 * LIMIT),
            metadata=engine.admin_md,
        )
    )
    # Under the limit the engine reads the request (here: refuses the long action id itself).
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await engine.tables.Act(act(LIMIT - 100), metadata=md)
    assert error_info(caught.value).metadata["field"] == "action_id"
    after = await engine.admin.GetTable(
        admin_service_pb2.GetTableRequest(name="tables/size"), metadata=engine.admin_md
    )
    assert after.table == before.table


@pytest.mark.parametrize("protocol", [ProtocolType.CONNECT, ProtocolType.GRPC_WEB])
async def test_the_web_port_has_the_same_limit(engine: Engine, protocol: ProtocolType) -> None:
    md = dict(engine.player_md("ann"))
    async with TableServiceClient(engine.web_url, protocol=protocol) as client:
        with pytest.raises(ConnectError) as caught:
            await client.act(act(LIMIT + 1), headers=md)
        assert caught.value.code == Code.RESOURCE_EXHAUSTED
        info = the_info(caught.value)
        assert (info.reason, dict(info.metadata)) == (
            "MESSAGE_TOO_LARGE",
            {"max_bytes": str(LIMIT)},
        )
        with pytest.raises(ConnectError) as caught:
            async for _ in client.watch_table(
                table_service_pb2.WatchTableRequest(table="tables/" + "t" * LIMIT), headers=md
            ):
                pass
        assert caught.value.code == Code.RESOURCE_EXHAUSTED
        assert the_info(caught.value).reason == "MESSAGE_TOO_LARGE"
        # Over twice the limit connectrpc refuses it unread: no ErrorInfo.
        with pytest.raises(ConnectError) as caught:
            await client.act(act(2 * LIMIT + 1), headers=md)
        assert caught.value.code == Code.RESOURCE_EXHAUSTED
        assert not caught.value.details
        # Still serving: under the limit the engine answers (the action id is too long).
        with pytest.raises(ConnectError) as caught:
            await client.act(act(LIMIT - 100), headers=md)
        assert caught.value.code == Code.INVALID_ARGUMENT
        assert the_info(caught.value).metadata["field"] == "action_id"


async def test_the_limit_comes_from_the_environment() -> None:
    secret = {"STUD_JWT_SECRET": "x" * 32}
    assert EngineSettings.from_env(secret).max_request_bytes == 1 << 20
    setting = {**secret, "STUD_ENGINE_MAX_REQUEST_BYTES": "65536"}
    assert EngineSettings.from_env(setting).max_request_bytes == 65536
    for bad in ("1MiB", "-1", "12", str(1 << 40)):
        with pytest.raises(SettingsError, match="STUD_ENGINE_MAX_REQUEST_BYTES"):
            EngineSettings.from_env({**secret, "STUD_ENGINE_MAX_REQUEST_BYTES": bad})
