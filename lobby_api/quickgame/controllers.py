"""Quick game, matchmaking tickets, and what a seated player does (top-up, leave, seeds,
bots for a table nobody joins), and the bot desk where bot services watch for requests.

Requests that move money take an ``Idempotency-Key`` header (see
:mod:`lobby_api.idempotency`): a retry with the same key gets the first answer
and moves nothing. Leaving is idempotent by itself (a closed seat session is
settled once, by its id) and needs no key.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, delete, get, post
from litestar.background_tasks import BackgroundTask
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import HeaderParameter, JSONBody, Parameter

from lobby_api.accounts.models import PlayerRow
from lobby_api.auth import issue_token
from lobby_api.idempotency import HEADER, Answer, check_key, fingerprint
from lobby_api.problems import PROBLEM_MEDIA_TYPE, problem_responses
from lobby_api.quickgame.bots import BotRequests, check_desk_token
from lobby_api.quickgame.dependencies import (
    DEPENDENCIES,
    provide_bot_requests,
    provide_matchmaking,
    provide_opening,
)
from lobby_api.quickgame.leave import Leaving
from lobby_api.quickgame.schemas import (
    BotDeskRequest,
    BotDeskView,
    BotsRequest,
    LeaveView,
    QuickGameRequest,
    QuickGameView,
    RotateSeedRequest,
    RotateSeedView,
    TableView,
    TicketRequest,
    TicketView,
    TopUpRequest,
    TopUpView,
)
from lobby_api.quickgame.seed_rotation import SeedRotation
from lobby_api.quickgame.tickets import Matchmaking
from lobby_api.quickgame.topup import TopUps

__all__ = ["QuickGameController", "TableController"]

IdempotencyKey = Annotated[
    str,
    HeaderParameter(
        name=HEADER,
        min_length=1,
        max_length=255,
        pattern=r"^[\x21-\x7e]+$",
        description="Unique per request you mean (a UUID): a retry with the same key gets the "
        "first answer and moves no money again.",
    ),
]
TableId = Annotated[
    str,
    Parameter(
        min_length=1, max_length=63, pattern=r"^[a-z0-9][a-z0-9-]*$", description="the table's id"
    ),
]
TicketId = Annotated[
    str,
    Parameter(
        min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$", description="the ticket's id"
    ),
]
_SECURITY: list[dict[str, list[str]]] = [{"BearerToken": []}]
_MONEY = {"rate_limit": "money"}


def _respond(
    answer: Answer, extra: dict[str, Any] | None = None, background: BackgroundTask | None = None
) -> Response[Any]:
    body = dict(answer.body)
    problem = answer.status >= 400
    if extra and not problem:
        body.update(extra)
    return Response(
        content=body,
        status_code=answer.status,
        media_type=PROBLEM_MEDIA_TYPE if problem else "application/json",
        headers={"Idempotent-Replayed": "true"} if answer.replayed else None,
        background=None if problem else background,
    )


class QuickGameController(Controller):
    tags = ["quick game"]  # noqa: RUF012 (Litestar's API)
    security = _SECURITY
    dependencies = DEPENDENCIES

    @post(
        "/quickgame",
        status_code=201,
        summary="Open a private quick-game table dealt from my seed pair, and sit at it",
        responses=problem_responses(401, 404, 409, 422, 429, 503),
        opt=_MONEY,
    )
    async def quick_game(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[QuickGameRequest],
        idempotency_key: IdempotencyKey,
        current_player: NamedDependency[PlayerRow],
        state: State,
    ) -> Response[QuickGameView]:
        key = check_key(idempotency_key)
        # Built here, not as dependencies: Litestar resolves independent dependencies in a
        # task group of their own per request, which cost more than building them (issue 16).
        opening = provide_opening(state)
        matchmaking = provide_matchmaking(state)
        bot_requests = provide_bot_requests(state)
        answer = await opening.open_quick_game(
            current_player, data, key, fingerprint("quickgame", "POST", request.url.path, data)
        )
        token = issue_token(state.settings.jwt_secret, current_player, state.settings.token_seconds)
        body = answer.body
        extra: dict[str, Any] = {"token": token}
        if answer.status < 400 and not answer.replayed:
            # He sits alone at his new table: looking for a game (lobby_api.quickgame.looking).
            state.looking.started(current_player.city, data.stake_level, current_player.id)
        if answer.status < 400:
            # Fresh at every answer (a replay too): who sits there now, and what to do alone.
            opponents = await bot_requests.opponents_at(current_player.id, str(body["table_id"]))
            if opponents is not None:
                extra["opponents"] = msgspec.to_builtins(opponents)
            if answer.replayed:
                # Where the table is served now: it may have moved since the answer was
                # stored. A fresh answer names the node that has just seated the player.
                extra.update(await opening.engines.addresses(str(body["table_id"])))
        matching = BackgroundTask(
            matchmaking.match_waiting, str(body.get("city")), str(body.get("stake_level"))
        )
        return _respond(answer, extra, matching)

    @post(
        "/tickets",
        status_code=201,
        summary="Sit in at a quick game of my city (placed at once, or the ticket waits)",
        responses=problem_responses(401, 409, 422, 429, 503),
        opt=_MONEY,
    )
    async def open_ticket(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[TicketRequest],
        idempotency_key: IdempotencyKey,
        current_player: NamedDependency[PlayerRow],
        matchmaking: NamedDependency[Matchmaking],
    ) -> Response[TicketView]:
        key = check_key(idempotency_key)
        answer = await matchmaking.open_ticket(
            current_player, data, key, fingerprint("ticket", "POST", request.url.path, data)
        )
        body = answer.body
        if answer.status < 400 and body.get("table_id") and body.get("engine_grpc"):
            # Seated: where the table is served now (a stored answer names the node then).
            return _respond(answer, await matchmaking.engines.addresses(str(body["table_id"])))
        return _respond(answer)

    @get(
        "/tickets/{ticket_id:str}",
        summary="Poll my ticket (a waiting ticket looks for a seat again)",
        responses=problem_responses(401, 404),
    )
    async def ticket(
        self,
        ticket_id: TicketId,
        player_id: NamedDependency[str],
        matchmaking: NamedDependency[Matchmaking],
    ) -> TicketView:
        return await matchmaking.get_ticket(player_id, ticket_id)

    @delete(
        "/tickets/{ticket_id:str}",
        status_code=200,
        summary="Withdraw my waiting ticket (its buy-in goes back to my wallet)",
        responses=problem_responses(401, 404, 409),
    )
    async def cancel_ticket(
        self,
        ticket_id: TicketId,
        player_id: NamedDependency[str],
        matchmaking: NamedDependency[Matchmaking],
    ) -> TicketView:
        return await matchmaking.cancel_ticket(player_id, ticket_id)

    @post(
        "/bots/desk",
        status_code=200,
        tags=["bots"],
        summary="A bot service's poll: the tables of its cities that asked for bots",
        description="For the operator's bot service (stud bots), with a service token (scope "
        "lobby, signed with the shared secret: stud admin token --scope lobby). Each poll "
        "marks its cities and stake levels as served by bots for a few seconds and says how "
        "many bots it can still send to one table there (bots, and bots_at where that "
        "differs): players there may ask for bots, up to what the desks serving their table "
        "can send together. It lists the tables there that asked for bots and still miss "
        "players; the service answers with tickets for those tables (table_id).",
        security=[{"BearerToken": []}],
        responses=problem_responses(401, 403, 422),
    )
    async def bot_desk(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[BotDeskRequest],
        bot_requests: NamedDependency[BotRequests],
        state: State,
    ) -> BotDeskView:
        check_desk_token(request.headers.get("authorization"), state.settings.jwt_secret)
        return await bot_requests.desk(data)


class TableController(Controller):
    path = "/tables/{table_id:str}"
    tags = ["at the table"]  # noqa: RUF012 (Litestar's API)
    security = _SECURITY
    dependencies = DEPENDENCIES

    @post(
        "/topup",
        status_code=200,
        summary="Add chips between hands (to at least the minimum buy-in where the rules say so)",
        responses=problem_responses(401, 404, 409, 422, 429, 503),
        opt=_MONEY,
    )
    async def top_up(
        self,
        request: Request[Any, Any, Any],
        table_id: TableId,
        data: JSONBody[TopUpRequest],
        idempotency_key: IdempotencyKey,
        current_player: NamedDependency[PlayerRow],
        topups: NamedDependency[TopUps],
    ) -> Response[TopUpView]:
        key = check_key(idempotency_key)
        answer = await topups.top_up(
            current_player,
            table_id,
            data,
            key,
            fingerprint("topup", "POST", request.url.path, data),
        )
        return _respond(answer)

    @post(
        "/leave",
        status_code=200,
        summary="Leave the table: paid out at once between hands, at the hand's end otherwise",
        responses=problem_responses(401, 404, 409, 429, 503),
        opt=_MONEY,
    )
    async def leave(
        self,
        table_id: TableId,
        current_player: NamedDependency[PlayerRow],
        leaving: NamedDependency[Leaving],
        matchmaking: NamedDependency[Matchmaking],
    ) -> Response[LeaveView]:
        view, freed = await leaving.leave(current_player, table_id)
        background = None
        table = await leaving.table_of(table_id)
        if table is not None:
            # He looks no more there, and whoever stays may sit alone now.
            matchmaking.looking.changed(table.city, table.stake_level)
            if freed:
                background = BackgroundTask(
                    matchmaking.match_waiting, table.city, table.stake_level
                )
        return Response(content=view, background=background)

    @get(
        "/",
        summary="My quick table now: who sits there, who waits, whether bots can come, and "
        "which engine node serves it",
        description="Also where a client whose engine node stopped answering (a node that "
        "died says nothing: no TABLE_MOVED) finds its table again: engine_grpc and "
        "engine_grpc_web name the node serving it now (another node takes a dead node's "
        "tables over once its lease has run out).",
        responses=problem_responses(401, 404),
    )
    async def table(
        self,
        table_id: TableId,
        player_id: NamedDependency[str],
        bot_requests: NamedDependency[BotRequests],
    ) -> TableView:
        return await bot_requests.table_view(player_id, table_id)

    @post(
        "/bots",
        status_code=200,
        summary="Play with bots: fill my table to N players (where bots serve my city)",
        description="Bots come from the bot services serving the table's city and stake level, "
        "as many as they can still send to a table (opponents.bots_can_fill_to: the most "
        "players they can fill it to now). Asking for more is refused, not cut down: 409 "
        "not_enough_bots names players, and the table is left as it was; 409 "
        "bots_unavailable where none can come at all.",
        responses=problem_responses(401, 404, 409, 422),
    )
    async def ask_for_bots(
        self,
        table_id: TableId,
        current_player: NamedDependency[PlayerRow],
        bot_requests: NamedDependency[BotRequests],
        data: JSONBody[BotsRequest | None] = None,
    ) -> TableView:
        return await bot_requests.ask(
            current_player, table_id, data.players if data is not None else None
        )

    @delete(
        "/bots",
        status_code=200,
        summary="Keep waiting for players after all: no more bots are sent",
        responses=problem_responses(401, 404),
    )
    async def keep_waiting(
        self,
        table_id: TableId,
        current_player: NamedDependency[PlayerRow],
        bot_requests: NamedDependency[BotRequests],
    ) -> TableView:
        return await bot_requests.withdraw(current_player, table_id)

    @post(
        "/rotate-seed",
        status_code=200,
        summary="Reveal the dealer seed and deal on from the next one (opener, between hands)",
        responses=problem_responses(401, 403, 404, 409, 422, 503),
    )
    async def rotate_seed(
        self,
        table_id: TableId,
        current_player: NamedDependency[PlayerRow],
        seed_rotation: NamedDependency[SeedRotation],
        data: JSONBody[RotateSeedRequest | None] = None,
    ) -> RotateSeedView:
        seed = data.client_seed if data is not None else None
        return await seed_rotation.rotate_seed(current_player, table_id, seed)
