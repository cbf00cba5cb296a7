"""The clock acts for players who do not: each profile's timeout rule, seen by real clients,
and a player who drops his stream mid-hand, is acted for, comes back and plays on."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio
from google.protobuf import timestamp_pb2
from stud.v1 import events_pb2, settings_pb2, table_pb2, table_service_pb2

from tests.engine_server.api.conftest import Engine, launch, shut
from tests.engine_server.api.players import (
    Decide,
    Player,
    bettor,
    caller,
    check_privacy,
    event_of,
    is_event,
    open_table,
    passive,
    pause,
    public_part,
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


S = settings_pb2
CLOCK = 0.3


def by_street(third: Decide, fourth: Decide, later: Decide) -> Decide:
    """A strategy per street: third street, fourth street, fifth street on (and showdowns)."""

    def decide(snapshot: table_pb2.TableSnapshot) -> tuple[int, int | None] | None:
        if snapshot.street == S.STREET_THIRD:
            return third(snapshot)
        if snapshot.street == S.STREET_FOURTH:
            return fourth(snapshot)
        return later(snapshot)

    return decide


def seconds(stamp: timestamp_pb2.Timestamp) -> float:
    return stamp.seconds + stamp.nanos / 1e9


def hand_messages(player: Player, hand: int) -> list[table_service_pb2.WatchTableResponse]:
    """This player's updates of one hand, from its HandStarted to its HandEnded."""
    return [m for m in player.messages if m.events and m.events[0].hand_number == hand]


def timeouts_of(
    player: Player, hand: int
) -> list[tuple[table_pb2.TableSnapshot, str, events_pb2.Event]]:
    """What the clock did on each of ``player``'s turns in ``hand``: (his view when the turn
    started, "check"/"fold"/"protected"/"show"..., the event), in order."""
    found: list[tuple[table_pb2.TableSnapshot, str, events_pb2.Event]] = []
    turn: tuple[table_pb2.TableSnapshot, events_pb2.Event] | None = None
    for message in hand_messages(player, hand):
        for event in message.events:
            kind = event.WhichOneof("kind")
            if kind == "turn_started":
                # The turn is its change's last event: the message's view is the turn's.
                mine = event.turn_started.seat == player.seat
                turn = (message.snapshot, event) if mine else None
            elif (
                turn is not None
                and kind == "action_taken"
                and event.action_taken.seat == player.seat
            ):
                if event.action_taken.timed_out:
                    name = K.ActionKind.Name(event.action_taken.kind).removeprefix("ACTION_KIND_")
                    found.append((turn[0], name.lower(), event))
                    elapsed = seconds(event.time) - seconds(turn[1].time)
                    assert elapsed >= CLOCK * 0.9, f"acted for after {elapsed:.3f} s"
                turn = None
            elif turn is not None and kind == "all_in_protected":
                assert event.all_in_protected.seat == player.seat
                found.append((turn[0], "protected", event))
                elapsed = seconds(event.time) - seconds(turn[1].time)
                assert elapsed >= CLOCK * 0.9, f"protected after {elapsed:.3f} s"
                turn = None
    return found


def result_of(player: Player, hand: int) -> table_pb2.HandResult:
    (ended,) = player.events("hand_ended", hand)
    return ended.hand_ended.result


def contributions(player: Player, hand: int) -> dict[int, int]:
    """What each seat put into ``hand``, by the events: antes, bring-in, every action's chips."""
    put_in: dict[int, int] = defaultdict(int)
    for event in player.events("antes_posted", hand):
        for ante in event.antes_posted.antes:
            put_in[ante.seat] += ante.amount
    for event in player.events("bring_in_posted", hand):
        put_in[event.bring_in_posted.seat] += event.bring_in_posted.amount
    for event in player.events("action_taken", hand):
        put_in[event.action_taken.seat] += event.action_taken.chips
    return put_in


def awards_to(result: table_pb2.HandResult, seat: int) -> int:
    return sum(a.amount for pot in result.pots for a in pot.awards if a.seat == seat)


# ---------------------------------------------------------------------------- house


async def test_house_clock_checks_when_he_may_and_folds_when_he_may_not(engine: Engine) -> None:
    # A calls third street, checks fourth and bets from fifth on; P plays third street
    # himself, then lets his clock act.
    a_plays = by_street(caller, caller, bettor)
    p_plays = by_street(caller, passive, passive)
    players = await open_table(
        engine, "house-clock", [a_plays, p_plays], overrides={"action_seconds": CLOCK}
    )
    a, p = players
    try:
        await a.wait_for(is_event("hand_ended", 1), timeout=20)
        await pause(engine, "house-clock")
    finally:
        for player in players:
            await player.close()

    acted = timeouts_of(p, 1)
    kinds = [kind for _, kind, _ in acted]
    # Fourth street: nothing owed, so a check; fifth street: A's bet, so a fold.
    assert "check" in kinds and kinds[-1] == "fold", kinds
    for view, kind, event in acted:
        may_check = K.ACTION_KIND_CHECK in [x.kind for x in view.legal_actions]
        assert kind == ("check" if may_check else "fold"), (kind, view.legal_actions)
        assert event.action_taken.chips == 0 and not event.action_taken.action_id
    assert not p.events("all_in_protected")
    result = result_of(a, 1)
    assert result.won_by_fold and not result.shown and result.rake == 0
    # Each put in an ante and a bring-in or call (2); A's fifth-street bet came back.
    assert dict(result.final_stacks) == {a.seat: 102, p.seat: 98}
    check_privacy(players)


