"""A tournament's structure: checked once, every default filled in, every mistake named."""

from __future__ import annotations

import doctest
from datetime import UTC, datetime

import pytest

from lobby_api.tournaments import money, structure
from lobby_api.tournaments.structure import DEFAULT_LEVELS, StructureError, parse_structure


@pytest.mark.parametrize("module", [structure, money], ids=lambda m: m.__name__)
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.failed == 0 and result.attempted > 0


def test_the_defaults_of_a_sit_and_go_and_of_a_scheduled_tournament() -> None:
    sng = parse_structure({"name": "  Quick  "})
    assert (sng.name, sng.kind, sng.profile, sng.buy_in, sng.fee, sng.starting_chips) == (
        "Quick",
        "sit_and_go",
        "house",
        100,
        10,
        1500,
    )
    assert (sng.min_players, sng.max_players, sng.table_size) == (7, 7, 7)
    assert sng.levels_json() == list(DEFAULT_LEVELS)
    assert (sng.city, sng.starts_at, sng.late_registration_levels, sng.payouts) == (
        None,
        None,
        0,
        None,
    )
    mtt = parse_structure(
        {"name": "MTT", "kind": "scheduled", "starts_at": "2030-01-01T20:00:00+01:00"}
    )
    assert (mtt.min_players, mtt.max_players) == (2, 100)
    assert mtt.starts_at == datetime(2030, 1, 1, 19, 0, tzinfo=UTC)
    # A template of a scheduled tournament may leave its start time to ops.
    assert parse_structure({"name": "T", "kind": "scheduled"}, template=True).starts_at is None


def test_table_size_follows_the_profile() -> None:
    assert parse_structure({"name": "x", "profile": "casinos_austria"}).table_size == 7
    wide = parse_structure({"name": "x", "profile": "casinos_austria", "table_size": 9})
    assert wide.table_size == 9 and wide.max_players == 9
    narrow = parse_structure(
        {"name": "x", "rule_overrides": {"max_players": 5}, "table_size": 5, "max_players": 5}
    )
    assert narrow.rule_overrides == {"max_players": 5}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ([], "body"),
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "x", "extra": 1}, "extra"),
        ({"name": "x", "kind": "knockout"}, "kind"),
        ({"name": "x", "profile": "poker"}, "profile"),
        ({"name": "x", "rule_overrides": []}, "rule_overrides"),
        ({"name": "x", "rule_overrides": {"max_raises": "many"}}, "rule_overrides.max_raises"),
        ({"name": "x", "fee": True}, "fee"),
        ({"name": "x", "starting_chips": 0}, "starting_chips"),
        ({"name": "x", "table_size": 1}, "table_size"),
        ({"name": "x", "table_size": 9}, "table_size"),  # house seats 7 (docs/rules.md §1)
        ({"name": "x", "max_players": 10_001}, "max_players"),
        ({"name": "x", "min_players": 3, "max_players": 7}, "min_players"),
        ({"name": "x", "levels": "fast"}, "levels"),
        (
            {
                "name": "x",
                "levels": [{"ante": -1, "bring_in": 1, "small_bet": 2, "big_bet": 4, "hands": 1}],
            },
            "levels[0].ante",
        ),
        (
            {
                "name": "x",
                "levels": [
                    {
                        "ante": 0,
                        "bring_in": 1,
                        "small_bet": 2,
                        "big_bet": 4,
                        "hands": 1,
                        "minutes": 2,
                    }
                ],
            },
            "levels[0]",
        ),
        ({"name": "x", "city": 7}, "city"),
        ({"name": "x", "starts_at": "tomorrow"}, "starts_at"),
        ({"name": "x", "kind": "scheduled", "starts_at": "2030-01-01T20:00:00"}, "starts_at"),
        ({"name": "x", "late_registration_levels": 1}, "late_registration_levels"),
        (
            {
                "name": "x",
                "kind": "scheduled",
                "starts_at": "2030-01-01T20:00:00Z",
                "late_registration_levels": 99,
            },
            "late_registration_levels",
        ),
        ({"name": "x", "payouts": [{"max_entrants": 3, "percentages": [40, 60]}]}, "payouts"),
    ],
)
def test_every_mistake_names_its_field(data: object, field: str) -> None:
    with pytest.raises(StructureError) as caught:
        parse_structure(data)
    assert caught.value.field == field, caught.value
    assert caught.value.message
