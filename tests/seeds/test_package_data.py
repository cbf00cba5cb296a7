"""An installed (non-editable) package carries its seed files (and the lobby's play page).

The project is built into a wheel from a copy of its sources (so no build directory of the
working tree is touched), installed into a directory of its own, and imported from there in
a fresh interpreter whose working directory is elsewhere: ``seeds.load`` must find
``cities.json`` and ``stakes.json`` next to itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: What a wheel is built from (pyproject.toml's package list, and setup.py's C extension).
SOURCES = ("pyproject.toml", "setup.py", "README.md", "engine_server", "lobby_api", "seeds")


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


def test_an_installed_wheel_finds_the_seed_files(tmp_path: Path) -> None:
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
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"seeds/cities.json", "seeds/stakes.json"} <= names
    assert "lobby_api/static/play/index.html" in names

    installed = tmp_path / "installed"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps"),
            *("--disable-pip-version-check", "--target", str(installed), str(wheel)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    probe = (
        "import json, seeds.load as load, lobby_api.play as play; "
        "data = load.load_seed_files(); "
        "print(json.dumps({'file': load.__file__, 'play': str(play.PLAY_DIRECTORY), "
        "'cities': len(data.cities), 'stakes': [s.id for s in data.stakes], "
        "'page': (play.PLAY_DIRECTORY / 'index.html').is_file()}))"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=elsewhere,
        env={**os.environ, "PYTHONPATH": str(installed)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    # Imported from the installed copy, not from the working tree.
    assert Path(report["file"]).is_relative_to(installed)
    assert Path(report["play"]).is_relative_to(installed) and report["page"]
    shipped = json.loads((REPO / "seeds" / "stakes.json").read_text(encoding="utf-8"))
    assert report["stakes"] == [level["id"] for level in shipped]
    assert report["cities"] == len(json.loads((REPO / "seeds" / "cities.json").read_text()))
