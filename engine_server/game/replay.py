"""Hand scripts (docs/hand-scripts.md): parse one, replay it through :class:`Hand`, report.

>>> script = parse_script({
...     "rules": "house",
...     "stakes": {"ante": 1, "small_bet": 2},
...     "seats": [{"seat": 1, "stack": 100}, {"seat": 2, "stack": 100}],
...     "button": 2,
...     "fairness": {"dealer_seed": "0" * 62 + "2a", "client_seed": "alice", "nonce": 0},
...     "actions": [{"seat": 2, "do": "fold"}],
... })
>>> result = replay(script)
>>> result["bring_in"], result["final_stacks"]
({'seat': 1, 'card': '3d', 'amount': 1}, {'1': 101, '2': 99})
>>> parse_script({"rules": "texas"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
engine_server.game.replay.ScriptError: field "rules": unknown profile 'texas' (known: house, ...)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine_server.game.actions import LEGAL_ORDER, ActionKind, ActionRefused
from engine_server.game.cards import Card, format_card, format_cards, is_card_text, parse_card
from engine_server.game.events import (
    ActionTaken,
    BringInPosted,
    CardDealt,
    HandMucked,
    HandShown,
    ProtectionApplied,
)
from engine_server.game.fairness import (
    FairnessError,
    FairnessStream,
    deck_stream,
    validate_client_seed,
    validate_dealer_seed,
)
from engine_server.game.hand import DeckExhausted, Hand, HandResult
from engine_server.game.profiles import (
    Dealing,
    ProfileError,
    Rake,
    RuleSettings,
    Stakes,
    apply_overrides,
    profile,
)

__all__ = [
    "Script",
    "ScriptAction",
    "ScriptError",
    "action_record",
    "apply_record",
    "hand_trail",
    "parse_script",
    "replay",
    "replay_actions",
    "result_to_json",
]

_NO_RAKE_GIVEN = object()


class ScriptError(ValueError):
    """A script that is not valid: names the field and what is wrong with it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f'field "{field}": {message}')
        self.field = field
        self.reason = message


@dataclass(frozen=True, slots=True)
class ScriptAction:
    seat: int
    kind: ActionKind
    to: int | None


@dataclass(frozen=True, slots=True)
class Script:
    settings: RuleSettings
    stakes: Stakes
    rake: Rake | None
    rake_given: bool
    seats: tuple[tuple[int, int], ...]
    button: int
    deck: tuple[Card, ...]
    stream: FairnessStream | None
    actions: tuple[ScriptAction, ...]

    def new_hand(self) -> Hand:
        return Hand(
            self.settings,
            self.stakes,
            self.seats,
            self.button,
            self.deck,
            stream=self.stream,
            rake=self.rake,
            use_profile_rake=not self.rake_given,
        )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _count(obj: dict[str, Any], key: str, where: str, *, required: bool = True) -> int | None:
    if key not in obj:
        if required:
            raise ScriptError(f"{where}.{key}" if where else key, "missing")
        return None
    value = obj[key]
    name = f"{where}.{key}" if where else key
    if not _is_int(value):
        raise ScriptError(name, f"must be an integer, not {value!r}")
    if value < 0:
        raise ScriptError(name, f"must not be negative ({value})")
    return int(value)