# ---------------------------------------------------------------------------- protection


async def play_until(
    players: list[Player], done: Callable[[int], bool], hands: int, timeout: float = 20.0
) -> int:
    """Let hands run until ``done(hand)`` holds after one (at most ``hands`` hands)."""
    for hand in range(1, hands + 1):
        await players[0].wait_for(is_event("hand_ended", hand), timeout=timeout)
        if done(hand):
            return hand
    raise AssertionError(f"not done after {hands} hands")


def check_protected_hand(players: list[Player], protected: Player, hand: int) -> None:
    """Once protected, he is never asked to bet again, his stack stays put, he plays only for
    the pots he had filled, and what is left of his stack is his at the end."""
    messages = hand_messages(protected, hand)
    index = next(
        i
        for i, m in enumerate(messages)
        if with_event("all_in_protected", lambda e: e.seat == protected.seat)(m)
    )
    at_protection = seat_of(messages[index].snapshot, protected.seat)
    assert at_protection.all_in_protected and not at_protection.folded
    for message in messages[index + 1 :]:
        snap = message.snapshot
        if with_event("turn_started", lambda e: e.seat == protected.seat)(message):
            # Only his turn to show or muck at an ordered showdown.
            assert snap.street == S.STREET_SHOWDOWN, snap
            assert {a.kind for a in snap.legal_actions} <= {K.ACTION_KIND_SHOW, K.ACTION_KIND_MUCK}
        if snap.hand_in_progress:
            seat = seat_of(snap, protected.seat)
            assert seat.stack == at_protection.stack and seat.all_in_protected
            assert seat.total_bet == at_protection.total_bet
    result = result_of(players[0], hand)
    # The pots he may win hold, from everyone, at most what he himself had put in.
    committed = at_protection.total_bet
    put_in = contributions(players[0], hand)
    for number, chips in result.returned.items():
        put_in[number] -= chips
    his_pots = sum(pot.amount for pot in result.pots if protected.seat in pot.eligible_seats)
    assert his_pots == sum(min(chips, committed) for chips in put_in.values())
    side = [pot for pot in result.pots if protected.seat not in pot.eligible_seats]
    assert side, "the others bet on after he was protected: a side pot he cannot win"
    assert result.final_stacks[protected.seat] == at_protection.stack + awards_to(
        result, protected.seat
    )
    total = sum(result.final_stacks.values()) + result.rake
    assert total == 100 * len(players)


async def test_multipoker_clock_protects_a_player_with_chips_in_and_folds_one_without(
    engine: Engine,
) -> None:
    # Two tables at once: with antes (everyone has chips in: protection), and without (a
    # player who is not the bring-in has nothing in when his clock first runs out: a fold).
    strategies: list[Decide] = [bettor, caller, passive]
    overrides = {"action_seconds": CLOCK}
    with_ante = await open_table(
        engine, "mp-ante", strategies, profile="multipoker", overrides=overrides
    )
    no_ante = await open_table(
        engine,
        "mp-noante",
        strategies,
        profile="multipoker",
        overrides=overrides,
        stakes=(0, 1, 2, 4),
    )
    outcomes: dict[str, list[tuple[int, int, str]]] = defaultdict(list)

    def first_timeout(players: list[Player], name: str) -> Callable[[int], bool]:
        passive_player = players[2]

        def done(hand: int) -> bool:
            view, kind, _ = timeouts_of(passive_player, hand)[0]
            mine = seat_of(view, passive_player.seat)
            outcomes[name].append((hand, mine.total_bet, kind))
            # Done once we saw him time out with nothing in but what the rules force: the
            # ante (with antes), or nothing at all (without).
            return view.bring_in_seat != passive_player.seat

        return done

    try:
        await asyncio.gather(
            play_until(with_ante, first_timeout(with_ante, "ante"), hands=8),
            play_until(no_ante, first_timeout(no_ante, "none"), hands=8),
        )
        await pause(engine, "mp-ante")
        await pause(engine, "mp-noante")
    finally:
        for player in with_ante + no_ante:
            await player.close()

    for hand, put_in, kind in outcomes["ante"]:
        # Antes count: he always has chips in, so he is always protected.
        assert put_in >= 1 and kind == "protected", outcomes
        check_protected_hand(with_ante, with_ante[2], hand)
    assert outcomes["ante"][-1][1] == 1, "the last hand shows the ante alone is enough"
    for hand, put_in, kind in outcomes["none"]:
        assert kind == ("protected" if put_in > 0 else "fold"), outcomes
        if kind == "protected":
            check_protected_hand(no_ante, no_ante[2], hand)
        else:
            result = result_of(no_ante[0], hand)
            assert (
                result.final_stacks[no_ante[2].seat]
                == seat_of(hand_messages(no_ante[2], hand)[0].snapshot, no_ante[2].seat).stack
            )
    assert outcomes["none"][-1][2] == "fold"
    check_privacy(with_ante)
    check_privacy(no_ante)


