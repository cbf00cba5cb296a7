"""``Idempotency-Key`` for requests that move money: a retry gets the first answer.

A money request runs in two parts:

1. ``prepare`` — in one transaction with the insertion of the key's
   :class:`~lobby_api.idempotency.models.IdempotencyRow`: checks the request and moves
   the money (or refuses, and then nothing at all is written, the key included);
2. ``complete`` — the calls to the engine and the bookkeeping after them. It
   must be safe to run again from its ``reference`` (every engine call is
   idempotent on an id the lobby chose), because a request that dies half-way
   is resumed by the next retry with the same key, or by the sweep.

The ``reference`` is the id of what the request makes (a seat session, a ticket, a
top-up, an entry), chosen by the caller before anything runs: the key is inserted with
it, and ``prepare`` makes the row of that id.

A second request with the same key (a retry, or the same request sent several
times at once):

- with a different body or path → 422 ``idempotency_key_reused``;
- after the first finished → the first answer (status and body), replayed, with
  ``Idempotent-Replayed: true``, and nothing moves;
- while the first is still running → waits for its answer (up to a few seconds,
  then 409 ``request_in_progress`` with ``Retry-After``);
- after the first died (its lease ran out) → takes the lease and finishes it.

Keys are per player: 1-255 visible ASCII characters.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import timedelta
from functools import cache
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.store.types import utc_now
from lobby_api.db import Database
from lobby_api.idempotency.models import IdempotencyRow, IdempotencyState
from lobby_api.problems import DomainError

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

log = logging.getLogger("stud.lobby.idempotency")

HEADER = "Idempotency-Key"
_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
#: How long a request owns its key before a retry may take over.
LEASE = timedelta(seconds=30)


@dataclass(frozen=True, slots=True)
class Answer:
    """A money request's answer: what every retry with the same key gets."""

    status: int
    body: dict[str, Any]
    replayed: bool = False
    #: Stored already by ``complete``, in its last transaction (:func:`finish_in`).
    stored: bool = False


#: The key (player id, key) whose request ``complete`` is finishing (complete_and_finish).
_FINISHING: ContextVar[tuple[str, str] | None] = ContextVar("stud_finishing", default=None)


#: A request's second part: given its ``reference``, finish it and say the answer.
Complete = Callable[[str], Awaitable[Answer]]


class Transient(Exception):
    """``complete`` could not finish now (the engine is unreachable): retry later.

    The money stays where ``prepare`` put it and the key stays pending: the next
    retry with the same key, or the sweep, finishes the request.
    """


def check_key(value: str | None) -> str:
    """The header's value, or a 400 problem naming it."""
    if value is None or value == "":
        raise DomainError(
            400, "idempotency_key_required", f"this request needs an {HEADER} header", HEADER
        )
    if not _KEY.match(value):
        raise DomainError(
            400,
            "idempotency_key_invalid",
            f"{HEADER} must be 1-255 visible ASCII characters",
            HEADER,
        )
    return value


