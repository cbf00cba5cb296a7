"""Test support for the history and fairness endpoints: players, stores and real hands.

The app is the lobby's own (:func:`lobby_api.app.create_app`, from ``tests/lobby_api/
conftest.py``: ``client``, ``database_url`` on SQLite and PostgreSQL, ``engine``); players
sign up and log in through it (:func:`sign_up`). Hands are played for real:
:func:`play_hand` runs :class:`engine_server.game.hand.Hand` on the table's own seed pair
and writes it through :class:`EngineStore` (``start_hand`` / ``finish_hand``) with the
record the table runtime writes (``TableRuntime._hand_record``, rebuilt here on purpose
rather than imported). Tests share a database per backend and use tables and players of
their own, so they never see each other's hands.

Fixtures are imported by the ``conftest.py`` of each test package.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from engine_server.game.actions import ActionKind, LegalAction
from engine_server.game.cards import format_card
from engine_server.game.events import (
    ActionTaken,
    CardDealt,
    HandMucked,
    HandShown,
)
from engine_server.game.fairness import deck_stream
from engine_server.game.hand import Hand
from engine_server.game.phh import export_phh
from engine_server.game.profiles import PROFILES, Stakes
from engine_server.game.replay import result_to_json
from engine_server.store.database import create_engine_for
from engine_server.store.hands import HandSeat
from engine_server.store.models import HandRow
from engine_server.store.repository import EngineStore
from engine_server.table.runtime import hand_trail
from tests.lobby_api.support import Player, register

HOUSE_STAKES = Stakes(1, 1, 2, 4)


@pytest.fixture
async def db_engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    """An engine of the test's own on the app's database (to write hands, or tamper)."""
    engine = create_engine_for(database_url)
    try:
        yield engine
    finally:
        await engine.dispose()


@pytest.fixture
def store(db_engine: AsyncEngine) -> EngineStore:
    return EngineStore(db_engine)


#: Each signed-up player's Authorization header, by player id.
_AUTH: dict[str, dict[str, str]] = {}


async def sign_up(client: httpx.AsyncClient, count: int) -> list[str]:
    """The ids of ``count`` new players, registered and logged in through the lobby."""
    ids = []
    for _ in range(count):
        player: Player = await register(client)
        _AUTH[player.id] = player.auth
        ids.append(player.id)
    return ids


def as_player(player_id: str) -> dict[str, str]:
    """The headers of a request by a player :func:`sign_up` made."""
    return _AUTH[player_id]


# ------------------------------------------------------------------------------ hands


def uid(prefix: str) -> str:
    """A fresh id (tables and seat sessions are per test)."""
    return f"{prefix}-{secrets.token_hex(4)}"


@dataclass
class SeatedTable:
    """A table in the store with its seated players (seat → (session id, player id))."""

    table_id: str
    profile: str
    stakes: Stakes
    seats: dict[int, tuple[str, str]]
    names: dict[int, str]
    button: int | None = None
    hands: list[PlayedHand] = field(default_factory=list)

    def seat_of(self, player_id: str) -> int:
        return next(seat for seat, (_, pid) in self.seats.items() if pid == player_id)


@dataclass
class PlayedHand:
    """A hand played and stored: its row as finished and the live Hand object."""

    row: HandRow
    hand: Hand

    @property
    def id(self) -> str:
        return self.row.id

    def down_cards(self, seat: int) -> list[str]:
        return [
            format_card(e.card)
            for e in self.hand.events
            if isinstance(e, CardDealt) and e.seat == seat and not e.up
        ]

    def up_cards(self, seat: int) -> list[str]:
        return [
            format_card(e.card)
            for e in self.hand.events
            if isinstance(e, CardDealt) and e.seat == seat and e.up
        ]

    def own_cards(self, seat: int) -> list[dict[str, Any]]:
        """The cards ``seat`` was dealt that its player may see (not his down cards once he
        folded), from the stored record, in its form: seat, card, deck index."""
        folded = seat in self.folded
        return [
            {"seat": seat, "card": c["card"], "deck_index": c["deck_index"]}
            for c in self.row.cards or ()
            if c["seat"] == seat and (c["up"] or not folded)
        ]

    @property
    def folded(self) -> set[int]:
        return {
            e.seat
            for e in self.hand.events
            if isinstance(e, ActionTaken) and e.kind is ActionKind.FOLD
        }

    @property
    def shown(self) -> set[int]:
        return {e.seat for e in self.hand.events if isinstance(e, HandShown)}

    @property
    def mucked(self) -> set[int]:
        return {e.seat for e in self.hand.events if isinstance(e, HandMucked)}


async def open_table(
    store: EngineStore,
    players: list[str],
    *,
    profile: str = "house",
    stakes: Stakes = HOUSE_STAKES,
    buy_in: int = 200,
    client_seed: str = "alice",
) -> SeatedTable:
    """A table with ``players`` at seats 1, 2, …"""
    table_id = uid("t")
    await store.tables.create_table(
        request_id=uid("req"),
        table_id=table_id,
        profile=profile,
        ante=stakes.ante,
        bring_in=stakes.bring_in,
        small_bet=stakes.small_bet,
        big_bet=stakes.big_bet,
        min_buy_in=10,
        max_buy_in=10_000,
        client_seed=client_seed,
    )
    seats: dict[int, tuple[str, str]] = {}
    names: dict[int, str] = {}
    for seat, player in enumerate(players, start=1):
        session_id = uid("ss")
        names[seat] = f"Name {player}"
        await store.sessions.seat_player(
            table_id,
            session_id,
            player_id=player,
            display_name=names[seat],
            seat=seat,
            buy_in=buy_in,
        )
        seats[seat] = (session_id, player)
    return SeatedTable(table_id, profile, stakes, seats, names)


#: Chooses an action: (kind, to) for the seat to act, given its legal actions.
Strategy = Callable[[Hand, int, tuple[LegalAction, ...]], tuple[ActionKind, int | None]]


def passive(
    folders: set[int] = frozenset(),  # type: ignore[assignment]
    muckers: set[int] = frozenset(),  # type: ignore[assignment]
    bettor: int | None = None,
) -> Strategy:
    """Seats in ``folders`` fold at their first chance; everyone else checks or calls (the
    smallest bring-in where it is a choice) and, at an ordered showdown, ``muckers`` muck.

    ``bettor`` bets (the smallest size) whenever nobody has bet yet on a street, so he is the
    last aggressor and shows first at an ordered showdown: the others then decide, and a
    mucker mucks whatever the cards. Without a bettor the order depends on the deck (under
    ``swedish`` the best showing hand shows first, and must)."""

    def choose(
        hand: Hand, seat: int, legal: tuple[LegalAction, ...]
    ) -> tuple[ActionKind, int | None]:
        kinds = {a.kind: a for a in legal}
        if seat in folders and ActionKind.FOLD in kinds:
            return ActionKind.FOLD, None
        if ActionKind.MUCK in kinds and seat in muckers:
            return ActionKind.MUCK, None
        if seat == bettor and ActionKind.BET in kinds:
            return ActionKind.BET, kinds[ActionKind.BET].min_to
        for kind in (ActionKind.SHOW, ActionKind.CHECK, ActionKind.CALL):
            if kind in kinds:
                return kind, None
        if ActionKind.BRING_IN in kinds:
            return ActionKind.BRING_IN, kinds[ActionKind.BRING_IN].min_to
        return legal[0].kind, None

    return choose


def _record(hand: Hand) -> dict[str, Any]:
    """What TableRuntime._hand_record stores (cards, actions, pots, rake, result)."""
    cards, actions = hand_trail(hand)
    result = result_to_json(hand.result(), hi_lo=hand.settings.hi_lo)
    return {
        "cards": cards,
        "actions": actions,
        "pots": result["pots"],
        "rake": result["rake"],
        "result": result,
    }


async def play_hand(
    store: EngineStore,
    table: SeatedTable,
    strategy: Strategy,
    *,
    timeouts: set[int] = frozenset(),  # type: ignore[assignment]
) -> PlayedHand:
    """Deal the table's next hand from its seed pair, play it out and store it.

    Seats in ``timeouts`` let their clock run out on every decision instead.
    """
    row = await store.tables.get_table(table.table_id)
    pair = await store.seeds.current_seed_pair(table.table_id)
    players = []
    for seat, (session_id, player_id) in sorted(table.seats.items()):
        stack = (await store.sessions.get_session(session_id)).stack
        if stack > 0:
            players.append(HandSeat(seat, session_id, player_id, stack))
    seats = [p.seat for p in players]
    later = [s for s in seats if table.button is not None and s > table.button]
    button = later[0] if later else seats[0]
    settings = PROFILES[table.profile]
    started = await store.hands.start_hand(
        table.table_id,
        hand_number=row.hands_started + 1,
        seed_pair_id=pair.id,
        button_seat=button,
        players=players,
        profile=table.profile,
        settings={
            "rules": settings.to_json(),
            "stakes": table.stakes.to_json(),
            "action_seconds": settings.action_seconds,
        },
    )
    deck, stream = deck_stream(pair.dealer_seed, pair.client_seed, started.nonce)
    hand = Hand(
        settings,
        table.stakes,
        [(p.seat, p.start_stack) for p in players],
        button,
        deck,
        stream=stream,
    )
    while not hand.is_over:
        turn = hand.to_act
        assert turn is not None
        if turn in timeouts:
            hand.timeout(turn)
        else:
            kind, to = strategy(hand, turn, hand.legal_actions())
            hand.act(turn, kind, to)
    record = _record(hand)
    names = {p.seat: table.names[p.seat] for p in players}
    finished = await store.hands.finish_hand(
        started.id,
        **record,
        phh=export_phh(hand, table=table.table_id, hand_number=started.hand_number, players=names),
        final_stacks={p.seat_session_id: hand.result().final_stacks[p.seat] for p in players},
    )
    table.button = button
    played = PlayedHand(finished, hand)
    table.hands.append(played)
    return played


def phh_card_tokens(text: str) -> list[str]:
    """Every card token of a PHH text's dealings and showdowns (written independently of
    the code under test)."""
    import tomllib

    tokens: list[str] = []
    for action in tomllib.loads(text)["actions"]:
        if action.startswith("#"):
            continue
        words = action.split(" # ")[0].split(" ")
        if words[0] == "d":
            run = words[-1]
        elif len(words) == 3 and words[1] == "sm":
            run = words[2]
        else:
            continue
        tokens.extend(run[i : i + 2] for i in range(0, len(run), 2))
    return tokens


def problem(response: Any, status: int) -> dict[str, Any]:
    """The response's problem document, after checking its status and media type."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    return body


__all__ = [
    "HOUSE_STAKES",
    "PlayedHand",
    "SeatedTable",
    "as_player",
    "db_engine",
    "open_table",
    "passive",
    "phh_card_tokens",
    "play_hand",
    "problem",
    "sign_up",
    "store",
    "uid",
]
