"""Fixtures: the lobby's app and databases come from tests/lobby_api/conftest.py; these add
an engine store on the test's database."""

from tests.lobby_api.history.support import db_engine, store  # noqa: F401  (fixtures)
