"""``stud replay`` and ``stud rules`` on bad input: exit 2, one line naming the file and field."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
BASE: dict[str, Any] = json.loads(
    (REPO / "tests" / "conformance" / "example_showdown_heads_up.json").read_text()
)["script"]


def _stud(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine_server", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )


def _script(**changes: Any) -> dict[str, Any]:
    script = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is None:
            script.pop(key, None)
        else:
            script[key] = value
    return script


def _deck_with(index: int, card: str) -> list[str]:
    deck = list(BASE["deck"])
    deck[index] = card
    return deck


BAD_SCRIPTS = {
    "unknown card": (_script(deck=_deck_with(5, "1x")), "deck[5]"),
    "duplicate card": (_script(deck=_deck_with(5, "Kh")), "deck[5]"),
    "unknown profile": (_script(rules="texas"), "rules"),
    "unknown setting": (_script(rules={"profile": "house", "colour": "red"}), "rules.colour"),
    "bad setting value": (
        _script(rules={"profile": "house", "dealing": "bottom"}),
        "rules.dealing",
    ),
    "button not at the table": (_script(button=4), "button"),
    "negative stack": (
        _script(seats=[{"seat": 3, "stack": -1}, {"seat": 5, "stack": 100}]),
        "seats[0].stack",
    ),
    "negative stake": (_script(stakes={"ante": -1, "small_bet": 2}), "stakes.ante"),
    "missing stakes": (_script(stakes=None), "stakes"),
    "missing seat field": (_script(seats=[{"seat": 3}, {"seat": 5, "stack": 9}]), "seats[0].stack"),
    "seat outside the table": (
        _script(seats=[{"seat": 3, "stack": 100}, {"seat": 8, "stack": 100}]),
        "seats[1].seat",
    ),
    "seat twice": (
        _script(seats=[{"seat": 3, "stack": 100}, {"seat": 3, "stack": 100}]),
        "seats[1].seat",
    ),
    "one player with chips": (
        _script(seats=[{"seat": 3, "stack": 100}, {"seat": 5, "stack": 0}]),
        "seats",
    ),
    "both deck and fairness": (
        _script(fairness={"dealer_seed": "0" * 64, "client_seed": "a", "nonce": 0}),
        "deck",
    ),
    "neither deck nor fairness": (_script(deck=None), "deck"),
    "bad client seed": (
        _script(deck=None, fairness={"dealer_seed": "0" * 64, "client_seed": "a b", "nonce": 0}),
        "fairness.client_seed",
    ),
    "unknown do": (_script(actions=[{"seat": 3, "do": "jump"}]), "actions[0].do"),
    "action by a seat not at the table": (
        _script(actions=[{"seat": 4, "do": "fold"}]),
        "actions[0].seat",
    ),
    "non-integer amount": (
        _script(actions=[{"seat": 3, "do": "raise", "to": 2.5}]),
        "actions[0].to",
    ),
    "slot dealing with eight players": (
        _script(
            rules={"profile": "house", "max_players": 8},
            seats=[{"seat": s, "stack": 10} for s in range(1, 9)],
            button=1,
        ),
        "seats",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_SCRIPTS))
def test_bad_script_exits_2_naming_file_and_field(name: str, tmp_path: Path) -> None:
    script, field = BAD_SCRIPTS[name]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(script))
    done = _stud("replay", str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(path) in lines[0]
    assert f'"{field}"' in lines[0], lines[0]


def test_malformed_json_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"rules": "house",')
    done = _stud("replay", str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert str(path) in done.stderr and "malformed JSON" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_one_bad_file_among_good_ones_prints_nothing(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(BASE))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_script(button=4)))
    done = _stud("replay", str(good), str(bad))
    assert done.returncode == 2 and done.stdout == ""
    assert "bad.json" in done.stderr


def test_missing_file_exits_2(tmp_path: Path) -> None:
    done = _stud("replay", str(tmp_path / "nope.json"))
    assert done.returncode == 2 and "nope.json" in done.stderr


def test_rules_prints_every_setting() -> None:
    done = _stud("rules", "casinos_austria")
    assert done.returncode == 0
    settings = json.loads(done.stdout)
    assert settings["profile"] == "casinos_austria"
    assert settings["max_players"] == 9
    assert settings["burns"] == ["third", "fourth", "fifth", "sixth", "seventh"]
    assert settings["bring_in"] == "range"
    assert settings["heads_up_uncapped_seventh"] is True
    assert settings["rake"] == {"percent": 5, "per_round": True, "cap": None}
    for name in (
        "max_players",
        "dealing",
        "burns",
        "bring_in",
        "bring_in_last_option",
        "open_pair_big_bet",
        "max_raises",
        "heads_up_uncapped_seventh",
        "timeout",
        "showdown",
        "short_deck",
        "rake",
        "hi_lo",
        "action_seconds",
    ):
        assert name in settings


def test_rules_unknown_profile_exits_2() -> None:
    done = _stud("rules", "texas")
    assert done.returncode == 2 and done.stdout == ""
    assert "texas" in done.stderr and len(done.stderr.strip().splitlines()) == 1
