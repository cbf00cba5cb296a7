"""Real clients play at a real engine: privacy, shared public state, conserved chips,
idempotent and racing Acts, and leaving mid-hand."""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import AsyncIterator

import grpc
import pytest
import pytest_asyncio
from stud.v1 import admin_service_pb2, settings_pb2, table_pb2, table_service_pb2

from tests.engine_server.api.conftest import Engine, launch, shut
from tests.engine_server.api.players import (
    Decide,
    Player,
    StreamPlayer,
    act_request,
    action,
    at_sequence,
    bettor,
    caller,
    check_privacy,
    error_info,
    event_kinds,
    event_of,
    has_event,
    is_event,
    open_table,
    passive,
    pause,
    public_part,
    randomly,
    seat_of,
    with_event,
)

K = table_pb2

# One engine for the whole module (each test has its own table): starting one costs more
# than most of these tests.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    path = tmp_path_factory.mktemp("engine") / "engine.sqlite3"
    running = await launch(f"sqlite:///{path}")
    try:
        yield running
    finally:
        await shut(running)


def folder_after_third(snapshot: table_pb2.TableSnapshot) -> tuple[int, int | None] | None:
    """Plays third street out, then folds to the first bet he faces."""
    if (
        snapshot.street != settings_pb2.STREET_THIRD
        and action(snapshot, K.ACTION_KIND_CHECK) is None
    ):
        return action(snapshot, K.ACTION_KIND_FOLD)
    return caller(snapshot)


# ---------------------------------------------------------------------------- seven players

HANDS = 3
BUY_IN = 1000


