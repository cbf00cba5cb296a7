"""Helpers for the client smoke tests: a passive Python player, running a client's bot as a
process against a real engine, and reading the lines every client bot prints.

The client bots (clients/android/example/TableBot.kt, clients/web/test/bot.ts) print one line per
thing they saw or did, ``WORD key=value ...``: SNAPSHOT (the first message of the stream), EVENT,
ACT (an accepted action), REFUSED, GAP (a sequence jump), STREAM_FAILED, DEADLINE and DONE.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from stud.v1 import table_pb2, table_service_pb2

from tests.engine_server.api.conftest import Engine

__all__ = ["BotRun", "Line", "Observed", "assert_bot_played", "passive_player", "run_bot"]

ROOT = Path(__file__).resolve().parents[2]

#: What the bots pick, in order (check or call; bring-in/complete when forced; else fold).
PASSIVE = (
    table_pb2.ACTION_KIND_CHECK,
    table_pb2.ACTION_KIND_CALL,
    table_pb2.ACTION_KIND_BRING_IN,
    table_pb2.ACTION_KIND_COMPLETE,
    table_pb2.ACTION_KIND_FOLD,
)


@dataclass(frozen=True)
class Line:
    """One line of a bot's output: its first word and its key=value fields."""

    word: str
    fields: dict[str, str]

    @classmethod
    def parse(cls, text: str) -> Line:
        word, *rest = text.split(" ")
        fields = dict(part.split("=", 1) for part in rest if "=" in part)
        return cls(word, fields)


@dataclass
class BotRun:
    """A finished bot process."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[Line]:
        return [Line.parse(text) for text in self.stdout.splitlines() if text.strip()]

    def words(self, word: str) -> list[Line]:
        return [line for line in self.lines if line.word == word]

    def __str__(self) -> str:
        return f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


@dataclass
class Observed:
    """What the Python player saw of the table: every ActionTaken, by seat."""

    #: sequence -> (seat, kind name, timed out). Keyed by the change number, not the action id:
    #: the engine leaves ActionTaken.action_id empty in the stream (see the report).
    taken: dict[int, tuple[int, str, bool]] = field(default_factory=dict)
    hand_number: int = 0
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def update(
        self, sequence: int, hand_number: int, taken: table_pb2.ActionTaken | None
    ) -> None:
        async with self.changed:
            self.hand_number = max(self.hand_number, hand_number)
            if taken is not None:
                kind = table_pb2.ActionKind.Name(taken.kind)
                self.taken[sequence] = (taken.seat, kind, taken.timed_out)
            self.changed.notify_all()

    async def reach(self, hand_number: int, timeout: float) -> None:
        """Wait until the player has seen hand ``hand_number`` start."""
        async with self.changed:
            await asyncio.wait_for(
                self.changed.wait_for(lambda: self.hand_number >= hand_number), timeout
            )


async def passive_player(engine: Engine, table_id: str, player_id: str, seen: Observed) -> None:
    """Watch ``table_id`` as ``player_id`` and check/call on every turn until cancelled,
    recording every ActionTaken event of the table in ``seen``."""
    md = engine.player_md(player_id)
    table = f"tables/{table_id}"
    acted_through = -1
    stream = engine.tables.WatchTable(table_service_pb2.WatchTableRequest(table=table), metadata=md)
    try:
        async for message in stream:
            snap = message.snapshot
            taken = next(
                (e.action_taken for e in message.events if e.HasField("action_taken")), None
            )
            await seen.update(message.sequence, snap.hand_number, taken)
            if message.sequence < acted_through or snap.turn_seat != snap.viewer_seat:
                continue
            legal = {a.kind: a for a in snap.legal_actions}
            kind = next((k for k in PASSIVE if k in legal), None)
            if kind is None:
                continue
            request = table_service_pb2.ActRequest(
                table=table, hand_number=snap.hand_number, kind=kind, action_id=uuid.uuid4().hex
            )
            if legal[kind].min_amount < legal[kind].max_amount:
                request.amount = legal[kind].min_amount
            try:
                answer = await engine.tables.Act(request, metadata=md)
                acted_through = answer.sequence
            except grpc.aio.AioRpcError as error:
                # A stale snapshot (the clock acted first) is refused and changes nothing.
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
    finally:
        stream.cancel()


async def run_bot(
    argv: list[str],
    token: str,
    timeout: float,
    cwd: Path = ROOT,
    extra_env: dict[str, str] | None = None,
) -> BotRun:
    """Run a client bot to its end (the token goes in STUD_TOKEN, as the bots expect; secrets
    such as a refresh token in ``extra_env``, never on the command line)."""
    env = {**os.environ, "STUD_TOKEN": token, **(extra_env or {})}
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        process.kill()
        stdout, stderr = await process.communicate()
        return BotRun(-9, stdout.decode(), stderr.decode() + f"\n(killed after {timeout} s)")
    assert process.returncode is not None
    return BotRun(process.returncode, stdout.decode(), stderr.decode())


def assert_bot_played(run: BotRun, *, table_id: str, seat: int, hands: int, seen: Observed) -> None:
    """The bot watched the table from ``seat`` without a gap, acted on its own turns through
    ``hands`` hands, and the table recorded its actions as the other player saw them."""
    assert run.returncode == 0, run
    lines = run.lines
    assert lines and lines[0].word == "SNAPSHOT", run
    first = lines[0].fields
    assert first["table"] == f"tables/{table_id}", run
    assert first["viewer"] == str(seat), run
    # Its own seat shows its cards once a hand runs: "seat:player:stack[:cards]".
    assert not run.words("GAP") and not run.words("STREAM_FAILED"), run
    assert not run.words("DEADLINE"), run

    events = run.words("EVENT")
    kinds = {kind for line in events for kind in line.fields["kinds"].split(",")}
    assert {"HAND_STARTED", "ACTION_TAKEN", "HAND_ENDED"} <= kinds, kinds
    stream = [line for line in lines if line.word in ("SNAPSHOT", "EVENT")]
    sequences = [int(line.fields["sequence"]) for line in stream]
    assert sequences == list(range(sequences[0], sequences[0] + len(sequences))), run
    # It stopped on the first message of hand hands + 1.
    assert int(lines[-2].fields["hand"]) == hands + 1, run
    assert lines[-1].word == "DONE", run
    assert int(lines[-1].fields["messages"]) == len(events) + 1

    by_sequence = {int(line.fields["sequence"]): line for line in stream}
    acts = run.words("ACT")
    assert acts, run
    assert int(lines[-1].fields["actions"]) == len(acts)
    passive_names = {table_pb2.ActionKind.Name(kind) for kind in PASSIVE}
    for act in acts:
        assert act.fields["seat"] == str(seat), run
        assert act.fields["kind"] in passive_names, run
        # Act's answer names the action's change number: there, the bot's own stream shows an
        # ActionTaken, and the other player saw this action, taken by the bot, not its clock.
        sequence = int(act.fields["sequence"])
        assert by_sequence[sequence].fields["kinds"].split(",")[0] == "ACTION_TAKEN", act
        assert seen.taken.get(sequence) == (seat, act.fields["kind"], False), act
        assert act.fields["action_id"], act
    assert {int(act.fields["hand"]) for act in acts} <= set(range(1, hands + 1))
