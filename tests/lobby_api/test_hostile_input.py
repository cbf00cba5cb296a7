"""Hostile request bodies on every route of the real app: deeply nested JSON and numbers
given as text are 400 problem documents, with no traceback in the log, and change nothing.

The routes are read from the app itself, so a route added later is covered too.
"""

from __future__ import annotations

import logging
import re
import uuid
from typing import Any

import httpx
import msgspec
import pytest
from litestar import Litestar

from lobby_api import bodies
from tests.lobby_api.support import Player, register

DEEP = 1000
NESTED_BODIES = {
    "arrays": b"[" * DEEP + b"]" * DEEP,
    "open arrays": b"[" * DEEP,
    "objects": b'{"a":' * DEEP + b"1" + b"}" * DEEP,
    "open objects": b'{"a":' * DEEP,
    "nested in a field": b'{"username": ' + b"[" * DEEP + b"]" * DEEP + b"}",
    "nested in an unknown field": b'{"x": ' + b'{"a":' * DEEP + b"1" + b"}" * DEEP + b"}",
}


def _routes(app: Litestar) -> list[tuple[str, str, Any]]:
    """(method, path with its parameters filled, the handler's body type or None) for every
    route that takes a request body (POST, PUT, PATCH, DELETE)."""
    found = []
    for route in app.routes:
        path = re.sub(r"\{[^}]+\}", "x-1", route.path)
        for handler in getattr(route, "route_handlers", ()):
            data = handler.parsed_data_field
            for method in sorted(handler.http_methods & {"POST", "PUT", "PATCH", "DELETE"}):
                found.append((method, path, data.annotation if data is not None else None))
    return found


async def _send(player: Player, method: str, path: str, body: bytes) -> httpx.Response:
    headers = {
        **player.auth,
        "Content-Type": "application/json",
        "Idempotency-Key": uuid.uuid4().hex,
    }
    return await player.client.request(method, path, content=body, headers=headers)


def _no_trace(caplog: pytest.LogCaptureFixture) -> None:
    noisy = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not noisy, [f"{r.name}: {r.getMessage()}" for r in noisy]


async def test_deeply_nested_json_is_a_400_problem_on_every_route(
    client: httpx.AsyncClient, app: Litestar, city: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    player = await register(client, city)
    routes = _routes(app)
    with_body = [(m, p) for m, p, data in routes if data is not None]
    assert ("POST", "/accounts") in with_body and ("POST", "/auth/login") in with_body
    assert len(with_body) >= 6
    for method, path, data in routes:
        for name, body in NESTED_BODIES.items():
            answer = await _send(player, method, path, body)
            assert answer.status_code != 500, (method, path, name, answer.text)
            assert answer.headers["content-type"].startswith("application/problem+json")
            if data is not None:
                assert answer.status_code == 400, (method, path, name, answer.text)
                problem = answer.json()
                assert problem["code"] in ("malformed_body", "invalid_request"), problem
                assert problem["type"] == "urn:problem:stud:" + problem["code"]
    _no_trace(caplog)
    # The two routes the issue names, without a token: a 400 naming the body.
    for path in ("/accounts", "/auth/login"):
        for body in (b'{"a":' * DEEP, b'{"a":' * DEEP + b"1" + b"}" * DEEP):
            answer = await client.post(
                path, content=body, headers={"Content-Type": "application/json"}
            )
            assert answer.status_code == 400, answer.text
            assert answer.json()["code"] == "malformed_body"
            assert answer.json()["field"] == "body"
    _no_trace(caplog)


def _integer_fields(annotation: Any) -> list[str]:
    """The integer fields of a body type (a struct, or an optional one)."""
    info = msgspec.inspect.type_info(annotation)
    if isinstance(info, msgspec.inspect.UnionType):
        info = next(t for t in info.types if isinstance(t, msgspec.inspect.StructType))
    assert isinstance(info, msgspec.inspect.StructType), info
    names = []
    for field in info.fields:
        kind = field.type
        kinds = kind.types if isinstance(kind, msgspec.inspect.UnionType) else (kind,)
        bare = [k.type if isinstance(k, msgspec.inspect.Metadata) else k for k in kinds]
        if any(isinstance(k, msgspec.inspect.IntType) for k in bare):
            names.append(field.encode_name)
    return names


@pytest.mark.parametrize("text", ["100", "4e2", "0x64", " 100", "100.0"])
async def test_numbers_given_as_text_are_refused_on_every_route(
    client: httpx.AsyncClient, app: Litestar, city: str, text: str
) -> None:
    """The OpenAPI schema says integer: a JSON string is refused, naming the field, before
    the route does anything (on every route with an integer in its body)."""
    player = await register(client, city)
    balance = await player.balance()
    checked = []
    for method, path, data in _routes(app):
        if data is None:
            continue
        for field in _integer_fields(data):
            # The field first: its error is the first the body has.
            body = msgspec.json.encode({field: text, "stake_level": "house-2-4"})
            answer = await _send(player, method, path, body)
            assert answer.status_code == 400, (path, field, answer.text)
            problem = answer.json()
            assert (problem["code"], problem["field"]) == ("invalid_request", field), problem
            # An optional integer (the players bots fill a table to) may also be null.
            assert problem["errors"][0]["message"] in (
                "Expected `int`, got `str`",
                "Expected `int | null`, got `str`",
            ), problem
            checked.append((path, field))
    assert {("/quickgame", "buy_in"), ("/tickets", "buy_in")} <= set(checked)
    assert any(field == "amount" for _, field in checked)
    assert await player.balance() == balance  # no ticket, no buy-in


async def test_a_body_of_the_right_types_still_passes(client: httpx.AsyncClient, city: str) -> None:
    player = await register(client, city)
    ticket = await player.post("/tickets", {"stake_level": "t-fast", "buy_in": 100})
    assert ticket.status_code == 201, ticket.text
    assert ticket.json()["buy_in"] == 100
    # Text is refused, a JSON integer is taken; a bool is not a number either.
    for value in ("100", True, 100.5):
        refused = await player.post("/tickets", {"stake_level": "t-fast", "buy_in": value})
        assert refused.status_code == 400, (value, refused.text)
        assert refused.json()["field"] == "buy_in"


class Inner(msgspec.Struct):
    a: int


class Body(msgspec.Struct):
    inner: Inner


def test_the_error_names_the_field_as_litestar_does() -> None:
    with pytest.raises(msgspec.ValidationError) as nested:
        msgspec.json.decode(b'{"inner": {"a": "1"}}', type=Body, strict=True)
    assert bodies._field_error(nested.value) == {
        "message": "Expected `int`, got `str`",
        "key": "inner.a",
        "source": "body",
    }
    with pytest.raises(msgspec.ValidationError) as whole:
        msgspec.json.decode(b"[]", type=Body, strict=True)
    assert bodies._field_error(whole.value)["key"] == "body"