@pytest.mark.parametrize(
    "client", [Player, StreamPlayer], ids=["watch-table-and-act", "play-stream"]
)
async def test_seven_clients_play_hands_privately_agree_on_the_table_and_conserve_chips(
    engine: Engine, client: type[Player]
) -> None:
    # p1 always bets (every hand has action), p2 always calls (every hand reaches a showdown),
    # p7 folds on fourth street (a folded hand must stay hidden at that showdown).
    strategies: list[Decide] = [bettor, caller]
    strategies += [randomly(random.Random(seat), fold=0.05) for seat in range(3, 7)]
    strategies += [folder_after_third]
    table_id = f"seven-{client.__name__.lower()}"
    players = await open_table(engine, table_id, strategies, buy_in=BUY_IN, client=client)
    try:
        await players[0].wait_for(is_event("hand_ended", HANDS), timeout=60)
        await pause(engine, table_id)
        paused = with_event("table_status_changed", lambda e: e.status == K.TABLE_STATUS_PAUSED)
        for player in players:
            await player.wait_for(paused, timeout=30)
    finally:
        for player in players:
            await player.close()

    total = 7 * BUY_IN
    played = sorted({e.hand_number for e in players[0].events("hand_ended")})
    assert played[:HANDS] == list(range(1, HANDS + 1))

    # Each stream: a full snapshot first, then one update per change, numbered without gaps.
    for player in players:
        first, *rest = player.messages
        assert not first.events and first.snapshot.viewer_seat == player.seat
        assert all(m.events and m.event == m.events[0] for m in rest)
        assert [m.sequence for m in rest] == list(
            range(first.sequence + 1, first.sequence + 1 + len(rest))
        )
        assert not player.refusal_reasons()
        # A change an act caused names the act: its action first, with the same action id.
        for message in rest:
            first_event = message.events[0]
            taken = first_event.action_taken if first_event.HasField("action_taken") else None
            if taken is not None and taken.action_id:
                assert message.action_id == taken.action_id, message
            elif message.action_id:
                # (a bring-in, or a showdown decision, is its own kind of event)
                assert event_kinds(message)[0] in ("bring_in_posted", "hand_shown", "hand_mucked")
        acted = [m for m in rest if m.action_id and m.snapshot.hand_number]
        assert acted, "the clients' own acts reached the table"

    # 1. Nobody ever saw a card he may not see.
    truth = check_privacy(players)
    for hand in played:
        assert 7 in truth.folded[hand], f"p7 folded in hand {hand}"
        assert hand in truth.showdown, f"hand {hand} reached a showdown"
        assert len(truth.down[hand]) == 7  # every seat's own cards are known

    # 2. For every sequence number, every seat saw the same public table.
    by_sequence: dict[int, dict[str, tuple[object, ...]]] = defaultdict(dict)
    for player in players:
        for message in player.messages[1:]:
            by_sequence[message.sequence][player.player_id] = public_part(message)
    start = max(p.messages[0].sequence for p in players) + 1
    end = min(p.messages[-1].sequence for p in players)
    assert end - start > 20 * HANDS  # a few dozen changes a hand
    for sequence in range(start, end + 1):
        seen = by_sequence[sequence]
        assert len(seen) == 7, f"sequence {sequence} reached only {sorted(seen)}"
        assert len(set(seen.values())) == 1, f"seats disagree at sequence {sequence}"

    # 3. Chips are conserved on every message and by every hand.
    for player in players:
        for message in player.messages:
            snap = message.snapshot
            assert sum(s.stack for s in snap.seats) + snap.pot_total == total, message
            for seat in snap.seats:
                assert seat.stack >= 0 and seat.bet_this_street <= seat.total_bet
    stacks = {seat: BUY_IN for seat in range(1, 8)}
    for hand in played[:HANDS]:
        in_hand = [
            m
            for m in players[0].messages
            if m.snapshot.hand_in_progress and m.snapshot.hand_number == hand
        ]
        started = in_hand[0].snapshot
        start_stacks = {s.number: s.stack + s.total_bet for s in started.seats if s.in_hand}
        assert start_stacks == stacks, f"hand {hand} started from the last hand's stacks"
        # What each seat put in, by the events: antes, the bring-in, every action's chips.
        contributed = dict.fromkeys(start_stacks, 0)
        for event in players[0].events("antes_posted", hand):
            for ante in event.antes_posted.antes:
                contributed[ante.seat] += ante.amount
        for event in players[0].events("bring_in_posted", hand):
            contributed[event.bring_in_posted.seat] += event.bring_in_posted.amount
        for event in players[0].events("action_taken", hand):
            contributed[event.action_taken.seat] += event.action_taken.chips
        (ended,) = players[0].events("hand_ended", hand)
        result = ended.hand_ended.result
        assert result.hand_number == hand and not result.cancelled
        final = dict(result.final_stacks)
        assert sum(final.values()) + result.rake == sum(start_stacks.values())
        assert sum(p.amount for p in result.pots) == sum(contributed.values()) - sum(
            result.returned.values()
        )
        won: dict[int, int] = defaultdict(int)
        for pot in result.pots:
            assert sum(a.amount for a in pot.awards) + pot.rake == pot.amount
            for award in pot.awards:
                won[award.seat] += award.amount
        for number, stack in final.items():
            expected = (
                start_stacks[number] - contributed[number] + result.returned[number] + won[number]
            )
            assert stack == expected, f"hand {hand}, seat {number}"
        stacks = final
    # The stored seat sessions hold every chip.
    sessions = await engine.admin.ListSeatSessions(
        admin_service_pb2.ListSeatSessionsRequest(table=f"tables/{table_id}"),
        metadata=engine.admin_md,
    )
    assert sum(s.stack for s in sessions.sessions) == total
    # The lobby's seat session ids are for AdminService views only, never for players.
    for player in players:
        for message in player.messages:
            assert not any(s.seat_session_id for s in message.snapshot.seats)
    listed = await engine.admin.ListTables(
        admin_service_pb2.ListTablesRequest(), metadata=engine.admin_md
    )
    (table,) = [t for t in listed.tables if t.name == f"tables/{table_id}"]
    assert {s.number: s.seat_session_id for s in table.seats} == {
        s.seat: s.seat_session_id for s in sessions.sessions
    }


