"""A multi-table tournament through real processes killed with SIGKILL while it plays.

One ``stud engine`` and two ``stud lobby`` replicas share the database (SQLite, PostgreSQL);
the replicas' directors do all the tournament's work. Bots register through the lobby and
play at whatever table and engine address it gives them. Mid-tournament the engine is
killed mid-hand (and started again on the database: the hand is cancelled, every chip back,
or settled if its stored actions had ended it), then the replica holding the tournament's
lease is killed in the middle of its pass (the other takes the work over when the lease runs
out). The tournament finishes with one winner; its chips are entrants × starting chips at
every look, wallets + house fees + prize pool never change, every prize is paid once (counted
in the ledger) and every place is acknowledged by the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from benchmarks.processes import ReadyProcess, start_stud
from lobby_api.db import Database
from tests.engine_server.api.conftest import SECRET
from tests.engine_server.api.test_crash_recovery import EngineProcess, start
from tests.engine_server.api.test_takeover import endings
from tests.lobby_api.support import Player, assert_ledger_consistent, register, rows, scalar
from tests.lobby_api.tournaments.support import STEEP, Ops, money_in_play, pool, tournament_bot

#: Where no engine listens.
NOWHERE = "127.0.0.1:9"
SIZE, TABLE_SIZE, STARTING, BUY_IN = 10, 5, 60, 100
#: From the processes up to a winner and every table closed (measured 10-40 s on the shared
#: machine; starting the processes takes 10-30 s more there, each bounded by its own wait).
BUDGET = 150.0


@pytest.fixture
def fresh_database() -> None:
    """A database of this test's own (the engine must not load other tests' tables)."""


async def start_lobby(database_url: str, engine: str, log: Path) -> ReadyProcess:
    """A lobby replica whose director passes every 0.1 s and whose tournament lease is 2 s
    (a replica killed holding it delays its tournament that long); returns once it printed
    its address."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
    env.update(
        STUD_JWT_SECRET=SECRET,
        STUD_DATABASE_URL=database_url,
        STUD_LOBBY_ENGINE=engine,
        STUD_LOBBY_SWEEP_SECONDS="0.1",
        STUD_LOBBY_TOURNAMENT_LEASE="2",
        STUD_LOBBY_ENGINE_TIMEOUT="3",
        STUD_LOBBY_LOGIN_RATE="0",
        STUD_LOBBY_MONEY_RATE="0",
        # The shared PostgreSQL has few connections to give.
        STUD_LOBBY_DB_POOL="2",
        STUD_LOG_FORMAT="text",
        STUD_LOG_LEVEL="WARNING",
    )
    return await start_stud("lobby", "--port", "0", env=env, ready_key="http", log=log)


async def start_engine(tmp_path: Path, log: Path, database_url: str) -> EngineProcess:
    """``stud engine`` on the test's database. Its node lease is 5 s: a restart after kill -9
    waits that long, and on a busy machine the database may take over a second to answer a
    renewal (a shorter lease is lost while the engine starts)."""
    return await start(tmp_path / "unused.sqlite3", log, url=database_url, lease_seconds=5)


@contextlib.asynccontextmanager
async def processes() -> AsyncIterator[tuple[list[EngineProcess], list[ReadyProcess]]]:
    """Engine and lobby processes a test starts (appended by it); all stopped at its end."""
    engines: list[EngineProcess] = []
    lobbies: list[ReadyProcess] = []
    try:
        yield engines, lobbies
    finally:
        for lobby in lobbies:
            await lobby.stop(timeout=20)
        for engine in engines:
            await engine.close()


class Watch:
    """The test's looks at the database while the tournament plays: after every look, the
    tournament's chips are entrants × starting chips and the money in play is unchanged."""

    def __init__(self, db: Database, tournament_id: str, players: list[str], total: int):
        self.db, self.tournament_id, self.players, self.total = db, tournament_id, players, total
        self.looks = 0

    async def look(self) -> None:
        # One statement each: one snapshot (a director's transaction commits between two).
        async with self.db.read() as session:
            chips, drawn = (
                await session.exec(  # type: ignore[call-overload]
                    sa.text(
                        "SELECT coalesce(sum(CASE WHEN status IN ('playing', 'finished') "
                        "THEN chips ELSE 0 END), 0), "
                        "coalesce(sum(CASE WHEN status <> 'registered' THEN 1 ELSE 0 END), 0) "
                        "FROM tournament_entries WHERE tournament_id = :t"
                    ),
                    params={"t": self.tournament_id},
                )
            ).one()
        if drawn:
            assert chips == SIZE * STARTING, f"look {self.looks}: {chips} chips"
        assert await money_in_play(self.db, self.players, [self.tournament_id]) == self.total
        self.looks += 1

    async def until(self, what: str, check: Callable[[], Awaitable[bool]], deadline: float) -> None:
        """Look every 20 ms until ``check()`` is true."""
        while True:
            await self.look()
            if await check():
                return
            assert asyncio.get_running_loop().time() < deadline, f"not in time: {what}"
            await asyncio.sleep(0.02)


