"""Build the compiled parts of the rules engine; all other metadata lives in pyproject.toml.

- ``engine_server.game._evaluator``: the C hand evaluator.
- The modules listed in ``engine_server/game/COMPILED``, compiled with mypyc
  (they are strictly typed, so mypyc turns them into C extensions that run the
  hand state machine several times faster; the ``.py`` files stay the source
  of truth and run as they are when ``STUD_NO_MYPYC=1``).
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import Extension, setup

extensions = [
    Extension(
        "engine_server.game._evaluator",
        ["engine_server/game/_evaluator.c"],
        extra_compile_args=["-O3"],
    )
]

if os.environ.get("STUD_NO_MYPYC") != "1":
    from mypyc.build import mypycify

    compiled = Path(__file__).parent / "engine_server" / "game" / "COMPILED"
    modules = [line.strip() for line in compiled.read_text().splitlines() if line.strip()]
    # A fixed group name keeps the shared runtime inside the package, not at the top level.
    extensions += mypycify(modules, opt_level="3", group_name="engine_server.game.compiled")

setup(ext_modules=extensions)