# ---------------------------------------------------------------------------- acting


async def next_turn(
    players: list[Player], after: int = 0, timeout: float = 10.0
) -> tuple[Player, table_service_pb2.WatchTableResponse, int]:
    """The next turn that starts after message ``after`` of players[0]'s stream: the player
    to act, the message that started it in his own stream, and its index in players[0]'s."""
    watcher = players[0]
    started = await watcher.wait_for(is_event("turn_started"), after=after, timeout=timeout)
    index = watcher.messages.index(started)
    actor = next(
        p for p in players if p.seat == event_of(started, "turn_started").turn_started.seat
    )
    own = await actor.wait_for(lambda m: m.sequence == started.sequence, timeout=timeout)
    assert own.snapshot.turn_seat == actor.seat and own.snapshot.legal_actions
    return actor, own, index


def chips_moving(snapshot: table_pb2.TableSnapshot) -> tuple[int, int | None]:
    """An action that puts chips in (complete, bet, raise or call)."""
    for kind in (K.ACTION_KIND_COMPLETE, K.ACTION_KIND_BET, K.ACTION_KIND_CALL):
        chosen = action(snapshot, kind)
        if chosen is not None:
            return chosen
    raise AssertionError(f"no chips-moving action in {snapshot.legal_actions}")


async def test_the_same_act_twice_moves_chips_once_and_answers_the_same(engine: Engine) -> None:
    players = await open_table(engine, "idem", [passive, passive])
    try:
        actor, own, index = await next_turn(players)
        hand = own.snapshot.hand_number
        before = seat_of(own.snapshot, actor.seat)
        kind, amount = chips_moving(own.snapshot)

        first = await actor.act(hand, kind, amount, action_id="act-1")
        again = await actor.act(hand, kind, amount, action_id="act-1")
        # A retry racing another retry: the table answers both from its memory.
        racing = await asyncio.gather(
            actor.act(hand, kind, amount, action_id="act-1"),
            actor.act(hand, kind, amount, action_id="act-1"),
        )
        assert first is not None and first.action.chips > 0
        assert again == first and list(racing) == [first, first]
        assert first.action.seat == actor.seat and first.action.action_id == "act-1"

        # The stream shows the action once, at the sequence the answer named.
        taken = await players[0].wait_for(
            lambda m: m.sequence == first.sequence, after=index, timeout=5
        )
        # The change opens with the action, carrying the client's action id.
        assert event_kinds(taken)[0] == "action_taken"
        shown = taken.events[0].action_taken
        assert (shown.seat, shown.kind) == (actor.seat, first.action.kind)
        assert (shown.chips, shown.amount) == (first.action.chips, first.action.amount)
        assert shown.action_id == "act-1"
        # Let the table move on (the other player's turn), then count.
        await players[0].wait_for(
            with_event("turn_started", lambda e: e.seat != actor.seat),
            after=index + 1,
            timeout=5,
        )
        actions = [
            m
            for m in players[0].messages[index:]
            if with_event("action_taken", lambda e: e.seat == actor.seat)(m)
        ]
        assert len(actions) == 1
        after = seat_of(players[0].last.snapshot, actor.seat)
        assert after.stack == before.stack - first.action.chips
        assert after.total_bet == before.total_bet + first.action.chips

        # The same id for another action is refused and changes nothing.
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await actor.act(hand, K.ACTION_KIND_FOLD, action_id="act-1")
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert error_info(refused.value).reason == "IDEMPOTENCY_KEY_REUSED"
        assert seat_of(players[0].last.snapshot, actor.seat) == after
    finally:
        for player in players:
            await player.close()


