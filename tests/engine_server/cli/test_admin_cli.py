"""``stud admin`` as a process against a live engine: listings, pause, cancel-hand, drain, errors.

Every command runs as ``stud admin --engine … --token …`` in a child process
(as ops run it); the engine runs in the test's loop, so the test reads the
table through AdminService to check what each command did.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import socket
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from stud.v1 import admin_service_pb2, settings_pb2, table_pb2, table_service_pb2

from engine_server.auth import Scope, mint_token, verify_token
from tests.engine_server.api.conftest import SECRET, Engine, launch, shut
from tests.engine_server.api.test_admin import (
    fold_out,
    get_table,
    new_id,
    open_table,
    until_hand,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

STUD = Path(sys.executable).with_name("stud")
ADMIN_TOKEN = mint_token(SECRET, "ops-test", [Scope.ADMIN])
a = admin_service_pb2
#: variables that would change what the command connects to or signs with
OWN_VARIABLES = ("STUD_ENGINE_ADDRESS", "STUD_ADMIN_TOKEN", "STUD_JWT_SECRET")


@dataclass
class Run:
    code: int
    out: str
    err: str


async def stud_admin(
    *args: str,
    engine: Engine | None = None,
    token: str | None = ADMIN_TOKEN,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> Run:
    """``stud admin [--engine E] [--token T] ARGS`` in a child process."""
    argv = [str(STUD), "admin"]
    if engine is not None:
        argv += ["--engine", engine.grpc_address]
    if token is not None:
        argv += ["--token", token]
    clean = {k: v for k, v in os.environ.items() if k not in OWN_VARIABLES}
    process = await asyncio.create_subprocess_exec(
        *argv,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**clean, **(env or {})},
        cwd=cwd,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return Run(process.returncode, out.decode(), err.decode())


def one_error_line(run: Run, code: int = 1) -> str:
    """The single stderr line of a failed command (nothing on stdout)."""
    assert run.code == code, run
    assert run.out == ""
    lines = run.err.splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("stud admin: ")
    return lines[0]


def columns(output: str) -> list[dict[str, str]]:
    """Parse an aligned table: every cell starts where its header does."""
    header, *rows = output.splitlines()
    names = re.split(r"\s{2,}", header.strip())
    starts, position = [], 0
    for name in names:
        position = header.index(name, position)
        starts.append(position)
        position += len(name)
    parsed = []
    for row in rows:
        cells = {}
        for i, name in enumerate(names):
            end = starts[i + 1] if i + 1 < len(starts) else None
            # A cell never spills into the next column: the gap before it is blank.
            if end is not None and len(row) > end:
                assert row[end - 1] == " ", (row, name)
            cells[name] = row[starts[i] : end].strip()
        parsed.append(cells)
    return parsed


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    directory: Path = tmp_path_factory.mktemp("admin-cli")
    running = await launch(f"sqlite:///{directory}/engine.sqlite3")
    try:
        yield running
    finally:
        await shut(running)


# ---------------------------------------------------------------- listings


async def test_tables_are_listed_in_aligned_columns_and_as_json(engine: Engine) -> None:
    playing, _ = await open_table(engine)
    waiting = new_id("cli")
    await engine.create_table(waiting, stakes=(2, 2, 5, 10))
    await until_hand(engine, playing, 1)

    listed = await stud_admin("tables", engine=engine)
    assert listed.code == 0, listed
    assert listed.out.splitlines()[0].split() == [
        "TABLE", "STATUS", "PROFILE", "STAKES", "SEATS", "HAND", "RUNNING", "LABELS", "PLAYERS"
    ]  # fmt: skip
    rows = {row["TABLE"]: row for row in columns(listed.out)}
    assert rows[playing]["STATUS"] == "PLAYING" and rows[playing]["RUNNING"] == "yes"
    assert rows[playing]["SEATS"].startswith("2/") and rows[playing]["HAND"] == "1"
    # Who sits there: the name the lobby seated him under, then his player id.
    assert rows[playing]["PLAYERS"] == "ANN (ann), BOB (bob)"
    assert rows[waiting]["STATUS"] == "WAITING" and rows[waiting]["STAKES"] == "2/2/5/10"
    assert rows[waiting]["SEATS"].startswith("0/") and rows[waiting]["PLAYERS"] == "-"

    as_json = await stud_admin("tables", "--json", "--status", "waiting", engine=engine)
    assert as_json.code == 0, as_json
    answer = json.loads(as_json.out)
    names = [t["name"] for t in answer["tables"]]
    assert f"tables/{waiting}" in names and f"tables/{playing}" not in names
    assert {t["status"] for t in answer["tables"]} == {"TABLE_STATUS_WAITING"}
    mine = next(t for t in answer["tables"] if t["name"] == f"tables/{waiting}")
    assert mine["handInProgress"] is False and mine["settings"]["stakes"]["smallBet"] == "5"

    # One table a page: the first page says how to go on; --all-pages follows them all.
    first = await stud_admin("tables", "--page-size", "1", engine=engine)
    assert first.code == 0 and len(columns(first.out)) == 1
    assert first.err.startswith("more: --page-token ")
    every = await stud_admin("--json", "tables", "--page-size", "1", "--all-pages", engine=engine)
    everything = json.loads(every.out)
    assert {f"tables/{playing}", f"tables/{waiting}"} <= {t["name"] for t in everything["tables"]}
    assert everything["nextPageToken"] == "" and every.err == ""


async def test_nodes_lists_the_registry_in_columns_and_as_json(engine: Engine) -> None:
    listed = await stud_admin("nodes", engine=engine)
    assert listed.code == 0, listed
    *table, footnote = listed.out.splitlines()
    assert footnote == "(* answered; lease times in UTC)"
    rows = columns("\n".join(table))
    assert list(rows[0]) == [
        "NODE", "STATE", "LIVE", "EPOCH", "TABLES", "PLAYERS", "LEASE UNTIL", "GRPC", "ADMIN",
        "WEB",
    ]  # fmt: skip
    assert [r["NODE"] for r in rows] == ["main *"]
    (node,) = rows
    assert (node["STATE"], node["LIVE"], node["EPOCH"]) == ("SERVING", "yes", "1")
    assert node["GRPC"] == node["ADMIN"] == engine.grpc_address
    assert node["WEB"] == engine.web_url
    # Its open tables: every one ListTables shows by default (all but the closed ones).
    open_tables = await engine.admin.ListTables(
        admin_service_pb2.ListTablesRequest(page_size=500), metadata=engine.admin_md
    )
    assert int(node["TABLES"]) == len(open_tables.tables)

    as_json = await stud_admin("nodes", "--json", engine=engine)
    assert as_json.code == 0, as_json
    answer = json.loads(as_json.out)
    assert answer["answeredBy"] == "main" and [n["id"] for n in answer["nodes"]] == ["main"]
    assert answer["nodes"][0]["state"] == "ENGINE_NODE_STATE_SERVING"
    assert answer["nodes"][0]["live"] is True and answer["nodes"][0]["epoch"] == "1"

    lobby = mint_token(SECRET, "lobby", [Scope.LOBBY])
    denied = await stud_admin("nodes", engine=engine, token=lobby)
    assert one_error_line(denied) == "stud admin: ADMIN_REQUIRED: ListNodes needs the admin token"


# ------------------------------------------------ pause, cancel-hand, table


async def test_pause_then_cancel_hand_gives_every_chip_back(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    table_id, _ = await open_table(engine, ("ann", "bob", "cat"), buy_in=100)
    name = f"tables/{table_id}"
    snapshot = await until_hand(engine, table_id, 1)
    # More chips in than the antes: the seat to act completes the bring-in.
    player = next(s.player_id for s in snapshot.seats if s.number == snapshot.turn_seat)
    await engine.tables.Act(
        table_service_pb2.ActRequest(
            table=name, hand_number=1, kind=table_pb2.ACTION_KIND_COMPLETE, action_id="c1"
        ),
        metadata=engine.player_md(player),
    )
    during = (await get_table(engine, table_id)).snapshot
    put_in = {s.number: s.total_bet for s in during.seats}
    assert sum(put_in.values()) > 3

    paused = await stud_admin("pause", table_id, "--reason", "checking a card", engine=engine)
    assert paused.code == 0, paused
    assert paused.out == f"{name}: PAUSING, hand 1 running\n"

    # The audited view: every seat's down cards, and the call is logged with its reason.
    caplog.set_level(logging.WARNING, logger="stud.audit")
    looked = await stud_admin("table", name, "--reason", "dispute 42", engine=engine)
    assert looked.code == 0, looked
    facts, seats = looked.out.split("\n\n")
    assert f"table      {name}" in facts and "status     PAUSING" in facts
    assert "hand       1 (running: THIRD" in facts
    rows = columns(seats)
    assert [row["SEAT"] for row in rows] == [str(s.number) for s in during.seats]
    for row, seat in zip(rows, during.seats, strict=True):
        assert row["DOWN"].split() == list(seat.down_cards) and len(seat.down_cards) == 2
        assert row["UP"].split() == list(seat.up_cards)
        assert row["STACK"] == str(seat.stack) and row["SESSION"] == seat.seat_session_id
        assert row["PLAYER"] == f"{seat.player_id.upper()} ({seat.player_id})"
    audits = [r for r in caplog.records if r.name == "stud.audit"]
    assert any("dispute 42" in r.getMessage() and "ops-test" in r.getMessage() for r in audits)

    stale = await stud_admin("cancel-hand", table_id, "--hand", "2", engine=engine)
    assert one_error_line(stale).startswith("stud admin: STALE_HAND: ")
    cancelled = await stud_admin(
        "--json", "cancel-hand", table_id, "--hand", "1", "--reason", "misdeal", engine=engine
    )
    assert cancelled.code == 0, cancelled
    result = json.loads(cancelled.out)["result"]
    assert result["cancelled"] is True and result["handNumber"] == "1"
    assert {int(k): int(v) for k, v in result["returned"].items()} == {
        n: c for n, c in put_in.items() if c
    }
    assert {int(v) for v in result["finalStacks"].values()} == {100}

    # Every chip is back and no new hand started: the table is paused.
    after = await get_table(engine, table_id)
    assert after.table.status == table_pb2.TABLE_STATUS_PAUSED
    assert not after.table.hand_in_progress
    assert [(s.stack, s.total_bet) for s in after.snapshot.seats] == [(100, 0)] * 3

    # Resumed, the next hand runs; cancelled again, in the human format this time.
    resumed = await stud_admin("resume", table_id, engine=engine)
    assert resumed.out == f"{name}: WAITING\n", resumed
    await until_hand(engine, table_id, 2)
    await engine.admin.PauseTable(a.PauseTableRequest(name=name), metadata=engine.admin_md)
    again = await stud_admin("cancel-hand", table_id, engine=engine)
    assert again.code == 0, again
    head, table = again.out.split("\n", 1)
    assert head == f"{name}: hand 2 cancelled, every chip returned"
    assert {row["SEAT"]: row["STACK"] for row in columns(table)} == {
        str(s.number): "100" for s in during.seats
    }
    assert sum(int(row["RETURNED"]) for row in columns(table)) >= 3  # the antes at least
    view = await get_table(engine, table_id)
    assert [s.stack for s in view.snapshot.seats] == [100, 100, 100]
    assert view.table.status == table_pb2.TABLE_STATUS_PAUSED


async def test_sessions_remove_rotate_seed_and_close(engine: Engine) -> None:
    table_id = new_id("cli")
    name = f"tables/{table_id}"
    await engine.create_table(table_id)
    paused = await stud_admin("pause", name, engine=engine)
    assert paused.out == f"{name}: PAUSED\n", paused
    sessions = {}
    for player in ("ann", "bob"):
        sessions[player] = (await engine.seat(table_id, player, buy_in=80)).session.seat_session_id

    listed = await stud_admin("sessions", "--table", table_id, engine=engine)
    assert [(r["SESSION"], r["PLAYER"], r["STATE"], r["STACK"]) for r in columns(listed.out)] == [
        (sessions["ann"], "ANN (ann)", "OPEN", "80"),
        (sessions["bob"], "BOB (bob)", "OPEN", "80"),
    ]

    removed = await stud_admin("remove", table_id, sessions["bob"], engine=engine)
    [row] = columns(removed.out)
    assert (row["SESSION"], row["STATE"], row["STACK"]) == (sessions["bob"], "CLOSED", "80")
    assert row["CLOSED BECAUSE"] == "REMOVED" and row["PLAYER"] == "BOB (bob)"

    before = (await get_table(engine, table_id)).table
    rotated = await stud_admin(
        "--json", "rotate-seed", table_id, "--client-seed", "fresh_seed", engine=engine
    )
    answer = json.loads(rotated.out)
    revealed = answer["revealed"]
    assert revealed["commitment"] == before.seed.commitment
    assert hashlib.sha256(revealed["dealerSeed"].encode()).hexdigest() == revealed["commitment"]
    assert answer["current"]["commitment"] == before.next_commitment
    assert answer["current"]["clientSeed"] == "fresh_seed" and answer["current"]["dealerSeed"] == ""

    closed = await stud_admin("close", table_id, "--reason", "end of day", engine=engine)
    head, table = closed.out.split("\n", 1)
    assert head == f"{name}: CLOSED"
    assert [(r["PLAYER"], r["STATE"], r["STACK"]) for r in columns(table)] == [
        ("ANN (ann)", "CLOSED", "80")
    ]
    final = json.loads(
        (
            await stud_admin(
                "sessions", "--table", name, "--state", "closed", "--json", engine=engine
            )
        ).out
    )
    assert sorted((s["playerId"], s["state"], s["stack"]) for s in final["sessions"]) == [
        ("ann", "SEAT_SESSION_STATE_CLOSED", "80"),
        ("bob", "SEAT_SESSION_STATE_CLOSED", "80"),
    ]
    assert {s["playerId"]: s["displayName"] for s in final["sessions"]} == {
        "ann": "ANN",
        "bob": "BOB",
    }


async def test_sessions_tell_a_players_own_leave_from_a_removal(engine: Engine) -> None:
    """A leave the lobby relays (RemovePlayer, by_player) shows as LEFT, ops' removal as
    REMOVED, each under the player's name; ``remove --by-player`` relays one from ops."""
    table_id = new_id("cli")
    await engine.create_table(table_id)
    await stud_admin("pause", table_id, engine=engine)
    sessions = {}
    for player in ("ann", "bob", "cat"):
        sessions[player] = (await engine.seat(table_id, player, buy_in=80)).session.seat_session_id
    await engine.admin.RemovePlayer(
        a.RemovePlayerRequest(
            table=f"tables/{table_id}",
            seat_session_id=sessions["ann"],
            reason="left through the lobby",
            by_player=True,
        ),
        metadata=engine.admin_md,
    )
    removed = await stud_admin(
        "remove", table_id, sessions["bob"], "--reason", "rude", engine=engine
    )
    assert removed.code == 0, removed
    asked = await stud_admin(
        "remove", table_id, sessions["cat"], "--reason", "support ticket", "--by-player",
        engine=engine,
    )  # fmt: skip
    assert asked.code == 0, asked
    listed = await stud_admin("sessions", "--table", table_id, engine=engine)
    assert [(r["PLAYER"], r["STATE"], r["CLOSED BECAUSE"]) for r in columns(listed.out)] == [
        ("ANN (ann)", "CLOSED", "LEFT"),
        ("BOB (bob)", "CLOSED", "REMOVED"),
        ("CAT (cat)", "CLOSED", "LEFT"),
    ]
    # The same session as the other kind of removal is another request: refused.
    again = await stud_admin("remove", table_id, sessions["cat"], "--reason", "support ticket",
                             engine=engine)  # fmt: skip
    assert one_error_line(again).startswith("stud admin: IDEMPOTENCY_KEY_REUSED: ")


