"""Provably fair decks: seeds, the HMAC-SHA256 stream, the shuffle and its check.

Everything here follows docs/fairness.md, which is normative; this module adds no
rule of its own. A deck is a function of the dealer seed, the client seed and
the nonce, so anyone holding the three can recompute it once the dealer seed
is revealed:

>>> from engine_server.game.cards import format_cards
>>> deck = derive_deck("0" * 62 + "2a", "alice", 0)
>>> format_cards(deck[:8])
['5h', '5s', '9d', 'As', 'Kh', '7s', '4c', 'Ks']
>>> sorted(deck) == list(CANONICAL_DECK)
True
>>> commitment("0" * 62 + "2a")
'9cf49eeaaa45bd96bd47cf2cfeaeb0df96b82897144c8db521cc1330cc495761'

The only I/O is :func:`new_dealer_seed`, which reads the operating system's
CSPRNG through :mod:`secrets`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, TypeGuard

from engine_server.game.cards import (
    CANONICAL_DECK,
    Card,
    CardError,
    format_card,
    parse_card,
)

__all__ = [
    "DEALER_SEED_BYTES",
    "DECK_SIZE",
    "MAX_CLIENT_SEED_LENGTH",
    "WORDS_PER_BLOCK",
    "DealtCard",
    "FairnessError",
    "FairnessRecord",
    "FairnessStream",
    "Mismatch",
    "RecordError",
    "Verification",
    "commitment",
    "deck_stream",
    "derive_deck",
    "is_valid_client_seed",
    "is_valid_dealer_seed",
    "new_dealer_seed",
    "parse_record",
    "shuffle",
    "validate_client_seed",
    "validate_dealer_seed",
    "validate_nonce",
    "verify_record",
]

DEALER_SEED_BYTES: Final = 32
MAX_CLIENT_SEED_LENGTH: Final = 64
#: A SHA-256 block is 32 bytes, i.e. eight big-endian 32-bit words.
WORDS_PER_BLOCK: Final = 8
DECK_SIZE: Final = len(CANONICAL_DECK)

_HEX_LENGTH: Final = 2 * DEALER_SEED_BYTES
_LOWER_HEX: Final = frozenset("0123456789abcdef")
_CLIENT_SEED_CHARS: Final = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
)
_TWO_32: Final = 1 << 32
_LOW_32: Final = _TWO_32 - 1
_BLOCK_WORDS: Final = struct.Struct(">8I")


class FairnessError(ValueError):
    """A seed, nonce or record that docs/fairness.md §1 does not allow."""


class RecordError(FairnessError):
    """A hand record's fairness part with a missing, wrong-typed or bad field.

    ``field`` is the path of the offending value, such as ``"nonce"`` or
    ``"dealt[2].card"``, so that a caller can point at it.

    >>> str(RecordError("nonce", "must be a non-negative integer"))
    'field "nonce": must be a non-negative integer'
    """

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f'field "{field}": {problem}')
        self.field = field
        self.problem = problem


# --- seeds ---------------------------------------------------------------


def new_dealer_seed() -> str:
    """A fresh dealer seed: 32 bytes from the OS CSPRNG as 64 lowercase hex.

    >>> seed = new_dealer_seed()
    >>> is_valid_dealer_seed(seed)
    True
    """
    return secrets.token_bytes(DEALER_SEED_BYTES).hex()


def _dealer_seed_problem(seed: object) -> str | None:
    if not isinstance(seed, str):
        return f"must be a string, not {type(seed).__name__}"
    if len(seed) != _HEX_LENGTH:
        return f"must be {_HEX_LENGTH} lowercase hex characters, not {len(seed)}"
    for char in seed:
        if char not in _LOWER_HEX:
            # Upper case is refused rather than folded: the HMAC key is the
            # text itself, so "AB" and "ab" would derive different decks.
            return f"must be {_HEX_LENGTH} lowercase hex characters; {char!r} is not one"
    return None


def is_valid_dealer_seed(seed: object) -> bool:
    """Whether ``seed`` is 64 lowercase hex characters.

    >>> is_valid_dealer_seed("0" * 64), is_valid_dealer_seed("A" * 64)
    (True, False)
    """
    return _dealer_seed_problem(seed) is None


def validate_dealer_seed(seed: object) -> str:
    """Return ``seed`` if it is a dealer seed, else raise :class:`FairnessError`.

    >>> validate_dealer_seed("ab" * 32) == "ab" * 32
    True
    >>> try:
    ...     validate_dealer_seed("00")
    ... except FairnessError as error:
    ...     print(error)
    dealer seed must be 64 lowercase hex characters, not 2
    """
    problem = _dealer_seed_problem(seed)
    if problem is not None:
        raise FairnessError(f"dealer seed {problem}")
    assert isinstance(seed, str)
    return seed


def _client_seed_problem(seed: object) -> str | None:
    if not isinstance(seed, str):
        return f"must be a string, not {type(seed).__name__}"
    if not seed:
        return "must not be empty (1 to 64 characters of [A-Za-z0-9_-])"
    if len(seed) > MAX_CLIENT_SEED_LENGTH:
        return f"must be at most {MAX_CLIENT_SEED_LENGTH} characters, not {len(seed)}"
    for char in seed:
        if char not in _CLIENT_SEED_CHARS:
            # A ':' in particular would make "{client_seed}:{nonce}:{r}" ambiguous.
            return f"may only contain [A-Za-z0-9_-]; {char!r} is not allowed"
    return None


def is_valid_client_seed(seed: object) -> bool:
    """Whether ``seed`` is 1–64 characters of ``[A-Za-z0-9_-]``.

    >>> is_valid_client_seed("alice"), is_valid_client_seed("a:b"), is_valid_client_seed("")
    (True, False, False)
    """
    return _client_seed_problem(seed) is None


def validate_client_seed(seed: object) -> str:
    """Return ``seed`` if it is a client seed, else raise :class:`FairnessError`.

    >>> validate_client_seed("alice_01")
    'alice_01'
    >>> try:
    ...     validate_client_seed("al ice")
    ... except FairnessError as error:
    ...     print(error)
    client seed may only contain [A-Za-z0-9_-]; ' ' is not allowed
    """
    problem = _client_seed_problem(seed)
    if problem is not None:
        raise FairnessError(f"client seed {problem}")
    assert isinstance(seed, str)
    return seed


def validate_nonce(nonce: object) -> int:
    """Return ``nonce`` if it is a non-negative ``int``, else raise :class:`FairnessError`.

    ``bool`` is refused although it is an ``int`` subclass: ``True`` as a hand
    number is a bug upstream, not hand 1.

    >>> validate_nonce(3)
    3
    >>> validate_nonce(-1)
    Traceback (most recent call last):
    ...
    engine_server.game.fairness.FairnessError: nonce must be a non-negative integer, not -1
    """
    if isinstance(nonce, bool) or not isinstance(nonce, int) or nonce < 0:
        raise FairnessError(f"nonce must be a non-negative integer, not {nonce!r}")
    return nonce


def commitment(dealer_seed: str) -> str:
    """SHA-256 of the dealer seed's 64 ASCII hex characters, as lowercase hex.

    >>> commitment("0" * 64)
    '60e05bd1b195af2f94112fa7197a5c88289058840ce7c6df9693756bc6250f55'
    """
    return hashlib.sha256(validate_dealer_seed(dealer_seed).encode("ascii")).hexdigest()


# --- the stream and the draw ---------------------------------------------


class FairnessStream:
    """The 32-bit words of a hand's byte stream, and unbiased draws from them.

    Built from seeds, the words are ``block(0) ‖ block(1) ‖ …`` with
    ``block(r) = HMAC-SHA256(dealer_seed, f"{client_seed}:{nonce}:{r}")``, read
    four bytes at a time big-endian. :meth:`from_words` and :meth:`from_bytes`
    build a stream from any other source, so that tests can force a word.

    >>> stream = FairnessStream.from_words([0, (1 << 31) + 1])
    >>> stream.draw(52)  # 0 is discarded for n = 52, as 0 · 52 < 2**32 % 52 = 48
    26
    >>> stream.words_read
    2
    """

    __slots__ = ("_buffer", "_next_chunk", "_position", "_words_read")

    def __init__(self, dealer_seed: str, client_seed: str, nonce: int) -> None:
        key = validate_dealer_seed(dealer_seed).encode("ascii")
        prefix = f"{validate_client_seed(client_seed)}:{validate_nonce(nonce)}:"
        blocks = _hmac_blocks(key, prefix)
        self._init(lambda: next(blocks))

    @classmethod
    def from_chunks(cls, next_chunk: Callable[[], Sequence[int]]) -> FairnessStream:
        """A stream whose words come from ``next_chunk()``, a few at a time.

        ``next_chunk`` returns the next words (each 0 ≤ w < 2**32, at least one
        per call) or raises :class:`FairnessError` when there are no more.
        """
        stream = cls.__new__(cls)
        stream._init(next_chunk)
        return stream

    @classmethod
    def from_words(cls, words: Iterable[int]) -> FairnessStream:
        """A stream that yields ``words`` in order, then fails.

        >>> s = FairnessStream.from_words([5])
        >>> s.next_word()
        5
        >>> s.next_word()
        Traceback (most recent call last):
        ...
        engine_server.game.fairness.FairnessError: the word source is exhausted after 1 words
        """
        iterator = iter(words)
        consumed = 0

        def next_chunk() -> Sequence[int]:
            nonlocal consumed
            for word in iterator:
                if not 0 <= word < _TWO_32:
                    raise FairnessError(f"not a 32-bit word: {word!r}")
                consumed += 1
                return (word,)
            raise FairnessError(f"the word source is exhausted after {consumed} words")

        return cls.from_chunks(next_chunk)

    @classmethod
    def from_bytes(cls, data: bytes) -> FairnessStream:
        """A stream that reads ``data`` four bytes at a time, big-endian.

        >>> FairnessStream.from_bytes(bytes([0, 0, 1, 0])).next_word()
        256
        """
        if len(data) % 4:
            raise FairnessError(f"a byte source must hold whole words, not {len(data)} bytes")
        return cls.from_words(struct.unpack(f">{len(data) // 4}I", data))

    def _init(self, next_chunk: Callable[[], Sequence[int]]) -> None:
        self._next_chunk = next_chunk
        self._buffer: Sequence[int] = ()
        self._position = 0
        self._words_read = 0

    @property
    def words_read(self) -> int:
        """How many 32-bit words have been read so far (discarded ones too).

        With seeds, the next word comes from ``block(words_read // 8)``.
        """
        return self._words_read

    def next_word(self) -> int:
        """The next big-endian 32-bit word of the stream."""
        if self._position >= len(self._buffer):
            self._buffer = self._next_chunk()
            self._position = 0
        word = self._buffer[self._position]
        self._position += 1
        self._words_read += 1
        return word

    def draw(self, n: int) -> int:
        """An unbiased integer in ``range(n)``, by Lemire's method (docs/fairness.md §2.2).

        Read ``x``; with ``m = x · n``, discard ``x`` while
        ``m mod 2**32 < 2**32 mod n``, else return ``m >> 32``. Every draw reads
        at least one word, ``draw(1)`` included, so that a stream's position
        after a deck never depends on the cards.

        >>> FairnessStream.from_words([3 << 30]).draw(4)  # floor(0.75 · 4)
        3
        """
        if not 1 <= n <= _TWO_32:
            raise ValueError(f"can only draw below n for 1 <= n <= 2**32, not {n}")
        threshold = _TWO_32 % n
        while True:
            # Inlined next_word(): a deck makes 52 draws and tests make
            # hundreds of thousands of decks.
            if self._position >= len(self._buffer):
                self._buffer = self._next_chunk()
                self._position = 0
            m = self._buffer[self._position] * n
            self._position += 1
            self._words_read += 1
            if m & _LOW_32 >= threshold:
                return m >> 32


def _hmac_blocks(key: bytes, prefix: str) -> Iterator[tuple[int, ...]]:
    round_number = 0
    while True:
        message = f"{prefix}{round_number}".encode("ascii")
        yield _BLOCK_WORDS.unpack(hmac.digest(key, message, "sha256"))
        round_number += 1


# --- the deck ------------------------------------------------------------


def shuffle(cards: Sequence[Card], stream: FairnessStream) -> list[Card]:
    """Reorder ``cards`` with ``stream``: for k = 0…len−1, take out the card at
    ``draw(len − k)`` of the remaining ones and append it.

    Live play also uses this to shuffle burned cards back into the stub,
    continuing the hand's stream (see :func:`deck_stream`).

    >>> shuffle([10, 20, 30], FairnessStream.from_words([1, 1, 1]))
    [10, 20, 30]
    >>> shuffle([10, 20, 30], FairnessStream.from_words([0xFFFFFFFF] * 3))
    [30, 20, 10]
    """
    remaining = list(cards)
    draw = stream.draw
    return [remaining.pop(draw(size)) for size in range(len(remaining), 0, -1)]


def deck_stream(
    dealer_seed: str, client_seed: str, nonce: int
) -> tuple[list[Card], FairnessStream]:
    """The hand's deck and its stream, positioned right after the deck's draws.

    The rules engine continues that same stream when a profile shuffles
    burned cards back into the stub (docs/rules.md §2.10).

    >>> deck, stream = deck_stream("0" * 62 + "2a", "alice", 0)
    >>> deck == derive_deck("0" * 62 + "2a", "alice", 0), stream.words_read >= 52
    (True, True)
    """
    stream = FairnessStream(dealer_seed, client_seed, nonce)
    return shuffle(CANONICAL_DECK, stream), stream


def derive_deck(dealer_seed: str, client_seed: str, nonce: int) -> list[Card]:
    """The 52-card deck of a seed pair and nonce; index 0 is dealt first.

    >>> from engine_server.game.cards import format_cards
    >>> format_cards(derive_deck("0" * 62 + "2a", "alice", 0)[-3:])
    ['6h', '8h', '5d']
    """
    return shuffle(CANONICAL_DECK, FairnessStream(dealer_seed, client_seed, nonce))


# --- verification ----------------------------------------------------------


@dataclass(frozen=True)
class DealtCard:
    """A card the hand history records as dealt.

    ``deck_index`` is the card's position in the 52-card derived deck (0…51),
    also for a card dealt after burns were shuffled back into the stub: the
    original position is what the seeds prove, so it is always checkable.
    ``seat`` is ``None`` for a community card.
    """

    seat: int | None
    card: Card
    deck_index: int


@dataclass(frozen=True)
class FairnessRecord:
    """The fairness part of a hand record, with the dealer seed revealed."""

    commitment: str
    dealer_seed: str
    client_seed: str
    nonce: int
    dealt: tuple[DealtCard, ...] = ()


@dataclass(frozen=True)
class Mismatch:
    """A recorded card that is not where the derived deck puts it."""

    seat: int | None
    card: Card
    deck_index: int
    deck_card: Card

    def describe(self) -> str:
        """One human-readable line.

        >>> Mismatch(1, 51, 7, 0).describe()
        'seat 1 was dealt As as deck index 7, but the deck has 2c there'
        """
        who = "the community card" if self.seat is None else f"seat {self.seat}"
        verb = "is" if self.seat is None else "was dealt"
        return (
            f"{who} {verb} {format_card(self.card)} as deck index {self.deck_index}, "
            f"but the deck has {format_card(self.deck_card)} there"
        )

    def as_json(self) -> dict[str, object]:
        """The JSON form used by ``stud verify``."""
        return {
            "seat": self.seat,
            "card": format_card(self.card),
            "deck_index": self.deck_index,
            "deck_card": format_card(self.deck_card),
        }


@dataclass(frozen=True)
class Verification:
    """The outcome of :func:`verify_record`.

    ``ok`` holds exactly when ``problems`` is empty; ``problems`` describes
    everything wrong in words, ``mismatches`` the misplaced cards as data.
    """

    ok: bool
    commitment_ok: bool
    deck: list[Card]
    mismatches: list[Mismatch]
    problems: list[str]

    def as_json(self) -> dict[str, object]:
        """The report ``stud verify`` prints."""
        return {
            "ok": self.ok,
            "commitment_ok": self.commitment_ok,
            "mismatches": [mismatch.as_json() for mismatch in self.mismatches],
            "problems": list(self.problems),
        }


def verify_record(record: FairnessRecord) -> Verification:
    """Check a record: the commitment against the seed, every dealt card
    against the recomputed deck, and no deck position recorded twice.

    >>> seed = "0" * 62 + "2a"
    >>> record = FairnessRecord(commitment(seed), seed, "alice", 0, (DealtCard(1, 29, 0),))
    >>> verify_record(record).ok  # 29 is 9h; the deck starts with 5h
    False
    >>> verify_record(FairnessRecord(commitment(seed), seed, "alice", 0, (DealtCard(1, 14, 0),))).ok
    True
    """
    deck = derive_deck(record.dealer_seed, record.client_seed, record.nonce)
    expected = commitment(record.dealer_seed)
    commitment_ok = expected == record.commitment
    problems: list[str] = []
    if not commitment_ok:
        problems.append(
            f"commitment mismatch: SHA-256 of the dealer seed is {expected}, "
            f"the record says {record.commitment}"
        )
    mismatches: list[Mismatch] = []
    first_entry: dict[int, int] = {}
    for entry_number, dealt in enumerate(record.dealt):
        if not 0 <= dealt.deck_index < len(deck):
            # parse_record refuses this; a record built in code gets a
            # failed check rather than an IndexError.
            problems.append(
                f"dealt[{entry_number}] has deck index {dealt.deck_index}, "
                f"outside the deck (0 to {len(deck) - 1})"
            )
            continue
        earlier = first_entry.setdefault(dealt.deck_index, entry_number)
        if earlier != entry_number:
            # A deck position can be dealt only once; a card recorded twice at
            # different positions already shows up as a mismatch below.
            problems.append(
                f"deck index {dealt.deck_index} is recorded as dealt twice "
                f"(dealt[{earlier}] and dealt[{entry_number}])"
            )
        deck_card = deck[dealt.deck_index]
        if deck_card != dealt.card:
            mismatch = Mismatch(dealt.seat, dealt.card, dealt.deck_index, deck_card)
            mismatches.append(mismatch)
            problems.append(mismatch.describe())
    return Verification(
        ok=not problems,
        commitment_ok=commitment_ok,
        deck=deck,
        mismatches=mismatches,
        problems=problems,
    )


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _field(data: Mapping[str, object], name: str, path: str) -> object:
    if name not in data:
        raise RecordError(path, "is missing")
    return data[name]


def _parse_dealt(value: object, path: str) -> DealtCard:
    if not isinstance(value, Mapping):
        raise RecordError(path, "must be an object with seat, card and deck_index")
    seat = _field(value, "seat", f"{path}.seat")
    if seat is not None and not (_is_int(seat) and seat >= 1):
        raise RecordError(f"{path}.seat", "must be a seat number (1 or more) or null")
    card_text = _field(value, "card", f"{path}.card")
    if not isinstance(card_text, str):
        raise RecordError(f"{path}.card", 'must be a card name such as "Ah"')
    try:
        card = parse_card(card_text)
    except CardError:
        raise RecordError(f"{path}.card", f"not a card: {card_text!r}") from None
    index = _field(value, "deck_index", f"{path}.deck_index")
    if not (_is_int(index) and 0 <= index < DECK_SIZE):
        raise RecordError(f"{path}.deck_index", f"must be an integer from 0 to {DECK_SIZE - 1}")
    assert seat is None or _is_int(seat)
    return DealtCard(seat=seat, card=card, deck_index=index)


def parse_record(data: object) -> FairnessRecord:
    """Check and convert the JSON form of a record's fairness part.

    ``data`` is what :func:`json.loads` gives for::

        {"commitment": HEX, "dealer_seed": HEX, "client_seed": STR, "nonce": N,
         "dealt": [{"seat": 1, "card": "Ah", "deck_index": 7}, ...]}

    ``dealt`` may be empty; ``seat`` is ``null`` for a community card; other
    keys are ignored. Raises :class:`RecordError` naming the first bad field.

    >>> parse_record({"commitment": "0" * 64, "dealer_seed": "1" * 64,
    ...               "client_seed": "bob", "nonce": 2, "dealt": []}).nonce
    2
    >>> parse_record({"commitment": "0" * 64, "dealer_seed": "1" * 64,
    ...               "client_seed": "bob", "nonce": "2", "dealt": []})
    Traceback (most recent call last):
    ...
    engine_server.game.fairness.RecordError: field "nonce": must be a non-negative integer
    """
    if not isinstance(data, Mapping):
        raise RecordError("(record)", "must be a JSON object")
    commitment_text = _field(data, "commitment", "commitment")
    # A commitment is a SHA-256 in the same 64-lowercase-hex form as a seed.
    problem = _dealer_seed_problem(commitment_text)
    if problem is not None:
        raise RecordError("commitment", problem)
    dealer_seed = _field(data, "dealer_seed", "dealer_seed")
    problem = _dealer_seed_problem(dealer_seed)
    if problem is not None:
        raise RecordError("dealer_seed", problem)
    client_seed = _field(data, "client_seed", "client_seed")
    problem = _client_seed_problem(client_seed)
    if problem is not None:
        raise RecordError("client_seed", problem)
    nonce = _field(data, "nonce", "nonce")
    if not (_is_int(nonce) and nonce >= 0):
        raise RecordError("nonce", "must be a non-negative integer")
    dealt = _field(data, "dealt", "dealt")
    if not isinstance(dealt, list):
        raise RecordError("dealt", "must be a list (possibly empty)")
    assert isinstance(commitment_text, str)
    assert isinstance(dealer_seed, str)
    assert isinstance(client_seed, str)
    return FairnessRecord(
        commitment=commitment_text,
        dealer_seed=dealer_seed,
        client_seed=client_seed,
        nonce=nonce,
        dealt=tuple(_parse_dealt(item, f"dealt[{i}]") for i, item in enumerate(dealt)),
    )