async def test_a_retry_after_the_hand_ended_gets_the_first_answer(engine: Engine) -> None:
    players = await open_table(engine, "retry", [passive, passive])
    try:
        actor, own, _ = await next_turn(players)
        hand = own.snapshot.hand_number
        # Heads up, a fold ends the hand at once (and the next one starts soon after).
        first = await actor.act(hand, K.ACTION_KIND_FOLD, action_id="last-word")
        assert first is not None
        await actor.wait_for(is_event("hand_started", hand + 1), timeout=10)
        retry = await actor.act(hand, K.ACTION_KIND_FOLD, action_id="last-word")
        assert retry == first
        assert not actor.refusals
    finally:
        for player in players:
            await player.close()


async def test_two_racing_acts_for_one_turn_one_wins_the_other_is_refused(
    engine: Engine,
) -> None:
    players = await open_table(engine, "race", [passive, passive, passive])
    winners: list[table_service_pb2.ActResponse] = []
    try:
        index = 0
        for turn in range(4):  # several turns, each raced by two Acts with different ids
            actor, own, index = await next_turn(players, after=index + 1)
            snap = own.snapshot
            # Never a fold: the hand goes on, so the loser is refused for the turn, not the hand.
            kinds = [a.kind for a in snap.legal_actions if a.kind != K.ACTION_KIND_FOLD]
            pair = [kinds[-1], kinds[0]]  # e.g. complete and call, or the same kind twice
            outcomes = await asyncio.gather(
                *(
                    actor.stub.Act(
                        table_service_pb2.ActRequest(
                            table=actor.table,
                            hand_number=snap.hand_number,
                            kind=kind,
                            action_id=f"race-{turn}-{n}",
                        ),
                        metadata=actor.metadata,
                    )
                    for n, kind in enumerate(pair)
                ),
                return_exceptions=True,
            )
            won = [o for o in outcomes if isinstance(o, table_service_pb2.ActResponse)]
            lost = [o for o in outcomes if isinstance(o, BaseException)]
            assert len(won) == 1 and len(lost) == 1, outcomes
            (error,) = lost
            assert isinstance(error, grpc.aio.AioRpcError), error
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
            info = error_info(error)
            assert info.reason in ("NOT_YOUR_TURN", "ILLEGAL_ACTION"), info
            if info.reason == "NOT_YOUR_TURN":
                assert info.metadata["turn_seat"] != str(actor.seat)
            assert info.metadata.get("table", actor.table) == actor.table
            winners.append(won[0])
            await players[0].wait_for(at_sequence(won[0].sequence), timeout=5)
        # The stream shows exactly the winners' actions, each once, nothing for the losers.
        taken = [
            (m.sequence, e.action_taken.seat, e.action_taken.kind)
            for m in players[0].messages
            for e in m.events
            if e.WhichOneof("kind") == "action_taken"
        ]
        assert taken == [(w.sequence, w.action.seat, w.action.kind) for w in winners]
        # And the chips: every seat's stack + total bet is still its buy-in.
        snap = players[0].last.snapshot
        assert {s.number: s.stack + s.total_bet for s in snap.seats} == {1: 100, 2: 100, 3: 100}
        assert snap.pot_total == sum(s.total_bet for s in snap.seats)
    finally:
        for player in players:
            await player.close()


# ---------------------------------------------------------------------------- leaving


