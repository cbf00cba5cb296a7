"""Bot clients for the engine tests: a real WatchTable stream per player, recorded, and Act.

A :class:`Player` opens its own gRPC channel, reads its stream in a task, keeps
every message, and (with a :data:`Decide` strategy) acts whenever a turn of its
own starts. Tests wait for what they expect with :meth:`Player.wait_for` (always
under a deadline) and check the record afterwards with the helpers below:
:func:`check_privacy` (no hidden card leaks), :func:`public_part` (what every
seat must agree on) and :func:`error_info` (the ``ErrorInfo`` of a refusal).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from stud.v1 import (
    admin_service_pb2,
    events_pb2,
    settings_pb2,
    table_pb2,
    table_service_pb2,
    table_service_pb2_grpc,
)

if TYPE_CHECKING:
    from tests.engine_server.api.conftest import Engine

__all__ = [
    "Decide",
    "HandTruth",
    "Player",
    "StreamPlayer",
    "act_request",
    "action",
    "at_sequence",
    "bettor",
    "caller",
    "check_privacy",
    "error_info",
    "event_kinds",
    "event_of",
    "has_event",
    "is_event",
    "open_table",
    "own_seat",
    "passive",
    "pause",
    "public_part",
    "randomly",
    "resume",
    "seat_of",
    "seat_players",
    "with_event",
]

#: a strategy: what to do on one's turn, ``(kind, amount or None)``, or ``None`` to let the
#: clock act
Decide = Callable[[table_pb2.TableSnapshot], tuple[int, int | None] | None]

CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
K = table_pb2


def action(snapshot: table_pb2.TableSnapshot, kind: int) -> tuple[int, int | None] | None:
    """``kind`` if it is legal, with the smallest legal size where a size must be named."""
    for legal in snapshot.legal_actions:
        if legal.kind == kind:
            sized = legal.min_amount != legal.max_amount
            return kind, (legal.min_amount if sized else None)
    return None


def passive(snapshot: table_pb2.TableSnapshot) -> tuple[int, int | None] | None:
    """Never acts: the clock acts for him."""
    return None


def _first(snapshot: table_pb2.TableSnapshot, *kinds: int) -> tuple[int, int | None] | None:
    for kind in kinds:
        chosen = action(snapshot, kind)
        if chosen is not None:
            return chosen
    return None


def caller(snapshot: table_pb2.TableSnapshot) -> tuple[int, int | None] | None:
    """Checks or calls; posts the smallest bring-in; always shows at a showdown."""
    return _first(
        snapshot,
        K.ACTION_KIND_CHECK,
        K.ACTION_KIND_CALL,
        K.ACTION_KIND_BRING_IN,
        K.ACTION_KIND_SHOW,
        K.ACTION_KIND_FOLD,
    )


def bettor(snapshot: table_pb2.TableSnapshot) -> tuple[int, int | None] | None:
    """Bets, completes or raises when he may, else checks or calls."""
    return _first(
        snapshot,
        K.ACTION_KIND_BET,
        K.ACTION_KIND_COMPLETE,
        K.ACTION_KIND_RAISE,
        K.ACTION_KIND_CHECK,
        K.ACTION_KIND_CALL,
        K.ACTION_KIND_BRING_IN,
        K.ACTION_KIND_SHOW,
    )


def randomly(rng: random.Random, fold: float = 0.08, aggression: float = 0.25) -> Decide:
    """Mostly checks and calls, sometimes bets or raises, seldom folds (hands reach showdowns)."""

    def decide(snapshot: table_pb2.TableSnapshot) -> tuple[int, int | None] | None:
        roll = rng.random()
        if roll < fold and action(snapshot, K.ACTION_KIND_CHECK) is None:
            chosen = action(snapshot, K.ACTION_KIND_FOLD)
            if chosen is not None:
                return chosen
        if roll > 1 - aggression:
            chosen = _first(
                snapshot, K.ACTION_KIND_BET, K.ACTION_KIND_COMPLETE, K.ACTION_KIND_RAISE
            )
            if chosen is not None:
                return chosen
        return caller(snapshot)

    return decide


def error_info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    """The one ``google.rpc.ErrorInfo`` a refusal carries (fails the test if it has none)."""
    status = rpc_status.from_call(error)
    assert status is not None, f"no google.rpc.Status in {error!r}"
    assert len(status.details) == 1, status
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info), status.details[0]
    assert info.domain == "stud.v1"
    return info


def act_request(
    hand_number: int, kind: int, amount: int | None = None, action_id: str = "", table: str = ""
) -> table_service_pb2.ActRequest:
    """An ActRequest (a fresh action id unless one is given; no table: a Play stream's own)."""
    request = table_service_pb2.ActRequest(
        table=table,
        hand_number=hand_number,
        kind=kind,  # type: ignore[arg-type]
        action_id=action_id or uuid.uuid4().hex,
    )
    if amount is not None:
        request.amount = amount
    return request


@dataclass
class Player:
    """One player's client: his own channel, his WatchTable stream (recorded), and Act."""

    player_id: str
    address: str
    table: str
    metadata: tuple[tuple[str, str], ...]
    decide: Decide = passive
    messages: list[table_service_pb2.WatchTableResponse] = field(default_factory=list)
    #: every answer to an Act this client sent, and every refusal
    answers: list[table_service_pb2.ActResponse] = field(default_factory=list)
    refusals: list[grpc.aio.AioRpcError] = field(default_factory=list)
    #: how the last stream ended: None while it runs, else its status code (and error)
    ended: grpc.StatusCode | None = None
    error: grpc.aio.AioRpcError | None = None
    #: the index in ``messages`` where each stream began
    stream_starts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.channel = grpc.aio.insecure_channel(self.address)
        self.stub = table_service_pb2_grpc.TableServiceStub(self.channel)
        self._call: Any = None
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    @property
    def seat(self) -> int:
        return self.messages[self.stream_starts[-1]].snapshot.viewer_seat

    @property
    def last(self) -> table_service_pb2.WatchTableResponse:
        return self.messages[-1]

    async def connect(self, timeout: float = 10.0) -> table_service_pb2.WatchTableResponse:
        """Open a WatchTable stream; returns its first message (the full snapshot).

        Raises the stream's error if it ends before sending anything.
        """
        start = len(self.messages)
        self.stream_starts.append(start)
        self.ended = self.error = None
        self._call = await self._open()
        self._task = asyncio.create_task(self._read(self._call), name=f"watch:{self.player_id}")
        try:
            return await self.wait_for(lambda m: True, after=start, timeout=timeout)
        except AssertionError:
            if self.error is not None and len(self.messages) == start:
                self.stream_starts.pop()
                raise self.error from None
            raise

    async def disconnect(self) -> None:
        """Cancel the stream (the client goes away)."""
        if self._call is not None:
            self._call.cancel()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._call = self._task = None

    async def close(self) -> None:
        await self.disconnect()
        await self.channel.close()

    async def _open(self) -> Any:
        return self.stub.WatchTable(
            table_service_pb2.WatchTableRequest(table=self.table), metadata=self.metadata
        )

    async def _read(self, call: Any) -> None:
        try:
            first = True
            async for message in call:
                await self._received(message, first=first)
                first = False
            self.ended = grpc.StatusCode.OK
        except grpc.aio.AioRpcError as error:
            self.ended, self.error = error.code(), error
        finally:
            self._notify()

    async def _received(
        self, message: table_service_pb2.WatchTableResponse, *, first: bool = False
    ) -> None:
        self.messages.append(message)
        self._notify()
        if self._my_turn_starts(message, first=first):
            chosen = self.decide(message.snapshot)
            if chosen is not None:
                await self.act(message.snapshot.hand_number, *chosen)

    def refusal_reasons(self) -> list[str]:
        """The ErrorInfo reason of every act refused so far."""
        return [error_info(error).reason for error in self.refusals]

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    @staticmethod
    def _my_turn_starts(message: table_service_pb2.WatchTableResponse, *, first: bool) -> bool:
        snap = message.snapshot
        if not snap.viewer_seat or snap.turn_seat != snap.viewer_seat or not snap.legal_actions:
            return False
        if first or not message.events:
            # A fresh stream that finds him to act (its first message may carry the end of a
            # hand a restart ended, but no turn of his).
            return True
        return any(
            event.WhichOneof("kind") == "turn_started"
            and event.turn_started.seat == snap.viewer_seat
            for event in message.events
        )

    async def act(
        self, hand_number: int, kind: int, amount: int | None = None, action_id: str = ""
    ) -> table_service_pb2.ActResponse | None:
        """Act; a refusal for a stale view (FAILED_PRECONDITION) is recorded, not raised."""
        request = act_request(hand_number, kind, amount, action_id, self.table)
        try:
            answer: table_service_pb2.ActResponse = await self.stub.Act(
                request, metadata=self.metadata
            )
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            self.refusals.append(error)
            return None
        self.answers.append(answer)
        return answer

    async def wait_for(
        self,
        predicate: Callable[[table_service_pb2.WatchTableResponse], bool],
        *,
        after: int = 0,
        timeout: float = 10.0,
    ) -> table_service_pb2.WatchTableResponse:
        """The first message at index ``after`` or later that satisfies ``predicate``."""
        index = after
        async with asyncio.timeout(timeout):
            while True:
                changed = self._changed
                while index < len(self.messages):
                    if predicate(self.messages[index]):
                        return self.messages[index]
                    index += 1
                if self._task is None or self._task.done():
                    raise AssertionError(f"{self.player_id}: the stream ended ({self.ended})")
                await changed.wait()

    async def wait_until_ended(self) -> None:
        """Until the server ends the stream (the caller bounds the wait)."""
        while self._task is not None and not self._task.done():
            await self._changed.wait()

    def events(self, kind: str, hand_number: int | None = None) -> list[events_pb2.Event]:
        """This client's events of one kind (of one hand)."""
        return [
            event
            for m in self.messages
            for event in m.events
            if event.WhichOneof("kind") == kind
            and (hand_number is None or event.hand_number == hand_number)
        ]


@dataclass
class StreamPlayer(Player):
    """A player on one Play stream: his seat view and his acts on the same call."""

    #: every ActResult the stream sent (refusals, and repeated action ids' first answers)
    results: list[table_service_pb2.ActResult] = field(default_factory=list)

    async def _open(self) -> Any:
        call = self.stub.Play(metadata=self.metadata)
        await call.write(
            table_service_pb2.PlayRequest(
                watch=table_service_pb2.WatchTableRequest(table=self.table)
            )
        )
        return call

    async def _read(self, call: Any) -> None:
        try:
            first = True
            async for response in call:
                if response.WhichOneof("response") == "update":
                    await self._received(response.update, first=first)
                    first = False
                else:
                    self.results.append(response.act)
                    self._notify()
            self.ended = grpc.StatusCode.OK
        except grpc.aio.AioRpcError as error:
            self.ended, self.error = error.code(), error
        finally:
            self._notify()

    async def act(
        self, hand_number: int, kind: int, amount: int | None = None, action_id: str = ""
    ) -> table_service_pb2.ActResponse | None:
        """Send an act on the stream (its answer comes on the stream: an update or a result)."""
        request = act_request(hand_number, kind, amount, action_id)
        await self.send(table_service_pb2.PlayRequest(act=request))
        return None

    async def send(self, request: table_service_pb2.PlayRequest) -> None:
        with contextlib.suppress(asyncio.InvalidStateError):  # the stream has just ended
            await self._call.write(request)

    async def result_for(
        self, action_id: str, *, after: int = 0, timeout: float = 10.0
    ) -> table_service_pb2.ActResult:
        """The first ActResult for ``action_id`` the stream sent, from result ``after`` on."""
        async with asyncio.timeout(timeout):
            while True:
                changed = self._changed
                for result in self.results[after:]:
                    if result.action_id == action_id:
                        return result
                if self._task is None or self._task.done():
                    raise AssertionError(f"{self.player_id}: the stream ended ({self.ended})")
                await changed.wait()

    def refusal_reasons(self) -> list[str]:
        return [r.refused.reason for r in self.results if r.HasField("refused")]


def event_kinds(message: table_service_pb2.WatchTableResponse) -> list[str]:
    """The kinds of the change's events, in order (none in a stream's first message)."""
    return [event.WhichOneof("kind") or "" for event in message.events]


def has_event(
    message: table_service_pb2.WatchTableResponse, kind: str, hand_number: int | None = None
) -> bool:
    """Whether the message's change holds an event of this kind (in this hand)."""
    return any(
        event.WhichOneof("kind") == kind
        and (hand_number is None or event.hand_number == hand_number)
        for event in message.events
    )


def event_of(message: table_service_pb2.WatchTableResponse, kind: str) -> events_pb2.Event:
    """The message's first event of this kind (fails the test if it has none)."""
    for event in message.events:
        if event.WhichOneof("kind") == kind:
            return event
    raise AssertionError(f"no {kind} event at sequence {message.sequence}: {event_kinds(message)}")


def with_event(
    kind: str, check: Callable[[Any], bool] = lambda _: True
) -> Callable[[table_service_pb2.WatchTableResponse], bool]:
    """A predicate for :meth:`Player.wait_for`: a change holding an event of this kind whose
    content (``event.<kind>``) passes ``check``."""

    def predicate(message: table_service_pb2.WatchTableResponse) -> bool:
        return any(
            event.WhichOneof("kind") == kind and check(getattr(event, kind))
            for event in message.events
        )

    return predicate


# ------------------------------------------------------------------ tables


async def seat_players(
    engine: Engine,
    table_id: str,
    strategies: list[Decide],
    buy_in: int = 100,
    client: type[Player] = Player,
) -> list[Player]:
    """Seat one player per strategy (seats 1, 2, ...) and give each a client."""
    players = []
    for number, decide in enumerate(strategies, start=1):
        player_id = f"p{number}"
        await engine.seat(table_id, player_id, buy_in=buy_in, seat=number)
        players.append(
            client(
                player_id,
                engine.grpc_address,
                f"tables/{table_id}",
                engine.player_md(player_id),
                decide,
            )
        )
    return players


async def open_table(
    engine: Engine,
    table_id: str,
    strategies: list[Decide],
    *,
    buy_in: int = 100,
    client: type[Player] = Player,
    **create: Any,
) -> list[Player]:
    """A table whose first hand deals every player, each watching from its start."""
    await engine.create_table(table_id, **create)
    await pause(engine, table_id)
    players = await seat_players(engine, table_id, strategies, buy_in, client)
    for player in players:
        await player.connect()
    await resume(engine, table_id)
    return players


async def pause(engine: Engine, table_id: str) -> None:
    await engine.admin.PauseTable(
        admin_service_pb2.PauseTableRequest(name=f"tables/{table_id}", reason="test"),
        metadata=engine.admin_md,
    )


async def resume(engine: Engine, table_id: str) -> None:
    await engine.admin.ResumeTable(
        admin_service_pb2.ResumeTableRequest(name=f"tables/{table_id}"),
        metadata=engine.admin_md,
    )


def is_event(
    kind: str, hand_number: int | None = None
) -> Callable[[table_service_pb2.WatchTableResponse], bool]:
    """A predicate for :meth:`Player.wait_for`: an event of this kind (in this hand)."""

    def predicate(message: table_service_pb2.WatchTableResponse) -> bool:
        return has_event(message, kind, hand_number)

    return predicate


def at_sequence(
    sequence: int,
) -> Callable[[table_service_pb2.WatchTableResponse], bool]:
    """A predicate for :meth:`Player.wait_for`: the message of this change number (or later)."""
    return lambda message: message.sequence >= sequence


def seat_of(snapshot: table_pb2.TableSnapshot, number: int) -> table_pb2.Seat:
    return next(s for s in snapshot.seats if s.number == number)


# ------------------------------------------------------------------ public state


def public_part(message: table_service_pb2.WatchTableResponse) -> tuple[Any, ...]:
    """What every seat must see alike at one sequence number: the snapshot without the
    viewer's own cards, legal actions and clock reading, and the events without dealt
    down cards."""
    snap = table_pb2.TableSnapshot()
    snap.CopyFrom(message.snapshot)
    snap.ClearField("viewer_seat")
    snap.ClearField("legal_actions")
    snap.ClearField("server_time")
    for seat in snap.seats:
        seat.ClearField("down_cards")
        seat.ClearField("seat_session_id")
    events = []
    for shown in message.events:
        event = events_pb2.Event()
        event.CopyFrom(shown)
        for deal in event.cards_dealt.deals:
            deal.ClearField("down_cards")
        events.append(event.SerializeToString(deterministic=True))
    return (message.sequence, snap.SerializeToString(deterministic=True), tuple(events))


# ------------------------------------------------------------------ privacy


#: subtrees never holding a card of the running hand: the settings, and the shown hands
#: (checked on their own against what was dealt)
_SKIP = frozenset(
    {
        "stud.v1.TableSnapshot.settings",
        "stud.v1.TableSnapshot.last_hand",
        "stud.v1.TableSnapshot.seed",
        "stud.v1.Seat.shown_cards",
    }
)


#: per field: (walk into it as messages, look at it as strings, repeated); None: skip it
#: per field: (walk into it as messages, repeated); None: never holds a card
_FIELD_PLAN: dict[Any, tuple[bool, bool] | None] = {}


def _plan(descriptor: Any) -> tuple[bool, bool] | None:
    if descriptor not in _FIELD_PLAN:
        nested = descriptor.message_type
        plan: tuple[bool, bool] | None = None
        if descriptor.full_name in _SKIP or (nested is not None and nested.GetOptions().map_entry):
            plan = None  # maps hold seats and chips, never cards
        elif nested is not None:
            plan = (True, descriptor.is_repeated)
        elif descriptor.type == descriptor.TYPE_STRING:
            plan = (False, descriptor.is_repeated)
        _FIELD_PLAN[descriptor] = plan
    return _FIELD_PLAN[descriptor]


def _cards(message: Message) -> list[tuple[str, str]]:
    """Every card string anywhere in ``message`` (but in :data:`_SKIP`), with its field."""
    found: list[tuple[str, str]] = []
    pending = [message]
    while pending:
        for descriptor, value in pending.pop().ListFields():
            plan = _plan(descriptor)
            if plan is None:
                continue
            nested, repeated = plan
            if nested:
                if repeated:
                    pending.extend(value)
                else:
                    pending.append(value)
            else:
                for item in value if repeated else (value,):
                    if len(item) == 2 and CARD.match(item):
                        found.append((descriptor.full_name, item))
    return found


def own_seat(snap: table_pb2.TableSnapshot, player_id: str) -> int:
    """The viewer's seat if it is this player's (-1 otherwise: he may see nobody's cards).

    A seat number alone is not enough: a stream left open after its player left would
    show the seat's next occupant's cards as "his own".
    """
    for seat in snap.seats:
        if seat.number == snap.viewer_seat:
            return seat.number if seat.player_id == player_id else -1
    return -1


@dataclass
class HandTruth:
    """What really was dealt, from each seat's own stream: hand -> seat -> cards."""

    down: dict[int, dict[int, set[str]]] = field(default_factory=lambda: defaultdict(dict))
    up: dict[int, dict[int, set[str]]] = field(default_factory=lambda: defaultdict(dict))
    folded: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    #: hands that reached a showdown (cards were turned over)
    showdown: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, players: list[Player]) -> HandTruth:
        truth = cls()
        for player in players:
            for message in player.messages:
                snap = message.snapshot
                own = own_seat(snap, player.player_id)
                if snap.hand_in_progress:
                    for seat in snap.seats:
                        if seat.in_hand:
                            truth.up[snap.hand_number].setdefault(seat.number, set()).update(
                                seat.up_cards
                            )
                        if seat.number == own and seat.in_hand:
                            truth.down[snap.hand_number].setdefault(own, set()).update(
                                seat.down_cards
                            )
                        if seat.folded:
                            truth.folded[snap.hand_number].add(seat.number)
                for event in message.events:
                    for deal in event.cards_dealt.deals:
                        truth.up[event.hand_number].setdefault(deal.seat, set()).update(
                            deal.up_cards
                        )
                        if deal.seat == own:
                            truth.down[event.hand_number].setdefault(own, set()).update(
                                deal.down_cards
                            )
                    if event.WhichOneof("kind") == "action_taken" and (
                        event.action_taken.kind == K.ACTION_KIND_FOLD
                    ):
                        truth.folded[event.hand_number].add(event.action_taken.seat)
                    if event.WhichOneof("kind") == "cards_shown":
                        truth.showdown.add(event.hand_number)
        return truth

    def all_cards(self, hand: int, seat: int) -> set[str]:
        return self.down[hand].get(seat, set()) | self.up[hand].get(seat, set())

    def hidden_from(self, hand: int, viewer: int) -> set[str]:
        """The down cards of every other seat in ``hand``."""
        return {c for seat, cards in self.down[hand].items() if seat != viewer for c in cards}


