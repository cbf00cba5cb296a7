"""The README's run command brings the whole card room up and down.

``stud run`` (what ``scripts/run`` executes once the environment is set up)
runs in a subprocess on a fresh database. When it has printed its endpoints,
a player signs up through the lobby, opens a quick game that the demo bots of
his city sit in, plays a hand over gRPC, and reads that hand back from the
lobby's history; a player of Berlin, alone at his table, is told why, asks for
bots and plays a hand with them; the first player registers for the demo sit & go, which the
demo bots fill and start; ``stud describe``, ``stud admin`` and
``stud bots`` run from the same directory find the room on its custom ports. Then ops cancel
the sit & go, the two players play on, and SIGINT stops every process cleanly, saying what it
waits for, and the room file is gone.

A start that fails says why on the terminal (a taken port before anything
starts, held by whom when a killed stud run's parts still hold it; a part that dies with
the reason it logged, the bots' included, before the room is said to be up). A second
SIGINT stops at once, cutting off a running hand, which the next start says it ended;
what the engine says meanwhile (its drain, the hands it ended) is on the terminal.
Closing the terminal (SIGHUP) stops the room as Ctrl-C does, and a ``kill -9`` of
``stud run`` takes its parts with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
import pytest
from stud.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    table_service_pb2,
    table_service_pb2_grpc,
)

from engine_server.auth import Scope, mint_token
from tests.ipv6 import needs_ipv6_loopback

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


async def _keep_acting(grpc_address: str, table: str, token: str) -> None:
    """Act (check or call, else fold) at every turn of this player until his stream ends."""
    metadata = (("authorization", f"Bearer {token}"),)
    async with grpc.aio.insecure_channel(grpc_address) as channel:
        stub = table_service_pb2_grpc.TableServiceStub(channel)
        stream = stub.WatchTable(
            table_service_pb2.WatchTableRequest(table=table), metadata=metadata
        )
        with contextlib.suppress(grpc.aio.AioRpcError):  # the stream ends with the room
            async for message in stream:
                snap = message.snapshot
                if not (snap.turn_seat and snap.turn_seat == snap.viewer_seat):
                    continue
                kinds = [a.kind for a in snap.legal_actions]
                choice = next((k for k in (2, 3, 1) if k in kinds), kinds[0] if kinds else 0)
                if not choice:
                    continue
                with contextlib.suppress(grpc.aio.AioRpcError):  # the turn passed meanwhile
                    await stub.Act(
                        table_service_pb2.ActRequest(
                            table=table,
                            hand_number=snap.hand_number,
                            kind=choice,
                            action_id=uuid.uuid4().hex,
                        ),
                        metadata=metadata,
                    )


def _keep_playing(seats: list[tuple[str, str, str]]) -> threading.Thread:
    """The humans play on at their tables ((address, table, token) each) until the room stops,
    in a thread of their own. Away, each of them would hold every hand of his table for his
    30 s clock, and the stop would wait that out: the bots play their hands out before they
    leave, and the engine drains the hands in play (45 s of waiting)."""

    async def play() -> None:
        await asyncio.gather(*(_keep_acting(*seat) for seat in seats))

    thread = threading.Thread(target=asyncio.run, args=(play(),), daemon=True)
    thread.start()
    return thread


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "STUD_JWT_SECRET": "run-command-test-" + "s" * 40,
        "STUD_ENGINE_BETWEEN_HANDS": "0.5",
        "STUD_LOG_LEVEL": "WARNING",
    }


def _stud_run(
    tmp_path: Path, *flags: str, env: dict[str, str] | None = None, nohup: bool = False
) -> Any:
    # As a shell starts it: SIGHUP as it comes (whatever this test process was given), or
    # ignored (nohup).
    hup = signal.SIG_IGN if nohup else signal.SIG_DFL
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine_server",
            "run",
            "--database-url",
            f"sqlite:///{tmp_path}/room.sqlite3",
            *flags,
        ],
        cwd=tmp_path,
        env=env or _env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, hup),
    )


def _until_up(process: Any, output: list[str]) -> str:
    """Read ``stud run``'s output until it says the room is up (or it ends)."""
    assert process.stdout is not None
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        output.append(line)
        if line.startswith("Press Ctrl-C"):
            break
    return "".join(output)


