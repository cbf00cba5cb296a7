"""Hand histories in the PHH format (Poker Hand History, as pokerkit reads it).

:func:`export_phh` turns a finished or cancelled :class:`~engine_server.game.hand.Hand`
into PHH text (TOML): variant ``F7S`` (``F7S/8`` for a high-low profile), the
stakes, the starting stacks and one action string per dealing, decision and
showdown, plus the engine's own facts as user-defined fields whose names start
with ``_`` (pokerkit keeps them aside and ignores them).

**Players.** PHH player ``p1`` is the first seat dealt in to the button's left,
``p2`` the next clockwise, and so on: the hand's dealing order
(``HandStarted.dealing_order``, :func:`phh_seat_order`). pokerkit's seven-card
stud has no button: it deals from index 0 up, asks players in index order from
its opener, breaks ties between equal showing hands towards the lowest index
and gives odd chips to the lowest index. With this order each of these is
that of docs/rules.md §2.1 (dealing, turns and every tie-break go clockwise from the button's
left). The bring-in needs no order: door cards never tie. ``seats`` lists the
table seat of each player in that order, and ``_button`` keeps the button's
seat.

**Cards.** A street's cards go to each player in one action, in dealing order
(``d dh p1 7c8d2h`` on third street: two down cards then the door card;
pokerkit knows from the variant which are up). A card the reader may not see is
``??``, which pokerkit reads as an unknown card. ``reveal_all=True`` gives the
full record (ops and the engine's archive): every dealt card, plus the burned
cards in ``_burn_cards``. Otherwise the history is redacted for ``redact_for``
(a seat dealt in, or ``None`` for a spectator): everyone's up cards, the
viewer's own down cards, cards shown at the showdown, and ``??`` for every other
down card. A folded hand's down cards never appear in a redacted history, not
even to the seat that folded them (docs/rules.md §2.12: folded cards are never shown in any
history); a mucked hand's down cards appear only to their owner. Showdowns are
``pN sm CARDS`` with all of the player's own cards in the order dealt, mucks
``pN sm``; a community card is ``d db CARD`` (and ``_community_cards``).

**Betting.** ``pN pb`` is the bring-in, ``pN cbr TO`` a completion, bet or raise
to the total ``TO`` of the player's bet on the street (a bring-in who completes,
or goes all in for more than the bring-in, is a ``cbr`` too), ``pN cc`` a check
or call, ``pN f`` a fold. A timeout adds the comment `` # timeout``. All-in
protection has no PHH form: it is a comment line ``# pN protected ...`` and the
player is listed in ``_protected``.

**The house bring-in's last turn.** pokerkit ends third street as soon as
everyone has called the bring-in; the house profile gives the bring-in one more
turn. When he stands (checks) there, the check changes nothing in pokerkit's
terms, so it is written as the comment-only line ``# pN cc (bring-in's last
turn)``: pokerkit reads it as a no-operation, and a reader that knows this
format gets the check back by dropping the leading ``# ``. A fold or a
completion on that turn moves the hand and stays a real action (pokerkit
cannot replay such a hand).

**What pokerkit fills in itself.** When at most one player can still bet, the
engine deals on without asking him; pokerkit still gives him a turn, and its
reader (iterating a ``HandHistory``) fills in that check, as it does any
missing check. When everyone is all in before seventh street pokerkit holds a
showdown at once; its reader passes it showing nothing, and the hands are
shown at the end, as the engine shows them.

**Other fields.** ``ante_trimming_status = true``, so pokerkit counts antes in
the pots as docs/rules.md §2.7 does (a player all in for his ante is eligible for the
pot up to what he put in). ``bring_in`` is the stake, except when a ``range``
profile's bring-in chose another size: then it is that size (what pokerkit's
``pb`` must post) and the stake is kept in ``_bring_in_stake``.
``finishing_stacks`` are the stacks after the hand (rake taken; for a cancelled
hand, the starting stacks, with ``_cancelled = true`` and the actions up to the
cancellation). ``_pots`` lists the pots (main pot first) with ``eligible`` and
``winners`` as player numbers and ``awards`` per player, after rake; ``_rake``
is the house's take. ``_profile`` names the rule profile and ``_rules`` holds
the hand's settings by the names of docs/rules.md §1 (a setting that is null is left
out: TOML has no null). ``_view`` is ``full``, ``seat`` (with ``_viewer``) or
``public``.

>>> from engine_server.game.cards import parse_cards
>>> from engine_server.game.hand import Hand
>>> from engine_server.game.profiles import PROFILES, Stakes
>>> deck = parse_cards("Kh Qs As Ah Ad Ks Kc Kd Js Qh Qd Qc Jh Jd 7c 4h Jc Ts".split())
>>> hand = Hand(PROFILES["house"], Stakes(1, 1, 2, 4), [(3, 100), (5, 100)], button=5, deck=deck)
>>> hand.fold(3)
>>> text = export_phh(hand, redact_for=5, hand_number=7, players={3: "ann", 5: "bob"})
>>> for line in text.splitlines():
...     if not line.startswith("_rules"):  # the settings: a long line
...         print(line)
variant = "F7S"
ante_trimming_status = true
antes = [1, 1]
bring_in = 1
small_bet = 2
big_bet = 4
starting_stacks = [100, 100]
actions = [
  "d dh p1 ????7c",
  "d dh p2 QsJs4h",
  "p2 pb",
  "p1 f",
]
hand = 7
seats = [3, 5]
seat_count = 7
players = ["ann", "bob"]
finishing_stacks = [99, 101]
time_limit = 30
_profile = "house"
_view = "seat"
_viewer = 5
_button = 5
_community_cards = []
_rake = 0
_pots = [{amount = 2, eligible = [2], winners = [2], awards = [0, 2]}]
>>> export_phh(hand, reveal_all=True).count("d dh p1 KhKd7c")
1
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias

from engine_server.game.actions import ActionKind
from engine_server.game.cards import Card, format_card
from engine_server.game.events import (
    ActionTaken,
    AntePosted,
    BringInPosted,
    CardBurned,
    CardDealt,
    CommunityCardDealt,
    HandCancelled,
    HandMucked,
    HandShown,
    HandStarted,
    PotAwarded,
    ProtectionApplied,
    RakeTaken,
    StreetStarted,
)
from engine_server.game.hand import Hand
from engine_server.game.profiles import Street

__all__ = [
    "BRING_IN_LAST_TURN_NOTE",
    "UNKNOWN_CARD",
    "export_phh",
    "phh_seat_order",
]

#: How a card the reader may not see is written (pokerkit: an unknown card).
UNKNOWN_CARD: Final = "??"

#: The comment after a house bring-in's check on his last turn (see the module text).
BRING_IN_LAST_TURN_NOTE: Final = "(bring-in's last turn)"

_TomlValue: TypeAlias = (
    "bool | int | float | str | datetime.time | Sequence[_TomlValue] | Mapping[str, _TomlValue]"
)

_AGGRESSIVE: Final = frozenset({ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE})


def phh_seat_order(hand: Hand) -> tuple[int, ...]:
    """The seats in PHH player order: ``p1`` is the first seat left of the button.

    >>> from engine_server.game.profiles import PROFILES, Stakes
    >>> seats = [(1, 50), (4, 50), (6, 50)]
    >>> hand = Hand(PROFILES["house"], Stakes(1, 1, 2, 4), seats, button=4, deck=range(52))
    >>> phh_seat_order(hand)
    (6, 1, 4)
    """
    return tuple(p.seat for p in hand.players)


@dataclass(slots=True)
class _Builder:
    """Writes the PHH actions while walking a hand's events."""

    number: dict[int, int]
    visible_down: dict[int, bool]
    actions: list[str] = field(default_factory=list)
    pending: dict[int, list[str]] = field(default_factory=dict)
    street: Street = Street.THIRD
    bring_in_seat: int | None = None
    protected: list[int] = field(default_factory=list)

    def flush(self) -> None:
        """Write the cards dealt since the last flush, one action per player."""
        # Dict order is the order of the first card each player got: dealing order.
        for seat, cards in self.pending.items():
            self.actions.append(f"d dh p{self.number[seat]} {''.join(cards)}")
        self.pending.clear()

    def dealt(self, event: CardDealt) -> None:
        shown = event.up or self.visible_down[event.seat]
        text = format_card(event.card) if shown else UNKNOWN_CARD
        self.pending.setdefault(event.seat, []).append(text)

    def action(self, event: ActionTaken) -> None:
        player = f"p{self.number[event.seat]}"
        note = " # timeout" if event.by_timeout else ""
        if event.kind is ActionKind.FOLD:
            self.actions.append(f"{player} f{note}")
        elif (
            event.kind is ActionKind.CHECK
            and self.street is Street.THIRD
            and event.seat == self.bring_in_seat
        ):
            # The bring-in owes nothing on third street only on the house
            # bring-in's last turn, after everyone called: pokerkit has no
            # such turn, and a check there changes nothing.
            self.actions.append(f"# {player} cc {BRING_IN_LAST_TURN_NOTE}{note}")
        elif event.kind in (ActionKind.CHECK, ActionKind.CALL):
            self.actions.append(f"{player} cc{note}")
        elif event.kind in _AGGRESSIVE:
            self.actions.append(f"{player} cbr {event.to}{note}")
        else:  # pragma: no cover - betting events carry no other kind
            raise AssertionError(f"unexpected action {event.kind}")


