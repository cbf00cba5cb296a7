"""A closed table after an engine restart: ops still see it, players get TABLE_CLOSED.

The restarted engine runs no task for it; GetTable, ListTables and ListSeatSessions read it
from the store, and every command on it answers as the table did before the restart.
"""

from __future__ import annotations

from pathlib import Path

import grpc
from stud.v1 import admin_service_pb2, table_pb2, table_service_pb2

from engine_server.game.fairness import commitment
from tests.engine_server.api.conftest import Engine, launch, shut
from tests.engine_server.api.test_admin import fold_out, get_table, refused, until_hand

a = admin_service_pb2
PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION


async def list_names(engine: Engine, *statuses: table_pb2.TableStatus.ValueType) -> dict[str, int]:
    page = await engine.admin.ListTables(
        a.ListTablesRequest(page_size=500, statuses=statuses), metadata=engine.admin_md
    )
    return {t.name: t.status for t in page.tables}


async def players_are_refused(engine: Engine, name: str) -> None:
    """WatchTable and Act by a player who sat there: FAILED_PRECONDITION / TABLE_CLOSED."""
    watch = engine.tables.WatchTable(
        table_service_pb2.WatchTableRequest(table=name), metadata=engine.player_md("ann")
    )
    info = await refused(watch.read(), PRECONDITION, "TABLE_CLOSED")
    assert info.metadata["table"] == name
    await refused(
        engine.tables.Act(
            table_service_pb2.ActRequest(
                table=name, hand_number=1, kind=table_pb2.ACTION_KIND_CHECK, action_id="late"
            ),
            metadata=engine.player_md("ann"),
        ),
        PRECONDITION,
        "TABLE_CLOSED",
    )


async def test_a_table_closed_before_a_restart_is_still_there_for_ops(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/closed.sqlite3"
    name = "tables/gone"
    engine = await launch(url)
    try:
        await engine.create_table("gone")
        seated = {p: (await engine.seat("gone", p)).session for p in ("ann", "bob")}
        await until_hand(engine, "gone", 1)
        await engine.admin.PauseTable(a.PauseTableRequest(name=name), metadata=engine.admin_md)
        await fold_out(engine, "gone")
        top_up = a.AddChipsRequest(
            table=name, seat_session_id=seated["ann"].seat_session_id, request_id="gone-1", amount=5
        )
        topped = await engine.admin.AddChips(top_up, metadata=engine.admin_md)
        closed = await engine.admin.CloseTable(
            a.CloseTableRequest(name=name, reason="done"), metadata=engine.admin_md
        )
        assert closed.table.status == table_pb2.TABLE_STATUS_CLOSED
        before = await get_table(engine, "gone")
        sessions = await engine.admin.ListSeatSessions(
            a.ListSeatSessionsRequest(table=name), metadata=engine.admin_md
        )
        # In the engine that closed it, players are refused alike.
        await players_are_refused(engine, name)
    finally:
        await shut(engine)

    engine = await launch(url)
    try:
        assert "gone" not in engine.server.manager.tables, "no runtime for a closed table"
        after = await get_table(engine, "gone")
        assert after.table == before.table
        assert after.table.status == table_pb2.TABLE_STATUS_CLOSED
        assert after.table.hand_number == 1 and not after.table.hand_in_progress
        assert commitment(after.table.seed.dealer_seed) == after.table.seed.commitment
        assert not after.snapshot.seats and after.snapshot.status == table_pb2.TABLE_STATUS_CLOSED

        # ListTables: only when asked for closed tables (the default leaves them out).
        assert name not in await list_names(engine)
        assert (await list_names(engine, table_pb2.TABLE_STATUS_CLOSED))[name] == (
            table_pb2.TABLE_STATUS_CLOSED
        )
        # Its seat sessions, closed and paid out.
        again = await engine.admin.ListSeatSessions(
            a.ListSeatSessionsRequest(table=name), metadata=engine.admin_md
        )
        assert again == sessions
        assert {s.close_reason for s in again.sessions} == {
            table_pb2.SEAT_SESSION_CLOSE_REASON_TABLE_CLOSED
        }
        assert sum(s.stack for s in again.sessions) == 205

        await players_are_refused(engine, name)
        # Commands answer as the closed table did: closing again is harmless, a retried
        # top-up gets its first answer, anything that would change it is refused.
        reclosed = await engine.admin.CloseTable(
            a.CloseTableRequest(name=name), metadata=engine.admin_md
        )
        assert reclosed.table == before.table and not reclosed.sessions
        assert await engine.admin.AddChips(top_up, metadata=engine.admin_md) == topped
        await refused(
            engine.admin.PauseTable(a.PauseTableRequest(name=name), metadata=engine.admin_md),
            PRECONDITION,
            "TABLE_STATE",
        )
        await refused(
            engine.admin.RotateSeed(a.RotateSeedRequest(name=name), metadata=engine.admin_md),
            PRECONDITION,
            "TABLE_CLOSED",
        )
        await refused(engine.seat("gone", "cat"), PRECONDITION, "TABLE_CLOSED")
        await refused(
            engine.admin.CancelHand(a.CancelHandRequest(name=name), metadata=engine.admin_md),
            PRECONDITION,
            "NO_HAND_IN_PROGRESS",
        )
        assert (await get_table(engine, "gone")).table == before.table
        assert "gone" not in engine.server.manager.tables
        await refused(
            engine.admin.GetTable(a.GetTableRequest(name="tables/never"), metadata=engine.admin_md),
            grpc.StatusCode.NOT_FOUND,
            "TABLE_NOT_FOUND",
        )
    finally:
        await shut(engine)
