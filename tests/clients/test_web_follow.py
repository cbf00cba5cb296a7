"""The web table page follows its table to another engine node by itself (issue 15).

Two engine nodes (a and b, real servers on loopback) share one database with the lobby; two
``stud bots`` of Oslo are his opponents. Ann plays in headless Chromium
(clients/web/test/follow-table.mjs); once she has played a hand, the table moves to the other
node (a real MoveTable call: between hands). Her stream ends with ``UNAVAILABLE`` /
``TABLE_MOVED``; the page opens the table again at the web URL the ErrorInfo names, without
asking the lobby, keeps her seat view (the table section, her seat), says the table moved,
and she plays on there. Its screenshot is kept in test-artifacts/web-table-moved.png.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from stud.v1 import admin_service_pb2

from engine_server.store.migrate import prepare_database
from lobby_api.settings import LobbySettings
from tests.clients.follow_page import play_while_the_table_leaves
from tests.clients.room import serve_lobby
from tests.clients.test_web_table import npm_packages
from tests.engine_server.api.conftest import SECRET, Engine, launch, shut
from tests.lobby_api.conftest import build_app

__all__ = ["npm_packages"]  # the fixture, shared with test_web_table


@dataclass
class TwoNodeRoom:
    nodes: dict[str, Engine]
    lobby_url: str


@asynccontextmanager
async def two_node_room(tmp_path: Path) -> AsyncIterator[TwoNodeRoom]:
    """Engine nodes a and b and the lobby on one SQLite file (the lobby places each quick
    game on the least loaded live node and names it in its answer)."""
    url = f"sqlite:///{tmp_path}/room.sqlite3"
    await prepare_database(url)
    nodes = {
        node: await launch(url, node_id=node, lease_seconds=6.0, between_hands_seconds=1.0)
        for node in ("a", "b")
    }
    settings = LobbySettings(
        database_url=url,
        jwt_secret=SECRET,
        sweep_seconds=1,
        login_rate_per_minute=0,
        money_rate_per_minute=0,
    )
    app = build_app(settings, nodes["a"])
    try:
        async with serve_lobby(app) as lobby_url:
            yield TwoNodeRoom(nodes, lobby_url)
    finally:
        await app.state.engine.close()
        for engine in nodes.values():
            await shut(engine)


@pytest.mark.usefixtures("npm_packages")
async def test_the_page_follows_its_table_to_another_node(tmp_path: Path) -> None:
    async with two_node_room(tmp_path) as room:

        async def move(table_id: str, _token: str) -> tuple[str, str, str]:
            """She has played at her table's node: move it to the other one."""
            owner = next(n for n, e in room.nodes.items() if table_id in e.server.manager.tables)
            other = "b" if owner == "a" else "a"
            at = room.nodes[owner]
            await at.admin.MoveTable(
                admin_service_pb2.MoveTableRequest(name=f"tables/{table_id}", node=other),
                metadata=at.admin_md,
            )
            return table_id, owner, other

        run = await play_while_the_table_leaves(
            room.lobby_url, move, seed=7, env={"STUD_PLAY_DEADLINE": "150"}, timeout=180
        )
        report, moved, bots = run.report, run.left, run.bots
        assert run.bots_exit == 0, bots
        web = {node: engine.web_url for node, engine in room.nodes.items()}
        grpc_addresses = {node: engine.grpc_address for node, engine in room.nodes.items()}

    assert moved is not None, json.dumps(report, indent=1)
    assert report["exit"] == 0 and report["ok"], json.dumps(report, indent=1)
    table_id, owner, other = moved
    old, new = web[owner], web[other]
    assert report["before"]["tableId"] == table_id and report["before"]["engineUrl"] == old
    # Followed by itself: the page keeps the table at its new home (a reload goes there too)...
    assert report["after"] == {**report["before"], "engineUrl": new}, report
    # ... watched it there (once it left the first node, only there), with no call to the
    # lobby about where the table is (no ticket, no quick game but the first) ...
    origins = [w["origin"] for w in report["watches"]]
    assert origins[0] == old and origins[-1] == new, report
    assert origins == sorted(origins, key=[old, new].index), report
    paths = [c["path"] for c in report["lobbyCalls"]]
    assert paths.count("/quickgame") == 1 and not [p for p in paths if p.startswith("/tickets")]
    # ... kept the seat view and said what happened ...
    assert report["sectionAtMove"] == report["section"] == "table-view", report
    assert report["seatsAtMove"] == report["seatsAfter"] and len(report["seatsAfter"]) == 1
    assert report["noticeShown"], report
    # The last hand's result stays shown (the new node knows no last hand of its own).
    assert report["lastHandAtMove"] is not None, report
    assert report["notice"] == "The table moved to another server; you keep your seat."
    assert "The table moved to another server." in report["log"], report
    assert report["link"] == "connected", report
    # ... and she played on at the new node, with nothing refused.
    after = [c for c in report["clicks"] if c["hand"] > report["movedInHand"]]
    assert after and {c["engine"] for c in after} == {new}, report
    assert any(c["engine"] == old for c in report["clicks"]), report
    assert report["tableErrors"] == [], report
    # The bots at her table followed it as well (they read the same refusal).
    assert {e["engine"] for e in bots.named("moved")} == {grpc_addresses[other]}, bots
