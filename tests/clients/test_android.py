"""The Android client (clients/android): the generated Java lite messages and gRPC stubs and the
Kotlin example, compiled with Debian's javac/kotlinc against Debian's jars (scripts/build-android),
play at a real engine on loopback over gRPC.

The test needs java and kotlinc (scripts/install-system-deps installs them; scripts/test runs
it). Without them it is skipped — loudly, and never in CI (CI=true), where it fails instead.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from engine_server.api.table_service import TableServiceCore
from engine_server.auth import Identity, Scope, mint_token
from tests.clients.bots import ROOT, Observed, assert_bot_played, passive_player, run_bot
from tests.engine_server.api.conftest import SECRET, Engine, launch, shut

MISSING = [tool for tool in ("java", "javac", "kotlinc") if shutil.which(tool) is None]
if MISSING and os.environ.get("CI") != "true":
    pytest.skip(
        f"ANDROID CLIENT NOT TESTED: {', '.join(MISSING)} missing on this machine; "
        "run scripts/install-system-deps (scripts/test does)",
        allow_module_level=True,
    )

HANDS = 2


@pytest.fixture(scope="module")
def classpath() -> str:
    """Build the Android client (cached in clients/android/build) and return its class path."""
    assert not MISSING, (
        f"{MISSING} missing in CI: scripts/test must run scripts/install-system-deps"
    )
    result = subprocess.run(
        ["scripts/build-android"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return (ROOT / "clients/android/build/classpath").read_text().strip()


@pytest_asyncio.fixture
async def engine(tmp_path: Path) -> AsyncIterator[Engine]:
    running = await launch(f"sqlite:///{tmp_path}/engine.sqlite3")
    try:
        yield running
    finally:
        await shut(running)


def test_build_writes_classes_for_every_generated_file(classpath: str) -> None:
    classes = Path(classpath.split(":")[0])
    generated = ROOT / "clients/android/src/gen/java"
    sources = sorted(generated.rglob("*.java"))
    assert len(sources) > 100
    for source in sources:
        compiled = classes / source.relative_to(generated).with_suffix(".class")
        assert compiled.is_file(), compiled
    assert (classes / "stud/example/TableBotKt.class").is_file()


#: How each transport is chosen: Play is the bot's default (STUD_TRANSPORT unset, whatever the
#: test's own environment holds); WatchTable with unary Act calls is STUD_TRANSPORT=watch.
TRANSPORTS = {
    "play": ["env", "-u", "STUD_TRANSPORT"],
    "watch": ["env", "STUD_TRANSPORT=watch"],
}


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The TableService calls the engine serves, as (method, player), in order: which way a
    client played is seen at the engine, not taken from its own word."""
    seen: list[tuple[str, str]] = []

    def spy(method: Callable[..., Any]) -> Callable[..., Any]:
        def called(self: TableServiceCore, request: Any, identity: Identity) -> Any:
            seen.append((method.__name__, identity.subject))
            return method(self, request, identity)

        return called

    for name in ("watch", "act", "play"):
        monkeypatch.setattr(TableServiceCore, name, spy(getattr(TableServiceCore, name)))
    return seen


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
async def test_kotlin_client_watches_the_table_and_acts(
    engine: Engine, classpath: str, calls: list[tuple[str, str]], transport: str
) -> None:
    await engine.create_table("t1", overrides={"action_seconds": 20})
    await engine.seat("t1", "kotlin", buy_in=100, seat=1)
    await engine.seat("t1", "python", buy_in=100, seat=2)
    seen = Observed()
    other = asyncio.create_task(passive_player(engine, "t1", "python", seen))
    try:
        run = await run_bot(
            [
                *TRANSPORTS[transport],
                "java",
                "-cp",
                classpath,
                "stud.example.TableBotKt",
                "127.0.0.1",
                str(engine.server.grpc_port),
                "t1",
                str(HANDS),
                "90",
            ],
            token=mint_token(SECRET, "kotlin", [Scope.PLAYER], ttl_seconds=600),
            timeout=120,
        )
        await seen.reach(HANDS + 1, timeout=30)
    finally:
        other.cancel()
        await asyncio.gather(other, return_exceptions=True)
    assert_bot_played(run, table_id="t1", seat=1, hands=HANDS, seen=seen)
    # Over Play the bot opened one stream and took every action on it (the ACT lines above
    # are the updates that carried its acts); otherwise one WatchTable and an Act per action.
    mine = [method for method, player in calls if player == "kotlin"]
    if transport == "play":
        assert mine == ["play"], calls
    else:
        assert mine == ["watch"] + ["act"] * (len(run.words("ACT")) + len(run.words("REFUSED")))


async def test_kotlin_client_without_a_token_exits_with_usage(classpath: str) -> None:
    run = await run_bot(
        ["java", "-cp", classpath, "stud.example.TableBotKt", "127.0.0.1", "1", "t1"],
        token="",
        timeout=60,
    )
    assert run.returncode == 2, run
    assert "STUD_TOKEN" in run.stderr


async def test_kotlin_client_refuses_an_unknown_transport(classpath: str) -> None:
    run = await run_bot(
        [
            "env",
            "STUD_TRANSPORT=grpc-web",
            "java",
            "-cp",
            classpath,
            "stud.example.TableBotKt",
            "127.0.0.1",
            "1",
            "t1",
        ],
        token="unused",
        timeout=60,
    )
    assert run.returncode == 2, run
    assert "STUD_TRANSPORT must be play" in run.stderr, run
    assert run.stdout == "", run
