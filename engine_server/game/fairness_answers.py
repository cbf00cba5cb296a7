"""Checking the lobby's fairness answers as they are, without trusting its verdict.

The lobby publishes two answers (docs/fairness.md §4.2; lobby_api/fairness/schemas.py):

* ``GET /hands/{hand_id}/fairness``: one hand's ``commitment``, ``client_seed``, ``nonce``,
  the cards the caller was dealt (``dealt``, each with its ``deck_index``: the form of a
  hand record's), once revealed its ``dealer_seed`` and a ``check`` whose ``deck`` is the deck
  the lobby says the seeds derive;
* ``GET /tables/{table_id}/fairness`` (also ``/seed-pairs``): a list of the table's seed pairs,
  each with ``commitment``, ``client_seed``, ``hands_dealt``, once revealed its
  ``dealer_seed``, and ``check.hands`` listing the caller's hands dealt with it (``hand_id``,
  ``nonce``, ``dealt``).

:func:`verify_hand_answer` and :func:`verify_table_answer` recompute everything from the seeds
with this package's own :func:`~engine_server.game.fairness.commitment` and
:func:`~engine_server.game.fairness.derive_deck`, and check every ``dealt`` card against the
deck derived for its hand (``cards_checked`` counts them); the lobby's ``ok``,
``commitment_ok``, ``deck_ok`` and ``mismatches`` are ignored. Other keys are ignored too, so
an answer is taken exactly as the lobby sent it. (``dealt`` holds only the caller's cards: the
lobby's own check covers every seat's, which it does not show him.)

Bad input (a missing or wrong-typed field) raises :class:`~engine_server.game.fairness.RecordError`
naming the field; an answer whose dealer seed is still secret raises :class:`NotRevealed`:
there is nothing to verify yet.

>>> seed = "0" * 62 + "2a"
>>> from engine_server.game.cards import format_cards
>>> from engine_server.game.fairness import derive_deck
>>> answer = {"hand_id": "h1", "commitment": commitment(seed), "client_seed": "alice",
...           "nonce": 0, "dealer_seed": seed, "revealed": True,
...           "check": {"deck": format_cards(derive_deck(seed, "alice", 0))}}
>>> verify_hand_answer(answer).ok
True
>>> answer["check"]["deck"][3] = "2c"  # the deck has As there
>>> verify_hand_answer(answer).problems
['deck index 3: the answer shows 2c, but the seeds derive As']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeGuard

from engine_server.game.cards import Card, CardError, format_card, format_cards, parse_card
from engine_server.game.fairness import (
    DECK_SIZE,
    FairnessError,
    Mismatch,
    RecordError,
    commitment,
    is_valid_client_seed,
    is_valid_dealer_seed,
    parse_record,
    verify_record,
)

__all__ = [
    "AnswerVerification",
    "HandCheck",
    "NotRevealed",
    "is_hand_answer",
    "verify_hand_answer",
    "verify_table_answer",
]


class NotRevealed(FairnessError):
    """The answer's dealer seed is still secret (``null``): nothing can be verified yet."""


@dataclass(frozen=True)
class HandCheck:
    """One hand that a table answer lists under a revealed seed pair, checked here."""

    ordinal: int
    hand_id: str
    nonce: int
    ok: bool
    #: The deck the pair's seeds derive for the hand's nonce, index 0 dealt first.
    deck: list[Card]
    #: How many of the hand's ``dealt`` cards were checked against ``deck``.
    cards_checked: int = 0
    #: Those that are not where ``deck`` puts them.
    mismatches: list[Mismatch] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        """The JSON form ``stud verify`` prints."""
        return {
            "ordinal": self.ordinal,
            "hand_id": self.hand_id,
            "nonce": self.nonce,
            "ok": self.ok,
            "cards_checked": self.cards_checked,
            "mismatches": [mismatch.as_json() for mismatch in self.mismatches],
            "deck": format_cards(self.deck),
        }


