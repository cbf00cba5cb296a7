"""A bot's decision on its turn: a simple, sensible Seven-Card Stud strategy.

The bot looks only at what its own seat view shows (its cards, the legal actions) and
sorts its hand into three classes:

- **strong**: two pair or better, or a big pair (tens or better) on third or fourth street;
- **medium**: any pair, three or more cards of one suit (four from fifth street on), an
  ace or king on third street;
- **weak**: anything else.

Strong hands bet, complete or raise (at the smallest legal size) most of the time; medium
hands check and call; weak hands check when it is free, sometimes call a cheap third
street, and fold otherwise. At an ordered showdown the bot always shows. It never sends an
action that is not among the legal ones.

>>> from stud.v1 import settings_pb2 as s, table_pb2 as t
>>> snap = t.TableSnapshot(viewer_seat=2, street=s.STREET_THIRD, seats=[
...     t.Seat(number=2, down_cards=["Ah", "Ad"], up_cards=["7c"])],
...     legal_actions=[t.LegalAction(kind=t.ACTION_KIND_FOLD),
...                    t.LegalAction(kind=t.ACTION_KIND_CALL, min_amount=1, max_amount=1),
...                    t.LegalAction(kind=t.ACTION_KIND_COMPLETE, min_amount=2, max_amount=2)])
>>> classify(["Ah", "Ad", "7c"], s.STREET_THIRD)
'strong'
>>> d = decide(snap, random.Random(1), aggression=1.0)
>>> t.ActionKind.Name(d.kind), d.amount
('ACTION_KIND_COMPLETE', None)
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from stud.v1 import settings_pb2, table_pb2

__all__ = ["Decision", "classify", "decide"]

RANKS = "23456789TJQKA"
_BIG_PAIR = RANKS.index("T")

FOLD = table_pb2.ACTION_KIND_FOLD
CHECK = table_pb2.ACTION_KIND_CHECK
CALL = table_pb2.ACTION_KIND_CALL
BET = table_pb2.ACTION_KIND_BET
RAISE = table_pb2.ACTION_KIND_RAISE
COMPLETE = table_pb2.ACTION_KIND_COMPLETE
BRING_IN = table_pb2.ACTION_KIND_BRING_IN
SHOW = table_pb2.ACTION_KIND_SHOW
MUCK = table_pb2.ACTION_KIND_MUCK

#: What a bot falls back to when its preferred actions are not legal: passive first.
PASSIVE = (CHECK, CALL, BRING_IN, COMPLETE, SHOW, FOLD, MUCK)


@dataclass(frozen=True, slots=True)
class Decision:
    """An action to send: its kind and, when the legal action has a range, the amount."""

    kind: table_pb2.ActionKind.ValueType
    amount: int | None = None


def classify(cards: list[str], street: settings_pb2.Street.ValueType) -> str:
    """``"strong"``, ``"medium"`` or ``"weak"`` for the bot's own cards on ``street``."""
    ranks = Counter(card[0] for card in cards if len(card) == 2)
    suits = Counter(card[1] for card in cards if len(card) == 2)
    counts = sorted(ranks.values(), reverse=True)
    pairs = [rank for rank, n in ranks.items() if n >= 2]
    early = street in (settings_pb2.STREET_THIRD, settings_pb2.STREET_FOURTH)
    if counts and counts[0] >= 3:
        return "strong"
    if len(pairs) >= 2:
        return "strong"
    if pairs and early and max(RANKS.index(r) for r in pairs) >= _BIG_PAIR:
        return "strong"
    if pairs:
        return "medium"
    flush_cards = max(suits.values(), default=0)
    if flush_cards >= (3 if early else 4):
        return "medium"
    if street == settings_pb2.STREET_THIRD and any(r in ranks for r in "AK"):
        return "medium"
    return "weak"


def _sized(action: table_pb2.LegalAction) -> Decision:
    """The action at its smallest legal size (an amount only where Act needs one)."""
    if action.min_amount == action.max_amount:
        return Decision(action.kind)
    if action.amounts:
        return Decision(action.kind, action.amounts[0])
    return Decision(action.kind, action.min_amount)


def decide(
    snapshot: table_pb2.TableSnapshot, rng: random.Random, *, aggression: float = 0.7
) -> Decision | None:
    """The bot's action on this snapshot, or None when it has nothing legal to do.

    ``aggression`` is the chance a strong hand bets or raises rather than just calling.
    """
    legal = {action.kind: action for action in snapshot.legal_actions}
    if not legal:
        return None
    if SHOW in legal:
        return _sized(legal[SHOW])
    if BRING_IN in legal and len(legal) <= 2:
        # The choice of a bring-in's size: the smallest (a completion costs a full bet).
        return _sized(legal[BRING_IN])
    mine = next((s for s in snapshot.seats if s.number == snapshot.viewer_seat), None)
    cards = [*mine.down_cards, *mine.up_cards] if mine is not None else []
    strength = classify(cards, snapshot.street)

    wanted: list[table_pb2.ActionKind.ValueType]
    if strength == "strong":
        wanted = [COMPLETE, RAISE, BET] if rng.random() < aggression else []
        wanted += [CALL, CHECK]
    elif strength == "medium":
        wanted = [CHECK, CALL]
        if rng.random() < aggression / 4:
            wanted.insert(0, BET)
    else:
        wanted = [CHECK]
        call = legal.get(CALL)
        cheap = (
            call is not None
            and snapshot.street == settings_pb2.STREET_THIRD
            and call.min_amount <= snapshot.settings.stakes.small_bet
        )
        if cheap and rng.random() < 0.5:
            wanted.append(CALL)
        wanted.append(FOLD)
    for kind in (*wanted, *PASSIVE):
        if kind in legal:
            return _sized(legal[kind])
    return _sized(snapshot.legal_actions[0])
