"""The web table page (/play) plays a complete hand against ``stud bots`` in headless Chromium.

A real engine and the lobby run in this test's loop (tests/clients/room.py), three Oslo bots
run as ``stud bots``, and clients/web/test/play-table.mjs drives Debian's Chromium with
playwright-core as a person would: sign in, quick game, click legal actions until a hand he
acted in has ended and its result shows, then leave. Its screenshots are kept in
test-artifacts/ (web-table.png: the table when the hand has ended; web-table-hand.png: his
last decision in it). What the page showed is checked against the lobby's hand history.

Also: the committed build of the page (lobby_api/static/play) is what scripts/build-web makes
of its sources now.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import struct
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from lobby_api.play import PLAY_DIRECTORY
from tests.clients.room import ROOT, BotsProcess, card_room, sign_up

WEB = ROOT / "clients/web"
CHROMIUM = Path(os.environ.get("STUD_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "test-artifacts"
CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
BOTS = {"bot_oslo_1", "bot_oslo_2", "bot_oslo_3"}
PASSWORD = "ann-password"


@pytest.fixture(scope="module")
def npm_packages() -> None:
    """clients/web's npm packages (esbuild, playwright-core, ...), by the project's script."""
    result = subprocess.run(
        [ROOT / "scripts/setup-web"], capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_committed_page_is_built_from_its_sources(npm_packages: None, tmp_path: Path) -> None:
    result = subprocess.run(
        [ROOT / "scripts/build-web", tmp_path],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    built = sorted(p.name for p in tmp_path.iterdir())
    assert (
        built
        == sorted(p.name for p in PLAY_DIRECTORY.iterdir())
        == [
            "index.html",
            "table.css",
            "table.js",
        ]
    )
    for name in built:
        assert (tmp_path / name).read_bytes() == (PLAY_DIRECTORY / name).read_bytes(), (
            f"lobby_api/static/play/{name} is not built from clients/web/src: run scripts/build-web"
        )


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


async def _play_in_chromium(lobby_url: str) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        "node",
        "test/play-table.mjs",
        lobby_url,
        "ann",
        PASSWORD,
        str(ARTIFACTS),
        "house-2-4",
        cwd=WEB,
        env={**os.environ, "STUD_CHROMIUM": str(CHROMIUM), "STUD_PLAY_DEADLINE": "120"},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), 150)
    except TimeoutError:
        process.kill()
        stdout, stderr = await process.communicate()
    lines = stdout.decode().strip().splitlines()
    assert lines, f"exit {process.returncode}, no report\n{stderr.decode()}"
    report: dict[str, Any] = json.loads(lines[-1])
    report["exit"] = process.returncode
    report["stderr"] = stderr.decode()[-2000:]
    return report


async def test_web_table_plays_a_hand_against_bots(npm_packages: None, tmp_path: Path) -> None:
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: scripts/install-system-deps installs it"
    ARTIFACTS.mkdir(exist_ok=True)
    for old in ARTIFACTS.glob("web-table*.png"):
        old.unlink()

    # A pause between hands long enough that the finished hand is what the screenshot shows.
    async with card_room(tmp_path, between_hands_seconds=1.5) as room:
        bots = await BotsProcess.start(
            room.lobby_url,
            *("--cities", "oslo", "--per-city", "3", "--tables-per-bot", "1"),
            *("--think", "0.05", "--seed", "11"),
        )
        try:
            await bots.wait_for("waiting", 3)
            token = await sign_up(room.lobby_url, "ann", PASSWORD, "oslo")
            report = await _play_in_chromium(room.lobby_url)
            assert report["exit"] == 0 and report["ok"], json.dumps(report, indent=1)
            table_id = report["state"]["table"].removeprefix("tables/")
            seated = bots.named("seated")
            assert {s["bot"] for s in seated} == BOTS and {s["table"] for s in seated} == {
                table_id
            }, bots
            # Ann left, so the bots leave too: no human sits there any more.
            gone = await bots.wait_for("left", 3)
            assert {(g["table"], g["reason"]) for g in gone} == {(table_id, "no_humans")}, bots
            async with httpx.AsyncClient(
                base_url=room.lobby_url, headers={"Authorization": f"Bearer {token}"}
            ) as http:
                history = await _hand_history(http, table_id, report["firstDecision"]["hand"])
                played = await _hand_history(http, table_id, report["handPlayed"])
                fairness = (await http.get(f"/hands/{played['hand_id']}/fairness")).json()
                wallet = (await http.get("/wallet", params={"page_size": 100})).json()
                phh = (await http.get(f"/hands/{played['hand_id']}/phh")).text
                hands = (await http.get("/hands")).json()["hands"]
        finally:
            code = await bots.stop()
        assert code == 0, bots

    _check_report(report, history)
    _check_lobby_pages(report, played, fairness, wallet)
    # My hands lists his hands once each, newest first (the tab was clicked twice at once).
    assert report["handsListed"] == [h["hand_id"] for h in hands], (report["handsListed"], hands)
    assert report["hand"]["downloaded"]["text"] == phh
    # The screenshots are kept as the test's artifacts (test-artifacts/ is git-ignored).
    for name in (
        "web-table.png",
        "web-table-hand.png",
        "web-hand.png",
        "web-wallet.png",
        "web-lobby.png",
    ):
        path = ARTIFACTS / name
        assert path.exists(), name
        width, height = _png_size(path)
        assert width >= 1300 and height >= 850, (name, width, height)
        assert path.stat().st_size > 30_000, name  # a drawn table, not a blank page
    assert _png_size(ARTIFACTS / "web-hand-phone.png")[0] == 390
    phone = ARTIFACTS / "web-table-phone.png"
    assert _png_size(phone) == (390, 844) and phone.stat().st_size > 20_000


def _check_lobby_pages(
    report: dict[str, Any],
    hand: dict[str, Any],
    fairness: dict[str, Any],
    wallet: dict[str, Any],
) -> None:
    """My hands (replay, PHH, fairness checked in the browser) and the wallet, as the page
    showed them, against the lobby's answers."""
    # The wallet tab lists the ledger, each entry once (the tab was clicked twice at once): the
    # sign-up grant, his buy-in and his cash-out, the last two naming his table.
    shown = report["wallet"]
    assert shown["balance"] == f"Balance: {wallet['balance']:,} chips"
    assert [(e["kind"], e["amount"], e["table"]) for e in shown["entries"]] == [
        (e["kind"], e["amount"], e["table_id"]) for e in wallet["entries"]
    ]
    kinds = [e["kind"] for e in shown["entries"]]
    assert {"signup_grant", "buy_in", "settlement"} <= set(kinds), kinds
    assert any("Welcome grant" in e["text"] and "+10,000" in e["text"] for e in shown["entries"])
    tables = {e["kind"]: e["table"] for e in shown["entries"]}
    assert tables["signup_grant"] is None
    assert tables["buy_in"] == tables["settlement"] == hand["table"].removeprefix("tables/")
    cash_out = next(e for e in shown["entries"] if e["kind"] == "settlement")
    assert f"table {tables['settlement']}" in cash_out["text"], cash_out

    # The hand replayed street by street, as the lobby recorded it.
    replay = report["hand"]
    assert replay["handId"] == hand["hand_id"]
    assert replay["title"] == f"Hand #{hand['hand_number']}"
    streets = replay["streets"]
    assert streets[0]["name"] == "Third street", streets
    names = [s["name"] for s in streets if s["name"] != "Showdown"]
    assert (
        names
        == ["Third street", "Fourth street", "Fifth street", "Sixth street", "Seventh street"][
            : len(names)
        ]
    )
    assert all(
        s["pot"] is not None and int(s["pot"]) > 0 for s in streets if s["name"] != "Showdown"
    )
    assert any("brings in" in a for a in streets[0]["actions"]), streets[0]
    # The pot after the last street is what the pots held (a bet nobody called went back).
    last = [s for s in streets if s["name"] != "Showdown"][-1]
    assert int(last["pot"]) == sum(pot["amount"] for pot in hand["pots"]), (last, hand["pots"])
    my_seat = hand["my_seat"]
    mine = [c["card"] for c in hand["my_cards"] if c["card"]]
    for street in streets:
        for deal in street["deals"]:
            seat = deal["seat"]
            allowed = set(hand["up_cards"].get(str(seat), [])) | set(
                hand["shown"].get(str(seat), [])
            )
            if seat == my_seat:
                allowed |= set(mine)
            # Privacy: only up cards, his own cards and hands shown at the showdown face up.
            assert set(deal["faces"]) <= allowed, (seat, deal, allowed)
    my_third = next(d for d in streets[0]["deals"] if d["seat"] == my_seat)
    assert my_third["faces"] == mine[:3] and my_third["backs"] == 0, (my_third, mine)
    assert replay["winners"] and all(" wins " in w for w in replay["winners"])
    # The PHH download is the lobby's redacted PHH of the hand.
    assert replay["download"] == f"{hand['hand_id']}.phh"
    assert replay["phh"].startswith("variant = ") and "actions = [" in replay["phh"]
    assert f"hand = {hand['hand_number']}" in replay["phh"]
    assert replay["downloaded"] == {"name": f"{hand['hand_id']}.phh", "text": replay["phh"]}

    # Fairness: checked by the browser from the revealed seed, as the lobby checks it too.
    assert fairness["revealed"] and fairness["check"]["ok"], fairness
    checked = report["hand"]["fairness"]
    assert checked["result"] == "ok", checked
    dealt = [c for c in hand["my_cards"] if c["card"] and c["deck_index"] is not None]
    assert checked["cardsChecked"] == len(dealt) >= 3, (checked, dealt)
    assert [c["card"] for c in checked["cards"]] == [c["card"] for c in dealt]
    assert all(c["ok"] == "true" for c in checked["cards"])
    assert checked["verdict"].startswith("Verified: the commitment and all")
    assert fairness["dealer_seed"] in checked["text"]
    verdict = report["tableVerdict"]
    assert verdict["checked"] >= 1 and verdict["good"] == verdict["checked"], verdict


