"""seeds/: the cities and stake levels files, checked and loaded idempotently."""

from __future__ import annotations

import asyncio
import doctest
import json
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine_server.store.database import create_engine_for
from engine_server.store.migrate import upgrade_to_head
from seeds import load
from seeds.load import SeedError, apply_seeds, load_seed_files, parse_cities, parse_stakes

REPO = Path(__file__).resolve().parents[2]


def test_the_shipped_seeds_are_valid() -> None:
    data = load_seed_files()
    assert {c.id for c in data.cities} >= {"oslo", "stockholm", "copenhagen", "vienna", "berlin"}
    levels = {s.id: s for s in data.stakes}
    # The multipoker schedule of rules-sources/000, in cents.
    small = levels["mp-0.50-1"]
    assert (small.profile, small.small_bet, small.big_bet) == ("multipoker", 50, 100)
    assert small.rake == {
        "by_players": [
            {"min_players": 2, "max_players": 10, "schedule": [[500, 50], [1200, 75], [2000, 100]]}
        ]
    }
    middle = levels["mp-3-6"].rake
    assert middle is not None
    assert [b["schedule"][-1] for b in middle["by_players"]] == [
        [2000, 100],
        [4000, 200],
        [6000, 300],
    ]
    for level in data.stakes:
        assert 0 < level.min_buy_in <= level.max_buy_in and level.action_seconds > 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([{"id": "x"}], "stakes.json[0]: missing field 'name'"),
        (
            [
                {
                    **json.loads(
                        '{"id": "a", "name": "A", "profile": "nope", "ante": 1, "bring_in": 1, "small_bet": 2, "big_bet": 4, "min_buy_in": 1, "max_buy_in": 2, "action_seconds": 1}'
                    )
                }
            ],
            "stakes.json[0].profile: unknown profile",
        ),
        (
            [
                {
                    "id": "a",
                    "name": "A",
                    "profile": "house",
                    "ante": 1,
                    "bring_in": 1,
                    "small_bet": 2,
                    "big_bet": 4,
                    "min_buy_in": 9,
                    "max_buy_in": 2,
                    "action_seconds": 1,
                }
            ],
            "stakes.json[0]: expected 0 < min_buy_in",
        ),
        (
            [
                {
                    "id": "a",
                    "name": "A",
                    "profile": "house",
                    "ante": 1,
                    "bring_in": 1,
                    "small_bet": 2,
                    "big_bet": 4,
                    "min_buy_in": 1,
                    "max_buy_in": 2,
                    "action_seconds": 1,
                    "rake": {
                        "by_players": [{"min_players": 2, "max_players": 3, "schedule": [[5, "x"]]}]
                    },
                }
            ],
            "stakes.json[0].rake.by_players[0].schedule[0]",
        ),
        (
            [
                {
                    "id": "a",
                    "name": "A",
                    "profile": "multipoker",
                    "ante": 1,
                    "bring_in": 1,
                    "small_bet": 2,
                    "big_bet": 4,
                    "min_buy_in": 1,
                    "max_buy_in": 2,
                    "action_seconds": 1,
                    "rake": {
                        "by_players": [
                            {"min_players": 2, "max_players": 5, "schedule": [[5, 1]]},
                            {"min_players": 4, "max_players": 10, "schedule": [[5, 2]]},
                        ]
                    },
                }
            ],
            "stakes.json[0].rake.by_players[1].min_players: overlaps another bracket",
        ),
        ({"not": "a list"}, "stakes.json: expected a list of objects"),
    ],
)
def test_stake_mistakes_name_the_field(data: object, message: str) -> None:
    with pytest.raises(SeedError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_stakes(data)


def test_city_mistakes_name_the_field() -> None:
    with pytest.raises(SeedError, match=r"cities.json\[1\].id"):
        parse_cities([{"id": "oslo", "name": "Oslo"}, {"id": "Not A Slug", "name": "x"}])
    with pytest.raises(SeedError, match="appears twice"):
        parse_cities([{"id": "oslo", "name": "Oslo"}, {"id": "oslo", "name": "Oslo"}])


def test_loading_twice_changes_nothing_and_an_edit_updates(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/seeds.sqlite3"
    upgrade_to_head(url)

    async def run() -> tuple[tuple[int, int], tuple[int, int], tuple[int, int], int]:
        engine = create_engine_for(url, null_pool=True)
        try:
            first = await apply_seeds(engine)
            again = await apply_seeds(engine)
            data = load_seed_files()
            data.cities[0].name = "Oslo (edited)"
            edited = await apply_seeds(engine, data)
            async with engine.connect() as connection:
                count = (
                    await connection.execute(sa.text("SELECT count(*) FROM stake_levels"))
                ).scalar()
            return first, again, edited, int(count or 0)
        finally:
            await engine.dispose()

    first, again, edited, stakes = asyncio.run(run())
    data = load_seed_files()
    assert first == (len(data.cities) + len(data.stakes), 0)
    assert again == (0, 0)
    assert edited == (0, 1)
    assert stakes == len(data.stakes)


def test_the_command_migrates_and_loads(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/cmd.sqlite3"
    done = subprocess.run(
        [sys.executable, "-m", "seeds.load", "--database-url", url],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["inserted"] == report["cities"] + report["stake_levels"]


def test_doctests() -> None:
    result = doctest.testmod(load)
    assert result.attempted > 0 and result.failed == 0
