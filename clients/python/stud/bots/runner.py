"""Bot players: accounts in the lobby that keep seats at quick-game tables and play them.

Each bot is a lobby account of one city (``bot_oslo_1``, …). For every stake level it plays,
it keeps ``tables_per_bot`` *slots*; a slot that has no table holds a matchmaking ticket
(``POST /tickets``), so whenever a player of that city opens a quick game (``POST
/quickgame``), the lobby seats the waiting bots at his table — a lone human always has
opponents. A seated slot opens ``WatchTable`` on the engine (the address is in the ticket)
with the bot's token and acts on its turns (:mod:`stud.bots.strategy`); a bot never sits
twice at one table (the lobby places a ticket only where its player has no seat).

A slot leaves its table (``POST /tables/{id}/leave``; mid-hand it plays the hand out) when

- no human sits there any more (only bots of this process), so the table can close;
- no human has been connected for ``idle_hands`` hand starts (the human went away);
- it is busted and the top-up (``POST /tables/{id}/topup``) was refused;
- it played ``hands`` hands (a limit for tests and demos), or the bots are stopping;
- its stream cannot be watched again: refused for good, or failing for ``reconnect_seconds``
  in a row (``stream_failed``). Short outages (an engine restart, a table moving) are ridden
  out, however many: each stream that delivers a message starts the count again.

Then it opens a new ticket (unless ``once``). On stop, waiting tickets are withdrawn (their
buy-in goes back to the wallet), seated slots leave and every bot logs out.

**Short-lived tokens.** The lobby's access tokens live minutes. A slot's stream outlives its
token (the engine checks a token when a call starts), but every act needs a valid one: each
``Act`` carries the bot's current token, renewed ahead of its expiry by the refresh token
(:class:`~stud.bots.lobby.LobbyClient`), and an act refused ``UNAUTHENTICATED`` is sent once
more with a renewed token (its action id makes that safe).

**Bots on request.** With a service token (``desk_token``) and cities to serve
(``on_request``; ``*``: every city), the bots also keep a *bot desk*: every ``desk_poll``
seconds they poll the lobby's ``POST /bots/desk``, which marks those cities (at the bots'
stake levels) as served by bots and answers the tables there whose player asked for bots
and that still miss players. Each poll says how many bots the desk can still send to one
table: ``per_city`` (fewer in a city whose next account cannot sign in: as many as it has
there), and the lobby lets no table ask for more. For each missing player the desk sends a
bot of the table's city (``bot_berlin_r1``, …, signed in on first need, at most
``per_city``, never two at one table) with a ticket for that table only; it plays there
like any slot, then stops (it is not replaced when it leaves). The desk's bots are accounts
of its own (``r`` for request), never ticket bots (``bot_oslo_1``, of this ``stud bots`` or
another): a ticket bot may already sit at the table that asks, and the lobby would count it
as one the desk can still send. A ticket the lobby cannot place
within :data:`REQUEST_SEAT_SECONDS` (the table filled meanwhile) is withdrawn. Stopping, the
desk's last poll says it can send none, so the lobby stops promising its bots at once.

Progress is reported through ``emit(event, **fields)`` (the ``stud bots`` command prints
one JSON line per call): ``ready``, ``waiting``, ``seated``, ``topped_up``, ``left``,
``error`` (a bot that cannot sign in: with the lobby's ``code``), ``stopped``; the desk adds
``requested`` (a table asked for bots: how many sent).

**Tournaments.** With ``tournaments`` set the bots also register for the open tournaments of
their cities and play them (:mod:`stud.bots.tournaments`: ``registered``,
``tournament_seated``, ``moved``, ``busted``, ``finished``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
import httpx

from stud.bots.follow import moved_to
from stud.bots.lobby import LobbyClient, LobbyError
from stud.bots.strategy import decide
from stud.bots.tournaments import TournamentDesk
from stud.v1 import table_pb2, table_service_pb2, table_service_pb2_grpc

__all__ = [
    "LAST_POLL_SECONDS",
    "REQUEST_SEAT_SECONDS",
    "SIGN_IN_AGAIN_SECONDS",
    "BotsConfig",
    "Emit",
    "bot_username",
    "default_buy_in",
    "desk_name",
    "run_bots",
]

log = logging.getLogger("stud.bots")

#: How long a bot sent to a table that asked for bots waits for its seat before giving up.
REQUEST_SEAT_SECONDS = 10.0
#: How long the desk waits before it signs in again a city's account that could not sign in
#: (meanwhile it says it can send only the accounts it has there): a wrong password would
#: count a failed log-in at every try.
SIGN_IN_AGAIN_SECONDS = 60.0
#: How long the desk's last poll, stopping, may take.
LAST_POLL_SECONDS = 3.0

#: ``emit(event, **fields)``: where the bots report what they do.
Emit = Callable[..., None]

#: Stream failures worth watching again after (the engine restarted, the table moved, …).
_RETRY_STREAM = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.INTERNAL,
}


@dataclass(frozen=True, slots=True)
class BotsConfig:
    """What ``stud bots`` was asked to do."""

    lobby: str
    #: username -> password (registration and log-in).
    password: Callable[[str], str]
    cities: tuple[str, ...] = ("oslo", "stockholm")
    per_city: int = 3
    stakes: tuple[str, ...] = ("house-2-4",)
    #: Tables one bot plays at once, per stake level (one ticket waits while it has fewer).
    tables_per_bot: int = 2
    #: Chips a bot sits down with; None: :func:`default_buy_in` of the level.
    buy_in: int | None = None
    #: Seconds a bot "thinks" before acting (randomised between half and one and a half).
    think: float = 0.8
    #: Leave a table after this many hands (None: stay while a human plays).
    hands: int | None = None
    #: Each slot plays at one table, then stops (tests).
    once: bool = False
    #: Leave after this many hand starts in a row with no human connected.
    idle_hands: int = 3
    #: Ticket polling interval, seconds.
    poll: float = 0.5
    #: How long stopping may take before streams are cut (the clock then acts for the bot).
    shutdown_seconds: float = 15.0
    #: How long a slot keeps trying to watch its table again, from the first failure of an
    #: outage (an engine restart takes its lease time and its start), before it gives the
    #: seat up.
    reconnect_seconds: float = 120.0
    #: Seed of the bots' random choices (None: unpredictable).
    seed: int | None = None
    prefix: str = "bot"
    #: Cities whose requests for bots these bots answer (``*``: every city); needs
    #: ``desk_token``, and is off with ``once``.
    on_request: tuple[str, ...] = ()
    #: A service token (scope lobby) for ``POST /bots/desk``, minted afresh per poll;
    #: None: no bot desk (the bots only hold tickets in ``cities``).
    desk_token: Callable[[], str] | None = None
    #: Seconds between the desk's polls (the lobby says how long it may wait at most).
    desk_poll: float = 2.0
    #: Tournaments the bots register for (:mod:`stud.bots.tournaments`): ``all`` (every open
    #: one of their cities), ``with_humans`` (once a human registered), None: none.
    tournaments: str | None = None
    #: Seconds between two looks at the registering tournaments.
    tournament_poll: float = 2.0


def bot_username(prefix: str, city: str, number: int, kind: str = "") -> str:
    """``bot_oslo_1``: a valid lobby username (``[A-Za-z0-9_]``, at most 32 characters);
    ``kind`` marks the number (``r``: the bot desk's, ``bot_oslo_r1``).

    >>> bot_username("bot", "oslo", 1)
    'bot_oslo_1'
    >>> bot_username("bot", "new-york", 12)
    'bot_new_york_12'
    >>> bot_username("bot", "berlin", 2, kind="r")
    'bot_berlin_r2'
    """
    city_part = re.sub(r"[^A-Za-z0-9_]", "_", city)
    suffix = f"_{kind}{number}"
    return f"{prefix}_{city_part}"[: 32 - len(suffix)] + suffix


def desk_name(prefix: str) -> str:
    """This process's bot desk name: ``prefix``, host and process id, as the lobby spells
    names (``[a-z0-9._-]``, at most 64 characters)."""
    raw = f"{prefix}-{socket.gethostname()}-{os.getpid()}".lower()
    return re.sub(r"[^a-z0-9._-]", "-", raw).lstrip("._-")[:64] or f"bots-{os.getpid()}"


def default_buy_in(level: dict[str, Any]) -> int:
    """25 big bets, within the level's buy-in limits.

    >>> default_buy_in({"big_bet": 4, "min_buy_in": 40, "max_buy_in": 400})
    100
    >>> default_buy_in({"big_bet": 100, "min_buy_in": 2000, "max_buy_in": 10000})
    2500
    """
    return int(min(level["max_buy_in"], max(level["min_buy_in"], 25 * level["big_bet"])))


@dataclass
class _Shared:
    """What every slot of one ``run_bots`` shares."""

    config: BotsConfig
    emit: Emit
    stop: asyncio.Event
    #: Player ids of every bot of this process: anyone else at a table is a human.
    bot_ids: set[str] = field(default_factory=set)
    channels: dict[str, grpc.aio.Channel] = field(default_factory=dict)

    def stub(self, address: str) -> table_service_pb2_grpc.TableServiceStub:
        if address not in self.channels:
            # A restarted engine is found again within a few seconds (gRPC's own backoff
            # between connection attempts would grow to two minutes).
            self.channels[address] = grpc.aio.insecure_channel(
                address, options=[("grpc.max_reconnect_backoff_ms", 5000)]
            )
        return table_service_pb2_grpc.TableServiceStub(self.channels[address])

    async def pause(self, seconds: float) -> bool:
        """Sleep, or return early (True) when the bots are stopping."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop.wait(), seconds)
        return self.stop.is_set()


@dataclass
class _Bot:
    username: str
    city: str
    lobby: LobbyClient


class _Slot:
    """One seat a bot keeps at one stake level: a waiting ticket or a table it plays."""

    def __init__(
        self,
        shared: _Shared,
        bot: _Bot,
        level: dict[str, Any],
        buy_in: int,
        rng: random.Random,
        *,
        target: str | None = None,
        on_seated: Callable[[], None] | None = None,
    ) -> None:
        self.shared = shared
        self.bot = bot
        self.level = level
        self.buy_in = buy_in
        self.rng = rng
        #: The one table this slot answers (a request for bots): it plays there once.
        self.target = target
        self.on_seated = on_seated

    @property
    def _name(self) -> str:
        return self.bot.username

    async def run(self) -> None:
        shared = self.shared
        while not shared.stop.is_set():
            try:
                ticket = await self._find_seat()
                if ticket is not None:
                    reason = await self._play(ticket)
                    if reason == "no_humans" and not self.shared.config.once:
                        # The table is winding down; give it time to close before sitting again.
                        await shared.pause(2.0)
            except Exception as error:
                # A lobby refusal, an engine failure, a bug: report it, rest, and sit again.
                if isinstance(error, grpc.aio.AioRpcError):
                    detail = f"{error.code().name}: {error.details()}"
                else:
                    detail = str(error) or type(error).__name__
                if not isinstance(error, LobbyError | grpc.aio.AioRpcError):
                    log.exception("%s: unexpected failure", self._name)
                shared.emit("error", bot=self._name, detail=detail)
                if self.target is not None or await shared.pause(5.0):
                    return
            if shared.config.once or self.target is not None:
                return

    # ------------------------------------------------------------------ ticket

    async def _find_seat(self) -> dict[str, Any] | None:
        """Open a ticket and poll it until seated (None: expired, stopped or no money)."""
        shared, lobby = self.shared, self.bot.lobby
        try:
            ticket = await lobby.open_ticket(self.level["id"], self.buy_in, self.target)
        except LobbyError as error:
            if error.code == "no_bot_request":
                return None  # the table has its players (or closed) meanwhile
            if error.code != "insufficient_funds":
                raise
            shared.emit("error", bot=self._name, detail=f"wallet too low: {error.detail}")
            await shared.pause(30.0)
            return None
        shared.emit(
            "waiting",
            bot=self._name,
            ticket=ticket["id"],
            stake_level=self.level["id"],
            **({"table": self.target} if self.target else {}),
        )
        loop = asyncio.get_running_loop()
        give_up = loop.time() + REQUEST_SEAT_SECONDS
        while True:
            status = ticket["status"]
            if status == "seated":
                return ticket
            if status in ("expired", "cancelled"):
                return None
            stopping = await shared.pause(shared.config.poll)
            if stopping or (self.target is not None and loop.time() > give_up):
                # Stopping, or the one table it answers was filled by others meanwhile.
                await self._withdraw(ticket["id"])
                return None
            ticket = await lobby.ticket(ticket["id"])

    async def _withdraw(self, ticket_id: str) -> None:
        """Stopping: withdraw the ticket, or leave the table it found meanwhile."""
        lobby = self.bot.lobby
        try:
            await lobby.cancel_ticket(ticket_id)
        except LobbyError as error:
            if error.code != "ticket_seated":
                raise
            ticket = await lobby.ticket(ticket_id)
            if ticket.get("table_id"):
                with contextlib.suppress(LobbyError):
                    await lobby.leave(ticket["table_id"])

    # ------------------------------------------------------------------- table

    async def _play(self, ticket: dict[str, Any]) -> str:
        """Play at the ticket's table until the slot leaves it; returns why it left."""
        shared = self.shared
        table_id = ticket["table_id"]
        shared.emit("seated", bot=self._name, table=table_id, seat=ticket.get("seat"))
        if self.on_seated is not None:
            self.on_seated()
        game = _Game(self, table_id, ticket["table"], ticket["engine_grpc"], ticket["id"])
        leave_on_stop = asyncio.create_task(game.leave_when_stopping())
        try:
            reason = await game.play()
        except Exception as error:
            # The slot gives the table up: it must not keep the seat (the engine would time
            # the absent bot out every turn, and the lobby would keep it seated).
            if isinstance(error, grpc.aio.AioRpcError):
                detail = f"{error.code().name}: {error.details()}"
            else:
                detail = str(error) or type(error).__name__
                if not isinstance(error, LobbyError):
                    log.exception("%s at %s: unexpected failure", self._name, table_id)
            shared.emit("error", bot=self._name, table=table_id, detail=f"stream: {detail}")
            reason = "stream_failed"
            await game.leave_for_good(reason)
        finally:
            leave_on_stop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await leave_on_stop
        shared.emit("left", bot=self._name, table=table_id, reason=reason, hands=game.hands)
        return reason


class _Game:
    """One slot at one table: the WatchTable stream, its decisions and its way out."""

    def __init__(
        self, slot: _Slot, table_id: str, table: str, address: str, ticket_id: str
    ) -> None:
        self.slot = slot
        self.shared = slot.shared
        self.lobby = slot.bot.lobby
        self.table_id = table_id
        self.table = table
        self.ticket_id = ticket_id
        #: the engine node serving the table (followed when the table moves)
        self.address = address
        self.stub: table_service_pb2_grpc.TableServiceStub = self.shared.stub(address)
        self.hands = 0
        self.leaving: str | None = None
        self._counted_hand = 0
        self._idle_hands = 0
        self._topped_up_at = -1
        self._acted_through = -1
        #: whether the current stream delivered a message (it was up: an outage is over)
        self._streamed = False
        #: followed to another node that has not delivered a message yet: it may not have
        #: loaded the table yet (a survivor loads a dead node's tables at its next look, and
        #: answers TABLE_NOT_FOUND until then), so NOT_FOUND is waited through, as an outage
        self._arriving = False

    async def _metadata(self) -> tuple[tuple[str, str]]:
        """The call's token: renewed ahead of its expiry (the lobby's tokens are short-lived).
        The stream outlives its token; each act carries a fresh one."""
        return (("authorization", f"Bearer {await self.lobby.access_token()}"),)

    async def leave(self, reason: str) -> bool:
        """Ask the lobby to take the bot off the table (mid-hand: after the hand); whether
        the seat is being left. A refused request is asked again later (a later snapshot, or
        :meth:`leave_for_good`)."""
        if self.leaving is not None:
            return True
        self.leaving = reason
        try:
            await self.lobby.leave(self.table_id)
        except LobbyError as error:
            if error.code != "not_seated":
                self.shared.emit("error", bot=self.slot.bot.username, detail=str(error))
                self.leaving = None
                return False
        return True

    async def leave_for_good(self, reason: str) -> None:
        """Leave the seat, asking again (the lobby may not reach the engine at once) for as
        long as the slot would have tried to reconnect, or until the bots stop."""
        deadline = time.monotonic() + self.shared.config.reconnect_seconds
        while not await self.leave(reason):
            if time.monotonic() >= deadline or await self.shared.pause(2.0):
                return

    async def leave_when_stopping(self) -> None:
        await self.shared.stop.wait()
        await self.leave("stopped")

    async def play(self) -> str:
        """Watch and act until the seat is gone. After a stream failure that may pass (the
        engine restarting, the table moving) it watches again, for any number of outages;
        raises when the stream is refused for good or an outage lasts ``reconnect_seconds``.
        """
        failures = 0
        outage_began = 0.0
        while True:
            self._streamed = False
            try:
                ended = await self._watch()
            except grpc.aio.AioRpcError as error:
                code = error.code()
                arriving = code == grpc.StatusCode.NOT_FOUND and self._arriving
                if code in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.NOT_FOUND) and (
                    not arriving
                ):
                    return self.leaving or "gone"  # no seat (left) or no table (closed)
                if self._streamed or failures == 0:
                    # The stream was up (or this is the first failure): a new outage.
                    failures, outage_began = 0, time.monotonic()
                if await self._follow(error):
                    continue
                retry = (
                    code in _RETRY_STREAM
                    or arriving
                    or (code == grpc.StatusCode.UNAUTHENTICATED and failures == 0)
                )
                outage = time.monotonic() - outage_began
                if not retry or outage >= self.shared.config.reconnect_seconds:
                    raise
                failures += 1
                log.info(
                    "%s at %s: stream failed (%s), watching again (%d)",
                    self.slot.bot.username,
                    self.table_id,
                    code.name,
                    failures,
                )
                if code == grpc.StatusCode.UNAUTHENTICATED:
                    # The token ran out (TOKEN_EXPIRED): a fresh one from the lobby.
                    with contextlib.suppress(LobbyError):
                        await self.lobby.renew(self.lobby.token)
                if await self.shared.pause(min(5.0, 0.5 * failures)) and self.leaving is None:
                    await self.leave("stopped")
                continue
            return self.leaving or ended

    async def _follow(self, error: grpc.aio.AioRpcError) -> bool:
        """After ``UNAVAILABLE``: whether the table is served elsewhere now, and if so watch
        it there. A ``TABLE_MOVED`` refusal names the new node; a node that is gone (killed,
        unreachable) says nothing, and the lobby's answer for the ticket names the node
        that took the table over once it has."""
        if error.code() != grpc.StatusCode.UNAVAILABLE:
            return False
        address = moved_to(error)
        if address is None:
            try:
                address = (await self.lobby.ticket(self.ticket_id)).get("engine_grpc")
            except LobbyError:
                return False
        if not address or address == self.address:
            return False
        self.shared.emit("moved", bot=self.slot.bot.username, table=self.table_id, engine=address)
        self._arriving = True
        self.address = address
        self.stub = self.shared.stub(address)
        return True

    async def _watch(self) -> str:
        # A stream starts with the table as it is now, and a node that took the table over (or
        # restarted) numbers its changes from 1 again: the bar of the last act is the old
        # stream's and would keep the bot from acting there.
        self._acted_through = -1
        stream = self.stub.WatchTable(
            table_service_pb2.WatchTableRequest(table=self.table), metadata=await self._metadata()
        )
        async for message in stream:
            self._streamed = True
            self._arriving = False
            snapshot = message.snapshot
            if snapshot.status == table_pb2.TABLE_STATUS_CLOSED:
                return "closed"
            me = next((s for s in snapshot.seats if s.number == snapshot.viewer_seat), None)
            if me is None:
                return "gone"
            self._count_hand(snapshot, me)
            if self.leaving is None:
                reason = await self._reason_to_leave(snapshot, me)
                if reason is not None:
                    await self.leave(reason)
            if (
                snapshot.turn_seat == snapshot.viewer_seat
                and snapshot.legal_actions
                # Older snapshots are stale; the action's own change may already hand the
                # bot its next turn (a new street can open on it).
                and message.sequence >= self._acted_through
            ):
                await self._act(snapshot)
        return "gone"  # the engine ends the stream when the seat frees or the table closes

    def _count_hand(self, snapshot: table_pb2.TableSnapshot, me: table_pb2.Seat) -> None:
        if not snapshot.hand_in_progress or snapshot.hand_number <= self._counted_hand:
            return
        self._counted_hand = snapshot.hand_number
        if me.in_hand:
            self.hands += 1
        humans_here = any(
            s.connected for s in snapshot.seats if s.player_id not in self.shared.bot_ids
        )
        self._idle_hands = 0 if humans_here else self._idle_hands + 1

    async def _reason_to_leave(
        self, snapshot: table_pb2.TableSnapshot, me: table_pb2.Seat
    ) -> str | None:
        config = self.shared.config
        if self.shared.stop.is_set():
            return "stopped"
        if not any(s.player_id not in self.shared.bot_ids for s in snapshot.seats):
            return "no_humans"
        if self._idle_hands >= config.idle_hands:
            return "humans_away"
        if config.hands is not None and self.hands >= config.hands:
            return "hands"
        if me.stack == 0 and not me.in_hand and self._topped_up_at < snapshot.hand_number:
            self._topped_up_at = snapshot.hand_number
            try:
                answer = await self.lobby.top_up(self.table_id, self.slot.buy_in)
            except LobbyError as error:
                if error.code == "hand_in_progress":
                    self._topped_up_at = -1  # try again on a later snapshot
                    return None
                self.shared.emit("error", bot=self.slot.bot.username, detail=str(error))
                return "busted"
            self.shared.emit(
                "topped_up", bot=self.slot.bot.username, table=self.table_id, stack=answer["stack"]
            )
        return None

    async def _act(self, snapshot: table_pb2.TableSnapshot) -> None:
        decision = decide(snapshot, self.slot.rng)
        if decision is None:
            return
        think = self.shared.config.think
        if think > 0:
            await asyncio.sleep(think * self.slot.rng.uniform(0.5, 1.5))
        request = table_service_pb2.ActRequest(
            table=self.table,
            hand_number=snapshot.hand_number,
            kind=decision.kind,
            action_id=f"{self.slot.bot.username}-{self.slot.rng.getrandbits(64):016x}",
        )
        if decision.amount is not None:
            request.amount = decision.amount
        for attempt in (1, 2):
            metadata = await self._metadata()
            try:
                response = await self.stub.Act(request, metadata=metadata, timeout=10)
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.UNAUTHENTICATED and attempt == 1:
                    # Expired on the way (a slow lobby, a clock ahead): renew, and send the same
                    # act again (its action id makes that safe).
                    with contextlib.suppress(LobbyError):
                        await self.lobby.renew(metadata[0][1].removeprefix("Bearer "))
                    continue
                # The clock acted first, or the hand moved on: the next snapshot tells what
                # is next.
                log.info("%s: act refused: %s", self.slot.bot.username, error.details())
                return
            self._acted_through = response.sequence
            return


