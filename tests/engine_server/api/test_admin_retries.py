"""AddChips and RemovePlayer retried late: after later hands, the session's close, a restart.

The lobby retries a money move until it gets an answer; the answer it gets must be the first
one, and the retry must move nothing, however late it arrives. Each test runs its own engine
on its own SQLite file, restarted on that file where the test says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from stud.v1 import admin_service_pb2, table_pb2

from tests.engine_server.api.conftest import Engine, launch, shut
from tests.engine_server.api.store_events import store_events
from tests.engine_server.api.test_admin import (
    chips_at_table,
    fold_out,
    get_table,
    new_id,
    refused,
    sessions_of,
    until_hand,
)

a = admin_service_pb2
INVALID = grpc.StatusCode.INVALID_ARGUMENT


async def paused_table(engine: Engine, players: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """A paused table with ``players`` seated (100 chips each): the table id and the session
    id of each player."""
    table_id = new_id("late")
    await engine.create_table(table_id)
    await pause(engine, table_id)
    sessions = {}
    for player in players:
        seated = await engine.seat(table_id, player, buy_in=100)
        sessions[player] = seated.session.seat_session_id
    return table_id, sessions


async def pause(engine: Engine, table_id: str) -> None:
    await engine.admin.PauseTable(
        a.PauseTableRequest(name=f"tables/{table_id}"), metadata=engine.admin_md
    )


async def resume(engine: Engine, table_id: str) -> None:
    await engine.admin.ResumeTable(
        a.ResumeTableRequest(name=f"tables/{table_id}"), metadata=engine.admin_md
    )


async def chips_brought(engine: Engine, table_id: str) -> list[tuple[str, int, int, int]]:
    """Every session's (id, state, chips in, stack): what a retry must leave as it was."""
    return [
        (s.seat_session_id, s.state, s.chips_in, s.stack)
        for s in await sessions_of(engine, table_id)
    ]


async def test_an_add_chips_retry_gets_its_first_answer_after_later_hands_and_a_restart(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path}/retries.sqlite3"
    engine = await launch(url)
    try:
        table_id, sessions = await paused_table(engine, ("ann", "bob"))
        request = a.AddChipsRequest(
            table=f"tables/{table_id}",
            seat_session_id=sessions["ann"],
            request_id=new_id("topup"),
            amount=40,
        )
        first = await engine.admin.AddChips(request, metadata=engine.admin_md)
        assert (first.session.chips_in, first.session.stack) == (140, 140)
        assert first.session.state == table_pb2.SEAT_SESSION_STATE_OPEN

        # A later hand runs, ann dealt in: chips are added only between hands, yet the retry
        # is not a new addition. It gets the first answer and moves nothing.
        await resume(engine, table_id)
        await until_hand(engine, table_id, 1)
        during = await chips_brought(engine, table_id)
        again = await engine.admin.AddChips(request, metadata=engine.admin_md)
        assert again == first
        assert await chips_brought(engine, table_id) == during
        assert chips_at_table((await get_table(engine, table_id)).snapshot) == 240

        # The hand ends (his stack is no longer 140): still the first answer.
        await pause(engine, table_id)
        await fold_out(engine, table_id)
        after = await chips_brought(engine, table_id)
        assert [stack for *_, stack in after] != [140, 100], "the hand moved chips"
        assert await engine.admin.AddChips(request, metadata=engine.admin_md) == first
        assert await chips_brought(engine, table_id) == after

        # The same request id with another amount, or for another session, is another
        # request: refused, nothing changes.
        for change in ({"amount": 41}, {"seat_session_id": sessions["bob"]}):
            other = a.AddChipsRequest()
            other.CopyFrom(request)
            for name, value in change.items():
                setattr(other, name, value)
            info = await refused(
                engine.admin.AddChips(other, metadata=engine.admin_md),
                INVALID,
                "IDEMPOTENCY_KEY_REUSED",
            )
            assert dict(info.metadata) == {"field": "request_id"}
        assert await chips_brought(engine, table_id) == after
    finally:
        await shut(engine)

    # The engine restarts on its database: the answer was kept with the addition.
    engine = await launch(url)
    try:
        assert await chips_brought(engine, table_id) == after
        assert await engine.admin.AddChips(request, metadata=engine.admin_md) == first
        # Even once his session has closed (he was removed and paid out).
        await engine.admin.RemovePlayer(
            a.RemovePlayerRequest(table=f"tables/{table_id}", seat_session_id=sessions["ann"]),
            metadata=engine.admin_md,
        )
        closed = await chips_brought(engine, table_id)
        assert await engine.admin.AddChips(request, metadata=engine.admin_md) == first
        assert await chips_brought(engine, table_id) == closed
        other = a.AddChipsRequest()
        other.CopyFrom(request)
        other.amount = 39
        await refused(
            engine.admin.AddChips(other, metadata=engine.admin_md),
            INVALID,
            "IDEMPOTENCY_KEY_REUSED",
        )
    finally:
        await shut(engine)


