"""GET /hands/{hand_id}/fairness and GET /tables/{table_id}/seed-pairs (docs/fairness.md §4).

No dealer seed before its pair is revealed; after a rotation every hand of the old pair
verifies with the engine's own check; a card changed in the database, or a dealer seed that
is not the committed one, fails it.
"""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import col

from engine_server.game.cards import format_cards
from engine_server.game.fairness import derive_deck
from engine_server.store.models import HandRow, SeedPairRow
from engine_server.store.repository import EngineStore
from tests.lobby_api.history.support import (
    PlayedHand,
    as_player,
    open_table,
    passive,
    play_hand,
    problem,
    sign_up,
    uid,
)

Client = httpx.AsyncClient


async def fairness(client: Client, player: str, hand: PlayedHand) -> dict[str, Any]:
    response = await client.get(f"/hands/{hand.id}/fairness", headers=as_player(player))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_rotation_reveals_the_old_pair_and_every_hand_of_it_verifies(
    store: EngineStore, client: Client
) -> None:
    players = await sign_up(client, 3)
    table = await open_table(store, players, client_seed="opener-1")
    old_pair = await store.seeds.current_seed_pair(table.table_id)
    old_hands = [await play_hand(store, table, passive(folders={3})) for _ in range(3)]

    for nonce, hand in enumerate(old_hands):
        page = await fairness(client, players[0], hand)
        assert page["commitment"] == old_pair.commitment
        assert (page["client_seed"], page["nonce"]) == ("opener-1", nonce)
        assert page["dealer_seed"] is None and page["revealed"] is False
        assert page["revealed_at"] is None and page["check"] is None
        assert old_pair.dealer_seed not in str(page)
    pairs = (
        await client.get(f"/tables/{table.table_id}/seed-pairs", headers=as_player(players[2]))
    ).json()
    assert [(p["ordinal"], p["state"], p["hands_dealt"]) for p in pairs] == [
        (1, "current", 3),
        (2, "next", 0),
    ]
    assert all(p["dealer_seed"] is None and p["check"] is None for p in pairs)
    assert pairs[1]["client_seed"] is None  # set only when it takes over

    rotation = await store.seeds.rotate_seed(table.table_id, client_seed="opener-2")
    new_hands = [await play_hand(store, table, passive()) for _ in range(2)]

    for nonce, hand in enumerate(old_hands):
        for player in players:
            page = await fairness(client, player, hand)
            assert page["revealed"] is True and page["revealed_at"] is not None
            assert page["dealer_seed"] == old_pair.dealer_seed
            assert hashlib.sha256(page["dealer_seed"].encode()).hexdigest() == page["commitment"]
            check = page["check"]
            assert check["ok"] and check["commitment_ok"] and check["deck_ok"]
            assert check["mismatches"] == [] and check["problems"] == []
            assert check["cards_checked"] == len(hand.row.cards or ()) > 0
            assert check["deck"] == format_cards(
                derive_deck(old_pair.dealer_seed, "opener-1", nonce)
            )
    for nonce, hand in enumerate(new_hands):
        page = await fairness(client, players[0], hand)
        assert page["commitment"] == rotation.current.commitment
        assert (page["client_seed"], page["nonce"]) == ("opener-2", nonce)
        assert page["dealer_seed"] is None and page["check"] is None

    pairs = (
        await client.get(f"/tables/{table.table_id}/seed-pairs", headers=as_player(players[0]))
    ).json()
    assert [(p["ordinal"], p["state"], p["hands_dealt"]) for p in pairs] == [
        (1, "retired", 3),
        (2, "current", 2),
        (3, "next", 0),
    ]
    retired, current, upcoming = pairs
    assert retired["dealer_seed"] == old_pair.dealer_seed
    assert retired["client_seed"] == "opener-1" and retired["revealed_at"] is not None
    assert retired["check"]["ok"] is True
    assert [(v["hand_id"], v["nonce"], v["ok"]) for v in retired["check"]["hands"]] == [
        (h.id, n, True) for n, h in enumerate(old_hands)
    ]
    assert current["client_seed"] == "opener-2" and current["dealer_seed"] is None
    assert current["commitment"] == rotation.current.commitment
    assert upcoming["commitment"] == rotation.next.commitment
    assert upcoming["dealer_seed"] is None and upcoming["client_seed"] is None
    for pair in (current, upcoming):
        assert pair["check"] is None and pair["revealed_at"] is None
    # The old path of the design document answers the same.
    alias = await client.get(f"/tables/{table.table_id}/fairness", headers=as_player(players[0]))
    assert alias.json() == pairs

    # Closing the table reveals the dealing pair: the new hands verify too.
    await store.tables.close_table(table.table_id)
    for hand in new_hands:
        page = await fairness(client, players[1], hand)
        assert page["dealer_seed"] == rotation.current.dealer_seed
        assert page["check"]["ok"] is True


