"""``stud engine`` logs one JSON object per line, and a played hand's lines carry its ids.

The engine runs as a process, as in production: its stderr is the log, read
after it stopped. The same run shows its /metrics port (named in the ready
line) counting the hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import doctest
import json
import logging
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from stud.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    settings_pb2,
    table_pb2,
    table_service_pb2,
    table_service_pb2_grpc,
)

import engine_server.logs
from benchmarks.processes import STUD, ReadyProcess, start_stud
from engine_server.auth import Scope
from tests.engine_server.api.conftest import SECRET, Engine, bearer, launch, shut

ADMIN = bearer("ops", Scope.ADMIN)
a = admin_service_pb2


async def start_engine_process(
    database: Path, log: Path, extra_env: dict[str, str] | None = None
) -> tuple[ReadyProcess, dict[str, Any]]:
    """``stud engine`` on ``database``, logging JSON lines to ``log``: it and its ready line."""
    env = {
        **os.environ,
        "STUD_JWT_SECRET": SECRET,
        "STUD_DATABASE_URL": f"sqlite:///{database}",
        "STUD_ENGINE_BETWEEN_HANDS": "0.05",
        "STUD_LOG_FORMAT": "json",
        "STUD_LOG_LEVEL": "INFO",
        **(extra_env or {}),
    }
    process = await start_stud(
        "engine", "--grpc-port", "0", "--web-port", "0", "--metrics-port", "0", env=env, log=log
    )
    return process, process.ready


async def test_a_played_hand_logs_json_lines_with_its_table_and_hand(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    process, ready = await start_engine_process(tmp_path / "engine.sqlite3", log)
    try:
        assert ready["metrics"].startswith("http://127.0.0.1:")
        assert ready["metrics"].endswith("/metrics")
        async with grpc.aio.insecure_channel(ready["grpc"]) as channel:
            admin = admin_service_pb2_grpc.AdminServiceStub(channel)
            tables = table_service_pb2_grpc.TableServiceStub(channel)
            await admin.CreateTable(
                a.CreateTableRequest(
                    request_id="logged",
                    table_id="logged",
                    client_seed="logs",
                    min_buy_in=10,
                    max_buy_in=100,
                    stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
                ),
                metadata=ADMIN,
            )
            for player in ("ann", "bob"):
                await admin.SeatPlayer(
                    a.SeatPlayerRequest(
                        table="tables/logged",
                        seat_session_id=f"ss-{player}",
                        player_id=player,
                        buy_in=50,
                    ),
                    metadata=ADMIN,
                )
            # The seat to act folds hand 1; the table is paused before hand 2 can be dealt.
            deadline = time.monotonic() + 10
            while True:
                view = await admin.GetTable(
                    a.GetTableRequest(name="tables/logged", reason="test"), metadata=ADMIN
                )
                if view.snapshot.hand_in_progress and view.snapshot.turn_seat:
                    break
                assert time.monotonic() < deadline, "hand 1 never started"
                await asyncio.sleep(0.02)
            snapshot = view.snapshot
            await admin.PauseTable(a.PauseTableRequest(name="tables/logged"), metadata=ADMIN)
            player = next(s.player_id for s in snapshot.seats if s.number == snapshot.turn_seat)
            await tables.Act(
                table_service_pb2.ActRequest(
                    table="tables/logged",
                    hand_number=1,
                    kind=table_pb2.ACTION_KIND_FOLD,
                    action_id=uuid.uuid4().hex,
                ),
                metadata=bearer(player, Scope.PLAYER),
            )
        async with httpx.AsyncClient() as http:
            page = (await http.get(ready["metrics"])).text
        samples = {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for f in text_string_to_metric_families(page)
            for s in f.samples
        }
        assert samples[("stud_engine_hands_finished_total", (("cancelled", "false"),))] == 1
        assert samples[("stud_engine_actions_total", (("kind", "fold"), ("timeout", "false")))] == 1
        assert samples[("stud_engine_tables", (("status", "paused"),))] == 1
        process.terminate()
        assert await process.wait(30) == 0
    finally:
        await process.close()

    lines = log.read_text().splitlines()
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"time", "level", "logger", "message"} <= r.keys() for r in records)
    table_lines = [r for r in records if r.get("table") == "logged"]
    started = [r for r in table_lines if r["message"].endswith("started (nonce 0, seats 1,2)")]
    assert len(started) == 1, table_lines
    assert started[0]["hand"] == 1 and started[0]["level"] == "INFO"
    assert started[0]["hand_id"] and started[0]["seats"] == [1, 2]
    finished = [r for r in table_lines if r["message"] == "table logged hand 1 finished"]
    assert len(finished) == 1, table_lines
    assert finished[0]["hand"] == 1 and finished[0]["cancelled"] is False
    assert finished[0]["hand_id"] == started[0]["hand_id"]
    assert sum(finished[0]["final_stacks"].values()) + finished[0]["rake"] == 100
    paused = [r for r in table_lines if r.get("status") == "paused"]
    assert paused and paused[-1]["hand"] is None
    audit = [r for r in records if r["logger"] == "stud.audit"]
    assert audit and all(r["table"] == "logged" and r["caller"] == "ops" for r in audit)


async def test_refusals_and_timeouts_are_logged_with_table_and_hand(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="stud.table")
    engine: Engine = await launch(f"sqlite:///{tmp_path}/engine.sqlite3")
    try:
        await engine.create_table("clocked", overrides={"action_seconds": 0.2})
        await engine.admin.PauseTable(a.PauseTableRequest(name="tables/clocked"), metadata=ADMIN)
        for player in ("ann", "bob"):
            await engine.seat("clocked", player)
        await engine.admin.ResumeTable(a.ResumeTableRequest(name="tables/clocked"), metadata=ADMIN)
        deadline = time.monotonic() + 10
        while not any(getattr(r, "action", None) for r in caplog.records):
            assert time.monotonic() < deadline, "nobody timed out"
            await asyncio.sleep(0.05)
        with pytest.raises(grpc.aio.AioRpcError):  # it is not paused
            await engine.admin.ResumeTable(
                a.ResumeTableRequest(name="tables/clocked"), metadata=ADMIN
            )
    finally:
        await shut(engine)
    timeouts = [r for r in caplog.records if getattr(r, "action", None)]
    assert timeouts[0].table == "clocked" and timeouts[0].hand == 1  # type: ignore[attr-defined]
    assert timeouts[0].action in ("fold", "check")  # type: ignore[attr-defined]
    refusals = [r for r in caplog.records if getattr(r, "reason", None) == "TABLE_STATE"]
    assert len(refusals) == 1 and refusals[0].levelno == logging.DEBUG
    assert refusals[0].table == "clocked"  # type: ignore[attr-defined]
    assert refusals[0].command == "resume"  # type: ignore[attr-defined]


def _json_lines(text: str, who: str) -> list[dict[str, Any]]:
    records = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            raise AssertionError(f"{who} wrote a line that is not JSON: {line!r}") from None
        assert isinstance(record, dict) and {"time", "level", "logger", "message"} <= record.keys()
        records.append(record)
    return records


async def _garbage(address: str) -> None:
    """Bytes that are not HTTP, to an HTTP port: its server logs a warning of its own."""
    host, _, port = address.removeprefix("http://").partition(":")
    reader, writer = await asyncio.open_connection(host, int(port.split("/")[0]))
    writer.write(b"\x16\x03\x01 not http at all\r\n\r\n")
    await writer.drain()
    with contextlib.suppress(Exception):
        async with asyncio.timeout(5):
            await reader.read()
    writer.close()


async def test_every_line_of_every_process_is_json_when_json_is_asked_for(
    tmp_path: Path,
) -> None:
    """The engine, the lobby and the bots, with STUD_LOG_FORMAT=json: every line each writes
    on stderr is one JSON object: their own loggers', uvicorn's, a refusal's and a failed
    command's last word."""
    database = tmp_path / "room.sqlite3"
    engine, ready = await start_engine_process(database, tmp_path / "engine.log")
    lobby_env = {
        **os.environ,
        "STUD_JWT_SECRET": SECRET,
        "STUD_DATABASE_URL": f"sqlite:///{database}",
        "STUD_LOG_FORMAT": "json",
        "STUD_LOG_LEVEL": "INFO",
        "STUD_LOBBY_SWEEP_SECONDS": "0",
    }
    try:
        lobby = await start_stud(
            "lobby",
            "--port",
            "0",
            "--engine",
            ready["grpc"],
            env=lobby_env,
            log=tmp_path / "lobby.log",
        )
    except BaseException:
        await engine.close()
        raise
    try:
        await _garbage(ready["web"])
        await _garbage(lobby.ready["http"])
        async with httpx.AsyncClient(base_url=lobby.ready["http"]) as http:
            deep = await http.post(
                "/accounts",
                content=b'{"a":' * 1000,
                headers={"Content-Type": "application/json"},
            )
            assert deep.status_code == 400
        async with grpc.aio.insecure_channel(ready["grpc"]) as channel:
            with pytest.raises(grpc.aio.AioRpcError):
                await channel.unary_unary(
                    "/stud.v1.TableService/Act",
                    request_serializer=lambda b: b,
                    response_deserializer=lambda b: b,
                )(b"\xff\xff")
        # The bots against a port where no lobby listens: the command's error, as a record.
        bots = await asyncio.create_subprocess_exec(
            str(STUD),
            "bots",
            "--lobby",
            "http://127.0.0.1:9",
            env={**lobby_env, "STUD_BOTS_PASSWORD": "x" * 12},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        async with asyncio.timeout(60):
            bots_out, bots_err = await bots.communicate()
        assert bots.returncode == 1
        assert bots_out == b""
    finally:
        for process in (lobby, engine):
            process.terminate()
        for process in (lobby, engine):
            await process.wait(30)
    assert (lobby.returncode, engine.returncode) == (0, 0)

    engine_records = _json_lines((tmp_path / "engine.log").read_text(), "stud engine")
    lobby_records = _json_lines((tmp_path / "lobby.log").read_text(), "stud lobby")
    bots_records = _json_lines(bots_err.decode(), "stud bots")
    for records in (engine_records, lobby_records):
        uvicorn = [r for r in records if r["logger"].startswith("uvicorn")]
        assert uvicorn and uvicorn[0]["level"] == "WARNING", records
    malformed = [r for r in engine_records if r["message"].startswith("malformed request")]
    assert len(malformed) == 1 and "error" not in malformed[0]
    assert any(r["logger"].startswith("alembic") for r in lobby_records)
    [last] = bots_records
    assert last["logger"] == "stud.cli" and last["level"] == "ERROR"
    assert last["message"].startswith("stud bots: the lobby at http://127.0.0.1:9")
    assert last["exit_code"] == 1


def test_an_uncaught_exception_is_a_json_record(tmp_path: Path) -> None:
    code = (
        "from engine_server.logs import configure_logging\n"
        "import threading, warnings\n"
        "configure_logging('INFO', 'json')\n"
        "warnings.warn('careful')\n"
        "t = threading.Thread(target=lambda: 1 / 0, name='worker'); t.start(); t.join()\n"
        "raise RuntimeError('the end')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1
    records = _json_lines(done.stderr, "the process")
    assert [r["logger"] for r in records] == ["py.warnings", "stud.crash", "stud.crash"]
    assert "careful" in records[0]["message"]
    assert "ZeroDivisionError" in records[1]["message"] and "worker" in records[1]["message"]
    assert records[2]["message"] == "uncaught RuntimeError: the end"
    assert "Traceback" in records[2]["error"]


def test_bounded_log_doctest() -> None:
    result = doctest.testmod(engine_server.logs)
    assert result.attempted > 0 and result.failed == 0
