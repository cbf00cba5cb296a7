"""Fixtures of the client tests shared across their modules."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients.room import ROOT

__all__ = ["web_tests_build"]

WEB = ROOT / "clients/web"


@pytest.fixture(scope="session")
def web_tests_build() -> Iterator[Path]:
    """clients/web's sources and Node tests (tsconfig.test.json: src and test) compiled by tsc
    once per session, under clients/web/build (git-ignored; inside the package so Node finds
    its node_modules and "type": "module"). The bot of test_web, the fairness and replay
    checks and the connection test all run from it: compiling it takes 20 s or more here,
    and it was compiled once for each of them."""
    assert shutil.which("node") is not None, "Node.js is needed for the web client"
    setup = subprocess.run(
        [ROOT / "scripts/setup-web"], capture_output=True, text=True, timeout=600, check=False
    )
    assert setup.returncode == 0, setup.stdout + setup.stderr
    out = WEB / "build" / f"pytest-{os.getpid()}"
    shutil.rmtree(out, ignore_errors=True)
    try:
        built = subprocess.run(
            [WEB / "node_modules/.bin/tsc", "-p", "tsconfig.test.json", "--outDir", out],
            cwd=WEB,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert built.returncode == 0, built.stdout + built.stderr
        yield out
    finally:
        shutil.rmtree(out, ignore_errors=True)
