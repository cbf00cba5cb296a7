"""``stud deck`` and ``stud verify``, in-process and through the real ``stud``.

Every case runs twice: once calling the subcommand module's ``configure`` and
``run`` the way the dispatcher does, and once as a subprocess of the installed
``stud`` script. The dispatcher imports every subcommand module, so the
subprocess runs are skipped until all of them exist.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import io
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine_server.cli import COMMANDS, CliError
from engine_server.game.cards import format_card
from engine_server.game.fairness import commitment, derive_deck

VECTOR = json.loads(
    (Path(__file__).parents[2] / "conformance" / "fairness_vector.json").read_text()
)
SEED = VECTOR["dealer_seed"]
STUD = Path(sys.executable).with_name("stud")
MISSING_COMMANDS = [
    module
    for module, _ in COMMANDS.values()
    if importlib.util.find_spec(f"engine_server.cli.{module}") is None
]


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str


Stud = Callable[..., Outcome]


def run_in_process(argv: list[str], stdin: bytes = b"", cwd: Path | None = None) -> Outcome:
    """What ``engine_server.cli.main`` does for one subcommand, without the others."""
    command, *rest = argv
    module = importlib.import_module(f"engine_server.cli.{COMMANDS[command][0]}")
    parser = argparse.ArgumentParser(prog=f"stud {command}")
    module.configure(parser)
    args = parser.parse_args(rest)
    out, err = io.StringIO(), io.StringIO()
    real_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            contextlib.chdir(cwd or Path.cwd()),
        ):
            try:
                code = module.run(args)
            except CliError as error:
                print(f"stud {command}: {error}", file=sys.stderr)
                code = error.code
    finally:
        sys.stdin = real_stdin
    return Outcome(code, out.getvalue(), err.getvalue())


def run_subprocess(argv: list[str], stdin: bytes = b"", cwd: Path | None = None) -> Outcome:
    done = subprocess.run(
        [str(STUD), *argv], input=stdin, capture_output=True, cwd=cwd, timeout=60, check=False
    )
    return Outcome(done.returncode, done.stdout.decode(), done.stderr.decode())


@pytest.fixture(
    params=[
        "in-process",
        pytest.param(
            "subprocess",
            marks=pytest.mark.skipif(
                bool(MISSING_COMMANDS),
                reason=f"the dispatcher needs engine_server.cli modules {MISSING_COMMANDS}",
            ),
        ),
    ]
)
def stud(request: pytest.FixtureRequest) -> Stud:
    return run_in_process if request.param == "in-process" else run_subprocess


def assert_bad_input(outcome: Outcome, *parts: str) -> None:
    assert outcome.code == 2
    assert outcome.stdout == ""
    lines = outcome.stderr.splitlines()
    assert len(lines) == 1, outcome.stderr
    for part in parts:
        assert part in lines[0]


# --- stud deck ---------------------------------------------------------------


def test_deck_prints_the_vector_exactly(stud: Stud) -> None:
    outcome = stud(["deck", SEED, VECTOR["client_seed"], str(VECTOR["nonce"])])
    assert outcome.code == 0
    assert outcome.stderr == ""
    expected = {"commitment": VECTOR["commitment"], "deck": VECTOR["deck"]}
    assert outcome.stdout == json.dumps(expected) + "\n"


def test_deck_of_another_nonce(stud: Stud) -> None:
    outcome = stud(["deck", SEED, "alice", "17"])
    assert outcome.code == 0
    printed = json.loads(outcome.stdout)
    assert printed["deck"] == [format_card(c) for c in derive_deck(SEED, "alice", 17)]


@pytest.mark.parametrize(
    ("argv", "argument"),
    [
        ([SEED[:-1], "alice", "0"], "DEALER_SEED"),
        ([SEED.upper(), "alice", "0"], "DEALER_SEED"),
        ([SEED, "al:ice", "0"], "CLIENT_SEED"),
        ([SEED, "", "0"], "CLIENT_SEED"),
        ([SEED, "x" * 65, "0"], "CLIENT_SEED"),
        ([SEED, "alice", "-1"], "NONCE"),
        ([SEED, "alice", "1.5"], "NONCE"),
        ([SEED, "alice", "seven"], "NONCE"),
        ([SEED, "alice", ""], "NONCE"),
    ],
)
def test_deck_names_the_bad_argument(stud: Stud, argv: list[str], argument: str) -> None:
    assert_bad_input(stud(["deck", *argv]), "stud deck: ", f"argument {argument}: ")


# --- stud verify -------------------------------------------------------------


def honest_record() -> dict[str, object]:
    deck = derive_deck(SEED, "alice", 0)
    dealt = [
        {"seat": seat, "card": format_card(deck[7 * k + p]), "deck_index": 7 * k + p}
        for k in range(3)
        for p, seat in enumerate([1, 2, 3])
    ]
    return {
        "commitment": commitment(SEED),
        "dealer_seed": SEED,
        "client_seed": "alice",
        "nonce": 0,
        "dealt": dealt,
    }


def write(directory: Path, data: object, name: str = "record.json") -> Path:
    path = directory / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_verify_ok(stud: Stud, tmp_path: Path) -> None:
    outcome = stud(["verify", str(write(tmp_path, honest_record()))])
    assert outcome.code == 0, outcome.stderr
    assert outcome.stderr == ""
    assert json.loads(outcome.stdout) == {
        "ok": True,
        "commitment_ok": True,
        "mismatches": [],
        "problems": [],
    }


def test_verify_reads_stdin(stud: Stud) -> None:
    outcome = stud(["verify", "-"], stdin=json.dumps(honest_record()).encode())
    assert outcome.code == 0, outcome.stderr
    assert json.loads(outcome.stdout)["ok"] is True


def test_verify_tampered_card_exits_1(stud: Stud, tmp_path: Path) -> None:
    record = honest_record()
    dealt = record["dealt"]
    assert isinstance(dealt, list)
    real = dealt[2]["card"]
    dealt[2]["card"] = "2c" if real != "2c" else "3c"
    outcome = stud(["verify", str(write(tmp_path, record))])
    assert outcome.code == 1
    assert outcome.stderr == ""
    report = json.loads(outcome.stdout)
    assert report["ok"] is False and report["commitment_ok"] is True
    assert report["mismatches"] == [
        {"seat": 3, "card": dealt[2]["card"], "deck_index": 2, "deck_card": real}
    ]
    assert len(report["problems"]) == 1 and "deck index 2" in report["problems"][0]


@pytest.mark.parametrize(
    "changes",
    [
        {"dealer_seed": "0" * 64},
        {"commitment": "0" * 64},
        {"client_seed": "bob"},
        {"nonce": 1},
    ],
)
def test_verify_wrong_seed_or_nonce_exits_1(
    stud: Stud, tmp_path: Path, changes: dict[str, object]
) -> None:
    outcome = stud(["verify", str(write(tmp_path, {**honest_record(), **changes}))])
    assert outcome.code == 1
    assert json.loads(outcome.stdout)["ok"] is False


def test_verify_malformed_json_exits_2(stud: Stud, tmp_path: Path) -> None:
    write(tmp_path, '{"commitment": ')
    outcome = stud(["verify", "record.json"], cwd=tmp_path)
    assert_bad_input(outcome, "stud verify: record.json: not valid JSON")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: r.pop("nonce"),
            'stud verify: record.json: field "nonce": is missing',
        ),
        (
            lambda r: r.update(nonce="0"),
            'stud verify: record.json: field "nonce": must be a non-negative integer',
        ),
        (
            lambda r: r.update(client_seed=5),
            'stud verify: record.json: field "client_seed": must be a string',
        ),
        (
            lambda r: r["dealt"][1].update(card="1x"),
            "stud verify: record.json: field \"dealt[1].card\": not a card: '1x'",
        ),
        (
            lambda r: r["dealt"][0].pop("deck_index"),
            'stud verify: record.json: field "dealt[0].deck_index": is missing',
        ),
    ],
)
def test_verify_bad_field_exits_2(
    stud: Stud, tmp_path: Path, change: Callable[[dict[str, object]], object], message: str
) -> None:
    record = honest_record()
    change(record)
    write(tmp_path, record)
    outcome = stud(["verify", "record.json"], cwd=tmp_path)
    assert_bad_input(outcome, message)
    assert outcome.stderr.startswith(message)


def test_verify_non_object_exits_2(stud: Stud, tmp_path: Path) -> None:
    write(tmp_path, "42")
    outcome = stud(["verify", "record.json"], cwd=tmp_path)
    assert_bad_input(
        outcome,
        "record.json: the record must be a JSON object (or the lobby's list of seed pairs), "
        "not a number",
    )
    # A list is the lobby's table answer: an empty one has nothing in it.
    write(tmp_path, "[]")
    outcome = stud(["verify", "record.json"], cwd=tmp_path)
    assert_bad_input(outcome, "record.json: the answer lists no seed pairs")


# --- stud verify with the lobby's answers (their real form: tests/lobby_api/fairness) ---------


def seat_1_cards(nonce: int) -> list[dict[str, object]]:
    """What seat 1 of three (house rules, button on seat 3) is dealt on third street, in the
    form the lobby's answers give a player's cards: deck[0], deck[7], deck[14]."""
    deck = derive_deck(SEED, "alice", nonce)
    return [{"seat": 1, "card": format_card(deck[i]), "deck_index": i} for i in (0, 7, 14)]


def hand_answer(**changes: object) -> dict[str, object]:
    """GET /hands/{hand_id}/fairness's answer for the vector's seeds, with ``changes``."""
    return {
        "hand_id": "h-1",
        "table": "t-1",
        "hand_number": 1,
        "commitment": commitment(SEED),
        "client_seed": "alice",
        "nonce": 0,
        "dealer_seed": SEED,
        "revealed": True,
        "revealed_at": "2026-01-01T00:00:00Z",
        "check": {"ok": True, "deck": [format_card(c) for c in derive_deck(SEED, "alice", 0)]},
        "dealt": seat_1_cards(0),
        **changes,
    }


def seed_pair(**changes: object) -> dict[str, object]:
    """One seed pair of GET /tables/{table_id}/fairness's answer, with ``changes``."""
    return {
        "ordinal": 1,
        "state": "retired",
        "commitment": commitment(SEED),
        "client_seed": "alice",
        "hands_dealt": 2,
        "dealer_seed": SEED,
        "revealed_at": "2026-01-01T00:00:00Z",
        "check": {
            "ok": True,
            "hands": [
                {
                    "hand_id": "h-1",
                    "hand_number": 1,
                    "nonce": 1,
                    "ok": True,
                    "dealt": seat_1_cards(1),
                }
            ],
        },
        **changes,
    }