def fingerprint(operation: str, method: str, path: str, body: Any) -> str:
    """SHA-256 of what the request asks for (its JSON body normalised)."""
    canonical = json.dumps(msgspec.to_builtins(body), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{operation}\n{method} {path}\n{canonical}".encode()).hexdigest()


_KEYS: sa.Table = IdempotencyRow.__table__  # type: ignore[attr-defined]
_THIS_KEY = sa.and_(
    _KEYS.c.player_id == sa.bindparam("key_player_id", type_=sa.String),
    _KEYS.c.key == sa.bindparam("key_key", type_=sa.String),
)
#: The statement every money request's answer is stored by, built once with bound parameters
#: (issue 16), on the table (the ORM's bulk UPDATE of an entity looks through the session's
#: objects too). Its parameters are named unlike any column: SQLAlchemy makes a parameter
#: named as a column a SET of every UPDATE in the statement, the CTEs of finish_with too.
_STORE = (
    sa.update(_KEYS)
    .where(_THIS_KEY)
    .values(
        state=sa.bindparam("answer_state", type_=sa.String),
        status_code=sa.bindparam("answer_status", type_=sa.Integer),
        response=sa.bindparam("answer_body", type_=_KEYS.c.response.type),
    )
)


@cache
def _insert_key(dialect: str) -> sa.Insert:
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(_KEYS).on_conflict_do_nothing()


async def _load(session: AsyncSession, player_id: str, key: str) -> IdempotencyRow | None:
    query = (
        select(IdempotencyRow)
        .where(IdempotencyRow.player_id == player_id, IdempotencyRow.key == key)
        .execution_options(populate_existing=True)
    )
    return (await session.exec(query)).first()


async def claim(db: Database, row: IdempotencyRow) -> bool:
    """Take over a pending key whose lease ran out (one claimant wins)."""
    now = utc_now()
    async with db.write() as session:
        result = await session.exec(
            sa.update(IdempotencyRow)
            .where(
                col(IdempotencyRow.player_id) == row.player_id,
                col(IdempotencyRow.key) == row.key,
                col(IdempotencyRow.state) == IdempotencyState.PENDING.value,
                col(IdempotencyRow.locked_until) == row.locked_until,
            )
            .values(locked_until=now + LEASE)
        )
        return bool(result.rowcount == 1)


async def _release(db: Database, player_id: str, key: str) -> None:
    async with db.write() as session:
        await session.exec(
            sa.update(IdempotencyRow)
            .where(
                col(IdempotencyRow.player_id) == player_id,
                col(IdempotencyRow.key) == key,
                col(IdempotencyRow.state) == IdempotencyState.PENDING.value,
            )
            .values(locked_until=utc_now())
        )


def _answer_parameters(player_id: str, key: str, answer: Answer) -> dict[str, Any]:
    return {
        "key_player_id": player_id,
        "key_key": key,
        "answer_state": IdempotencyState.DONE.value,
        "answer_status": answer.status,
        "answer_body": answer.body,
    }


async def _store(session: AsyncSession, player_id: str, key: str, answer: Answer) -> None:
    await session.exec(_STORE, params=_answer_parameters(player_id, key, answer))


async def finish(db: Database, player_id: str, key: str, answer: Answer) -> None:
    """Store the answer every later retry gets."""
    async with db.write() as session:
        await _store(session, player_id, key, answer)


async def finish_in(session: AsyncSession, answer: Answer) -> Answer:
    """Store ``answer`` as the answer of the request ``complete`` is finishing, in the
    caller's (last) transaction, so that the answer commits with what it says and costs no
    transaction of its own; ``complete`` returns what this returns. Outside
    :func:`complete_and_finish` nothing is stored here (that one stores it after)."""
    finishing = _FINISHING.get()
    if finishing is None:
        return answer
    await _store(session, *finishing, answer)
    return replace(answer, stored=True)


@cache
def _finishing(writes: tuple[sa.Update, ...]) -> sa.Update:
    """The statement that stores a request's answer with ``writes`` as its data-modifying
    CTEs (PostgreSQL), built once per set of writes."""
    statement = _STORE
    for n, write in enumerate(writes):
        statement = statement.add_cte(write.cte(f"write_{n}"))
    return statement


async def finish_with(
    db: Database, writes: Sequence[tuple[sa.Update, Mapping[str, Any]]], answer: Answer
) -> Answer:
    """Run ``writes`` (UPDATEs built once, their bound parameters named apart and unlike any
    column: see :data:`_STORE`) and store
    ``answer`` as the answer of the request ``complete`` is finishing, all or nothing, as
    :func:`finish_in` does in a transaction of the caller's. On PostgreSQL it is one statement
    (the writes as data-modifying CTEs of the answer's UPDATE), atomic by itself: one round
    trip where BEGIN, the writes, the answer and COMMIT were one each (issue 16: a quick game's
    last step). Elsewhere, and outside :func:`complete_and_finish`, one transaction."""
    finishing = _FINISHING.get()
    if db.is_postgres and finishing is not None:
        parameters: dict[str, Any] = {}
        for _, write_parameters in writes:
            parameters.update(write_parameters)
        parameters.update(_answer_parameters(*finishing, answer))
        await db.execute_write(_finishing(tuple(write for write, _ in writes)), parameters)
        return replace(answer, stored=True)
    async with db.write() as session:
        for write, write_parameters in writes:
            await session.exec(write, params=write_parameters)
        return await finish_in(session, answer)


async def complete_and_finish(
    db: Database,
    player_id: str,
    key: str,
    reference: str,
    complete: Complete,
) -> Answer:
    """Run ``complete`` as the key's owner; store its answer unless ``complete`` did
    (:func:`finish_in`; a transient failure: 503)."""
    finishing = _FINISHING.set((player_id, key))
    try:
        answer = await complete(reference)
    except Transient as error:
        await _release(db, player_id, key)
        raise DomainError(
            503,
            "engine_unavailable",
            f"the game server could not be reached ({error}); retry with the same {HEADER}",
            headers={"Retry-After": "1"},
        ) from None
    except BaseException:
        await _release(db, player_id, key)
        raise
    finally:
        _FINISHING.reset(finishing)
    if not answer.stored:
        await finish(db, player_id, key, answer)
    return answer


async def run_idempotent(
    db: Database,
    *,
    player_id: str,
    key: str,
    operation: str,
    fingerprint: str,
    reference: str,
    prepare: Callable[[AsyncSession], Awaitable[None]],
    complete: Complete,
    wait_seconds: float = 15.0,
) -> Answer:
    """Run a money request once per ``(player_id, key)`` (see the module's docstring):
    ``prepare`` makes what ``reference`` names, unless the key was used before."""
    now = utc_now()
    row: IdempotencyRow | None = None
    prepared = False
    async with db.write() as session:
        inserted = await session.exec(
            _insert_key(session.bind.dialect.name if session.bind is not None else "sqlite"),
            params={
                "player_id": player_id,
                "key": key,
                "operation": operation,
                "fingerprint": fingerprint,
                "state": IdempotencyState.PENDING.value,
                "locked_until": now + LEASE,
                "reference": reference,
                "created_at": now,
            },
        )
        if inserted.rowcount == 1:
            await prepare(session)
            prepared = True
        else:
            row = await _load(session, player_id, key)
    if prepared:
        return await complete_and_finish(db, player_id, key, reference, complete)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_seconds
    delay = 0.01
    while True:
        if row is None:  # pragma: no cover - the conflicting row is visible after the conflict
            raise DomainError(409, "request_in_progress", "retry", HEADER)
        if row.fingerprint != fingerprint or row.operation != operation:
            raise DomainError(
                422,
                "idempotency_key_reused",
                f"this {HEADER} was used for a different request",
                HEADER,
            )
        if row.state == IdempotencyState.DONE.value:
            return Answer(row.status_code or 200, row.response or {}, replayed=True)
        if row.locked_until <= utc_now() and row.reference is not None and await claim(db, row):
            return await complete_and_finish(db, player_id, key, row.reference, complete)
        if loop.time() >= deadline:
            raise DomainError(
                409,
                "request_in_progress",
                f"a request with this {HEADER} is still being processed; retry shortly",
                HEADER,
                headers={"Retry-After": "1"},
            )
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.2)
        async with db.read() as session:
            row = await _load(session, player_id, key)


async def resume_stale(db: Database, operations: Mapping[str, Complete], limit: int = 100) -> None:
    """Finish pending requests whose lease ran out (their client gave up, or died): each is
    claimed, then completed by ``operations[its operation]`` (the sweep runs this)."""
    async with db.read() as session:
        rows = (
            await session.exec(
                select(IdempotencyRow)
                .where(
                    col(IdempotencyRow.state) == IdempotencyState.PENDING.value,
                    col(IdempotencyRow.locked_until) < utc_now(),
                )
                .limit(limit)
            )
        ).all()
    for row in rows:
        complete = operations.get(row.operation)
        if complete is None or row.reference is None or not await claim(db, row):
            continue
        try:
            await complete_and_finish(db, row.player_id, row.key, row.reference, complete)
        except DomainError as error:
            log.info("resuming %s/%s: %s", row.operation, row.key, error.detail)
        except Exception:
            log.exception("resuming %s/%s failed", row.operation, row.key)
