"""Every docstring example of the rules engine runs, from the modules' source.

Some modules are compiled with mypyc (``engine_server/game/COMPILED``), and a
compiled module keeps no docstrings for doctest to find; so each module is
loaded again from its ``.py`` file, under its own name, and its examples run
there.
"""

from __future__ import annotations

import doctest
import importlib.util
import sys
from pathlib import Path

import pytest

GAME = Path(__file__).resolve().parents[3] / "engine_server" / "game"
MODULES = sorted(path for path in GAME.glob("*.py") if ">>>" in path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", MODULES, ids=[p.stem for p in MODULES])
def test_docstring_examples(path: Path) -> None:
    name = f"engine_server.game.{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Dataclasses look their module up in sys.modules while the class is made.
    previous = sys.modules.get(name)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        if previous is None:
            del sys.modules[name]
        else:
            sys.modules[name] = previous
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0


def test_the_documented_modules_include_the_state_machine() -> None:
    assert {"hand", "profiles", "cards", "evaluation", "replay"} <= {p.stem for p in MODULES}


def test_compiled_modules_are_not_older_than_their_source() -> None:
    """A stale mypyc build would test old code: scripts/setup rebuilds it."""
    listed = (GAME / "COMPILED").read_text().split()
    for source in listed:
        py = GAME.parent.parent / source
        built = list(py.parent.glob(f"{py.stem}.cpython-*.so"))
        for so in built:
            assert so.stat().st_mtime >= py.stat().st_mtime, f"{so.name} is older than {py.name}"
