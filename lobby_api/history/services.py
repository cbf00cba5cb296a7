"""Hand history: a player's hands, one hand and its PHH, each only for players dealt in.

Plain async functions over the caller's :class:`AsyncSession` on the shared database; they
only read, and they read the engine's hands and seat sessions through the lobby's read port
(:mod:`lobby_api.engine_reads`). Each
takes the caller's player id. A hand the caller was not dealt into is
:class:`HandNotFound` — the same error as a hand that does not exist, so the answer never
tells whether it does. What a caller may see of a hand is decided in
:mod:`lobby_api.history.redaction`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
from datetime import datetime

from sqlmodel.ext.asyncio.session import AsyncSession

from lobby_api import engine_reads
from lobby_api.engine_reads import ID_LENGTH, HandRecord, HandSeat
from lobby_api.history.redaction import (
    LeakRefused,
    RecordInconsistent,
    redact_hand,
    redacted_phh,
)
from lobby_api.history.schemas import HandPage, HandSummary, HandView
from lobby_api.problems import DomainError

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "MAX_PAGE_SIZE",
    "HandNotFound",
    "HistoryError",
    "HistoryUnavailable",
    "InvalidPageRequest",
    "RecordUnusable",
    "dealt_in",
    "get_hand",
    "get_hand_phh",
    "is_stored_id",
    "list_my_hands",
]

log = logging.getLogger("stud.lobby.history")

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100


class HistoryError(DomainError):
    """A refusal of the history or fairness services: an RFC 9457 problem with the class's
    ``status`` and ``code`` (:class:`lobby_api.problems.DomainError`); ``field`` names the
    request field at fault, if any."""

    status = 400
    code = "invalid_request"

    def __init__(self, detail: str, *, field: str | None = None) -> None:
        super().__init__(type(self).status, type(self).code, detail, field)


class HandNotFound(HistoryError):
    """No hand the caller may open by that id (absent, or he was not dealt in: same answer)."""

    status = 404
    code = "hand_not_found"


class InvalidPageRequest(HistoryError):
    """A bad page_size or page_token."""

    status = 400
    code = "invalid_request"


class HistoryUnavailable(HistoryError):
    """The hand exists and the caller may open it, but this form of it cannot be given."""

    status = 409
    code = "history_unavailable"


class RecordUnusable(HistoryError):
    """The stored record is inconsistent, or its redaction failed a check: nothing is sent."""

    status = 500
    code = "hand_record_inconsistent"


# ------------------------------------------------------------------------- listing


def _fingerprint(player_id: str) -> str:
    return hashlib.sha256(f"hands:{player_id}".encode()).hexdigest()[:16]


def _encode_token(player_id: str, started_at: datetime, hand_id: str) -> str:
    payload = {"k": [started_at.isoformat(), hand_id], "f": _fingerprint(player_id)}
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_token(player_id: str, token: str) -> tuple[datetime, str]:
    try:
        payload = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        stamp, hand_id = payload["k"]
        when = datetime.fromisoformat(stamp)
        fingerprint = payload["f"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        raise InvalidPageRequest("malformed page token", field="page_token") from None
    if (
        fingerprint != _fingerprint(player_id)
        or when.tzinfo is None
        or not isinstance(hand_id, str)
    ):
        # A token continues only the listing it came from.
        raise InvalidPageRequest("the page token belongs to another listing", field="page_token")
    return when, hand_id


async def list_my_hands(
    session: AsyncSession, player_id: str, *, page_size: int = 0, page_token: str = ""
) -> HandPage:
    """The caller's hands, newest first (``started_at``, then id), one page at a time.

    ``page_size`` 0 takes 20; more than 100 takes 100; negative is refused. Page tokens are
    opaque, keyed on the last hand of the page (hands started later never shift later
    pages) and valid for the same caller only.
    """
    if page_size < 0:
        raise InvalidPageRequest("page_size must not be negative", field="page_size")
    size = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    before = _decode_token(player_id, page_token) if page_token else None
    rows = await engine_reads.player_hands_page(session, player_id, size + 1, before)
    token = ""
    if len(rows) > size:
        rows = rows[:size]
        last = rows[-1][0]
        token = _encode_token(player_id, last.started_at, last.id)
    return HandPage(
        hands=[
            HandSummary(
                hand_id=hand.id,
                table=hand.table_id,
                hand_number=hand.hand_number,
                started_at=hand.started_at,
                ended_at=hand.ended_at,
                state=hand.state,
                my_seat=me.seat,
                my_result=None if me.final_stack is None else me.final_stack - me.start_stack,
            )
            for hand, me in rows
        ],
        next_page_token=token,
    )


# ------------------------------------------------------------------------ one hand


def is_stored_id(value: str) -> bool:
    """Whether ``value`` could be a stored id at all (checked before it reaches the database:
    PostgreSQL refuses a NUL character in text with an error rather than finding nothing)."""
    return 1 <= len(value) <= ID_LENGTH and "\x00" not in value


async def dealt_in(
    session: AsyncSession, player_id: str, hand_id: str
) -> tuple[HandRecord, list[HandSeat], HandSeat]:
    """The hand, its seats (by seat) and the caller's seat; ``HandNotFound`` unless dealt in.

    The one gate for every per-hand endpoint (history and fairness).
    """
    found = await engine_reads.dealt_hand(session, hand_id) if is_stored_id(hand_id) else None
    hand, players = found if found is not None else (None, [])
    mine = next((p for p in players if p.player_id == player_id), None)
    if hand is None or mine is None:
        # The same answer whether the hand exists or not.
        raise HandNotFound(f"no hand {hand_id} of yours")
    return hand, players, mine


async def _names(session: AsyncSession, players: list[HandSeat]) -> dict[int, str]:
    by_session = await engine_reads.display_names(session, [p.seat_session_id for p in players])
    return {
        p.seat: by_session[p.seat_session_id] for p in players if p.seat_session_id in by_session
    }


async def get_hand(session: AsyncSession, player_id: str, hand_id: str) -> HandView:
    """One hand as the caller may see it (``HandNotFound`` unless he was dealt in)."""
    hand, players, mine = await dealt_in(session, player_id, hand_id)
    try:
        return redact_hand(hand, players, await _names(session, players), mine)
    except (RecordInconsistent, LeakRefused) as error:
        # An engine bug or a changed database: nothing is sent, and ops must hear of it.
        log.error("hand %s: no view for %s: %s", hand_id, player_id, error)
        raise RecordUnusable(f"hand {hand_id} cannot be shown: {error}") from None


async def get_hand_phh(session: AsyncSession, player_id: str, hand_id: str) -> str:
    """The hand's PHH, redacted for the caller (``HandNotFound`` unless he was dealt in).

    ``HistoryUnavailable`` while the hand runs, or for a cancelled hand whose cards were
    not recorded.
    """
    hand, players, mine = await dealt_in(session, player_id, hand_id)
    if hand.is_running:
        raise HistoryUnavailable(f"hand {hand_id} is still being played")
    if not hand.cards:
        raise HistoryUnavailable(f"hand {hand_id} was {hand.state} with no cards recorded")
    try:
        return redacted_phh(hand, players, await _names(session, players), mine)
    except (RecordInconsistent, LeakRefused) as error:
        log.error("hand %s: no PHH for %s: %s", hand_id, player_id, error)
        raise RecordUnusable(f"hand {hand_id} has no PHH: {error}") from None
