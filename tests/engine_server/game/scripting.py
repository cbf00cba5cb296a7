"""Test support for the rules tests: hand scripts and decks built by hand.

A test names the cards each dealing position gets; these helpers put them
where docs/rules.md §2.3 says they are dealt from and fill the rest of the deck with
cards nobody named.

- Slot dealing (``house``): the player in dealing position ``p`` gets as his
  k-th card ``deck[7k + p]``.
- Top dealing (the other profiles): cards come off the top one at a time,
  burns included: third street is one round of first down cards, one of
  second down cards, one of door cards (position 0 first each time); every
  later street gives one card to each player still in, in dealing order.

>>> deck = slot_deck(["As Kd 2c", "Qh Jh 3d"])
>>> deck[0], deck[1], deck[7], deck[8], deck[14], deck[15], len(deck)
('As', 'Qh', 'Kd', 'Jh', '2c', '3d', 52)
>>> top_deck(["As Kd 2c 9h", "Qh Jh 3d"], burns=["fourth"], burn_cards={"fourth": "7s"}, fill=False)
['As', 'Qh', 'Kd', 'Jh', '2c', '3d', '7s', '9h']
>>> script("house", seats={1: 50, 2: 50}, button=2, deck=deck, actions=[(2, "fold")])["actions"]
[{'seat': 2, 'do': 'fold'}]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine_server.game.actions import ActionKind
from engine_server.game.cards import format_card
from engine_server.game.hand import Hand
from engine_server.game.replay import parse_script, replay

__all__ = [
    "ALL_CARDS",
    "ANY",
    "STREETS",
    "Action",
    "hand_after",
    "legal",
    "legal_kinds",
    "run",
    "script",
    "slot_deck",
    "split",
    "top_deck",
]

#: every card in canonical order, 2c first: the order unnamed slots are filled from
ALL_CARDS: tuple[str, ...] = tuple(format_card(c) for c in range(52))

STREETS: tuple[str, ...] = ("third", "fourth", "fifth", "sixth", "seventh")

#: a card a test does not care about: any spare card is dealt there
ANY = "??"

#: ``(seat, do)`` or ``(seat, do, amount)``: ``amount`` is "amount" for a
#: bring-in and "to" for everything else.
Action = tuple[Any, ...]


def split(cards: str | Sequence[str]) -> list[str]:
    """``"As Kd"`` -> ``["As", "Kd"]``; a list is returned as a list."""
    return cards.split() if isinstance(cards, str) else list(cards)


def _named(card: str) -> str | None:
    """``"??"`` stands for a card nobody cares about (filled with a spare)."""
    return None if card == ANY else card


def _filled(slots: list[str | None], *, fill: bool, length: int = 52) -> list[str]:
    named = [c for c in slots if c is not None]
    if len(set(named)) != len(named):
        dupes = sorted({c for c in named if named.count(c) > 1})
        raise ValueError(f"a card is named twice: {dupes}")
    unknown = [c for c in named if c not in ALL_CARDS]
    if unknown:
        raise ValueError(f"not cards: {unknown}")
    spare = iter(c for c in ALL_CARDS if c not in set(named))
    if fill:
        slots = slots + [None] * (length - len(slots))
    else:
        while slots and slots[-1] is None:
            slots = slots[:-1]
    return [c if c is not None else next(spare) for c in slots]


def slot_deck(hands: Sequence[str | Sequence[str]], *, fill: bool = True) -> list[str]:
    """A deck where dealing position ``p`` gets ``hands[p]`` (slot dealing).

    ``fill=False`` stops the deck after the last named card (a short deck).
    """
    slots: list[str | None] = [None] * 52
    for p, hand in enumerate(hands):
        for k, card in enumerate(split(hand)):
            slots[7 * k + p] = _named(card)
    return _filled(slots, fill=fill)


def top_deck(
    hands: Sequence[str | Sequence[str]],
    *,
    burns: Iterable[str] = (),
    burn_cards: Mapping[str, str] | None = None,
    tail: str | Sequence[str] = (),
    fill: bool = True,
) -> list[str]:
    """A top-dealt deck giving dealing position ``p`` the cards ``hands[p]``.

    A hand lists the cards its player actually receives: a player who folds
    before fifth street lists four cards. A street is dealt to every hand
    that lists a card for it. ``burns`` are the streets burned before;
    ``burn_cards`` names a burn card (otherwise a spare card is burned).
    ``tail`` comes right after the last dealt card (e.g. a community card).
    """
    lists = [split(h) for h in hands]
    burn_set = set(burns)
    named_burns = dict(burn_cards or {})
    slots: list[str | None] = []
    if "third" in burn_set:
        slots.append(named_burns.get("third"))
    for k in range(3):
        slots.extend(_named(cards[k]) for cards in lists)
    for k, street in enumerate(STREETS[1:], start=3):
        live = [cards for cards in lists if len(cards) > k]
        if not live:
            break
        if street in burn_set:
            slots.append(named_burns.get(street))
        slots.extend(_named(cards[k]) for cards in live)
    slots.extend(_named(c) for c in split(tail))
    return _filled(slots, fill=fill)


def _action(entry: Action) -> dict[str, Any]:
    seat, do = entry[0], entry[1]
    out: dict[str, Any] = {"seat": seat, "do": do}
    if len(entry) == 3:
        out["amount" if do == "bring_in" else "to"] = entry[2]
    return out


def script(
    rules: str | Mapping[str, Any],
    *,
    seats: Mapping[int, int],
    button: int,
    deck: Sequence[str],
    actions: Iterable[Action] = (),
    stakes: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A hand script (docs/hand-scripts.md) as a dict; stakes default to ante 1, small bet 2."""
    return {
        "rules": rules if isinstance(rules, str) else dict(rules),
        "stakes": dict(stakes) if stakes is not None else {"ante": 1, "small_bet": 2},
        "seats": [{"seat": s, "stack": stack} for s, stack in seats.items()],
        "button": button,
        "deck": list(deck),
        "actions": [_action(a) for a in actions],
    }


def run(rules: str | Mapping[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Replay a script built by :func:`script` and return the output dict."""
    return replay(parse_script(script(rules, **kwargs)))


def hand_after(rules: str | Mapping[str, Any], **kwargs: Any) -> Hand:
    """The live :class:`Hand` after the script's actions (each must be accepted)."""
    parsed = parse_script(script(rules, **kwargs))
    hand = parsed.new_hand()
    for action in parsed.actions:
        hand.act(action.seat, action.kind, action.to)
    return hand


def legal_kinds(hand: Hand) -> list[str]:
    """The names of the legal actions of the seat to act, in the engine's order."""
    return [str(a.kind) for a in hand.legal_actions()]


def legal(hand: Hand, kind: str) -> tuple[int, int, tuple[int, ...]]:
    """``(min_to, max_to, sizes)`` of one legal action (``KeyError`` when not legal)."""
    for action in hand.legal_actions():
        if action.kind is ActionKind(kind):
            return action.min_to, action.max_to, action.sizes
    raise KeyError(kind)
