"""What a seat, a spectator or ops may see of a table: views, own parts and redaction.

Pure functions of a :class:`~engine_server.table.state.TableState`: the broadcaster
(:mod:`engine_server.table.broadcast`) builds one public view per change and each seat's
:class:`~engine_server.table.model.OwnPart`, and redacts the change's events for each seat.
"""

from __future__ import annotations

from datetime import UTC, datetime

from engine_server.game.actions import LegalAction
from engine_server.game.events import CardBurned, CardDealt
from engine_server.game.hand import Phase, PlayerState
from engine_server.game.views import visible_event
from engine_server.table.events import UpdateEvent
from engine_server.table.model import OwnPart, SeatInfo, SeatState, TableView, TournamentView
from engine_server.table.state import TableState

__all__ = [
    "MAY_HIDE",
    "own_parts",
    "redacted",
    "seat_in_hand",
    "seat_out_of_hand",
    "table_view",
    "tournament_view",
]

#: the only events that may read differently from seat to seat (a card dealt face down, a
#: burned card: :func:`engine_server.game.views.visible_event`); every other event is public
MAY_HIDE = (CardDealt, CardBurned)


def seat_in_hand(
    number: int, seat: SeatState, player: PlayerState, own: bool, session_id: str
) -> SeatInfo:
    """A seat dealt into the running hand (``own``: the viewer may see its down cards)."""
    down = tuple(player.down_cards)
    # SeatInfo's fields by position, in its order, here and in seat_out_of_hand only (the
    # tests check each field by name): this runs for every seat of every change, and a frozen
    # dataclass takes its 17 arguments by keyword a third more slowly (measured: 5% more
    # instructions per action on the act-and-fan-out path).
    return SeatInfo(
        number,  # number
        seat.player_id,  # player_id
        seat.display_name,  # display_name
        player.stack,  # stack
        seat.status,  # status
        seat.connected,  # connected
        True,  # in_hand
        player.folded,  # folded
        player.all_in,  # all_in
        player.protected,  # protected
        player.bet,  # bet
        player.contributed,  # total_bet
        tuple(player.up_list),  # up_cards
        len(down),  # down_count
        down if own else (),  # down_cards
        tuple(player.cards) if player.shown and not player.folded else (),  # shown_cards
        session_id,  # session_id
    )


def seat_out_of_hand(number: int, seat: SeatState, session_id: str) -> SeatInfo:
    """A seat that is not in the running hand (or any seat between hands)."""
    return SeatInfo(
        number,  # number
        seat.player_id,  # player_id
        seat.display_name,  # display_name
        seat.stack,  # stack
        seat.status,  # status
        seat.connected,  # connected
        False,  # in_hand
        False,  # folded
        False,  # all_in
        False,  # protected
        0,  # bet
        0,  # total_bet
        (),  # up_cards
        0,  # down_count
        (),  # down_cards
        (),  # shown_cards
        session_id,  # session_id
    )


def table_view(
    state: TableState, viewer: int | None, *, reveal_all: bool = False, sessions: bool = False
) -> TableView:
    """The table as ``viewer`` may see it (``reveal_all``: ops' audited view).

    Seat session ids (the lobby's keys) are only in AdminService views: ``reveal_all``
    or ``sessions``.
    """
    hand = state.hand
    players = {p.seat: p for p in hand.players} if hand is not None else {}
    seats, hand_seats = state.seats, state.hand_seats
    with_sessions = reveal_all or sessions
    infos = []
    for number in sorted(seats.keys() | players.keys()):
        seat = seats.get(number) or hand_seats.get(number)
        if seat is None:
            continue
        p = players.get(number)
        session_id = seat.session_id if with_sessions else ""
        if p is not None:
            infos.append(seat_in_hand(number, seat, p, reveal_all or number == viewer, session_id))
        else:
            infos.append(seat_out_of_hand(number, seat, session_id))
    legal: tuple[LegalAction, ...] = ()
    turn = None
    if hand is not None and not hand.is_over:
        turn = hand.to_act
        # Ops' view (GetTable) shows the legal actions of the seat to act, as a player
        # sees his own on his turn.
        if turn is not None and (reveal_all or viewer == turn):
            legal = hand.legal_actions()
    seed = state.seed
    return TableView(
        config=state.config,
        status=state.status,
        viewer_seat=viewer,
        seats=tuple(infos),
        button=state.button,
        hand_number=state.hand_number,
        hand_in_progress=hand is not None,
        street=hand.street if hand is not None else None,
        showdown=hand is not None and hand.phase is Phase.SHOWDOWN,
        pots=tuple(hand.live_pots()) if hand is not None else (),
        street_bet=hand.current_bet if hand is not None else 0,
        bring_in_seat=(
            hand.bring_in_info.seat if hand is not None and hand.bring_in_info else None
        ),
        turn_seat=turn,
        turn_deadline=state.turn_deadline if turn is not None else None,
        legal_actions=legal,
        community_cards=tuple(hand.community) if hand is not None else (),
        commitment=seed.commitment,
        client_seed=seed.client_seed,
        hands_dealt=seed.next_nonce,
        # Between hands: the last hand dealt from this seed pair (table.proto), none after a
        # rotation until the new pair deals.
        nonce=state.nonce
        if hand is not None
        else (seed.next_nonce - 1 if seed.next_nonce else None),
        next_commitment=seed.next_commitment,
        last_hand=state.last_hand,
        server_time=datetime.now(UTC),
        watchers=state.watchers,
        tournament=tournament_view(state),
    )


def tournament_view(state: TableState) -> TournamentView | None:
    """A tournament table's level, hold and info as everyone sees them (None: cash table)."""
    if state.config.tournament is None:
        return None
    upcoming = state.next_level
    return TournamentView(
        level=state.level,
        next_level=upcoming[0] if upcoming is not None else 0,
        next_stakes=upcoming[1] if upcoming is not None else None,
        hand_held=state.hand_held,
        info=state.tournament_info,
    )


def own_parts(state: TableState) -> dict[int, OwnPart]:
    """What each seat dealt into the hand sees beyond the public view (as :func:`table_view`
    gives it to him): his down cards and, on his turn, his legal actions. A seat not in the
    hand sees nothing more."""
    hand = state.hand
    if hand is None:
        return {}
    turn = hand.to_act if not hand.is_over else None
    parts = {}
    for player in hand.players:
        seat = player.seat
        legal = tuple(hand.legal_actions()) if seat == turn else ()
        parts[seat] = OwnPart(seat, tuple(player.down_cards), legal)
    return parts


def redacted(events: tuple[UpdateEvent, ...], viewer: int | None) -> tuple[UpdateEvent, ...]:
    """``events`` as ``viewer`` may see them; the same tuple when nothing is hidden."""
    shown = tuple(
        visible_event(event, viewer) if isinstance(event, MAY_HIDE) else event for event in events
    )
    return events if all(a is b for a, b in zip(shown, events, strict=True)) else shown
