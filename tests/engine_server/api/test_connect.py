"""Browsers' transports: Connect and gRPC-Web clients at the same table as native gRPC ones.

The engine serves TableService over connectrpc on its web port; the clients
here are connectrpc's own (``stud.v1.table_service_connect.TableServiceClient``)
speaking the Connect protocol and gRPC-Web, as a browser would, and grpcio
for the native seats. CORS is checked with plain HTTP requests.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import struct
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import pytest_asyncio
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.rpc import error_details_pb2, status_pb2
from stud.v1 import admin_service_pb2, table_pb2, table_service_pb2
from stud.v1.table_service_connect import TableServiceClient

from tests.engine_server.api.conftest import Engine, launch, shut
from tests.engine_server.api.players import has_event, with_event

pytestmark = pytest.mark.asyncio(loop_scope="module")

ORIGIN = "https://play.example"
BROWSERS = [ProtocolType.CONNECT, ProtocolType.GRPC_WEB]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    """One engine for the module (web clients allowed from ORIGIN only)."""
    directory: Path = tmp_path_factory.mktemp("connect")
    running = await launch(f"sqlite:///{directory}/engine.sqlite3", cors_origins=(ORIGIN,))
    try:
        yield running
    finally:
        await shut(running)


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def headers(engine: Engine, player: str) -> dict[str, str]:
    return dict(engine.player_md(player))


async def open_table(engine: Engine, players: list[str], *, resume: bool = True) -> str:
    """A table where all ``players`` are dealt into the first hand (seated while paused)."""
    table_id = new_id("web")
    name = f"tables/{table_id}"
    a = admin_service_pb2
    await engine.create_table(table_id)
    await engine.admin.PauseTable(a.PauseTableRequest(name=name), metadata=engine.admin_md)
    for player in players:
        await engine.seat(table_id, player, buy_in=100)
    if resume:
        await resume_table(engine, table_id)
    return table_id


async def resume_table(engine: Engine, table_id: str) -> None:
    await engine.admin.ResumeTable(
        admin_service_pb2.ResumeTableRequest(name=f"tables/{table_id}"), metadata=engine.admin_md
    )


def the_info(error: ConnectError) -> error_details_pb2.ErrorInfo:
    """The Connect error's one detail, an ``ErrorInfo`` in domain ``stud.v1``."""
    assert len(error.details) == 1, error
    [detail] = error.details
    assert detail.type_name == "google.rpc.ErrorInfo"
    info = error_details_pb2.ErrorInfo.FromString(detail.message_bytes)
    assert info.domain == "stud.v1"
    return info


# ------------------------------------------------------------------ playing


@dataclass
class Seen:
    """What one client saw of hand 1."""

    player: str
    #: set once the stream's first message (the snapshot) arrived
    watching: asyncio.Event = field(default_factory=asyncio.Event)
    seat: int = 0
    messages: list[table_service_pb2.WatchTableResponse] = field(default_factory=list)
    acted: int = 0

    def events(self, kind: str) -> list[Any]:
        return [
            getattr(event, kind)
            for m in self.messages
            for event in m.events
            if event.WhichOneof("kind") == kind
        ]


def decide(message: table_service_pb2.WatchTableResponse, seat: int) -> Any:
    """Act once per turn (on its TurnStarted, or on the first snapshot): call or check."""
    snapshot = message.snapshot
    if snapshot.hand_number != 1 or snapshot.turn_seat != seat or not snapshot.legal_actions:
        return None
    if message.events and not with_event("turn_started", lambda e: e.seat == seat)(message):
        return None
    kinds = [a.kind for a in snapshot.legal_actions]
    for kind in (table_pb2.ACTION_KIND_CHECK, table_pb2.ACTION_KIND_CALL):
        if kind in kinds:
            return kind
    return kinds[0]


def hand_over(message: table_service_pb2.WatchTableResponse) -> bool:
    return has_event(message, "hand_ended")


async def play_browser(engine: Engine, table_id: str, seen: Seen, protocol: ProtocolType) -> Seen:
    player = seen.player
    md = headers(engine, player)
    async with TableServiceClient(engine.web_url, protocol=protocol) as client:
        stream = client.watch_table(
            table_service_pb2.WatchTableRequest(table=f"tables/{table_id}"), headers=md
        )
        async for message in stream:
            seen.messages.append(message)
            seen.seat = message.snapshot.viewer_seat
            seen.watching.set()
            if hand_over(message):
                break
            kind = decide(message, seen.seat)
            if kind is not None:
                answer = await client.act(
                    table_service_pb2.ActRequest(
                        table=f"tables/{table_id}",
                        hand_number=1,
                        kind=kind,
                        action_id=uuid.uuid4().hex,
                    ),
                    headers=md,
                )
                assert answer.action.seat == seen.seat
                seen.acted += 1
        with contextlib.suppress(Exception):
            await stream.aclose()  # type: ignore[attr-defined]
    return seen


