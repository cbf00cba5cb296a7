"""GET /hands, /hands/{hand_id} and /hands/{hand_id}/phh.

The app provides two dependencies: ``db_session`` (an :class:`AsyncSession` on the shared
database) and ``current_player`` (the authenticated player; only its ``.id`` is used).
The services' refusals (:class:`~lobby_api.history.services.HistoryError`) become RFC 9457
problem documents here, so these routes answer the same in any app that mounts them.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.enums import MediaType
from litestar.params import FromPath, QueryParameter
from sqlmodel.ext.asyncio.session import AsyncSession

from lobby_api.history import services
from lobby_api.history.schemas import HandPage, HandView
from lobby_api.history.services import HistoryError

__all__ = ["PROBLEM_MEDIA_TYPE", "HistoryController", "problem_response"]

PROBLEM_MEDIA_TYPE = "application/problem+json"

_TITLES = {400: "Bad Request", 404: "Not Found", 409: "Conflict", 500: "Internal Server Error"}


def problem_response(request: Request[Any, Any, Any], error: HistoryError) -> Response[Any]:
    """The error as an RFC 9457 problem document (``errors`` names the field, if any)."""
    body: dict[str, Any] = {
        "type": f"urn:stud:problem:{error.code.lower().replace('_', '-')}",
        "title": _TITLES.get(error.status, "Error"),
        "status": error.status,
        "detail": error.detail,
        "code": error.code,
        "instance": request.url.path,
    }
    if error.field is not None:
        body["errors"] = [{"field": error.field, "message": error.detail}]
    return Response(content=body, status_code=error.status, media_type=PROBLEM_MEDIA_TYPE)


class HistoryController(Controller):
    """The caller's hands; each hand only to players dealt into it."""

    path = "/hands"
    tags = ("history",)
    exception_handlers = {HistoryError: problem_response}  # noqa: RUF012 (Litestar's API)

    @get("/", summary="My hands, newest first")
    async def list_hands(
        self,
        db_session: NamedDependency[AsyncSession],
        current_player: NamedDependency[Any],
        page_size: Annotated[
            int,
            QueryParameter(
                description=f"Hands per page (0: {services.DEFAULT_PAGE_SIZE}; at most "
                f"{services.MAX_PAGE_SIZE})"
            ),
        ] = 0,
        page_token: Annotated[
            str, QueryParameter(description="The next_page_token of the previous page")
        ] = "",
    ) -> HandPage:
        """Every hand the caller was dealt into, newest first, one page at a time."""
        return await services.list_my_hands(
            db_session, current_player.id, page_size=page_size, page_token=page_token
        )

    @get("/{hand_id:str}", summary="One of my hands")
    async def get_hand(
        self,
        db_session: NamedDependency[AsyncSession],
        current_player: NamedDependency[Any],
        hand_id: FromPath[str],
    ) -> HandView:
        """The hand with the caller's cards, the up cards and the cards shown at the showdown.

        404 unless the caller was dealt into it (the same as for a hand that does not exist).
        """
        return await services.get_hand(db_session, current_player.id, hand_id)

    @get(
        "/{hand_id:str}/phh",
        summary="One of my hands as PHH",
        media_type=MediaType.TEXT,
    )
    async def get_phh(
        self,
        db_session: NamedDependency[AsyncSession],
        current_player: NamedDependency[Any],
        hand_id: FromPath[str],
    ) -> Response[str]:
        """The hand in the PHH format, redacted for the caller ("??" for cards he may not see).

        404 unless dealt in; 409 while the hand runs or when a cancelled hand has no cards.
        """
        text = await services.get_hand_phh(db_session, current_player.id, hand_id)
        return Response(
            content=text,
            media_type=MediaType.TEXT,
            headers={"Content-Disposition": f'attachment; filename="{hand_id}.phh"'},
        )