@dataclass(frozen=True)
class AnswerVerification:
    """The outcome of checking a lobby answer.

    ``ok`` holds exactly when ``problems`` is empty. ``commitment_ok``: every revealed dealer
    seed hashes to its commitment. ``cards_checked`` counts the ``dealt`` cards checked against
    the derived decks, and ``mismatches`` are those not where the deck puts them. For a hand
    answer, ``deck_ok`` says the deck it shows is the derived deck at every position and
    ``deck`` is that derived deck. For a table answer, ``hands`` has every listed hand of a
    revealed pair (each with its own cards checked) and ``pairs_unrevealed`` counts the pairs
    that could not be checked yet.
    """

    kind: str
    ok: bool
    commitment_ok: bool
    problems: list[str]
    mismatches: list[Mismatch] = field(default_factory=list)
    hand_id: str | None = None
    deck_ok: bool | None = None
    deck: list[Card] = field(default_factory=list)
    cards_checked: int = 0
    pairs_checked: int = 0
    pairs_unrevealed: int = 0
    hands: list[HandCheck] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        """The report ``stud verify`` prints: the keys a record's report has, then the
        answer's own."""
        report: dict[str, object] = {
            "ok": self.ok,
            "commitment_ok": self.commitment_ok,
            "mismatches": [mismatch.as_json() for mismatch in self.mismatches],
            "problems": list(self.problems),
            "input": self.kind,
        }
        if self.kind == "hand":
            report.update(
                hand_id=self.hand_id,
                deck_ok=self.deck_ok,
                cards_checked=self.cards_checked,
                deck=format_cards(self.deck),
            )
        else:
            report.update(
                pairs_checked=self.pairs_checked,
                pairs_unrevealed=self.pairs_unrevealed,
                cards_checked=self.cards_checked,
                hands=[hand.as_json() for hand in self.hands],
            )
        return report


def is_hand_answer(data: Mapping[str, object]) -> bool:
    """Whether a JSON object is the lobby's hand answer rather than a hand record.

    The lobby's answer always has ``hand_id`` and ``check`` (null until revealed), which a
    hand record (:func:`~engine_server.game.fairness.parse_record`) does not need; both have
    ``dealt``.

    >>> is_hand_answer({"hand_id": "h1", "check": None}), is_hand_answer({"dealt": []})
    (True, False)
    """
    return "hand_id" in data and "check" in data


def _field(data: Mapping[str, object], name: str, path: str) -> object:
    if name not in data:
        raise RecordError(path, "is missing")
    return data[name]


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _deck_shown(check: object, path: str) -> list[Card]:
    if not isinstance(check, Mapping):
        raise RecordError(path, "must be an object with the deck (the lobby's check)")
    deck = _field(check, "deck", f"{path}.deck")
    if not isinstance(deck, list):
        raise RecordError(f"{path}.deck", "must be a list of cards")
    cards = []
    for index, text in enumerate(deck):
        if not isinstance(text, str):
            raise RecordError(f"{path}.deck[{index}]", 'must be a card name such as "Ah"')
        try:
            cards.append(parse_card(text))
        except CardError:
            raise RecordError(f"{path}.deck[{index}]", f"not a card: {text!r}") from None
    return cards


