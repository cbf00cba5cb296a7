"""What one player may see of a stored hand, as JSON and as PHH.

docs/rules.md §2.12: nobody sees a player's down cards unless he shows them at the showdown;
folded cards are never shown to anyone, in the game or in any history. For a viewer
dealt into the hand that leaves exactly these cards (:class:`Visibility`):

- every up card, folded seats' too (they were face up at the table before the fold);
- community cards (face up for everyone);
- his own down cards, unless he folded (the PHH exporter hides them from him too);
- every card of a hand turned over at the showdown.

A mucked hand's down cards are seen by their owner only; a winner by folds shows nothing.

**The redacted PHH** is rebuilt, not stored: the hand is replayed through the engine's rules
(:class:`engine_server.game.hand.Hand`) from the stored record — the dealt cards put back at
their deck positions, the stored actions applied in order — and exported with
:func:`engine_server.game.phh.export_phh` ``(redact_for=viewer)``, so the history has the
engine's own format and redaction. The replay must reproduce the record exactly (every
action, every dealt card, the final stacks): otherwise the record is inconsistent and no
PHH is given (:class:`RecordInconsistent`). Burned cards are not in the record; their deck
positions get filler cards, which the redacted export never prints. Two checks back this up:
the record's ``up`` flag counts only where the card's place in the seat's hand agrees (third
and seventh street down cards are never taken as up), and every card in the output, JSON or
PHH, is checked against the viewer's visible set before it leaves (:class:`LeakRefused`).

Limit: a hand whose profile shuffled burned cards back into the stub (eight or nine
players with burns) cannot be replayed without the dealer seed's stream, so it has no PHH
download (its JSON view works).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine_server.game.actions import ActionRefused
from engine_server.game.cards import CANONICAL_DECK, Card, format_card, is_card_text, parse_card
from engine_server.game.hand import Hand
from engine_server.game.phh import UNKNOWN_CARD, export_phh
from engine_server.game.profiles import (
    PROFILES,
    ProfileError,
    RuleSettings,
    Stakes,
    apply_overrides,
)
from engine_server.game.replay import action_record, apply_record
from lobby_api.engine_reads import HandRecord, HandSeat
from lobby_api.history.schemas import HandView, MyCard, SeatView

__all__ = [
    "LeakRefused",
    "RecordCard",
    "RecordInconsistent",
    "Visibility",
    "own_visible_cards",
    "record_cards",
    "redact_hand",
    "redacted_phh",
    "visibility",
]

#: A seat's k-th card (0-based) is dealt face up for k in this range (third street's door
#: card through sixth street), face down otherwise: the same in every profile.
_UP_POSITIONS = range(2, 6)

#: The keys of a stored action that are copied out (none of them holds a card).
_ACTION_KEYS = ("seat", "do", "amount", "to", "all_in", "timeout", "protected")


class RecordInconsistent(Exception):
    """The stored record of a hand contradicts itself or the rules (an engine bug or tampering)."""


class LeakRefused(Exception):
    """A redacted output held a card its viewer may not see; it was not sent."""


@dataclass(frozen=True, slots=True)
class RecordCard:
    """One card of the stored record, with where it sits in its seat's hand."""

    seat: int | None
    card: str
    deck_index: int
    #: Face up: for a seat's card only when the record says so *and* the card's place
    #: in the seat's hand is an up card's.
    up: bool
    street: str | None
    #: 0 for the seat's first card, 1 for its second, …; None for a community card.
    position: int | None


@dataclass(frozen=True, slots=True)
class Visibility:
    """Whose down cards a viewer may see in one hand."""

    viewer: int
    folded: frozenset[int]
    shown: frozenset[int]

    def sees_down(self, seat: int) -> bool:
        """Whether the viewer may see ``seat``'s down cards."""
        return seat not in self.folded and (seat == self.viewer or seat in self.shown)

    def sees(self, card: RecordCard) -> bool:
        """Whether the viewer may see this card of the record."""
        return card.up or card.seat is None or self.sees_down(card.seat)


