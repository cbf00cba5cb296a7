"""The README's five-minute tour works with what the setup installs: every command in it runs.

The tour's shell block is read from README.md, so a command added there is run here too.
The engine and ops commands run against an engine of the test's own (``STUD_ENGINE_ADDRESS``
and ``STUD_JWT_SECRET`` point them at it); ``stud bots`` plays until stopped, so it is only
checked to be a command the installed ``stud`` knows.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.engine_server.api.conftest import SECRET, Engine, launch, shut

ROOT = Path(__file__).resolve().parents[1]
#: commands that run until stopped: checked with --help instead
LONG_RUNNING = ("stud bots",)


def tour_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## A five-minute tour\n[^#]*?```sh\n(.*?)```", readme, re.S)
    assert block is not None, "README.md has no tour block"
    commands, pending = [], ""
    for line in block.group(1).splitlines():
        if pending:
            line = pending + " " + line.strip()
            pending = ""
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        if line.strip() and not line.lstrip().startswith("#"):
            commands.append(line.strip())
    return commands


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    directory = tmp_path_factory.mktemp("tour")
    running = await launch(f"sqlite:///{directory}/engine.sqlite3")
    try:
        yield running
    finally:
        await shut(running)


def test_the_tour_has_the_commands_the_readme_promises() -> None:
    commands = tour_commands()
    assert len(commands) >= 8
    assert not [c for c in commands if "grpcurl" in c or c.startswith("open ")]


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("command", tour_commands())
async def test_every_tour_command_runs(command: str, engine: Engine) -> None:
    if any(name in command for name in LONG_RUNNING):
        command = command.split("#")[0].strip() + " --help"
    env = {
        **os.environ,
        "STUD_ENGINE_ADDRESS": engine.grpc_address,
        "STUD_JWT_SECRET": SECRET,
    }
    env.pop("STUD_ADMIN_TOKEN", None)
    process = await asyncio.create_subprocess_shell(
        command,
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode == 0, (command, err.decode())
    assert out.strip(), command
