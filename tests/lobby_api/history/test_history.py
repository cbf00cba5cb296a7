"""GET /hands, /hands/{hand_id} and /hands/{hand_id}/phh over hands played and stored for real.

Privacy (docs/rules.md §2.12): only players dealt into a hand may open it (anyone else gets the same
404 as for a hand that does not exist); a player sees his own cards, every up card and the
cards shown at the showdown; folded cards appear in no hand response and no PHH download.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import col

from engine_server.game.phh import export_phh
from engine_server.store.models import HandRow
from engine_server.store.repository import EngineStore
from tests.lobby_api.history.support import (
    PlayedHand,
    SeatedTable,
    as_player,
    open_table,
    passive,
    phh_card_tokens,
    play_hand,
    problem,
    sign_up,
    uid,
)

Client = httpx.AsyncClient


def assert_absent(text: str, cards: list[str]) -> None:
    """None of ``cards`` appears in a JSON body (cards are JSON strings there)."""
    leaked = [card for card in cards if f'"{card}"' in text]
    assert not leaked, f"hidden cards in the response: {leaked}"


def expected_phh(played: PlayedHand, table: SeatedTable, seat: int) -> str:
    """The engine's own export of the live hand for ``seat``."""
    return export_phh(
        played.hand,
        redact_for=seat,
        table=table.table_id,
        hand_number=played.row.hand_number,
        players={s: table.names[s] for s in table.seats},
        started_at=played.row.started_at,
    )


async def test_my_hands_newest_first_in_pages(store: EngineStore, client: Client) -> None:
    p1, p2, p3, p4 = await sign_up(client, 4)
    first = await open_table(store, [p1, p2, p3])
    for _ in range(5):
        await play_hand(store, first, passive(folders={3}))
    second = await open_table(store, [p4, p1])
    for _ in range(2):
        await play_hand(store, second, passive())
    played = first.hands + second.hands

    seen: list[dict[str, Any]] = []
    token = ""
    pages = 0
    while True:
        response = await client.get(
            "/hands", params={"page_size": 3, "page_token": token}, headers=as_player(p1)
        )
        assert response.status_code == 200, response.text
        page = response.json()
        assert len(page["hands"]) <= 3
        seen += page["hands"]
        pages += 1
        token = page["next_page_token"]
        if not token:
            break
    assert pages == 3
    assert [h["hand_id"] for h in seen] == [p.id for p in reversed(played)]
    by_id = {p.id: p for p in played}
    for line in seen:
        hand = by_id[line["hand_id"]]
        table = first if hand in first.hands else second
        seat = table.seat_of(p1)
        assert line["table"] == table.table_id
        assert line["hand_number"] == hand.row.hand_number
        assert line["state"] == "complete"
        assert line["my_seat"] == seat
        final = hand.hand.result().final_stacks[seat]
        start = next(p.start_stack for p in hand.hand.players if p.seat == seat)
        assert line["my_result"] == final - start
        assert line["ended_at"] is not None

    # Someone else's listing holds only his own hands.
    other = (await client.get("/hands", headers=as_player(p4))).json()
    assert [h["hand_id"] for h in other["hands"]] == [p.id for p in reversed(second.hands)]
    assert other["next_page_token"] == ""


async def test_page_requests_are_checked(store: EngineStore, client: Client) -> None:
    p1, p2 = await sign_up(client, 2)
    table = await open_table(store, [p1, p2])
    for _ in range(3):
        await play_hand(store, table, passive())
    page = (await client.get("/hands", params={"page_size": 1}, headers=as_player(p1))).json()
    token = page["next_page_token"]
    assert token

    body = problem(
        await client.get("/hands", params={"page_token": "!!"}, headers=as_player(p1)), 400
    )
    assert body["errors"][0]["field"] == "page_token"
    # A token continues only the listing it came from.
    body = problem(
        await client.get("/hands", params={"page_token": token}, headers=as_player(p2)), 400
    )
    assert body["errors"][0]["field"] == "page_token"
    body = problem(await client.get("/hands", params={"page_size": -1}, headers=as_player(p1)), 400)
    assert body["errors"][0]["field"] == "page_size"
    for odd in ("many", "2.5"):
        body = problem(
            await client.get("/hands", params={"page_size": odd}, headers=as_player(p1)), 400
        )
        assert body["errors"][0]["field"] == "page_size"
    # More than the most is the most.
    for big in (10**6, 10**30):
        response = await client.get("/hands", params={"page_size": big}, headers=as_player(p1))
        assert response.status_code == 200 and len(response.json()["hands"]) == 3
    # Without a token nobody is anybody.
    problem(await client.get("/hands"), 401)


