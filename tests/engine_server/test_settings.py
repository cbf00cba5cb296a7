"""The engine's settings: the examples in their docstrings, and the event loop it runs on."""

from __future__ import annotations

import doctest

import pytest

import engine_server.loops
import engine_server.settings
from engine_server.loops import loop_name, run_in_loop
from engine_server.settings import EngineSettings, SettingsError

SECRET = {"STUD_JWT_SECRET": "s" * 40}


@pytest.mark.parametrize("module", [engine_server.settings, engine_server.loops])
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0


async def _kind() -> str:
    return loop_name()


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_run_in_loop_runs_on_the_loop_named(loop: str) -> None:
    assert run_in_loop(loop, _kind()) == loop


def test_run_in_loop_refuses_an_unknown_loop() -> None:
    with pytest.raises(ValueError, match="unknown event loop 'trio'"):
        run_in_loop("trio", _kind())


def test_the_loop_is_uvloop_unless_set_to_asyncio() -> None:
    assert EngineSettings.from_env(SECRET).loop == "uvloop"
    assert EngineSettings.from_env({**SECRET, "STUD_ENGINE_LOOP": ""}).loop == "uvloop"
    assert EngineSettings.from_env({**SECRET, "STUD_ENGINE_LOOP": "asyncio"}).loop == "asyncio"


@pytest.mark.parametrize("bad", ["trio", "UVLOOP", "uvloop "])
def test_an_unknown_loop_is_refused(bad: str) -> None:
    with pytest.raises(SettingsError, match=r"^STUD_ENGINE_LOOP: expected uvloop or asyncio"):
        EngineSettings.from_env({**SECRET, "STUD_ENGINE_LOOP": bad})