async def _hand_history(http: httpx.AsyncClient, table_id: str, hand_number: int) -> dict[str, Any]:
    page = await http.get("/hands")
    assert page.status_code == 200, page.text
    (summary,) = [
        h
        for h in page.json()["hands"]
        if h["table"].endswith(table_id) and h["hand_number"] == hand_number
    ]
    hand = await http.get(f"/hands/{summary['hand_id']}")
    assert hand.status_code == 200, hand.text
    body: dict[str, Any] = hand.json()
    return body


def _check_report(report: dict[str, Any], history: dict[str, Any]) -> None:
    """What the page showed, seen through Chromium, against the lobby's record of the hand."""
    assert report["problems"] == [], report["problems"]
    assert report["who"] == "ann · Oslo"  # the city by its name (GET /cities)
    assert report["walletBefore"] == "Wallet: 10,000 chips"
    assert report["buyIn"] == "100"  # 25 big bets of 2/4

    # He clicked legal actions, in the hand that then ended with its result on the page.
    clicks = report["clicks"]
    played = report["handPlayed"]
    assert clicks and played in {c["hand"] for c in clicks}, clicks
    assert {c["kind"] for c in clicks} <= {"CHECK", "CALL", "BRING_IN", "COMPLETE", "SHOW"}
    for click in clicks:
        if click["kind"] == "CALL":
            assert re.fullmatch(r"Call \d+", click["label"]), click
    assert report["state"]["lastHand"] >= played and not report["state"]["inHand"]
    result = report["result"]
    assert result["handNumber"] == report["state"]["lastHand"]
    assert result["title"] == f"Hand #{result['handNumber']} result"
    assert result["winners"] and all(re.search(r" wins \d+", w) for w in result["winners"])
    verbs = {"CHECK": "checks", "CALL": "calls", "BRING_IN": "brings in", "COMPLETE": "completes"}
    assert any(line.startswith(f"ann {verbs[c['kind']]}") for c in clicks for line in report["log"])

    # His seat view at his first decision: his own down cards face up, the others' as backs.
    first = report["firstDecision"]
    assert first["myName"] == "ann" and first["myBacks"] == 0
    assert len(first["myDownCards"]) >= 2 and len(first["myUpCards"]) >= 1, first
    assert all(CARD.match(c) for c in first["myDownCards"] + first["myUpCards"]), first
    assert {o["name"] for o in first["others"]} == BOTS
    for other in first["others"]:
        assert other["downFaces"] == 0, other  # never another player's down card
        assert all(CARD.match(c) for c in other["upCards"]), other
        assert re.fullmatch(r"\d+", other["stack"]), other
        if not other["folded"]:
            assert other["backs"] >= 2 and other["upCards"], other
    assert re.fullmatch(r"Pot \d+", first["pot"]), first
    assert re.match(rf"Hand #{first['hand']} · \w+ street", first["handInfo"]), first
    assert re.fullmatch(r"\d+ s", first["turnClock"]) and first["seatClock"], first
    assert first["buttons"], first

    # The lobby's record of that hand: the cards the page showed him are the cards he was
    # dealt, and everyone's up cards are as the page drew them.
    assert history["state"] == "complete"
    mine = [c["card"] for c in history["my_cards"]]
    down = [c["card"] for c in history["my_cards"] if not c["up"]]
    assert first["myDownCards"] == down[: len(first["myDownCards"])], (first, mine)
    up = history["up_cards"][str(history["my_seat"])]
    assert first["myUpCards"] == up[: len(first["myUpCards"])], (first, up)
    by_name = {s["display_name"]: s["seat"] for s in history["seats"] if "display_name" in s}
    for other in first["others"]:
        seat_up = history["up_cards"].get(str(by_name.get(other["name"])), [])
        assert other["upCards"] == seat_up[: len(other["upCards"])], (other, seat_up)

    # He left and is back in the lobby, his chips in his wallet.
    assert report["notice"].startswith("You left the table")
    assert re.fullmatch(r"Wallet: [\d,]+ chips", report["walletAfter"])
    assert set(report["seconds"]) == {
        "launched",
        "signed_in",
        "at_table",
        "hand_over",
        "left",
        "wallet",
        "hand_open",
        "verified",
    }

    # The fairness box names the nonce it gives: between hands the last hand's (hand n was
    # dealt with nonce n - 1 on the table's first seed pair; it was shown as 0), in a hand its own.
    fairness = report["fairnessAtEnd"]
    if fairness["handInProgress"]:
        assert fairness["nonce"] == str(fairness["handNumber"] - 1), fairness
        assert f"this hand's nonce {fairness['handNumber'] - 1}." in fairness["text"], fairness
    else:
        assert fairness["nonce"] == str(fairness["lastHand"] - 1), fairness
        assert f"last hand's nonce {fairness['lastHand'] - 1}." in fairness["text"], fairness

    # Before he sat down, the three Oslo bots were waiting at his stake level.
    assert report["waitingTitle"] == "Waiting for a game in Oslo"
    assert report["waiting"]["house-2-4"] == 3, report["waiting"]

    # The pot line says what its numbers are: the total, then main pot (+ bets this street).
    pots = first["pots"]
    assert pots and pots[0].startswith("main pot "), pots
    assert all(
        re.fullmatch(r"(main pot|side pot|side pot \d+:|bets this street) [\d,]+", p) for p in pots
    )
    total = sum(int(p.rsplit(" ", 1)[1].replace(",", "")) for p in pots)
    assert first["pot"] == f"Pot {total}", (first["pot"], pots)

    # On a 390 px phone nothing on the felt overlaps (seat plates, cards, bets).
    phone = report["phone"]
    assert phone["width"] == 390 and phone["seats"] == 4 and phone["cards"] >= 12, phone
    assert phone["overlaps"] == [] and phone["scrollWidth"] <= 390, phone


