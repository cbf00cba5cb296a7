"""seeds/: the cities, stake levels and tournament templates files, checked and loaded
idempotently."""

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
from lobby_api.tournaments.levels import LevelClock, parse_levels
from lobby_api.tournaments.payouts import default_payout_percentages, prizes
from lobby_api.tournaments.seating import initial_draw
from lobby_api.tournaments.structure import parse_structure
from seeds import load
from seeds.load import (
    SeedError,
    apply_seeds,
    load_seed_files,
    parse_cities,
    parse_stakes,
    parse_tournaments,
)

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
    assert first == (len(data.cities) + len(data.stakes) + len(data.tournaments), 0)
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
    assert report["inserted"] == (
        report["cities"] + report["stake_levels"] + report["tournament_templates"]
    )


def test_doctests() -> None:
    result = doctest.testmod(load)
    assert result.attempted > 0 and result.failed == 0


def test_the_shipped_tournament_templates_are_playable() -> None:
    data = load_seed_files()
    templates = {t.name: t for t in data.tournaments}
    structures = {
        name: parse_structure(t.structure, template=True) for name, t in templates.items()
    }
    turbo, two, oslo = structures["turbo-7"], structures["two-table-14"], structures["oslo-6"]
    assert (turbo.name, turbo.kind, turbo.max_players, turbo.table_size) == (
        "Turbo 7",
        "sit_and_go",
        7,
        7,
    )
    assert all(level.minutes for level in turbo.levels)
    assert (two.max_players, two.table_size) == (14, 7)
    assert all(level.hands for level in two.levels)
    assert oslo.city == "oslo" and oslo.city in {c.id for c in data.cities}
    # Levels in minutes and in hands, both, across the templates.
    assert any(lv.minutes for lv in oslo.levels) and any(lv.hands for lv in oslo.levels)
    kept = [name for name, t in templates.items() if t.keep_open]
    assert {"turbo-7", "two-table-14", "oslo-6"} <= set(kept)
    for name in kept:
        s = structures[name]
        assert s.kind == "sit_and_go" and s.min_players == s.max_players
        # The draw seats the full field at full tables; the payouts hand out the whole pool.
        draw = initial_draw([f"p{i}" for i in range(s.max_players)], s.table_size, key=b"k")
        assert sum(len(t) for t in draw) == s.max_players
        assert all(len(t) <= s.table_size for t in draw)
        pool = s.buy_in * s.max_players
        assert sum(prizes(pool, default_payout_percentages(s.max_players))) == pool
        clock = LevelClock(parse_levels([lv.as_json() for lv in s.levels]))
        assert clock.stakes(0).big_bet <= s.starting_chips
    assert structures["evening-mtt"].kind == "scheduled"
    assert not templates["evening-mtt"].keep_open


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([{"name": "x"}], "tournaments.json[0]: missing field 'template'"),
        ([{"template": "A B", "name": "x"}], "tournaments.json[0].template: expected 1-32"),
        ([{"template": "a", "name": "x", "buy_in": -5}], "tournaments.json[0].buy_in: must be"),
        (
            [{"template": "a", "name": "x", "levels": [{"ante": 0, "bring_in": 1}]}],
            "tournaments.json[0].levels[0].small_bet: must be an integer",
        ),
        (
            [{"template": "a", "name": "x", "kind": "scheduled", "keep_open": True}],
            "tournaments.json[0].keep_open: only a sit & go is kept open",
        ),
        (
            [{"template": "a", "name": "x", "payouts": [{"max_entrants": 9, "percentages": [50]}]}],
            "tournaments.json[0].payouts: payouts[0].percentages must add up to 100",
        ),
        ([{"template": "a", "name": "x", "colour": "red"}], "tournaments.json[0].colour: unknown"),
        (
            [{"template": "a", "name": "x"}, {"template": "a", "name": "y"}],
            "tournaments.json: id 'a' appears twice",
        ),
    ],
)
def test_tournament_template_mistakes_name_the_field(data: object, message: str) -> None:
    with pytest.raises(SeedError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_tournaments(data)


def test_a_template_of_an_unknown_city_is_refused() -> None:
    with pytest.raises(SeedError, match=r"tournaments.json\[0\].city: no city 'atlantis'"):
        parse_tournaments([{"template": "a", "name": "x", "city": "atlantis"}], cities=["oslo"])