def verify_hand_answer(data: Mapping[str, object]) -> AnswerVerification:
    """Check the lobby's answer to ``GET /hands/{hand_id}/fairness``.

    The commitment must be SHA-256 of the dealer seed, and ``check.deck`` must be the deck
    derived from the dealer seed, client seed and nonce at every one of its 52 positions.
    ``dealt`` cards (the caller's, in a record's form; an answer from a lobby that gave none
    checks none) must sit where that deck puts them. Raises :class:`NotRevealed` when
    ``dealer_seed`` is null and :class:`RecordError` for a missing or wrong-typed field.
    """
    hand_id = _field(data, "hand_id", "hand_id")
    if not isinstance(hand_id, str):
        raise RecordError("hand_id", "must be a string")
    if _field(data, "dealer_seed", "dealer_seed") is None:
        raise NotRevealed(
            f"hand {hand_id} is not revealed yet (dealer_seed is null): nothing to verify "
            "until its seed pair is revealed, after a seed rotation or when the table closes"
        )
    # The seeds, the nonce and any dealt cards: checked and compared as a record's are.
    record = parse_record({**data, "dealt": data.get("dealt", [])})
    verification = verify_record(record)
    shown = _deck_shown(_field(data, "check", "check"), "check")
    problems = list(verification.problems)
    if len(shown) != DECK_SIZE:
        problems.append(f"the answer's deck has {len(shown)} cards, not {DECK_SIZE}")
    for index, (shown_card, derived_card) in enumerate(zip(shown, verification.deck, strict=False)):
        if shown_card != derived_card:
            problems.append(
                f"deck index {index}: the answer shows {format_card(shown_card)}, "
                f"but the seeds derive {format_card(derived_card)}"
            )
    deck_ok = shown == verification.deck
    return AnswerVerification(
        kind="hand",
        ok=not problems,
        commitment_ok=verification.commitment_ok,
        problems=problems,
        mismatches=list(verification.mismatches),
        hand_id=hand_id,
        deck_ok=deck_ok,
        deck=verification.deck,
        cards_checked=len(record.dealt),
    )


def _seed_field(pair: Mapping[str, object], name: str, path: str, *, dealer: bool) -> str:
    value = _field(pair, name, f"{path}.{name}")
    valid = is_valid_dealer_seed(value) if dealer else is_valid_client_seed(value)
    if not valid:
        if dealer:
            problem = "must be 64 lowercase hex characters"
        else:
            problem = "must be 1 to 64 characters of [A-Za-z0-9_-] (a revealed pair has one)"
        raise RecordError(f"{path}.{name}", problem)
    assert isinstance(value, str)
    return value


def _check_pair(
    pair: Mapping[str, object], path: str, ordinal: int
) -> tuple[bool, list[HandCheck], list[str]]:
    """A revealed pair's commitment, and every hand its check lists: (commitment ok, the
    hands, the problems)."""
    dealer_seed = _seed_field(pair, "dealer_seed", path, dealer=True)
    client_seed = _seed_field(pair, "client_seed", path, dealer=False)
    committed = _seed_field(pair, "commitment", path, dealer=True)
    hands_dealt = _field(pair, "hands_dealt", f"{path}.hands_dealt")
    if not (_is_int(hands_dealt) and hands_dealt >= 0):
        raise RecordError(f"{path}.hands_dealt", "must be a non-negative integer")
    problems: list[str] = []
    expected = commitment(dealer_seed)
    commitment_ok = expected == committed
    if not commitment_ok:
        problems.append(
            f"seed pair {ordinal}: SHA-256 of the dealer seed is {expected}, "
            f"the answer's commitment is {committed}"
        )
    check = _field(pair, "check", f"{path}.check")
    if not isinstance(check, Mapping):
        raise RecordError(f"{path}.check", "must be an object listing the pair's hands")
    listed = _field(check, "hands", f"{path}.check.hands")
    if not isinstance(listed, list):
        raise RecordError(f"{path}.check.hands", "must be a list (possibly empty)")
    hands: list[HandCheck] = []
    first_with_nonce: dict[int, str] = {}
    for index, hand in enumerate(listed):
        where = f"{path}.check.hands[{index}]"
        if not isinstance(hand, Mapping):
            raise RecordError(where, "must be an object with hand_id and nonce")
        hand_id = _field(hand, "hand_id", f"{where}.hand_id")
        if not isinstance(hand_id, str):
            raise RecordError(f"{where}.hand_id", "must be a string")
        nonce = _field(hand, "nonce", f"{where}.nonce")
        if not (_is_int(nonce) and nonce >= 0):
            raise RecordError(f"{where}.nonce", "must be a non-negative integer")
        hand_problems = []
        if nonce >= hands_dealt:
            hand_problems.append(
                f"seed pair {ordinal}: hand {hand_id} has nonce {nonce}, but the pair dealt "
                f"{hands_dealt} hands (nonces 0 to {hands_dealt - 1})"
            )
        earlier = first_with_nonce.setdefault(nonce, hand_id)
        if earlier != hand_id:
            # One nonce is one deck: two hands on it would have been dealt the same cards.
            hand_problems.append(
                f"seed pair {ordinal}: nonce {nonce} is listed for hands {earlier} and {hand_id}"
            )
        # The hand's cards, checked as a record's are, against the deck of its nonce (the
        # seeds were checked above: only ``dealt`` can be bad input here). A wrong nonce
        # moves them all: said after the nonce's own problem.
        try:
            record = parse_record(
                {
                    "commitment": committed,
                    "dealer_seed": dealer_seed,
                    "client_seed": client_seed,
                    "nonce": nonce,
                    "dealt": hand.get("dealt", []),
                }
            )
        except RecordError as error:
            raise RecordError(f"{where}.{error.field}", error.problem) from None
        verification = verify_record(record)
        # The pair's commitment, if wrong, is said once above (verify_record puts it first).
        hand_problems += [
            f"seed pair {ordinal}, hand {hand_id}: {problem}"
            for problem in verification.problems[0 if verification.commitment_ok else 1 :]
        ]
        # The deck is printed too, so that a player can hold it against the cards he saw.
        ok = commitment_ok and not hand_problems
        hands.append(
            HandCheck(
                ordinal,
                hand_id,
                nonce,
                ok,
                verification.deck,
                cards_checked=len(record.dealt),
                mismatches=list(verification.mismatches),
            )
        )
        problems.extend(hand_problems)
    return commitment_ok, hands, problems