async def test_a_remove_player_retry_gets_its_first_answer_after_later_hands_and_a_restart(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path}/removals.sqlite3"
    engine = await launch(url)
    players = ("ann", "bob", "cat", "dan")
    try:
        table_id, sessions = await paused_table(engine, players)
        name = f"tables/{table_id}"

        def removal(player: str, reason: str) -> a.RemovePlayerRequest:
            return a.RemovePlayerRequest(
                table=name, seat_session_id=sessions[player], reason=reason
            )

        # Between hands: dan is paid out at once.
        dan = await engine.admin.RemovePlayer(removal("dan", "asked to"), metadata=engine.admin_md)
        assert (dan.session.state, dan.session.stack) == (table_pb2.SEAT_SESSION_STATE_CLOSED, 100)
        assert dan.session.close_reason == table_pb2.SEAT_SESSION_CLOSE_REASON_REMOVED

        # During hand 1, cat is removed: he plays it out (CLOSING), then is paid out.
        await resume(engine, table_id)
        await until_hand(engine, table_id, 1)
        assert (
            await engine.admin.RemovePlayer(removal("dan", "asked to"), metadata=engine.admin_md)
            == dan
        ), "a retry while a later hand runs"
        cat = await engine.admin.RemovePlayer(removal("cat", "rude"), metadata=engine.admin_md)
        assert cat.session.state == table_pb2.SEAT_SESSION_STATE_CLOSING
        await pause(engine, table_id)
        await fold_out(engine, table_id)
        await resume(engine, table_id)
        await until_hand(engine, table_id, 2)
        listed = await chips_brought(engine, table_id)
        by_id = {sid: (state, stack) for sid, state, _, stack in listed}
        assert by_id[sessions["cat"]][0] == table_pb2.SEAT_SESSION_STATE_CLOSED

        # While hand 2 runs, both retries get their first answers and change nothing.
        assert (
            await engine.admin.RemovePlayer(removal("cat", "rude"), metadata=engine.admin_md) == cat
        )
        assert (
            await engine.admin.RemovePlayer(removal("dan", "asked to"), metadata=engine.admin_md)
            == dan
        )
        assert await chips_brought(engine, table_id) == listed
        seated = [s.player_id for s in (await get_table(engine, table_id)).snapshot.seats]
        assert seated == ["ann", "bob"]

        # The same session with another reason is another request: refused, nothing changes.
        info = await refused(
            engine.admin.RemovePlayer(removal("cat", "other"), metadata=engine.admin_md),
            INVALID,
            "IDEMPOTENCY_KEY_REUSED",
        )
        assert dict(info.metadata) == {"field": "reason"}
        assert await chips_brought(engine, table_id) == listed
        await pause(engine, table_id)
        await fold_out(engine, table_id)
        settled = await chips_brought(engine, table_id)
    finally:
        await shut(engine)

    engine = await launch(url)
    try:
        assert (
            await engine.admin.RemovePlayer(removal("cat", "rude"), metadata=engine.admin_md) == cat
        )
        assert (
            await engine.admin.RemovePlayer(removal("dan", "asked to"), metadata=engine.admin_md)
            == dan
        )
        await refused(
            engine.admin.RemovePlayer(removal("dan", ""), metadata=engine.admin_md),
            INVALID,
            "IDEMPOTENCY_KEY_REUSED",
        )
        assert await chips_brought(engine, table_id) == settled
        # An unknown session is still not found.
        await refused(
            engine.admin.RemovePlayer(
                a.RemovePlayerRequest(table=name, seat_session_id="no-such-session"),
                metadata=engine.admin_md,
            ),
            grpc.StatusCode.NOT_FOUND,
            "SEAT_SESSION_NOT_FOUND",
        )
    finally:
        await shut(engine)


