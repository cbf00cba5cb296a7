"""A money request's answer stored by its ``complete`` with its last writes (finish_in,
finish_with): committed with the work it reports, replayed to a retry, never stored twice."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

import sqlalchemy as sa

from lobby_api.db import Database
from lobby_api.idempotency import Answer, finish_in, finish_with, run_idempotent
from lobby_api.idempotency.models import IdempotencyRow
from tests.lobby_api.support import rows


async def test_an_answer_stored_by_complete_is_the_one_a_retry_gets(db: Database) -> None:
    player_id, key = "p-" + secrets.token_hex(4), secrets.token_hex(8)
    stored: list[bool] = []

    prepared: list[object] = []

    async def prepare(session: object) -> None:
        prepared.append(session)

    async def complete(reference: str) -> Answer:
        async with db.write() as session:
            answer = await finish_in(session, Answer(201, {"reference": reference}))
        stored.append(answer.stored)
        return answer

    async def run() -> Answer:
        return await run_idempotent(
            db,
            player_id=player_id,
            key=key,
            operation="test",
            fingerprint="f",
            reference="ref-1",
            prepare=prepare,
            complete=complete,
        )

    first = await run()
    assert (first.status, first.body, first.replayed) == (201, {"reference": "ref-1"}, False)
    assert stored == [True]
    row = (
        await rows(
            db,
            "SELECT state, status_code, response FROM idempotency_keys "
            "WHERE player_id = :p AND key = :k",
            p=player_id,
            k=key,
        )
    )[0]
    assert (row.state, row.status_code) == ("done", 201)
    again = await run()
    assert (again.status, again.body, again.replayed) == (201, {"reference": "ref-1"}, True)
    assert stored == [True]  # complete did not run again
    assert len(prepared) == 1  # nor prepare


async def test_outside_a_request_being_completed_nothing_is_stored(db: Database) -> None:
    async with db.write() as session:
        answer = await finish_in(session, Answer(200, {"ok": True}))
    assert not answer.stored and answer.body == {"ok": True}


_KEYS = IdempotencyRow.__table__  # type: ignore[attr-defined]
#: A write a ``complete`` makes with its answer: another key's fingerprint changed.
_MARK = (
    sa.update(_KEYS)
    .where(
        _KEYS.c.player_id == sa.bindparam("marked_player"), _KEYS.c.key == sa.bindparam("marked")
    )
    .values(fingerprint=sa.bindparam("mark"))
)
_MARK_AGAIN = (
    sa.update(_KEYS)
    .where(
        _KEYS.c.player_id == sa.bindparam("marked_player_2"),
        _KEYS.c.key == sa.bindparam("marked_2"),
    )
    .values(fingerprint=sa.bindparam("mark_2"))
)


async def test_writes_finished_with_the_answer_land_with_it_in_one_statement_on_postgresql(
    db: Database, backend: str
) -> None:
    """finish_with: the writes and the answer together (on PostgreSQL one statement, the
    writes its CTEs); outside a request being completed, the writes alone."""
    player_id = "p-" + secrets.token_hex(4)
    others = [secrets.token_hex(8) for _ in range(3)]
    for other in others:
        async with db.write() as session:
            await session.exec(
                sa.insert(_KEYS).values(  # type: ignore[call-overload]
                    player_id=player_id,
                    key=other,
                    operation="test",
                    fingerprint="before",
                    state="done",
                    locked_until=datetime.now(UTC),
                    created_at=datetime.now(UTC),
                )
            )
    sent: list[str] = []
    sa.event.listen(
        db.engine.sync_engine, "before_cursor_execute", lambda *args: sent.append(args[2])
    )
    writes = (
        (_MARK, {"marked_player": player_id, "marked": others[0], "mark": "first"}),
        (_MARK_AGAIN, {"marked_player_2": player_id, "marked_2": others[1], "mark_2": "second"}),
    )

    async def complete(reference: str) -> Answer:
        sent.clear()
        return await finish_with(db, writes, Answer(201, {"reference": reference}))

    async def prepare(session: object) -> None:
        """Nothing to prepare."""

    key = secrets.token_hex(8)
    answer = await run_idempotent(
        db,
        player_id=player_id,
        key=key,
        operation="test",
        fingerprint="f",
        reference="ref-2",
        prepare=prepare,
        complete=complete,
    )
    assert answer.stored and answer.body == {"reference": "ref-2"}
    assert len(sent) == (1 if backend == "postgresql" else 3), sent
    marks = await rows(
        db,
        "SELECT key, fingerprint FROM idempotency_keys WHERE player_id = :p AND key <> :k",
        p=player_id,
        k=key,
    )
    assert dict(marks) == {others[0]: "first", others[1]: "second", others[2]: "before"}
    (stored,) = await rows(
        db,
        "SELECT state, status_code FROM idempotency_keys WHERE player_id = :p AND key = :k",
        p=player_id,
        k=key,
    )
    assert tuple(stored) == ("done", 201)

    # Outside a request being completed: the writes, nothing stored.
    alone = await finish_with(
        db, ((_MARK, {"marked_player": player_id, "marked": others[2], "mark": "alone"}),), answer
    )
    assert alone.body == answer.body
    assert await rows(
        db,
        "SELECT fingerprint FROM idempotency_keys WHERE player_id = :p AND key = :k",
        p=player_id,
        k=others[2],
    ) == [("alone",)]