def test_full_tables_fit_a_phone_without_overlaps(npm_packages: None) -> None:
    """7, 8 and 9 seats on seventh street (every seat with seven cards, a bet and tags, the
    turn's clock at each seat in turn) and just after the showdown (every hand shown, every
    seat winning) at 390x844 and 360x780 (and tablet and desktop sizes): no part of a seat
    (plate, card, tag, bet chip, win, clock) overlaps a part of another or its own plate,
    nothing covers the pot or sticks out of the felt or sideways, and on the oval no seat
    moves as the turn goes round (clients/web/test/phone-layout.mjs). Screenshots:
    test-artifacts/web-phone-{7,8,9}.png and web-desktop-{7,8,9}.png."""
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: scripts/install-system-deps installs it"
    ARTIFACTS.mkdir(exist_ok=True)
    result = subprocess.run(
        ["node", "test/phone-layout.mjs", str(ARTIFACTS)],
        cwd=WEB,
        env={**os.environ, "STUD_CHROMIUM": str(CHROMIUM)},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    lines = result.stdout.strip().splitlines()
    assert lines, result.stderr
    report = json.loads(lines[-1])
    assert result.returncode == 0 and report["ok"], json.dumps(report, indent=1)[:4000]
    layouts = {(lay["seats"], lay["width"]): lay for lay in report["layouts"]}
    widths = (390, 360, 768, 1024, 1280, 1360, 1920)
    assert set(layouts) == {(n, w) for n in (7, 8, 9) for w in widths}
    for (seats, width), lay in layouts.items():
        assert lay["seats"] == seats and lay["cards"] == 7 * seats and lay["bets"] == seats, lay
        assert lay["clocks"] == seats, lay  # each seat's turn drew its clock
        assert lay["wins"] == seats and lay["shownCards"] == 7 * seats, lay
        assert lay["overlaps"] == [] and lay["scrollWidth"] <= width, lay
        # On the oval the seats stay put as the turn goes round and the hand ends.
        assert lay["oval"] == (width >= 1280 and (seats < 9 or width >= 1360)), lay
        if lay["oval"]:
            assert lay["moved"] == [], lay
    for seats in (7, 8, 9):
        path = ARTIFACTS / f"web-phone-{seats}.png"
        assert _png_size(path)[0] == 390, path
        assert _png_size(ARTIFACTS / f"web-desktop-{seats}.png") == (1360, 900)
