"""The OpenAPI schema, fuzzed by schemathesis against the live lobby and a real engine:
no answer is a 5xx and every error is an RFC 9457 problem document."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation.modes import GenerationMode

from tests.lobby_api.conftest import BACKENDS, _postgres_copy, _sqlite_copy
from tests.lobby_api.live import LiveStack
from tests.lobby_api.support import PASSWORD


@pytest.fixture(scope="module", params=BACKENDS)
def live(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveStack]:
    if request.param == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        urls: Iterator[str] = iter(
            [_sqlite_copy(template, tmp_path_factory.mktemp("openapi") / "l.sqlite3")]
        )
    else:
        urls = _postgres_copy(request.getfixturevalue("postgres_template"))
    url = next(urls)
    stack = LiveStack(url).start()
    try:
        yield stack
    finally:
        stack.stop()
        for _ in urls:  # drops the PostgreSQL database
            pass


@pytest.fixture(scope="module")
def auth(live: LiveStack) -> dict[str, str]:
    """A logged-in player of the live lobby (the fuzzer acts as him)."""
    name = "fuzz_" + uuid.uuid4().hex[:8]
    with httpx.Client(base_url=live.base_url) as http:
        created = http.post(
            "/accounts", json={"username": name, "password": PASSWORD, "city": "oslo"}
        )
        assert created.status_code == 201, created.text
        token = http.post("/auth/login", json={"username": name, "password": PASSWORD}).json()
    return {"Authorization": f"Bearer {token['access_token']}"}


def _header(response: Any, name: str) -> str:
    value = response.headers.get(name, "")
    return str(value[0] if isinstance(value, list) and value else value)


def problem_document(response: Any) -> None:
    """Every error answer is ``application/problem+json`` with type, title, status, detail."""
    if response.status_code < 400:
        return
    kind = _header(response, "content-type")
    assert kind.startswith("application/problem+json"), (
        f"{response.status_code} answered as {kind!r}"
    )
    body = response.json()
    assert {"type", "title", "status", "detail"} <= body.keys(), body
    assert body["status"] == response.status_code, body


#: Examples per operation and generation mode (valid data, then data the schema forbids).
EXAMPLES = 6


def _fuzz(operation: Any, mode: GenerationMode, auth: dict[str, str], failures: list[str]) -> int:
    """Send ``EXAMPLES`` generated requests; failures are collected, not shrunk."""
    sent = 0

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        phases=[Phase.explicit, Phase.generate],
    )
    def exercise(case: Any) -> None:
        nonlocal sent
        response = case.call(headers=auth, timeout=30)
        sent += 1
        try:
            case.validate_response(response, checks=[not_a_server_error])
            problem_document(response)
        except Exception as error:
            failures.append(f"{case.as_curl_command()}\n  -> {response.status_code}: {error}")

    exercise()
    return sent


def test_no_server_errors_and_every_error_is_a_problem(
    live: LiveStack, auth: dict[str, str]
) -> None:
    # schemathesis' pytest plugin does not run under pytest 9 (it sets Node._nodeid), so the
    # operations are driven here, one hypothesis run per operation and mode.
    schema = schemathesis.openapi.from_url(f"{live.base_url}/schema/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15
    failures: list[str] = []
    sent = 0
    for operation in operations:
        sent += _fuzz(operation, GenerationMode.POSITIVE, auth, failures)
        if len(operation.query) or len(operation.headers) or len(operation.body):
            # Data the schema forbids (a path parameter alone leaves nothing to break).
            sent += _fuzz(operation, GenerationMode.NEGATIVE, auth, failures)
    assert sent >= len(operations) * 5
    assert failures == [], "\n".join(failures[:20])


def test_the_schema_describes_the_api(live: LiveStack) -> None:
    with httpx.Client(base_url=live.base_url) as http:
        document = http.get("/schema/openapi.json").json()
        assert http.get("/health").json() == {"status": "ok"}
    paths = document["paths"]
    for path in (
        "/accounts",
        "/auth/login",
        "/me",
        "/wallet",
        "/cities",
        "/stakes",
        "/quickgame",
        "/tickets",
        "/tickets/{ticket_id}",
        "/tables/{table_id}/topup",
        "/tables/{table_id}/leave",
        "/tables/{table_id}/rotate-seed",
        "/health",
    ):
        assert path in paths, path
    assert document["components"]["securitySchemes"]["BearerToken"]["scheme"] == "bearer"
    quick = paths["/quickgame"]["post"]
    assert any(p["name"] == "Idempotency-Key" and p["in"] == "header" for p in quick["parameters"])
    assert "application/problem+json" in quick["responses"]["409"]["content"]