# -------------------------------------------------------------------- drain


async def test_drain_waits_for_the_running_hand_then_no_hand_starts(tmp_path: Path) -> None:
    engine = await launch(f"sqlite:///{tmp_path}/drain.sqlite3")
    try:
        table_id, _ = await open_table(engine)
        await until_hand(engine, table_id, 1)
        drain = asyncio.create_task(stud_admin("drain", engine=engine))
        # Once the engine has the call (the process takes a while to start), it must wait.
        deadline = time.monotonic() + 30
        while not engine.server.manager.draining:
            assert not drain.done(), drain.result()
            assert time.monotonic() < deadline, "the drain never reached the engine"
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)
        assert not drain.done(), "drain returns only once the running hand has ended"
        await fold_out(engine, table_id)
        drained = await asyncio.wait_for(drain, 30)
        assert drained.code == 0, drained
        assert drained.out == (
            "drained: 1 table on this node, 1 running hand finished; no new hand starts"
            " (the tables stay paused after a restart: `stud admin resume NAME`)\n"
        )
        listed = columns((await stud_admin("tables", engine=engine)).out)
        assert [(r["TABLE"], r["HAND"], r["RUNNING"]) for r in listed] == [(table_id, "1", "no")]
        again = await stud_admin("drain", "--json", engine=engine)
        assert json.loads(again.out) == {"tables": 1, "handsFinished": 0, "tablesMoved": 0}
        view = await get_table(engine, table_id)
        assert view.table.hand_number == 1 and not view.table.hand_in_progress
    finally:
        await shut(engine)


