"""``Idempotency-Key`` for requests that move money (:mod:`lobby_api.idempotency.services`),
and the record of each key beside it (:mod:`lobby_api.idempotency.models`)."""

from lobby_api.idempotency.services import (
    HEADER,
    LEASE,
    Answer,
    Complete,
    Transient,
    check_key,
    claim,
    complete_and_finish,
    fingerprint,
    finish,
    finish_in,
    finish_with,
    resume_stale,
    run_idempotent,
)

__all__ = [
    "HEADER",
    "LEASE",
    "Answer",
    "Complete",
    "Transient",
    "check_key",
    "claim",
    "complete_and_finish",
    "fingerprint",
    "finish",
    "finish_in",
    "finish_with",
    "resume_stale",
    "run_idempotent",
]
