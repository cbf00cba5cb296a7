"""Every conformance case replays through ``stud replay`` as its ``expect`` says.

The cases kept in ``tests/conformance/`` run everywhere; when the shared
``../shared/conformance/`` folder is present its cases run too, so new cases
count at once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
FOLDERS = [REPO / "tests" / "conformance", REPO.parent / "shared" / "conformance"]


def _cases() -> list[Any]:
    seen: dict[str, Path] = {}
    for folder in FOLDERS:
        for path in sorted(folder.glob("example_*.json")) if folder.is_dir() else []:
            seen.setdefault(path.name, path)
    return [pytest.param(path, id=name) for name, path in sorted(seen.items())]


def _matches(expected: Any, got: Any, key: str = "") -> bool:
    """Compare as the conformance cases expect: objects key by key, ``cards`` as a set of ranks."""
    if key == "cards" and isinstance(expected, list) and isinstance(got, list):
        return sorted(card[0] for card in expected) == sorted(str(card)[0] for card in got)
    if isinstance(expected, dict):
        return isinstance(got, dict) and all(
            _matches(value, got.get(name), name) for name, value in expected.items()
        )
    return bool(expected == got)


def _stud(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine_server", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )


@pytest.mark.parametrize("path", _cases())
def test_conformance_case(path: Path, tmp_path: Path) -> None:
    case = json.loads(path.read_text())
    script = tmp_path / "script.json"
    script.write_text(json.dumps(case["script"]))
    done = _stud("replay", str(script))
    assert done.returncode == (0 if case["expect"].get("ok", True) else 1), done.stderr
    got = json.loads(done.stdout)
    assert _matches(case["expect"], got), json.dumps(got, indent=1)


def test_there_are_cases() -> None:
    assert len(_cases()) >= 3


def test_fairness_vector_through_stud_deck() -> None:
    vector = json.loads((REPO / "tests" / "conformance" / "fairness_vector.json").read_text())
    done = _stud("deck", vector["dealer_seed"], vector["client_seed"], str(vector["nonce"]))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"commitment": vector["commitment"], "deck": vector["deck"]}


def test_several_scripts_give_an_array_and_stdin_works(tmp_path: Path) -> None:
    cases = [
        json.loads(p.read_text())
        for p in sorted((REPO / "tests" / "conformance").glob("example_*.json"))
    ]
    files = []
    for i, case in enumerate(cases):
        f = tmp_path / f"s{i}.json"
        f.write_text(json.dumps(case["script"]))
        files.append(str(f))
    done = _stud("replay", *files)
    results = json.loads(done.stdout)
    assert isinstance(results, list) and len(results) == len(cases)
    # One incomplete case makes the whole run exit 1.
    assert done.returncode == (0 if all(r["ok"] for r in results) else 1)
    single = _stud("replay", "-", stdin=json.dumps(cases[0]["script"]))
    assert json.loads(single.stdout) == results[0]
