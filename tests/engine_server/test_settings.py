"""The engine's settings: the examples in their docstrings, and the event loop it runs on."""

from __future__ import annotations

import doctest

import pytest

import engine_server.affinity
import engine_server.collector
import engine_server.loops
import engine_server.settings
from engine_server.loops import loop_name, run_in_loop
from engine_server.settings import EngineSettings, SettingsError

SECRET = {"STUD_JWT_SECRET": "s" * 40}


@pytest.mark.parametrize(
    "module",
    [engine_server.settings, engine_server.loops, engine_server.collector, engine_server.affinity],
)
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


def test_the_node_settings_default_to_one_node_on_the_bound_addresses() -> None:
    settings = EngineSettings.from_env(SECRET)
    assert (settings.node_id, settings.lease_seconds) == ("main", 15.0)
    assert settings.advertised(7000, 7001) == (
        "127.0.0.1:7000",
        "127.0.0.1:7000",
        "http://127.0.0.1:7001",
    )
    given = EngineSettings.from_env(
        {
            **SECRET,
            "STUD_ENGINE_NODE_ID": "e-2.eu",
            "STUD_ENGINE_LEASE_SECONDS": "2.5",
            "STUD_ENGINE_ADVERTISE_ADMIN": "10.0.0.2:50051",
            "STUD_ENGINE_ADVERTISE_GRPC": "e2.play.example:443",
            "STUD_ENGINE_ADVERTISE_WEB": "https://e2.play.example/",
        }
    )
    assert (given.node_id, given.lease_seconds) == ("e-2.eu", 2.5)
    assert given.advertised(7000, 7001) == (
        "10.0.0.2:50051",
        "e2.play.example:443",
        "https://e2.play.example",
    )


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("STUD_ENGINE_NODE_ID", "-a", "STUD_ENGINE_NODE_ID: expected 1-64 characters"),
        ("STUD_ENGINE_NODE_ID", "a" * 65, "STUD_ENGINE_NODE_ID: expected 1-64 characters"),
        ("STUD_ENGINE_LEASE_SECONDS", "0.5", "STUD_ENGINE_LEASE_SECONDS: must be at least 1"),
        ("STUD_ENGINE_LEASE_SECONDS", "soon", "STUD_ENGINE_LEASE_SECONDS: expected a number"),
        ("STUD_ENGINE_ADVERTISE_GRPC", "e2.play.example", "STUD_ENGINE_ADVERTISE_GRPC: expected"),
        ("STUD_ENGINE_ADVERTISE_ADMIN", "host:99999", "STUD_ENGINE_ADVERTISE_ADMIN: expected"),
        ("STUD_ENGINE_ADVERTISE_WEB", "e2.play.example", "STUD_ENGINE_ADVERTISE_WEB: expected"),
    ],
)
def test_bad_node_settings_are_refused(name: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=f"^{message}"):
        EngineSettings.from_env({**SECRET, name: value})


def test_the_collector_is_paced_by_default_and_can_be_handed_back_to_cpython() -> None:
    paced = EngineSettings.from_env(SECRET).gc_pacing
    assert paced is not None
    assert (paced.young_every, paced.full_every, paced.thaw_every) == (0.05, 600.0, 86400.0)
    tuned = EngineSettings.from_env(
        {**SECRET, "STUD_ENGINE_GC_YOUNG_EVERY": "0.2", "STUD_ENGINE_GC_FULL_EVERY": "0"}
    ).gc_pacing
    assert tuned is not None
    # No full collections: nothing but the start-up objects is frozen, so no thawing.
    assert (tuned.young_every, tuned.full_every, tuned.thaw_every) == (0.2, 0.0, 0.0)
    thawing = EngineSettings.from_env(
        {**SECRET, "STUD_ENGINE_GC_FULL_EVERY": "60", "STUD_ENGINE_GC_THAW_EVERY": "0"}
    ).gc_pacing
    assert thawing is not None and (thawing.full_every, thawing.thaw_every) == (60.0, 0.0)
    assert EngineSettings.from_env({**SECRET, "STUD_ENGINE_GC_YOUNG_EVERY": "0"}).gc_pacing is None


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("STUD_ENGINE_GC_YOUNG_EVERY", "soon", "expected a number, got 'soon'"),
        ("STUD_ENGINE_GC_YOUNG_EVERY", "-1", "must not be negative, got '-1'"),
        ("STUD_ENGINE_GC_YOUNG_EVERY", "2", "expected at most 1 second, got '2'"),
        ("STUD_ENGINE_GC_FULL_EVERY", "-60", "must not be negative, got '-60'"),
        ("STUD_ENGINE_GC_THAW_EVERY", "-1", "must not be negative, got '-1'"),
    ],
)
def test_a_bad_collector_pace_is_refused_by_name(name: str, raw: str, message: str) -> None:
    with pytest.raises(SettingsError, match=rf"^{name}: {message}$"):
        EngineSettings.from_env({**SECRET, name: raw})


def test_thorough_collections_without_full_ones_are_refused() -> None:
    with pytest.raises(SettingsError, match=r"^STUD_ENGINE_GC_THAW_EVERY: thorough collections"):
        EngineSettings.from_env(
            {**SECRET, "STUD_ENGINE_GC_FULL_EVERY": "0", "STUD_ENGINE_GC_THAW_EVERY": "3600"}
        )


def test_how_long_ended_hands_actions_are_kept() -> None:
    assert EngineSettings.from_env(SECRET).hand_actions_kept_seconds == 86_400.0
    given = {**SECRET, "STUD_ENGINE_HAND_ACTIONS_KEPT_SECONDS": "0"}
    assert EngineSettings.from_env(given).hand_actions_kept_seconds == 0.0
    with pytest.raises(SettingsError, match="STUD_ENGINE_HAND_ACTIONS_KEPT_SECONDS"):
        EngineSettings.from_env({**SECRET, "STUD_ENGINE_HAND_ACTIONS_KEPT_SECONDS": "-1"})
