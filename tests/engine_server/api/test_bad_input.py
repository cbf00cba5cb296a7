"""Malformed and out-of-range requests on a real engine: refused, explained, and harmless.

Each refusal carries a ``google.rpc.Status`` with exactly one ``ErrorInfo``
(domain ``stud.v1``, the documented reason and metadata), and the table is
the same afterwards (the ops view, the seat sessions, the list of tables).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from google.protobuf import struct_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from stud.v1 import admin_service_pb2, settings_pb2, table_pb2, table_service_pb2

from tests.engine_server.api.conftest import Engine, launch, shut

pytestmark = pytest.mark.asyncio(loop_scope="module")

INVALID = grpc.StatusCode.INVALID_ARGUMENT
PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
#: the engine's default limit for a request message (STUD_ENGINE_MAX_REQUEST_BYTES, 1 MiB)
MAX_MESSAGE = 1 << 20


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    """One engine for the module; each test opens its own tables on it."""
    directory: Path = tmp_path_factory.mktemp("bad-input")
    running = await launch(f"sqlite:///{directory}/engine.sqlite3")
    try:
        yield running
    finally:
        await shut(running)


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def error_info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    """The refusal's one ``ErrorInfo`` (checked: one detail, domain ``stud.v1``)."""
    status = rpc_status.from_call(error)
    assert status is not None, f"no google.rpc.Status in {error.code()}: {error.details()}"
    assert status.code == error.code().value[0]
    assert len(status.details) == 1
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.domain == "stud.v1"
    return info


async def refused(
    call: Awaitable[Any], code: grpc.StatusCode, reason: str, **metadata: str
) -> error_details_pb2.ErrorInfo:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    info = error_info(caught.value)
    assert info.reason == reason, caught.value.details()
    for key, value in metadata.items():
        assert info.metadata[key] == value, (key, dict(info.metadata))
    return info


async def get_table(engine: Engine, table_id: str) -> admin_service_pb2.GetTableResponse:
    answer: admin_service_pb2.GetTableResponse = await engine.admin.GetTable(
        admin_service_pb2.GetTableRequest(name=f"tables/{table_id}", reason="test"),
        metadata=engine.admin_md,
    )
    return answer


async def table_state(engine: Engine, table_id: str) -> tuple[bytes, ...]:
    """The ops view and the seat sessions of a table (without the wall clock)."""
    answer = await get_table(engine, table_id)
    answer.snapshot.ClearField("server_time")
    sessions = await engine.admin.ListSeatSessions(
        admin_service_pb2.ListSeatSessionsRequest(table=f"tables/{table_id}"),
        metadata=engine.admin_md,
    )
    return (
        answer.table.SerializeToString(deterministic=True),
        answer.snapshot.SerializeToString(deterministic=True),
        sessions.SerializeToString(deterministic=True),
    )


async def table_names(engine: Engine) -> list[str]:
    listed = await engine.admin.ListTables(
        admin_service_pb2.ListTablesRequest(page_size=500), metadata=engine.admin_md
    )
    return [t.name for t in listed.tables]


async def until_hand_running(engine: Engine, table_id: str) -> table_pb2.TableSnapshot:
    deadline = time.monotonic() + 5
    while True:
        snapshot = (await get_table(engine, table_id)).snapshot
        if snapshot.hand_in_progress and snapshot.turn_seat:
            return snapshot
        assert time.monotonic() < deadline, "no hand started"
        await asyncio.sleep(0.02)


async def playing(engine: Engine, **create: Any) -> tuple[str, table_pb2.TableSnapshot, str]:
    """A heads-up table in its first hand: (table id, ops snapshot, player to act)."""
    table_id = new_id("bad")
    await engine.create_table(table_id, **create)
    await engine.seat(table_id, "ann")
    await engine.seat(table_id, "bob")
    snapshot = await until_hand_running(engine, table_id)
    to_act = next(s.player_id for s in snapshot.seats if s.number == snapshot.turn_seat)
    return table_id, snapshot, to_act