async def test_memaid_clock_always_protects_even_when_he_could_check(engine: Engine) -> None:
    # A and B check fourth street, then A bets and B calls; P plays third street himself, then
    # lets his clock act: on fourth street he could check, yet he is protected.
    a_plays = by_street(caller, caller, bettor)
    b_plays = by_street(caller, caller, caller)
    p_plays = by_street(caller, passive, passive)
    players = await open_table(
        engine,
        "memaid-clock",
        [a_plays, b_plays, p_plays],
        profile="memaid",
        overrides={"action_seconds": CLOCK},
    )
    a, _, p = players
    try:
        await a.wait_for(is_event("hand_ended", 1), timeout=20)
        await pause(engine, "memaid-clock")
    finally:
        for player in players:
            await player.close()

    acted = timeouts_of(p, 1)
    view, kind, _ = acted[0]
    assert view.street == S.STREET_FOURTH
    assert K.ACTION_KIND_CHECK in [x.kind for x in view.legal_actions]
    assert kind == "protected"
    assert len(acted) == 1, acted  # never asked to bet again
    check_protected_hand(players, p, 1)
    # He keeps his turn at the ordered showdown, and there his clock shows his hand.
    result = result_of(a, 1)
    assert not result.won_by_fold and p.seat in [shown.seat for shown in result.shown]
    assert a.events("card_burned", 1), "memaid burns before fourth street on"
    check_privacy(players)


# ---------------------------------------------------------------------------- disconnecting


async def test_a_dropped_player_is_acted_for_then_reconnects_to_a_fresh_snapshot_and_plays_on(
    engine: Engine,
) -> None:
    # Nobody bets, so the clock checks for whoever is away. X plays third street, then his
    # client drops its stream at the start of fourth street.
    x_plays = by_street(caller, passive, passive)
    players = await open_table(
        engine, "drop", [caller, caller, x_plays], overrides={"action_seconds": 0.5}
    )
    a, _, x = players
    try:
        fourth = await x.wait_for(
            with_event("street_started", lambda e: e.street == S.STREET_FOURTH),
            timeout=20,
        )
        hand = fourth.snapshot.hand_number
        mark = len(a.messages)
        await x.disconnect()
        away = await a.wait_for(
            with_event("connection_changed", lambda e: e.seat == x.seat),
            after=mark,
            timeout=5,
        )
        assert not event_of(away, "connection_changed").connection_changed.connected
        assert not seat_of(away.snapshot, x.seat).connected
        assert seat_of(away.snapshot, x.seat).in_hand
        # He stays in the hand: his clock checks for him.
        acted = await a.wait_for(
            with_event("action_taken", lambda e: e.seat == x.seat and e.timed_out),
            timeout=10,
        )
        timed_out = event_of(acted, "action_taken")
        assert timed_out.action_taken.kind == K.ACTION_KIND_CHECK
        assert timed_out.hand_number == hand

        # He comes back: a fresh snapshot first (no event), the whole table as it stands.
        x.decide = caller
        fresh = await x.connect()
        assert not fresh.events and not fresh.HasField("event")
        snap = fresh.snapshot
        assert snap.viewer_seat == x.seat and snap.hand_in_progress and snap.hand_number == hand
        mine = seat_of(snap, x.seat)
        assert mine.in_hand and not mine.folded and mine.connected
        assert len(mine.down_cards) == mine.down_card_count >= 2 and len(mine.up_cards) >= 2
        assert [s.number for s in snap.seats] == [1, 2, 3]
        assert snap.seed.commitment and snap.nonce == 0 and snap.pot_total > 0
        # It is the same table the others see at that sequence number.
        same = await a.wait_for(lambda m: m.sequence == fresh.sequence, timeout=5)
        assert public_part(same)[1] == public_part(fresh)[1]
        back = await a.wait_for(
            with_event("connection_changed", lambda e: e.seat == x.seat and e.connected),
            after=a.messages.index(away),
            timeout=5,
        )
        assert seat_of(back.snapshot, x.seat).connected

        # He plays on in the same hand, by himself.
        ended = await a.wait_for(is_event("hand_ended", hand), timeout=20)
        await pause(engine, "drop")
    finally:
        for player in players:
            await player.close()
    assert any(
        answer.action.seat == x.seat and answer.sequence > fresh.sequence for answer in x.answers
    )
    result = event_of(ended, "hand_ended").hand_ended.result
    assert not result.won_by_fold and x.seat in [shown.seat for shown in result.shown]
    assert sum(result.final_stacks.values()) + result.rake == 300
    check_privacy(players)
