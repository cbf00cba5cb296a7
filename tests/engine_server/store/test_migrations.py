"""The Alembic history, the schema checks at start-up and the engines' set-up."""

from __future__ import annotations

import asyncio
import doctest
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory
from sqlmodel import SQLModel

from engine_server.store import (
    base,
    database,
    errors,
    metadata,
    migrate,
    models,
    pages,
    repository,
    seeds,
    sessions,
    types,
)
from engine_server.store.database import (
    async_url,
    create_engine_for,
    default_database_url,
    is_sqlite,
)
from engine_server.store.migrate import (
    SchemaTooNew,
    alembic_config,
    check_schema,
    current_revisions,
    head_revisions,
    prepare_database,
    upgrade_to_head,
)
from engine_server.store.types import UTCDateTime

REPO_ROOT = Path(__file__).resolve().parents[3]
ENGINE_TABLES = {"tables", "seed_pairs", "seat_sessions", "chip_additions", "hands", "hand_players"}


@pytest.fixture
def url(empty_url: str) -> str:
    """Migrated here, not copied or emptied: these tests downgrade it and change its schema."""
    upgrade_to_head(empty_url)
    return empty_url


async def _scalar(url: str, sql: str) -> object:
    engine = create_engine_for(url, null_pool=True)
    try:
        async with engine.connect() as connection:
            return (await connection.execute(sa.text(sql))).scalar()
    finally:
        await engine.dispose()


async def _execute(url: str, *statements: str) -> None:
    engine = create_engine_for(url, null_pool=True)
    try:
        async with engine.begin() as connection:
            for sql in statements:
                await connection.execute(sa.text(sql))
    finally:
        await engine.dispose()


async def _table_names(url: str) -> set[str]:
    engine = create_engine_for(url, null_pool=True)
    try:
        async with engine.connect() as connection:
            return set(await connection.run_sync(lambda c: sa.inspect(c).get_table_names()))
    finally:
        await engine.dispose()