async def test_move_and_drain_onto_the_other_nodes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/move.sqlite3"
    a = await launch(url, node_id="a", lease_seconds=2.0)
    b = await launch(url, node_id="b", lease_seconds=2.0)
    try:
        for table_id in ("mv1", "mv2"):
            await a.create_table(table_id)
            await a.seat(table_id, f"{table_id}-ann", seat=1)
        moved = await stud_admin("move", "mv1", "--node", "b", engine=a)
        assert moved.code == 0, moved
        assert moved.out == (
            f"tables/mv1: moved to engine node b; players: {b.grpc_address},"
            f" browsers: {b.web_url}\n"
        )
        # To itself: refused, naming the field.
        refused = await stud_admin("move", "mv2", "--node", "a", engine=a)
        assert refused.code == 1
        assert refused.err.startswith(
            "stud admin: INVALID_ARGUMENT: tables/mv2 is on engine node a"
        )
        drained = await stud_admin("drain", "--move", "--json", engine=a)
        assert drained.code == 0, drained
        assert json.loads(drained.out) == {"tables": 1, "handsFinished": 0, "tablesMoved": 1}
        assert a.server.manager.tables == {}
        async with asyncio.timeout(10):
            while set(b.server.manager.tables) != {"mv1", "mv2"}:
                await asyncio.sleep(0.05)
        # b cannot move them back: a is draining (not live for new tables).
        back = await stud_admin("move", "mv1", engine=b)
        assert back.code == 1
        assert back.err.startswith("stud admin: INVALID_ARGUMENT: no other engine node is live")
        # Any node lists the whole room, with the node serving each table.
        room = await stud_admin(
            "tables", "--all-nodes", "--page-size", "1", "--all-pages", engine=a
        )
        assert room.code == 0, room
        assert sorted((r["TABLE"], r["NODE"], r["SEATS"]) for r in columns(room.out)) == [
            ("mv1", "b", "1/7"),
            ("mv2", "b", "1/7"),
        ]
        mine = await stud_admin("tables", engine=a)
        assert mine.out == "no tables\n"
        # One table from any node: a shows b's table as stored, and where it is served.
        shown = await stud_admin("table", "mv1", engine=a)
        assert shown.code == 0, shown
        assert shown.out.startswith("table      tables/mv1\n"), shown.out
        assert (
            "node       b (live, table epoch 2): shown as stored, ask that node for its cards"
            in (shown.out)
        ), shown.out
        assert "mv1-ann" in shown.out
        at_b = await stud_admin("table", "mv1", engine=b)
        assert "node       b (live, table epoch 2)\n" in at_b.out, at_b.out
        as_json = json.loads((await stud_admin("tables", "--all-nodes", "--json", engine=a)).out)
        assert as_json["placements"]["tables/mv1"] == {
            "node": "b",
            "nodeLive": True,
            "ownerEpoch": "2",
        }
        nodes = {
            r["NODE"].rstrip(" *"): r
            for r in columns("\n".join((await stud_admin("nodes", engine=b)).out.splitlines()[:-1]))
        }
        assert (nodes["a"]["TABLES"], nodes["b"]["TABLES"], nodes["b"]["PLAYERS"]) == (
            "0",
            "2",
            "2",
        )
    finally:
        await shut(a)
        await shut(b)


