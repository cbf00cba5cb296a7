"""The Protobuf contract (proto/stud/v1) and its generated Python code (clients/python/stud/v1).

- proto/ is buf STANDARD lint clean and has no breaking change against the last released
  contract, proto/released/v*.binpb (scripts/lint-proto, the buf pinned in clients/web);
- the committed generated code of every client (Python, web, Android, iOS) is what
  scripts/generate makes now (scripts/check-generated), and generating twice gives the same bytes;
- the generated modules import from the editable install and describe the services the
  engine serves, with each RPC's streaming kind;
- errors travel as google.rpc.Status with one google.rpc.ErrorInfo in domain "stud.v1".
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from google.protobuf import any_pb2, descriptor, timestamp_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status
from stud.v1 import (
    admin_service_connect,
    admin_service_pb2,
    admin_service_pb2_grpc,
    errors_pb2,
    events_pb2,
    settings_pb2,
    table_pb2,
    table_service_connect,
    table_service_pb2,
    table_service_pb2_grpc,
)

ROOT = Path(__file__).resolve().parents[2]

UNARY, SERVER_STREAM, BIDI_STREAM = "unary", "server_stream", "bidi_stream"

TABLE_SERVICE_RPCS = {
    "WatchTable": SERVER_STREAM,
    "Act": UNARY,
    "Play": BIDI_STREAM,
    "Leave": UNARY,
    "SitOut": UNARY,
    "SitIn": UNARY,
    "ShowCards": UNARY,
}

ADMIN_SERVICE_RPCS = {
    "CreateTable": UNARY,
    "SeatPlayer": UNARY,
    "AddChips": UNARY,
    "ListTables": UNARY,
    "GetTable": UNARY,
    "PauseTable": UNARY,
    "ResumeTable": UNARY,
    "CloseTable": UNARY,
    "CancelHand": UNARY,
    "RemovePlayer": UNARY,
    "RotateSeed": UNARY,
    "Drain": UNARY,
    "ListSeatSessions": UNARY,
    "ListNodes": UNARY,
    "SetStakes": UNARY,
    "MovePlayer": UNARY,
    "SetHandHold": UNARY,
    "SetTournamentInfo": UNARY,
    "AwardPlace": UNARY,
    "MoveTable": UNARY,
}

SERVICES = {
    "stud.v1.TableService": (table_service_pb2, TABLE_SERVICE_RPCS),
    "stud.v1.AdminService": (admin_service_pb2, ADMIN_SERVICE_RPCS),
}


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


@functools.cache
def _buf() -> str:
    """The pinned buf CLI, after scripts/setup-web installed clients/web's npm packages."""
    result = _run("scripts/setup-web")
    assert result.returncode == 0, result.stderr
    return str(ROOT / "clients/web/node_modules/.bin/buf")


def _kind(method: descriptor.MethodDescriptor) -> str:
    if method.client_streaming:
        return BIDI_STREAM if method.server_streaming else "client_stream"
    return SERVER_STREAM if method.server_streaming else UNARY


# --- tooling ------------------------------------------------------------------------------------


def test_buf_lint_passes() -> None:
    result = _run("scripts/lint-proto")
    assert result.returncode == 0, result.stdout + result.stderr


def test_buf_is_pinned_exactly() -> None:
    import json

    package = json.loads((ROOT / "clients/web/package.json").read_text())
    assert package["private"] is True
    assert package["devDependencies"]["@bufbuild/buf"] == "1.75.0"
    lock = json.loads((ROOT / "clients/web/package-lock.json").read_text())
    assert lock["packages"]["node_modules/@bufbuild/buf"]["version"] == "1.75.0"


def test_generated_code_is_up_to_date() -> None:
    result = _run("scripts/check-generated")
    assert result.returncode == 0, result.stdout + result.stderr


def _files(tree: Path) -> dict[str, bytes]:
    return {str(p.relative_to(tree)): p.read_bytes() for p in tree.rglob("*") if p.is_file()}