def record_cards(hand: HandRecord) -> list[RecordCard]:
    """The hand's stored cards in dealing order (empty when none were recorded).

    Raises :class:`RecordInconsistent` for an entry that is not a card dealt at a deck
    position.
    """
    out: list[RecordCard] = []
    count: dict[int, int] = {}
    for number, entry in enumerate(hand.cards or ()):
        if not isinstance(entry, Mapping):
            raise RecordInconsistent(f"cards[{number}] is not an object")
        seat, card, index = entry.get("seat"), entry.get("card"), entry.get("deck_index")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise RecordInconsistent(f"cards[{number}].seat is not a seat")
        if not is_card_text(card):
            raise RecordInconsistent(f"cards[{number}].card is not a card")
        card = str(card)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < 52:
            raise RecordInconsistent(f"cards[{number}].deck_index is not a deck position")
        street = entry.get("street") if isinstance(entry.get("street"), str) else None
        if seat is None:
            out.append(RecordCard(None, card, index, True, street, None))
            continue
        position = count.get(seat, 0)
        count[seat] = position + 1
        up = entry.get("up") is True and position in _UP_POSITIONS
        out.append(RecordCard(seat, card, index, up, street, position))
    return out


def _seats_doing(actions: Iterable[Any], what: str) -> set[int]:
    return {
        a["seat"]
        for a in actions
        if isinstance(a, Mapping) and a.get("do") == what and isinstance(a.get("seat"), int)
    }


def visibility(hand: HandRecord, viewer: int) -> Visibility:
    """What ``viewer`` (a seat dealt in) may see of the hand's down cards.

    A seat counts as shown only when the actions say it showed, it never folded, and — for
    a hand with a result — the result lists its shown cards too: where the record's parts
    disagree, the less revealing reading wins.
    """
    actions = hand.actions or []
    folded = _seats_doing(actions, "fold")
    shown = _seats_doing(actions, "show") - folded
    result_shown = (hand.result or {}).get("shown")
    if hand.result is not None:
        listed = set()
        if isinstance(result_shown, Mapping):
            listed = {int(seat) for seat in result_shown if str(seat).isdigit()}
        shown &= listed
    return Visibility(viewer=viewer, folded=frozenset(folded), shown=frozenset(shown))


def own_visible_cards(hand: HandRecord, viewer: int) -> list[RecordCard]:
    """The cards dealt to seat ``viewer`` that he may see, in dealing order: the cards his
    ``my_cards`` shows face up (:func:`redact_hand`). His down cards of a hand he folded are
    not among them: folded cards are never shown, not even to him.

    Raises :class:`RecordInconsistent` as :func:`record_cards` does.
    """
    seen = visibility(hand, viewer)
    return [c for c in record_cards(hand) if c.seat == viewer and seen.sees(c)]


def _visible_texts(cards: Sequence[RecordCard], seen: Visibility) -> set[str]:
    return {c.card for c in cards if seen.sees(c)}


def _filtered_result(
    result: Mapping[str, Any] | None, seen: Visibility, visible: set[str]
) -> dict[str, Any] | None:
    """The stored result with only public facts and the shown seats' hands (a whitelist)."""
    if result is None:
        return None
    out: dict[str, Any] = {}
    for key in ("first_to_act", "pots", "returned", "rake", "final_stacks"):
        if key in result:
            out[key] = result[key]
    bring_in = result.get("bring_in")
    if isinstance(bring_in, Mapping):
        card = bring_in.get("card")
        out["bring_in"] = {
            "seat": bring_in.get("seat"),
            # The door card is up; keep it only if the record agrees that it was.
            "card": card if card in visible else None,
            "amount": bring_in.get("amount"),
        }
    else:
        out["bring_in"] = None
    out["community_cards"] = [c for c in result.get("community_cards") or () if c in visible]
    for key in ("shown", "hands"):
        part = result.get(key)
        out[key] = (
            {
                str(seat): value
                for seat, value in part.items()
                if str(seat).isdigit() and int(seat) in seen.shown
            }
            if isinstance(part, Mapping)
            else {}
        )
    return out


def _cards_in(value: Any) -> Iterable[str]:
    """Every card text anywhere in a JSON value (for the last check)."""
    if isinstance(value, str):
        if is_card_text(value):
            yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _cards_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _cards_in(item)