def _check_shown(shown: table_pb2.ShownHand, hand: int, truth: HandTruth, where: str) -> None:
    assert shown.seat not in truth.folded[hand], f"{where}: folded seat {shown.seat} shown"
    if shown.seat in truth.down[hand]:
        # Everything he showed is what he was dealt (his own stream says what that was).
        assert set(shown.cards) == truth.all_cards(hand, shown.seat), where


def check_privacy(players: list[Player], truth: HandTruth | None = None) -> HandTruth:
    """Assert that no message any player received showed him a card he may not see.

    - ``snapshot.seats[*].down_cards``: only in the viewer's own seat;
    - ``seats[*].shown_cards``: only at the showdown, never for a folded seat;
    - ``cards_dealt`` down cards: only the viewer's; ``card_burned``: no card at all;
    - anywhere else (but the shown hands, checked against what was dealt), no card that is
      another seat's down card in that hand.
    """
    truth = truth or HandTruth.of(players)
    for player in players:
        # The updates of one change all carry the same snapshot: check each one once.
        checked: set[bytes] = set()
        for index, message in enumerate(player.messages):
            snap = message.snapshot
            viewer = own_seat(snap, player.player_id)
            where = f"{player.player_id} message {index} (sequence {message.sequence})"
            key = snap.SerializeToString(deterministic=True)
            if key not in checked:
                checked.add(key)
                _check_snapshot(snap, viewer, truth, where)
            for event in message.events:
                _check_event(event, viewer, truth, where)
            if message.events:
                # v0.1's single event is the change's first (its cause).
                assert message.event == message.events[0], where
    return truth


