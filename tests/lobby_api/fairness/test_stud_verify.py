"""``stud verify -`` takes the lobby's fairness answers as they are (docs/fairness.md §4.2).

Hands are played and stored in the engine's store, the seed pair is rotated (revealing it),
and the lobby's answers to GET /hands/{hand_id}/fairness and GET /tables/{table_id}/fairness
are piped, byte for byte, to the real ``stud verify`` process. Honest answers check out
(exit 0), every card the asking player was dealt and may see checked against the derived
deck (``cards_checked``); copies with a card of the deck, one of his cards or a commitment
changed do not (exit 1), whatever the lobby's own verdict in them says; an answer whose
dealer seed is not revealed yet is a one-line error (exit 2).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from engine_server.game.cards import format_cards
from engine_server.game.fairness import derive_deck
from engine_server.store.repository import EngineStore
from tests.lobby_api.history.support import (
    PlayedHand,
    as_player,
    open_table,
    passive,
    play_hand,
    sign_up,
)

Client = httpx.AsyncClient
STUD = Path(sys.executable).with_name("stud")


def stud_verify(answer: bytes) -> tuple[int, dict[str, Any] | None, str]:
    """Pipe ``answer`` to ``stud verify -``: (exit status, the JSON report or None, stderr)."""
    done = subprocess.run(
        [str(STUD), "verify", "-"], input=answer, capture_output=True, timeout=60, check=False
    )
    stdout = done.stdout.decode()
    lines = stdout.splitlines()
    assert len(lines) <= 1, stdout
    return done.returncode, json.loads(lines[0]) if lines else None, done.stderr.decode()


async def get(client: Client, player: str, path: str) -> bytes:
    response = await client.get(path, headers=as_player(player))
    assert response.status_code == 200, response.text
    return response.content


def tampered(answer: bytes, change: Any) -> bytes:
    data = json.loads(answer)
    change(data)
    return json.dumps(data).encode()


def other_card(card: str) -> str:
    return "2c" if card != "2c" else "3c"


async def played_and_revealed(
    store: EngineStore, client: Client
) -> tuple[list[str], str, list[PlayedHand]]:
    players = await sign_up(client, 3)
    table = await open_table(store, players, client_seed="verify-me")
    hands = [await play_hand(store, table, passive(folders={3})) for _ in range(3)]
    await store.seeds.rotate_seed(table.table_id, client_seed="next-one")
    return players, table.table_id, hands


async def test_honest_hand_answers_verify(store: EngineStore, client: Client) -> None:
    players, _, hands = await played_and_revealed(store, client)
    for nonce, hand in enumerate(hands):
        answer = await get(client, players[0], f"/hands/{hand.id}/fairness")
        code, report, stderr = stud_verify(answer)
        assert (code, stderr) == (0, ""), report
        assert report is not None
        lobby = json.loads(answer)
        seeds = lobby["dealer_seed"], "verify-me", nonce
        # Every card seat 1 was dealt, as the answer gives them: he never folded.
        mine = hand.own_cards(1)
        assert lobby["dealt"] == mine and len(mine) >= 3
        assert report == {
            "ok": True,
            "commitment_ok": True,
            "mismatches": [],
            "problems": [],
            "input": "hand",
            "hand_id": hand.id,
            "deck_ok": True,
            "cards_checked": len(mine),
            "deck": format_cards(derive_deck(*seeds)),
        }
        assert report["deck"] == lobby["check"]["deck"]


async def test_the_players_own_cards_are_checked_and_only_his(
    store: EngineStore, client: Client
) -> None:
    players, _, hands = await played_and_revealed(store, client)
    hand = hands[0]
    answer = json.loads(await get(client, players[0], f"/hands/{hand.id}/fairness"))
    # His cards, each at its deck position: never another seat's (the lobby's own check
    # counts every seat's cards, which it does not show him).
    assert {card["seat"] for card in answer["dealt"]} == {1}
    assert answer["check"]["cards_checked"] > len(answer["dealt"])

    answer["dealt"][2]["card"] = other_card(answer["dealt"][2]["card"])
    code, report, _ = stud_verify(json.dumps(answer).encode())
    assert code == 1 and report is not None
    assert report["ok"] is False and report["deck_ok"] is True
    assert report["cards_checked"] == len(answer["dealt"])
    assert [m["deck_index"] for m in report["mismatches"]] == [answer["dealt"][2]["deck_index"]]

    # Seat 3 folded: his down cards are not shown, not even to him; his up cards are checked.
    folder = json.loads(await get(client, players[2], f"/hands/{hand.id}/fairness"))
    assert 3 in hand.folded
    assert (
        folder["dealt"]
        == hand.own_cards(3)
        == [
            {"seat": 3, "card": card, "deck_index": folder["dealt"][n]["deck_index"]}
            for n, card in enumerate(hand.up_cards(3))
        ]
    )
    assert not set(hand.down_cards(3)) & {card["card"] for card in folder["dealt"]}
    code, report, _ = stud_verify(json.dumps(folder).encode())
    assert code == 0 and report is not None
    assert report["cards_checked"] == len(hand.up_cards(3)) >= 1


async def test_tampered_hand_answers_fail(store: EngineStore, client: Client) -> None:
    players, _, hands = await played_and_revealed(store, client)
    answer = await get(client, players[1], f"/hands/{hands[1].id}/fairness")
    original = json.loads(answer)

    def change_card(data: dict[str, Any]) -> None:
        data["check"]["deck"][9] = other_card(data["check"]["deck"][9])

    # The lobby's verdict says ok: the command does not take its word for it.
    code, report, _ = stud_verify(tampered(answer, change_card))
    assert code == 1 and report is not None
    assert report["ok"] is False and report["deck_ok"] is False
    assert report["commitment_ok"] is True
    shown = other_card(original["check"]["deck"][9])
    assert report["problems"] == [
        f"deck index 9: the answer shows {shown}, "
        f"but the seeds derive {original['check']['deck'][9]}"
    ]

    def swap_cards(data: dict[str, Any]) -> None:
        deck = data["check"]["deck"]
        deck[0], deck[51] = deck[51], deck[0]

    code, report, _ = stud_verify(tampered(answer, swap_cards))
    assert code == 1 and report is not None and len(report["problems"]) == 2

    def change_commitment(data: dict[str, Any]) -> None:
        data["commitment"] = "0" * 64

    code, report, _ = stud_verify(tampered(answer, change_commitment))
    assert code == 1 and report is not None
    assert report["ok"] is False and report["commitment_ok"] is False
    assert report["deck_ok"] is True

    def change_nonce(data: dict[str, Any]) -> None:
        data["nonce"] += 1

    code, report, _ = stud_verify(tampered(answer, change_nonce))
    assert code == 1 and report is not None
    assert report["commitment_ok"] is True and report["deck_ok"] is False


async def test_honest_table_answer_verifies(store: EngineStore, client: Client) -> None:
    players, table_id, hands = await played_and_revealed(store, client)
    answer = await get(client, players[2], f"/tables/{table_id}/fairness")
    code, report, stderr = stud_verify(answer)
    assert (code, stderr) == (0, ""), report
    assert report is not None
    pairs = json.loads(answer)
    retired = pairs[0]
    assert report["ok"] is True and report["commitment_ok"] is True
    assert (report["input"], report["mismatches"], report["problems"]) == ("table", [], [])
    # The retired pair is checked; the dealing pair and the next one are not revealed yet.
    assert (report["pairs_checked"], report["pairs_unrevealed"]) == (1, 2)
    # Seat 3 folded in every hand: his up cards are checked, in every hand of the pair.
    assert report["hands"] == [
        {
            "ordinal": 1,
            "hand_id": hand.id,
            "nonce": nonce,
            "ok": True,
            "cards_checked": len(hand.own_cards(3)),
            "mismatches": [],
            "deck": format_cards(derive_deck(retired["dealer_seed"], "verify-me", nonce)),
        }
        for nonce, hand in enumerate(hands)
    ]
    assert report["cards_checked"] == sum(len(hand.own_cards(3)) for hand in hands) >= 3
    assert [verdict["dealt"] for verdict in retired["check"]["hands"]] == [
        hand.own_cards(3) for hand in hands
    ]
    # The alias path answers the same bytes' worth.
    assert json.loads(await get(client, players[2], f"/tables/{table_id}/seed-pairs")) == pairs


async def test_tampered_table_answers_fail(store: EngineStore, client: Client) -> None:
    players, table_id, _ = await played_and_revealed(store, client)
    answer = await get(client, players[0], f"/tables/{table_id}/fairness")

    def change_commitment(data: list[dict[str, Any]]) -> None:
        data[0]["commitment"] = "ab" * 32

    code, report, _ = stud_verify(tampered(answer, change_commitment))
    assert code == 1 and report is not None
    assert report["ok"] is False and report["commitment_ok"] is False
    assert all(hand["ok"] is False for hand in report["hands"])
    assert json.loads(answer)[0]["check"]["ok"] is True  # the lobby's word, not taken

    def nonce_past_the_pair(data: list[dict[str, Any]]) -> None:
        data[0]["check"]["hands"][2]["nonce"] = data[0]["hands_dealt"]

    code, report, _ = stud_verify(tampered(answer, nonce_past_the_pair))
    assert code == 1 and report is not None
    assert report["commitment_ok"] is True
    assert [hand["ok"] for hand in report["hands"]] == [True, True, False]
    assert "nonce 3, but the pair dealt 3 hands" in report["problems"][0]

    def same_nonce_twice(data: list[dict[str, Any]]) -> None:
        data[0]["check"]["hands"][1]["nonce"] = 0

    code, report, _ = stud_verify(tampered(answer, same_nonce_twice))
    assert code == 1 and report is not None
    assert [hand["ok"] for hand in report["hands"]] == [True, False, True]

    changed: dict[str, Any] = {}

    def change_his_card(data: list[dict[str, Any]]) -> None:
        dealt = data[0]["check"]["hands"][1]["dealt"][-1]
        dealt["card"] = other_card(dealt["card"])
        changed.update(dealt)

    code, report, _ = stud_verify(tampered(answer, change_his_card))
    assert code == 1 and report is not None
    assert report["commitment_ok"] is True
    assert [hand["ok"] for hand in report["hands"]] == [True, False, True]
    assert report["hands"][1]["mismatches"] == report["mismatches"]
    assert [(m["card"], m["deck_index"]) for m in report["mismatches"]] == [
        (changed["card"], changed["deck_index"])
    ]
    assert report["problems"][0].startswith("seed pair 1, hand ")


async def test_unrevealed_answers_are_refused(store: EngineStore, client: Client) -> None:
    players = await sign_up(client, 2)
    table = await open_table(store, players)
    hand = await play_hand(store, table, passive())

    answer = await get(client, players[0], f"/hands/{hand.id}/fairness")
    assert json.loads(answer)["dealer_seed"] is None
    code, report, stderr = stud_verify(answer)
    assert (code, report) == (2, None)
    assert stderr.count("\n") == 1
    assert stderr.startswith(f"stud verify: <stdin>: hand {hand.id} is not revealed yet")

    answer = await get(client, players[1], f"/tables/{table.table_id}/fairness")
    code, report, stderr = stud_verify(answer)
    assert (code, report) == (2, None)
    assert stderr.count("\n") == 1
    assert stderr.startswith("stud verify: <stdin>: none of the table's 2 seed pairs is revealed")