async def play_native(engine: Engine, table_id: str, seen: Seen) -> Seen:
    player = seen.player
    md = engine.player_md(player)
    call = engine.tables.WatchTable(
        table_service_pb2.WatchTableRequest(table=f"tables/{table_id}"), metadata=md
    )
    try:
        async for message in call:
            seen.messages.append(message)
            seen.seat = message.snapshot.viewer_seat
            seen.watching.set()
            if hand_over(message):
                break
            kind = decide(message, seen.seat)
            if kind is not None:
                answer = await engine.tables.Act(
                    table_service_pb2.ActRequest(
                        table=f"tables/{table_id}",
                        hand_number=1,
                        kind=kind,
                        action_id=uuid.uuid4().hex,
                    ),
                    metadata=md,
                )
                assert answer.action.seat == seen.seat
                seen.acted += 1
    finally:
        call.cancel()
    return seen


async def test_browsers_and_native_clients_play_one_hand_together(engine: Engine) -> None:
    players = ["con", "web", "nat1", "nat2"]
    table_id = await open_table(engine, players, resume=False)
    con, web, nat1, nat2 = (Seen(p) for p in players)
    playing = asyncio.gather(
        play_browser(engine, table_id, con, ProtocolType.CONNECT),
        play_browser(engine, table_id, web, ProtocolType.GRPC_WEB),
        play_native(engine, table_id, nat1),
        play_native(engine, table_id, nat2),
    )
    try:
        # Everyone watches before the first hand is dealt.
        async with asyncio.timeout(10):
            for one in (con, web, nat1, nat2):
                await one.watching.wait()
        await resume_table(engine, table_id)
        seen = await asyncio.wait_for(playing, 30)
    finally:
        playing.cancel()
    assert len({s.seat for s in seen}) == 4
    # Everyone took part: each client acted through its own transport.
    assert all(s.acted >= 1 for s in seen), {s.player: s.acted for s in seen}

    # The same hand: the same start, the same public table at every change, the same result.
    assert len({s.events("hand_started")[0].SerializeToString() for s in seen}) == 1
    assert len({s.events("hand_ended")[0].result.SerializeToString() for s in seen}) == 1
    publics = [public_by_sequence(s) for s in seen]
    common = set.intersection(*(set(p) for p in publics))
    assert len(common) > 20
    for sequence in common:
        assert len({p[sequence] for p in publics}) == 1, sequence
    [ended] = seen[0].events("hand_ended")
    final = dict(ended.result.final_stacks)
    assert sorted(final) == sorted(s.seat for s in seen)
    assert sum(final.values()) + ended.result.rake == 400

    # Each client saw its own down cards and nobody else's; the showdown shows the same ones.
    shown = {h.seat: set(h.cards) for h in ended.result.shown}
    for s in seen:
        own: set[str] = set()
        for message in s.messages:
            if not message.snapshot.hand_in_progress:
                continue
            for seat in message.snapshot.seats:
                if seat.number == s.seat:
                    assert len(seat.down_cards) == seat.down_card_count
                    own.update(seat.down_cards)
                else:
                    assert not seat.down_cards
        assert len(own) == 3
        assert own <= shown[s.seat]


def public_by_sequence(seen: Seen) -> dict[int, bytes]:
    """What every seat may see at each change: the snapshot without anyone's down cards."""
    found = {}
    for message in seen.messages:
        snapshot = table_pb2.TableSnapshot()
        snapshot.CopyFrom(message.snapshot)
        for field_name in ("viewer_seat", "legal_actions", "server_time"):
            snapshot.ClearField(field_name)
        for seat in snapshot.seats:
            seat.ClearField("down_cards")
            seat.ClearField("seat_session_id")
        found[message.sequence] = snapshot.SerializeToString(deterministic=True)
    return found


# ------------------------------------------------------------------- errors