class _Desk:
    """The bot desk: polls the lobby for tables that asked for bots and sends bots there."""

    def __init__(
        self,
        shared: _Shared,
        http: httpx.AsyncClient,
        levels: dict[str, dict[str, Any]],
        rng: random.Random,
    ) -> None:
        self.shared = shared
        self.http = http
        self.levels = levels
        self.rng = rng
        self.lobby = LobbyClient(http, shared.config.lobby)
        self.name = desk_name(shared.config.prefix)
        #: The desk's own bots by city (``bot_berlin_r1``, …), signed in on first need (not
        #: the ticket bots: one of those may sit at the very table that asks, and the lobby
        #: would count it as a bot the desk can still send).
        self.bots: dict[str, list[_Bot]] = {}
        #: Cities whose next account could not sign in, and when: the desk says it can send
        #: only the accounts it has there, until one signs in.
        self.short: dict[str, float] = {}
        #: table id -> bots sent there and not gone yet; ``pending``: not seated yet.
        self.busy: dict[str, set[str]] = {}
        self.pending: dict[str, set[str]] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        shared = self.shared
        config = shared.config
        assert config.desk_token is not None
        try:
            while not shared.stop.is_set():
                await self._sign_in_again()
                try:
                    answer = await self._poll(stopping=False)
                except LobbyError as error:
                    shared.emit("error", desk=self.name, detail=f"bot desk: {error}")
                    if await shared.pause(5.0):
                        break
                    continue
                for request in answer.get("requests", []):
                    await self._answer(request)
                within = float(answer.get("poll_within") or config.desk_poll)
                if await shared.pause(min(config.desk_poll, within)):
                    break
            # Stopping: no bot of this desk is promised any more, from now on rather than
            # once its polls are stale (the lobby's answer lists nothing to answer).
            with contextlib.suppress(LobbyError, TimeoutError):
                await asyncio.wait_for(self._poll(stopping=True), LAST_POLL_SECONDS)
        finally:
            # Stopping: the bots sent to tables leave them (each slot sees the stop).
            await asyncio.gather(*self.tasks, return_exceptions=True)

    async def _poll(self, *, stopping: bool) -> dict[str, Any]:
        """``POST /bots/desk``: the cities and levels served, and how many bots the desk can
        still send to a table there (none, ``stopping``)."""
        config = self.shared.config
        assert config.desk_token is not None
        short = [
            {"city": city, "stake_level": "*", "bots": len(self.bots.get(city, ()))}
            for city in sorted(self.short)
        ]
        return await self.lobby.bot_desk(
            config.desk_token(),
            self.name,
            list(config.on_request),
            list(config.stakes),
            0 if stopping else config.per_city,
            None if stopping else short,
        )

    async def _sign_in_again(self) -> None:
        """Sign in the next account of each city that could not, a while after it failed."""
        now = time.monotonic()
        for city, failed_at in list(self.short.items()):
            if now - failed_at >= SIGN_IN_AGAIN_SECONDS:
                await self._sign_in(city)

    async def _answer(self, request: dict[str, Any]) -> None:
        table_id = str(request["table_id"])
        level = self.levels.get(str(request["stake_level"]))
        city = str(request["city"])
        if level is None:
            return
        wanted = int(request["missing"]) - len(self.pending.get(table_id, ()))
        sent = 0
        while sent < wanted:
            bot = await self._free_bot(city, table_id)
            if bot is None:
                break  # every bot of the city sits there already
            self._send(bot, level, table_id)
            sent += 1
        if sent:
            self.shared.emit("requested", table=table_id, city=city, sent=sent)

    async def _free_bot(self, city: str, table_id: str) -> _Bot | None:
        """A bot of ``city`` not at ``table_id`` yet, signed in on first need."""
        busy = self.busy.get(table_id, set())
        for bot in self.bots.setdefault(city, []):
            if bot.username not in busy:
                return bot
        if city in self.short:
            return None  # signed in again a while after it failed (_sign_in_again)
        return await self._sign_in(city)

    async def _sign_in(self, city: str) -> _Bot | None:
        """The city's next account of the desk, signed in (None: all are, or it failed)."""
        config = self.shared.config
        known = self.bots.setdefault(city, [])
        if len(known) >= config.per_city:
            return None
        username = bot_username(config.prefix, city, len(known) + 1, kind="r")
        bot = _Bot(username, city, LobbyClient(self.http, config.lobby))
        try:
            await bot.lobby.sign_in(username, config.password(username), city)
        except LobbyError as error:
            self.shared.emit(
                "error", bot=username, code=error.code, detail=f"cannot sign in: {error}"
            )
            self.short[city] = time.monotonic()
            return None
        self.short.pop(city, None)
        assert bot.lobby.player_id is not None
        self.shared.bot_ids.add(bot.lobby.player_id)
        known.append(bot)
        return bot

    def _send(self, bot: _Bot, level: dict[str, Any], table_id: str) -> None:
        busy = self.busy.setdefault(table_id, set())
        pending = self.pending.setdefault(table_id, set())
        busy.add(bot.username)
        pending.add(bot.username)
        slot = _Slot(
            self.shared,
            bot,
            level,
            self.shared.config.buy_in or default_buy_in(level),
            random.Random(self.rng.getrandbits(64)),
            target=table_id,
            on_seated=lambda: pending.discard(bot.username),
        )

        async def serve() -> None:
            try:
                await slot.run()
            finally:
                busy.discard(bot.username)
                pending.discard(bot.username)
                if not busy:
                    self.busy.pop(table_id, None)
                    self.pending.pop(table_id, None)

        task = asyncio.create_task(serve())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