def test_verify_hand_answer(stud: Stud) -> None:
    outcome = stud(["verify", "-"], stdin=json.dumps(hand_answer()).encode())
    assert outcome.code == 0, outcome.stderr
    report = json.loads(outcome.stdout)
    assert report["ok"] is True and report["input"] == "hand"
    assert report["deck"] == VECTOR["deck"]
    assert report["cards_checked"] == 3  # 5h Ks 3d, where the vector's deck has them

    # An answer from a lobby that gave no cards still checks the seeds and the deck: none.
    answer = hand_answer()
    del answer["dealt"]
    outcome = stud(["verify", "-"], stdin=json.dumps(answer).encode())
    assert outcome.code == 0 and json.loads(outcome.stdout)["cards_checked"] == 0


def test_verify_table_answer(stud: Stud) -> None:
    answer = [seed_pair(), seed_pair(ordinal=2, state="current", dealer_seed=None, check=None)]
    outcome = stud(["verify", "-"], stdin=json.dumps(answer).encode())
    assert outcome.code == 0, outcome.stderr
    report = json.loads(outcome.stdout)
    assert (report["pairs_checked"], report["pairs_unrevealed"]) == (1, 1)
    assert report["hands"][0]["deck"] == [format_card(c) for c in derive_deck(SEED, "alice", 1)]
    assert report["cards_checked"] == report["hands"][0]["cards_checked"] == 3
    assert report["mismatches"] == report["hands"][0]["mismatches"] == []