@pytest.mark.parametrize("protocol", BROWSERS, ids=["connect", "grpc-web"])
async def test_a_browser_refusal_carries_its_error_info(
    engine: Engine, protocol: ProtocolType
) -> None:
    table_id = await open_table(engine, ["ann", "bob"])
    name = f"tables/{table_id}"
    async with TableServiceClient(engine.web_url, protocol=protocol) as client:
        stream = client.watch_table(
            table_service_pb2.WatchTableRequest(table=name), headers=headers(engine, "ann")
        )
        snapshot = None
        async for message in stream:
            if message.snapshot.hand_in_progress and message.snapshot.turn_seat:
                snapshot = message.snapshot
                break
        with contextlib.suppress(Exception):
            await stream.aclose()  # type: ignore[attr-defined]
        assert snapshot is not None
        me = snapshot.viewer_seat
        waiting = "ann" if snapshot.turn_seat != me else "bob"
        request = table_service_pb2.ActRequest(
            table=name,
            hand_number=snapshot.hand_number,
            kind=table_pb2.ACTION_KIND_FOLD,
            action_id=uuid.uuid4().hex,
        )
        with pytest.raises(ConnectError) as caught:
            await client.act(request, headers=headers(engine, waiting))
        assert caught.value.code == Code.FAILED_PRECONDITION
        info = the_info(caught.value)
        assert info.reason == "NOT_YOUR_TURN"
        assert info.metadata["turn_seat"] == str(snapshot.turn_seat)

        with pytest.raises(ConnectError) as caught:
            await client.act(request)
        assert caught.value.code == Code.UNAUTHENTICATED
        assert the_info(caught.value).reason == "TOKEN_MISSING"

        # A stream's refusal too.
        with pytest.raises(ConnectError) as caught:
            async for _ in client.watch_table(
                table_service_pb2.WatchTableRequest(table="tables/no-such-table"),
                headers=headers(engine, "ann"),
            ):
                pass
        assert caught.value.code == Code.NOT_FOUND
        info = the_info(caught.value)
        assert (info.reason, info.metadata["table"]) == ("TABLE_NOT_FOUND", "tables/no-such-table")

        # Over the limit (1 MiB, as on the gRPC port): refused as too large with its ErrorInfo;
        # over twice the limit the transport refuses it unread, compressed or not; the port
        # keeps serving.
        huge = table_service_pb2.ActRequest(
            table=name, hand_number=1, kind=table_pb2.ACTION_KIND_FOLD, action_id="a" * (5 << 20)
        )
        with pytest.raises(ConnectError) as caught:
            await client.act(huge, headers=headers(engine, "ann"))
        assert caught.value.code == Code.RESOURCE_EXHAUSTED
        big = table_service_pb2.ActRequest(
            table=name, hand_number=1, kind=table_pb2.ACTION_KIND_FOLD, action_id="a" * (1 << 20)
        )
        with pytest.raises(ConnectError) as caught:
            await client.act(big, headers=headers(engine, "ann"))
        assert caught.value.code == Code.RESOURCE_EXHAUSTED
        assert the_info(caught.value).reason == "MESSAGE_TOO_LARGE"
        under = table_service_pb2.ActRequest(
            table=name, hand_number=1, kind=table_pb2.ACTION_KIND_FOLD, action_id="a" * (1 << 19)
        )
        with pytest.raises(ConnectError) as caught:
            await client.act(under, headers=headers(engine, "ann"))
        assert caught.value.code == Code.INVALID_ARGUMENT
        assert the_info(caught.value).metadata["field"] == "action_id"


# --------------------------------------------------------------------- CORS


async def test_a_preflight_from_an_allowed_origin_gets_the_allow_headers(engine: Engine) -> None:
    async with httpx.AsyncClient(base_url=engine.web_url) as http:
        answer = await http.options(
            "/stud.v1.TableService/Act",
            headers={
                "Origin": ORIGIN,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type,x-grpc-web",
            },
        )
        assert answer.status_code == 204
        assert answer.headers["access-control-allow-origin"] == ORIGIN
        assert "POST" in answer.headers["access-control-allow-methods"]
        allowed = {
            h.strip().lower() for h in answer.headers["access-control-allow-headers"].split(",")
        }
        assert {
            "authorization",
            "content-type",
            "x-grpc-web",
            "x-user-agent",
            "grpc-timeout",
            "connect-protocol-version",
            "connect-timeout-ms",
        } <= allowed

        refused = await http.options(
            "/stud.v1.TableService/Act",
            headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
        )
        assert refused.status_code == 403
        assert "access-control-allow-origin" not in refused.headers


