"""Who may call what: bearer tokens, seats and scopes, on a real engine over loopback.

Every refusal is checked on the wire (status code, one ``ErrorInfo`` in domain
``stud.v1`` with the documented reason) and against the table itself: the
ops view (GetTable) is the same before and after, so a refused call changed
nothing.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import jwt
import pytest
import pytest_asyncio
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from stud.v1 import admin_service_pb2, settings_pb2, table_pb2, table_service_pb2

from engine_server.api.admin_service import LOBBY_METHODS
from engine_server.auth import Scope, mint_token
from tests.engine_server.api.conftest import SECRET, Engine, bearer, launch, shut

pytestmark = pytest.mark.asyncio(loop_scope="module")

Metadata = tuple[tuple[str, str], ...]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    """One engine for the module; each test opens its own tables on it."""
    directory: Path = tmp_path_factory.mktemp("auth")
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
    call: Awaitable[Any], code: grpc.StatusCode, reason: str
) -> error_details_pb2.ErrorInfo:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    info = error_info(caught.value)
    assert info.reason == reason, caught.value.details()
    return info


async def first_message(stream: Any) -> Any:
    """Read one WatchTable message (or raise the stream's error)."""
    try:
        return await stream.read()
    finally:
        stream.cancel()


async def table_state(engine: Engine, table_id: str) -> tuple[bytes, bytes]:
    """Everything the ops view shows of a table, except the clock on the wall."""
    answer = await engine.admin.GetTable(
        admin_service_pb2.GetTableRequest(name=f"tables/{table_id}", reason="test"),
        metadata=engine.admin_md,
    )
    answer.snapshot.ClearField("server_time")
    return (
        answer.table.SerializeToString(deterministic=True),
        answer.snapshot.SerializeToString(deterministic=True),
    )


async def get_table(engine: Engine, table_id: str) -> admin_service_pb2.GetTableResponse:
    answer: admin_service_pb2.GetTableResponse = await engine.admin.GetTable(
        admin_service_pb2.GetTableRequest(name=f"tables/{table_id}", reason="test"),
        metadata=engine.admin_md,
    )
    return answer


async def until_hand_running(engine: Engine, table_id: str) -> table_pb2.TableSnapshot:
    deadline = time.monotonic() + 5
    while True:
        snapshot = (await get_table(engine, table_id)).snapshot
        if snapshot.hand_in_progress and snapshot.turn_seat:
            return snapshot
        assert time.monotonic() < deadline, "no hand started"
        await asyncio.sleep(0.02)


async def heads_up(engine: Engine, *players: str) -> tuple[str, dict[str, int]]:
    """A table with ``players`` seated (a long clock: nothing moves unless someone acts)."""
    table_id = new_id("auth")
    await engine.create_table(table_id)
    seats = {}
    for player in players:
        seats[player] = (await engine.seat(table_id, player)).session.seat
    return table_id, seats


def act(
    engine: Engine, table_id: str, md: Metadata, hand_number: int, kind: int, **extra: Any
) -> Any:
    """An Act call (awaitable) with a fresh action id."""
    return engine.tables.Act(
        table_service_pb2.ActRequest(
            table=f"tables/{table_id}",
            hand_number=hand_number,
            kind=kind,  # type: ignore[arg-type]
            action_id=uuid.uuid4().hex,
            **extra,
        ),
        metadata=md,
    )


# ------------------------------------------------------------------ seats


async def test_a_player_acts_only_for_his_own_seat_and_only_on_his_turn(engine: Engine) -> None:
    table_id, seats = await heads_up(engine, "ann", "bob")
    snapshot = await until_hand_running(engine, table_id)
    turn = snapshot.turn_seat
    to_act = next(p for p, s in seats.items() if s == turn)
    waiting = next(p for p in seats if p != to_act)
    before = await table_state(engine, table_id)
    legal = [a.kind for a in snapshot.legal_actions]
    assert legal, "the ops view lists the legal actions of the seat to act"

    # The waiting player's token can only act for his own seat, which is not to act.
    for kind in legal:
        info = await refused(
            act(engine, table_id, engine.player_md(waiting), snapshot.hand_number, kind),
            grpc.StatusCode.FAILED_PRECONDITION,
            "NOT_YOUR_TURN",
        )
        assert info.metadata["turn_seat"] == str(turn)
    assert await table_state(engine, table_id) == before

    # The same request with the seat's own token is taken, for that seat.
    answer = await act(engine, table_id, engine.player_md(to_act), snapshot.hand_number, legal[0])
    assert answer.action.seat == turn
    assert await table_state(engine, table_id) != before


async def test_a_player_has_no_say_at_a_table_where_he_does_not_sit(engine: Engine) -> None:
    table_id, _ = await heads_up(engine, "cat", "dan")
    elsewhere, _ = await heads_up(engine, "eve", "fay")
    snapshot = await until_hand_running(engine, table_id)
    await until_hand_running(engine, elsewhere)
    before = await table_state(engine, table_id)
    md = engine.player_md("eve")  # seated, but at the other table
    name = f"tables/{table_id}"
    calls: list[Callable[[], Awaitable[Any]]] = [
        lambda: act(engine, table_id, md, snapshot.hand_number, snapshot.legal_actions[0].kind),
        lambda: engine.tables.Leave(table_service_pb2.LeaveRequest(table=name), metadata=md),
        lambda: engine.tables.SitOut(table_service_pb2.SitOutRequest(table=name), metadata=md),
        lambda: engine.tables.SitIn(table_service_pb2.SitInRequest(table=name), metadata=md),
        lambda: engine.tables.ShowCards(
            table_service_pb2.ShowCardsRequest(table=name, hand_number=1), metadata=md
        ),
    ]
    for call in calls:
        await refused(call(), grpc.StatusCode.PERMISSION_DENIED, "NOT_SEATED")
    assert await table_state(engine, table_id) == before
    # He may watch this public table from the rail: the public view, no seat, no cards.
    # (tests/engine_server/api/test_railbirds.py: a private table stays private.)
    rail = await first_message(
        engine.tables.WatchTable(table_service_pb2.WatchTableRequest(table=name), metadata=md)
    )
    assert rail.snapshot.viewer_seat == 0 and not rail.snapshot.legal_actions
    assert all(not seat.down_cards for seat in rail.snapshot.seats)


@pytest.mark.parametrize("scope", [Scope.LOBBY, Scope.ADMIN])
async def test_service_tokens_are_not_players(engine: Engine, scope: Scope) -> None:
    """The lobby's and ops' tokens name no seat, even when the subject is a seated player's id."""
    table_id, _ = await heads_up(engine, "gus", "hal")
    snapshot = await until_hand_running(engine, table_id)
    before = await table_state(engine, table_id)
    for subject in ("gus", "hal"):
        md = bearer(subject, scope)
        for kind in (a.kind for a in snapshot.legal_actions):
            await refused(
                act(engine, table_id, md, snapshot.hand_number, kind),
                grpc.StatusCode.PERMISSION_DENIED,
                "NOT_SEATED",
            )
        await refused(
            first_message(
                engine.tables.WatchTable(
                    table_service_pb2.WatchTableRequest(table=f"tables/{table_id}"), metadata=md
                )
            ),
            grpc.StatusCode.PERMISSION_DENIED,
            "NOT_SEATED",
        )
    assert await table_state(engine, table_id) == before


# ----------------------------------------------------------------- tokens


def _token(claims: dict[str, Any], secret: str = SECRET, algorithm: str = "HS256") -> str:
    return jwt.encode(claims, secret, algorithm=algorithm)


def _bad_headers() -> list[tuple[str, Metadata, str]]:
    now = int(time.time())
    good_claims = {"sub": "ivy", "scope": "player admin", "iat": now, "exp": now + 600}
    unsigned = jwt.encode(good_claims, None, algorithm="none")  # type: ignore[arg-type]
    return [
        ("missing", (), "TOKEN_MISSING"),
        ("empty", (("authorization", ""),), "TOKEN_MISSING"),
        (
            "expired",
            (
                (
                    "authorization",
                    "Bearer "
                    + mint_token(
                        SECRET, "ivy", [Scope.PLAYER, Scope.ADMIN], ttl_seconds=60, now=now - 3600
                    ),
                ),
            ),
            "TOKEN_EXPIRED",
        ),
        (
            "forged",
            (
                (
                    "authorization",
                    "Bearer "
                    + mint_token("another-secret-" + "y" * 40, "ivy", [Scope.PLAYER, Scope.ADMIN]),
                ),
            ),
            "TOKEN_INVALID",
        ),
        ("unsigned", (("authorization", "Bearer " + unsigned),), "TOKEN_INVALID"),
        (
            "tampered",
            (("authorization", "Bearer " + _tampered(good_claims)),),
            "TOKEN_INVALID",
        ),
        (
            "no subject",
            (("authorization", "Bearer " + _token({"scope": "admin", "exp": now + 600})),),
            "TOKEN_INVALID",
        ),
        (
            "no expiry",
            (("authorization", "Bearer " + _token({"sub": "ivy", "scope": "admin"})),),
            "TOKEN_INVALID",
        ),
        ("not a jwt", (("authorization", "Bearer not.a.jwt"),), "TOKEN_INVALID"),
        ("scheme only", (("authorization", "Bearer"),), "TOKEN_INVALID"),
        ("other scheme", (("authorization", "Basic aXZ5OnB3"),), "TOKEN_INVALID"),
        (
            "raw token",
            (("authorization", mint_token(SECRET, "ivy", [Scope.PLAYER, Scope.ADMIN])),),
            "TOKEN_INVALID",
        ),
    ]


def _tampered(claims: dict[str, Any]) -> str:
    """A validly signed player token whose payload was swapped for one claiming admin."""
    header, _, signature = _token({**claims, "scope": "player"}).split(".")
    _, payload, _ = _token(claims).split(".")
    return ".".join((header, payload, signature))


BAD_HEADERS = _bad_headers()


@pytest.mark.parametrize(
    ("case", "md", "reason"), BAD_HEADERS, ids=[case for case, _, _ in BAD_HEADERS]
)
async def test_a_call_without_a_valid_token_is_unauthenticated(
    engine: Engine, case: str, md: Metadata, reason: str
) -> None:
    table_id, _ = await heads_up(engine, "ivy", "jon")
    snapshot = await until_hand_running(engine, table_id)
    before = await table_state(engine, table_id)
    name = f"tables/{table_id}"
    calls: list[Callable[[], Awaitable[Any]]] = [
        lambda: act(engine, table_id, md, snapshot.hand_number, snapshot.legal_actions[0].kind),
        lambda: first_message(
            engine.tables.WatchTable(table_service_pb2.WatchTableRequest(table=name), metadata=md)
        ),
        lambda: engine.tables.Leave(table_service_pb2.LeaveRequest(table=name), metadata=md),
        lambda: engine.admin.GetTable(admin_service_pb2.GetTableRequest(name=name), metadata=md),
        lambda: engine.admin.CancelHand(
            admin_service_pb2.CancelHandRequest(name=name, hand_number=snapshot.hand_number),
            metadata=md,
        ),
        lambda: engine.admin.CloseTable(
            admin_service_pb2.CloseTableRequest(name=name), metadata=md
        ),
    ]
    for call in calls:
        await refused(call(), grpc.StatusCode.UNAUTHENTICATED, reason)
    assert await table_state(engine, table_id) == before


# ------------------------------------------------------------------ scopes


def _admin_requests(table: str, session_id: str, hand_number: int) -> dict[str, Any]:
    """One well-formed request per AdminService method."""
    a = admin_service_pb2
    return {
        "CreateTable": a.CreateTableRequest(
            request_id=new_id("req"),
            table_id=new_id("scope"),
            profile="house",
            min_buy_in=10,
            max_buy_in=1000,
            client_seed="seed",
            stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
        ),
        "SeatPlayer": a.SeatPlayerRequest(
            table=table, seat_session_id=new_id("ss"), player_id="kim", buy_in=100
        ),
        "AddChips": a.AddChipsRequest(
            table=table, seat_session_id=session_id, request_id=new_id("add"), amount=5
        ),
        "ListTables": a.ListTablesRequest(page_size=5),
        "GetTable": a.GetTableRequest(name=table, reason="peek"),
        "PauseTable": a.PauseTableRequest(name=table, reason="stop"),
        "ResumeTable": a.ResumeTableRequest(name=table),
        "CloseTable": a.CloseTableRequest(name=table, reason="close"),
        "CancelHand": a.CancelHandRequest(name=table, hand_number=hand_number, reason="x"),
        "RemovePlayer": a.RemovePlayerRequest(table=table, seat_session_id=session_id),
        "RotateSeed": a.RotateSeedRequest(name=table),
        "Drain": a.DrainRequest(),
        "ListSeatSessions": a.ListSeatSessionsRequest(table=table),
        "SetStakes": a.SetStakesRequest(
            name=table, level=2, stakes=settings_pb2.Stakes(ante=2, small_bet=4)
        ),
        "MovePlayer": a.MovePlayerRequest(
            table=table,
            seat_session_id=session_id,
            request_id=new_id("move"),
            destination_table="tables/elsewhere",
        ),
        "SetHandHold": a.SetHandHoldRequest(name=table, held=True),
        "SetTournamentInfo": a.SetTournamentInfoRequest(name=table),
        "AwardPlace": a.AwardPlaceRequest(name=table, player_id="lee", place=1),
        "ListNodes": a.ListNodesRequest(),
        "MoveTable": a.MoveTableRequest(name=table, node="elsewhere"),
    }


ADMIN_METHODS = sorted(
    admin_service_pb2.DESCRIPTOR.services_by_name["AdminService"].methods_by_name
)
#: admin_service.proto: what only the admin token may call, and what the lobby's may too
ADMIN_ONLY = [
    "CancelHand",
    "Drain",
    "GetTable",
    "ListNodes",
    "MoveTable",
    "PauseTable",
    "ResumeTable",
]
LOBBY_ALLOWED = [
    "AddChips",
    "AwardPlace",
    "CloseTable",
    "CreateTable",
    "ListSeatSessions",
    "ListTables",
    "MovePlayer",
    "RemovePlayer",
    "RotateSeed",
    "SeatPlayer",
    "SetHandHold",
    "SetStakes",
    "SetTournamentInfo",
]


async def test_the_method_lists_cover_the_service() -> None:
    assert set(ADMIN_ONLY) | set(LOBBY_ALLOWED) == set(ADMIN_METHODS)
    assert set(LOBBY_ALLOWED) == LOBBY_METHODS
    assert not set(ADMIN_ONLY) & LOBBY_METHODS


async def _scope_table(engine: Engine) -> tuple[str, str, int]:
    table_id = new_id("scope")
    await engine.create_table(table_id)
    session = (await engine.seat(table_id, "lee")).session.seat_session_id
    await engine.seat(table_id, "max")
    snapshot = await until_hand_running(engine, table_id)
    return table_id, session, snapshot.hand_number


@pytest.mark.parametrize(
    ("scopes", "methods"),
    [
        ((Scope.PLAYER,), ADMIN_METHODS),
        ((), ADMIN_METHODS),
        ((Scope.LOBBY,), ADMIN_ONLY),
        ((Scope.LOBBY, Scope.PLAYER), ADMIN_ONLY),
    ],
    ids=["player", "no scope", "lobby", "lobby+player"],
)
async def test_admin_methods_refuse_tokens_without_the_scope(
    engine: Engine, scopes: tuple[Scope, ...], methods: list[str]
) -> None:
    table_id, session, hand_number = await _scope_table(engine)
    requests = _admin_requests(f"tables/{table_id}", session, hand_number)
    md = bearer("lee", *scopes)
    before = await table_state(engine, table_id)
    tables_before = await engine.admin.ListTables(
        admin_service_pb2.ListTablesRequest(page_size=500), metadata=engine.admin_md
    )
    for method in methods:
        info = await refused(
            getattr(engine.admin, method)(requests[method], metadata=md),
            grpc.StatusCode.PERMISSION_DENIED,
            "ADMIN_REQUIRED",
        )
        assert info.metadata["method"] == method
    assert await table_state(engine, table_id) == before
    tables_after = await engine.admin.ListTables(
        admin_service_pb2.ListTablesRequest(page_size=500), metadata=engine.admin_md
    )
    assert [t.name for t in tables_after.tables] == [t.name for t in tables_before.tables]
    assert not engine.server.manager.draining


async def test_the_lobby_token_may_call_the_lobby_methods(engine: Engine) -> None:
    md = bearer("lobby", Scope.LOBBY)
    a = admin_service_pb2
    table_id = new_id("lobby")
    name = f"tables/{table_id}"
    created = await engine.admin.CreateTable(
        a.CreateTableRequest(
            request_id=new_id("req"),
            table_id=table_id,
            min_buy_in=10,
            max_buy_in=1000,
            client_seed="lobby_seed",
            stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
        ),
        metadata=md,
    )
    assert created.table.name == name
    seated = await engine.admin.SeatPlayer(
        a.SeatPlayerRequest(table=name, seat_session_id=new_id("ss"), player_id="mo", buy_in=50),
        metadata=md,
    )
    session = seated.session.seat_session_id
    added = await engine.admin.AddChips(
        a.AddChipsRequest(table=name, seat_session_id=session, request_id=new_id("r"), amount=7),
        metadata=md,
    )
    assert added.session.stack == 57
    listed = await engine.admin.ListTables(a.ListTablesRequest(page_size=500), metadata=md)
    assert name in [t.name for t in listed.tables]
    sessions = await engine.admin.ListSeatSessions(
        a.ListSeatSessionsRequest(table=name), metadata=md
    )
    assert [s.seat_session_id for s in sessions.sessions] == [session]
    rotated = await engine.admin.RotateSeed(a.RotateSeedRequest(name=name), metadata=md)
    assert rotated.revealed.commitment == created.table.seed.commitment
    assert rotated.revealed.dealer_seed
    removed = await engine.admin.RemovePlayer(
        a.RemovePlayerRequest(table=name, seat_session_id=session, reason="done"), metadata=md
    )
    assert removed.session.state == table_pb2.SEAT_SESSION_STATE_CLOSED
    assert removed.session.stack == 57
    closed = await engine.admin.CloseTable(a.CloseTableRequest(name=name), metadata=md)
    assert closed.table.status == table_pb2.TABLE_STATUS_CLOSED
