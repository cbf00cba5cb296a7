"""Bearer tokens: a good token's verdict is remembered, its expiry never is."""

from __future__ import annotations

import doctest

import pytest

import engine_server.auth
from engine_server.auth import Scope, TokenError, mint_token, verify_token

SECRET = "secret-with-enough-length-0123456789"


def test_the_docstring_examples_run() -> None:
    result = doctest.testmod(engine_server.auth)
    assert result.attempted > 0 and result.failed == 0


def test_a_token_checked_before_is_refused_once_it_expires() -> None:
    token = mint_token(SECRET, "ann", [Scope.PLAYER], ttl_seconds=30, now=2_000_000)
    for moment in (2_000_000, 2_000_010, 2_000_029):
        assert verify_token(token, SECRET, now=moment).subject == "ann"
    with pytest.raises(TokenError, match="expired"):
        verify_token(token, SECRET, now=2_000_030)


def test_a_remembered_token_is_not_good_under_another_secret_or_altered() -> None:
    token = mint_token(SECRET, "bob", [Scope.ADMIN])
    assert verify_token(token, SECRET).has(Scope.ADMIN)
    with pytest.raises(TokenError, match="not valid"):
        verify_token(token, SECRET.replace("0", "1"))
    header, payload, signature = token.split(".")
    altered = f"{header}.{payload}.{signature[:-2]}{'AA' if signature[-2:] != 'AA' else 'BB'}"
    with pytest.raises(TokenError, match="not valid"):
        verify_token(altered, SECRET)
