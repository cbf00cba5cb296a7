"""The lobby's service token may close tables (admin_service.proto says so; the lobby closes
a quick-game table once everyone has left, which reveals its dealer seed)."""

from __future__ import annotations

import grpc
import pytest
from stud.v1 import admin_service_pb2, table_pb2

from engine_server.auth import Scope
from tests.engine_server.api.conftest import Engine, bearer


async def test_the_lobby_token_closes_a_table_and_a_player_token_cannot(engine: Engine) -> None:
    await engine.create_table("t-close")
    await engine.seat("t-close", "p1", buy_in=100)
    request = admin_service_pb2.CloseTableRequest(name="tables/t-close", reason="empty")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await engine.admin.CloseTable(request, metadata=bearer("p1", Scope.PLAYER))
    assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED
    closed = await engine.admin.CloseTable(request, metadata=bearer("lobby", Scope.LOBBY))
    assert closed.table.status == table_pb2.TABLE_STATUS_CLOSED
    assert [s.stack for s in closed.sessions] == [100]
    assert closed.table.seed.dealer_seed  # revealed on close
