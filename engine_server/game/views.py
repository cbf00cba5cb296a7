"""What one seat may see of a hand: its own down cards, everyone's up cards.

:func:`seat_view` builds a seat's (or a spectator's, ``viewer=None``) view of
a hand; :func:`visible_event` redacts one event for a viewer. Down cards of
other seats appear only once shown at the showdown; a folded or mucked seat's
down cards never appear to anyone else; burned cards never appear at all.

>>> from engine_server.game.cards import format_cards, parse_cards
>>> from engine_server.game.hand import Hand
>>> from engine_server.game.profiles import PROFILES, Stakes
>>> deck = parse_cards("Kh Qs As Ah Ad Ks Kc Kd Js Qh Qd Qc Jh Jd 7c 4h Jc Ts".split())
>>> hand = Hand(PROFILES["house"], Stakes(1, 1, 2, 4), [(3, 100), (5, 100)], button=5, deck=deck)
>>> view = seat_view(hand, 3)
>>> [(s.seat, format_cards(s.down_cards), s.down_count, format_cards(s.up_cards))
...  for s in view.seats]
[(3, ['Kh', 'Kd'], 2, ['7c']), (5, [], 2, ['4h'])]
>>> seat_view(hand, None).legal_actions
()
"""

from __future__ import annotations

from dataclasses import dataclass

from engine_server.game.actions import LegalAction
from engine_server.game.cards import Card
from engine_server.game.events import CardBurned, CardDealt, Event
from engine_server.game.hand import BringIn, Hand, Phase
from engine_server.game.profiles import Street

__all__ = ["HiddenCardDealt", "SeatView", "VisibleSeat", "seat_view", "visible_event"]


@dataclass(frozen=True, slots=True)
class HiddenCardDealt:
    """A card dealt face down to ``seat`` (or burned, ``seat=None``) that the viewer may not see."""

    seat: int | None
    street: Street


@dataclass(frozen=True, slots=True)
class VisibleSeat:
    seat: int
    stack: int
    bet: int
    contributed: int
    folded: bool
    all_in: bool
    protected: bool
    up_cards: tuple[Card, ...]
    down_count: int
    #: the viewer's own down cards, or a hand shown at the showdown
    down_cards: tuple[Card, ...]
    shown: bool


@dataclass(frozen=True, slots=True)
class SeatView:
    viewer: int | None
    phase: Phase
    street: Street
    button: int
    to_act: int | None
    current_bet: int
    pot_total: int
    community_cards: tuple[Card, ...]
    bring_in: BringIn | None
    seats: tuple[VisibleSeat, ...]
    #: the viewer's legal actions when it is his turn, else empty
    legal_actions: tuple[LegalAction, ...]


def seat_view(hand: Hand, viewer: int | None) -> SeatView:
    """Exactly what ``viewer`` (a seat number, or ``None`` for a spectator) may see."""
    seats = []
    for p in hand.players:
        own = p.seat == viewer
        down = p.down_cards
        visible_down = tuple(down) if own or (p.shown and not p.folded) else ()
        seats.append(
            VisibleSeat(
                seat=p.seat,
                stack=p.stack,
                bet=p.bet,
                contributed=p.contributed,
                folded=p.folded,
                all_in=p.all_in,
                protected=p.protected,
                up_cards=tuple(p.up_cards),
                down_count=len(down),
                down_cards=visible_down,
                shown=p.shown,
            )
        )
    return SeatView(
        viewer=viewer,
        phase=hand.phase,
        street=hand.street,
        button=hand.button,
        to_act=hand.to_act,
        current_bet=hand.current_bet,
        pot_total=hand.pot_total,
        community_cards=tuple(hand.community),
        bring_in=hand.bring_in_info,
        seats=tuple(seats),
        legal_actions=hand.legal_actions() if viewer is not None and viewer == hand.to_act else (),
    )


def visible_event(event: Event, viewer: int | None) -> Event | HiddenCardDealt:
    """``event`` as ``viewer`` may see it: hidden cards become :class:`HiddenCardDealt`."""
    if isinstance(event, CardDealt):
        if event.up or event.seat == viewer:
            return event
        return HiddenCardDealt(event.seat, event.street)
    if isinstance(event, CardBurned):
        return HiddenCardDealt(None, event.street)
    return event