def test_verify_table_answer_with_a_card_changed_exits_1(stud: Stud) -> None:
    dealt = seat_1_cards(1)
    real = dealt[1]["card"]
    dealt[1]["card"] = "2c" if real != "2c" else "3c"
    hand = {"hand_id": "h-1", "hand_number": 1, "nonce": 1, "ok": True, "dealt": dealt}
    pair = seed_pair(check={"ok": True, "hands": [hand]})
    outcome = stud(["verify", "-"], stdin=json.dumps([pair]).encode())
    assert outcome.code == 1, outcome.stderr
    report = json.loads(outcome.stdout)
    assert report["ok"] is False and report["commitment_ok"] is True
    mismatch = {"seat": 1, "card": dealt[1]["card"], "deck_index": 7, "deck_card": real}
    assert report["mismatches"] == report["hands"][0]["mismatches"] == [mismatch]
    assert report["hands"][0]["ok"] is False
    assert report["problems"] == [
        f"seed pair 1, hand h-1: seat 1 was dealt {dealt[1]['card']} as deck index 7, "
        f"but the deck has {real} there"
    ]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            hand_answer(dealer_seed=None, revealed=False, check=None),
            "stud verify: <stdin>: hand h-1 is not revealed yet (dealer_seed is null)",
        ),
        (
            hand_answer(check=None),
            'stud verify: <stdin>: field "check": must be an object with the deck',
        ),
        (
            hand_answer(check={"deck": ["5h", "1x"]}),
            "stud verify: <stdin>: field \"check.deck[1]\": not a card: '1x'",
        ),
        (
            hand_answer(nonce="0"),
            'stud verify: <stdin>: field "nonce": must be a non-negative integer',
        ),
        (
            [seed_pair(dealer_seed=None, check=None)] * 2,
            "stud verify: <stdin>: none of the table's 2 seed pairs is revealed yet",
        ),
        (
            [seed_pair(hands_dealt="2")],
            'stud verify: <stdin>: field "[0].hands_dealt": must be a non-negative integer',
        ),
        (
            [seed_pair(), seed_pair(client_seed=None)],
            'stud verify: <stdin>: field "[1].client_seed": must be 1 to 64 characters',
        ),
        (
            [seed_pair(check={"hands": [{"hand_id": "h-1"}]})],
            'stud verify: <stdin>: field "[0].check.hands[0].nonce": is missing',
        ),
        (["pair"], 'stud verify: <stdin>: field "[0]": must be a seed pair'),
        (
            [seed_pair(check={"hands": [{"hand_id": "h-1", "nonce": 1, "dealt": [{}]}]})],
            'stud verify: <stdin>: field "[0].check.hands[0].dealt[0].seat": is missing',
        ),
        (
            hand_answer(dealt=[{"seat": 1, "card": "5h", "deck_index": 52}]),
            'stud verify: <stdin>: field "dealt[0].deck_index": must be an integer from 0 to 51',
        ),
    ],
)
def test_verify_bad_answer_exits_2(stud: Stud, answer: object, message: str) -> None:
    outcome = stud(["verify", "-"], stdin=json.dumps(answer).encode())
    assert_bad_input(outcome, message)
    assert outcome.stderr.startswith(message)


def test_verify_hand_answer_short_deck_exits_1(stud: Stud) -> None:
    answer = hand_answer()
    check = answer["check"]
    assert isinstance(check, dict)
    check["deck"] = check["deck"][:51]
    outcome = stud(["verify", "-"], stdin=json.dumps(answer).encode())
    assert outcome.code == 1
    report = json.loads(outcome.stdout)
    assert report["problems"] == ["the answer's deck has 51 cards, not 52"]
    assert report["deck_ok"] is False


def test_verify_missing_file_exits_2(stud: Stud, tmp_path: Path) -> None:
    outcome = stud(["verify", "nowhere.json"], cwd=tmp_path)
    assert_bad_input(outcome, "stud verify: nowhere.json: cannot read")


def test_verify_bad_stdin_names_stdin(stud: Stud) -> None:
    outcome = stud(["verify", "-"], stdin=b"\xff\xfe")
    assert_bad_input(outcome, "stud verify: <stdin>: not UTF-8")
