"""Domain values to ``stud.v1`` messages (and the few the other way).

Every card that reaches a message has already been filtered by the table
runtime's views (:meth:`TableRuntime.view`) and the event redaction; this
module only changes shape.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Generic, Literal, TypeVar

from google.protobuf import struct_pb2, timestamp_pb2
from stud.v1 import events_pb2, settings_pb2, table_pb2

from engine_server.game import events as hand_events
from engine_server.game.actions import ActionKind, LegalAction
from engine_server.game.cards import format_card, format_cards
from engine_server.game.hand import HandResult
from engine_server.game.profiles import Rake, RuleSettings, Stakes, Street
from engine_server.game.views import HiddenCardDealt
from engine_server.table import events as table_events
from engine_server.table.model import (
    LastHand,
    OwnPart,
    SeatInfo,
    SeatStatus,
    SessionSnapshot,
    TableConfig,
    TableStatus,
    TableView,
    TournamentInfo,
    TournamentView,
)

__all__ = [
    "ACTION_FROM_PROTO",
    "add_own_part",
    "event_message",
    "hand_result_message",
    "legal_action_message",
    "rake_from_message",
    "rake_message",
    "result_message",
    "seat_message",
    "session_message",
    "settings_message",
    "snapshot_message",
    "table_status_message",
    "timestamp",
    "tournament_info_from_message",
    "tournament_state_message",
]

ACTION_TO_PROTO = {
    ActionKind.FOLD: table_pb2.ACTION_KIND_FOLD,
    ActionKind.CHECK: table_pb2.ACTION_KIND_CHECK,
    ActionKind.CALL: table_pb2.ACTION_KIND_CALL,
    ActionKind.BET: table_pb2.ACTION_KIND_BET,
    ActionKind.RAISE: table_pb2.ACTION_KIND_RAISE,
    ActionKind.COMPLETE: table_pb2.ACTION_KIND_COMPLETE,
    ActionKind.BRING_IN: table_pb2.ACTION_KIND_BRING_IN,
    ActionKind.SHOW: table_pb2.ACTION_KIND_SHOW,
    ActionKind.MUCK: table_pb2.ACTION_KIND_MUCK,
}
ACTION_FROM_PROTO = {value: kind for kind, value in ACTION_TO_PROTO.items()}

STREET_TO_PROTO: dict[Street, Any] = {
    Street.THIRD: settings_pb2.STREET_THIRD,
    Street.FOURTH: settings_pb2.STREET_FOURTH,
    Street.FIFTH: settings_pb2.STREET_FIFTH,
    Street.SIXTH: settings_pb2.STREET_SIXTH,
    Street.SEVENTH: settings_pb2.STREET_SEVENTH,
}

STATUS_TO_PROTO = {
    TableStatus.WAITING: table_pb2.TABLE_STATUS_WAITING,
    TableStatus.PLAYING: table_pb2.TABLE_STATUS_PLAYING,
    TableStatus.PAUSING: table_pb2.TABLE_STATUS_PAUSING,
    TableStatus.PAUSED: table_pb2.TABLE_STATUS_PAUSED,
    TableStatus.CLOSING: table_pb2.TABLE_STATUS_CLOSING,
    TableStatus.CLOSED: table_pb2.TABLE_STATUS_CLOSED,
}
STATUS_FROM_PROTO = {value: status for status, value in STATUS_TO_PROTO.items()}

SEAT_STATUS_TO_PROTO = {
    SeatStatus.SEATED: table_pb2.SEAT_STATUS_SEATED,
    SeatStatus.SITTING_OUT: table_pb2.SEAT_STATUS_SITTING_OUT,
    SeatStatus.LEAVING: table_pb2.SEAT_STATUS_LEAVING,
}

CLOSE_REASON_TO_PROTO: dict[str, Any] = {
    "left": table_pb2.SEAT_SESSION_CLOSE_REASON_LEFT,
    "removed": table_pb2.SEAT_SESSION_CLOSE_REASON_REMOVED,
    "table_closed": table_pb2.SEAT_SESSION_CLOSE_REASON_TABLE_CLOSED,
    "busted": table_pb2.SEAT_SESSION_CLOSE_REASON_BUSTED,
    "moved": table_pb2.SEAT_SESSION_CLOSE_REASON_MOVED,
}


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def timestamp(moment: datetime) -> timestamp_pb2.Timestamp:
    """``moment`` as a Timestamp (a naive datetime is taken as UTC, as FromDatetime does).

    Done in integers: ``Timestamp.FromDatetime`` is pure Python and every snapshot has one.

    >>> stamp = timestamp(datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=UTC))
    >>> (stamp.seconds, stamp.nanos) == (1735787045, 678901000)
    True
    >>> reference = timestamp_pb2.Timestamp()
    >>> reference.FromDatetime(datetime(1969, 12, 31, 23, 59, 59, 500000))
    >>> timestamp(datetime(1969, 12, 31, 23, 59, 59, 500000)) == reference
    True
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - _EPOCH
    return timestamp_pb2.Timestamp(
        seconds=delta.days * 86_400 + delta.seconds, nanos=delta.microseconds * 1000
    )