async def test_web_responses_expose_the_grpc_status_headers(engine: Engine) -> None:
    body = table_service_pb2.ActRequest(
        table="tables/nowhere", hand_number=1, kind=table_pb2.ACTION_KIND_FOLD, action_id="a"
    ).SerializeToString()
    async with httpx.AsyncClient(base_url=engine.web_url) as http:
        answer = await http.post(
            "/stud.v1.TableService/Act",
            content=b"\x00" + struct.pack(">I", len(body)) + body,
            headers={
                "Origin": ORIGIN,
                "Content-Type": "application/grpc-web+proto",
                "X-Grpc-Web": "1",
            },
        )
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == ORIGIN
    exposed = {
        h.strip().lower() for h in answer.headers["access-control-expose-headers"].split(",")
    }
    assert {"grpc-status", "grpc-message", "grpc-status-details-bin"} <= exposed
    # gRPC-Web: the status comes in the trailer frame (flag 0x80) at the end of the body.
    flag, length = answer.content[0], struct.unpack(">I", answer.content[1:5])[0]
    assert flag == 0x80
    trailers = dict(
        line.split(": ", 1)
        for line in answer.content[5 : 5 + length].decode().split("\r\n")
        if line
    )
    assert trailers["grpc-status"] == str(grpc.StatusCode.UNAUTHENTICATED.value[0])
    status = status_pb2.Status.FromString(
        base64.b64decode(trailers["grpc-status-details-bin"] + "==")
    )
    [detail] = status.details
    info = error_details_pb2.ErrorInfo()
    assert detail.Unpack(info)
    assert (info.reason, info.domain) == ("TOKEN_MISSING", "stud.v1")


async def test_malformed_bytes_on_the_web_port_carry_their_error_info(engine: Engine) -> None:
    """Connect (binary and JSON) and gRPC-Web: bytes that do not parse are INVALID_ARGUMENT
    with the MALFORMED_REQUEST ErrorInfo, as on the gRPC port."""
    bad_utf8 = b"\x0a\x02\xff\xfe"  # the table field, not UTF-8
    async with httpx.AsyncClient(base_url=engine.web_url) as http:
        for content, kind in (
            (bad_utf8, "proto"),
            (b"\x08\xff", "proto"),  # a truncated varint
            (b'{"handNumber": "seven"}', "json"),  # not a number
            (b'{"table": ', "json"),
        ):
            answer = await http.post(
                "/stud.v1.TableService/Act",
                content=content,
                headers={"Content-Type": f"application/{kind}"},
            )
            assert answer.status_code == 400, answer.text
            error = answer.json()
            assert error["code"] == "invalid_argument", error
            [detail] = error["details"]
            assert detail["type"] == "google.rpc.ErrorInfo"
            info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(detail["value"] + "=="))
            assert (info.reason, info.domain) == ("MALFORMED_REQUEST", "stud.v1")
        answer = await http.post(
            "/stud.v1.TableService/Act",
            content=b"\x00" + struct.pack(">I", len(bad_utf8)) + bad_utf8,
            headers={"Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1"},
        )
    flag, length = answer.content[0], struct.unpack(">I", answer.content[1:5])[0]
    assert flag == 0x80
    trailers = dict(
        line.split(": ", 1)
        for line in answer.content[5 : 5 + length].decode().split("\r\n")
        if line
    )
    assert trailers["grpc-status"] == str(grpc.StatusCode.INVALID_ARGUMENT.value[0])
    status = status_pb2.Status.FromString(
        base64.b64decode(trailers["grpc-status-details-bin"] + "==")
    )
    [detail] = status.details
    info = error_details_pb2.ErrorInfo()
    assert detail.Unpack(info)
    assert info.reason == "MALFORMED_REQUEST"


@pytest.mark.parametrize("protocol", BROWSERS, ids=["connect", "grpc-web"])
async def test_a_browser_railbird_sees_the_public_view_only(
    engine: Engine, protocol: ProtocolType
) -> None:
    table_id = await open_table(engine, ["cy", "di"], resume=False)
    async with TableServiceClient(engine.web_url, protocol=protocol) as client:
        stream = client.watch_table(
            table_service_pb2.WatchTableRequest(table=f"tables/{table_id}"),
            headers=headers(engine, "rail-fan"),
        )
        seen: list[table_service_pb2.WatchTableResponse] = []
        async with asyncio.timeout(20):
            async for message in stream:
                seen.append(message)
                if len(seen) == 1:
                    await resume_table(engine, table_id)  # his first view is in: deal
                if has_event(message, "cards_dealt") and message.snapshot.turn_seat:
                    break
        with contextlib.suppress(Exception):
            await stream.aclose()  # type: ignore[attr-defined]
    assert seen[0].snapshot.watchers == 1
    dealt = [d for m in seen for e in m.events for d in e.cards_dealt.deals]
    assert {d.seat for d in dealt} == {1, 2} and all(
        d.down_card_count for d in dealt if not d.up_cards
    )
    for message in seen:
        assert message.snapshot.viewer_seat == 0 and not message.snapshot.legal_actions
        assert all(not seat.down_cards for seat in message.snapshot.seats)
        assert all(not d.down_cards for e in message.events for d in e.cards_dealt.deals)
