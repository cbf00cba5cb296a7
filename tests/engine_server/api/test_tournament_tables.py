"""Tournament tables through a real engine on loopback and real clients: the director's
RPCs (CreateTable with a tournament, SeatPlayer with its chips, SetStakes, MovePlayer,
SetHandHold, SetTournamentInfo, AwardPlace) and what every stream shows of them."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import pytest_asyncio
from google.protobuf import struct_pb2
from stud.v1 import admin_service_pb2, settings_pb2, table_pb2, table_service_pb2

from tests.engine_server.api.conftest import Engine, launch, shut
from tests.engine_server.api.players import (
    Player,
    caller,
    error_info,
    event_of,
    is_event,
    passive,
    with_event,
)

K = table_pb2
A = admin_service_pb2

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    path = tmp_path_factory.mktemp("engine") / "engine.sqlite3"
    running = await launch(f"sqlite:///{path}")
    try:
        yield running
    finally:
        await shut(running)


def _id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def tournament_table(
    engine: Engine,
    table_id: str,
    *,
    stakes: tuple[int, int, int, int] = (1, 1, 2, 4),
    number: int = 1,
    clock: float = 0.3,
    held: bool = True,
) -> A.CreateTableResponse:
    """A tournament table (held: no hand starts until released)."""
    ante, bring_in, small, big = stakes
    overrides = struct_pb2.Struct()
    overrides.update({"action_seconds": clock})
    created = await engine.admin.CreateTable(
        A.CreateTableRequest(
            request_id=f"create-{table_id}",
            table_id=table_id,
            rule_overrides=overrides,
            stakes=settings_pb2.Stakes(ante=ante, bring_in=bring_in, small_bet=small, big_bet=big),
            client_seed="tourney",
            tournament=settings_pb2.TournamentTable(
                tournament_id="tour-1", table_name=f"Table {number}", table_number=number
            ),
        ),
        metadata=engine.admin_md,
    )
    if held:
        await hold(engine, table_id, True)
    return created


async def hold(engine: Engine, table_id: str, held: bool) -> A.SetHandHoldResponse:
    return await engine.admin.SetHandHold(
        A.SetHandHoldRequest(name=f"tables/{table_id}", held=held), metadata=engine.admin_md
    )


async def seat(engine: Engine, table_id: str, player_id: str, chips: int, number: int) -> str:
    session_id = _id(f"ss-{player_id}")
    await engine.admin.SeatPlayer(
        A.SeatPlayerRequest(
            table=f"tables/{table_id}",
            seat_session_id=session_id,
            player_id=player_id,
            display_name=player_id.upper(),
            seat=number,
            buy_in=chips,
        ),
        metadata=engine.admin_md,
    )
    return session_id


def client(engine: Engine, table_id: str, player_id: str, decide: Any = caller) -> Player:
    return Player(
        player_id, engine.grpc_address, f"tables/{table_id}", engine.player_md(player_id), decide
    )


async def sessions(engine: Engine, table_id: str) -> list[table_pb2.SeatSession]:
    answer = await engine.admin.ListSeatSessions(
        A.ListSeatSessionsRequest(table=f"tables/{table_id}"), metadata=engine.admin_md
    )
    return list(answer.sessions)


async def table(engine: Engine, table_id: str) -> table_pb2.Table:
    answer = await engine.admin.GetTable(
        A.GetTableRequest(name=f"tables/{table_id}", reason="test"), metadata=engine.admin_md
    )
    return answer.table


async def refused(call: Any, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call
    assert error.value.code() == code, error.value
    assert error_info(error.value).reason == reason


async def until(check: Any, timeout: float = 20.0) -> Any:
    async with asyncio.timeout(timeout):
        while True:
            value = await check()
            if value:
                return value
            await asyncio.sleep(0.05)


# --------------------------------------------------------------------- the table itself


async def test_a_tournament_table_seats_the_directors_chips_and_never_cashes_out(
    engine: Engine,
) -> None:
    created = await tournament_table(engine, "tt-chips")
    settings = created.table.settings
    assert settings.tournament.tournament_id == "tour-1"
    assert settings.tournament.table_name == "Table 1"
    assert (settings.min_buy_in, settings.max_buy_in) == (0, 0)
    assert created.table.tournament.level == 1  # CreateTable's stakes are the first level's
    assert (await table(engine, "tt-chips")).tournament.hand_held
    # A retry gets the same table; the same request for another table name is refused.
    again = await tournament_table(engine, "tt-chips", held=False)
    assert again.table.name == created.table.name
    await hold(engine, "tt-chips", True)
    # Any positive chips seat a player (a starting stack, a moved player's odd stack).
    first = await seat(engine, "tt-chips", "c1", 1500, 1)
    await seat(engine, "tt-chips", "c2", 37, 2)
    name = "tables/tt-chips"
    await refused(
        engine.admin.SeatPlayer(
            A.SeatPlayerRequest(
                table=name, seat_session_id=_id("ss"), player_id="c3", seat=3, buy_in=0
            ),
            metadata=engine.admin_md,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "BUY_IN_OUT_OF_RANGE",
    )
    await refused(
        engine.admin.AddChips(
            A.AddChipsRequest(table=name, seat_session_id=first, request_id=_id("add"), amount=5),
            metadata=engine.admin_md,
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "TOURNAMENT_TABLE",
    )
    md = engine.player_md("c1")
    await refused(
        engine.tables.Leave(table_service_pb2.LeaveRequest(table=name), metadata=md),
        grpc.StatusCode.FAILED_PRECONDITION,
        "TOURNAMENT_TABLE",
    )
    await refused(
        engine.tables.SitOut(table_service_pb2.SitOutRequest(table=name), metadata=md),
        grpc.StatusCode.FAILED_PRECONDITION,
        "TOURNAMENT_TABLE",
    )
    assert sorted(s.stack for s in await sessions(engine, "tt-chips")) == [37, 1500]
    # A tournament table has no buy-in range; a cash table's must be given.
    await refused(
        engine.admin.CreateTable(
            A.CreateTableRequest(
                request_id="bad-range",
                stakes=settings_pb2.Stakes(small_bet=2),
                min_buy_in=10,
                max_buy_in=100,
                tournament=settings_pb2.TournamentTable(
                    tournament_id="tour-1", table_name="T", table_number=2
                ),
            ),
            metadata=engine.admin_md,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
    )
    # Tournament methods on a cash table are refused.
    await engine.create_table("tt-cash")
    await refused(
        hold(engine, "tt-cash", True),
        grpc.StatusCode.FAILED_PRECONDITION,
        "NOT_A_TOURNAMENT_TABLE",
    )


async def test_an_away_player_is_dealt_in_and_his_clock_acts_for_him(engine: Engine) -> None:
    await tournament_table(engine, "tt-away", clock=0.2)
    await seat(engine, "tt-away", "a1", 500, 1)
    await seat(engine, "tt-away", "a2", 500, 2)
    present = client(engine, "tt-away", "a1")
    await present.connect()
    try:
        await hold(engine, "tt-away", False)
        # a2 never opens a stream: he is away, yet dealt in, and his clock acts for him.
        started = await present.wait_for(is_event("hand_started"), timeout=10)
        assert list(event_of(started, "hand_started").hand_started.seats) == [1, 2]
        await present.wait_for(
            with_event("action_taken", lambda a: a.seat == 2 and a.timed_out), timeout=10
        )
        ended = await present.wait_for(is_event("hand_ended"), timeout=20)
        away = next(s for s in ended.snapshot.seats if s.number == 2)
        assert not away.connected and away.status == K.SEAT_STATUS_SEATED
    finally:
        await hold(engine, "tt-away", True)
        await present.close()


# ------------------------------------------------------------------------- busts, places


async def test_a_player_without_chips_busts_and_hears_his_place_from_the_rail(
    engine: Engine,
) -> None:
    # Antes as big as the short stack: he is all in every hand until he busts or doubles up.
    await tournament_table(engine, "tt-bust", stakes=(10, 5, 10, 20), clock=0.3)
    short = await seat(engine, "tt-bust", "b1", 10, 1)
    await seat(engine, "tt-bust", "b2", 3000, 2)
    players = [client(engine, "tt-bust", "b1"), client(engine, "tt-bust", "b2")]
    for player in players:
        await player.connect()
    try:
        await hold(engine, "tt-bust", False)
        busted = await players[1].wait_for(is_event("player_busted"), timeout=60)
        out = event_of(busted, "player_busted")
        gone = out.player_busted
        assert gone.player_id == "b1" and gone.seat == 1 and gone.start_stack > 0
        assert 1 not in [s.number for s in busted.snapshot.seats]
        await hold(engine, "tt-bust", True)
        # His session closed BUSTED with the hand and his chips at its start.
        (closed,) = [s for s in await sessions(engine, "tt-bust") if s.seat_session_id == short]
        assert closed.state == K.SEAT_SESSION_STATE_CLOSED
        assert closed.close_reason == K.SEAT_SESSION_CLOSE_REASON_BUSTED
        assert (closed.stack, closed.busted_hand_number) == (0, out.hand_number)
        assert closed.busted_start_stack == gone.start_stack
        # Chips are conserved: the other has them all.
        assert sum(s.stack for s in await sessions(engine, "tt-bust")) == 3010
        # His stream goes on from the rail: the public view, where he hears his place.
        mine = await players[0].wait_for(is_event("player_busted"), timeout=10)
        assert mine.snapshot.viewer_seat == 0
        place = A.AwardPlaceRequest(
            name="tables/tt-bust", player_id="b1", display_name="B1", place=2, prize=35
        )
        await engine.admin.AwardPlace(place, metadata=engine.admin_md)
        await engine.admin.AwardPlace(place, metadata=engine.admin_md)  # told once
        placed = await players[0].wait_for(is_event("tournament_placed"), timeout=10)
        told = event_of(placed, "tournament_placed").tournament_placed
        assert (told.player_id, told.place, told.prize) == ("b1", 2, 35)
        await players[1].wait_for(is_event("tournament_placed"), timeout=10)
        await engine.admin.AwardPlace(
            A.AwardPlaceRequest(name="tables/tt-bust", player_id="b2", place=1, prize=65),
            metadata=engine.admin_md,
        )
        await players[1].wait_for(
            with_event("tournament_placed", lambda p: p.player_id == "b2"), timeout=10
        )
        assert len(players[0].events("tournament_placed")) == 2  # b1's once, then b2's
        await refused(
            engine.admin.AwardPlace(
                A.AwardPlaceRequest(name="tables/tt-bust", player_id="b1", place=3, prize=0),
                metadata=engine.admin_md,
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "IDEMPOTENCY_KEY_REUSED",
        )
        # Acting is over for him there.
        await refused(
            engine.tables.Act(
                table_service_pb2.ActRequest(
                    table="tables/tt-bust",
                    hand_number=1,
                    kind=K.ACTION_KIND_FOLD,
                    action_id=_id("a"),
                ),
                metadata=engine.player_md("b1"),
            ),
            grpc.StatusCode.PERMISSION_DENIED,
            "NOT_SEATED",
        )
    finally:
        for player in players:
            await player.close()


# -------------------------------------------------------------------------------- levels


def antes(message: Any) -> list[int]:
    """The antes posted in this change (one event per seat)."""
    return [
        ante.amount
        for event in message.events
        if event.WhichOneof("kind") == "antes_posted"
        for ante in event.antes_posted.antes
    ]


async def set_stakes(engine: Engine, table_id: str, level: int, ante: int) -> A.SetStakesResponse:
    return await engine.admin.SetStakes(
        A.SetStakesRequest(
            name=f"tables/{table_id}",
            level=level,
            stakes=settings_pb2.Stakes(ante=ante, small_bet=2 * ante),
        ),
        metadata=engine.admin_md,
    )


async def test_stakes_change_between_hands_never_during_one(engine: Engine) -> None:
    await tournament_table(engine, "tt-levels", clock=0.3)
    await seat(engine, "tt-levels", "l1", 5000, 1)
    await seat(engine, "tt-levels", "l2", 5000, 2)
    watcher = client(engine, "tt-levels", "l1")
    await watcher.connect()
    try:
        # Between hands: at once, from the next hand (the first).
        answer = await set_stakes(engine, "tt-levels", 2, 3)
        assert answer.from_hand_number == 1
        assert answer.table.tournament.level == 2
        assert answer.table.settings.stakes.ante == 3
        assert answer.table.settings.stakes.bring_in == 3  # small_bet / 2 by default
        changed = await watcher.wait_for(is_event("stakes_changed"), timeout=10)
        assert event_of(changed, "stakes_changed").stakes_changed.level == 2
        again = await set_stakes(engine, "tt-levels", 2, 3)  # nothing new: nothing sent
        assert again.from_hand_number == 1
        await hold(engine, "tt-levels", False)
        first = await watcher.wait_for(is_event("antes_posted", 1), timeout=10)
        assert antes(first) == [3, 3]
        # During the hand: it plays its own stakes; the next hand plays the new ones.
        during = await set_stakes(engine, "tt-levels", 3, 5)
        assert during.from_hand_number == 2
        assert during.table.settings.stakes.ante == 3
        assert (during.table.tournament.level, during.table.tournament.next_level) == (2, 3)
        assert during.table.tournament.next_stakes.ante == 5
        second = await watcher.wait_for(is_event("antes_posted", 2), timeout=20)
        assert antes(second) == [5, 5]
        assert event_of(second, "hand_started").hand_started.stakes.ante == 5
        assert second.snapshot.tournament.level == 3
        assert second.snapshot.settings.stakes.ante == 5
        assert len(watcher.events("stakes_changed")) == 2
        await refused(
            set_stakes(engine, "tt-levels", 0, 5),
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ARGUMENT",
        )
    finally:
        await hold(engine, "tt-levels", True)
        await watcher.close()


# ------------------------------------------------------------------------------- the hold


async def test_hand_for_hand_holds_the_next_hand_until_released(engine: Engine) -> None:
    await tournament_table(engine, "tt-hold", clock=0.2)
    await seat(engine, "tt-hold", "h1", 800, 1)
    await seat(engine, "tt-hold", "h2", 800, 2)
    watcher = client(engine, "tt-hold", "h1")
    await watcher.connect()
    try:
        await hold(engine, "tt-hold", False)
        await watcher.wait_for(is_event("hand_started", 1), timeout=10)
        # Held during hand 1: it plays out; hand 2 waits.
        held = await hold(engine, "tt-hold", True)
        assert held.table.tournament.hand_held and held.table.hand_in_progress
        assert (await hold(engine, "tt-hold", True)).table.tournament.hand_held  # idempotent
        await watcher.wait_for(is_event("hand_ended", 1), timeout=20)
        await asyncio.sleep(0.5)  # ten times the pause between hands
        now = await table(engine, "tt-hold")
        assert now.hand_number == 1 and not now.hand_in_progress and now.tournament.hand_held
        assert watcher.last.snapshot.tournament.hand_held
        assert len(watcher.events("hand_hold_changed")) == 2  # held once, released once
        released = await hold(engine, "tt-hold", False)
        assert not released.table.tournament.hand_held
        await watcher.wait_for(is_event("hand_started", 2), timeout=10)
    finally:
        await hold(engine, "tt-hold", True)
        await watcher.close()


# ------------------------------------------------------------------------- tournament info


async def test_tournament_info_reaches_every_view(engine: Engine) -> None:
    await tournament_table(engine, "tt-info")
    await seat(engine, "tt-info", "i1", 800, 1)
    await seat(engine, "tt-info", "i2", 800, 2)
    seated = client(engine, "tt-info", "i1")
    rail = client(engine, "tt-info", "railbird-i")
    await seated.connect()
    await rail.connect()
    try:
        info = table_pb2.TournamentInfo(
            level=4,
            stakes=settings_pb2.Stakes(ante=5, bring_in=5, small_bet=10, big_bet=20),
            hands_to_next_level=3,
            players_left=17,
            entrants=30,
            average_stack=2647,
            prize_pool=3000,
            places_paid=4,
        )
        info.next_level_time.GetCurrentTime()
        request = A.SetTournamentInfoRequest(name="tables/tt-info", info=info)
        answer = await engine.admin.SetTournamentInfo(request, metadata=engine.admin_md)
        assert answer.table.tournament.info == info
        await engine.admin.SetTournamentInfo(request, metadata=engine.admin_md)  # same: no news
        for viewer in (seated, rail):
            told = await viewer.wait_for(is_event("tournament_info_changed"), timeout=10)
            assert told.snapshot.tournament.info == info
            assert len(viewer.events("tournament_info_changed")) == 1
        bad = table_pb2.TournamentInfo(players_left=-1)
        await refused(
            engine.admin.SetTournamentInfo(
                A.SetTournamentInfoRequest(name="tables/tt-info", info=bad),
                metadata=engine.admin_md,
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ARGUMENT",
        )
    finally:
        await seated.close()
        await rail.close()


# ---------------------------------------------------------------------------------- moves


async def move(
    engine: Engine, table_id: str, session_id: str, request_id: str, to: str
) -> A.MovePlayerResponse:
    return await engine.admin.MovePlayer(
        A.MovePlayerRequest(
            table=f"tables/{table_id}",
            seat_session_id=session_id,
            request_id=request_id,
            destination_table=f"tables/{to}",
            grpc_address=engine.grpc_address,
            web_url=engine.web_url,
        ),
        metadata=engine.admin_md,
    )


async def test_a_move_between_hands_hands_his_chips_over_exactly_once(engine: Engine) -> None:
    await tournament_table(engine, "tt-from", number=1)
    await tournament_table(engine, "tt-to", number=2)
    mover = await seat(engine, "tt-from", "m1", 1234, 1)
    await seat(engine, "tt-from", "m2", 900, 2)
    await seat(engine, "tt-to", "m3", 900, 1)
    player = client(engine, "tt-from", "m1")
    await player.connect()
    try:
        request_id = _id("move")
        answer = await move(engine, "tt-from", mover, request_id, "tt-to")
        assert answer.session.state == K.SEAT_SESSION_STATE_CLOSED
        assert answer.session.close_reason == K.SEAT_SESSION_CLOSE_REASON_MOVED
        assert answer.session.stack == 1234
        # His stream tells him where he goes, then ends cleanly.
        moved = await player.wait_for(is_event("player_moved"), timeout=10)
        where = event_of(moved, "player_moved").player_moved
        assert (where.player_id, where.stack) == ("m1", 1234)
        assert where.destination.table == "tables/tt-to"
        assert where.destination.grpc_address == engine.grpc_address
        assert where.destination.web_url == engine.web_url
        await asyncio.wait_for(player.wait_until_ended(), 5)
        assert player.ended == grpc.StatusCode.OK
        # A retry moves nothing again; another request for the gone session finds none; the
        # same request_id elsewhere is refused.
        retry = await move(engine, "tt-from", mover, request_id, "tt-to")
        assert retry.session == answer.session
        await refused(
            move(engine, "tt-from", mover, _id("move"), "tt-to"),
            grpc.StatusCode.NOT_FOUND,
            "SEAT_SESSION_NOT_FOUND",
        )
        await refused(
            move(engine, "tt-from", mover, request_id, "tt-other"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "IDEMPOTENCY_KEY_REUSED",
        )
        # The director seats him at the destination with exactly those chips; he follows.
        await seat(engine, "tt-to", "m1", answer.session.stack, 2)
        follow = client(engine, "tt-to", "m1")
        first = await follow.connect()
        assert first.snapshot.viewer_seat == 2
        await follow.close()
        chips_from = [s.stack for s in await sessions(engine, "tt-from") if s.player_id == "m1"]
        chips_to = [s.stack for s in await sessions(engine, "tt-to") if s.player_id == "m1"]
        assert chips_from == chips_to == [1234]
        # The tournament's chips in play: his once (the moved session is closed), theirs.
        everyone = await sessions(engine, "tt-from") + await sessions(engine, "tt-to")
        in_play = [s.stack for s in everyone if s.state == K.SEAT_SESSION_STATE_OPEN]
        assert sorted(in_play) == [900, 900, 1234]
        # Broken (closed) since, the table still answers a retry of the move as it did.
        await engine.admin.CloseTable(
            A.CloseTableRequest(name="tables/tt-from", reason="broken"), metadata=engine.admin_md
        )
        late = await move(engine, "tt-from", mover, request_id, "tt-to")
        assert late.session == answer.session
    finally:
        await player.close()


async def test_a_move_during_his_hand_waits_for_its_end(engine: Engine) -> None:
    await tournament_table(engine, "tt-busy", number=3, clock=0.2)
    await tournament_table(engine, "tt-dest", number=4)
    mover = await seat(engine, "tt-busy", "n1", 600, 1)
    await seat(engine, "tt-busy", "n2", 600, 2)
    player = client(engine, "tt-busy", "n1", passive)
    other = client(engine, "tt-busy", "n2", caller)
    await player.connect()
    await other.connect()
    try:
        await hold(engine, "tt-busy", False)
        await other.wait_for(is_event("hand_started", 1), timeout=10)
        request_id = _id("move")
        answer = await move(engine, "tt-busy", mover, request_id, "tt-dest")
        if answer.session.state == K.SEAT_SESSION_STATE_CLOSING:
            await other.wait_for(is_event("player_leaving"), timeout=10)
        await hold(engine, "tt-busy", True)
        moved = await other.wait_for(is_event("player_moved"), timeout=20)
        stack = event_of(moved, "player_moved").player_moved.stack

        async def closed() -> Any:
            now = await move(engine, "tt-busy", mover, request_id, "tt-dest")
            return now if now.session.state == K.SEAT_SESSION_STATE_CLOSED else None

        final = await until(closed)
        assert final.session.close_reason == K.SEAT_SESSION_CLOSE_REASON_MOVED
        assert final.session.stack == stack
        assert sum(s.stack for s in await sessions(engine, "tt-busy")) == 1200
        await asyncio.wait_for(player.wait_until_ended(), 5)
    finally:
        await player.close()
        await other.close()


async def test_a_move_asked_during_a_cancelled_hand_goes_with_his_start_stack(
    engine: Engine,
) -> None:
    await tournament_table(engine, "tt-cancel", number=5, clock=30)
    mover = await seat(engine, "tt-cancel", "x1", 400, 1)
    await seat(engine, "tt-cancel", "x2", 400, 2)
    await hold(engine, "tt-cancel", False)

    async def running() -> Any:
        now = await table(engine, "tt-cancel")
        return now if now.hand_in_progress else None

    hand = (await running() or await until(running)).hand_number
    await hold(engine, "tt-cancel", True)
    request_id = _id("move")
    closing = await move(engine, "tt-cancel", mover, request_id, "tt-dest")
    assert closing.session.state == K.SEAT_SESSION_STATE_CLOSING
    await engine.admin.CancelHand(
        A.CancelHandRequest(name="tables/tt-cancel", hand_number=hand, reason="misdeal"),
        metadata=engine.admin_md,
    )
    # The hand gave every chip back; he is moved with what he began it with, at once.
    done = await move(engine, "tt-cancel", mover, request_id, "tt-dest")
    assert done.session.state == K.SEAT_SESSION_STATE_CLOSED
    assert done.session.close_reason == K.SEAT_SESSION_CLOSE_REASON_MOVED
    assert done.session.stack == 400
    assert sorted(s.stack for s in await sessions(engine, "tt-cancel")) == [400, 400]


async def test_a_cash_player_leaving_during_a_cancelled_hand_is_paid_out_at_once(
    engine: Engine,
) -> None:
    # (The cancelled hand's leavers were dropped from the table but left CLOSING in the store
    # until a restart: their money waited.)
    await engine.create_table("cash-cancel")
    await engine.seat("cash-cancel", "y1", buy_in=100, seat=1)
    await engine.seat("cash-cancel", "y2", buy_in=100, seat=2)

    async def running() -> Any:
        now = await table(engine, "cash-cancel")
        return now if now.hand_in_progress else None

    hand = (await until(running)).hand_number
    left = await engine.tables.Leave(
        table_service_pb2.LeaveRequest(table="tables/cash-cancel"),
        metadata=engine.player_md("y1"),
    )
    assert not left.left and left.session.state == K.SEAT_SESSION_STATE_CLOSING
    await engine.admin.CancelHand(
        A.CancelHandRequest(name="tables/cash-cancel", hand_number=hand, reason="misdeal"),
        metadata=engine.admin_md,
    )
    (gone,) = [s for s in await sessions(engine, "cash-cancel") if s.player_id == "y1"]
    assert gone.state == K.SEAT_SESSION_STATE_CLOSED
    assert gone.close_reason == K.SEAT_SESSION_CLOSE_REASON_LEFT
    assert gone.stack == 100
