"""CreateTable with the opener's seat (issue 16): the table and his seat session in one store
write, retried as CreateTable and SeatPlayer are, refused as a whole."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import pytest
from stud.v1 import admin_service_pb2 as a
from stud.v1 import settings_pb2, table_pb2

from tests.engine_server.api.conftest import Engine
from tests.engine_server.api.store_events import store_events
from tests.engine_server.api.test_admin import get_table, refused, sessions_of
from tests.engine_server.api.test_admin_retries import commit_fails_after


def create_request(
    table_id: str, *, session_id: str | None = None, buy_in: int = 150
) -> a.CreateTableRequest:
    """The conftest's CreateTable for ``table_id`` (the same request id), with the opener
    ann's seat when ``session_id`` is given."""
    request = a.CreateTableRequest(
        request_id=f"create-{table_id}",
        table_id=table_id,
        profile="house",
        stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
        min_buy_in=10,
        max_buy_in=10_000,
        client_seed="alice",
        opener_player_id="ann",
    )
    if session_id is not None:
        request.opener_seat.CopyFrom(
            a.OpenerSeat(seat_session_id=session_id, display_name="Ann", buy_in=buy_in)
        )
    return request


@contextmanager
def commits(engine: Engine) -> Iterator[list[list[str]]]:
    """The statements of each transaction the engine commits meanwhile (INSERTs and
    UPDATEs, by their first words)."""
    running: list[str] = []
    committed: list[list[str]] = []

    def before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        words = statement.split()
        if words and words[0].upper() in ("INSERT", "UPDATE"):
            running.append(" ".join(words[:3]).upper())

    def commit(conn: Any) -> None:
        if running:
            committed.append(list(running))
            running.clear()

    def rollback(conn: Any) -> None:
        running.clear()  # written by a transaction that did not commit: not written

    with store_events(engine, before_cursor_execute=before, commit=commit, rollback=rollback):
        yield committed


@contextmanager
def table_transactions(engine: Engine, table_id: str) -> Iterator[list[list[str]]]:
    """The statements of each transaction the engine runs meanwhile that names the table's
    id among its parameters (by their first words): the engine's lease renewals and other
    background work left out."""
    running: dict[int, list[str]] = {}
    ended: list[list[str]] = []

    def before(conn: Any, cursor: Any, statement: str, parameters: Any, *args: Any) -> None:
        if table_id in repr(parameters) or id(conn) in running:
            running.setdefault(id(conn), []).append(" ".join(statement.split()[:3]).upper())

    def end(conn: Any) -> None:
        statements = running.pop(id(conn), None)
        if statements:
            ended.append(statements)

    with store_events(engine, before_cursor_execute=before, commit=end, rollback=end):
        yield ended


async def test_the_table_and_its_openers_seat_are_one_write_and_retries_answer_alike(
    engine: Engine,
) -> None:
    table_id, session_id = "seated-1", f"ss-{uuid.uuid4().hex[:8]}"
    request = create_request(table_id, session_id=session_id)
    with commits(engine) as written, table_transactions(engine, table_id) as touched:
        first = await engine.admin.CreateTable(request, metadata=engine.admin_md)
    assert len(written) == 1, written
    assert "INSERT INTO TABLES" in written[0] and "INSERT INTO SEAT_SESSIONS" in written[0]
    # The answer (seed pairs, the opener's seat) comes from that write: no read after it.
    assert len(touched) == 1, touched
    assert any(s.startswith("INSERT INTO SEED_PAIRS") for s in touched[0]), touched
    opener = first.opener_session
    assert (opener.seat_session_id, opener.player_id, opener.seat, opener.stack) == (
        session_id,
        "ann",
        1,
        150,
    )
    assert opener.state == table_pb2.SEAT_SESSION_STATE_OPEN
    snapshot = (await get_table(engine, table_id)).snapshot
    assert [(s.number, s.player_id, s.display_name, s.stack) for s in snapshot.seats] == [
        (1, "ann", "Ann", 150)
    ]
    # A retry of either call is answered as the first, and writes nothing.
    with commits(engine) as written:
        again = await engine.admin.CreateTable(request, metadata=engine.admin_md)
        seated = await engine.admin.SeatPlayer(
            a.SeatPlayerRequest(
                table=f"tables/{table_id}",
                seat_session_id=session_id,
                player_id="ann",
                display_name="Ann",
                buy_in=150,
            ),
            metadata=engine.admin_md,
        )
    assert written == []
    assert again == first
    assert seated.session == first.opener_session
    assert [(s.player_id, s.stack) for s in await sessions_of(engine, table_id)] == [("ann", 150)]


async def test_a_refused_opener_seat_creates_no_table(engine: Engine) -> None:
    request = create_request("seated-2", session_id="ss-too-much", buy_in=20_000)
    info = await refused(
        engine.admin.CreateTable(request, metadata=engine.admin_md),
        grpc.StatusCode.INVALID_ARGUMENT,
        "BUY_IN_OUT_OF_RANGE",
    )
    assert info.metadata["field"] == "opener_seat.buy_in"
    await refused(
        engine.admin.GetTable(
            a.GetTableRequest(name="tables/seated-2", reason="test"), metadata=engine.admin_md
        ),
        grpc.StatusCode.NOT_FOUND,
        "TABLE_NOT_FOUND",
    )
    without_player = create_request("seated-3", session_id="ss-nobody")
    without_player.opener_player_id = ""
    info = await refused(
        engine.admin.CreateTable(without_player, metadata=engine.admin_md),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
    )
    assert info.metadata["field"] == "opener_player_id"


async def test_a_write_that_fails_leaves_neither_and_its_retry_makes_both(engine: Engine) -> None:
    request = create_request("seated-4", session_id="ss-crash")
    with (
        commit_fails_after(engine, "INSERT INTO SEAT_SESSIONS") as injected,
        pytest.raises(grpc.aio.AioRpcError),
    ):
        await engine.admin.CreateTable(request, metadata=engine.admin_md)
    assert injected
    await refused(
        engine.admin.GetTable(
            a.GetTableRequest(name="tables/seated-4", reason="test"), metadata=engine.admin_md
        ),
        grpc.StatusCode.NOT_FOUND,
        "TABLE_NOT_FOUND",
    )
    answer = await engine.admin.CreateTable(request, metadata=engine.admin_md)
    assert (answer.opener_session.seat_session_id, answer.opener_session.stack) == (
        "ss-crash",
        150,
    )
    assert [s.player_id for s in await sessions_of(engine, "seated-4")] == ["ann"]


async def test_a_retry_with_a_seat_of_a_table_created_without_one_seats_him(
    engine: Engine,
) -> None:
    """A quick game begun by an older lobby (CreateTable, then SeatPlayer) and finished by a
    newer one: the retry of its CreateTable carries the seat, and the table has it once."""
    await engine.admin.CreateTable(create_request("seated-5"), metadata=engine.admin_md)
    assert await sessions_of(engine, "seated-5") == []
    request = create_request("seated-5", session_id="ss-later")
    answer = await engine.admin.CreateTable(request, metadata=engine.admin_md)
    assert (answer.opener_session.seat, answer.opener_session.stack) == (1, 150)
    again = await engine.admin.CreateTable(request, metadata=engine.admin_md)
    assert again.opener_session == answer.opener_session
    assert [s.player_id for s in await sessions_of(engine, "seated-5")] == ["ann"]
