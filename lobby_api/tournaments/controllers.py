"""The tournament endpoints: the lobby's list and a tournament's page (public), a player's
entry (his token; registering moves money and takes an ``Idempotency-Key``), and the ops
routes (an ops token: ``stud admin token``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from litestar import Controller, Request, Response, delete, get, post
from litestar.background_tasks import BackgroundTask
from litestar.di import NamedDependency
from litestar.params import HeaderParameter, JSONBody, Parameter

from lobby_api.accounts.models import PlayerRow
from lobby_api.idempotency import HEADER, check_key, fingerprint
from lobby_api.problems import PROBLEM_MEDIA_TYPE, problem_responses
from lobby_api.tournaments.dependencies import DEPENDENCIES, OPS_DEPENDENCIES
from lobby_api.tournaments.director import Director
from lobby_api.tournaments.schemas import (
    CancelRequest,
    NewTournament,
    TournamentDetail,
    TournamentEntryView,
    TournamentSummary,
)
from lobby_api.tournaments.services import Registrations, TournamentAdmin, TournamentPages

__all__ = ["TournamentAdminController", "TournamentController"]

TournamentId = Annotated[
    str,
    Parameter(
        min_length=1,
        max_length=32,
        pattern=r"^[a-z0-9][a-z0-9-]*$",
        description="the tournament's id",
    ),
]
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
_SECURITY: list[dict[str, list[str]]] = [{"BearerToken": []}]
_MONEY = {"rate_limit": "money"}


class TournamentController(Controller):
    path = "/tournaments"
    tags = ["tournaments"]  # noqa: RUF012 (Litestar's API)
    dependencies = DEPENDENCIES

    @get(
        "/",
        summary="Tournaments: sit & gos and scheduled ones, registering and running first",
        responses=problem_responses(400),
    )
    async def list_tournaments(
        self,
        pages: NamedDependency[TournamentPages],
        status: Annotated[
            Literal["registering", "running", "finished", "cancelled"] | None,
            Parameter(description="only tournaments in this status"),
        ] = None,
        city: Annotated[
            str | None,
            Parameter(
                min_length=1,
                max_length=32,
                pattern=r"^[a-z0-9][a-z0-9._-]*$",
                description="only the tournaments of this city (a city id, GET /cities)",
            ),
        ] = None,
        kind: Annotated[
            Literal["sit_and_go", "scheduled"] | None,
            Parameter(description="only sit & gos, or only scheduled tournaments"),
        ] = None,
    ) -> list[TournamentSummary]:
        return await pages.list(status, city, kind)

    @get(
        "/{tournament_id:str}",
        summary="A tournament: structure, level, payouts, standings and tables",
        responses=problem_responses(404),
    )
    async def tournament(
        self, tournament_id: TournamentId, pages: NamedDependency[TournamentPages]
    ) -> TournamentDetail:
        return await pages.detail(tournament_id)

    @post(
        "/{tournament_id:str}/entries",
        status_code=201,
        summary="Register: the buy-in goes to the prize pool and the fee to the house",
        description="Refused with a problem when the tournament is full (tournament_full), "
        "you are registered already (already_registered), it has started "
        "(tournament_started), it is for another city (not_your_city), your wallet cannot "
        "pay (insufficient_funds) or there is no such tournament (unknown_tournament).",
        security=_SECURITY,
        responses=problem_responses(401, 403, 404, 409, 422, 429),
        opt=_MONEY,
    )
    async def register(
        self,
        request: Request[Any, Any, Any],
        tournament_id: TournamentId,
        idempotency_key: IdempotencyKey,
        current_player: NamedDependency[PlayerRow],
        registrations: NamedDependency[Registrations],
        director: NamedDependency[Director],
    ) -> Response[TournamentEntryView]:
        key = check_key(idempotency_key)
        answer = await registrations.register(
            current_player,
            tournament_id,
            key,
            fingerprint("tournament_entry", "POST", request.url.path, None),
        )
        problem = answer.status >= 400
        background = None
        if not problem and await registrations.tournament_started(tournament_id):
            background = BackgroundTask(director.seat_now, tournament_id)
        response: Response[Any] = Response(
            content=answer.body,
            status_code=answer.status,
            media_type=PROBLEM_MEDIA_TYPE if problem else "application/json",
            headers={"Idempotent-Replayed": "true"} if answer.replayed else None,
            background=background,
        )
        return response

    @delete(
        "/{tournament_id:str}/entries/me",
        status_code=200,
        summary="Unregister before the start: buy-in and fee back to my wallet",
        security=_SECURITY,
        responses=problem_responses(401, 404, 409, 429),
        opt=_MONEY,
    )
    async def unregister(
        self,
        tournament_id: TournamentId,
        current_player: NamedDependency[PlayerRow],
        registrations: NamedDependency[Registrations],
    ) -> TournamentEntryView:
        return await registrations.unregister(current_player, tournament_id)

    @get(
        "/{tournament_id:str}/entries/me",
        summary="My entry: while I play, my table, seat, engine addresses and token",
        security=_SECURITY,
        responses=problem_responses(401, 404),
    )
    async def my_entry(
        self,
        tournament_id: TournamentId,
        current_player: NamedDependency[PlayerRow],
        registrations: NamedDependency[Registrations],
    ) -> TournamentEntryView:
        return await registrations.mine(current_player, tournament_id)


class TournamentAdminController(Controller):
    path = "/admin/tournaments"
    tags = ["ops"]  # noqa: RUF012 (Litestar's API)
    security = _SECURITY
    dependencies = OPS_DEPENDENCIES

    @post(
        "/",
        status_code=201,
        summary="Create a tournament from a template or a full structure (ops token)",
        description="With `template`, the template's structure with any field given "
        "replacing its own; without, a full structure (`name` at least). What is left out "
        "takes its documented default (docs/tournaments.md). A structure that cannot be "
        "played is a 422 `invalid_structure` naming the field.",
        responses=problem_responses(401, 403, 422),
    )
    async def create(
        self,
        data: JSONBody[NewTournament],
        ops: NamedDependency[str],
        admin: NamedDependency[TournamentAdmin],
        pages: NamedDependency[TournamentPages],
    ) -> TournamentDetail:
        tournament_id = await admin.create(data)
        return await pages.detail(tournament_id)

    @post(
        "/{tournament_id:str}/cancel",
        status_code=200,
        summary="Cancel a tournament: refunds before the start, the pool shared by chips after",
        responses=problem_responses(401, 403, 404, 409),
    )
    async def cancel(
        self,
        tournament_id: TournamentId,
        ops: NamedDependency[str],
        admin: NamedDependency[TournamentAdmin],
        pages: NamedDependency[TournamentPages],
        data: JSONBody[CancelRequest | None] = None,
    ) -> TournamentDetail:
        reason = data.reason if data is not None else CancelRequest().reason
        await admin.cancel(tournament_id, reason)
        return await pages.detail(tournament_id)