def act_request(table: str, hand_number: int, kind: int, **extra: Any) -> Any:
    fields: dict[str, Any] = {"action_id": uuid.uuid4().hex, **extra}
    return table_service_pb2.ActRequest(
        table=table,
        hand_number=hand_number,
        kind=kind,  # type: ignore[arg-type]
        **fields,
    )


# ----------------------------------------------------------------- tables


async def test_an_unknown_table_is_not_found_on_every_method(engine: Engine) -> None:
    name = "tables/no-such-table"
    player = engine.player_md("ann")
    a, t = admin_service_pb2, table_service_pb2
    calls: list[Awaitable[Any]] = [
        engine.tables.Act(act_request(name, 1, table_pb2.ACTION_KIND_FOLD), metadata=player),
        engine.tables.WatchTable(t.WatchTableRequest(table=name), metadata=player).read(),
        engine.tables.Leave(t.LeaveRequest(table=name), metadata=player),
        engine.tables.SitOut(t.SitOutRequest(table=name), metadata=player),
        engine.tables.SitIn(t.SitInRequest(table=name), metadata=player),
        engine.tables.ShowCards(t.ShowCardsRequest(table=name, hand_number=1), metadata=player),
        engine.admin.GetTable(a.GetTableRequest(name=name), metadata=engine.admin_md),
        engine.admin.PauseTable(a.PauseTableRequest(name=name), metadata=engine.admin_md),
        engine.admin.ResumeTable(a.ResumeTableRequest(name=name), metadata=engine.admin_md),
        engine.admin.CloseTable(a.CloseTableRequest(name=name), metadata=engine.admin_md),
        engine.admin.CancelHand(
            a.CancelHandRequest(name=name, hand_number=1), metadata=engine.admin_md
        ),
        engine.admin.RotateSeed(a.RotateSeedRequest(name=name), metadata=engine.admin_md),
        engine.admin.SeatPlayer(
            a.SeatPlayerRequest(table=name, seat_session_id="ss-1", player_id="ann", buy_in=100),
            metadata=engine.admin_md,
        ),
        engine.admin.AddChips(
            a.AddChipsRequest(table=name, seat_session_id="ss-1", request_id="r-1", amount=5),
            metadata=engine.admin_md,
        ),
        engine.admin.RemovePlayer(
            a.RemovePlayerRequest(table=name, seat_session_id="ss-1"), metadata=engine.admin_md
        ),
    ]
    before = await table_names(engine)
    for call in calls:
        await refused(call, grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND", table=name)
    assert await table_names(engine) == before


MALFORMED_NAMES = [
    "",
    "t1",
    "tables",
    "tables/",
    "TABLES/t1",
    "table/t1",
    "/tables/t1",
    "tables/" + "a" * 100,
]


@pytest.mark.parametrize("name", MALFORMED_NAMES, ids=[repr(n[:12]) for n in MALFORMED_NAMES])
async def test_a_malformed_table_name_is_an_invalid_argument(engine: Engine, name: str) -> None:
    player = engine.player_md("ann")
    a, t = admin_service_pb2, table_service_pb2
    table_calls: list[Awaitable[Any]] = [
        engine.tables.Act(act_request(name, 1, table_pb2.ACTION_KIND_FOLD), metadata=player),
        engine.tables.WatchTable(t.WatchTableRequest(table=name), metadata=player).read(),
        engine.tables.Leave(t.LeaveRequest(table=name), metadata=player),
        engine.admin.SeatPlayer(
            a.SeatPlayerRequest(table=name, seat_session_id="ss-1", player_id="ann", buy_in=100),
            metadata=engine.admin_md,
        ),
    ]
    for call in table_calls:
        await refused(call, INVALID, "INVALID_ARGUMENT", field="table")
    name_calls: list[Awaitable[Any]] = [
        engine.admin.GetTable(a.GetTableRequest(name=name), metadata=engine.admin_md),
        engine.admin.CloseTable(a.CloseTableRequest(name=name), metadata=engine.admin_md),
    ]
    for call in name_calls:
        await refused(call, INVALID, "INVALID_ARGUMENT", field="name")


async def test_huge_strings_are_refused_and_the_engine_keeps_serving(engine: Engine) -> None:
    table_id, snapshot, to_act = await playing(engine)
    name = f"tables/{table_id}"
    md = engine.player_md(to_act)
    before = await table_state(engine, table_id)
    kind = snapshot.legal_actions[0].kind
    hand = snapshot.hand_number

    # Under the transport's limit the engine checks the fields itself ...
    await refused(
        engine.tables.Act(act_request(name, hand, kind, action_id="a" * 1_000_000), metadata=md),
        INVALID,
        "INVALID_ARGUMENT",
        field="action_id",
    )
    await refused(
        engine.tables.Act(act_request("tables/" + "t" * 100_000, hand, kind), metadata=md),
        INVALID,
        "INVALID_ARGUMENT",
        field="table",
    )
    await refused(
        engine.admin.GetTable(
            admin_service_pb2.GetTableRequest(name=name, reason="r" * 100_000),
            metadata=engine.admin_md,
        ),
        INVALID,
        "INVALID_ARGUMENT",
        field="reason",
    )
    # ... over it the engine refuses the message as too large, with its ErrorInfo ...
    for request in (
        act_request(name, hand, kind, action_id="a" * MAX_MESSAGE),
        act_request("tables/" + "t" * MAX_MESSAGE, hand, kind),
    ):
        await refused(
            engine.tables.Act(request, metadata=md),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "MESSAGE_TOO_LARGE",
            max_bytes=str(MAX_MESSAGE),
        )
    # ... and over twice the limit gRPC itself refuses it (no ErrorInfo: the engine never
    # sees it).
    for request in (
        act_request(name, hand, kind, action_id="a" * 2 * MAX_MESSAGE),
        act_request("tables/" + "t" * 2 * MAX_MESSAGE, hand, kind),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await engine.tables.Act(request, metadata=md)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "larger than max" in (caught.value.details() or "")
    for field in ("\x00bad", "tab\tbed", ""):
        await refused(
            engine.tables.Act(act_request(name, hand, kind, action_id=field), metadata=md),
            INVALID,
            "INVALID_ARGUMENT",
            field="action_id",
        )
    assert await table_state(engine, table_id) == before

    # Still serving: the same action, well-formed, is taken.
    answer = await engine.tables.Act(act_request(name, hand, kind), metadata=md)
    assert answer.action.seat == snapshot.turn_seat


# ---------------------------------------------------------------- actions


async def test_bad_actions_are_refused_and_change_nothing(engine: Engine) -> None:
    table_id, snapshot, to_act = await playing(engine)
    name = f"tables/{table_id}"
    md = engine.player_md(to_act)
    hand = snapshot.hand_number
    legal = {a.kind: a for a in snapshot.legal_actions}
    legal_names = ",".join(
        table_pb2.ActionKind.Name(a.kind).removeprefix("ACTION_KIND_").lower()
        for a in snapshot.legal_actions
    )
    sized = next(a for a in snapshot.legal_actions if a.max_amount > 0)
    before = await table_state(engine, table_id)

    def act(kind: int, hand_number: int = hand, **extra: Any) -> Any:
        return engine.tables.Act(act_request(name, hand_number, kind, **extra), metadata=md)

    # A size the action cannot take, and an action that is not legal now.
    for amount in (sized.max_amount + 1, sized.min_amount - 1, 10**12):
        await refused(
            act(sized.kind, amount=amount),
            PRECONDITION,
            "ILLEGAL_ACTION",
            legal_actions=legal_names,
        )
    for kind in (
        table_pb2.ACTION_KIND_CHECK,
        table_pb2.ACTION_KIND_BET,
        table_pb2.ACTION_KIND_SHOW,
        table_pb2.ACTION_KIND_MUCK,
    ):
        assert kind not in legal
        await refused(act(kind), PRECONDITION, "ILLEGAL_ACTION", legal_actions=legal_names)
    # Not an action at all.
    for not_a_kind in (0, 99, -1):
        await refused(act(not_a_kind), INVALID, "INVALID_ARGUMENT", field="kind")
    await refused(act(sized.kind, amount=-1), INVALID, "AMOUNT_INVALID", field="amount")
    # Another hand than the running one.
    for number in (hand + 1, hand + 1000):
        await refused(act(sized.kind, number), PRECONDITION, "STALE_HAND", hand_number=str(hand))
    for number in (0, -3):
        await refused(act(sized.kind, number), INVALID, "INVALID_ARGUMENT", field="hand_number")
    assert await table_state(engine, table_id) == before


# ----------------------------------------------------------------- create


def create_request(**changes: Any) -> admin_service_pb2.CreateTableRequest:
    overrides = struct_pb2.Struct()
    overrides.update(changes.pop("overrides", {}))
    fields: dict[str, Any] = {
        "request_id": new_id("req"),
        "table_id": new_id("new"),
        "profile": "house",
        "rule_overrides": overrides,
        "stakes": settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
        "min_buy_in": 10,
        "max_buy_in": 1000,
        "client_seed": "seed",
    }
    fields.update(changes)
    return admin_service_pb2.CreateTableRequest(**fields)


BAD_CREATES: list[tuple[str, dict[str, Any], str, str]] = [
    ("unknown profile", {"profile": "omaha"}, "UNKNOWN_PROFILE", "profile"),
    ("unknown setting", {"overrides": {"jokers_wild": True}}, "INVALID_SETTING", "jokers_wild"),
    ("too many seats", {"overrides": {"max_players": 42}}, "INVALID_SETTING", "max_players"),
    ("wrong type", {"overrides": {"max_raises": "lots"}}, "INVALID_SETTING", "max_raises"),
    ("bad choice", {"overrides": {"timeout": "shrug"}}, "INVALID_SETTING", "timeout"),
    ("negative clock", {"overrides": {"action_seconds": -5}}, "INVALID_SETTING", "action_seconds"),
    (
        "negative ante",
        {"stakes": settings_pb2.Stakes(ante=-1, bring_in=1, small_bet=2, big_bet=4)},
        "INVALID_ARGUMENT",
        "stakes.ante",
    ),
    (
        "negative big bet",
        {"stakes": settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=-4)},
        "INVALID_ARGUMENT",
        "stakes.big_bet",
    ),
    (
        "no small bet",
        {"stakes": settings_pb2.Stakes(ante=1, bring_in=1, small_bet=0, big_bet=4)},
        "INVALID_ARGUMENT",
        "stakes",
    ),
    ("client seed", {"client_seed": "not a seed!"}, "INVALID_ARGUMENT", "client_seed"),
    ("long client seed", {"client_seed": "s" * 65}, "INVALID_ARGUMENT", "client_seed"),
    ("table id", {"table_id": "Bad_Table"}, "INVALID_ARGUMENT", "table_id"),
    ("long table id", {"table_id": "t" * 64}, "INVALID_ARGUMENT", "table_id"),
    ("request id", {"request_id": ""}, "INVALID_ARGUMENT", "request_id"),
    ("buy-in range", {"min_buy_in": 500, "max_buy_in": 100}, "INVALID_ARGUMENT", "min_buy_in"),
    ("negative buy-in", {"min_buy_in": -5}, "INVALID_ARGUMENT", "min_buy_in"),
]


@pytest.mark.parametrize(
    ("case", "changes", "reason", "field"), BAD_CREATES, ids=[c[0] for c in BAD_CREATES]
)
async def test_create_table_refuses_bad_settings(
    engine: Engine, case: str, changes: dict[str, Any], reason: str, field: str
) -> None:
    request = create_request(**changes)
    before = await table_names(engine)
    await refused(
        engine.admin.CreateTable(request, metadata=engine.admin_md), INVALID, reason, field=field
    )
    assert await table_names(engine) == before
    # Nothing was recorded under the request id: a good request may use it afterwards.
    if request.request_id:
        good = create_request(request_id=request.request_id)
        created = await engine.admin.CreateTable(good, metadata=engine.admin_md)
        assert created.table.name == f"tables/{good.table_id}"


# ------------------------------------------------------------------- seats


async def test_seat_player_refuses_bad_seats_and_buy_ins(engine: Engine) -> None:
    table_id = new_id("seats")
    await engine.create_table(table_id, min_buy_in=20, max_buy_in=500)
    first = await engine.seat(table_id, "ann", buy_in=100, seat=3)
    name = f"tables/{table_id}"
    before = await table_state(engine, table_id)

    def seat(player: str, buy_in: int = 100, number: int = 0) -> Any:
        return engine.admin.SeatPlayer(
            admin_service_pb2.SeatPlayerRequest(
                table=name,
                seat_session_id=new_id("ss"),
                player_id=player,
                display_name=player,
                seat=number,
                buy_in=buy_in,
            ),
            metadata=engine.admin_md,
        )

    for buy_in in (19, 501, 0, -100):
        await refused(seat("bob", buy_in), INVALID, "BUY_IN_OUT_OF_RANGE", field="buy_in")
    await refused(seat("bob", number=3), PRECONDITION, "SEAT_TAKEN")
    for number in (8, 99, -1):  # the house profile seats 7
        await refused(seat("bob", number=number), INVALID, "INVALID_SEAT", field="seat")
    await refused(seat("ann"), PRECONDITION, "ALREADY_SEATED")
    await refused(seat("ann", number=4), PRECONDITION, "ALREADY_SEATED")
    for bad in ("", "x" * 65, "new\nline"):
        await refused(seat(bad), INVALID, "INVALID_ARGUMENT", field="player_id")
    # The session id of the seated player, reused for someone else.
    await refused(
        engine.admin.SeatPlayer(
            admin_service_pb2.SeatPlayerRequest(
                table=name,
                seat_session_id=first.session.seat_session_id,
                player_id="bob",
                buy_in=100,
            ),
            metadata=engine.admin_md,
        ),
        INVALID,
        "IDEMPOTENCY_KEY_REUSED",
        field="seat_session_id",
    )
    assert await table_state(engine, table_id) == before


async def test_a_full_table_seats_nobody_more(engine: Engine) -> None:
    table_id = new_id("full")
    await engine.create_table(table_id, overrides={"max_players": 2})
    await engine.seat(table_id, "ann")
    await engine.seat(table_id, "bob")
    await until_hand_running(engine, table_id)
    before = await table_state(engine, table_id)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await engine.seat(table_id, "cat")
    assert caught.value.code() == PRECONDITION
    assert error_info(caught.value).reason == "TABLE_FULL"
    assert await table_state(engine, table_id) == before


async def test_add_chips_refuses_bad_top_ups(engine: Engine) -> None:
    table_id, snapshot, _ = await playing(engine, max_buy_in=1000)
    sessions = {s.player_id: s.seat_session_id for s in snapshot.seats}
    name = f"tables/{table_id}"
    before = await table_state(engine, table_id)

    def add(session: str, amount: int, request_id: str | None = None) -> Any:
        return engine.admin.AddChips(
            admin_service_pb2.AddChipsRequest(
                table=name,
                seat_session_id=session,
                request_id=new_id("add") if request_id is None else request_id,
                amount=amount,
            ),
            metadata=engine.admin_md,
        )

    # Both players are dealt into the running hand: table stakes.
    for session in sessions.values():
        await refused(add(session, 50), PRECONDITION, "HAND_IN_PROGRESS")
    for amount in (0, -10):
        await refused(add(sessions["ann"], amount), INVALID, "BUY_IN_OUT_OF_RANGE", field="amount")
    await refused(add("ss-nobody", 50), grpc.StatusCode.NOT_FOUND, "SEAT_SESSION_NOT_FOUND")
    await refused(
        add(sessions["ann"], 50, request_id=""), INVALID, "INVALID_ARGUMENT", field="request_id"
    )
    assert await table_state(engine, table_id) == before

    # Between hands a top-up past max_buy_in is still refused.
    await engine.admin.PauseTable(
        admin_service_pb2.PauseTableRequest(name=name), metadata=engine.admin_md
    )
    await engine.admin.CancelHand(
        admin_service_pb2.CancelHandRequest(name=name, hand_number=snapshot.hand_number),
        metadata=engine.admin_md,
    )
    paused = await table_state(engine, table_id)
    await refused(add(sessions["ann"], 1000), INVALID, "BUY_IN_OUT_OF_RANGE")
    assert await table_state(engine, table_id) == paused
    topped = await engine.admin.AddChips(
        admin_service_pb2.AddChipsRequest(
            table=name, seat_session_id=sessions["ann"], request_id=new_id("add"), amount=900
        ),
        metadata=engine.admin_md,
    )
    assert topped.session.stack == 1000


# --------------------------------------------------------------- malformed bytes


def _identity(data: bytes) -> bytes:
    return data


def _string_field(descriptor: Any) -> int | None:
    """The number of a string field of the message, if it has one."""
    for field in descriptor.fields:
        if field.type == field.TYPE_STRING:
            return int(field.number)
    return None


def _malformed_payloads(descriptor: Any) -> list[tuple[str, bytes]]:
    """Bytes that are not a valid encoding of any message of ``descriptor``'s type."""
    payloads = [
        ("corrupt wire format", b"\xff\xff\xff\xff"),
        ("truncated varint", b"\x08\xff"),
        ("truncated length", b"\x0a\x05ab"),
        ("wire type 7", b"\x0f"),
    ]
    number = _string_field(descriptor)
    if number is not None:
        # A string field holding bytes that are not UTF-8.
        payloads.append(("bad UTF-8", bytes([number << 3 | 2, 2, 0xFF, 0xFE])))
    return payloads


def _every_method() -> list[tuple[str, Any]]:
    """Every method the gRPC port serves: TableService, AdminService, health, reflection."""
    from grpc_health.v1 import health_pb2
    from grpc_reflection.v1alpha import reflection_pb2

    methods = []
    for module, service in (
        (table_service_pb2, "TableService"),
        (admin_service_pb2, "AdminService"),
        (health_pb2, "Health"),
        (reflection_pb2, "ServerReflection"),
    ):
        descriptor = module.DESCRIPTOR.services_by_name[service]
        methods += [(f"/{descriptor.full_name}/{m.name}", m) for m in descriptor.methods]
    return methods


async def _send_raw(engine: Engine, path: str, method: Any, payload: bytes) -> grpc.aio.AioRpcError:
    channel = engine.channel
    kwargs: dict[str, Any] = {
        "request_serializer": _identity,
        "response_deserializer": _identity,
    }
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async with asyncio.timeout(10):
            if method.client_streaming:
                # Play checks the caller's token as the stream opens, before any request.
                call = channel.stream_stream(path, **kwargs)(metadata=engine.player_md("ann"))
                await call.write(payload)
                await call.done_writing()
                async for _ in call:
                    pass
            elif method.server_streaming:
                async for _ in channel.unary_stream(path, **kwargs)(payload):
                    pass
            else:
                await channel.unary_unary(path, **kwargs)(payload)
    return caught.value


async def test_malformed_bytes_are_an_invalid_argument_on_every_method(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    """Bytes that do not parse as the method's request, with no token: INVALID_ARGUMENT /
    MALFORMED_REQUEST with its ErrorInfo (not UNKNOWN), no traceback in the log, and at most
    one log line per 10 s for them all; the engine keeps serving."""
    caplog.set_level(logging.DEBUG)
    started = time.monotonic()
    before = await table_names(engine)
    sent = 0
    for path, method in _every_method():
        for case, payload in _malformed_payloads(method.input_type):
            error = await _send_raw(engine, path, method, payload)
            assert error.code() == INVALID, (path, case, error.details())
            assert error_info(error).reason == "MALFORMED_REQUEST", (path, case)
            assert path in (error.details() or ""), (path, case)
            sent += 1
    assert sent > 80
    elapsed = time.monotonic() - started
    assert not [r for r in caplog.records if r.exc_info], [
        r.getMessage() for r in caplog.records if r.exc_info
    ]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    logged = [r for r in caplog.records if r.getMessage().startswith("malformed request")]
    assert 1 <= len(logged) <= 1 + int(elapsed / 10), len(logged)
    assert logged[0].levelno == logging.WARNING
    # Still serving, and nothing changed.
    assert await table_names(engine) == before
    health = await engine.channel.unary_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=_identity,
        response_deserializer=_identity,
    )(b"")
    assert health == b"\x08\x01"  # SERVING
    watch = engine.channel.unary_stream(
        "/grpc.health.v1.Health/Watch",
        request_serializer=_identity,
        response_deserializer=_identity,
    )(b"")
    assert await watch.read() == b"\x08\x01"
    watch.cancel()
    reflection = engine.channel.stream_stream(
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        request_serializer=_identity,
        response_deserializer=_identity,
    )()
    await reflection.write(b"\x3a\x00")  # list_services
    assert b"stud.v1.TableService" in await reflection.read()
    reflection.cancel()


async def test_a_malformed_act_ends_a_play_stream_with_its_refusal(engine: Engine) -> None:
    table_id, snapshot, to_act = await playing(engine)
    name = f"tables/{table_id}"
    before = await table_state(engine, table_id)
    call = engine.channel.stream_stream(
        "/stud.v1.TableService/Play",
        request_serializer=_identity,
        response_deserializer=table_service_pb2.PlayResponse.FromString,
    )(metadata=engine.player_md(to_act))
    watch = table_service_pb2.PlayRequest(watch=table_service_pb2.WatchTableRequest(table=name))
    await call.write(watch.SerializeToString())
    first = await call.read()
    assert first.update.snapshot.hand_number == snapshot.hand_number
    await call.write(b"\x12\x05\x0a\x03\xff\xfe\xfd")  # an act whose table is not UTF-8
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async with asyncio.timeout(10):
            while True:
                message = await call.read()
                assert message is not grpc.aio.EOF, "the stream ended without its refusal"
    assert caught.value.code() == INVALID
    assert error_info(caught.value).reason == "MALFORMED_REQUEST"
    assert await table_state(engine, table_id) == before


# ------------------------------------------------------------------ enum values


async def test_unknown_enum_values_in_filters_are_refused(engine: Engine) -> None:
    table_id = new_id("enum")
    await engine.create_table(table_id)
    a = admin_service_pb2
    for statuses in ([77], [0], [table_pb2.TABLE_STATUS_WAITING, 77], [-1]):
        info = await refused(
            engine.admin.ListTables(
                a.ListTablesRequest(statuses=statuses), metadata=engine.admin_md
            ),
            INVALID,
            "INVALID_ARGUMENT",
            field="statuses",
        )
        assert info is not None
    for states in ([77], [0], [table_pb2.SEAT_SESSION_STATE_OPEN, 9]):
        await refused(
            engine.admin.ListSeatSessions(
                a.ListSeatSessionsRequest(table=f"tables/{table_id}", states=states),
                metadata=engine.admin_md,
            ),
            INVALID,
            "INVALID_ARGUMENT",
            field="states",
        )
    # Known values filter as before.
    waiting = await engine.admin.ListTables(
        a.ListTablesRequest(statuses=[table_pb2.TABLE_STATUS_WAITING], page_size=500),
        metadata=engine.admin_md,
    )
    assert f"tables/{table_id}" in [t.name for t in waiting.tables]
    playing_only = await engine.admin.ListTables(
        a.ListTablesRequest(statuses=[table_pb2.TABLE_STATUS_CLOSED], page_size=500),
        metadata=engine.admin_md,
    )
    assert f"tables/{table_id}" not in [t.name for t in playing_only.tables]
    open_sessions = await engine.admin.ListSeatSessions(
        a.ListSeatSessionsRequest(
            table=f"tables/{table_id}", states=[table_pb2.SEAT_SESSION_STATE_OPEN]
        ),
        metadata=engine.admin_md,
    )
    assert list(open_sessions.sessions) == []
