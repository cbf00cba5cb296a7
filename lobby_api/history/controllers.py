"""GET /hands, /hands/{hand_id} and /hands/{hand_id}/phh.

The app provides two dependencies: ``db_session`` (an :class:`AsyncSession` on the shared
database) and ``current_player`` (the authenticated player; only its ``.id`` is used).
Refusals are :class:`~lobby_api.problems.DomainError` errors, which the app's exception
handlers (:data:`lobby_api.problems.EXCEPTION_HANDLERS`) answer as RFC 9457 problem
documents.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Response, get
from litestar.di import NamedDependency
from litestar.enums import MediaType
from litestar.params import FromPath, QueryParameter
from sqlmodel.ext.asyncio.session import AsyncSession

from lobby_api.history import services
from lobby_api.history.schemas import HandPage, HandView
from lobby_api.problems import problem_responses

__all__ = ["HistoryController"]


class HistoryController(Controller):
    """The caller's hands; each hand only to players dealt into it."""

    path = "/hands"
    tags = ("history",)

    @get("/", summary="My hands, newest first", responses=problem_responses(400, 401))
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

    @get("/{hand_id:str}", summary="One of my hands", responses=problem_responses(401, 404, 500))
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
        responses=problem_responses(401, 404, 409, 500),
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