def redact_hand(
    hand: HandRecord,
    players: Sequence[HandSeat],
    names: Mapping[int, str],
    viewer: HandSeat,
) -> HandView:
    """The hand as ``viewer`` (a seat dealt in) may see it."""
    cards = record_cards(hand)
    seen = visibility(hand, viewer.seat)
    visible = _visible_texts(cards, seen)
    my_cards = [
        MyCard(
            card=c.card if seen.sees(c) else None,
            up=c.up,
            street=c.street,
            deck_index=c.deck_index if seen.sees(c) else None,
        )
        for c in cards
        if c.seat == viewer.seat
    ]
    up_cards: dict[str, list[str]] = {str(p.seat): [] for p in players}
    shown: dict[str, list[str]] = {str(seat): [] for seat in sorted(seen.shown)}
    community: list[str] = []
    for c in cards:
        if c.seat is None:
            community.append(c.card)
            continue
        if c.up:
            up_cards.setdefault(str(c.seat), []).append(c.card)
        if c.seat in seen.shown:
            shown[str(c.seat)].append(c.card)
    actions = [
        {key: a[key] for key in _ACTION_KEYS if key in a}
        for a in hand.actions or ()
        if isinstance(a, Mapping)
    ]
    settings = hand.settings or {}
    stakes = settings.get("stakes") if isinstance(settings.get("stakes"), Mapping) else {}
    view = HandView(
        hand_id=hand.id,
        table=hand.table_id,
        hand_number=hand.hand_number,
        state=hand.state,
        started_at=hand.started_at,
        ended_at=hand.ended_at,
        cancel_reason=hand.cancel_reason,
        profile=hand.profile,
        stakes={k: v for k, v in dict(stakes or {}).items() if isinstance(v, int)},
        button=hand.button_seat,
        seats=[
            SeatView(
                seat=p.seat,
                start_stack=p.start_stack,
                final_stack=p.final_stack,
                display_name=names.get(p.seat),
                player_id=p.player_id if p.seat == viewer.seat else None,
            )
            for p in players
        ],
        my_seat=viewer.seat,
        my_cards=my_cards,
        up_cards=up_cards,
        community_cards=community,
        shown=shown,
        actions=actions,
        pots=list(hand.pots or ()),
        rake=hand.rake,
        result=_filtered_result(hand.result, seen, visible),
    )
    # The last word: whatever the code above did, no card the viewer may not see leaves.
    card_parts = (
        [c.card for c in my_cards if c.card],
        up_cards,
        community,
        shown,
        actions,
        view.pots,
        view.result,
    )
    leaked = {card for part in card_parts for card in _cards_in(part)} - visible
    if leaked:
        raise LeakRefused(f"hand {hand.id}: {len(leaked)} hidden card(s) in the view")
    return view


# ------------------------------------------------------------------------------ PHH


def _rules(settings: Mapping[str, Any]) -> RuleSettings:
    rules = dict(settings.get("rules") or {})
    name = rules.pop("profile", None)
    if not isinstance(name, str) or name not in PROFILES:
        raise RecordInconsistent(f"the hand's settings name no known profile ({name!r})")
    base = PROFILES[name]
    # Only what differs from the profile: apply_overrides checks every value it is given, and
    # some profile defaults (a zero reconnect bonus) are not values one may set.
    defaults = base.to_json()
    changes = {key: value for key, value in rules.items() if defaults.get(key) != value}
    try:
        return apply_overrides(base, changes, where="settings.rules")
    except ProfileError as error:
        raise RecordInconsistent(f"the hand's settings do not parse: {error}") from None


def _stakes(settings: Mapping[str, Any]) -> Stakes:
    stakes = settings.get("stakes")
    try:
        return Stakes(**dict(stakes))  # type: ignore[arg-type]
    except TypeError:
        raise RecordInconsistent("the hand's settings have no stakes") from None