def _check_snapshot(
    snap: table_pb2.TableSnapshot, viewer: int, truth: HandTruth, where: str
) -> None:
    hand = snap.hand_number
    for seat in snap.seats:
        if seat.number != viewer:
            assert not seat.down_cards, f"{where}: seat {seat.number}'s down cards"
        else:
            assert len(seat.down_cards) == seat.down_card_count, where
        if seat.shown_cards:
            assert snap.street == settings_pb2.STREET_SHOWDOWN, where
            assert not seat.folded, f"{where}: folded seat {seat.number} shown"
            assert seat.number not in truth.folded[hand], where
    if snap.HasField("last_hand"):
        last = snap.last_hand
        if last.won_by_fold or last.cancelled:
            assert not last.shown, f"{where}: cards shown after a win by folds"
        for shown in last.shown:
            _check_shown(shown, last.hand_number, truth, where)
    # Every other card in the snapshot belongs to the running hand.
    hidden = truth.hidden_from(hand, viewer) if snap.hand_in_progress else set()
    for path, card in _cards(snap):
        assert snap.hand_in_progress, f"{where}: card {card} at {path} between hands"
        assert card not in hidden, f"{where}: hidden card {card} at {path}"


def _check_event(event: events_pb2.Event, viewer: int, truth: HandTruth, where: str) -> None:
    kind = event.WhichOneof("kind")
    hand = event.hand_number
    if kind == "card_burned":
        fields = [f.name for f, _ in event.card_burned.ListFields()]
        assert fields in (["street"], []), f"{where}: a burned card's content"
    elif kind == "cards_dealt":
        for deal in event.cards_dealt.deals:
            if deal.seat != viewer:
                assert not deal.down_cards, f"{where}: seat {deal.seat}'s down card"
    elif kind == "cards_shown":
        _check_shown(event.cards_shown.hand, hand, truth, where)
        return
    elif kind in ("hand_ended", "hand_cancelled", "hand_settled"):
        result = getattr(event, kind).result
        if result.won_by_fold or result.cancelled:
            assert not result.shown, f"{where}: cards shown after a win by folds"
        for shown in result.shown:
            _check_shown(shown, hand, truth, where)
        return
    hidden = truth.hidden_from(hand, viewer)
    for path, card in _cards(event):
        assert card not in hidden, f"{where}: hidden card {card} at event {path}"
