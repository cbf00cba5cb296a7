"""The web table page finds its table again when the table's engine node dies (issue 15).

Two ``stud engine`` processes (nodes a and b, three-second leases) and the lobby share a
PostgreSQL database (tests/clients/node_processes.py); two ``stud bots`` of Oslo are Ann's
opponents. Ann plays in headless Chromium (clients/web/test/follow-table.mjs); once she has
played a hand, her table's node is killed (SIGKILL: no TABLE_MOVED, her stream just breaks,
then every new one is refused). The other node takes the table over once the dead node's
lease has run out; the page, after two failures in a row, asks the lobby at each retry where
the table is (GET /tables/{id}) and, once that names the other node, watches the table there
by itself: the same seat view, a notice, and she plays on there. Its screenshot is kept in
test-artifacts/web-table-node-died.png. The connection's order of retries and lookups is
also checked without a network, in Node (clients/web/test/connection.test.ts).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.clients.follow_page import play_while_the_table_leaves
from tests.clients.node_processes import LEASE, nodes_room
from tests.clients.test_web_table import WEB, npm_packages

__all__ = ["npm_packages"]  # the fixture, shared with test_web_table


def _run(*cmd: str | Path, cwd: Path) -> tuple[int, str]:
    done = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )
    return done.returncode, done.stdout + done.stderr


def test_the_connection_asks_the_lobby_once_its_node_stops_answering(
    web_tests_build: Path,
) -> None:
    """connection.ts in Node's test runner, with fake nodes and a fake lobby lookup."""
    code, output = _run("node", "--test", web_tests_build / "test/connection.test.js", cwd=WEB)
    assert code == 0, output
    assert "# pass 4" in output and "# fail 0" in output, output


@pytest.mark.usefixtures("npm_packages")
async def test_the_page_finds_its_table_again_when_its_node_dies(tmp_path: Path) -> None:
    async with nodes_room(tmp_path) as room:
        lobby_says: dict[str, Any] = {}

        async def kill(table_id: str, token: str) -> tuple[str, str, str]:
            """She has played at her table's node: it dies, saying nothing."""
            dead = await room.owner(table_id)
            assert dead is not None
            await room.kill(dead)
            heir = await room.taken_over(table_id, dead, LEASE * 4)
            # What the page asks: the lobby names the heir.
            async with httpx.AsyncClient(base_url=room.lobby_url) as http:
                answer = await http.get(
                    f"/tables/{table_id}", headers={"Authorization": f"Bearer {token}"}
                )
            assert answer.status_code == 200, answer.text
            lobby_says.update(answer.json())
            return table_id, dead, heir

        run = await play_while_the_table_leaves(
            room.lobby_url,
            kill,
            seed=11,
            env={"STUD_SCREENSHOT": "web-table-node-died.png", "STUD_PLAY_DEADLINE": "170"},
            timeout=200,
            bots_timeout=120,  # a minute to start at a load of 30
        )
        report, died, code = run.report, run.left, run.bots_exit
        web = {node: room.web(node) for node in room.nodes}
        grpc_addresses = {node: room.grpc(node) for node in room.nodes}

    shown = json.dumps(report, indent=1)
    assert died is not None, shown
    assert report["exit"] == 0 and report["ok"], shown
    table_id, dead, heir = died
    old, new = web[dead], web[heir]
    nodes_seen = f"nodes: {grpc_addresses} {web}; dead {dead}, heir {heir}; lobby: {lobby_says}"
    assert (lobby_says["engine_grpc"], lobby_says["engine_grpc_web"]) == (
        grpc_addresses[heir],
        new,
    ), nodes_seen
    assert report["before"]["tableId"] == table_id and report["before"]["engineUrl"] == old
    # Found by itself: the page keeps the table at its new home (a reload goes there too) ...
    assert report["after"] == {**report["before"], "engineUrl": new}, shown
    # ... watched it at the dead node until the lobby named the heir, then only there ...
    origins = [w["origin"] for w in report["watches"]]
    assert origins[0] == old and origins[-1] == new, shown
    assert origins == sorted(origins, key=[old, new].index), shown
    assert origins.count(old) >= 3, shown  # the first watch, then two failures in a row
    # ... having asked the lobby where the table is (after the kill, not before) ...
    lookups = [
        c
        for c in report["lobbyCalls"]
        if c["path"] == f"/tables/{table_id}" and c["method"] == "GET"
    ]
    first_at_new = next(w["at"] for w in report["watches"] if w["origin"] == new)
    assert [c for c in lookups if c["at"] <= first_at_new], shown
    # ... kept the seat view and said what happened ...
    assert report["sectionAtMove"] == report["section"] == "table-view", shown
    assert report["seatsAtMove"] == report["seatsAfter"] and len(report["seatsAfter"]) == 1
    assert report["noticeShown"] and report["noticeVia"] == "lobby", shown
    assert report["notice"] == (
        "The table's server stopped answering; another server serves it now. You keep your seat."
    )
    assert "The table's server went down; it plays on at another." in report["log"], shown
    assert report["link"] == "connected", shown
    # ... and she played on at the heir: a hand dealt there, her own clicks accepted there.
    after = [c for c in report["clicks"] if c["hand"] > report["movedInHand"]]
    assert after and {c["engine"] for c in after} == {new}, shown
    assert any(c["engine"] == old for c in report["clicks"]), shown
    # The network errors the browser logged were the dead node's only.
    assert all(e["url"].startswith(old) for e in report["networkErrors"]), shown
    assert code == 0, run.bots