def _deck(cards: Sequence[RecordCard]) -> list[Card]:
    """A deck with every recorded card at its position and fillers elsewhere (burns)."""
    placed: dict[int, Card] = {}
    for c in cards:
        card = parse_card(c.card)
        if c.deck_index in placed or card in placed.values():
            raise RecordInconsistent("a deck position or a card is recorded twice")
        placed[c.deck_index] = card
    fillers = iter(card for card in CANONICAL_DECK if card not in set(placed.values()))
    return [placed[i] if i in placed else next(fillers) for i in range(len(CANONICAL_DECK))]


def replay(hand_row: HandRecord, players: Sequence[HandSeat]) -> Hand:
    """The hand replayed through the rules from its record (see the module text)."""
    if hand_row.is_running:
        raise RecordInconsistent("the hand is still running")
    cards = record_cards(hand_row)
    if not cards:
        raise RecordInconsistent("no cards were recorded for this hand")
    settings = hand_row.settings or {}
    try:
        hand = Hand(
            _rules(settings),
            _stakes(settings),
            [(p.seat, p.start_stack) for p in players],
            hand_row.button_seat,
            _deck(cards),
        )
    except ValueError as error:
        raise RecordInconsistent(f"the hand cannot be dealt again: {error}") from None
    recorded = [a for a in hand_row.actions or () if isinstance(a, Mapping)]
    produced: list[dict[str, Any]] = []
    seen_events = 0

    def catch_up() -> None:
        nonlocal seen_events
        for event in hand.events[seen_events:]:
            action = action_record(event)
            if action is not None:
                produced.append(action)
        seen_events = len(hand.events)

    catch_up()
    for number, action in enumerate(recorded):
        if len(produced) <= number:
            # Not done by the rules themselves (a forced bring-in, an automatic showdown):
            # the player did it.
            try:
                apply_record(hand, action, RecordInconsistent)
            except ActionRefused as refused:
                raise RecordInconsistent(f"actions[{number}] is refused: {refused}") from None
            catch_up()
        if len(produced) <= number or produced[number] != dict(action):
            raise RecordInconsistent(f"actions[{number}] does not replay as recorded")
    if len(produced) != len(recorded):
        raise RecordInconsistent("the rules did more than the record says")
    if hand_row.is_cancelled and not hand.is_over:
        hand.cancel()
    if not hand.is_over:
        raise RecordInconsistent("the recorded actions do not finish the hand")
    dealt = [(seat, format_card(card), index) for seat, card, index in hand.dealt_cards]
    if dealt != [(c.seat, c.card, c.deck_index) for c in cards]:
        raise RecordInconsistent("the replay deals other cards than the record")
    if hand_row.is_complete:
        final = hand.result().final_stacks
        if any(p.final_stack != final.get(p.seat) for p in players):
            raise RecordInconsistent("the replay ends with other stacks than the record")
    return hand


def _phh_cards(text: str) -> list[str]:
    """Every card token in a PHH text's dealing and showdown actions and its card fields."""
    data = tomllib.loads(text)
    tokens: list[str] = []
    for action in data.get("actions", ()):
        words = str(action).split("#", 1)[0].split()
        if words[:2] in (["d", "dh"], ["d", "db"]) or (len(words) > 2 and words[1] == "sm"):
            run = words[-1] if len(words) > 2 else ""
            tokens += [run[i : i + 2] for i in range(0, len(run), 2)]
    for key in ("_community_cards", "_burn_cards"):
        tokens += [str(card) for card in data.get(key, ())]
    return tokens


def redacted_phh(
    hand_row: HandRecord,
    players: Sequence[HandSeat],
    names: Mapping[int, str],
    viewer: HandSeat,
) -> str:
    """The hand's PHH as ``viewer`` may see it (see the module text)."""
    hand = replay(hand_row, players)
    text = export_phh(
        hand,
        redact_for=viewer.seat,
        table=hand_row.table_id,
        hand_number=hand_row.hand_number,
        players={p.seat: names.get(p.seat) or f"seat {p.seat}" for p in players},
        started_at=hand_row.started_at,
    )
    cards = record_cards(hand_row)
    visible = _visible_texts(cards, visibility(hand_row, viewer.seat))
    leaked = {token for token in _phh_cards(text) if token != UNKNOWN_CARD} - visible
    if leaked:
        raise LeakRefused(f"hand {hand_row.id}: {len(leaked)} hidden card(s) in the PHH")
    return text
