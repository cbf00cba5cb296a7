"""Multipoker's rake by players dealt in (docs/rules.md §2.11, from the multipoker rake source).

The schedule comes from ``seeds/stakes.json`` (the $3/$6 level: 2-3, 4-5 and 6-10 players,
each with its own steps by final pot). The same pot pays a different rake when a different
number of players was dealt into the hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine_server.cli import main as stud
from engine_server.game.actions import ActionKind
from engine_server.game.hand import Hand
from engine_server.game.profiles import (
    PROFILES,
    ProfileError,
    Rake,
    RakeBracket,
    Stakes,
    apply_overrides,
    settings_to_json,
)
from engine_server.game.replay import ScriptError, parse_script, replay
from tests.engine_server.game.scripting import Action, script, top_deck

SEEDS = Path(__file__).resolve().parents[3] / "seeds" / "stakes.json"


def _seed_rake(level: str) -> dict[str, Any]:
    levels = {item["id"]: item for item in json.loads(SEEDS.read_text(encoding="utf-8"))}
    rake: dict[str, Any] = levels[level]["rake"]
    return rake


MP_3_6 = _seed_rake("mp-3-6")
#: The level's bets without the ante, so that players who fold at once put nothing in and
#: hands of 3, 5 and 7 players can end with the very same pot.
STAKES = {"ante": 0, "bring_in": 100, "small_bet": 300, "big_bet": 600}


def _deck(players: int, stayers: int) -> list[str]:
    """Position 0 has the lowest door card (the bring-in); the first ``stayers`` positions
    play to the end, the others fold on third street."""
    doors = ["2c", *["Kd", "Qd", "Jd", "Td", "9d", "8d", "7d", "6d"][: players - 1]]
    hands = [
        f"?? ?? {door}" + (" ?? ?? ?? ??" if position < stayers else "")
        for position, door in enumerate(doors)
    ]
    return top_deck(hands)


def _play(players: int, rake_json: dict[str, Any]) -> tuple[Hand, list[Action]]:
    """Three players bet and call every street; everyone else folds at his first turn."""
    parsed = parse_script(
        script(
            {"profile": "multipoker", "rake": rake_json},
            seats={seat: 10_000 for seat in range(1, players + 1)},
            button=players,
            deck=_deck(players, stayers=3),
            stakes=STAKES,
        )
    )
    hand = parsed.new_hand()
    stayers = {1, 2, 3}  # positions 0-2: the button is the last seat
    actions: list[Action] = []
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        kinds = {a.kind for a in hand.legal_actions()}
        if seat not in stayers:
            kind = ActionKind.FOLD
        else:
            preferred = (ActionKind.COMPLETE, ActionKind.BET, ActionKind.CALL, ActionKind.CHECK)
            kind = next(k for k in preferred if k in kinds)
        hand.act(seat, kind)
        actions.append((seat, str(kind)))
    return hand, actions


@pytest.mark.parametrize(("players", "rake"), [(3, 100), (5, 200), (7, 300)])
def test_the_same_pot_pays_the_schedule_of_the_players_dealt_in(players: int, rake: int) -> None:
    hand, _ = _play(players, MP_3_6)
    result = hand.result()
    # 3 players x (300 + 300 + 600 + 600 + 600): the same final pot in every case.
    assert sum(pot.amount for pot in result.pots) == 7200
    # Seeds: 2-3 players top out at 100 (pot >= 2000), 4-5 at 200 (>= 4000), 6-10 at 300.
    assert result.rake == rake
    assert sum(result.final_stacks.values()) + result.rake == players * 10_000


@pytest.mark.parametrize("where", ["rules", "stakes"])
def test_a_hand_script_with_a_by_players_rake_replays(where: str) -> None:
    _, actions = _play(5, MP_3_6)
    rules: dict[str, Any] = {"profile": "multipoker"}
    stakes: dict[str, Any] = dict(STAKES)
    if where == "rules":
        rules["rake"] = MP_3_6
    else:
        stakes["rake"] = MP_3_6
    data = script(
        rules,
        seats={seat: 10_000 for seat in range(1, 6)},
        button=5,
        deck=_deck(5, stayers=3),
        stakes=stakes,
        actions=actions,
    )
    out = replay(parse_script(json.loads(json.dumps(data))))
    assert out["ok"] is True, out
    assert out["rake"] == 200
    assert out["pots"][0]["amount"] == 7200
    assert sum(out["pots"][0]["awards"].values()) == 7000
    # Without the override the profile takes none: multipoker's schedule is the table's.
    data["rules"], data["stakes"] = "multipoker", dict(STAKES)
    assert replay(parse_script(data))["rake"] == 0


def test_a_rake_by_players_round_trips_through_its_json() -> None:
    rake = Rake.from_json(MP_3_6, "rake")
    assert rake is not None
    assert rake.by_players[0] == RakeBracket(2, 3, ((2000, 100),))
    assert rake.to_json() == MP_3_6
    settings = apply_overrides(PROFILES["multipoker"], {"rake": MP_3_6})
    printed = settings_to_json(settings)
    assert printed["rake"] == MP_3_6
    assert apply_overrides(PROFILES["multipoker"], {"rake": printed["rake"]}) == settings
    # Brackets given out of order are kept in order of players.
    shuffled = {"by_players": list(reversed(MP_3_6["by_players"]))}
    assert Rake.from_json(shuffled, "rake") == rake


def test_stud_rules_multipoker_prints_no_rake_of_its_own(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The schedule belongs to the table's stake level: the profile carries none.
    assert stud(["rules", "multipoker"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["profile"] == "multipoker" and printed["rake"] is None
    # Its settings with the level's rake print the rake object as given, and read back.
    printed["rake"] = MP_3_6
    settings = apply_overrides(
        PROFILES["multipoker"], {k: v for k, v in printed.items() if k != "profile"}
    )
    assert settings_to_json(settings) == printed


def test_every_seeded_multipoker_level_has_a_valid_schedule() -> None:
    levels = json.loads(SEEDS.read_text(encoding="utf-8"))
    multipoker = [level for level in levels if level["profile"] == "multipoker"]
    assert multipoker
    for level in multipoker:
        rake = Rake.from_json(level["rake"], f"{level['id']}.rake")
        assert rake is not None and rake.by_players, level["id"]
        # Every table size the profile seats pays by some bracket.
        for players in range(2, PROFILES["multipoker"].max_players + 1):
            assert any(b.min_players <= players <= b.max_players for b in rake.by_players)


def _bracket(low: Any, high: Any, schedule: Any = ((20, 1),)) -> dict[str, Any]:
    return {"min_players": low, "max_players": high, "schedule": [list(s) for s in schedule]}


@pytest.mark.parametrize(
    ("brackets", "field", "message"),
    [
        ([], "rules.rake.by_players", "non-empty list"),
        ("2-9", "rules.rake.by_players", "non-empty list"),
        ([[2, 9]], "rules.rake.by_players[0]", "min_players, max_players, schedule"),
        ([_bracket(1, 9)], "rules.rake.by_players[0].min_players", ">= 2"),
        ([_bracket(2, True)], "rules.rake.by_players[0].max_players", ">= min_players"),
        ([_bracket(5, 4)], "rules.rake.by_players[0].max_players", ">= min_players"),
        ([_bracket(2, 9, ())], "rules.rake.by_players[0].schedule", "non-empty list"),
        ([_bracket(2, 9, ((20, -1),))], "rules.rake.by_players[0].schedule[0]", "integers"),
        ([{**_bracket(2, 9), "cap": 3}], "rules.rake.by_players[0].cap", "unknown bracket key"),
        ([{"min_players": 2, "max_players": 9}], "rules.rake.by_players[0].schedule", "missing"),
        # Overlapping brackets: which schedule would a hand of 5 pay?
        (
            [_bracket(2, 5), _bracket(5, 9)],
            "rules.rake.by_players[1].min_players",
            "overlaps another bracket",
        ),
        (
            [_bracket(6, 9), _bracket(2, 6)],
            "rules.rake.by_players[0].min_players",
            "overlaps another bracket",
        ),
        # Every count from 2 to 9 needs a schedule (the source's table covers 2-10).
        ([_bracket(3, 9)], "rules.rake.by_players", "no bracket for 2 players"),
        ([_bracket(2, 3), _bracket(6, 9)], "rules.rake.by_players", "no bracket for 4-5 players"),
        ([_bracket(2, 8)], "rules.rake.by_players", "no bracket for 9 players"),
    ],
)
def test_a_bad_rake_by_players_is_refused_naming_the_field(
    brackets: Any, field: str, message: str
) -> None:
    with pytest.raises(ProfileError) as error:
        apply_overrides(PROFILES["multipoker"], {"rake": {"by_players": brackets}})
    assert error.value.field == field
    assert message in error.value.reason


def test_a_rake_by_players_takes_no_other_keys() -> None:
    with pytest.raises(ScriptError) as error:
        parse_script(
            script(
                "multipoker",
                seats={1: 100, 2: 100},
                button=2,
                deck=top_deck([]),
                stakes={**STAKES, "rake": {**MP_3_6, "cap": 10}},
            )
        )
    assert error.value.field == "stakes.rake"


def test_a_bracket_built_in_code_with_no_schedule_for_the_count_takes_no_rake() -> None:
    # Parsing refuses gaps; a Rake made in code may have one, and then takes nothing.
    rake = Rake(by_players=(RakeBracket(2, 3, ((10, 1),)),))
    assert rake.of_pot(100, players=3) == 1
    assert rake.of_pot(100, players=4) == 0
    hand = Hand(
        PROFILES["house"],
        Stakes(1, 1, 2, 4),
        [(1, 50), (2, 50), (3, 50), (4, 50)],
        4,
        list(range(52)),
        rake=rake,
    )
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        kinds = {a.kind for a in hand.legal_actions()}
        hand.act(seat, ActionKind.CHECK if ActionKind.CHECK in kinds else ActionKind.CALL)
    assert hand.result().rake == 0