# ------------------------------------------------------------ errors, tokens


async def test_refusals_print_one_line_with_the_reason(engine: Engine) -> None:
    forged = mint_token("another-secret-" + "y" * 30, "ops", [Scope.ADMIN])
    lobby = mint_token(SECRET, "lobby", [Scope.LOBBY])
    missing, bad, denied = await asyncio.gather(
        stud_admin("table", "no-such-table", engine=engine),
        stud_admin("tables", engine=engine, token=forged),
        stud_admin("drain", engine=engine, token=lobby),
    )
    assert one_error_line(missing) == "stud admin: TABLE_NOT_FOUND: no table tables/no-such-table"
    assert one_error_line(bad).startswith("stud admin: TOKEN_INVALID: ")
    assert one_error_line(denied) == "stud admin: ADMIN_REQUIRED: Drain needs the admin token"
    assert not engine.server.manager.draining


async def test_an_unreachable_engine_and_bad_usage() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    unreachable, usage, address = await asyncio.gather(
        stud_admin("--engine", f"127.0.0.1:{port}", "tables"),
        stud_admin("pause"),
        stud_admin("--engine", "no-port-here", "tables"),
    )
    line = one_error_line(unreachable)
    assert line.startswith(f"stud admin: cannot reach the engine at 127.0.0.1:{port}: ")
    assert usage.code == 2 and usage.out == "" and "NAME" in usage.err.upper()
    assert one_error_line(address, code=2) == (
        "stud admin: --engine: expected HOST:PORT, got 'no-port-here'"
    )