K = TypeVar("K")
M = TypeVar("M")


class _LastConverted(Generic[K, M]):
    """The message of each table's latest value of one kind (its settings, its last hand's
    result, each of its seats), by key ((table id, seat number) or (table id, 0)).

    Between two changes of a table most of what its snapshots carry is as it was: each value is
    converted once and copied (in C) into every snapshot showing it. Only the latest value of
    each key is ever asked for again, so that is all that is kept: about eight messages a table
    (a cached protobuf message costs about 1.6 KiB, its arena included; a node-wide cache of
    16,384 seat states and 4,096 hands' results held 50-100 MiB at 300 busy tables, most of it
    for states no table showed any more: BENCHMARKS.md, "Memory of a busy table"). ``size``
    caps the keys of tables gone from the node, the oldest first. The messages are shared:
    callers copy them, never change them.
    """

    def __init__(self, build: Callable[[K], M], size: int = 16_384) -> None:
        self._build = build
        self._size = size
        self._entries: dict[tuple[str, int], tuple[K, M]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __call__(self, key: tuple[str, int], value: K) -> M:
        entries = self._entries
        entry = entries.get(key)
        if entry is not None and (entry[0] is value or entry[0] == value):
            return entry[1]
        message = self._build(value)
        if entry is None and len(entries) >= self._size:
            del entries[next(iter(entries))]
        entries[key] = (value, message)
        return message


def table_status_message(status: TableStatus) -> Any:
    return STATUS_TO_PROTO[status]


def _enum_value(enum_type: Any, prefix: str, value: object) -> Any:
    return enum_type.Value(f"{prefix}_{str(value).upper()}")


def rake_message(rake: Rake | None) -> settings_pb2.Rake | None:
    """The engine's :class:`Rake` as a ``stud.v1.Rake`` (``None`` for no rake)."""
    if rake is None:
        return None
    if rake.percent is not None:
        percent = settings_pb2.RakePercent(percent=float(rake.percent), per_round=rake.per_round)
        if rake.cap is not None:
            percent.cap = rake.cap
        return settings_pb2.Rake(percent=percent)
    if rake.by_players:
        brackets = [
            settings_pb2.RakePlayerBracket(
                min_players=bracket.min_players,
                max_players=bracket.max_players,
                schedule=_schedule_message(bracket.schedule),
            )
            for bracket in rake.by_players
        ]
        return settings_pb2.Rake(by_players=settings_pb2.RakeByPlayers(brackets=brackets))
    return settings_pb2.Rake(schedule=_schedule_message(rake.schedule))


def _schedule_message(schedule: tuple[tuple[int, int], ...]) -> settings_pb2.RakeSchedule:
    steps = [settings_pb2.RakeStep(pot_at_least=a, rake=b) for a, b in schedule]
    return settings_pb2.RakeSchedule(steps=steps)


def _schedule_json(message: settings_pb2.RakeSchedule) -> list[list[int]]:
    return [[step.pot_at_least, step.rake] for step in message.steps]


def rake_from_message(message: settings_pb2.Rake) -> Rake | None:
    """A ``stud.v1.Rake`` (a table's ``settings.rules.rake``) as the engine's :class:`Rake`.

    ``None`` when no kind is set (the table takes no rake). The message is checked as the
    rake object of docs/hand-scripts.md §2 is (:class:`~engine_server.game.profiles.ProfileError`
    naming the field under ``rules.rake``), so what a client reads back is what the engine
    plays.

    >>> rake = Rake.from_json({"by_players": [
    ...     {"min_players": 2, "max_players": 3, "schedule": [[20, 1]]},
    ...     {"min_players": 4, "max_players": 9, "schedule": [[20, 1], [30, 2]]}]}, "rake")
    >>> rake_from_message(rake_message(rake)) == rake
    True
    """
    kind = message.WhichOneof("kind")
    value: dict[str, Any]
    if kind is None:
        return None
    if kind == "percent":
        percent = message.percent
        value = {
            "percent": percent.percent,
            "per_round": percent.per_round,
            "cap": percent.cap if percent.HasField("cap") else None,
        }
    elif kind == "schedule":
        value = {"schedule": _schedule_json(message.schedule)}
    else:
        value = {
            "by_players": [
                {
                    "min_players": bracket.min_players,
                    "max_players": bracket.max_players,
                    "schedule": _schedule_json(bracket.schedule),
                }
                for bracket in message.by_players.brackets
            ]
        }
    return Rake.from_json(value, "rules.rake")


def _rules_message(settings: RuleSettings) -> settings_pb2.Rules:
    rules = settings_pb2.Rules(
        max_players=settings.max_players,
        dealing=_enum_value(settings_pb2.Dealing, "DEALING", settings.dealing),
        burns=[STREET_TO_PROTO[s] for s in settings.burns],
        bring_in=_enum_value(settings_pb2.BringInRule, "BRING_IN_RULE", settings.bring_in),
        bring_in_last_option=settings.bring_in_last_option,
        open_pair_big_bet=settings.open_pair_big_bet,
        max_raises=settings.max_raises,
        heads_up_uncapped_seventh=settings.heads_up_uncapped_seventh,
        timeout=_enum_value(settings_pb2.TimeoutRule, "TIMEOUT_RULE", settings.timeout),
        showdown=_enum_value(settings_pb2.ShowdownRule, "SHOWDOWN_RULE", settings.showdown),
        short_deck=_enum_value(
            settings_pb2.ShortDeckRule, "SHORT_DECK_RULE", settings.short_deck or "none"
        ),
        hi_lo=settings.hi_lo,
        action_seconds=settings.action_seconds,
        reconnect_extra_seconds=settings.reconnect_extra_seconds,
        winner_may_show=settings.winner_may_show,
    )
    rake = rake_message(settings.rake)
    if rake is not None:
        rules.rake.CopyFrom(rake)
    return rules


def stakes_message(stakes: Stakes) -> settings_pb2.Stakes:
    return settings_pb2.Stakes(
        ante=stakes.ante,
        bring_in=stakes.bring_in,
        small_bet=stakes.small_bet,
        big_bet=stakes.big_bet,
    )


def settings_message(config: TableConfig) -> settings_pb2.TableSettings:
    overrides = struct_pb2.Struct()
    overrides.update(config.rule_overrides)
    return settings_pb2.TableSettings(
        profile=config.settings.name,
        rules=_rules_message(config.settings),
        rule_overrides=overrides,
        stakes=stakes_message(config.stakes),
        private=config.private,
        min_buy_in=config.min_buy_in,
        max_buy_in=config.max_buy_in,
        tournament=None
        if config.tournament is None
        else settings_pb2.TournamentTable(
            tournament_id=config.tournament.tournament_id,
            table_name=config.tournament.table_name,
            table_number=config.tournament.table_number,
        ),
    )


def tournament_info_message(info: TournamentInfo) -> table_pb2.TournamentInfo:
    message = table_pb2.TournamentInfo(
        level=info.level,
        hands_to_next_level=info.hands_to_next_level,
        players_left=info.players_left,
        entrants=info.entrants,
        average_stack=info.average_stack,
        prize_pool=info.prize_pool,
        hand_for_hand=info.hand_for_hand,
        places_paid=info.places_paid,
    )
    if info.stakes is not None:
        message.stakes.CopyFrom(stakes_message(info.stakes))
    if info.next_stakes is not None:
        message.next_stakes.CopyFrom(stakes_message(info.next_stakes))
    if info.next_level_time is not None:
        message.next_level_time.CopyFrom(timestamp(info.next_level_time))
    return message


def tournament_info_from_message(message: table_pb2.TournamentInfo) -> TournamentInfo:
    """SetTournamentInfo's info as the table keeps it (unset messages: None)."""

    def stakes(field: Literal["stakes", "next_stakes"]) -> Stakes | None:
        if not message.HasField(field):
            return None
        value = getattr(message, field)
        return Stakes(value.ante, value.bring_in, value.small_bet, value.big_bet)

    return TournamentInfo(
        level=message.level,
        stakes=stakes("stakes"),
        next_level_time=message.next_level_time.ToDatetime(tzinfo=UTC)
        if message.HasField("next_level_time")
        else None,
        hands_to_next_level=message.hands_to_next_level,
        next_stakes=stakes("next_stakes"),
        players_left=message.players_left,
        entrants=message.entrants,
        average_stack=message.average_stack,
        prize_pool=message.prize_pool,
        hand_for_hand=message.hand_for_hand,
        places_paid=message.places_paid,
    )


def tournament_state_message(view: TournamentView) -> table_pb2.TournamentState:
    message = table_pb2.TournamentState(
        level=view.level, next_level=view.next_level, hand_held=view.hand_held
    )
    if view.next_stakes is not None:
        message.next_stakes.CopyFrom(stakes_message(view.next_stakes))
    if view.info is not None:
        message.info.CopyFrom(tournament_info_message(view.info))
    return message


def legal_action_message(
    action: LegalAction, stack_total: int | None = None
) -> table_pb2.LegalAction:
    message = table_pb2.LegalAction(
        kind=ACTION_TO_PROTO[action.kind],
        min_amount=action.min_to,
        max_amount=action.max_to,
        amounts=list(action.sizes),
    )
    if stack_total is not None and action.min_to and action.min_to >= stack_total:
        message.all_in = True
    return message


def _seat_message(info: SeatInfo) -> table_pb2.Seat:
    return table_pb2.Seat(
        number=info.number,
        player_id=info.player_id,
        display_name=info.display_name,
        stack=info.stack,
        status=SEAT_STATUS_TO_PROTO[info.status],
        connected=info.connected,
        in_hand=info.in_hand,
        folded=info.folded,
        all_in=info.all_in,
        all_in_protected=info.protected,
        bet_this_street=info.bet,
        total_bet=info.total_bet,
        up_cards=format_cards(info.up_cards),
        down_card_count=info.down_count,
        down_cards=format_cards(info.down_cards),
        shown_cards=format_cards(info.shown_cards),
        seat_session_id=info.session_id,
    )


def _shown_hand(
    seat: int, cards: tuple[int, ...], result: HandResult | None
) -> table_pb2.ShownHand:
    shown = table_pb2.ShownHand(seat=seat, cards=format_cards(cards))
    hand = result.hands.get(seat) if result is not None else None
    if hand is not None:
        shown.high.category = _enum_value(table_pb2.HandCategory, "HAND_CATEGORY", hand.category)
        shown.high.best_five.extend(format_cards(hand.cards))
        if hand.low:
            shown.low.cards.extend(format_cards(hand.low))
    return shown


def hand_result_message(last: LastHand) -> table_pb2.HandResult:
    message = table_pb2.HandResult(
        hand_number=last.hand_number,
        nonce=last.nonce,
        cancelled=last.cancelled,
        end_time=timestamp(last.ended_at),
    )
    result = last.result
    if result is None:
        # A cancelled hand: every chip put in went back.
        for seat, chips in sorted(last.returned.items()):
            message.returned[seat] = chips
        for seat, chips in sorted(last.final_stacks.items()):
            message.final_stacks[seat] = chips
        return message
    message.won_by_fold = result.won_by_fold
    rake_left = result.rake
    for pot in result.pots:
        taken = min(rake_left, pot.amount)
        rake_left -= taken
        message.pots.append(
            table_pb2.PotResult(
                amount=pot.amount,
                rake=taken,
                eligible_seats=list(pot.eligible),
                winners=list(pot.winners),
                awards=[
                    table_pb2.Award(seat=seat, amount=chips, share=table_pb2.POT_SHARE_WHOLE)
                    for seat, chips in sorted(pot.awards.items())
                ],
            )
        )
    for seat, chips in result.returned.items():
        message.returned[seat] = chips
    message.rake = result.rake
    for seat, cards in sorted(result.shown.items()):
        message.shown.append(_shown_hand(seat, cards, result))
    for seat, cards in sorted(last.shown_after.items()):
        message.shown.append(_shown_hand(seat, cards, None))
    message.community_cards.extend(format_cards(result.community_cards))
    for seat, chips in result.final_stacks.items():
        message.final_stacks[seat] = chips
    return message


_shared_settings: _LastConverted[TableConfig, settings_pb2.TableSettings] = _LastConverted(
    settings_message
)
_shared_result: _LastConverted[LastHand, table_pb2.HandResult] = _LastConverted(hand_result_message)
_shared_seat: _LastConverted[SeatInfo, table_pb2.Seat] = _LastConverted(_seat_message)


def seat_message(info: SeatInfo, table_id: str = "") -> table_pb2.Seat:
    """The message of a seat in this state; with ``table_id``, the one shared while the seat
    is in this state: copy it, never change it."""
    if not table_id:
        return _seat_message(info)
    return _shared_seat((table_id, info.number), info)


def result_message(last_hand: LastHand, table_id: str = "") -> table_pb2.HandResult:
    """A table's last hand's result; with ``table_id``, the one shared while it is the table's
    last: copy it, never change it."""
    if not table_id:
        return hand_result_message(last_hand)
    return _shared_result((table_id, 0), last_hand)


def snapshot_message(view: TableView, *, seats: bool = True) -> table_pb2.TableSnapshot:
    """``view`` as a ``stud.v1.TableSnapshot`` (without its seats if ``seats`` is false)."""
    stack_of = {s.number: s.stack + s.bet for s in view.seats}
    table_id = view.config.table_id
    snapshot = table_pb2.TableSnapshot(
        table=view.config.name,
        settings=_shared_settings((table_id, 0), view.config),
        status=STATUS_TO_PROTO[view.status],
        viewer_seat=view.viewer_seat or 0,
        seats=[_shared_seat((table_id, info.number), info) for info in view.seats] if seats else (),
        button_seat=view.button or 0,
        hand_number=view.hand_number,
        hand_in_progress=view.hand_in_progress,
        street=(
            settings_pb2.STREET_SHOWDOWN
            if view.showdown
            else STREET_TO_PROTO.get(view.street, 0)  # type: ignore[arg-type]
            if view.street
            else 0
        ),
        pots=[table_pb2.Pot(amount=a, eligible_seats=list(e)) for a, e in view.pots],
        street_bet=view.street_bet,
        bring_in_seat=view.bring_in_seat or 0,
        turn_seat=view.turn_seat or 0,
        legal_actions=[
            legal_action_message(a, stack_of.get(view.viewer_seat or 0)) for a in view.legal_actions
        ],
        community_cards=format_cards(view.community_cards),
        seed=table_pb2.SeedPair(
            commitment=view.commitment, client_seed=view.client_seed, hands_dealt=view.hands_dealt
        ),
        nonce=view.nonce or 0,
        next_commitment=view.next_commitment,
        server_time=timestamp(view.server_time),
        pot_total=sum(a for a, _ in view.pots) + sum(s.bet for s in view.seats),
        watchers=view.watchers,
    )
    if view.tournament is not None:
        snapshot.tournament.CopyFrom(tournament_state_message(view.tournament))
    if view.turn_deadline is not None:
        snapshot.turn_deadline.CopyFrom(timestamp(view.turn_deadline))
    if view.last_hand is not None:
        snapshot.last_hand.CopyFrom(_shared_result((table_id, 0), view.last_hand))
    return snapshot


def add_own_part(snapshot: table_pb2.TableSnapshot, own: OwnPart) -> None:
    """Turn a public snapshot into ``own.seat``'s: his down cards and legal actions.

    The same as converting his own view (:func:`snapshot_message`), for a fraction of the
    work: a change's public snapshot is converted once and copied into every stream.
    """
    snapshot.viewer_seat = own.seat
    stack_total = None
    for seat in snapshot.seats:
        if seat.number == own.seat:
            seat.down_cards.extend(format_cards(own.down_cards))
            stack_total = seat.stack + seat.bet_this_street
            break
    snapshot.legal_actions.extend(
        legal_action_message(action, stack_total) for action in own.legal_actions
    )


def session_message(session: SessionSnapshot) -> table_pb2.SeatSession:
    message = table_pb2.SeatSession(
        seat_session_id=session.session_id,
        table=f"tables/{session.table_id}",
        player_id=session.player_id,
        display_name=session.display_name or session.player_id,
        seat=session.seat,
        state=(
            table_pb2.SEAT_SESSION_STATE_CLOSED
            if not session.open
            else table_pb2.SEAT_SESSION_STATE_CLOSING
            if session.closing
            else table_pb2.SEAT_SESSION_STATE_OPEN
        ),
        chips_in=session.chips_in,
        stack=session.stack,
        busted_hand_number=session.busted_hand_number,
        busted_start_stack=session.busted_start_stack,
    )
    if session.close_reason:
        message.close_reason = CLOSE_REASON_TO_PROTO.get(session.close_reason, 0)
    return message


def event_message(
    event: object,
    hand_number: int,
    moment: datetime,
    last_hand: LastHand | None = None,
    table_id: str = "",
) -> events_pb2.Event:
    """One update's event as a ``stud.v1.Event`` (already redacted for its viewer).

    ``last_hand`` completes the results of ``HandEnded`` and ``HandCancelled`` (converted
    once for the table ``table_id`` when given).
    """
    if isinstance(event, table_events.HandEndedOnLoad):
        return _ended_on_load_message(event, moment, last_hand, table_id)
    message = events_pb2.Event(time=timestamp(moment), hand_number=hand_number)
    _fill_event(message, event)
    if last_hand is not None and last_hand.hand_number == hand_number:
        if isinstance(event, hand_events.HandEnded):
            message.hand_ended.result.CopyFrom(result_message(last_hand, table_id))
        elif isinstance(event, hand_events.HandCancelled):
            message.hand_cancelled.result.CopyFrom(result_message(last_hand, table_id))
            message.hand_cancelled.reason = last_hand.reason
    return message


def _ended_on_load_message(
    event: table_events.HandEndedOnLoad,
    moment: datetime,
    last_hand: LastHand | None,
    table_id: str,
) -> events_pb2.Event:
    """The end of a hand a previous engine left running: ``HandCancelled`` or
    ``HandSettled``, numbered as that hand (a stream may open during the next one)."""
    message = events_pb2.Event(time=timestamp(moment), hand_number=event.hand_number)
    if last_hand is None or last_hand.hand_number != event.hand_number:
        return message  # the next hand has ended since: nothing to tell (never sent so)
    ended = message.hand_cancelled if last_hand.cancelled else message.hand_settled
    ended.reason = last_hand.reason
    ended.result.CopyFrom(result_message(last_hand, table_id))
    return message


def _fill_event(m: events_pb2.Event, e: object) -> None:
    if isinstance(e, table_events.HandBegan):
        m.hand_started.hand_number = e.hand_number
        m.hand_started.nonce = e.nonce
        m.hand_started.seed.commitment = e.commitment
        m.hand_started.seed.client_seed = e.client_seed
        m.hand_started.seed.hands_dealt = e.nonce
        m.hand_started.button_seat = e.button
        m.hand_started.seats.extend(e.seats)
        if e.stakes is not None:
            m.hand_started.stakes.CopyFrom(stakes_message(e.stakes))
    elif isinstance(e, hand_events.AntePosted):
        m.antes_posted.antes.add(seat=e.seat, amount=e.amount, all_in=e.all_in)
    elif isinstance(e, hand_events.StreetStarted):
        m.street_started.street = STREET_TO_PROTO[e.street]
        m.street_started.first_to_act_seat = e.first_to_act or 0
    elif isinstance(e, hand_events.CardDealt):
        deal = m.cards_dealt.deals.add(seat=e.seat)
        m.cards_dealt.street = STREET_TO_PROTO[e.street]
        if e.up:
            deal.up_cards.append(format_card(e.card))
        else:
            deal.down_card_count = 1
            deal.down_cards.append(format_card(e.card))
    elif isinstance(e, HiddenCardDealt):
        if e.seat is None:
            m.card_burned.street = STREET_TO_PROTO[e.street]
        else:
            m.cards_dealt.street = STREET_TO_PROTO[e.street]
            m.cards_dealt.deals.add(seat=e.seat, down_card_count=1)
    elif isinstance(e, hand_events.CardBurned):
        m.card_burned.street = STREET_TO_PROTO[e.street]
    elif isinstance(e, hand_events.CommunityCardDealt):
        m.cards_dealt.street = STREET_TO_PROTO[e.street]
        m.cards_dealt.community_card = format_card(e.card)
    elif isinstance(e, hand_events.StubReshuffled):
        m.stub_reshuffled.street = STREET_TO_PROTO[e.street]
        m.stub_reshuffled.stub_size = e.stub_size
    elif isinstance(e, hand_events.BringInPosted):
        m.bring_in_posted.seat = e.seat
        m.bring_in_posted.door_card = format_card(e.card)
        m.bring_in_posted.amount = e.amount
        m.bring_in_posted.all_in = e.all_in
    elif isinstance(e, table_events.TurnStarted):
        m.turn_started.seat = e.seat
        m.turn_started.deadline.CopyFrom(timestamp(e.deadline))
    elif isinstance(e, table_events.TurnExtended):
        m.turn_extended.seat = e.seat
        m.turn_extended.deadline.CopyFrom(timestamp(e.deadline))
        m.turn_extended.added_ms = round(e.seconds * 1000)
    elif isinstance(e, hand_events.ActionTaken):
        m.action_taken.seat = e.seat
        m.action_taken.kind = ACTION_TO_PROTO[e.kind]
        m.action_taken.amount = e.to if e.kind not in (ActionKind.FOLD, ActionKind.CHECK) else 0
        m.action_taken.chips = e.amount
        m.action_taken.all_in = e.all_in
        m.action_taken.timed_out = e.by_timeout
    elif isinstance(e, hand_events.ProtectionApplied):
        m.all_in_protected.seat = e.seat
    elif isinstance(e, hand_events.BetReturned):
        m.uncalled_bet_returned.seat = e.seat
        m.uncalled_bet_returned.amount = e.amount
    elif isinstance(e, hand_events.HandShown):
        hand = m.cards_shown.hand
        hand.seat = e.seat
        hand.cards.extend(format_cards(e.cards))
        hand.high.category = _enum_value(table_pb2.HandCategory, "HAND_CATEGORY", e.category)
        hand.high.best_five.extend(format_cards(e.best_five))
        if e.low_five:
            hand.low.cards.extend(format_cards(e.low_five))
    elif isinstance(e, table_events.CardsShownAfter):
        m.cards_shown.hand.seat = e.seat
        m.cards_shown.hand.cards.extend(format_cards(e.cards))
        m.cards_shown.voluntary = True
    elif isinstance(e, hand_events.HandMucked):
        m.cards_mucked.seat = e.seat
    elif isinstance(e, hand_events.RakeTaken):
        m.rake_taken.amount = e.amount
    elif isinstance(e, hand_events.PotAwarded):
        m.pot_awarded.index = e.index
        pot = m.pot_awarded.pot
        pot.amount = e.amount
        pot.eligible_seats.extend(e.eligible)
        pot.winners.extend(e.winners)
        for seat, chips in e.awards:
            pot.awards.add(seat=seat, amount=chips, share=table_pb2.POT_SHARE_WHOLE)
    elif isinstance(e, hand_events.HandEnded):
        m.hand_ended.result.won_by_fold = e.won_by_fold
        for seat, chips in e.final_stacks:
            m.hand_ended.result.final_stacks[seat] = chips
    elif isinstance(e, hand_events.HandCancelled):
        m.hand_cancelled.result.cancelled = True
        for seat, chips in e.final_stacks:
            m.hand_cancelled.result.final_stacks[seat] = chips
    elif isinstance(e, table_events.PlayerJoined):
        m.player_joined.seat.number = e.seat
    elif isinstance(e, table_events.PlayerLeft):
        m.player_left.seat = e.seat
        m.player_left.player_id = e.player_id
        m.player_left.display_name = e.display_name
        m.player_left.final_stack = e.final_stack
        m.player_left.reason = CLOSE_REASON_TO_PROTO.get(e.reason, 0)
    elif isinstance(e, table_events.PlayerLeaving):
        m.player_leaving.seat = e.seat
    elif isinstance(e, table_events.PlayerSatOut):
        m.player_sat_out.seat = e.seat
    elif isinstance(e, table_events.PlayerSatIn):
        m.player_sat_in.seat = e.seat
    elif isinstance(e, table_events.ConnectionChanged):
        m.connection_changed.seat = e.seat
        m.connection_changed.connected = e.connected
    elif isinstance(e, table_events.ChipsAdded):
        m.chips_added.seat = e.seat
        m.chips_added.amount = e.amount
        m.chips_added.stack = e.stack
    elif isinstance(e, table_events.TableStatusChanged):
        m.table_status_changed.status = STATUS_TO_PROTO[e.status]
        m.table_status_changed.reason = e.reason
    elif isinstance(e, table_events.PlayerBusted):
        busted = m.player_busted
        busted.seat = e.seat
        busted.player_id = e.player_id
        busted.display_name = e.display_name
        busted.hand_number = e.hand_number
        busted.start_stack = e.start_stack
    elif isinstance(e, table_events.PlayerMoved):
        moved = m.player_moved
        moved.seat = e.seat
        moved.player_id = e.player_id
        moved.display_name = e.display_name
        moved.stack = e.stack
        moved.destination.table = e.destination.table
        moved.destination.grpc_address = e.destination.grpc_address
        moved.destination.web_url = e.destination.web_url
    elif isinstance(e, table_events.TournamentPlaced):
        m.tournament_placed.player_id = e.player_id
        m.tournament_placed.display_name = e.display_name
        m.tournament_placed.place = e.place
        m.tournament_placed.prize = e.prize
    elif isinstance(e, table_events.StakesChanged):
        m.stakes_changed.level = e.level
        m.stakes_changed.stakes.CopyFrom(stakes_message(e.stakes))
        m.stakes_changed.from_hand_number = e.from_hand_number
    elif isinstance(e, table_events.HandHoldChanged):
        m.hand_hold_changed.held = e.held
    elif isinstance(e, table_events.TournamentInfoChanged):
        m.tournament_info_changed.info.CopyFrom(tournament_info_message(e.info))
    elif isinstance(e, table_events.WatchersChanged):
        m.watchers_changed.watchers = e.watchers
    elif isinstance(e, table_events.SeedRotated):
        revealed = m.seed_rotated.revealed
        revealed.commitment = e.revealed_commitment
        revealed.client_seed = e.revealed_client_seed
        revealed.dealer_seed = e.revealed_dealer_seed
        revealed.hands_dealt = e.hands_dealt
        m.seed_rotated.current.commitment = e.current.commitment
        m.seed_rotated.current.client_seed = e.current.client_seed
        m.seed_rotated.current.hands_dealt = e.current.next_nonce
        m.seed_rotated.next_commitment = e.current.next_commitment
