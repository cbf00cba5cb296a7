"""The web page's pure modules in Node's test runner: its deck check
(clients/web/src/table/fairness.ts, WebCrypto HMAC-SHA256) against the published test
vector of docs/fairness.md §5 (clients/web/test/fairness.test.ts), and the street-by-street
replay of a PHH history (src/table/replay.ts, test/replay.test.ts).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.clients.room import ROOT

WEB = ROOT / "clients/web"


def _run(*cmd: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )


def test_fairness_check_in_typescript_matches_the_vector(web_tests_build: Path) -> None:
    tests = [web_tests_build / "test/fairness.test.js", web_tests_build / "test/replay.test.js"]
    result = _run("node", "--test", *tests, cwd=WEB)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# pass 11" in result.stdout and "# fail 0" in result.stdout, result.stdout
