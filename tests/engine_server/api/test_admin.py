"""AdminService on a real engine: idempotent money moves, listings, ops' view and table control.

Hands are driven by real players (their folds end a hand at once) or watched
through a player's WatchTable stream, so waits end on events rather than on
sleeps; the one fixed wait (a short one) proves that *no* new hand starts.
Chips are counted after every operation: what sits at the table (or was paid
out) is what was brought in.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from stud.v1 import admin_service_pb2, settings_pb2, table_pb2, table_service_pb2

from engine_server.auth import Scope
from engine_server.game.fairness import commitment
from tests.engine_server.api.conftest import Engine, bearer, launch, shut
from tests.engine_server.api.players import event_of, has_event

pytestmark = pytest.mark.asyncio(loop_scope="module")

a = admin_service_pb2
PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
#: a wait long enough for several between-hands pauses (the fixture's is 0.05 s)
QUIET = 0.3


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    """One engine for the module; each test opens its own tables on it."""
    directory: Path = tmp_path_factory.mktemp("admin")
    running = await launch(f"sqlite:///{directory}/engine.sqlite3")
    try:
        yield running
    finally:
        await shut(running)


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


async def refused(call: Any, code: grpc.StatusCode, reason: str) -> error_details_pb2.ErrorInfo:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    error = caught.value
    assert error.code() == code, error.details()
    status = rpc_status.from_call(error)
    assert status is not None and len(status.details) == 1
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert (info.domain, info.reason) == ("stud.v1", reason), error.details()
    return info


async def get_table(engine: Engine, table_id: str) -> admin_service_pb2.GetTableResponse:
    answer: admin_service_pb2.GetTableResponse = await engine.admin.GetTable(
        a.GetTableRequest(name=f"tables/{table_id}", reason="test"), metadata=engine.admin_md
    )
    return answer


async def sessions_of(engine: Engine, table_id: str) -> list[table_pb2.SeatSession]:
    answer = await engine.admin.ListSeatSessions(
        a.ListSeatSessionsRequest(table=f"tables/{table_id}"), metadata=engine.admin_md
    )
    return list(answer.sessions)


def chips_at_table(snapshot: table_pb2.TableSnapshot) -> int:
    """Stacks plus everything in the pots (bets included)."""
    return sum(s.stack + s.total_bet for s in snapshot.seats)


class Watch:
    """A player's WatchTable stream, read in the background."""

    def __init__(self, engine: Engine, table_id: str, player: str) -> None:
        self.call = engine.tables.WatchTable(
            table_service_pb2.WatchTableRequest(table=f"tables/{table_id}"),
            metadata=engine.player_md(player),
        )
        self.messages: list[table_service_pb2.WatchTableResponse] = []
        self.error: grpc.aio.AioRpcError | None = None
        self.ended = False
        self._cursor = 0
        self._changed = asyncio.Event()
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for message in self.call:
                self.messages.append(message)
                self._changed.set()
        except grpc.aio.AioRpcError as error:
            self.error = error
        finally:
            self.ended = True
            self._changed.set()

    async def until(
        self, predicate: Callable[[table_service_pb2.WatchTableResponse], bool], timeout: float = 5
    ) -> table_service_pb2.WatchTableResponse:
        """The next message (from where the last wait stopped) that satisfies ``predicate``."""
        async with asyncio.timeout(timeout):
            while True:
                while self._cursor < len(self.messages):
                    message = self.messages[self._cursor]
                    self._cursor += 1
                    if predicate(message):
                        return message
                if self.ended:
                    raise AssertionError(f"the stream ended ({self.error})")
                self._changed.clear()
                await self._changed.wait()

    def events(self, kind: str) -> list[Any]:
        return [
            getattr(event, kind)
            for m in self.messages
            for event in m.events
            if event.WhichOneof("kind") == kind
        ]

    async def close(self) -> None:
        self.call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


def event_is(kind: str) -> Callable[[table_service_pb2.WatchTableResponse], bool]:
    return lambda m: has_event(m, kind)


def status_is(status: int) -> Callable[[table_service_pb2.WatchTableResponse], bool]:
    return lambda m: m.snapshot.status == status