async def test_a_hand_shows_own_cards_up_cards_and_showdown_never_folded_cards(
    store: EngineStore, client: Client
) -> None:
    players = await sign_up(client, 3)
    table = await open_table(store, players)
    played = await play_hand(store, table, passive(folders={3}))
    assert played.folded == {3} and played.shown == {1, 2}
    folded_down = played.down_cards(3)

    for seat, (_, player_id) in sorted(table.seats.items()):
        response = await client.get(f"/hands/{played.id}", headers=as_player(player_id))
        assert response.status_code == 200, response.text
        view = response.json()
        assert_absent(response.text, folded_down)
        assert view["hand_id"] == played.id and view["table"] == table.table_id
        assert view["my_seat"] == seat
        assert view["profile"] == "house"
        assert view["stakes"] == {"ante": 1, "bring_in": 1, "small_bet": 2, "big_bet": 4}
        assert view["button"] == played.row.button_seat
        # His own cards in dealing order: down ones hidden only when he folded them.
        mine = [(c["card"], c["up"]) for c in view["my_cards"]]
        dealt = [(c["card"], c["up"]) for c in played.row.cards or () if c["seat"] == seat]
        if seat in played.folded:
            assert mine == [(card if up else None, up) for card, up in dealt]
        else:
            assert mine == dealt
        # Every seat's up cards, the folded seat's too.
        assert view["up_cards"] == {str(s): played.up_cards(s) for s in table.seats}
        assert view["shown"] == {
            str(s): [c["card"] for c in played.row.cards or () if c["seat"] == s] for s in (1, 2)
        }
        assert view["result"]["shown"].keys() == {"1", "2"}
        assert view["result"]["final_stacks"] == (played.row.result or {})["final_stacks"]
        assert [a["do"] for a in view["actions"]] == [a["do"] for a in played.row.actions or ()]
        assert view["rake"] == 0 and view["pots"] == played.row.pots
        seats = {s["seat"]: s for s in view["seats"]}
        assert seats[seat]["player_id"] == player_id
        assert all("player_id" not in s for n, s in seats.items() if n != seat)
        assert {n: s["display_name"] for n, s in seats.items()} == table.names


async def test_won_by_folds_shows_no_down_card_but_the_viewers_own(
    store: EngineStore, client: Client
) -> None:
    players = await sign_up(client, 3)
    table = await open_table(store, players)
    # Whoever is not seat 1 folds: seat 1 wins without a showdown.
    played = await play_hand(store, table, passive(folders={2, 3}))
    assert played.shown == set() and played.folded == {2, 3}
    hidden_everywhere = played.down_cards(2) + played.down_cards(3)
    winner_down = played.down_cards(1)

    response = await client.get(f"/hands/{played.id}", headers=as_player(players[0]))
    view = response.json()
    assert [c["card"] for c in view["my_cards"] if not c["up"]] == winner_down
    assert view["shown"] == {} and view["result"]["shown"] == {}
    assert_absent(response.text, hidden_everywhere)
    for loser in players[1:]:
        response = await client.get(f"/hands/{played.id}", headers=as_player(loser))
        assert response.status_code == 200
        assert_absent(response.text, hidden_everywhere + winner_down)
        text = (await client.get(f"/hands/{played.id}/phh", headers=as_player(loser))).text
        assert not set(phh_card_tokens(text)) & set(hidden_everywhere + winner_down)


async def test_players_not_dealt_in_get_the_404_of_a_missing_hand(
    store: EngineStore, client: Client
) -> None:
    p1, p2, outsider, late = await sign_up(client, 4)
    table = await open_table(store, [p1, p2])
    played = await play_hand(store, table, passive())
    # Seated after the hand: he sits at the table, but was not dealt into it.
    await store.sessions.seat_player(
        table.table_id, uid("ss"), player_id=late, display_name="Late", seat=3, buy_in=100
    )
    for who in (outsider, late):
        for suffix in ("", "/phh", "/fairness"):
            theirs = problem(
                await client.get(f"/hands/{played.id}{suffix}", headers=as_player(who)), 404
            )
            missing = problem(
                await client.get(f"/hands/h-nothing{suffix}", headers=as_player(who)), 404
            )
            # Nothing tells a hand that exists from one that does not.
            assert {k: v for k, v in theirs.items() if k not in ("instance", "detail")} == {
                k: v for k, v in missing.items() if k not in ("instance", "detail")
            }
            assert theirs["detail"].replace(played.id, "X") == missing["detail"].replace(
                "h-nothing", "X"
            )
    listing = (await client.get("/hands", headers=as_player(late))).json()
    assert listing["hands"] == []
    # Ids no hand can have are not found either (PostgreSQL would refuse a NUL in text).
    for odd in ("%00", "h" * 65, "h-%00x"):
        for suffix in ("", "/phh", "/fairness"):
            body = problem(await client.get(f"/hands/{odd}{suffix}", headers=as_player(p1)), 404)
            assert body["code"] == missing["code"]