def verify_table_answer(data: Sequence[object]) -> AnswerVerification:
    """Check the lobby's answer to ``GET /tables/{table_id}/fairness``: a list of seed pairs.

    Every revealed pair (``dealer_seed`` not null) must have a commitment that is SHA-256 of its
    dealer seed, and every hand its ``check.hands`` lists must have a nonce below the pair's
    ``hands_dealt`` (no nonce twice) and its ``dealt`` cards where the deck derived for that
    nonce puts them; that deck is reported. Pairs not revealed yet are counted, not checked;
    :class:`NotRevealed` when none is.
    """
    if not data:
        raise FairnessError("the answer lists no seed pairs")
    problems: list[str] = []
    hands: list[HandCheck] = []
    commitment_ok = True
    checked = unrevealed = 0
    for index, pair in enumerate(data):
        path = f"[{index}]"
        if not isinstance(pair, Mapping):
            raise RecordError(path, "must be a seed pair (an object)")
        ordinal = pair.get("ordinal", index + 1)
        if not _is_int(ordinal):
            raise RecordError(f"{path}.ordinal", "must be an integer")
        assert isinstance(ordinal, int)
        if _field(pair, "dealer_seed", f"{path}.dealer_seed") is None:
            unrevealed += 1
            continue
        pair_ok, pair_hands, pair_problems = _check_pair(pair, path, ordinal)
        checked += 1
        commitment_ok = commitment_ok and pair_ok
        hands.extend(pair_hands)
        problems.extend(pair_problems)
    if not checked:
        raise NotRevealed(
            f"none of the table's {unrevealed} seed pairs is revealed yet (every dealer_seed "
            "is null): nothing to verify until a seed rotation or the table's closing"
        )
    return AnswerVerification(
        kind="table",
        ok=not problems,
        commitment_ok=commitment_ok,
        problems=problems,
        mismatches=[mismatch for hand in hands for mismatch in hand.mismatches],
        cards_checked=sum(hand.cards_checked for hand in hands),
        pairs_checked=checked,
        pairs_unrevealed=unrevealed,
        hands=hands,
    )
