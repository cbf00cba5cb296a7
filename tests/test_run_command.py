"""The README's run command brings the whole card room up and down.

``stud run`` (what ``scripts/run`` executes once the environment is set up)
runs in a subprocess on a fresh database. When it has printed its endpoints,
a player signs up through the lobby, opens a quick game that the demo bots of
his city sit in, plays a hand over gRPC, and reads that hand back from the
lobby's history. Then SIGINT stops every process cleanly.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import grpc
from stud.v1 import table_service_pb2, table_service_pb2_grpc

REPO = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _http(method: str, url: str, body: Any = None, token: str = "") -> tuple[int, Any]:
    headers = {"Content-Type": "application/json", "Idempotency-Key": uuid.uuid4().hex}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


async def _play_one_hand(grpc_address: str, table: str, token: str) -> int:
    """Play (check or call) until the first hand this player is dealt into has ended."""
    rng = random.Random(5)
    metadata = (("authorization", f"Bearer {token}"),)
    async with grpc.aio.insecure_channel(grpc_address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        stream = stub.WatchTable(
            table_service_pb2.WatchTableRequest(table=table), metadata=metadata
        )
        first_hand = 0
        async for message in stream:
            snap = message.snapshot
            if snap.hand_in_progress and not first_hand:
                first_hand = snap.hand_number
            if first_hand and snap.last_hand.hand_number >= first_hand:
                stream.cancel()
                return first_hand
            if snap.turn_seat and snap.turn_seat == snap.viewer_seat and snap.legal_actions:
                passive = [a for a in snap.legal_actions if a.kind in (2, 3)]  # check, call
                choice = passive[0] if passive else rng.choice(list(snap.legal_actions))
                try:
                    await stub.Act(
                        table_service_pb2.ActRequest(
                            table=table,
                            hand_number=snap.hand_number,
                            kind=choice.kind,
                            action_id=uuid.uuid4().hex,
                        ),
                        metadata=metadata,
                    )
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    raise AssertionError("the stream ended before a hand was played")


def test_run_command_serves_a_hand_and_stops_cleanly(tmp_path: Path) -> None:
    grpc_port, web_port, lobby_port = _free_port(), _free_port(), _free_port()
    env = {
        **os.environ,
        "STUD_JWT_SECRET": "run-command-test-" + "s" * 40,
        "STUD_ENGINE_BETWEEN_HANDS": "0.5",
        "STUD_ENGINE_METRICS_PORT": "0",
        "STUD_LOG_LEVEL": "WARNING",
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine_server",
            "run",
            "--database-url",
            f"sqlite:///{tmp_path}/room.sqlite3",
            "--grpc-port",
            str(grpc_port),
            "--web-port",
            str(web_port),
            "--lobby-port",
            str(lobby_port),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output: list[str] = []
    children: list[str] = []
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            output.append(line)
            if line.startswith("Press Ctrl-C"):
                break
        text = "".join(output)
        assert "The card room is up" in text, text
        children = subprocess.run(
            ["pgrep", "-P", str(process.pid)], capture_output=True, text=True
        ).stdout.split()
        assert len(children) >= 3, children  # engine, lobby, bots
        lobby = f"http://127.0.0.1:{lobby_port}"
        assert f"engine gRPC    127.0.0.1:{grpc_port}" in text
        assert f"{lobby}/schema" in text and f"{lobby}/play" in text

        status, _ = _http(
            "POST",
            f"{lobby}/accounts",
            {"username": "runner", "password": "runner-pass-1", "city": "oslo"},
        )
        assert status == 201
        status, login = _http(
            "POST", f"{lobby}/auth/login", {"username": "runner", "password": "runner-pass-1"}
        )
        assert status == 200
        token = login["access_token"]
        status, game = _http(
            "POST",
            f"{lobby}/quickgame",
            {"stake_level": "house-2-4", "buy_in": 200, "client_seed": "run-command-seed"},
            token,
        )
        assert status in (200, 201), game
        table_token = game.get("token") or token
        hand_number = asyncio.run(_play_one_hand(game["engine_grpc"], game["table"], table_token))
        assert hand_number >= 1

        status, history = _http("GET", f"{lobby}/hands", token=token)
        assert status == 200, history
        assert history["hands"], history
        assert any(h["table"].endswith(game["table_id"]) for h in history["hands"])
    finally:
        process.send_signal(signal.SIGINT)
        try:
            rest, _ = process.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            rest, _ = process.communicate()
        output.append(rest or "")
    assert process.returncode == 0, "".join(output)
    assert "==> stopped" in "".join(output)
    # Every child (engine, lobby, bots) is gone with it.
    alive = [pid for pid in children if Path(f"/proc/{pid}").exists()]
    assert not alive, alive