async def open_table(
    engine: Engine, players: tuple[str, ...] = ("ann", "bob"), buy_in: int = 100, **create: Any
) -> tuple[str, dict[str, str]]:
    """A table with ``players`` seated, all of them dealt into its first hand.

    Returns the table id and the session id of each player. The table is paused while they
    sit down, so that the first hand does not start with the first two.
    """
    table_id = new_id("adm")
    name = f"tables/{table_id}"
    await engine.create_table(table_id, **create)
    await engine.admin.PauseTable(a.PauseTableRequest(name=name), metadata=engine.admin_md)
    sessions = {}
    for player in players:
        seated = await engine.seat(table_id, player, buy_in=buy_in)
        sessions[player] = seated.session.seat_session_id
    await engine.admin.ResumeTable(a.ResumeTableRequest(name=name), metadata=engine.admin_md)
    return table_id, sessions


async def until_hand(engine: Engine, table_id: str, number: int) -> table_pb2.TableSnapshot:
    """Poll the ops view until hand ``number`` runs with a seat to act."""
    deadline = time.monotonic() + 5
    while True:
        snapshot = (await get_table(engine, table_id)).snapshot
        if snapshot.hand_in_progress and snapshot.hand_number == number and snapshot.turn_seat:
            return snapshot
        assert snapshot.hand_number <= number, "the hand was missed"
        assert time.monotonic() < deadline, f"hand {number} did not start"
        await asyncio.sleep(0.02)


async def fold_out(engine: Engine, table_id: str) -> None:
    """End the running hand: whoever is to act folds (or checks) until it is over."""
    number = (await get_table(engine, table_id)).snapshot.hand_number
    for _ in range(50):
        snapshot = (await get_table(engine, table_id)).snapshot
        if not snapshot.hand_in_progress or snapshot.hand_number != number:
            return
        player = next(s.player_id for s in snapshot.seats if s.number == snapshot.turn_seat)
        kinds = [x.kind for x in snapshot.legal_actions]
        kind = table_pb2.ACTION_KIND_FOLD if table_pb2.ACTION_KIND_FOLD in kinds else kinds[0]
        await engine.tables.Act(
            table_service_pb2.ActRequest(
                table=f"tables/{table_id}",
                hand_number=number,
                kind=kind,
                action_id=uuid.uuid4().hex,
            ),
            metadata=engine.player_md(player),
        )
    raise AssertionError("the hand did not end")


# ------------------------------------------------------------ idempotency


async def test_create_table_is_idempotent_on_the_request_id(engine: Engine) -> None:
    first = await engine.create_table("adm-once", client_seed="once")
    again = await engine.create_table("adm-once", client_seed="once")
    assert again.table == first.table
    listed = await engine.admin.ListTables(
        a.ListTablesRequest(page_size=500), metadata=engine.admin_md
    )
    assert [t.name for t in listed.tables].count("tables/adm-once") == 1
    # The same request id for another table is a misuse, not a retry.
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await engine.create_table("adm-once", client_seed="other")
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    status = rpc_status.from_call(caught.value)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    assert info.reason == "IDEMPOTENCY_KEY_REUSED"
    assert (await get_table(engine, "adm-once")).table == first.table


