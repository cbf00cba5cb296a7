"""Imports point down and inward only (docs/architecture.md).

Each room of the project may import only the rooms below it. The rules are read from every
module's import statements (``import x``, ``from x import y``, relative imports, and imports
inside functions alike), so a new module is checked the day it is written.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine_server", "lobby_api")


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, dotted
    target: str  # the imported module, dotted (for ``from x import y``: x.y when y is a module)
    line: int

    def __str__(self) -> str:
        return f"{self.module}:{self.line} imports {self.target}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports_of(path: Path) -> Iterator[Import]:
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            for alias in node.names:
                # ``from engine_server.store import models`` imports engine_server.store.models.
                candidate = f"{source}.{alias.name}"
                is_module = (ROOT / Path(*candidate.split(".")).with_suffix(".py")).is_file() or (
                    ROOT / Path(*candidate.split("."))
                ).is_dir()
                yield Import(module, candidate if is_module else source, node.lineno)


def _project_imports() -> list[Import]:
    found: list[Import] = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found.extend(i for i in _imports_of(path) if i.target.split(".")[0] in PACKAGES)
    return found


IMPORTS = _project_imports()


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _from(room: str) -> list[Import]:
    return [i for i in IMPORTS if _within(i.module, (room,))]


def _breaking(room: str, allowed: tuple[str, ...]) -> list[str]:
    return [str(i) for i in _from(room) if not _within(i.target, allowed)]


def test_the_checker_sees_the_project() -> None:
    assert len({i.module for i in IMPORTS}) > 50
    assert any(
        i.module.startswith("lobby_api.") and i.target.startswith("engine_server.game")
        for i in IMPORTS
    )


def test_the_engine_never_imports_the_lobby() -> None:
    assert [str(i) for i in _from("engine_server") if _within(i.target, ("lobby_api",))] == []


#: room -> the rooms (and shared leaves) it may import; its own room is always allowed.
ENGINE_ROOMS = {
    # The rules are pure: nothing of the project.
    "engine_server.game": ("engine_server.game",),
    # The table actor, its rules over the table state, the broadcaster, and its ports.
    "engine_server.table": ("engine_server.table", "engine_server.game", "engine_server.ids"),
    # One store per aggregate, implementing the table's ports.
    "engine_server.store": (
        "engine_server.store",
        "engine_server.table",
        "engine_server.game",
        "engine_server.ids",
    ),
}


@pytest.mark.parametrize("room", sorted(ENGINE_ROOMS))
def test_engine_rooms_import_only_the_rooms_below(room: str) -> None:
    assert _breaking(room, ENGINE_ROOMS[room]) == []


def test_the_transports_reach_tables_through_the_table_room_not_the_store() -> None:
    allowed = (
        "engine_server.api",
        "engine_server.table",
        "engine_server.game",
        "engine_server.auth",
        "engine_server.ids",
        "engine_server.logs",  # the bounded-rate log of refused requests
    )
    assert _breaking("engine_server.api", allowed) == []


def test_the_gateway_holds_no_table_and_reaches_no_store() -> None:
    """The gateway relays players' streams: it shares the engine's wire helpers, tokens and
    settings, and keeps no table, store or engine server of its own."""
    allowed = (
        "engine_server.gateway",
        "engine_server.api.errors",
        "engine_server.api.guards",
        "engine_server.auth",
        "engine_server.settings",
        "engine_server.loops",
        "engine_server.table.errors",
        "engine_server.table.mailbox",
    )
    assert _breaking("engine_server.gateway", allowed) == []


#: What of the engine the lobby may import anywhere: the pure rules, the shared token format
#: and ids, and the shared database plumbing; engine data only through the read port.
LOBBY_MAY_IMPORT = (
    "lobby_api",
    "engine_server.game",
    "engine_server.auth",
    "engine_server.ids",
    "engine_server.settings",
    "engine_server.loops",
    "engine_server.store.database",
    "engine_server.store.metadata",
    "engine_server.store.types",
)
#: ``stud lobby`` and ``stud run`` also migrate the one database, log in the shared format and
#: settle the garbage collector as the engine does.
LOBBY_CLI_MAY_IMPORT = (
    "engine_server.collector",
    "engine_server.logs",
    "engine_server.store.migrate",
    "engine_server.cli.room",
)
READ_PORT = "lobby_api.engine_reads"
ENGINE_DATA = ("engine_server.store", "engine_server.table")


def _lobby_allowed(module: str) -> tuple[str, ...]:
    allowed = LOBBY_MAY_IMPORT
    if _within(module, ("lobby_api.cli",)):
        allowed += LOBBY_CLI_MAY_IMPORT
    if module == READ_PORT:
        allowed += ENGINE_DATA
    return allowed


def test_the_lobby_reads_engine_data_through_one_port_and_nothing_else_of_the_engine() -> None:
    wrong = [str(i) for i in _from("lobby_api") if not _within(i.target, _lobby_allowed(i.module))]
    assert wrong == []
    assert any(i.module == READ_PORT and _within(i.target, ENGINE_DATA) for i in IMPORTS)


#: lobby package -> the lobby packages it must not import (money flows downwards: the wallet's
#: ledger at the bottom, settlement above it, the table domains above settlement).
BELOW = {
    "lobby_api.wallet": (
        "lobby_api.settlement",
        "lobby_api.quickgame",
        "lobby_api.tournaments",
        "lobby_api.history",
        "lobby_api.fairness",
        "lobby_api.idempotency",
        "lobby_api.engine_nodes",
        "lobby_api.engine_reads",
    ),
    "lobby_api.idempotency": (
        "lobby_api.wallet",
        "lobby_api.settlement",
        "lobby_api.quickgame",
        "lobby_api.tournaments",
    ),
    "lobby_api.settlement": (
        "lobby_api.quickgame",
        "lobby_api.tournaments",
        "lobby_api.history",
        "lobby_api.fairness",
        "lobby_api.engine_nodes",
    ),
    "lobby_api.engine_nodes": (
        "lobby_api.quickgame",
        "lobby_api.tournaments",
        "lobby_api.settlement",
    ),
    "lobby_api.quickgame": ("lobby_api.tournaments", "lobby_api.history", "lobby_api.fairness"),
    "lobby_api.tournaments": ("lobby_api.quickgame", "lobby_api.history", "lobby_api.fairness"),
    "lobby_api.history": (
        "lobby_api.quickgame",
        "lobby_api.tournaments",
        "lobby_api.settlement",
        "lobby_api.wallet",
    ),
    "lobby_api.fairness": (
        "lobby_api.quickgame",
        "lobby_api.tournaments",
        "lobby_api.settlement",
        "lobby_api.wallet",
    ),
}


@pytest.mark.parametrize("package", sorted(BELOW))
def test_the_lobbys_domains_import_downwards(package: str) -> None:
    assert [str(i) for i in _from(package) if _within(i.target, BELOW[package])] == []


def test_no_module_imports_another_domains_private_names() -> None:
    wrong = []
    for path in sorted((ROOT / "lobby_api").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("lobby_api")
            ):
                wrong += [
                    f"{_module_name(path)}:{node.lineno} imports {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert wrong == []
