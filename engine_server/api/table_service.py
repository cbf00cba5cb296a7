"""``stud.v1.TableService``: what players' clients call, over gRPC and Connect/gRPC-Web.

:class:`TableServiceCore` holds the logic once; :class:`GrpcTableService`
(grpcio) and :class:`ConnectTableService` (connectrpc) only carry it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import grpc
from connectrpc.request import RequestContext
from stud.v1 import events_pb2, table_pb2, table_service_pb2, table_service_pb2_grpc

from engine_server.api.convert import (
    ACTION_FROM_PROTO,
    ACTION_TO_PROTO,
    add_own_part,
    event_message,
    seat_message,
    session_message,
    snapshot_message,
)
from engine_server.api.errors import (
    DOMAIN,
    ErrorObserver,
    abort,
    connect_error,
    grpc_code,
    invalid,
)
from engine_server.api.wire import (
    length_delimited,
    own_snapshot,
    response_message,
    snapshot_parts,
)
from engine_server.auth import Identity, Scope, TokenError, TokenExpired, verify_token
from engine_server.game.cards import format_cards
from engine_server.table.errors import ErrorKind, TableError
from engine_server.table.mailbox import Mailbox
from engine_server.table.manager import TableManager
from engine_server.table.runtime import ActAnswer, ActOutcome, TableRuntime, Update, Watcher

__all__ = [
    "ConnectTableService",
    "GrpcTableService",
    "TableServiceCore",
    "authenticate",
    "parse_table_name",
    "play_response_bytes",
    "play_response_of",
    "response_bytes",
    "response_of",
]

log = logging.getLogger("stud.api")

MAX_ID_LENGTH = 64


def authenticate(headers: Mapping[str, str], secret: str) -> Identity:
    """The caller named by the ``authorization: Bearer …`` header."""
    value = headers.get("authorization", "")
    if not value:
        raise TableError(ErrorKind.UNAUTHENTICATED, "TOKEN_MISSING", "no bearer token")
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise TableError(ErrorKind.UNAUTHENTICATED, "TOKEN_INVALID", "expected 'Bearer <token>'")
    try:
        return verify_token(token.strip(), secret)
    except TokenExpired as error:
        # Its own reason: the client should refresh its token (the lobby's POST /auth/refresh)
        # and call again, not log the player in anew.
        raise TableError(ErrorKind.UNAUTHENTICATED, "TOKEN_EXPIRED", str(error)) from None
    except TokenError as error:
        raise TableError(ErrorKind.UNAUTHENTICATED, "TOKEN_INVALID", str(error)) from None


def parse_table_name(name: str, field: str = "table") -> str:
    if len(name) > 80 or not name.startswith("tables/") or len(name) == len("tables/"):
        raise invalid(field, f"{field} must be a table name 'tables/{{table_id}}'")
    return name.removeprefix("tables/")


def _check_id(value: str, field: str) -> str:
    if not value or len(value) > MAX_ID_LENGTH or not value.isprintable():
        raise invalid(field, f"{field} must be 1-{MAX_ID_LENGTH} printable characters")
    return value


class TableServiceCore:
    def __init__(
        self, manager: TableManager, secret: str, on_refused: ErrorObserver | None = None
    ) -> None:
        self.manager = manager
        self.secret = secret
        #: told of every refusal either transport sends (metrics)
        self.on_refused = on_refused

    async def _runtime(self, name: str) -> TableRuntime:
        return await self.manager.get_or_adopt(parse_table_name(name))

    @staticmethod
    def _seat(runtime: TableRuntime, identity: Identity) -> int:
        if not identity.has(Scope.PLAYER):
            raise TableError.denied("NOT_SEATED", "TableService needs a player token")
        for seat in list(runtime.seats.values()):
            if seat.player_id == identity.subject:
                return seat.seat
        raise TableError.denied(
            "NOT_SEATED", f"player {identity.subject} has no seat at {runtime.config.name}"
        )

    @classmethod
    def _seat_or_rail(cls, runtime: TableRuntime, identity: Identity) -> int | None:
        """The caller's seat, or None: he watches from the rail (a signed-in player without
        a seat, at a public or tournament table; a private quick game stays private)."""
        if identity.has(Scope.PLAYER) and not any(
            s.player_id == identity.subject for s in list(runtime.seats.values())
        ):
            config = runtime.config
            if not config.private or config.tournament is not None:
                return None
        return cls._seat(runtime, identity)

    async def open_stream(
        self, table: str, identity: Identity, *, play: bool
    ) -> tuple[TableRuntime, Watcher]:
        """Open the caller's stream of ``table``: a Play stream's (his seat's) or a
        WatchTable stream's (his seat's, or a railbird's); its first update is queued."""
        runtime = await self._runtime(table)
        seat = self._seat(runtime, identity) if play else self._seat_or_rail(runtime, identity)
        return runtime, await runtime.watch(seat)

    async def watch(
        self, request: table_service_pb2.WatchTableRequest, identity: Identity
    ) -> AsyncIterator[Update]:
        """The caller's updates, for the transport to convert (:func:`response_of` or
        :func:`response_bytes`); a railbird's are the public view only."""
        runtime, watcher = await self.open_stream(request.table, identity, play=False)
        try:
            while True:
                item = await watcher.queue.get()
                if isinstance(item, Update):
                    yield item
                    # Not held while the stream waits for the next: a stream's first update
                    # is a whole view of its own (BENCHMARKS.md, "Memory of a busy table").
                    del item
                elif item is None:
                    return
                elif isinstance(item, TableError):
                    raise item
                # (an ActAnswer: only a Play stream queues them)
        finally:
            await runtime.unwatch(watcher)

    async def play(
        self, requests: AsyncIterator[table_service_pb2.PlayRequest], identity: Identity
    ) -> AsyncIterator[Update | ActAnswer]:
        """The caller's updates and the answers to his acts, for the transport to convert
        (:func:`play_response_of` or :func:`play_response_bytes`).

        The first request names the table; a task of the stream's own takes each later act in
        order while the updates flow, and queues the answers no update carries behind the
        updates already queued.
        """
        first = await anext(aiter(requests), None)
        if first is None or first.WhichOneof("request") != "watch":
            raise invalid("watch", "a Play stream starts with a watch request naming the table")
        table = first.watch.table
        runtime, watcher = await self.open_stream(table, identity, play=True)
        seat = watcher.seat
        acts = asyncio.create_task(self._play_acts(requests, table, identity, watcher))
        try:
            while True:
                item = await watcher.queue.get()
                if item is None:
                    return
                if isinstance(item, TableError):
                    raise item
                yield item
                del item  # (as watch's: not held while waiting)
        finally:
            acts.cancel()
            try:
                await acts
            except asyncio.CancelledError:
                pass
            except Exception:
                log.exception("%s seat %s: a Play stream's acts failed", table, seat)
            await runtime.unwatch(watcher)

    async def _play_acts(
        self,
        requests: AsyncIterator[table_service_pb2.PlayRequest],
        table: str,
        identity: Identity,
        watcher: Watcher,
    ) -> None:
        queue = watcher.queue
        incoming = aiter(requests)
        while True:
            try:
                request = await anext(incoming)
            except StopAsyncIteration:
                return  # the client is done sending; its updates go on
            except TableError as error:
                # A request the stream cannot take (too large): it ends the stream.
                await queue.put(error)
                return
            except Exception as error:
                # The client went away mid-request (the transport's own words): nothing to
                # answer; the stream's end unwatches the seat.
                log.info(
                    "%s seat %s: a Play stream's requests ended: %s", table, watcher.seat, error
                )
                return
            if not await self.play_request(request, table, identity, queue):
                return

    async def play_request(
        self,
        request: table_service_pb2.PlayRequest,
        table: str,
        identity: Identity,
        queue: Mailbox[Update | ActAnswer | TableError | None],
    ) -> bool:
        """Take one of a Play stream's later requests (an act) at ``table``, its answer (if
        no update carries it) queued on the stream's ``queue``; False: the request ended the
        stream (its error is queued). A relay channel's acts come here too."""
        if request.WhichOneof("request") != "act":
            await queue.put(invalid("act", "after its first request a Play stream takes only acts"))
            return False
        act = request.act
        try:
            if identity.expired():
                # The stream outlives its token (it only shows the seat its own view), the
                # right to act does not: the client opens a new Play with a fresh token (it
                # replaces this stream, the seat stays), or acts through Act.
                raise TableError(
                    ErrorKind.UNAUTHENTICATED,
                    "TOKEN_EXPIRED",
                    "the token this Play stream was opened with has expired: open a new "
                    "Play (or call Act) with a fresh token",
                )
            if act.table and act.table != table:
                raise invalid("act.table", f"the act's table must be the watched one, {table}")
            outcome = await self.take_action(act, identity, table)
        except TableError as error:
            if self.on_refused is not None:
                self.on_refused(error)
            await queue.put(ActAnswer(act.action_id, error))
        else:
            if outcome.repeated:
                await queue.put(ActAnswer(act.action_id, outcome))
        return True

    async def act(
        self, request: table_service_pb2.ActRequest, identity: Identity
    ) -> table_service_pb2.ActResponse:
        outcome = await self.take_action(request, identity, request.table)
        return table_service_pb2.ActResponse(
            action=_action_message(outcome, request.action_id), sequence=outcome.sequence
        )

    async def take_action(
        self, request: table_service_pb2.ActRequest, identity: Identity, table: str
    ) -> ActOutcome:
        """Act's checks and the action itself, at ``table`` (Act's own, or a Play stream's)."""
        runtime = await self._runtime(table)
        action_id = _check_id(request.action_id, "action_id")
        kind = ACTION_FROM_PROTO.get(request.kind)
        if kind is None:
            raise invalid("kind", f"unknown or unset action kind {request.kind}")
        if request.hand_number <= 0:
            raise invalid("hand_number", "hand_number must be the running hand's number")
        amount = request.amount if request.HasField("amount") else None
        if amount is not None and amount < 0:
            raise invalid("amount", "amount must not be negative", "AMOUNT_INVALID")
        seat = self._seat(runtime, identity)
        return await runtime.act(seat, request.hand_number, kind, amount, action_id)

    async def leave(
        self, request: table_service_pb2.LeaveRequest, identity: Identity
    ) -> table_service_pb2.LeaveResponse:
        runtime = await self._runtime(request.table)
        seat = self._seat(runtime, identity)
        session = await runtime.leave(seat)
        return table_service_pb2.LeaveResponse(
            left=not session.open or seat not in runtime.seats,
            session=session_message(session),
        )

    async def sit(self, table: str, identity: Identity, out: bool) -> tuple[table_pb2.Seat, int]:
        runtime = await self._runtime(table)
        seat = self._seat(runtime, identity)
        _, from_hand = await runtime.sit_out(seat, out)
        view = runtime.view(seat)
        info = next(s for s in snapshot_message(view).seats if s.number == seat)
        return info, from_hand

    async def show_cards(
        self, request: table_service_pb2.ShowCardsRequest, identity: Identity
    ) -> table_service_pb2.ShowCardsResponse:
        runtime = await self._runtime(request.table)
        seat = self._seat(runtime, identity)
        cards = await runtime.show_cards(seat, request.hand_number)
        hand = table_pb2.ShownHand(seat=seat)
        hand.cards.extend(format_cards(cards))
        return table_service_pb2.ShowCardsResponse(hand=hand)


def response_of(update: Update) -> table_service_pb2.WatchTableResponse:
    """The stream message of ``update``.

    What the streams of one change have in common (the public snapshot, the events as most
    seats see them) is converted once, by the first of them, into ``update.shared``; each
    stream copies it (in C) and adds its own part.
    """
    message = table_service_pb2.WatchTableResponse(
        sequence=update.sequence, action_id=update.action_id
    )
    base = _public_snapshot(update)
    message.snapshot.CopyFrom(base)
    if update.own is not None:
        add_own_part(message.snapshot, update.own)
    if update.events:
        message.events.extend(_shared(update, "events", update.events, lambda: _events_of(update)))
        # v0.1 clients read one event per message: give them the change's cause.
        message.event.CopyFrom(message.events[0])
    return message


def response_bytes(update: Update) -> bytes:
    """:func:`response_of`'s message, encoded (what the gRPC port sends).

    The public parts of a change are encoded once (``update.shared``); each stream joins
    them with its own small part (:mod:`engine_server.api.wire`).
    """
    own = update.own
    if own is None:
        return response_of(update).SerializeToString()
    parts = _shared(update, "wire", update.view, lambda: snapshot_parts(update.view))
    events = (
        _shared(update, "wire", update.events, lambda: _events_bytes(update))
        if update.events
        else b""
    )
    return response_message(update.sequence, events, own_snapshot(parts, own), update.action_id)


_PLAY_UPDATE = table_service_pb2.PlayResponse.DESCRIPTOR.fields_by_name["update"].number


def play_response_of(item: Update | ActAnswer) -> table_service_pb2.PlayResponse:
    """The Play stream's message for ``item``."""
    if isinstance(item, ActAnswer):
        return table_service_pb2.PlayResponse(act=_act_result(item))
    return table_service_pb2.PlayResponse(update=response_of(item))


def play_response_bytes(item: Update | ActAnswer) -> bytes:
    """:func:`play_response_of`'s message, encoded; an update as WatchTable encodes it."""
    if isinstance(item, ActAnswer):
        return table_service_pb2.PlayResponse(act=_act_result(item)).SerializeToString()
    return length_delimited(_PLAY_UPDATE, response_bytes(item))


def _act_result(item: ActAnswer) -> table_service_pb2.ActResult:
    answer = item.answer
    if isinstance(answer, TableError):
        refused = table_service_pb2.ActRefused(
            code=grpc_code(answer),
            message=answer.message,
            reason=answer.reason,
            domain=DOMAIN,
            metadata=dict(answer.metadata),
        )
        return table_service_pb2.ActResult(action_id=item.action_id, refused=refused)
    accepted = table_service_pb2.ActResponse(
        action=_action_message(answer, item.action_id), sequence=answer.sequence
    )
    return table_service_pb2.ActResult(action_id=item.action_id, accepted=accepted)


def _events_bytes(update: Update) -> bytes:
    """A change's events as ``events`` and the first of them as ``event``, encoded."""
    events = _shared(update, "events", update.events, lambda: _events_of(update))
    return table_service_pb2.WatchTableResponse(event=events[0], events=events).SerializeToString()


def _public_snapshot(update: Update) -> table_pb2.TableSnapshot:
    return _shared(update, "snapshot", update.view, lambda: snapshot_message(update.view))  # type: ignore[no-any-return]


def _shared(update: Update, kind: str, key: object, build: Callable[[], Any]) -> Any:
    """``build()``, done once per ``kind`` and ``key`` object among the updates of one
    change."""
    slot = (kind, id(key))
    entry = update.shared.get(slot)
    if entry is None or entry[0] is not key:
        # The entry holds its key: the id cannot be reused while the change is being sent.
        entry = update.shared[slot] = (key, build())
    return entry[1]


def _events_of(update: Update) -> list[events_pb2.Event]:
    last_hand = update.view.last_hand
    action_id = update.action_id
    converted = []
    for event in update.events:
        message = event_message(
            event, update.hand_number, update.time, last_hand, update.view.config.table_id
        )
        if action_id and message.HasField("action_taken"):
            # The change's first action is the one the client sent.
            message.action_taken.action_id, action_id = action_id, ""
        if message.HasField("player_joined"):
            # The domain event names only the seat; the contract's PlayerJoined carries the
            # seat as the table shows it, which is the update's own snapshot of that seat.
            joined = message.player_joined.seat
            seat = next((s for s in update.view.seats if s.number == joined.number), None)
            if seat is not None:
                joined.CopyFrom(seat_message(seat, update.view.config.table_id))
        converted.append(message)
    return converted


def _action_message(outcome: ActOutcome, action_id: str) -> events_pb2.ActionTaken:
    return events_pb2.ActionTaken(
        seat=outcome.seat,
        kind=ACTION_TO_PROTO[outcome.kind],
        amount=outcome.to,
        chips=outcome.amount,
        all_in=outcome.all_in,
        action_id=action_id,
    )


def _grpc_headers(context: grpc.aio.ServicerContext[Any, Any]) -> dict[str, str]:
    return {
        key.lower(): value
        for key, value in (context.invocation_metadata() or ())
        if isinstance(value, str)
    }


class GrpcTableService(table_service_pb2_grpc.TableServiceServicer):
    def __init__(self, core: TableServiceCore) -> None:
        self.core = core

    def _identity(self, context: grpc.aio.ServicerContext[Any, Any]) -> Identity:
        return authenticate(_grpc_headers(context), self.core.secret)

    async def WatchTable(
        self, request: table_service_pb2.WatchTableRequest, context: Any
    ) -> AsyncIterator[Any]:
        try:
            # WatchTableResponse messages, sent as encoded (the method's serializer passes
            # bytes through: server.py).
            async for update in self.core.watch(request, self._identity(context)):
                yield response_bytes(update)
                del update  # not held while the stream waits (as the core's)
        except TableError as error:
            await abort(context, error, self.core.on_refused)

    async def Act(self, request: Any, context: Any) -> Any:
        try:
            return await self.core.act(request, self._identity(context))
        except TableError as error:
            await abort(context, error, self.core.on_refused)

    async def Play(self, requests: Any, context: Any) -> AsyncIterator[Any]:
        try:
            # PlayResponse messages, sent as encoded (as WatchTable's).
            async for item in self.core.play(requests, self._identity(context)):
                yield play_response_bytes(item)
                del item  # not held while the stream waits (as the core's)
        except TableError as error:
            await abort(context, error, self.core.on_refused)

    async def Leave(self, request: Any, context: Any) -> Any:
        try:
            return await self.core.leave(request, self._identity(context))
        except TableError as error:
            await abort(context, error, self.core.on_refused)

    async def SitOut(self, request: Any, context: Any) -> Any:
        try:
            seat, from_hand = await self.core.sit(request.table, self._identity(context), True)
            return table_service_pb2.SitOutResponse(seat=seat, from_hand_number=from_hand)
        except TableError as error:
            await abort(context, error, self.core.on_refused)

    async def SitIn(self, request: Any, context: Any) -> Any:
        try:
            seat, from_hand = await self.core.sit(request.table, self._identity(context), False)
            return table_service_pb2.SitInResponse(seat=seat, from_hand_number=from_hand)
        except TableError as error:
            await abort(context, error, self.core.on_refused)

    async def ShowCards(self, request: Any, context: Any) -> Any:
        try:
            return await self.core.show_cards(request, self._identity(context))
        except TableError as error:
            await abort(context, error, self.core.on_refused)


class ConnectTableService:
    """The same service for browsers (Connect and gRPC-Web, through connectrpc)."""

    def __init__(self, core: TableServiceCore) -> None:
        self.core = core

    def _identity(self, ctx: RequestContext[Any, Any]) -> Identity:
        headers = ctx.request_headers
        return authenticate({"authorization": headers.get("authorization", "")}, self.core.secret)

    async def watch_table(
        self, request: table_service_pb2.WatchTableRequest, ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[table_service_pb2.WatchTableResponse]:
        try:
            async for update in self.core.watch(request, self._identity(ctx)):
                yield response_of(update)
                del update  # not held while the stream waits (as the core's)
        except TableError as error:
            raise connect_error(error, self.core.on_refused) from None

    async def act(self, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        try:
            return await self.core.act(request, self._identity(ctx))
        except TableError as error:
            raise connect_error(error, self.core.on_refused) from None

    async def play(
        self,
        requests: AsyncIterator[table_service_pb2.PlayRequest],
        ctx: RequestContext[Any, Any],
    ) -> AsyncIterator[table_service_pb2.PlayResponse]:
        """Play for Connect clients that can stream a request body while they read the
        response (not browsers' fetch: they use WatchTable and Act)."""
        try:
            async for item in self.core.play(requests, self._identity(ctx)):
                yield play_response_of(item)
                del item  # not held while the stream waits (as the core's)
        except TableError as error:
            raise connect_error(error, self.core.on_refused) from None

    async def leave(self, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        try:
            return await self.core.leave(request, self._identity(ctx))
        except TableError as error:
            raise connect_error(error, self.core.on_refused) from None

    async def sit_out(self, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        try:
            seat, from_hand = await self.core.sit(request.table, self._identity(ctx), True)
            return table_service_pb2.SitOutResponse(seat=seat, from_hand_number=from_hand)
        except TableError as error:
            raise connect_error(error, self.core.on_refused) from None

    async def sit_in(self, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        try:
            seat, from_hand = await self.core.sit(request.table, self._identity(ctx), False)
            return table_service_pb2.SitInResponse(seat=seat, from_hand_number=from_hand)
        except TableError as error:
            raise connect_error(error, self.core.on_refused) from None

    async def show_cards(self, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        try:
            return await self.core.show_cards(request, self._identity(ctx))
        except TableError as error:
            raise connect_error(error, self.core.on_refused) from None