async def test_a_tampered_card_or_seed_fails_the_check(
    store: EngineStore, client: Client, db_engine: AsyncEngine
) -> None:
    players = await sign_up(client, 3)
    table = await open_table(store, players)
    pair = await store.seeds.current_seed_pair(table.table_id)
    hands = [await play_hand(store, table, passive(folders={2})) for _ in range(3)]
    await store.seeds.rotate_seed(table.table_id)

    target = hands[1]
    cards = [dict(c) for c in target.row.cards or ()]
    # Seat 2 folded: give him another card than the deck dealt him (one nobody was dealt).
    dealt = {c["card"] for c in cards}
    victim = next(i for i, c in enumerate(cards) if c["seat"] == 2 and not c["up"])
    stranger = next(c for c in format_cards(range(52)) if c not in dealt)
    original = cards[victim]["card"]
    cards[victim]["card"] = stranger
    async with db_engine.begin() as connection:
        await connection.execute(
            update(HandRow).where(col(HandRow.id) == target.id).values(cards=cards)
        )

    page = await fairness(client, players[0], target)
    check = page["check"]
    assert check["ok"] is False and check["deck_ok"] is False
    assert check["commitment_ok"] is True
    assert check["mismatches"] == [
        {
            "seat": 2,
            "card": stranger,
            "deck_index": cards[victim]["deck_index"],
            "deck_card": original,
        }
    ]
    for untouched in (hands[0], hands[2]):
        assert (await fairness(client, players[0], untouched))["check"]["ok"] is True
    pairs = (
        await client.get(f"/tables/{table.table_id}/seed-pairs", headers=as_player(players[0]))
    ).json()
    assert pairs[0]["check"]["ok"] is False
    assert [v["ok"] for v in pairs[0]["check"]["hands"]] == [True, False, True]

    # A dealer seed that is not the one committed to fails every hand of the pair.
    async with db_engine.begin() as connection:
        await connection.execute(
            update(SeedPairRow).where(col(SeedPairRow.id) == pair.id).values(dealer_seed="ab" * 32)
        )
    for hand in hands:
        check = (await fairness(client, players[2], hand))["check"]
        assert check["ok"] is False and check["commitment_ok"] is False
    # A seed that is no seed at all is a failed check, not an error.
    async with db_engine.begin() as connection:
        await connection.execute(
            update(SeedPairRow).where(col(SeedPairRow.id) == pair.id).values(dealer_seed="xyz")
        )
    check = (await fairness(client, players[2], hands[0]))["check"]
    assert check["ok"] is False and check["problems"] and check["deck"] == []


async def test_only_players_dealt_in_see_a_tables_pairs(store: EngineStore, client: Client) -> None:
    p1, p2, outsider, late = await sign_up(client, 4)
    table = await open_table(store, [p1, p2])
    await play_hand(store, table, passive())
    await store.sessions.seat_player(
        table.table_id, uid("ss"), player_id=late, display_name="Late", seat=3, buy_in=100
    )
    assert (
        await client.get(f"/tables/{table.table_id}/seed-pairs", headers=as_player(p2))
    ).status_code == 200
    for who in (outsider, late):
        for path in ("seed-pairs", "fairness"):
            theirs = problem(
                await client.get(f"/tables/{table.table_id}/{path}", headers=as_player(who)), 404
            )
            missing = problem(
                await client.get(f"/tables/t-none/{path}", headers=as_player(who)), 404
            )
            assert theirs["code"] == missing["code"]
            assert theirs["detail"].replace(table.table_id, "X") == missing["detail"].replace(
                "t-none", "X"
            )
    for odd in ("%00", "t" * 65):
        body = problem(await client.get(f"/tables/{odd}/seed-pairs", headers=as_player(p1)), 404)
        assert body["code"] == "table_not_found"


async def test_each_player_is_given_his_own_cards_only(store: EngineStore, client: Client) -> None:
    """``dealt``: the cards the caller was dealt that he may see, each at its deck index,
    before the reveal and after, in the hand's answer and under the table's pairs. Never
    another seat's, and not his own down cards of a hand he folded."""
    players = await sign_up(client, 3)
    table = await open_table(store, players)
    hands = [await play_hand(store, table, passive(folders={3})) for _ in range(2)]
    assert all(3 in hand.folded and hand.down_cards(3) for hand in hands)

    async def pages() -> dict[int, list[dict[str, Any]]]:
        return {
            seat: [await fairness(client, players[seat - 1], hand) for hand in hands]
            for seat in (1, 2, 3)
        }

    before = await pages()
    await store.seeds.rotate_seed(table.table_id)
    after = await pages()
    for seat in (1, 2, 3):
        for n, hand in enumerate(hands):
            assert before[seat][n]["dealer_seed"] is None
            assert after[seat][n]["check"]["ok"] is True
            assert before[seat][n]["dealt"] == after[seat][n]["dealt"] == hand.own_cards(seat)
            assert {card["seat"] for card in after[seat][n]["dealt"]} == {seat}
            # The lobby checks every seat's cards; it shows him only his.
            assert after[seat][n]["check"]["cards_checked"] == len(hand.row.cards or ())
        pairs = (
            await client.get(
                f"/tables/{table.table_id}/fairness", headers=as_player(players[seat - 1])
            )
        ).json()
        assert [verdict["dealt"] for verdict in pairs[0]["check"]["hands"]] == [
            hand.own_cards(seat) for hand in hands
        ]
    # Seat 3's folded down cards are in no answer of their hand, to anyone (the check's
    # deck aside).
    for n, hand in enumerate(hands):
        shown = {card["card"] for seat in (1, 2, 3) for card in after[seat][n]["dealt"]}
        assert not shown & set(hand.down_cards(3))
        assert len(after[3][n]["dealt"]) == len(hand.up_cards(3)) >= 1