async def test_token_is_minted_from_the_engine_secret(tmp_path: Path) -> None:
    minted = await stud_admin(
        "token", "--scope", "lobby", "--subject", "lobby-1", "--ttl", "60",
        token=None, env={"STUD_JWT_SECRET": SECRET}, cwd=tmp_path,
    )  # fmt: skip
    assert minted.code == 0, minted
    identity = verify_token(minted.out.strip(), SECRET)
    assert identity.subject == "lobby-1"
    assert identity.has(Scope.LOBBY) and not identity.has(Scope.ADMIN)
    # The default: an admin token for "ops" from the secret the engine keeps in var/.
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "jwt-secret").write_text(SECRET + "\n")
    kept = await stud_admin("token", token=None, cwd=tmp_path)
    identity = verify_token(kept.out.strip(), SECRET)
    assert (identity.subject, identity.has(Scope.ADMIN)) == ("ops", True)
    # Without either, no secret is made up (no engine would know it).
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    none = await stud_admin("token", token=None, cwd=nowhere)
    assert one_error_line(none).startswith("stud admin: no secret to sign with: ")
    assert not (nowhere / "var").exists()


async def test_commands_find_the_engine_and_secret_in_the_environment(
    engine: Engine, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="stud.audit")
    table_id = new_id("cli")
    await engine.create_table(table_id)
    looked = await stud_admin(
        "table",
        table_id,
        token=None,
        env={"STUD_ENGINE_ADDRESS": engine.grpc_address, "STUD_JWT_SECRET": SECRET},
        cwd=tmp_path,
    )
    assert looked.code == 0, looked
    assert looked.out.endswith("no seats taken\n")
    # The token minted for the command names the local user in the audit log.
    [audit] = [r for r in caplog.records if r.name == "stud.audit" and table_id in r.getMessage()]
    assert audit.caller.startswith("ops:")  # type: ignore[attr-defined]