async def run_bots(config: BotsConfig, stop: asyncio.Event, emit: Emit) -> int:
    """Sign the bots in and keep them seated until ``stop`` is set (or, with ``once``, until
    every slot played its table). Returns 0, or 1 when no bot could sign in."""
    shared = _Shared(config, emit, stop)
    rng = random.Random(config.seed)
    async with httpx.AsyncClient(timeout=15) as http:
        levels = {level["id"]: level for level in await LobbyClient(http, config.lobby).stakes()}
        unknown = [s for s in config.stakes if s not in levels]
        if unknown:
            emit("error", detail=f"unknown stake levels: {', '.join(unknown)}")
            return 2
        bots: list[_Bot] = []
        for city in config.cities:
            for number in range(1, config.per_city + 1):
                username = bot_username(config.prefix, city, number)
                bot = _Bot(username, city, LobbyClient(http, config.lobby))
                try:
                    await bot.lobby.sign_in(username, config.password(username), city)
                except LobbyError as error:
                    # The code says why (wrong_credentials: the account has another
                    # password), for whoever reads the events.
                    emit("error", bot=username, code=error.code, detail=f"cannot sign in: {error}")
                    continue
                assert bot.lobby.player_id is not None
                shared.bot_ids.add(bot.lobby.player_id)
                bots.append(bot)
        if not bots:
            return 1
        slots = [
            _Slot(
                shared,
                bot,
                levels[level_id],
                config.buy_in or default_buy_in(levels[level_id]),
                random.Random(rng.getrandbits(64)),
            )
            for bot in bots
            for level_id in config.stakes
            for _ in range(config.tables_per_bot)
        ]
        desk = None
        if config.desk_token is not None and config.on_request and not config.once:
            desk = _Desk(shared, http, levels, random.Random(rng.getrandbits(64)))
        tournaments = None
        if config.tournaments is not None and not config.once:
            tournaments = TournamentDesk(shared, bots, random.Random(rng.getrandbits(64)))
        emit(
            "ready",
            bots=[b.username for b in bots],
            slots=len(slots),
            on_request=list(config.on_request) if desk is not None else [],
            tournaments=config.tournaments if tournaments is not None else None,
        )
        tasks = [asyncio.create_task(slot.run()) for slot in slots]
        if desk is not None:
            tasks.append(asyncio.create_task(desk.run()))
        if tournaments is not None:
            tasks.append(asyncio.create_task(tournaments.run()))
        stopping = asyncio.create_task(stop.wait())
        try:
            running: set[asyncio.Task[Any]] = set(tasks)
            while running and not stop.is_set():
                _done, running = await asyncio.wait(
                    running | {stopping}, return_when=asyncio.FIRST_COMPLETED
                )
                running.discard(stopping)
            if running:
                # Stopping: tickets are withdrawn and tables left; a hand in play is played
                # out, for a while (after that the engine's clock acts for the bot).
                _done, late = await asyncio.wait(running, timeout=config.shutdown_seconds)
                for task in late:
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            stopping.cancel()
            for task in tasks:
                task.cancel()
            for channel in shared.channels.values():
                await channel.close()
            # Their sessions end with them (the refresh tokens stop working).
            signed_in = {id(b): b for b in bots}
            if desk is not None:
                signed_in.update((id(b), b) for known in desk.bots.values() for b in known)
            await asyncio.gather(
                *(b.lobby.log_out() for b in signed_in.values()), return_exceptions=True
            )
    emit("stopped")
    return 0