@pytest.mark.parametrize(
    ("database_url", "profile", "folders", "muckers", "timeouts"),
    [
        # The replay is the same on every database: the profiles run on SQLite only.
        ("sqlite", "house", {3}, set(), set()),
        ("postgresql", "house", {3}, set(), set()),
        ("sqlite", "house", set(), set(), {2}),  # a clock that runs out: checks, else folds
        ("sqlite", "swedish", set(), {2}, set()),  # ordered showdown: seat 2 mucks
        ("sqlite", "memaid", {1}, set(), set()),  # choice bring-in, burns
        ("sqlite", "casinos_austria", {3}, set(), set()),  # range bring-in, burns, rake
        ("sqlite", "multipoker", set(), set(), {3}),  # all-in protection on timeout
    ],
    indirect=["database_url"],
)
async def test_phh_download_is_the_engines_export_for_the_viewer(
    store: EngineStore,
    client: Client,
    profile: str,
    folders: set[int],
    muckers: set[int],
    timeouts: set[int],
) -> None:
    players = await sign_up(client, 3)
    table = await open_table(store, players, profile=profile)
    # With muckers, seat 1 bets every street: he shows first and the muckers get to muck
    # (otherwise a mucker holding the best showing hand shows first, and must show).
    strategy = passive(folders, muckers, bettor=1 if muckers else None)
    for _ in range(2):
        played = await play_hand(store, table, strategy, timeouts=timeouts)
        hidden_from_all = [card for seat in played.folded for card in played.down_cards(seat)]
        for seat, (_, player_id) in sorted(table.seats.items()):
            response = await client.get(f"/hands/{played.id}/phh", headers=as_player(player_id))
            assert response.status_code == 200, response.text
            assert response.headers["content-type"].startswith("text/plain")
            assert f'filename="{played.id}.phh"' in response.headers["content-disposition"]
            assert response.text == expected_phh(played, table, seat)
            tokens = set(phh_card_tokens(response.text))
            assert not tokens & set(hidden_from_all)
            others_hidden = [
                card
                for other in table.seats
                if other != seat and other not in played.shown
                for card in played.down_cards(other)
            ]
            assert not tokens & set(others_hidden)
            if seat not in played.folded:
                assert set(played.down_cards(seat)) <= tokens
            view = await client.get(f"/hands/{played.id}", headers=as_player(player_id))
            assert_absent(view.text, hidden_from_all + others_hidden)
    for played in table.hands:
        assert played.mucked == muckers


async def test_a_running_hand_is_listed_but_has_no_phh_yet(
    store: EngineStore, client: Client
) -> None:
    p1, p2 = await sign_up(client, 2)
    table = await open_table(store, [p1, p2])
    pair = await store.seeds.current_seed_pair(table.table_id)
    running = await store.hands.start_hand(
        table.table_id,
        hand_number=1,
        seed_pair_id=pair.id,
        button_seat=1,
        players=[(s, sid, pid, 200) for s, (sid, pid) in table.seats.items()],
        profile="house",
        settings={},
    )
    line = (await client.get("/hands", headers=as_player(p1))).json()["hands"][0]
    assert (line["hand_id"], line["state"], line["my_result"], line["ended_at"]) == (
        running.id,
        "running",
        None,
        None,
    )
    view = (await client.get(f"/hands/{running.id}", headers=as_player(p2))).json()
    assert view["state"] == "running" and view["my_cards"] == [] and view["result"] is None
    body = problem(await client.get(f"/hands/{running.id}/phh", headers=as_player(p1)), 409)
    assert body["code"] == "history_unavailable"
    # Cancelled without a record: still no PHH, and a zero result.
    await store.hands.cancel_hand(running.id, "test")
    line = (await client.get("/hands", headers=as_player(p1))).json()["hands"][0]
    assert (line["state"], line["my_result"]) == ("cancelled", 0)
    problem(await client.get(f"/hands/{running.id}/phh", headers=as_player(p1)), 409)


async def test_an_inconsistent_record_gets_no_phh(
    store: EngineStore, client: Client, db_engine: AsyncEngine
) -> None:
    p1, p2 = await sign_up(client, 2)
    table = await open_table(store, [p1, p2])
    played = await play_hand(store, table, passive())
    actions = list(played.row.actions or ())
    calls = [i for i, a in enumerate(actions) if a["do"] == "call"]
    actions[calls[0]] = {**actions[calls[0]], "do": "fold"}
    async with db_engine.begin() as connection:
        await connection.execute(
            update(HandRow).where(col(HandRow.id) == played.id).values(actions=actions)
        )
    body = problem(await client.get(f"/hands/{played.id}/phh", headers=as_player(p1)), 500)
    assert body["code"] == "hand_record_inconsistent"