async def test_a_remove_player_during_his_hand_answers_closing_again_after_it(
    tmp_path: Path,
) -> None:
    """Removed during his hand he plays it out (CLOSING); the retry after it still gets
    CLOSING, the first answer, though he has since been paid out."""
    engine = await launch(f"sqlite:///{tmp_path}/leaving.sqlite3")
    try:
        table_id, sessions = await paused_table(engine, ("ann", "bob", "cat"))
        await resume(engine, table_id)
        await until_hand(engine, table_id, 1)
        request = a.RemovePlayerRequest(
            table=f"tables/{table_id}", seat_session_id=sessions["cat"], reason="late"
        )
        first = await engine.admin.RemovePlayer(request, metadata=engine.admin_md)
        assert first.session.state == table_pb2.SEAT_SESSION_STATE_CLOSING
        await pause(engine, table_id)
        await fold_out(engine, table_id)
        assert await engine.admin.RemovePlayer(request, metadata=engine.admin_md) == first
        closed = {s.seat_session_id: s for s in await sessions_of(engine, table_id)}
        assert closed[sessions["cat"]].state == table_pb2.SEAT_SESSION_STATE_CLOSED
        assert sum(s.stack for s in closed.values()) == 300
    finally:
        await shut(engine)


@contextmanager
def commit_fails_after(engine: Engine, prefix: str) -> Iterator[list[str]]:
    """The engine's next commit of a transaction that ran a statement starting with ``prefix``
    fails, every statement of it run (a crash right before that commit). Yields the list of
    failures injected."""
    armed: list[bool] = []
    injected: list[str] = []

    def before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith(prefix):
            armed.append(True)

    def commit(conn: Any) -> None:
        if armed:
            armed.clear()
            injected.append(prefix)
            raise RuntimeError(f"injected failure at the commit after {prefix}")

    with store_events(engine, before_cursor_execute=before, commit=commit):
        yield injected


async def test_a_remove_player_whose_write_fails_changes_nothing_and_its_retry_applies_it_once(
    tmp_path: Path,
) -> None:
    """Paying the player out and keeping the answer for retries are one write: when it fails
    before its commit nothing moved (he is still seated, nothing is answered for him), and
    the retry applies it once; after a restart a further retry gets that answer."""
    url = f"sqlite:///{tmp_path}/atomic-removal.sqlite3"
    engine = await launch(url)
    try:
        table_id, sessions = await paused_table(engine, ("ann", "bob", "cat"))
        request = a.RemovePlayerRequest(
            table=f"tables/{table_id}", seat_session_id=sessions["cat"], reason="asked to"
        )
        before = await chips_brought(engine, table_id)
        with (
            commit_fails_after(engine, "INSERT INTO SEAT_SESSION_REMOVALS") as injected,
            pytest.raises(grpc.aio.AioRpcError) as failed,
        ):
            await engine.admin.RemovePlayer(request, metadata=engine.admin_md)
        assert injected, "the removal's answer was written with its change"
        assert failed.value.code() == grpc.StatusCode.UNKNOWN
        assert await chips_brought(engine, table_id) == before, "nothing was paid out"
        seated = [s.player_id for s in (await get_table(engine, table_id)).snapshot.seats]
        assert seated == ["ann", "bob", "cat"]

        first = await engine.admin.RemovePlayer(request, metadata=engine.admin_md)
        assert (first.session.state, first.session.stack) == (
            table_pb2.SEAT_SESSION_STATE_CLOSED,
            100,
        )
        assert first.session.close_reason == table_pb2.SEAT_SESSION_CLOSE_REASON_REMOVED
        removed = await chips_brought(engine, table_id)
    finally:
        await shut(engine)

    engine = await launch(url)
    try:
        assert await engine.admin.RemovePlayer(request, metadata=engine.admin_md) == first
        assert await chips_brought(engine, table_id) == removed
    finally:
        await shut(engine)


