"""Seed rotation: the opener reveals the dealer seed and deals on from the next pair.

The answer says what the rotation made public (the hands dealt from the revealed seed, whose
decks anyone can now recompute: :mod:`lobby_api.quickgame.reveals`); the other players at the
table learn it from ``GET /tables/{table_id}``.
"""

from __future__ import annotations

from lobby_api.accounts.models import PlayerRow
from lobby_api.db import Database
from lobby_api.engine_client import EngineError
from lobby_api.engine_nodes import TableEngines
from lobby_api.problems import DomainError
from lobby_api.quickgame.common import check_client_seed, engine_refusal, my_seat
from lobby_api.quickgame.models import QuickTableRow, QuickTableStatus
from lobby_api.quickgame.reveals import seed_reveals
from lobby_api.quickgame.schemas import RevealedSeed, RotateSeedView

__all__ = ["SeedRotation"]


class SeedRotation:
    """``POST /tables/{table_id}/rotate-seed``."""

    def __init__(self, db: Database, engines: TableEngines) -> None:
        self.db = db
        self.engines = engines

    async def rotate_seed(
        self, player: PlayerRow, table_id: str, client_seed: str | None
    ) -> RotateSeedView:
        """The opener reveals the dealer seed and switches to the next (between hands)."""
        seed = check_client_seed(client_seed) if client_seed is not None else ""
        async with self.db.read() as session:
            table = await session.get(QuickTableRow, table_id)
        if table is None or (
            table.opener_player_id != player.id and not await self._sits_at(player.id, table_id)
        ):
            raise DomainError(404, "table_not_found", f"you have no table {table_id}", "table_id")
        if table.opener_player_id != player.id:
            raise DomainError(403, "not_the_opener", "only the table's opener rotates its seeds")
        if table.status != QuickTableStatus.OPEN.value:
            raise DomainError(409, "table_closed", f"table {table_id} is {table.status}")
        try:
            rotated = await self.engines.rotate_seed(table_id, seed)
        except EngineError as error:
            if error.transient:
                raise DomainError(
                    503, "engine_unavailable", f"the game server could not be reached ({error})"
                ) from None
            raise engine_refusal(
                error, "client_seed" if error.field == "client_seed" else None
            ) from None
        if seed:
            async with self.db.write() as session:
                locked = await session.get(QuickTableRow, table_id)
                if locked is not None:
                    locked.client_seed = seed
                    session.add(locked)
        async with self.db.read() as session:
            reveals = await seed_reveals(session, table_id, player.id)
        commitment = rotated.revealed.commitment
        return RotateSeedView(
            revealed=RevealedSeed(
                commitment=rotated.revealed.commitment,
                client_seed=rotated.revealed.client_seed,
                hands_dealt=rotated.revealed.hands_dealt,
                dealer_seed=rotated.revealed.dealer_seed,
            ),
            current=RevealedSeed(
                commitment=rotated.current.commitment,
                client_seed=rotated.current.client_seed,
                hands_dealt=rotated.current.hands_dealt,
            ),
            next_commitment=rotated.next_commitment,
            reveal=next((r for r in reveals if r.commitment == commitment), None),
        )

    async def _sits_at(self, player_id: str, table_id: str) -> bool:
        async with self.db.read() as session:
            return await my_seat(session, player_id, table_id) is not None