async def test_a_tournament_survives_kill_9_of_the_engine_and_of_a_lobby_replica(
    database_url: str, fresh_database: None, tmp_path: Path
) -> None:
    loop = asyncio.get_running_loop()
    db = Database.from_url(database_url, pool_size=2, max_overflow=2)
    bots: list[asyncio.Task[None]] = []
    try:
        async with processes() as (engines, lobbies):
            engine_log, lobby_log = tmp_path / "engine.log", tmp_path / "lobby.log"
            # All at once (each takes seconds to start on a busy machine): the replicas find
            # the engine in the node registry (their STUD_LOBBY_ENGINE answers nothing).
            started = await asyncio.gather(
                start_engine(tmp_path, engine_log, database_url),
                start_lobby(database_url, NOWHERE, lobby_log),
                start_lobby(database_url, NOWHERE, lobby_log),
                return_exceptions=True,
            )
            engines += [p for p in started if isinstance(p, EngineProcess)]
            lobbies += [p for p in started if isinstance(p, ReadyProcess)]
            for failed in started:
                if isinstance(failed, BaseException):
                    raise failed
            # Two replicas: the players talk to the second; both directors work.
            doomed, survivor = lobbies
            deadline = loop.time() + BUDGET
            async with httpx.AsyncClient(base_url=survivor.ready["http"], timeout=20) as client:
                made = await Ops(client).create(
                    name="Kill -9 Freezeout",
                    max_players=SIZE,
                    table_size=TABLE_SIZE,
                    starting_chips=STARTING,
                    buy_in=BUY_IN,
                    levels=STEEP,
                    rule_overrides={"action_seconds": 1},
                )
                tournament_id = str(made["id"])
                players: list[Player] = [await register(client, "oslo") for _ in range(SIZE)]
                ids = [p.id for p in players]
                total = await money_in_play(db, ids, [tournament_id])
                for player in players:
                    answer = await player.post(f"/tournaments/{tournament_id}/entries")
                    assert answer.status_code == 201, answer.text
                watch = Watch(db, tournament_id, ids, total)
                bots += [
                    asyncio.create_task(tournament_bot(p, tournament_id, seed=n))
                    for n, p in enumerate(players)
                ]
                seated = (
                    "SELECT count(DISTINCT table_id) FROM tournament_entries "
                    "WHERE tournament_id = :t AND seated_at IS NOT NULL"
                )

                async def on_two_tables() -> bool:
                    return int(await scalar(db, seated, t=tournament_id)) == 2

                # Full: it starts, drawn to two tables of five (a multi-table tournament).
                await watch.until("seated at two tables", on_two_tables, deadline)

                # kill -9 of the engine mid-hand, once a few hands are recorded.
                running_hand = (
                    "SELECT h.id FROM hands h JOIN tournament_tables t ON t.table_id = h.table_id "
                    "WHERE t.tournament_id = :t AND h.state = 'running' AND h.hand_number > 2"
                )

                async def mid_hand() -> bool:
                    return bool(await rows(db, running_hand, t=tournament_id))

                await watch.until("a hand running after the first ones", mid_hand, deadline)
                assert await engines[0].process.kill_9() == -signal.SIGKILL
                killed = [r.id for r in await rows(db, running_hand, t=tournament_id)]
                assert killed, "killed mid-hand"
                await watch.look()
                engines.append(await start_engine(tmp_path, engine_log, database_url))
                # Restarted on the database: the hands it was playing are ended, cancelled
                # (every chip back where it was) or, where the kill came between a hand's last
                # action and its end, settled from its stored actions; the tournament goes on.
                ended = await endings(database_url, killed)
                assert set(ended) == set(killed), ended
                assert set(ended.values()) <= {"cancelled", "settled"}, ended

                # kill -9 of the replica holding the tournament's lease, mid-pass, once the
                # restarted engine has dealt again.
                holding = "SELECT holder, until FROM tournament_leases WHERE tournament_id = :t"
                recorded = (
                    "SELECT coalesce(sum(hands_recorded), 0) FROM tournament_tables "
                    "WHERE tournament_id = :t"
                )
                after_restart = int(await scalar(db, recorded, t=tournament_id))

                async def doomed_holds_it() -> bool:
                    if int(await scalar(db, recorded, t=tournament_id)) <= after_restart:
                        return False
                    now = datetime.now(UTC)
                    return any(
                        f":{doomed.pid}:" in lease.holder and _when(lease.until) > now
                        for lease in await rows(db, holding, t=tournament_id)
                    )

                await watch.until("the first replica holding the lease", doomed_holds_it, deadline)
                assert await doomed.kill_9() == -signal.SIGKILL

                # The other replica finishes it: a winner, every table closed.
                async def over() -> bool:
                    open_tables = await scalar(
                        db,
                        "SELECT count(*) FROM tournament_tables WHERE tournament_id = :t "
                        "AND status <> 'closed'",
                        t=tournament_id,
                    )
                    status = await scalar(
                        db, "SELECT status FROM tournaments WHERE id = :t", t=tournament_id
                    )
                    return bool(status == "finished" and open_tables == 0)

                await watch.until("a winner, every table closed", over, deadline)
                page = (await client.get(f"/tournaments/{tournament_id}")).json()
                standings = page["standings"]
                assert [s["status"] for s in standings].count("finished") == 1
                winner = next(s for s in standings if s["place"] == 1)
                assert winner["chips"] == SIZE * STARTING
                assert sorted(s["place"] for s in standings)[-1] >= SIZE - 1
                # The prizes add up to the pool, which is empty; money is conserved.
                assert sum(s["prize"] or 0 for s in standings) == SIZE * BUY_IN
                assert await pool(db, tournament_id) == 0
                assert await money_in_play(db, ids, [tournament_id]) == total
                # Every prize paid once: one prize row per entry, and in the ledger one payment out
                # of the pool per entry in the money, to his wallet, of his prize.
                assert (
                    await scalar(
                        db,
                        "SELECT count(*) FROM tournament_prizes WHERE tournament_id = :t",
                        t=tournament_id,
                    )
                    == SIZE
                )
                paid = await rows(
                    db,
                    "SELECT x.idempotency_key, e.account_id, e.amount FROM ledger_entries e "
                    "JOIN ledger_transactions x ON x.id = e.transaction_id "
                    "WHERE x.idempotency_key LIKE 'tprize:%' AND e.amount > 0 "
                    "AND e.transaction_id IN (SELECT transaction_id FROM ledger_entries "
                    "WHERE account_id = :pool)",
                    pool=f"escrow:tournaments/{tournament_id}",
                )
                entries = await rows(
                    db,
                    "SELECT id, player_id, prize FROM tournament_entries WHERE tournament_id = :t",
                    t=tournament_id,
                )
                in_money = {
                    f"tprize:{e.id}": (f"wallet:{e.player_id}", e.prize) for e in entries if e.prize
                }
                assert sorted(
                    (p.idempotency_key, (p.account_id, p.amount)) for p in paid
                ) == sorted(in_money.items())
                # Every place acknowledged by the engine (AwardPlace), none left to tell.
                untold = await scalar(
                    db,
                    "SELECT count(*) FROM tournament_entries WHERE tournament_id = :t "
                    "AND place_told_at IS NULL",
                    t=tournament_id,
                )
                assert untold == 0
                await assert_ledger_consistent(db)
                # Two tables down to one: the broken table's players moved with their chips.
                moved = await scalar(
                    db,
                    "SELECT count(*) FROM seat_sessions WHERE table_id LIKE :p AND close_reason = 'moved'",
                    p=f"{tournament_id}-%",
                )
                assert moved >= 1
                assert watch.looks > 10
    finally:
        for bot in bots:
            bot.cancel()
        await asyncio.gather(*bots, return_exceptions=True)
        await db.dispose()


def _when(value: object) -> datetime:
    """A stored time (text on SQLite through plain SQL), as an aware datetime."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    assert isinstance(value, datetime)
    return value if value.tzinfo else value.replace(tzinfo=UTC)
