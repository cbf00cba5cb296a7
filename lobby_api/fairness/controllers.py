"""GET /hands/{hand_id}/fairness and GET /tables/{table_id}/seed-pairs.

Same dependencies as :mod:`lobby_api.history.controllers`: ``db_session`` and
``current_player`` (its ``.id``). Refusals are :class:`~lobby_api.problems.DomainError` errors
(RFC 9457 problem documents); a hand or table the caller never played is a 404 whether or
not it exists.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, get
from litestar.di import NamedDependency
from litestar.params import FromPath
from sqlmodel.ext.asyncio.session import AsyncSession

from lobby_api.fairness import services
from lobby_api.fairness.schemas import HandFairness, SeedPairView
from lobby_api.problems import problem_responses

__all__ = ["FairnessController"]


class FairnessController(Controller):
    """Seeds, commitments and the deck check (docs/fairness.md §4), for players dealt in."""

    path = "/"
    tags = ("fairness",)

    @get(
        "/hands/{hand_id:str}/fairness",
        summary="The fairness check of one of my hands",
        responses=problem_responses(401, 404),
    )
    async def hand_fairness(
        self,
        db_session: NamedDependency[AsyncSession],
        current_player: NamedDependency[Any],
        hand_id: FromPath[str],
    ) -> HandFairness:
        """Commitment, client seed, nonce; once revealed, the dealer seed and the check."""
        return await services.hand_fairness(db_session, current_player.id, hand_id)

    @get(
        ["/tables/{table_id:str}/seed-pairs", "/tables/{table_id:str}/fairness"],
        summary="The seed pairs of a table I played at",
        responses=problem_responses(401, 404),
    )
    async def seed_pairs(
        self,
        db_session: NamedDependency[AsyncSession],
        current_player: NamedDependency[Any],
        table_id: FromPath[str],
    ) -> list[SeedPairView]:
        """Every seed pair of the table, oldest first; revealed ones with their dealer seed
        and the check of each of the caller's hands they dealt."""
        return await services.table_seed_pairs(db_session, current_player.id, table_id)