def test_generation_is_deterministic(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    # The two runs side by side (each into a directory of its own): a generation is mostly
    # waiting on protoc and its plugins' start, and run one after the other they took 17 s.
    runs = [
        subprocess.Popen(
            ["scripts/generate", str(out)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for out in (first, second)
    ]
    try:
        for run in runs:
            _stdout, stderr = run.communicate(timeout=300)
            assert run.returncode == 0, stderr
    finally:
        for run in runs:
            if run.poll() is None:
                run.kill()
                run.wait()
    files = _files(first)
    # Every client's tree is there (python/stud/v1, web/src/gen, android/..., ios/gen).
    for expected in (
        "python/stud/v1/table_service_pb2.py",
        "web/src/gen/stud/v1/table_service_pb.ts",
        "android/src/gen/java/stud/v1/TableServiceGrpc.java",
        "ios/gen/stud/v1/TableService.pbobjc.m",
    ):
        assert expected in files
    assert files == _files(second)


def test_buf_breaking_passes_against_the_released_contract() -> None:
    released = sorted((ROOT / "proto/released").glob("v*.binpb"))
    assert released, "no released contract image under proto/released"
    result = _run(_buf(), "breaking", "proto", "--against", str(released[-1]))
    assert result.returncode == 0, result.stdout + result.stderr


def test_buf_breaking_catches_a_removed_field(tmp_path: Path) -> None:
    # The check can fail: drop ActRequest.action_id from a copy of the contract.
    copy = tmp_path / "proto"
    shutil.copytree(ROOT / "proto", copy, ignore=shutil.ignore_patterns("released"))
    service = copy / "stud/v1/table_service.proto"
    text = service.read_text()
    head, act_request, rest = text.partition("message ActRequest {")
    assert "  string action_id = 5;\n" in rest
    service.write_text(
        head + act_request + rest.replace("  string action_id = 5;\n", "  reserved 5;\n", 1)
    )
    result = _run(
        _buf(), "breaking", str(copy), "--against", str(ROOT / "proto/released/v0.1.0.binpb")
    )
    assert result.returncode != 0
    assert "ActRequest" in result.stdout + result.stderr
    assert "action_id" in result.stdout + result.stderr


def test_contract_version_is_released_and_carried_by_the_clients() -> None:
    import json

    version = (ROOT / "proto/VERSION").read_text().strip()
    assert (ROOT / f"proto/released/v{version}.binpb").is_file()
    package = json.loads((ROOT / "clients/web/package.json").read_text())
    assert package["version"] == version


def test_generated_package_imports_from_the_install(tmp_path: Path) -> None:
    # From a directory that is not the repository: only the editable install can find `stud`.
    code = (
        "import stud.v1.table_service_pb2, stud.v1.admin_service_pb2_grpc, "
        "stud.v1.table_service_connect; print(stud.v1.table_service_pb2.__file__)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == ROOT / "clients/python/stud/v1/table_service_pb2.py"


# --- services -----------------------------------------------------------------------------------


@pytest.mark.parametrize("service_name", sorted(SERVICES))
def test_service_has_exactly_the_expected_rpcs(service_name: str) -> None:
    module, expected = SERVICES[service_name]
    service = module.DESCRIPTOR.services_by_name[service_name.removeprefix("stud.v1.")]
    assert service.full_name == service_name
    actual = {m.name: _kind(m) for m in service.methods}
    assert actual == expected


@pytest.mark.parametrize("service_name", sorted(SERVICES))
def test_rpcs_use_their_own_request_and_response(service_name: str) -> None:
    module, expected = SERVICES[service_name]
    service = module.DESCRIPTOR.services_by_name[service_name.removeprefix("stud.v1.")]
    for name in expected:
        method = service.methods_by_name[name]
        assert method.input_type.full_name == f"stud.v1.{name}Request"
        assert method.output_type.full_name == f"stud.v1.{name}Response"


def test_grpc_stubs_and_servicers_have_every_rpc() -> None:
    channel = grpc.insecure_channel("localhost:1")  # never connected
    try:
        table_stub = table_service_pb2_grpc.TableServiceStub(channel)
        admin_stub = admin_service_pb2_grpc.AdminServiceStub(channel)
        for name in TABLE_SERVICE_RPCS:
            assert callable(getattr(table_stub, name))
            assert callable(getattr(table_service_pb2_grpc.TableServiceServicer, name))
        for name in ADMIN_SERVICE_RPCS:
            assert callable(getattr(admin_stub, name))
            assert callable(getattr(admin_service_pb2_grpc.AdminServiceServicer, name))
    finally:
        channel.close()
    assert callable(table_service_pb2_grpc.add_TableServiceServicer_to_server)
    assert callable(admin_service_pb2_grpc.add_AdminServiceServicer_to_server)


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


def test_connect_code_serves_the_same_message_classes() -> None:
    for name in TABLE_SERVICE_RPCS:
        assert callable(getattr(table_service_connect.TableService, _snake(name)))
    for name in ADMIN_SERVICE_RPCS:
        assert callable(getattr(admin_service_connect.AdminService, _snake(name)))
    # protobuf=google: the Connect code uses grpcio's *_pb2 classes, not other ones.
    for name in ("ActRequest", "ActResponse", "WatchTableRequest", "WatchTableResponse"):
        assert getattr(table_service_connect, name) is getattr(table_service_pb2, name)
    assert table_service_connect.TableServiceASGIApplication is not None
    assert admin_service_connect.AdminServiceASGIApplication is not None


# --- messages -----------------------------------------------------------------------------------


def test_watch_table_response_carries_sequence_event_and_snapshot() -> None:
    deadline = timestamp_pb2.Timestamp(seconds=1_700_000_030)
    snapshot = table_pb2.TableSnapshot(
        table="tables/t1",
        viewer_seat=2,
        hand_number=7,
        street=settings_pb2.STREET_FOURTH,
        turn_seat=2,
        turn_deadline=deadline,
        seats=[
            table_pb2.Seat(
                number=2,
                player_id="p2",
                display_name="Bea",
                stack=96,
                status=table_pb2.SEAT_STATUS_SEATED,
                connected=True,
                up_cards=["Kh", "7s"],
                down_card_count=2,
                down_cards=["Ah", "Ad"],
            ),
            table_pb2.Seat(number=5, up_cards=["2c", "9d"], down_card_count=2),
        ],
        legal_actions=[
            table_pb2.LegalAction(kind=table_pb2.ACTION_KIND_FOLD),
            table_pb2.LegalAction(kind=table_pb2.ACTION_KIND_CHECK),
            table_pb2.LegalAction(
                kind=table_pb2.ACTION_KIND_BET, min_amount=2, max_amount=4, amounts=[2, 4]
            ),
        ],
        pots=[table_pb2.Pot(amount=12, eligible_seats=[2, 5])],
        seed=table_pb2.SeedPair(commitment="9cf4", client_seed="alice", hands_dealt=7),
        nonce=6,
    )
    event = events_pb2.Event(
        hand_number=7,
        action_taken=events_pb2.ActionTaken(
            seat=5, kind=table_pb2.ACTION_KIND_CHECK, action_id="a-1"
        ),
    )
    turn = events_pb2.Event(hand_number=7, turn_started=events_pb2.TurnStarted(seat=2))
    message = table_service_pb2.WatchTableResponse(
        sequence=42, event=event, events=[event, turn], snapshot=snapshot
    )
    decoded = table_service_pb2.WatchTableResponse.FromString(message.SerializeToString())
    assert decoded == message
    assert [e.WhichOneof("kind") for e in decoded.events] == ["action_taken", "turn_started"]
    assert decoded.event == decoded.events[0]
    assert decoded.snapshot.turn_deadline.seconds == 1_700_000_030
    first = table_service_pb2.WatchTableResponse(sequence=41, snapshot=snapshot)
    assert not first.HasField("event") and not first.events


def test_act_amount_has_presence() -> None:
    request = table_service_pb2.ActRequest(
        table="tables/t1", hand_number=7, kind=table_pb2.ACTION_KIND_CALL, action_id="x"
    )
    assert not request.HasField("amount")
    request.amount = 4
    assert request.HasField("amount")


def test_enums_start_unspecified() -> None:
    for module in (
        settings_pb2,
        table_pb2,
        events_pb2,
        errors_pb2,
        admin_service_pb2,
        table_service_pb2,
    ):
        for enum in module.DESCRIPTOR.enum_types_by_name.values():
            assert enum.values[0].number == 0
            assert enum.values[0].name.endswith("_UNSPECIFIED"), enum.full_name
    kinds = [v.name.removeprefix("ACTION_KIND_") for v in table_pb2.ActionKind.DESCRIPTOR.values]
    expected = ["UNSPECIFIED", "FOLD", "CHECK", "CALL", "BET", "RAISE", "COMPLETE", "BRING_IN"]
    assert kinds == [*expected, "SHOW", "MUCK"]


# --- errors -------------------------------------------------------------------------------------


def _reason(value: errors_pb2.ErrorReason.ValueType) -> str:
    return errors_pb2.ErrorReason.Name(value).removeprefix("ERROR_REASON_")


def test_error_reasons_cover_what_the_issue_names() -> None:
    reasons = {_reason(number) for number in errors_pb2.ErrorReason.values()}
    assert {
        "NOT_YOUR_TURN",
        "ILLEGAL_ACTION",
        "STALE_HAND",
        "HAND_IN_PROGRESS",
        "TABLE_NOT_FOUND",
        "SEAT_TAKEN",
        "IDEMPOTENCY_KEY_REUSED",
        "WATCH_REPLACED",
    } <= reasons


def test_error_info_packs_into_a_google_rpc_status() -> None:
    info = error_details_pb2.ErrorInfo(
        reason=_reason(errors_pb2.ERROR_REASON_NOT_YOUR_TURN),
        domain="stud.v1",
        metadata={"table": "tables/t1", "seat": "4", "turn_seat": "5", "hand_number": "7"},
    )
    detail = any_pb2.Any()
    detail.Pack(info)
    status = status_pb2.Status(
        code=code_pb2.FAILED_PRECONDITION,
        message="seat 4 acted, seat 5 is to act",
        details=[detail],
    )

    # As a grpcio server sends it (context.abort_with_status) and a client reads it back.
    grpc_status = rpc_status.to_status(status)
    assert grpc_status.code == grpc.StatusCode.FAILED_PRECONDITION
    ((key, value),) = grpc_status.trailing_metadata
    assert key == "grpc-status-details-bin"
    received = status_pb2.Status.FromString(value)
    assert received == status
    assert len(received.details) == 1
    unpacked = error_details_pb2.ErrorInfo()
    assert received.details[0].Unpack(unpacked)
    assert unpacked.reason == "NOT_YOUR_TURN"
    assert unpacked.domain == "stud.v1"
    assert unpacked.metadata["turn_seat"] == "5"
