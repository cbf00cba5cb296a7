"""An installed (non-editable) package carries its data: the seed files, the lobby's play page
and the migration history (with which the engine brings an empty database up at start).

The project is built into a wheel from a copy of its sources (so no build directory of the
working tree is touched), installed into a directory of its own, and run from there in a
fresh interpreter whose working directory is elsewhere: ``seeds.load`` must find
``cities.json`` and ``stakes.json`` next to itself, and ``stud engine`` its migrations.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from benchmarks.processes import start_ready_blocking

REPO = Path(__file__).resolve().parents[2]
#: What a wheel is built from (pyproject.toml's package list, setup.py's C extension and its
#: mapping of migrations/ to engine_server.migrations).
SOURCES = ("pyproject.toml", "setup.py", "README.md", "engine_server", "lobby_api", "seeds")


@dataclass(frozen=True)
class Installed:
    wheel: Path
    #: the directory the wheel was installed into (put on PYTHONPATH to use it)
    target: Path
    #: a working directory away from the sources
    elsewhere: Path

    def env(self, **more: str) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(self.target), **more}


def _copy_sources(target: Path) -> None:
    target.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyc")
    for name in SOURCES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copy(source, target / name)
    shutil.copytree(REPO / "clients" / "python", target / "clients" / "python", ignore=ignore)
    shutil.copytree(REPO / "migrations", target / "migrations", ignore=ignore)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The project built into a wheel and installed with ``pip install --target``."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    source = tmp_path / "src"
    _copy_sources(source)
    wheels = tmp_path / "wheels"
    # No mypyc: the compiled modules are not what this test is about, and take a minute.
    env = {**os.environ, "STUD_NO_MYPYC": "1"}
    built = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"),
            *("--no-build-isolation", "--disable-pip-version-check", "-w", str(wheels), "."),
        ],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("stud-*.whl")
    target = tmp_path / "installed"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps"),
            *("--disable-pip-version-check", "--target", str(target), str(wheel)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return Installed(wheel, target, elsewhere)


def test_an_installed_wheel_finds_the_seed_files(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    assert {"seeds/cities.json", "seeds/stakes.json"} <= names
    assert "lobby_api/static/play/index.html" in names

    probe = (
        "import json, seeds.load as load, lobby_api.play as play; "
        "data = load.load_seed_files(); "
        "print(json.dumps({'file': load.__file__, 'play': str(play.PLAY_DIRECTORY), "
        "'cities': len(data.cities), 'stakes': [s.id for s in data.stakes], "
        "'page': (play.PLAY_DIRECTORY / 'index.html').is_file()}))"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=installed.elsewhere,
        env=installed.env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    # Imported from the installed copy, not from the working tree.
    assert Path(report["file"]).is_relative_to(installed.target)
    assert Path(report["play"]).is_relative_to(installed.target) and report["page"]
    shipped = json.loads((REPO / "seeds" / "stakes.json").read_text(encoding="utf-8"))
    assert report["stakes"] == [level["id"] for level in shipped]
    assert report["cities"] == len(json.loads((REPO / "seeds" / "cities.json").read_text()))


def test_an_installed_engine_migrates_an_empty_database_and_starts(installed: Installed) -> None:
    """The wheel carries migrations/ (as engine_server.migrations); ``stud engine`` run from
    the installed package creates an empty SQLite database's schema from it and serves."""
    revisions = sorted(p.name for p in (REPO / "migrations" / "versions").glob("0*.py"))
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    shipped = {"env.py", "script.py.mako", "README", *(f"versions/{r}" for r in revisions)}
    assert {f"engine_server/migrations/{name}" for name in shipped} <= names
    assert not any(name.startswith("migrations/") for name in names), "no top-level package"

    located = subprocess.run(
        [
            *(sys.executable, "-c"),
            "from engine_server.store.migrate import MIGRATIONS_DIR, head_revisions; "
            "print(MIGRATIONS_DIR); print(*head_revisions())",
        ],
        cwd=installed.elsewhere,
        env=installed.env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert located.returncode == 0, located.stderr
    where, heads = located.stdout.splitlines()
    assert Path(where).is_relative_to(installed.target), where
    assert heads == revisions[-1].split("_")[0]

    database = installed.elsewhere / "fresh.sqlite3"
    log = installed.elsewhere / "engine.log"
    engine = start_ready_blocking(
        [
            *(sys.executable, "-m", "engine_server", "engine"),
            *("--grpc-port", "0", "--web-port", "0", "--metrics-port", "0"),
            *("--database-url", f"sqlite:///{database}"),
        ],
        name="stud engine",
        env=installed.env(
            STUD_JWT_SECRET="wheel-test-secret-" + "x" * 40,
            STUD_LOG_FORMAT="text",
            STUD_LOG_LEVEL="WARNING",
        ),
        log=log,
        cwd=installed.elsewhere,
    )
    try:
        ready = engine.ready
        with grpc.insecure_channel(ready["grpc"]) as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=10
            )
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        with contextlib.closing(sqlite3.connect(database)) as db:
            assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(heads,)]
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        assert {"tables", "seat_sessions", "hands", "seat_session_removals"} <= tables
        engine.terminate()
        assert engine.wait(timeout=60) == 0, log.read_text()
    finally:
        engine.close()