async def test_tables_created_at_once_each_start_once_beside_the_takeover_watch(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Creations run side by side (a burst of quick games): each table starts once, a retry
    gets the table its first request made, and the watch that loads tables handed to this
    node (adopt) does not take a table being created for one of them, even when it looks
    between the table's stored write and its start."""
    manager = engine.server.manager
    directory = manager._directory
    stored = directory.create_table
    adopted: list[str] = []

    async def store_then_look(spec: Any) -> Any:
        made = await stored(spec)
        adopted.extend(await manager.adopt())
        return made

    monkeypatch.setattr(directory, "create_table", store_then_look)
    ids = [new_id("adm-burst") for _ in range(12)]
    creations = [engine.create_table(table_id, client_seed="burst") for table_id in ids]
    retries = [engine.create_table(ids[0], client_seed="burst") for _ in range(4)]
    answers = await asyncio.gather(*creations, *retries)
    assert adopted == []
    assert [a.table.name for a in answers] == [f"tables/{t}" for t in ids] + [
        f"tables/{ids[0]}"
    ] * 4
    runtimes = [manager.tables[t] for t in ids]
    assert len({id(r) for r in runtimes}) == len(ids)
    for table_id in ids:
        assert (await get_table(engine, table_id)).table.name == f"tables/{table_id}"


async def test_seat_player_is_idempotent_on_the_seat_session_id(engine: Engine) -> None:
    table_id = new_id("adm")
    await engine.create_table(table_id)
    request = a.SeatPlayerRequest(
        table=f"tables/{table_id}",
        seat_session_id=new_id("ss"),
        player_id="ann",
        display_name="Ann",
        buy_in=150,
    )
    first = await engine.admin.SeatPlayer(request, metadata=engine.admin_md)
    again = await engine.admin.SeatPlayer(request, metadata=engine.admin_md)
    assert again.session.seat_session_id == first.session.seat_session_id
    assert (again.session.seat, again.session.stack) == (first.session.seat, 150)
    sessions = await sessions_of(engine, table_id)
    assert [(s.player_id, s.chips_in, s.stack) for s in sessions] == [("ann", 150, 150)]
    snapshot = (await get_table(engine, table_id)).snapshot
    assert [(s.player_id, s.stack) for s in snapshot.seats] == [("ann", 150)]


async def test_add_chips_is_idempotent_on_the_request_id(engine: Engine) -> None:
    table_id, sessions = await open_table(engine, ("ann",))
    request = a.AddChipsRequest(
        table=f"tables/{table_id}",
        seat_session_id=sessions["ann"],
        request_id=new_id("add"),
        amount=40,
    )
    first = await engine.admin.AddChips(request, metadata=engine.admin_md)
    again = await engine.admin.AddChips(request, metadata=engine.admin_md)
    assert (first.session.stack, first.session.chips_in) == (140, 140)
    assert (again.session.stack, again.session.chips_in) == (140, 140)
    other = a.AddChipsRequest()
    other.CopyFrom(request)
    other.amount = 41
    await refused(
        engine.admin.AddChips(other, metadata=engine.admin_md),
        grpc.StatusCode.INVALID_ARGUMENT,
        "IDEMPOTENCY_KEY_REUSED",
    )
    [session] = await sessions_of(engine, table_id)
    assert (session.stack, session.chips_in) == (140, 140)
    assert [s.stack for s in (await get_table(engine, table_id)).snapshot.seats] == [140]


# --------------------------------------------------------------- listings


async def test_list_tables_pages_through_every_table_and_hides_private_ones_from_the_lobby(
    tmp_path: Path,
) -> None:
    engine = await launch(f"sqlite:///{tmp_path}/list.sqlite3")
    try:
        created = []
        for i in range(7):
            await engine.admin.CreateTable(
                a.CreateTableRequest(
                    request_id=f"list-{i}",
                    table_id=f"list-{i}",
                    private=i in (2, 5),
                    labels={"city": "graz" if i % 2 else "wien"},
                    min_buy_in=10,
                    max_buy_in=100,
                    client_seed="s",
                    stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
                ),
                metadata=engine.admin_md,
            )
            created.append(f"tables/list-{i}")

        async def pages(md: Any, **filters: Any) -> list[list[str]]:
            found, token = [], ""
            for _ in range(10):
                page = await engine.admin.ListTables(
                    a.ListTablesRequest(page_size=3, page_token=token, **filters), metadata=md
                )
                found.append([t.name for t in page.tables])
                token = page.next_page_token
                if not token:
                    return found
            raise AssertionError("the pages never end")

        newest_first = created[::-1]
        admin_pages = await pages(engine.admin_md)
        assert admin_pages == [newest_first[0:3], newest_first[3:6], newest_first[6:]]
        public = [n for n in newest_first if n not in ("tables/list-2", "tables/list-5")]
        lobby_pages = await pages(bearer("lobby", Scope.LOBBY))
        assert lobby_pages == [public[0:3], public[3:]]
        # A label filter pages over the matching tables only (full pages until the last).
        wien = [n for n in newest_first if int(n[-1]) % 2 == 0]
        assert await pages(engine.admin_md, labels={"city": "wien"}) == [wien[0:3], wien[3:]]
        await refused(
            engine.admin.ListTables(
                a.ListTablesRequest(page_size=3, page_token="not-a-token"),
                metadata=engine.admin_md,
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_PAGE_TOKEN",
        )
    finally:
        await shut(engine)


# ------------------------------------------------------------ ops' view


async def test_get_table_shows_every_card_and_is_audited(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    table_id, _ = await open_table(engine, ("ann", "bob", "cat"))
    snapshot = await until_hand(engine, table_id, 1)
    # The seat to act folds: his cards stay in the ops view.
    folder = next(s for s in snapshot.seats if s.number == snapshot.turn_seat)
    await engine.tables.Act(
        table_service_pb2.ActRequest(
            table=f"tables/{table_id}",
            hand_number=1,
            kind=table_pb2.ACTION_KIND_FOLD,
            action_id="fold-1",
        ),
        metadata=engine.player_md(folder.player_id),
    )
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="stud.audit"):
        answer = await engine.admin.GetTable(
            a.GetTableRequest(name=f"tables/{table_id}", reason="dispute 42"),
            metadata=bearer("ops-jane", Scope.ADMIN),
        )
    seats = {s.number: s for s in answer.snapshot.seats}
    assert seats[folder.number].folded
    cards: list[str] = []
    for seat in seats.values():
        assert seat.down_card_count == 2 and len(seat.down_cards) == 2
        assert len(seat.up_cards) == 1
        cards += [*seat.down_cards, *seat.up_cards]
    assert len(set(cards)) == 9
    assert answer.snapshot.viewer_seat == 0
    assert answer.snapshot.legal_actions, "the legal actions of the seat to act"
    [record] = [r for r in caplog.records if r.name == "stud.audit"]
    assert "ops-jane" in record.getMessage() and "dispute 42" in record.getMessage()
    assert f"tables/{table_id}" in record.getMessage()

    # A player sees his own down cards only, and the same ones.
    watch = Watch(engine, table_id, "ann")
    try:
        first = await watch.until(lambda m: True)
        mine = {s.number: s for s in first.snapshot.seats}
        me = first.snapshot.viewer_seat
        for number, seat in mine.items():
            if number == me:
                assert list(seat.down_cards) == list(seats[number].down_cards)
            else:
                assert not seat.down_cards and seat.down_card_count == 2
    finally:
        await watch.close()


# ------------------------------------------------------------ table control


async def test_pause_takes_effect_between_hands_and_resume_deals_again(engine: Engine) -> None:
    table_id, _ = await open_table(engine)
    name = f"tables/{table_id}"
    await until_hand(engine, table_id, 1)
    watch = Watch(engine, table_id, "ann")
    try:
        paused = await engine.admin.PauseTable(
            a.PauseTableRequest(name=name, reason="maintenance"), metadata=engine.admin_md
        )
        assert paused.table.status == table_pb2.TABLE_STATUS_PAUSING
        assert paused.table.hand_in_progress
        await refused(
            engine.admin.PauseTable(a.PauseTableRequest(name=name), metadata=engine.admin_md),
            PRECONDITION,
            "TABLE_STATE",
        )
        await fold_out(engine, table_id)
        await watch.until(status_is(table_pb2.TABLE_STATUS_PAUSED))
        await asyncio.sleep(QUIET)
        view = await get_table(engine, table_id)
        assert view.table.status == table_pb2.TABLE_STATUS_PAUSED
        assert (view.table.hand_number, view.table.hand_in_progress) == (1, False)
        assert len(watch.events("hand_started")) == 0
        assert chips_at_table(view.snapshot) == 200

        resumed = await engine.admin.ResumeTable(
            a.ResumeTableRequest(name=name), metadata=engine.admin_md
        )
        assert resumed.table.status != table_pb2.TABLE_STATUS_PAUSED
        started = await watch.until(event_is("hand_started"))
        assert event_of(started, "hand_started").hand_started.hand_number == 2
        await refused(
            engine.admin.ResumeTable(a.ResumeTableRequest(name=name), metadata=engine.admin_md),
            PRECONDITION,
            "TABLE_STATE",
        )
    finally:
        await watch.close()


async def test_close_table_finishes_the_hand_then_pays_everyone_out(engine: Engine) -> None:
    table_id, sessions = await open_table(engine, ("ann", "bob", "cat"), buy_in=120)
    name = f"tables/{table_id}"
    seed = (await get_table(engine, table_id)).table.seed
    await until_hand(engine, table_id, 1)
    watch = Watch(engine, table_id, "ann")
    try:
        closing = await engine.admin.CloseTable(
            a.CloseTableRequest(name=name, reason="last orders"), metadata=engine.admin_md
        )
        assert closing.table.status == table_pb2.TABLE_STATUS_CLOSING
        assert list(closing.sessions) == [], "no session is final while the hand plays out"
        assert all(
            s.state == table_pb2.SEAT_SESSION_STATE_OPEN
            for s in await sessions_of(engine, table_id)
        )
        # No newcomer while closing.
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await engine.seat(table_id, "dan")
        assert caught.value.code() == PRECONDITION
        await fold_out(engine, table_id)
        await watch.until(status_is(table_pb2.TABLE_STATUS_CLOSED))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5):
                await watch._task
        assert watch.ended and watch.error is None, "the stream ends with OK"

        closed = await sessions_of(engine, table_id)
        assert {s.seat_session_id for s in closed} == set(sessions.values())
        for session in closed:
            assert session.state == table_pb2.SEAT_SESSION_STATE_CLOSED
            assert session.close_reason == table_pb2.SEAT_SESSION_CLOSE_REASON_TABLE_CLOSED
        assert sum(s.stack for s in closed) == 3 * 120
        [rotated] = watch.events("seed_rotated")
        assert rotated.revealed.commitment == seed.commitment
        assert commitment(rotated.revealed.dealer_seed) == seed.commitment
        assert rotated.revealed.hands_dealt == 1
        view = await get_table(engine, table_id)
        assert view.table.status == table_pb2.TABLE_STATUS_CLOSED
        assert view.table.seed.dealer_seed == rotated.revealed.dealer_seed
        assert not view.table.seats
        # Calling it again is harmless.
        again = await engine.admin.CloseTable(
            a.CloseTableRequest(name=name), metadata=engine.admin_md
        )
        assert again.table.status == table_pb2.TABLE_STATUS_CLOSED
        assert await sessions_of(engine, table_id) == closed
    finally:
        await watch.close()


async def test_close_table_between_hands_pays_out_at_once(engine: Engine) -> None:
    table_id, sessions = await open_table(engine, ("ann",), buy_in=80)
    closed = await engine.admin.CloseTable(
        a.CloseTableRequest(name=f"tables/{table_id}"), metadata=engine.admin_md
    )
    assert closed.table.status == table_pb2.TABLE_STATUS_CLOSED
    assert [(s.seat_session_id, s.state, s.stack) for s in closed.sessions] == [
        (sessions["ann"], table_pb2.SEAT_SESSION_STATE_CLOSED, 80)
    ]
    assert commitment(closed.table.seed.dealer_seed) == closed.table.seed.commitment


def _hand_row(engine: Engine, table_id: str, number: int) -> tuple[str, str | None]:
    path = engine.database_url.removeprefix("sqlite:///")
    with contextlib.closing(sqlite3.connect(path)) as db:
        row = db.execute(
            "SELECT state, cancel_reason FROM hands WHERE table_id = ? AND hand_number = ?",
            (table_id, number),
        ).fetchone()
    assert row is not None
    return row[0], row[1]


def _hand_trail(engine: Engine, table_id: str, number: int) -> dict[str, Any]:
    """The audit trail stored with a hand: its cards, actions, result and PHH."""
    path = engine.database_url.removeprefix("sqlite:///")
    with contextlib.closing(sqlite3.connect(path)) as db:
        row = db.execute(
            "SELECT cards, actions, result, phh FROM hands WHERE table_id = ? AND hand_number = ?",
            (table_id, number),
        ).fetchone()
    assert row is not None
    cards, actions, result, phh = row
    return {
        "cards": json.loads(cards) if cards else None,
        "actions": json.loads(actions) if actions else None,
        "result": json.loads(result) if result else None,
        "phh": phh,
    }


async def test_cancel_hand_gives_every_chip_back(engine: Engine) -> None:
    table_id, _ = await open_table(engine, ("ann", "bob", "cat"), buy_in=100)
    name = f"tables/{table_id}"
    snapshot = await until_hand(engine, table_id, 1)
    # Put more chips in: the seat to act completes.
    player = next(s.player_id for s in snapshot.seats if s.number == snapshot.turn_seat)
    kinds = [x.kind for x in snapshot.legal_actions]
    assert table_pb2.ACTION_KIND_COMPLETE in kinds
    await engine.tables.Act(
        table_service_pb2.ActRequest(
            table=name, hand_number=1, kind=table_pb2.ACTION_KIND_COMPLETE, action_id="c1"
        ),
        metadata=engine.player_md(player),
    )
    during = (await get_table(engine, table_id)).snapshot
    put_in = {s.number: s.total_bet for s in during.seats}
    assert sum(put_in.values()) > 3 and chips_at_table(during) == 300
    # Hold the next hand back so the stacks can be read between hands.
    await engine.admin.PauseTable(a.PauseTableRequest(name=name), metadata=engine.admin_md)
    watch = Watch(engine, table_id, "ann")
    await watch.until(lambda m: True)

    await refused(
        engine.admin.CancelHand(
            a.CancelHandRequest(name=name, hand_number=2), metadata=engine.admin_md
        ),
        PRECONDITION,
        "STALE_HAND",
    )
    cancelled = await engine.admin.CancelHand(
        a.CancelHandRequest(name=name, hand_number=1, reason="misdeal"),
        metadata=engine.admin_md,
    )
    result = cancelled.result
    assert (result.hand_number, result.cancelled) == (1, True)
    # The players' streams are told why, with the same result.
    await watch.until(event_is("hand_cancelled"))
    [told] = watch.events("hand_cancelled")
    await watch.close()
    assert (told.reason, told.result) == ("misdeal", result)
    assert dict(result.returned) == {n: c for n, c in put_in.items() if c}
    after = await get_table(engine, table_id)
    assert not after.table.hand_in_progress
    assert [s.stack for s in after.snapshot.seats] == [100, 100, 100]
    assert after.snapshot.last_hand.cancelled
    assert [s.stack for s in await sessions_of(engine, table_id)] == [100, 100, 100]
    assert _hand_row(engine, table_id, 1) == ("cancelled", "misdeal")
    # What was dealt and done before the cancel is kept for the audit: every card with its
    # deck position (as ops saw them), every action, a PHH marked cancelled.
    trail = _hand_trail(engine, table_id, 1)
    dealt = {(c["seat"], c["card"]) for c in trail["cards"]}
    seen = {(s.number, card) for s in during.seats for card in [*s.down_cards, *s.up_cards]}
    assert dealt == seen and len(dealt) == 9
    assert sorted(c["deck_index"] for c in trail["cards"]) == sorted(
        {c["deck_index"] for c in trail["cards"]}
    )
    assert [a["do"] for a in trail["actions"]] == ["bring_in", "complete"]
    assert trail["result"] == {
        "cancelled": True,
        "pots": [],
        "rake": 0,
        "returned": {str(n): c for n, c in put_in.items() if c},
    }
    assert "_cancelled = true" in trail["phh"]
    assert "cbr" in trail["phh"] and f"tables/{table_id}" in trail["phh"]
    await refused(
        engine.admin.CancelHand(
            a.CancelHandRequest(name=name, hand_number=1), metadata=engine.admin_md
        ),
        PRECONDITION,
        "NO_HAND_IN_PROGRESS",
    )


async def test_remove_player_between_hands_and_during_his_hand(engine: Engine) -> None:
    table_id, sessions = await open_table(engine, ("ann", "bob", "cat"), buy_in=100)
    name = f"tables/{table_id}"
    await until_hand(engine, table_id, 1)
    watch = Watch(engine, table_id, "ann")
    try:
        # During his hand he plays it out (here: it is folded out) and is paid out after.
        removing = await engine.admin.RemovePlayer(
            a.RemovePlayerRequest(table=name, seat_session_id=sessions["cat"], reason="rude"),
            metadata=engine.admin_md,
        )
        assert removing.session.state == table_pb2.SEAT_SESSION_STATE_CLOSING
        seats = {s.player_id: s for s in (await get_table(engine, table_id)).snapshot.seats}
        assert seats["cat"].status == table_pb2.SEAT_STATUS_LEAVING
        await engine.admin.PauseTable(a.PauseTableRequest(name=name), metadata=engine.admin_md)
        await fold_out(engine, table_id)
        await watch.until(event_is("player_left"))
        by_id = {s.seat_session_id: s for s in await sessions_of(engine, table_id)}
        cat = by_id[sessions["cat"]]
        assert cat.state == table_pb2.SEAT_SESSION_STATE_CLOSED
        assert cat.close_reason == table_pb2.SEAT_SESSION_CLOSE_REASON_REMOVED
        view = await get_table(engine, table_id)
        assert "cat" not in {s.player_id for s in view.snapshot.seats}
        assert chips_at_table(view.snapshot) + cat.stack == 300

        # Between hands he is paid out at once.
        removed = await engine.admin.RemovePlayer(
            a.RemovePlayerRequest(table=name, seat_session_id=sessions["bob"]),
            metadata=engine.admin_md,
        )
        assert removed.session.state == table_pb2.SEAT_SESSION_STATE_CLOSED
        view = await get_table(engine, table_id)
        assert [s.player_id for s in view.snapshot.seats] == ["ann"]
        assert chips_at_table(view.snapshot) + cat.stack + removed.session.stack == 300
    finally:
        await watch.close()


async def test_rotate_seed_between_hands_reveals_the_old_seed(engine: Engine) -> None:
    table_id, _ = await open_table(engine)
    name = f"tables/{table_id}"
    before = (await get_table(engine, table_id)).table
    await until_hand(engine, table_id, 1)
    await refused(
        engine.admin.RotateSeed(a.RotateSeedRequest(name=name), metadata=engine.admin_md),
        PRECONDITION,
        "HAND_IN_PROGRESS",
    )
    await engine.admin.PauseTable(a.PauseTableRequest(name=name), metadata=engine.admin_md)
    await fold_out(engine, table_id)
    rotated = await engine.admin.RotateSeed(
        a.RotateSeedRequest(name=name, client_seed="fresh_seed"), metadata=engine.admin_md
    )
    old = rotated.revealed
    assert old.commitment == before.seed.commitment
    assert hashlib.sha256(old.dealer_seed.encode()).hexdigest() == old.commitment
    assert commitment(old.dealer_seed) == old.commitment
    assert (old.client_seed, old.hands_dealt) == (before.seed.client_seed, 1)
    assert rotated.current.commitment == before.next_commitment
    assert (rotated.current.client_seed, rotated.current.hands_dealt) == ("fresh_seed", 0)
    assert not rotated.current.dealer_seed
    assert rotated.next_commitment not in (old.commitment, rotated.current.commitment)

    watch = Watch(engine, table_id, "ann")
    try:
        await engine.admin.ResumeTable(a.ResumeTableRequest(name=name), metadata=engine.admin_md)
        started = event_of(await watch.until(event_is("hand_started")), "hand_started").hand_started
        assert (started.hand_number, started.nonce) == (2, 0)
        assert started.seed.commitment == rotated.current.commitment
        assert started.seed.client_seed == "fresh_seed"
        assert not started.seed.dealer_seed
    finally:
        await watch.close()
    assert chips_at_table((await get_table(engine, table_id)).snapshot) == 200


async def statuses(engine: Engine) -> dict[str, int]:
    """Every open table's status as ListTables shows it, by table id."""
    page = await engine.admin.ListTables(
        a.ListTablesRequest(page_size=500), metadata=engine.admin_md
    )
    return {t.name.removeprefix("tables/"): t.status for t in page.tables}


async def listed_with(engine: Engine, status: int) -> set[str]:
    """The tables ListTables' status filter finds with ``status``."""
    page = await engine.admin.ListTables(
        a.ListTablesRequest(page_size=500, statuses=[status]), metadata=engine.admin_md
    )
    return {t.name.removeprefix("tables/") for t in page.tables}


async def test_drain_lets_the_running_hand_finish_and_starts_no_new_one(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/drain.sqlite3"
    engine = await launch(url)
    try:
        busy, _ = await open_table(engine)
        idle, _ = await open_table(engine, ("cat",))
        await until_hand(engine, busy, 1)
        watch = Watch(engine, busy, "ann")
        drain = asyncio.ensure_future(
            engine.admin.Drain(a.DrainRequest(), metadata=engine.admin_md)
        )
        # The drain shows at once: the busy table pauses after its hand, the idle one now.
        changed = await watch.until(status_is(table_pb2.TABLE_STATUS_PAUSING))
        assert changed.snapshot.hand_in_progress
        assert event_of(changed, "table_status_changed").table_status_changed.reason
        await asyncio.sleep(QUIET)
        assert not drain.done(), "Drain answers only once the running hand has ended"
        assert (await get_table(engine, busy)).table.hand_in_progress
        assert await statuses(engine) == {
            busy: table_pb2.TABLE_STATUS_PAUSING,
            idle: table_pb2.TABLE_STATUS_PAUSED,
        }
        # ListTables' filter finds each table by the status the listing shows.
        assert await listed_with(engine, table_pb2.TABLE_STATUS_PAUSING) == {busy}
        assert await listed_with(engine, table_pb2.TABLE_STATUS_PAUSED) == {idle}
        for gone in (table_pb2.TABLE_STATUS_PLAYING, table_pb2.TABLE_STATUS_WAITING):
            assert await listed_with(engine, gone) == set()
        # Ops cannot deal on this node again.
        await refused(
            engine.admin.ResumeTable(
                a.ResumeTableRequest(name=f"tables/{idle}"), metadata=engine.admin_md
            ),
            PRECONDITION,
            "DRAINING",
        )
        await refused(
            engine.admin.CreateTable(
                a.CreateTableRequest(
                    request_id="late",
                    table_id="late",
                    client_seed="s",
                    min_buy_in=1,
                    max_buy_in=100,
                    stakes=settings_pb2.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
                ),
                metadata=engine.admin_md,
            ),
            PRECONDITION,
            "DRAINING",
        )
        await fold_out(engine, busy)
        answer = await asyncio.wait_for(drain, 5)
        assert (answer.tables, answer.hands_finished) == (2, 1)
        await watch.until(status_is(table_pb2.TABLE_STATUS_PAUSED))
        await watch.close()
        assert await statuses(engine) == {
            busy: table_pb2.TABLE_STATUS_PAUSED,
            idle: table_pb2.TABLE_STATUS_PAUSED,
        }
        # A second player at the idle table, and a quiet spell: no hand starts anywhere.
        await engine.seat(idle, "dan")
        await asyncio.sleep(QUIET)
        for table_id in (busy, idle):
            view = await get_table(engine, table_id)
            assert not view.table.hand_in_progress
            assert chips_at_table(view.snapshot) == 100 * len(view.snapshot.seats)
        assert (await get_table(engine, busy)).table.hand_number == 1
        assert (await get_table(engine, idle)).table.hand_number == 0
        again = await engine.admin.Drain(a.DrainRequest(), metadata=engine.admin_md)
        assert (again.tables, again.hands_finished) == (2, 0)
        assert set((await statuses(engine)).values()) == {table_pb2.TABLE_STATUS_PAUSED}
        assert await listed_with(engine, table_pb2.TABLE_STATUS_PAUSED) == {busy, idle}
    finally:
        await shut(engine)

    # Ops drained the node: the pause is stored with the tables and outlasts the restart. No
    # hand is dealt until ops resume each table, on a node that is not draining.
    engine = await launch(url)
    try:
        assert await statuses(engine) == {
            busy: table_pb2.TABLE_STATUS_PAUSED,
            idle: table_pb2.TABLE_STATUS_PAUSED,
        }
        assert await listed_with(engine, table_pb2.TABLE_STATUS_PAUSED) == {busy, idle}
        await asyncio.sleep(QUIET)
        assert (await get_table(engine, busy)).table.hand_number == 1
        assert (await get_table(engine, idle)).table.hand_number == 0
        for table_id in (busy, idle):
            await engine.admin.ResumeTable(
                a.ResumeTableRequest(name=f"tables/{table_id}"), metadata=engine.admin_md
            )
        await until_hand(engine, busy, 2)
        await until_hand(engine, idle, 1)
        assert set((await statuses(engine)).values()) == {table_pb2.TABLE_STATUS_PLAYING}
        assert await listed_with(engine, table_pb2.TABLE_STATUS_PLAYING) == {busy, idle}
    finally:
        await shut(engine)

    # Stopped (SIGTERM's path: drain, then stop) the node's pause is not ops': the next start
    # deals again at once.
    engine = await launch(url)
    try:
        await until_hand(engine, busy, 3)
        await until_hand(engine, idle, 2)
    finally:
        await shut(engine)


async def test_a_stopping_node_stores_its_drain_and_the_next_start_deals_again(
    tmp_path: Path,
) -> None:
    database = tmp_path / "stop.sqlite3"
    engine = await launch(f"sqlite:///{database}")
    try:
        table_id, _ = await open_table(engine)
        await until_hand(engine, table_id, 1)
    finally:
        await shut(engine)  # what SIGTERM does: drain, then stop
    # What ops saw while it stopped is what is stored, with the drain that held it.
    with contextlib.closing(sqlite3.connect(database)) as db:
        row = db.execute("SELECT status, drain_hold FROM tables WHERE id = ?", (table_id,))
        # Pausing when its hand outlasted the drain's wait (the stop then left it running).
        assert row.fetchone() in {("pausing", "shutdown"), ("paused", "shutdown")}
    engine = await launch(f"sqlite:///{database}")
    try:
        await until_hand(engine, table_id, 2)
        assert await listed_with(engine, table_pb2.TABLE_STATUS_PLAYING) == {table_id}
    finally:
        await shut(engine)
    with contextlib.closing(sqlite3.connect(database)) as db:
        row = db.execute("SELECT status, drain_hold FROM tables WHERE id = ?", (table_id,))
        # Pausing when its hand outlasted the drain's wait (the stop then left it running).
        assert row.fetchone() in {("pausing", "shutdown"), ("paused", "shutdown")}