async def test_a_leave_relayed_by_the_lobby_closes_as_left_and_its_retry_must_match(
    tmp_path: Path,
) -> None:
    """RemovePlayer with by_player relays the player's own leave: his session closes as LEFT
    (between hands at once, in his hand when it ends), ops' removals stay REMOVED, and a
    retry that says otherwise is another request (IDEMPOTENCY_KEY_REUSED, "by_player")."""
    url = f"sqlite:///{tmp_path}/leaves.sqlite3"
    engine = await launch(url)
    try:
        table_id, sessions = await paused_table(engine, ("ann", "bob", "cat", "dan"))
        name = f"tables/{table_id}"

        def request(player: str, by_player: bool) -> a.RemovePlayerRequest:
            return a.RemovePlayerRequest(
                table=name,
                seat_session_id=sessions[player],
                reason="left through the lobby",
                by_player=by_player,
            )

        dan = await engine.admin.RemovePlayer(request("dan", True), metadata=engine.admin_md)
        assert (dan.session.state, dan.session.stack) == (table_pb2.SEAT_SESSION_STATE_CLOSED, 100)
        assert dan.session.close_reason == table_pb2.SEAT_SESSION_CLOSE_REASON_LEFT
        assert dan.session.display_name == "DAN"
        # The same session as ops' removal is another request; nothing changes.
        info = await refused(
            engine.admin.RemovePlayer(request("dan", False), metadata=engine.admin_md),
            INVALID,
            "IDEMPOTENCY_KEY_REUSED",
        )
        assert dict(info.metadata) == {"field": "by_player"}
        assert (
            await engine.admin.RemovePlayer(request("dan", True), metadata=engine.admin_md) == dan
        )

        # During hand 1: cat leaves (relayed), bob is removed by ops; both play it out.
        await resume(engine, table_id)
        await until_hand(engine, table_id, 1)
        cat = await engine.admin.RemovePlayer(request("cat", True), metadata=engine.admin_md)
        assert cat.session.state == table_pb2.SEAT_SESSION_STATE_CLOSING
        bob = await engine.admin.RemovePlayer(request("bob", False), metadata=engine.admin_md)
        assert bob.session.state == table_pb2.SEAT_SESSION_STATE_CLOSING
        await pause(engine, table_id)
        await fold_out(engine, table_id)
        closed = {s.player_id: s for s in await sessions_of(engine, table_id)}
        assert closed["cat"].state == closed["bob"].state == table_pb2.SEAT_SESSION_STATE_CLOSED
        assert closed["cat"].close_reason == table_pb2.SEAT_SESSION_CLOSE_REASON_LEFT
        assert closed["bob"].close_reason == table_pb2.SEAT_SESSION_CLOSE_REASON_REMOVED
        assert closed["dan"].close_reason == table_pb2.SEAT_SESSION_CLOSE_REASON_LEFT
        assert closed["ann"].state == table_pb2.SEAT_SESSION_STATE_OPEN
        assert {p: s.display_name for p, s in closed.items()} == {
            "ann": "ANN",
            "bob": "BOB",
            "cat": "CAT",
            "dan": "DAN",
        }
    finally:
        await shut(engine)

    # After a restart the retries still get their first answers.
    engine = await launch(url)
    try:
        assert (
            await engine.admin.RemovePlayer(request("cat", True), metadata=engine.admin_md) == cat
        )
        await refused(
            engine.admin.RemovePlayer(request("cat", False), metadata=engine.admin_md),
            INVALID,
            "IDEMPOTENCY_KEY_REUSED",
        )
    finally:
        await shut(engine)
