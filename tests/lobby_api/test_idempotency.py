"""A money request's answer stored by its ``complete`` in its last transaction (finish_in):
committed with the work it reports, replayed to a retry, never stored twice."""

from __future__ import annotations

import secrets

from lobby_api.db import Database
from lobby_api.idempotency import Answer, finish_in, run_idempotent
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
