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
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from engine_server.auth import Scope, mint_token
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


async def test_kotlin_client_watches_the_table_and_acts(engine: Engine, classpath: str) -> None:
    await engine.create_table("t1", overrides={"action_seconds": 20})
    await engine.seat("t1", "kotlin", buy_in=100, seat=1)
    await engine.seat("t1", "python", buy_in=100, seat=2)
    seen = Observed()
    other = asyncio.create_task(passive_player(engine, "t1", "python", seen))
    try:
        run = await run_bot(
            [
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


async def test_kotlin_client_without_a_token_exits_with_usage(classpath: str) -> None:
    run = await run_bot(
        ["java", "-cp", classpath, "stud.example.TableBotKt", "127.0.0.1", "1", "t1"],
        token="",
        timeout=60,
    )
    assert run.returncode == 2, run
    assert "STUD_TOKEN" in run.stderr