async def test_leaving_mid_hand_plays_the_hand_out_then_pays_out_and_frees_the_seat(
    engine: Engine,
) -> None:
    players = await open_table(engine, "leave", [caller, caller, passive])
    first, _, leaver = players
    newcomer: Player | None = None
    try:
        # His turn in hand 1: the hand is surely running (the clock is 30 s).
        turn = await leaver.wait_for(
            with_event("turn_started", lambda e: e.seat == leaver.seat),
            timeout=10,
        )
        hand = turn.snapshot.hand_number
        answer = await leaver.stub.Leave(
            table_service_pb2.LeaveRequest(table=leaver.table), metadata=leaver.metadata
        )
        assert not answer.left
        assert answer.session.state == K.SEAT_SESSION_STATE_CLOSING
        # He is still in: he acts on this turn and plays on to the end of the hand.
        leaver.decide = caller
        chosen = caller(turn.snapshot)
        assert chosen is not None
        assert await leaver.act(hand, *chosen) is not None
        leaving = await first.wait_for(is_event("player_leaving"), timeout=5)
        assert event_of(leaving, "player_leaving").player_leaving.seat == leaver.seat
        assert seat_of(leaving.snapshot, leaver.seat).status == K.SEAT_STATUS_LEAVING

        ended = await first.wait_for(is_event("hand_ended", hand), timeout=20)
        final = event_of(ended, "hand_ended").hand_ended.result.final_stacks[leaver.seat]
        left = await first.wait_for(is_event("player_left"), timeout=5)
        gone = event_of(left, "player_left").player_left
        assert (gone.seat, gone.final_stack) == (leaver.seat, final)
        assert gone.reason == K.SEAT_SESSION_CLOSE_REASON_LEFT
        assert leaver.seat not in [s.number for s in left.snapshot.seats]
        # Actions of his after the Leave were taken (he played the hand out).
        assert len(leaver.answers) >= 1

        sessions = await engine.admin.ListSeatSessions(
            admin_service_pb2.ListSeatSessionsRequest(table="tables/leave"),
            metadata=engine.admin_md,
        )
        (closed,) = [s for s in sessions.sessions if s.player_id == leaver.player_id]
        assert closed.state == K.SEAT_SESSION_STATE_CLOSED
        assert closed.close_reason == K.SEAT_SESSION_CLOSE_REASON_LEFT
        assert closed.stack == final
        assert sum(s.stack for s in sessions.sessions) == 300

        # He is gone: his stream ends, and he cannot act there any more; watching again, he
        # is a railbird of this public table (the public view: no seat, no cards).
        await asyncio.wait_for(leaver.wait_until_ended(), 5)
        assert leaver.ended == grpc.StatusCode.OK
        left_seat = leaver.seat
        rail = await leaver.connect()
        assert rail.snapshot.viewer_seat == 0 and rail.snapshot.watchers == 1
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await leaver.stub.Act(
                act_request(hand, K.ACTION_KIND_FOLD, table=leaver.table),
                metadata=leaver.metadata,
            )
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert error_info(refused.value).reason == "NOT_SEATED"

        # The next hand deals only the two who stayed; then a newcomer takes the free seat and
        # is dealt in before he opens his stream: none of his cards reach the one who left.
        started = await first.wait_for(is_event("hand_started", hand + 1), timeout=10)
        assert list(event_of(started, "hand_started").hand_started.seats) == [1, 2]
        await engine.seat("leave", "p9", buy_in=100, seat=left_seat)
        dealt = await first.wait_for(
            lambda m: has_event(m, "street_started") and m.snapshot.hand_number == hand + 2,
            timeout=20,
        )
        assert seat_of(dealt.snapshot, left_seat).player_id == "p9"
        newcomer = Player("p9", engine.grpc_address, leaver.table, engine.player_md("p9"), caller)
        await newcomer.connect()
        await newcomer.wait_for(is_event("hand_ended", hand + 2), timeout=20)
        check_privacy([first, players[1], leaver, newcomer])
    finally:
        for player in players:
            await player.close()
        if newcomer is not None:
            await newcomer.close()


async def test_snapshot_pots_leave_the_street_bets_out(engine: Engine) -> None:
    players = await open_table(engine, "pots", [bettor, caller, caller])
    try:
        await players[0].wait_for(is_event("hand_ended", 1), timeout=20)
        await pause(engine, "pots")
    finally:
        for player in players:
            await player.close()
    betting = [
        m.snapshot
        for m in players[0].messages
        if m.snapshot.hand_in_progress and any(s.bet_this_street for s in m.snapshot.seats)
    ]
    assert betting
    for snap in betting:
        street_bets = sum(s.bet_this_street for s in snap.seats)
        assert snap.pot_total == sum(p.amount for p in snap.pots) + street_bets, snap
