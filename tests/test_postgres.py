"""tests/postgres.py: an unreachable PostgreSQL skips its tests off CI and fails them in CI."""

from __future__ import annotations

import pytest

from tests.postgres import postgres_unreachable

URL = "postgresql://postgres@127.0.0.1:1/test"


def test_off_ci_an_unreachable_postgres_skips_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(
        pytest.skip.Exception, match=r"PostgreSQL not reachable at .*:1/test: refused"
    ):
        postgres_unreachable(URL, ConnectionRefusedError("refused"))


def test_in_ci_an_unreachable_postgres_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"CI=true: the PostgreSQL tests may not be"):
        postgres_unreachable(URL, ConnectionRefusedError("refused"))
