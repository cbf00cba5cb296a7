"""Build the compiled parts of the rules engine, and ship the migration history; all other
metadata lives in pyproject.toml.

- ``engine_server.game._evaluator``: the C hand evaluator.
- The modules listed in ``engine_server/game/COMPILED``, compiled with mypyc
  (they are strictly typed, so mypyc turns them into C extensions that run the
  hand state machine several times faster; the ``.py`` files stay the source
  of truth and run as they are when ``STUD_NO_MYPYC=1``).
- The top-level ``migrations/`` folder (the one Alembic history) as the package
  ``engine_server.migrations``, so that an installed engine or lobby migrates its
  database at start (``engine_server.store.migrate`` finds it with importlib.resources).
  pyproject.toml's package finder only names packages after their folders, hence here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from setuptools import Distribution, Extension, setup

#: Packages whose folder is not where their name puts it: the name -> the folder.
MAPPED_PACKAGES = {
    "engine_server.migrations": "migrations",
    "engine_server.migrations.versions": "migrations/versions",
}
#: Their files that are not modules.
MAPPED_DATA = {"engine_server.migrations": ["README", "script.py.mako"]}


class StudDistribution(Distribution):  # type: ignore[misc]  # (setuptools: Any here)
    """The distribution as pyproject.toml configures it, plus :data:`MAPPED_PACKAGES` (added
    after pyproject.toml is read, which would otherwise replace them), for every command:
    wheels, sdists and editable installs alike."""

    def parse_config_files(self, *args: Any, **kwargs: Any) -> None:
        super().parse_config_files(*args, **kwargs)
        dist: Any = self  # setuptools' attributes are untyped
        dist.packages = [*(dist.packages or []), *MAPPED_PACKAGES]
        dist.package_dir = {**(dist.package_dir or {}), **MAPPED_PACKAGES}
        dist.package_data = {**(dist.package_data or {}), **MAPPED_DATA}


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

setup(ext_modules=extensions, distclass=StudDistribution)