async def test_table_shows_a_tournament_tables_level_hold_and_railbirds(engine: Engine) -> None:
    table_id = new_id("tour")
    name = f"tables/{table_id}"
    await engine.admin.CreateTable(
        a.CreateTableRequest(
            request_id=f"create-{table_id}",
            table_id=table_id,
            stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
            client_seed="cli",
            tournament=settings_pb2.TournamentTable(
                tournament_id="tour-cli", table_name="Final table", table_number=3
            ),
        ),
        metadata=engine.admin_md,
    )
    await engine.admin.SetStakes(
        a.SetStakesRequest(name=name, level=4, stakes=settings_pb2.Stakes(ante=5, small_bet=10)),
        metadata=engine.admin_md,
    )
    await engine.admin.SetHandHold(
        a.SetHandHoldRequest(name=name, held=True), metadata=engine.admin_md
    )
    rail = engine.tables.WatchTable(
        table_service_pb2.WatchTableRequest(table=name), metadata=engine.player_md("fan")
    )
    await rail.read()
    try:
        looked = await stud_admin("table", name, "--reason", "floor", engine=engine)
    finally:
        rail.cancel()
    assert looked.code == 0, looked
    facts = looked.out.split("\n\n")[0]
    assert "tournament  tour-cli, Final table (#3), level 4, hand-for-hand: next hand held" in facts
    assert "stakes 5/5/10/20, buy-in 0..-" in facts
    assert "railbirds   1" in facts
