"""Bots in tournaments (``stud bots --tournaments``): register for the open tournaments of
their cities, play their seats, follow moves, stop at the bust.

Every ``tournament_poll`` seconds the bots' *tournament desk* lists the registering
tournaments (``GET /tournaments?status=registering``). A tournament open to all, or to the
city of some bots, gets those bots registered (``POST /tournaments/{id}/entries`` with an
Idempotency-Key: a retry never pays twice), one by one while seats are left:

- mode ``all``: in every such tournament;
- mode ``with_humans``: only once a human (an entrant who is no bot of this process) is
  registered — the bots then fill the seats left, so a player who registers for a sit & go
  gets it started (``stud run``'s demo bots).

Each entry waits for the start by polling ``GET /tournaments/{id}/entries/me``; once it says
``playing`` the bot watches its table on the engine the entry names (``WatchTable`` with the
bot's own token) and acts on its turns (:mod:`stud.bots.strategy`). A ``PlayerMoved`` for the
bot names the destination table and its engine: the bot follows it there without asking the
lobby. A stream that ends otherwise (a table broken with ``CloseTable``, an engine restart)
is followed by reading the entry again; a table that moved to another engine node, or was
taken over from a node that died, is watched where its ``TABLE_MOVED`` refusal or the entry
says it is served now (event ``moved``, to the same table). At ``PlayerBusted`` the bot stops playing; its place
and prize come from the lobby (``busted`` / ``finished`` events).

Tournament chips are never cashed out, so a stopping bot cannot leave its seat: it stops
watching and the table's clock acts for it (it is anted away). Entries still waiting for the
start are withdrawn (buy-in and fee come back).

Events (``emit``): ``registered``, ``unregistered``, ``tournament_seated``, ``moved``,
``busted``, ``finished``, and ``error``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc

from stud.bots.follow import moved_to
from stud.bots.lobby import LobbyClient, LobbyError
from stud.bots.strategy import decide
from stud.v1 import table_pb2, table_service_pb2

if TYPE_CHECKING:
    from stud.bots.runner import _Bot, _Shared

__all__ = ["TOURNAMENT_MODES", "TournamentDesk"]

log = logging.getLogger("stud.bots.tournaments")

#: ``all``: register in every open tournament of the bots' cities; ``with_humans``: only
#: in those a human registered for (the bots fill the seats left).
TOURNAMENT_MODES = ("all", "with_humans")
#: How long a busted bot waits for the lobby to record its place.
PLACE_SECONDS = 30.0
#: How long a bot watches a table it should sit at (a move's destination) before the
#: director has seated it there.
ARRIVAL_SECONDS = 60.0
#: Stream failures worth watching again after (an engine restart, …).
_RETRY_STREAM = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.UNAUTHENTICATED,
}


@dataclass(frozen=True, slots=True)
class _Where:
    """A table to watch: ``tables/{id}`` and its engine's gRPC address."""

    table: str
    address: str


class TournamentDesk:
    """Registers the bots for tournaments and runs one task per entry."""

    def __init__(self, shared: _Shared, bots: list[_Bot], rng: random.Random) -> None:
        self.shared = shared
        self.bots = bots
        self.rng = rng
        self.mode = shared.config.tournaments or "all"
        #: (bot username, tournament id) of every entry this process made.
        self.entered: set[tuple[str, str]] = set()
        self.tasks: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        shared = self.shared
        lobby = self.bots[0].lobby
        try:
            while not shared.stop.is_set():
                try:
                    for tournament in await lobby.tournaments("registering"):
                        await self._consider(tournament)
                except LobbyError as error:
                    shared.emit("error", detail=f"tournaments: {error}")
                if await shared.pause(shared.config.tournament_poll):
                    break
        finally:
            # Stopping: each entry withdraws (before the start) or stops watching.
            await asyncio.gather(*self.tasks, return_exceptions=True)

    async def _consider(self, tournament: dict[str, Any]) -> None:
        tournament_id = str(tournament["id"])
        city = tournament.get("city")
        eligible = [
            b
            for b in self.bots
            if (city is None or b.city == city) and (b.username, tournament_id) not in self.entered
        ]
        room = int(tournament["max_players"]) - int(tournament["entries"])
        if not eligible or room <= 0:
            return
        if self.mode == "with_humans":
            detail = await self.bots[0].lobby.tournament(tournament_id)
            humans = [
                s
                for s in detail["standings"]
                if s["status"] == "registered" and s["player_id"] not in self.shared.bot_ids
            ]
            if not humans:
                return
        for bot in eligible[:room]:
            if self.shared.stop.is_set():
                return
            self.entered.add((bot.username, tournament_id))
            try:
                await bot.lobby.enter_tournament(tournament_id)
            except LobbyError as error:
                if error.code == "already_registered":
                    pass  # an entry of an earlier run: play it
                elif error.code in ("tournament_full", "tournament_started", "tournament_over"):
                    return
                else:
                    # Not enough money, not its city (changed meanwhile): not tried again.
                    self.shared.emit(
                        "error", bot=bot.username, tournament=tournament_id, detail=str(error)
                    )
                    continue
            self.shared.emit(
                "registered", bot=bot.username, tournament=tournament_id, name=tournament["name"]
            )
            entry = _Entry(self.shared, bot, tournament_id, random.Random(self.rng.getrandbits(64)))
            task = asyncio.create_task(entry.run())
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)