def _children(process: Any) -> list[str]:
    return subprocess.run(
        ["pgrep", "-P", str(process.pid)], capture_output=True, text=True
    ).stdout.split()


#: A room of a test's own: no bots, every port picked free.
_NO_BOTS_ANY_PORTS = (
    "--no-bots", "--grpc-port", "0", "--web-port", "0", "--metrics-port", "0", "--lobby-port", "0",
)  # fmt: skip


def _up_with_its_parts(process: Any) -> list[str]:
    """Wait until the room is up; the process ids of its two parts (engine, lobby)."""
    text = _until_up(process, [])
    assert "The card room is up" in text, text
    children = _children(process)
    assert len(children) == 2, children
    return children


def _stop_at_once(process: Any) -> str:
    """SIGINT twice (the second stops every part at once); what it printed meanwhile."""
    process.send_signal(signal.SIGINT)
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    try:
        rest, _ = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        rest, _ = process.communicate()
    return rest or ""


def _gone(pids: list[str], seconds: float) -> list[str]:
    """Those of ``pids`` still running after waiting up to ``seconds`` for them to end."""
    deadline = time.monotonic() + seconds
    while True:
        alive = [pid for pid in pids if Path(f"/proc/{pid}").exists()]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


def _stud(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A follow-up command run from the room's directory, with no address flags."""
    env = {k: v for k, v in _env().items() if k not in ("STUD_ENGINE_ADDRESS", "STUD_BOTS_LOBBY")}
    return subprocess.run(
        [sys.executable, "-m", "engine_server", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_run_command_serves_a_hand_and_stops_cleanly(tmp_path: Path) -> None:
    grpc_port, web_port, lobby_port = _free_port(), _free_port(), _free_port()
    metrics_port = _free_port()
    process = _stud_run(
        tmp_path,
        "--grpc-port",
        str(grpc_port),
        "--web-port",
        str(web_port),
        "--metrics-port",
        str(metrics_port),
        "--lobby-port",
        str(lobby_port),
    )
    output: list[str] = []
    children: list[str] = []
    playing: threading.Thread | None = None
    try:
        text = _until_up(process, output)
        assert "The card room is up" in text, text
        children = _children(process)
        assert len(children) >= 3, children  # engine, lobby, bots
        lobby = f"http://127.0.0.1:{lobby_port}"
        # Every address, the metrics port's too.
        assert f"engine gRPC     127.0.0.1:{grpc_port}" in text
        assert f"engine web      http://127.0.0.1:{web_port}" in text
        assert f"engine metrics  http://127.0.0.1:{metrics_port}/metrics" in text
        assert f"lobby metrics   {lobby}/metrics" in text
        assert f"{lobby}/schema" in text and f"{lobby}/play" in text
        # What the seeds loader did, in words, and the follow-up commands as typed from here.
        assert re.search(
            r"^    \d+ cities, \d+ stake levels, \d+ tournament templates ", text, re.M
        )
        stud = Path(sys.executable).parent / "stud"
        assert f"  {stud} admin tables\n" in text or "  stud admin tables\n" in text, text
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics") as response:
            assert b"stud_" in response.read()

        # The follow-up commands find the room on its custom ports by themselves.
        room = json.loads((tmp_path / "var" / "room.json").read_text())
        assert room["grpc"] == f"127.0.0.1:{grpc_port}" and room["lobby"] == lobby
        described = _stud(tmp_path, "describe")
        assert described.returncode == 0, described.stderr
        assert "stud.v1.TableService" in described.stdout
        listed = _stud(tmp_path, "admin", "tables")
        assert listed.returncode == 0, listed.stderr

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

        # A player of Berlin, where no bots hold tickets, sits alone and is told so; he
        # asks for bots (the demo bots serve every city of seeds/) and plays with them.
        _http(
            "POST",
            f"{lobby}/accounts",
            {"username": "berliner", "password": "runner-pass-2", "city": "berlin"},
        )
        _status, login = _http(
            "POST", f"{lobby}/auth/login", {"username": "berliner", "password": "runner-pass-2"}
        )
        berliner = login["access_token"]
        status, alone = _http(
            "POST",
            f"{lobby}/quickgame",
            {"stake_level": "house-2-4", "buy_in": 200, "client_seed": "berlin-seed"},
            berliner,
        )
        assert status == 201, alone
        assert alone["opponents"]["state"] == "waiting", alone
        assert alone["opponents"]["message"].startswith("Waiting for players of Berlin")
        table_path = f"{lobby}/tables/{alone['table_id']}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            _status, view = _http("GET", table_path, token=berliner)
            if view["opponents"]["bots"] == "available":
                break
            time.sleep(0.2)
        assert view["opponents"]["bots"] == "available", view
        # The room's desk sends 3 bots to a table: the page offers up to 4 players, and
        # more is refused, not promised.
        assert view["opponents"]["bots_can_fill_to"] == 4, view
        status, refused = _http("POST", f"{table_path}/bots", {"players": 7}, berliner)
        assert status == 409 and refused["code"] == "not_enough_bots", refused
        status, asked = _http("POST", f"{table_path}/bots", {"players": 2}, berliner)
        assert status == 200 and asked["opponents"]["bots"] == "requested", asked
        hand_number = asyncio.run(
            _play_one_hand(alone["engine_grpc"], alone["table"], alone["token"])
        )
        assert hand_number >= 1
        _status, view = _http("GET", table_path, token=berliner)
        assert view["opponents"]["players"] == 2, view

        # The demo sit & go is open (the banner names it); the demo bots fill it once a
        # human registers, and it starts.
        assert "demo sit & go   Turbo 7: 7 players, buy-in 100 + 10" in text, text
        _status, listed = _http("GET", f"{lobby}/tournaments?status=registering&kind=sit_and_go")
        [demo] = [t for t in listed if t["template"] == "turbo-7"]
        status, entry = _http("POST", f"{lobby}/tournaments/{demo['id']}/entries", None, token)
        assert status == 201, entry
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            _status, page = _http("GET", f"{lobby}/tournaments/{demo['id']}")
            if page["status"] == "running":
                break
            time.sleep(0.5)
        assert page["status"] == "running" and page["entries"] == 7, page
        bots_in = {s["username"] for s in page["standings"]} - {"runner"}
        assert len(bots_in) == 6 and all(name.startswith("bot_") for name in bots_in), page
        # ... and the next one is open at once.
        _status, listed = _http("GET", f"{lobby}/tournaments?status=registering&kind=sit_and_go")
        assert [t["id"] for t in listed if t["template"] == "turbo-7"] != [demo["id"]], listed

        # stud bots, too, finds the lobby by itself.
        extra = _stud(tmp_path, "bots", "--cities", "vienna", "--per-city", "1", "--duration", "1")
        assert extra.returncode == 0, extra.stderr
        assert '"event": "ready"' in extra.stdout, extra.stdout

        # Ops cancel the sit & go and the hand its table plays (it closes once no hand runs):
        # the bots stop first, and a hand held by their clocks would hold the engine's drain.
        ops = mint_token(_env()["STUD_JWT_SECRET"], "ops", [Scope.ADMIN])
        status, cancelled = _http(
            "POST", f"{lobby}/admin/tournaments/{demo['id']}/cancel", {"reason": "test"}, ops
        )
        assert status == 200, cancelled
        with grpc.insecure_channel(game["engine_grpc"]) as channel:
            admin = admin_service_pb2_grpc.AdminServiceStub(channel)
            for tournament_table in page["tables"]:
                try:
                    admin.CancelHand(
                        admin_service_pb2.CancelHandRequest(
                            name=f"tables/{tournament_table['table_id']}", reason="test"
                        ),
                        metadata=(("authorization", f"Bearer {ops}"),),
                        timeout=30,
                    )
                except grpc.RpcError as error:  # between hands: none to cancel
                    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
        playing = _keep_playing(
            [
                (game["engine_grpc"], game["table"], table_token),
                (alone["engine_grpc"], alone["table"], alone["token"]),
            ]
        )
    finally:
        process.send_signal(signal.SIGINT)
        try:
            rest, _ = process.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            rest, _ = process.communicate()
        output.append(rest or "")
        if playing is not None:
            playing.join(timeout=30)  # their streams ended with the engine
    text = "".join(output)
    assert process.returncode == 0, text
    # It said what it waited for, part by part, and up to how long.
    assert "==> stopping (Ctrl-C again to stop at once)" in text
    assert "the bots leave their tables" in text and "up to 15 s" in text
    assert "the engine finishes the hands in play (up to 30 s" in text
    assert "==> stopped" in text
    assert not (tmp_path / "var" / "room.json").exists()
    # Every child (engine, lobby, bots) is gone with it.
    alive = [pid for pid in children if Path(f"/proc/{pid}").exists()]
    assert not alive, alive


def test_a_taken_port_is_named_before_anything_starts(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = _stud_run(
            tmp_path,
            "--grpc-port",
            str(_free_port()),
            "--web-port",
            str(_free_port()),
            "--lobby-port",
            str(_free_port()),
            "--metrics-port",
            str(port),
        )
        out, _ = process.communicate(timeout=60)
    assert process.returncode == 1, out
    assert out.strip().splitlines() == [
        f"stud run: the engine metrics port 127.0.0.1:{port} is taken (another stud run?): "
        "stop what uses it or choose another port with --metrics-port"
    ]


def test_a_part_that_dies_while_starting_is_reported_with_its_reason(tmp_path: Path) -> None:
    # The engine refuses a CPU it cannot run on: its reason is in var/engine.log, and
    # stud run puts it on the terminal.
    process = _stud_run(
        tmp_path,
        "--grpc-port",
        "0",
        "--web-port",
        "0",
        "--metrics-port",
        "0",
        "--lobby-port",
        "0",
        env={**_env(), "STUD_ENGINE_CPUS": "4095"},
    )
    out, _ = process.communicate(timeout=120)
    assert process.returncode == 1, out
    last = out.strip().splitlines()[-1]
    assert last.startswith("stud run: the engine exited with status 2: "), out
    assert "STUD_ENGINE_CPUS: CPU 4095 is not available to this process" in last
    assert f"(log: {tmp_path}/var/engine.log)" in last
    assert not (tmp_path / "var" / "room.json").exists()


def _running_hand(tmp_path: Path, lobby: str) -> str:
    """Two players of Berlin (no bots: one waits with a ticket, the other opens a quick game
    and is joined by him) stay away, so the hand they are dealt runs on their clocks; the
    table's id once it runs."""
    tokens = []
    for name in ("anna", "bert"):
        _http("POST", f"{lobby}/accounts", {"username": name, "password": "pass-word-1",
                                            "city": "berlin"})  # fmt: skip
        _status, login = _http(
            "POST", f"{lobby}/auth/login", {"username": name, "password": "pass-word-1"}
        )
        tokens.append(login["access_token"])
    status, ticket = _http(
        "POST", f"{lobby}/tickets", {"stake_level": "house-2-4", "buy_in": 200}, tokens[1]
    )
    assert status == 201, ticket
    status, game = _http(
        "POST",
        f"{lobby}/quickgame",
        {"stake_level": "house-2-4", "buy_in": 200, "client_seed": "away"},
        tokens[0],
    )
    assert status == 201, game
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        listed = _stud(tmp_path, "admin", "--json", "tables")
        assert listed.returncode == 0, listed.stderr
        if any(t.get("handInProgress") for t in json.loads(listed.stdout)["tables"]):
            return str(game["table_id"])
        time.sleep(0.3)
    raise AssertionError(f"no hand started at {game['table_id']}: {listed.stdout}")


def test_a_second_interrupt_stops_at_once(tmp_path: Path) -> None:
    # A short lease, so that the next start waits little for the one the killed engine held;
    # the engine's drain says how it goes at INFO.
    env = {**_env(), "STUD_ENGINE_LEASE_SECONDS": "3", "STUD_LOG_LEVEL": "INFO"}
    flags = _NO_BOTS_ANY_PORTS
    process = _stud_run(tmp_path, *flags, env=env)
    output: list[str] = []
    children: list[str] = []
    try:
        text = _until_up(process, output)
        assert "The card room is up" in text, text
        children = _children(process)
        assert len(children) == 2, children  # engine, lobby
        room = json.loads((tmp_path / "var" / "room.json").read_text())
        assert room["pid"] == process.pid
        _running_hand(tmp_path, room["lobby"])
        process.send_signal(signal.SIGINT)
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("==> stopping (Ctrl-C again to stop at once)"), first
        output.append(first)
        # The engine's drain, as it says it, under the step.
        while not (line := process.stdout.readline()).startswith("    engine: draining"):
            assert line, "".join(output)
            output.append(line)
        output.append(line)
        assert line.startswith(
            "    engine: draining: waiting up to 30 s for 1 running hand(s) to finish"
        ), line
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=30)
        output.append(rest)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    text = "".join(output)
    assert process.returncode == 130, text
    assert (
        "==> stopping at once: hands in play are cut off; the engine cancels them when it "
        "next starts, and every chip bet in them goes back"
    ) in text
    assert "==> stopped" not in text
    assert not (tmp_path / "var" / "room.json").exists()
    assert not _gone(children, 5)

    # The next start says what became of the hand cut off.
    process = _stud_run(tmp_path, *flags, env=env)
    output = []
    try:
        text = _until_up(process, output)
    finally:
        text += _stop_at_once(process)
    assert "The card room is up" in text, text
    assert (
        "    engine: ended 1 hand(s) left running by a previous engine (cancelled, every chip "
        "back, or settled where their stored actions had ended them)\n"
    ) in text


def test_closing_the_terminal_stops_the_room_as_ctrl_c_does(tmp_path: Path) -> None:
    # INFO: the engine says how it stops.
    process = _stud_run(tmp_path, *_NO_BOTS_ANY_PORTS, env={**_env(), "STUD_LOG_LEVEL": "INFO"})
    try:
        children = _up_with_its_parts(process)
        # The terminal goes: SIGHUP, and nothing it writes from then on can be read.
        assert process.stdout is not None
        process.stdout.close()
        process.send_signal(signal.SIGHUP)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert not _gone(children, 5)
    assert not (tmp_path / "var" / "room.json").exists()
    # It stopped the parts in order, as on Ctrl-C: the engine drained and gave its node up.
    engine_log = (tmp_path / "var" / "engine.log").read_text()
    assert "draining: no hand is running; stopping now" in engine_log
    assert "stopped: node main is free for the next start" in engine_log


def test_under_nohup_it_outlives_its_terminal(tmp_path: Path) -> None:
    process = _stud_run(tmp_path, *_NO_BOTS_ANY_PORTS, nohup=True)
    output: list[str] = []
    try:
        text = _until_up(process, output)
        assert "The card room is up" in text, text
        process.send_signal(signal.SIGHUP)
        time.sleep(2)
        assert process.poll() is None
        assert (tmp_path / "var" / "room.json").exists()
    finally:
        text += _stop_at_once(process)
    assert process.returncode == 130, text


def _listening(port: int) -> set[str]:
    """The IPv4 addresses something listens on at ``port`` (from /proc/net/tcp)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, _, hex_port = local.partition(":")
        if state == "0A" and int(hex_port, 16) == port:
            found.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return found


def test_host_is_where_every_part_listens(tmp_path: Path) -> None:
    from engine_server.settings import advertised_host

    ports = {name: _free_port() for name in ("web", "metrics", "lobby")}
    process = _stud_run(
        tmp_path, "--no-bots", "--host", "0.0.0.0", "--grpc-port", "0",
        "--web-port", str(ports["web"]), "--metrics-port", str(ports["metrics"]),
        "--lobby-port", str(ports["lobby"]),
    )  # fmt: skip
    output: list[str] = []
    try:
        text = _until_up(process, output)
        assert "The card room is up" in text, text
        for name, port in ports.items():
            assert _listening(port) == {"0.0.0.0"}, name
        # The banner names the machine (players elsewhere connect to it); the room file,
        # for the commands run here, loopback.
        machine = advertised_host("0.0.0.0")
        assert f"  web table       http://{machine}:{ports['lobby']}/play\n" in text, text
        assert f"  engine web      http://{machine}:{ports['web']}  (" in text, text
        room = json.loads((tmp_path / "var" / "room.json").read_text())
        assert room["lobby"] == f"http://127.0.0.1:{ports['lobby']}"
        assert room["grpc"].startswith("127.0.0.1:")
        described = _stud(tmp_path, "describe")
        assert described.returncode == 0, described.stderr
    finally:
        text += _stop_at_once(process)


@needs_ipv6_loopback
def test_an_ipv6_host_is_written_in_brackets_everywhere(tmp_path: Path) -> None:
    """``--host ::1``: every part listens there (the engine could not bind "::1:50051"), and
    every address said or written is ``[::1]:PORT``: the steps, the banner, the room file the
    follow-up commands read."""
    process = _stud_run(
        tmp_path, "--no-bots", "--host", "::1", "--grpc-port", "0", "--web-port", "0",
        "--metrics-port", "0", "--lobby-port", "0",
    )  # fmt: skip
    output: list[str] = []
    try:
        text = _until_up(process, output)
        assert "The card room is up" in text, text
        assert "==> starting the engine (gRPC [::1]:0, web [::1]:0, metrics [::1]:0)" in text
        assert "==> starting the lobby (http://[::1]:0)" in text
        room = json.loads((tmp_path / "var" / "room.json").read_text())
        for key in ("lobby", "grpc", "web", "metrics"):
            address = room[key] if "//" in room[key] else f"//{room[key]}"
            assert urlsplit(address).hostname == "::1" and urlsplit(address).port, room
            assert "[::1]:" in room[key], room
        assert f"  engine gRPC     {room['grpc']}  (" in text, text
        described = _stud(tmp_path, "describe")
        assert described.returncode == 0, described.stderr
        assert "stud.v1.TableService" in described.stdout
    finally:
        text += _stop_at_once(process)


@needs_ipv6_loopback
@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_a_taken_ipv6_port_is_named_in_brackets(host: str) -> None:
    from lobby_api.cli.failure import Failed
    from lobby_api.cli.ports import check_ports

    with socket.create_server(("::1", 0), family=socket.AF_INET6) as taken:
        port = taken.getsockname()[1]
        try:
            check_ports([("lobby port", host, port, "--lobby-port")])
        except Failed as error:
            said = str(error)
        else:
            raise AssertionError("a taken port passed")
    assert said == (
        f"the lobby port [::1]:{port} is taken (another stud run?): stop what uses it or "
        "choose another port with --lobby-port"
    )


def test_a_killed_stud_run_takes_its_parts_with_it(tmp_path: Path) -> None:
    # INFO: the engine says how it stops.
    process = _stud_run(tmp_path, *_NO_BOTS_ANY_PORTS, env={**_env(), "STUD_LOG_LEVEL": "INFO"})
    try:
        children = _up_with_its_parts(process)
        os.kill(process.pid, signal.SIGKILL)
        process.communicate(timeout=10)
        # Each part got a SIGTERM as it died, and stops as on a first Ctrl-C.
        assert not _gone(children, 45)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    engine_log = (tmp_path / "var" / "engine.log").read_text()
    assert "stopped: node main is free for the next start" in engine_log
    # Its room file stays behind, naming a process that is gone: the follow-up commands
    # ignore it and say so.
    room = json.loads((tmp_path / "var" / "room.json").read_text())
    assert room["pid"] == process.pid
    bots = _stud(tmp_path, "bots")
    assert bots.returncode == 2
    assert bots.stderr.strip().endswith(
        f"(var/room.json is left by a stud run that is no longer running, pid {process.pid}, "
        f"which served it at {room['lobby']})"
    ), bots.stderr


def test_a_port_held_by_the_parts_of_a_killed_stud_run_is_named() -> None:
    from lobby_api.cli.failure import Failed
    from lobby_api.cli.ports import check_ports

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        left = {"grpc": "127.0.0.1:1", "lobby": f"http://127.0.0.1:{port}", "pid": 4321}
        ports = [("engine gRPC port", "127.0.0.1", _free_port(), "--grpc-port"),
                 ("lobby port", "127.0.0.1", port, "--lobby-port")]  # fmt: skip
        try:
            check_ports(ports, left)
        except Failed as error:
            said = str(error)
        else:
            raise AssertionError("a taken port passed")
        assert said == (
            f"the lobby port 127.0.0.1:{port} is taken, most likely by the parts of the stud "
            "run that was killed (pid 4321, var/room.json), which stop by themselves once "
            "their hands end (within a minute): wait, or choose another port with --lobby-port"
        )
        # A room file that names other ports says nothing of this one.
        try:
            check_ports(ports, {**left, "lobby": "http://127.0.0.1:1"})
        except Failed as error:
            assert "(another stud run?)" in str(error)


def test_bots_that_cannot_start_fail_the_start(tmp_path: Path) -> None:
    # A password the lobby refuses: no bot can sign in, and stud bots exits.
    process = _stud_run(
        tmp_path, "--grpc-port", "0", "--web-port", "0", "--metrics-port", "0",
        "--lobby-port", "0",
        env={**_env(), "STUD_BOTS_PASSWORD": "short"},
    )  # fmt: skip
    out, _ = process.communicate(timeout=120)
    assert process.returncode == 1, out
    assert "The card room is up" not in out
    last = out.strip().splitlines()[-1]
    assert re.fullmatch(
        r"stud run: the bots exited with status 1: bot_\w+: cannot sign in: 400 "
        r"invalid_request: password: .*\(log: .*/var/bots\.log\)",
        last,
    ), out
    assert not (tmp_path / "var" / "room.json").exists()


def test_a_database_it_cannot_use_is_one_line(tmp_path: Path) -> None:
    closed = _free_port()  # no PostgreSQL server there
    process = subprocess.Popen(
        [sys.executable, "-m", "engine_server", "run", "--database-url",
         f"postgresql://stud:hunter2@127.0.0.1:{closed}/stud", "--no-bots", "--grpc-port", "0",
         "--web-port", "0", "--metrics-port", "0", "--lobby-port", "0"],
        cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 1, out
    assert "hunter2" not in out
    assert out.splitlines() == [
        f"==> database postgresql://stud:***@127.0.0.1:{closed}/stud: migrating",
        f"stud run: the database postgresql://stud:***@127.0.0.1:{closed}/stud: "
        f"[Errno 111] Connect call failed ('127.0.0.1', {closed})",
    ]


def test_a_room_file_left_by_a_killed_stud_run_is_ignored(tmp_path: Path) -> None:
    from engine_server.cli.room import read_room, remove_room, room_address, write_room

    path = tmp_path / "var" / "room.json"
    write_room({"grpc": "127.0.0.1:7001", "lobby": "http://127.0.0.1:7002"}, path)
    assert room_address("grpc", path) == "127.0.0.1:7001"  # this process: alive
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    room = json.loads(path.read_text())
    path.write_text(json.dumps({**room, "pid": dead.pid}))
    assert read_room(path) == {} and room_address("grpc", path) is None
    remove_room(path)  # not this process's file: left alone
    assert path.exists()
    path.write_text("{not json")
    assert read_room(path) == {}