def _alembic(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "STUD_DATABASE_URL": url}
    return subprocess.run(
        [str(Path(sys.executable).parent / "alembic"), *args],
        cwd=REPO_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_history_is_one_line_from_the_engine_tables() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert len(head_revisions()) == 1
    assert script.get_base() == "0001"


def test_check_schema_creates_an_empty_database_then_leaves_it(empty_url: str) -> None:
    assert current_revisions(empty_url) == ()
    first = check_schema(empty_url)
    assert (first.found, first.upgraded, first.up_to_date) == ((), True, False)
    assert current_revisions(empty_url) == head_revisions()
    assert asyncio.run(_table_names(empty_url)) >= ENGINE_TABLES
    again = upgrade_to_head(empty_url)
    assert (again.found, again.upgraded, again.up_to_date) == (head_revisions(), False, True)


def test_an_older_database_is_brought_to_head(url: str) -> None:
    command.downgrade(alembic_config(url), "0001")
    assert current_revisions(url) == ("0001",)
    status = check_schema(url)
    assert (status.found, status.upgraded) == (("0001",), True)
    assert current_revisions(url) == head_revisions()


def test_the_history_downgrades_to_empty_and_back(url: str) -> None:
    command.downgrade(alembic_config(url), "base")
    assert current_revisions(url) == ()
    assert not ENGINE_TABLES & asyncio.run(_table_names(url))
    status = check_schema(url)
    assert status.upgraded
    assert asyncio.run(_table_names(url)) >= ENGINE_TABLES


def test_bot_desks_say_how_many_bots_they_send_from_0018(url: str) -> None:
    # A desk that polled before 0018 said nothing of its bots: it is promised none of them
    # (bots 0) until its next poll says how many; 0018 refuses a negative number, and its
    # downgrade leaves the desk's row without the column.
    command.downgrade(alembic_config(url), "0017")
    asyncio.run(
        _execute(
            url,
            "INSERT INTO cities (id, name) VALUES ('oslo', 'Oslo')",
            "INSERT INTO stake_levels (id, name, profile, ante, bring_in, small_bet, big_bet, "
            "min_buy_in, max_buy_in, action_seconds, position) "
            "VALUES ('l', 'L', 'house', 1, 1, 2, 4, 40, 400, 30.0, 0)",
            "INSERT INTO bot_desks (desk, city, stake_level, seen_at) "
            "VALUES ('old-desk', 'oslo', 'l', '2026-12-01 00:00:00+00:00')",
        )
    )
    command.upgrade(alembic_config(url), "0018")
    assert asyncio.run(_scalar(url, "SELECT bots FROM bot_desks WHERE desk = 'old-desk'")) == 0
    with pytest.raises(sa.exc.IntegrityError):
        asyncio.run(_execute(url, "UPDATE bot_desks SET bots = -1"))
    command.downgrade(alembic_config(url), "0017")
    assert asyncio.run(_scalar(url, "SELECT count(*) FROM bot_desks")) == 1
    with pytest.raises(sa.exc.DBAPIError):
        asyncio.run(_scalar(url, "SELECT bots FROM bot_desks"))


def test_check_without_upgrade_changes_nothing(empty_url: str) -> None:
    status = check_schema(empty_url, upgrade=False)
    assert (status.upgraded, status.up_to_date) == (False, False)
    assert current_revisions(empty_url) == ()


def test_a_database_migrated_by_newer_code_is_refused(url: str) -> None:
    asyncio.run(_execute(url, "UPDATE alembic_version SET version_num = 'f00dcafe9999'"))
    with pytest.raises(SchemaTooNew) as raised:
        check_schema(url)
    assert raised.value.found == ("f00dcafe9999",)
    assert raised.value.heads == head_revisions()
    assert "f00dcafe9999" in str(raised.value) and "newer" in str(raised.value)
    with pytest.raises(SchemaTooNew):
        upgrade_to_head(url)
    # Refused without touching it.
    assert current_revisions(url) == ("f00dcafe9999",)


async def test_prepare_database_runs_from_async_code(empty_url: str) -> None:
    status = await prepare_database(empty_url)
    assert status.upgraded
    with pytest.raises(RuntimeError, match="prepare_database"):
        check_schema(empty_url)


def test_alembic_command_line_upgrades_and_finds_no_drift(empty_url: str) -> None:
    upgraded = _alembic(empty_url, "upgrade", "head")
    assert upgraded.returncode == 0, upgraded.stderr
    assert "Running upgrade  -> 0001" in upgraded.stderr
    assert current_revisions(empty_url) == head_revisions()
    checked = _alembic(empty_url, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "No new upgrade operations detected" in checked.stdout + checked.stderr


def test_alembic_check_does_detect_drift(url: str) -> None:
    # The control for the test above: a schema that differs from the models fails the check.
    asyncio.run(_execute(url, "DROP INDEX ix_hand_players_player_id"))
    checked = _alembic(url, "check")
    assert checked.returncode != 0
    assert "ix_hand_players_player_id" in checked.stdout + checked.stderr


def test_sqlite_connections_are_set_up(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/pragmas.sqlite3"
    assert asyncio.run(_scalar(url, "PRAGMA journal_mode")) == "wal"
    assert asyncio.run(_scalar(url, "PRAGMA foreign_keys")) == 1
    assert asyncio.run(_scalar(url, "PRAGMA busy_timeout")) == 10_000


def test_sqlite_enforces_foreign_keys(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/fk.sqlite3"
    upgrade_to_head(url)
    assert is_sqlite(url)
    with pytest.raises(sa.exc.IntegrityError):
        asyncio.run(
            _execute(
                url,
                "INSERT INTO chip_additions (request_id, seat_session_id, amount, created_at) "
                "VALUES ('r', 'no-such-session', 5, '2025-01-01 00:00:00')",
            )
        )


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("sqlite:///var/x.sqlite3", "sqlite+aiosqlite:///var/x.sqlite3"),
        ("sqlite+aiosqlite:////abs/x.db", "sqlite+aiosqlite:////abs/x.db"),
        ("postgresql://u@h:5432/db", "postgresql+asyncpg://u@h:5432/db"),
        ("postgres://u@h/db", "postgresql+asyncpg://u@h/db"),
        ("postgresql+psycopg2://u:pw@h/db", "postgresql+asyncpg://u:pw@h/db"),
    ],
)
def test_urls_get_the_async_driver(given: str, expected: str) -> None:
    assert async_url(given).render_as_string(hide_password=False) == expected


def test_other_databases_are_refused() -> None:
    with pytest.raises(ValueError, match="mysql"):
        create_engine_for("mysql://h/db")


def test_the_default_database_is_a_file_under_var(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STUD_DATABASE_URL", raising=False)
    url = default_database_url()
    assert url == f"sqlite+aiosqlite:///{tmp_path / 'var' / 'stud.sqlite3'}"
    assert (tmp_path / "var").is_dir()
    assert database.database_url() == url
    monkeypatch.setenv("STUD_DATABASE_URL", "postgresql://h/db")
    assert database.database_url() == "postgresql://h/db"


def test_every_constraint_and_index_is_named_by_the_convention() -> None:
    prefixes = {
        sa.PrimaryKeyConstraint: "pk_",
        sa.ForeignKeyConstraint: "fk_",
        sa.UniqueConstraint: "uq_",
        sa.CheckConstraint: "ck_",
    }
    tables = [t for t in SQLModel.metadata.sorted_tables if t.name in ENGINE_TABLES]
    assert {t.name for t in tables} == ENGINE_TABLES
    for table in tables:
        for constraint in table.constraints:
            prefix = prefixes[type(constraint)]
            assert str(constraint.name).startswith(f"{prefix}{table.name}"), constraint.name
        for index in table.indexes:
            expected = "uq_" if index.unique else "ix_"
            assert str(index.name).startswith(f"{expected}{table.name}_"), index.name


def test_timestamps_are_aware_utc() -> None:
    kind = UTCDateTime()
    with pytest.raises(ValueError, match="naive"):
        kind.process_bind_param(datetime(2025, 1, 1), None)
    east = timezone(timedelta(hours=5))
    stored = kind.process_bind_param(datetime(2025, 1, 1, 5, 30, tzinfo=east), None)
    assert stored == datetime(2025, 1, 1, 0, 30, tzinfo=UTC)
    assert stored is not None and stored.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    "module",
    [base, database, errors, metadata, migrate, models, pages, repository, seeds, sessions, types],
)
def test_doctests(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.attempted > 0
    assert result.failed == 0


def test_concurrent_upgrades_apply_the_history_once(empty_url: str) -> None:
    # Three engine nodes (processes) start at once on an empty database: all end up at head,
    # none fails on tables another created (advisory lock / BEGIN IMMEDIATE while migrating).
    code = (
        "import sys; from engine_server.store.migrate import upgrade_to_head as u; u(sys.argv[1])"
    )
    nodes = [
        subprocess.Popen(
            [sys.executable, "-c", code, empty_url],
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for node in nodes:
        _, stderr = node.communicate(timeout=120)
        assert node.returncode == 0, stderr
    assert current_revisions(empty_url) == head_revisions()
    assert asyncio.run(_table_names(empty_url)) >= ENGINE_TABLES