class _Entry:
    """One bot's entry in one tournament: waits for the start, plays, follows moves."""

    def __init__(self, shared: _Shared, bot: _Bot, tournament_id: str, rng: random.Random) -> None:
        self.shared = shared
        self.bot = bot
        self.lobby: LobbyClient = bot.lobby
        self.tournament_id = tournament_id
        self.rng = rng
        self.hands = 0
        self._acted_through = -1
        self._counted_hand = 0
        #: until when a TABLE_NOT_FOUND is waited through: the node a table was followed to
        #: loads it at its next look (a dead node's tables), and does not know it until then
        self._arriving_until = 0.0

    def _emit(self, event: str, **fields: Any) -> None:
        self.shared.emit(event, bot=self.bot.username, tournament=self.tournament_id, **fields)

    async def run(self) -> None:
        try:
            where = await self._wait_for_seat()
            while where is not None:
                self._emit("tournament_seated", table=where.table.removeprefix("tables/"))
                outcome = await self._play(where)
                if isinstance(outcome, _Where):
                    self._emit(
                        "moved",
                        to_table=outcome.table.removeprefix("tables/"),
                        engine=outcome.address,
                    )
                    where = outcome
                elif outcome == "busted" or self.shared.stop.is_set():
                    break
                else:
                    # The stream ended with no move told (a table broken, the tournament
                    # over): the lobby knows where the entry is now.
                    where = await self._seat_from_lobby()
            if not self.shared.stop.is_set():
                await self._report_end()
        except Exception as error:
            if isinstance(error, grpc.aio.AioRpcError):
                detail = f"{error.code().name}: {error.details()}"
            else:
                detail = str(error) or type(error).__name__
                if not isinstance(error, LobbyError):
                    log.exception(
                        "%s in %s: unexpected failure", self.bot.username, self.tournament_id
                    )
            self._emit("error", detail=detail)

    async def _seat_from_lobby(self) -> _Where | None:
        entry = await self.lobby.my_entry(self.tournament_id)
        if entry["status"] == "playing" and entry.get("table_id") and entry.get("engine_grpc"):
            return _Where(f"tables/{entry['table_id']}", str(entry["engine_grpc"]))
        return None

    async def _wait_for_seat(self) -> _Where | None:
        """Poll the entry until it plays (its seat), ends, or the bots stop (withdrawn)."""
        shared = self.shared
        while True:
            entry = await self.lobby.my_entry(self.tournament_id)
            status = entry["status"]
            if status == "playing" and entry.get("table_id") and entry.get("engine_grpc"):
                return _Where(f"tables/{entry['table_id']}", str(entry["engine_grpc"]))
            if status not in ("registered", "playing"):
                return None  # unregistered (cancelled), or over already
            if await shared.pause(shared.config.poll):
                if status == "registered":
                    with contextlib.suppress(LobbyError):
                        await self.lobby.withdraw_entry(self.tournament_id)
                        self._emit("unregistered", reason="stopped")
                return None

    async def _report_end(self) -> None:
        """His place and prize, once the lobby recorded them."""
        deadline = time.monotonic() + PLACE_SECONDS
        while True:
            entry = await self.lobby.my_entry(self.tournament_id)
            if entry.get("place") is not None or time.monotonic() >= deadline:
                break
            if await self.shared.pause(self.shared.config.poll):
                return
        event = "finished" if entry["status"] == "finished" else "busted"
        self._emit(event, place=entry.get("place"), prize=entry.get("prize"), hands=self.hands)

    async def _metadata(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {await self.lobby.access_token()}"),)

    async def _play(self, where: _Where) -> _Where | str:
        """Watch ``where`` until moved (the destination), busted, the stream ends, or the
        bots stop (the seat stays: the clock acts for the bot)."""
        watching = asyncio.create_task(self._watch(where))
        stopping = asyncio.create_task(self.shared.stop.wait())
        try:
            await asyncio.wait({watching, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            if not watching.done():
                watching.cancel()
        if watching.cancelled() or not watching.done():
            with contextlib.suppress(asyncio.CancelledError):
                await watching
            return "stopped"
        return watching.result()

    async def _watch(self, where: _Where) -> _Where | str:
        shared = self.shared
        stub = shared.stub(where.address)
        outage_began: float | None = None
        # How long a railbird's view is waited through for the seat (a move's destination).
        arriving_until = time.monotonic() + ARRIVAL_SECONDS
        while True:
            # Each stream starts with the table as it is now, and another table, or a node that
            # took this one over (or restarted), numbers its changes afresh: the bar of the last
            # act belongs to the old stream.
            self._acted_through = -1
            try:
                stream = stub.WatchTable(
                    table_service_pb2.WatchTableRequest(table=where.table),
                    metadata=await self._metadata(),
                )
                rewatch = False
                async for message in stream:
                    outage_began = None
                    self._arriving_until = 0.0
                    outcome = self._events(message)
                    if outcome is not None:
                        return outcome
                    snapshot = message.snapshot
                    if snapshot.status == table_pb2.TABLE_STATUS_CLOSED:
                        return "closed"
                    if snapshot.viewer_seat == 0:
                        # A railbird's view. Moved here, he may come before the director seats
                        # him: once seated, a new stream gives his seat's view.
                        if any(s.player_id == self.lobby.player_id for s in snapshot.seats):
                            rewatch = True
                            break
                        if time.monotonic() < arriving_until:
                            continue
                        return "gone"  # no seat here (any more)
                    arriving_until = 0.0
                    self._count_hand(snapshot)
                    if (
                        snapshot.turn_seat == snapshot.viewer_seat
                        and snapshot.legal_actions
                        and message.sequence >= self._acted_through
                    ):
                        await self._act(where, snapshot)
                if rewatch:
                    stream.cancel()
                    continue
                return "gone"
            except grpc.aio.AioRpcError as error:
                code = error.code()
                if code == grpc.StatusCode.NOT_FOUND and time.monotonic() < self._arriving_until:
                    await asyncio.sleep(0.5)
                    continue
                if code not in _RETRY_STREAM:
                    return "gone"  # no seat, no table: the lobby says where
                followed = await self._follow(where, error)
                if followed is not None:
                    return followed
                now = time.monotonic()
                outage_began = now if outage_began is None else outage_began
                if now - outage_began >= shared.config.reconnect_seconds:
                    raise
                if code == grpc.StatusCode.UNAUTHENTICATED:
                    with contextlib.suppress(LobbyError):
                        await self.lobby.renew(self.lobby.token)
                await asyncio.sleep(1.0)

    async def _follow(self, where: _Where, error: grpc.aio.AioRpcError) -> _Where | str | None:
        """After ``UNAVAILABLE``: where his seat is served now, if not at ``where`` (None: watch
        there again). A ``TABLE_MOVED`` refusal names the table's new node; a node that died
        says nothing, and the lobby's entry names the node that took the table over once one
        has (or another table, or no seat: ``gone``, the lobby is asked again)."""
        if error.code() != grpc.StatusCode.UNAVAILABLE:
            return None
        address = moved_to(error)
        if address is None:
            try:
                entry = await self.lobby.my_entry(self.tournament_id)
            except LobbyError:
                return None
            if entry["status"] != "playing" or not entry.get("table_id"):
                return "gone"
            seat = _Where(f"tables/{entry['table_id']}", str(entry.get("engine_grpc") or ""))
        else:
            seat = _Where(where.table, address)
        if seat == where or not seat.address:
            return None
        self._arriving_until = time.monotonic() + ARRIVAL_SECONDS
        return seat

    def _events(self, message: table_service_pb2.WatchTableResponse) -> _Where | str | None:
        me = self.lobby.player_id
        for event in message.events:
            kind = event.WhichOneof("kind")
            if kind == "player_moved" and event.player_moved.player_id == me:
                destination = event.player_moved.destination
                return _Where(destination.table, destination.grpc_address)
            if kind == "player_busted" and event.player_busted.player_id == me:
                return "busted"
        return None

    def _count_hand(self, snapshot: table_pb2.TableSnapshot) -> None:
        if snapshot.hand_in_progress and snapshot.hand_number > self._counted_hand:
            self._counted_hand = snapshot.hand_number
            self.hands += 1

    async def _act(self, where: _Where, snapshot: table_pb2.TableSnapshot) -> None:
        decision = decide(snapshot, self.rng)
        if decision is None:
            return
        think = self.shared.config.think
        if think > 0:
            await asyncio.sleep(think * self.rng.uniform(0.5, 1.5))
        request = table_service_pb2.ActRequest(
            table=where.table,
            hand_number=snapshot.hand_number,
            kind=decision.kind,
            action_id=f"{self.bot.username}-{self.rng.getrandbits(64):016x}",
        )
        if decision.amount is not None:
            request.amount = decision.amount
        stub = self.shared.stub(where.address)
        try:
            response = await stub.Act(request, metadata=await self._metadata(), timeout=10)
        except grpc.aio.AioRpcError as error:
            # The clock acted first, or the hand moved on: the next snapshot tells.
            log.info("%s: act refused: %s", self.bot.username, error.details())
            return
        self._acted_through = response.sequence
