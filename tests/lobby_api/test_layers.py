"""The lobby's import directions (ARCHITECTURE.md), read from the source.

- The engine never imports the lobby (``stud lobby`` and ``stud run`` come to the ``stud``
  dispatcher through entry points).
- The lobby reads engine data through one read port, :mod:`lobby_api.engine_reads`: no other
  module imports the engine's store models or its node registry.
- Its money domains point down: wallet (the ledger, bottom) ← settlement ← the table domains
  (quick game) and the read-only ones (history, fairness); idempotency knows no domain.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: What the lobby may import of the engine (its pure rules, the token format, ids, the
#: shared infrastructure) — and, from the read port only, the store's models and nodes.
ENGINE_FOR_THE_LOBBY = (
    "engine_server.game",
    "engine_server.auth",
    "engine_server.ids",
    "engine_server.store.database",
    "engine_server.store.types",
    "engine_server.store.metadata",
    "engine_server.settings",
    "engine_server.loops",
)
#: The command-line glue of ``stud lobby`` / ``stud run`` also sets up the engine's log
#: format, runs the one migration history and writes the room file the ``stud`` commands
#: read (``var/room.json``).
ENGINE_FOR_THE_LOBBY_CLI = (
    "engine_server.logs",
    "engine_server.store.migrate",
    "engine_server.cli.room",
)
READ_PORT = "lobby_api.engine_reads"
ENGINE_DATA = ("engine_server.store.models", "engine_server.store.nodes")

#: lobby package -> lobby packages it must not import.
BELOW = {
    "lobby_api.wallet": (
        "lobby_api.settlement",
        "lobby_api.quickgame",
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
    ),
    "lobby_api.settlement": (
        "lobby_api.quickgame",
        "lobby_api.history",
        "lobby_api.fairness",
        "lobby_api.engine_nodes",
    ),
    "lobby_api.engine_nodes": ("lobby_api.quickgame", "lobby_api.settlement"),
    "lobby_api.history": ("lobby_api.quickgame", "lobby_api.settlement", "lobby_api.wallet"),
    "lobby_api.fairness": ("lobby_api.quickgame", "lobby_api.settlement", "lobby_api.wallet"),
}


def _module(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (``from a import b`` counts as ``a`` and ``a.b``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def _sources(package: str) -> list[Path]:
    return sorted((REPO / package).rglob("*.py"))


def test_the_engine_never_imports_the_lobby() -> None:
    offending = {
        _module(path): sorted(i for i in _imports(path) if _within(i, ("lobby_api",)))
        for path in _sources("engine_server")
    }
    assert {m: i for m, i in offending.items() if i} == {}


def test_only_the_read_port_reads_the_engines_tables() -> None:
    offending: dict[str, list[str]] = {}
    for path in _sources("lobby_api"):
        module = _module(path)
        allowed = ENGINE_FOR_THE_LOBBY
        if module == READ_PORT:
            allowed += ENGINE_DATA
        if _within(module, ("lobby_api.cli",)):
            allowed += ENGINE_FOR_THE_LOBBY_CLI
        engine = {i for i in _imports(path) if _within(i, ("engine_server",))}
        # ``from engine_server.store import metadata`` names engine_server.store as well.
        bad = sorted(
            i for i in engine if not _within(i, allowed) and i not in {"engine_server.store"}
        )
        if bad:
            offending[module] = bad
    assert offending == {}


@pytest.mark.parametrize("package", sorted(BELOW))
def test_the_lobbys_domains_import_downwards(package: str) -> None:
    paths = _sources(package.replace(".", "/"))
    if not paths:
        paths = [REPO / (package.replace(".", "/") + ".py")]
    offending = {
        _module(path): sorted(i for i in _imports(path) if _within(i, BELOW[package]))
        for path in paths
    }
    assert {m: i for m, i in offending.items() if i} == {}