def export_phh(
    hand: Hand,
    *,
    reveal_all: bool = False,
    redact_for: int | None = None,
    table: str | None = None,
    hand_number: int | None = None,
    players: Mapping[int, str] | None = None,
    seat_count: int | None = None,
    started_at: datetime.datetime | None = None,
) -> str:
    """The hand as PHH text (see the module text for the format and redaction).

    ``reveal_all=True`` writes every card (not with ``redact_for``); otherwise
    the history shows what ``redact_for`` (a seat dealt in, or ``None`` for a
    spectator) may see. ``players`` names every seat dealt in; ``seat_count``
    defaults to the profile's ``max_players``; ``started_at`` gives ``year``,
    ``month``, ``day``, ``time`` and, when it is aware, ``time_zone``.
    Raises ``ValueError`` for a hand still being played, a viewer not dealt in
    or a seat without a name.
    """
    if not hand.is_over:
        raise ValueError("the hand is still being played")
    if reveal_all and redact_for is not None:
        raise ValueError("reveal_all and redact_for exclude each other")
    order = phh_seat_order(hand)
    if redact_for is not None and redact_for not in order:
        raise ValueError(f"seat {redact_for} was not dealt into the hand")
    number = {seat: i + 1 for i, seat in enumerate(order)}
    state = {p.seat: p for p in hand.players}
    shown = {e.seat for e in hand.events if isinstance(e, HandShown)}
    visible_down = {
        seat: reveal_all or (not state[seat].folded and (seat == redact_for or seat in shown))
        for seat in order
    }
    builder = _Builder(number=number, visible_down=visible_down)

    start_stacks: dict[int, int] = {}
    after_antes: dict[int, int] = {}
    burned: list[Card] = []
    community: list[Card] = []
    rake = 0
    cancelled = False
    pots: list[dict[str, _TomlValue]] = []
    bring_in_field = hand.stakes.bring_in
    for event in hand.events:
        if not isinstance(event, CardDealt):
            builder.flush()
        if isinstance(event, HandStarted):
            start_stacks = dict(event.stacks)
            after_antes = dict(event.stacks)
        elif isinstance(event, AntePosted):
            after_antes[event.seat] -= event.amount
        elif isinstance(event, StreetStarted):
            builder.street = event.street
        elif isinstance(event, CardDealt):
            builder.dealt(event)
        elif isinstance(event, CardBurned):
            burned.append(event.card)
        elif isinstance(event, CommunityCardDealt):
            community.append(event.card)
            builder.actions.append(f"d db {format_card(event.card)}")
        elif isinstance(event, BringInPosted):
            player = f"p{number[event.seat]}"
            builder.bring_in_seat = event.seat
            # pokerkit's pb posts the bring_in field (or the stack, if less).
            forced = min(hand.stakes.bring_in, after_antes[event.seat])
            if event.completed or (event.all_in and event.amount > forced):
                # A completion, or an all-in short of one: pokerkit's cbr to the stack.
                builder.actions.append(f"{player} cbr {event.amount}")
            else:
                builder.actions.append(f"{player} pb")
                if event.amount != forced:
                    # Only a range bring-in chooses another size.
                    bring_in_field = event.amount
        elif isinstance(event, ActionTaken):
            builder.action(event)
        elif isinstance(event, ProtectionApplied):
            builder.protected.append(number[event.seat])
            builder.actions.append(
                f"# p{number[event.seat]} protected (timeout): all in for {event.contributed}"
            )
        elif isinstance(event, HandShown):
            cards = "".join(format_card(card) for card in event.cards)
            builder.actions.append(f"p{number[event.seat]} sm {cards}")
        elif isinstance(event, HandMucked):
            builder.actions.append(f"p{number[event.seat]} sm")
        elif isinstance(event, RakeTaken):
            rake = event.amount
        elif isinstance(event, PotAwarded):
            awards = dict(event.awards)
            pots.append(
                {
                    "amount": event.amount,
                    "eligible": sorted(number[seat] for seat in event.eligible),
                    "winners": sorted(number[seat] for seat in event.winners),
                    "awards": [awards.get(seat, 0) for seat in order],
                }
            )
        elif isinstance(event, HandCancelled):
            cancelled = True
    builder.flush()

    if cancelled:
        finishing = [start_stacks[seat] for seat in order]
    else:
        final = hand.result().final_stacks
        finishing = [final[seat] for seat in order]

    fields: list[tuple[str, _TomlValue]] = [
        ("variant", "F7S/8" if hand.settings.hi_lo else "F7S"),
        ("ante_trimming_status", True),
        ("antes", [hand.stakes.ante] * len(order)),
        ("bring_in", bring_in_field),
        ("small_bet", hand.stakes.small_bet),
        ("big_bet", hand.stakes.big_bet),
        ("starting_stacks", [start_stacks[seat] for seat in order]),
        ("actions", builder.actions),
    ]
    if started_at is not None:
        fields += [
            ("year", started_at.year),
            ("month", started_at.month),
            ("day", started_at.day),
            ("time", started_at.time().replace(microsecond=0)),
        ]
        zone = started_at.tzname()
        if zone is not None:
            fields.append(("time_zone", zone))
    if hand_number is not None:
        fields.append(("hand", hand_number))
    fields += [
        ("seats", list(order)),
        ("seat_count", hand.settings.max_players if seat_count is None else seat_count),
    ]
    if table is not None:
        fields.append(("table", table))
    if players is not None:
        missing = [seat for seat in order if seat not in players]
        if missing:
            raise ValueError(f"no player name for seat {missing[0]}")
        fields.append(("players", [players[seat] for seat in order]))
    fields += [
        ("finishing_stacks", finishing),
        ("time_limit", hand.settings.action_seconds),
        ("_profile", hand.settings.name),
        ("_rules", _without_nulls(hand.settings.to_json(include_live=False))),
        ("_view", "full" if reveal_all else "public" if redact_for is None else "seat"),
    ]
    if redact_for is not None:
        fields.append(("_viewer", redact_for))
    fields += [
        ("_button", hand.button),
        ("_community_cards", [format_card(card) for card in community]),
        ("_rake", rake),
        ("_pots", pots),
    ]
    if bring_in_field != hand.stakes.bring_in:
        fields.append(("_bring_in_stake", hand.stakes.bring_in))
    if builder.protected:
        fields.append(("_protected", builder.protected))
    if reveal_all:
        fields.append(("_burn_cards", [format_card(card) for card in burned]))
    if cancelled:
        fields.append(("_cancelled", True))
    return (
        "\n".join(f"{key} = {_toml(value, top=key == 'actions')}" for key, value in fields) + "\n"
    )


def _without_nulls(value: Any) -> _TomlValue:
    """A JSON value as a TOML value: TOML has no null, so null entries are left out."""
    if isinstance(value, Mapping):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value if item is not None]
    if isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"not a JSON value: {value!r}")


# TOML basic strings: these must be escaped, every other character may stand as is.
_ESCAPES: Final[dict[str, str]] = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _toml_string(text: str) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        elif 0xD800 <= code <= 0xDFFF:
            # A lone surrogate is no Unicode scalar value: TOML cannot hold it.
            raise ValueError(f"text with a lone surrogate cannot be written: {text!r}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _toml(value: _TomlValue, *, top: bool = False) -> str:
    """One TOML value; ``top`` puts a list's items one per line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        # repr gives the shortest text that reads back as the same float.
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, datetime.time):
        return value.isoformat()
    if isinstance(value, Mapping):
        pairs = ", ".join(f"{key} = {_toml(item)}" for key, item in value.items())
        return "{" + pairs + "}" if pairs else "{}"
    items = [_toml(item) for item in value]
    if top and items:
        return "[\n" + "".join(f"  {item},\n" for item in items) + "]"
    return "[" + ", ".join(items) + "]"