def _object(value: object, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScriptError(name, "must be a JSON object")
    return value


def _list(value: object, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise ScriptError(name, "must be a JSON array")
    return value


def _parse_rules(value: object) -> RuleSettings:
    if isinstance(value, str):
        try:
            return profile(value)
        except ProfileError as error:
            raise ScriptError("rules", error.reason) from None
    rules = _object(value, "rules")
    if "profile" not in rules:
        raise ScriptError("rules.profile", "missing")
    try:
        base = profile(rules["profile"], "rules.profile")
        overrides = {k: v for k, v in rules.items() if k != "profile"}
        return apply_overrides(base, overrides, allow_live=False)
    except ProfileError as error:
        raise ScriptError(error.field, error.reason) from None


def _parse_stakes(value: object) -> tuple[Stakes, Rake | None, bool]:
    stakes = _object(value, "stakes")
    unknown = set(stakes) - {"ante", "bring_in", "small_bet", "big_bet", "rake"}
    if unknown:
        raise ScriptError(f"stakes.{sorted(unknown)[0]}", "unknown stake")
    ante = _count(stakes, "ante", "stakes")
    small = _count(stakes, "small_bet", "stakes")
    assert ante is not None and small is not None
    if small == 0:
        raise ScriptError("stakes.small_bet", "must be at least 1")
    if stakes.get("big_bet") == 0:
        raise ScriptError("stakes.big_bet", "must be at least 1")
    parsed = Stakes.from_small_bet(
        ante=ante,
        small_bet=small,
        bring_in=_count(stakes, "bring_in", "stakes", required=False),
        big_bet=_count(stakes, "big_bet", "stakes", required=False),
    )
    if "rake" not in stakes:
        return parsed, None, False
    try:
        rake = Rake.from_json(stakes["rake"], "stakes.rake")
    except ProfileError as error:
        raise ScriptError(error.field, error.reason) from None
    return parsed, rake, True


def _parse_seats(value: object, settings: RuleSettings) -> tuple[tuple[int, int], ...]:
    seats = _list(value, "seats")
    parsed: dict[int, int] = {}
    for i, entry in enumerate(seats):
        where = f"seats[{i}]"
        entry = _object(entry, where)
        seat = _count(entry, "seat", where)
        stack = _count(entry, "stack", where)
        assert seat is not None and stack is not None
        if not 1 <= seat <= settings.max_players:
            raise ScriptError(f"{where}.seat", f"seat {seat} is outside 1…{settings.max_players}")
        if seat in parsed:
            raise ScriptError(f"{where}.seat", f"seat {seat} is listed twice")
        parsed[seat] = stack
    with_chips = sum(1 for stack in parsed.values() if stack > 0)
    if with_chips < 2:
        raise ScriptError("seats", "fewer than two players with chips")
    if settings.dealing is Dealing.SLOT and with_chips > 7:
        raise ScriptError("seats", "slot dealing deals to at most seven players")
    return tuple(sorted(parsed.items()))


def _parse_deck(script: dict[str, Any]) -> tuple[tuple[Card, ...], FairnessStream | None]:
    has_deck, has_fairness = "deck" in script, "fairness" in script
    if has_deck == has_fairness:
        raise ScriptError("deck", 'give exactly one of "deck" and "fairness"')
    if has_deck:
        deck = _list(script["deck"], "deck")
        cards: list[Card] = []
        seen: set[Card] = set()
        for i, text in enumerate(deck):
            if not is_card_text(text):
                raise ScriptError(f"deck[{i}]", f"unknown card {text!r}")
            card = parse_card(text)
            if card in seen:
                raise ScriptError(f"deck[{i}]", f"duplicate card {text}")
            seen.add(card)
            cards.append(card)
        return tuple(cards), None
    fairness = _object(script["fairness"], "fairness")
    for key in ("dealer_seed", "client_seed", "nonce"):
        if key not in fairness:
            raise ScriptError(f"fairness.{key}", "missing")
    try:
        seed = validate_dealer_seed(fairness["dealer_seed"])
    except FairnessError as error:
        raise ScriptError("fairness.dealer_seed", str(error)) from None
    try:
        client = validate_client_seed(fairness["client_seed"])
    except FairnessError as error:
        raise ScriptError("fairness.client_seed", str(error)) from None
    nonce = _count(fairness, "nonce", "fairness")
    assert nonce is not None
    deck, stream = deck_stream(seed, client, nonce)
    return tuple(deck), stream


_DOABLE = {kind.value: kind for kind in ActionKind}


def _parse_actions(value: object, seats: set[int]) -> tuple[ScriptAction, ...]:
    actions = _list(value, "actions")
    parsed: list[ScriptAction] = []
    for i, entry in enumerate(actions):
        where = f"actions[{i}]"
        entry = _object(entry, where)
        seat = _count(entry, "seat", where)
        assert seat is not None
        if seat not in seats:
            raise ScriptError(f"{where}.seat", f"seat {seat} is not at the table")
        if "do" not in entry:
            raise ScriptError(f"{where}.do", "missing")
        kind = _DOABLE.get(entry["do"]) if isinstance(entry["do"], str) else None
        if kind is None:
            raise ScriptError(f"{where}.do", f"unknown action {entry['do']!r}")
        to = None
        for key in ("to", "amount"):
            if key in entry:
                amount = _count(entry, key, where)
                if key == "to" or (kind is ActionKind.BRING_IN and key == "amount"):
                    to = amount
        parsed.append(ScriptAction(seat, kind, to))
    return tuple(parsed)


def parse_script(data: object) -> Script:
    """Check a decoded hand script and build a :class:`Script`; raises :class:`ScriptError`."""
    script = _object(data, "(script)")

    def field(key: str) -> Any:
        if key not in script:
            raise ScriptError(key, "missing")
        return script[key]

    settings = _parse_rules(field("rules"))
    stakes, rake, rake_given = _parse_stakes(field("stakes"))
    seats = _parse_seats(field("seats"), settings)
    button = field("button")
    if not _is_int(button):
        raise ScriptError("button", f"must be an integer, not {button!r}")
    seat_numbers = {seat for seat, _ in seats}
    if button not in seat_numbers:
        raise ScriptError("button", f"seat {button} is not at the table")
    deck, stream = _parse_deck(script)
    actions = _parse_actions(field("actions"), seat_numbers)
    return Script(settings, stakes, rake, rake_given, seats, button, deck, stream, actions)


def _to_act(hand: Hand) -> dict[str, Any] | None:
    if hand.to_act is None:
        return None
    kinds = {legal.kind for legal in hand.legal_actions()}
    return {"seat": hand.to_act, "legal": [str(k) for k in LEGAL_ORDER if k in kinds]}


def _failure(code: str, index: int | None, message: str, hand: Hand | None) -> dict[str, Any]:
    return {
        "ok": False,
        "error": {"code": code, "action_index": index, "message": message},
        "to_act": _to_act(hand) if hand is not None and not hand.is_over else None,
        "final_stacks": None,
    }


def replay(script: Script) -> dict[str, Any]:
    """Replay a script and return its output object (docs/hand-scripts.md §4)."""
    try:
        hand = script.new_hand()
    except DeckExhausted as error:
        return _failure("DECK_EXHAUSTED", None, str(error), None)
    for index, action in enumerate(script.actions):
        if hand.is_over:
            return _failure("HAND_OVER", index, f"action {index} came after the hand ended", None)
        try:
            hand.act(action.seat, action.kind, action.to)
        except ActionRefused as refused:
            return _failure(str(refused.code), index, refused.message, hand)
        except DeckExhausted as error:
            return _failure("DECK_EXHAUSTED", index, str(error), None)
    if not hand.is_over:
        return _failure(
            "INCOMPLETE",
            len(script.actions),
            f"the actions ran out; seat {hand.to_act} is to act",
            hand,
        )
    return result_to_json(hand.result(), hi_lo=script.settings.hi_lo)


def result_to_json(result: HandResult, *, hi_lo: bool = False) -> dict[str, Any]:
    """A finished hand's result in the output format of docs/hand-scripts.md §4."""
    hands: dict[str, Any] = {}
    for seat, shown in sorted(result.hands.items()):
        high = {"category": str(shown.category), "cards": format_cards(shown.cards)}
        if hi_lo:
            low = {"cards": format_cards(shown.low)} if shown.low else None
            hands[str(seat)] = {"high": high, "low": low}
        else:
            hands[str(seat)] = high
    bring_in = result.bring_in
    return {
        "ok": True,
        "bring_in": (
            None
            if bring_in is None
            else {
                "seat": bring_in.seat,
                "card": format_card(bring_in.card),
                "amount": bring_in.amount,
            }
        ),
        "first_to_act": {str(street): seat for street, seat in result.first_to_act.items()},
        "community_cards": format_cards(result.community_cards),
        "pots": [
            {
                "amount": pot.amount,
                "eligible": list(pot.eligible),
                "winners": list(pot.winners),
                "awards": {str(seat): chips for seat, chips in sorted(pot.awards.items())},
            }
            for pot in result.pots
        ],
        "returned": {str(seat): chips for seat, chips in sorted(result.returned.items())},
        "rake": result.rake,
        "shown": {str(seat): format_cards(cards) for seat, cards in sorted(result.shown.items())},
        "hands": hands,
        "final_stacks": {str(seat): chips for seat, chips in sorted(result.final_stacks.items())},
    }


def hand_trail(hand: Hand) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A hand's trail as its record keeps it, finished or cancelled: every card dealt with its
    deck position, and every action (decisions, bring-in, shows and mucks)."""
    up_by_index = {e.deck_index: (e.up, e.street) for e in hand.events if isinstance(e, CardDealt)}
    cards = []
    for seat, card, index in hand.dealt_cards:
        # A card with no deal event of its own is never claimed to be face up.
        up, street = up_by_index.get(index, (False, None))
        cards.append(
            {
                "seat": seat,
                "card": format_card(card),
                "deck_index": index,
                "up": up,
                "street": str(street) if street else None,
            }
        )
    actions = [a for a in map(action_record, hand.events) if a is not None]
    return cards, actions


def action_record(event: object) -> dict[str, Any] | None:
    """The trail's record of ``event`` when it is an action (see :func:`hand_trail`)."""
    if isinstance(event, ActionTaken):
        return {
            "seat": event.seat,
            "do": str(event.kind),
            "amount": event.amount,
            "to": event.to,
            "all_in": event.all_in,
            "timeout": event.by_timeout,
        }
    if isinstance(event, BringInPosted):
        return {
            "seat": event.seat,
            "do": "bring_in",
            "amount": event.amount,
            "all_in": event.all_in,
        }
    if isinstance(event, ProtectionApplied):
        return {"seat": event.seat, "do": "timeout", "protected": True}
    if isinstance(event, HandShown):
        return {"seat": event.seat, "do": "show"}
    if isinstance(event, HandMucked):
        return {"seat": event.seat, "do": "muck"}
    return None


_SIZED = frozenset({ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE})


#: the players' betting actions a record may name, by their ``do``
_BETTING = {
    kind.value: kind
    for kind in (
        ActionKind.FOLD,
        ActionKind.CHECK,
        ActionKind.CALL,
        ActionKind.BET,
        ActionKind.RAISE,
        ActionKind.COMPLETE,
    )
}


def apply_record(
    hand: Hand, action: Mapping[str, Any], error: type[Exception] = ValueError
) -> None:
    """Take one recorded action (a trail's, docs/hand-scripts.md §4) in ``hand``.

    A record that names no seat or an unknown action raises ``error`` (the caller's: the
    engine's ``ValueError``, the lobby's ``RecordInconsistent``); the rules refusing it raise
    ``ActionRefused``.
    """
    seat, what = action.get("seat"), action.get("do")
    if not isinstance(seat, int):
        raise error(f"an action names no seat: {dict(action)!r}")
    if action.get("timeout") is True or what == "timeout":
        hand.timeout(seat)
    elif what == "bring_in":
        amount = action.get("amount")
        amount = amount if isinstance(amount, int) else None
        if hand.can_bring_in(seat, amount):
            hand.bring_in(seat, amount)
        else:
            # A choice profile's completion is recorded as the bring-in it posted.
            hand.complete(seat)
    elif what == "show":
        hand.show(seat)
    elif what == "muck":
        hand.muck(seat)
    elif isinstance(what, str) and what in _BETTING:
        kind = _BETTING[what]
        to = action.get("to") if kind in _SIZED else None
        hand.act(seat, kind, to if isinstance(to, int) else None)
    else:
        raise error(f"an unknown action {what!r}")


def replay_actions(hand: Hand, recorded: list[dict[str, Any]], *, whole: bool = True) -> None:
    """Take ``recorded`` (a trail's actions, in order) again in ``hand``, dealt as it was.

    The rules' own actions (a forced bring-in, an automatic show) come by themselves and are
    only checked; the others are taken as the players took them. Raises ``ValueError`` when
    the record does not replay as it says, ``ActionRefused`` when the rules refuse one.

    ``whole=False`` is for the record of a hand a crash stopped: it may end before the rules'
    own actions that follow its last one (a hand's forced bring-in is stored with the next
    player's action, and the engine may have died before that write); they come all the same.

    >>> from engine_server.game.fairness import derive_deck
    >>> from engine_server.game.profiles import PROFILES, Stakes
    >>> hand = Hand(PROFILES["house"], Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4),
    ...             [(1, 100), (2, 100)], 1, derive_deck("ab" * 32, "client", 0))
    >>> replay_actions(hand, [])
    Traceback (most recent call last):
    ...
    ValueError: the rules did more than the record says
    >>> replay_actions(hand, [], whole=False)
    """
    produced: list[dict[str, Any]] = []
    seen = 0

    def catch_up() -> None:
        nonlocal seen
        produced.extend(a for a in map(action_record, hand.events[seen:]) if a is not None)
        seen = len(hand.events)

    catch_up()
    for number, action in enumerate(recorded):
        if len(produced) <= number:
            apply_record(hand, action)
            catch_up()
        if len(produced) <= number or produced[number] != action:
            raise ValueError(f"actions[{number}] does not replay as recorded")
    if whole and len(produced) != len(recorded):
        raise ValueError("the rules did more than the record says")
