"""What the tournament services share: row locks, refusals, counts and the template opening.

Every write that depends on what it read locks the tournament's row first
(``SELECT … FOR UPDATE`` on PostgreSQL; SQLite's ``BEGIN IMMEDIATE`` serialises writers), so
registrations, unregistrations, the start and a cancellation of one tournament happen one
after the other, each seeing the last.
"""

from __future__ import annotations

import secrets
from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.ids import new_id
from engine_server.store.types import utc_now
from lobby_api.db import insert_ignore
from lobby_api.problems import DomainError
from lobby_api.tournaments.models import (
    TournamentEntryRow,
    TournamentRow,
    TournamentStatus,
    TournamentTableRow,
    TournamentTemplateRow,
)
from lobby_api.tournaments.structure import Structure, parse_structure

__all__ = [
    "active_entries",
    "locked",
    "locked_tournament",
    "new_tournament_values",
    "open_from_template",
    "planned_node",
    "start_field",
    "unknown_tournament",
]


def unknown_tournament(tournament_id: str) -> DomainError:
    return DomainError(
        404, "unknown_tournament", f"no tournament {tournament_id!r}", "tournament_id"
    )


async def locked(session: AsyncSession, model: Any, *where: Any) -> Any:
    """The row, locked for the transaction (``SELECT … FOR UPDATE``), read afresh."""
    query = select(model).where(*where).with_for_update().execution_options(populate_existing=True)
    return (await session.exec(query)).first()


async def locked_tournament(session: AsyncSession, tournament_id: str) -> TournamentRow:
    """The tournament, locked (404 ``unknown_tournament`` without it)."""
    row: TournamentRow | None = await locked(
        session, TournamentRow, col(TournamentRow.id) == tournament_id
    )
    if row is None:
        raise unknown_tournament(tournament_id)
    return row


async def active_entries(session: AsyncSession, tournament_id: str) -> int:
    """Entries not unregistered (registered, playing, out or finished)."""
    count = (
        await session.exec(
            select(sa.func.count())
            .select_from(TournamentEntryRow)
            .where(
                col(TournamentEntryRow.tournament_id) == tournament_id,
                col(TournamentEntryRow.active_player).is_not(None),
            )
        )
    ).one()
    return int(count)


def new_tournament_values(structure: Structure, template: str | None) -> dict[str, Any]:
    """The columns of a new registering tournament of ``structure``."""
    return {
        "id": new_id("tn", size=8),
        "name": structure.name,
        "kind": structure.kind,
        "status": TournamentStatus.REGISTERING.value,
        "profile": structure.profile,
        "rule_overrides": structure.rule_overrides,
        "buy_in": structure.buy_in,
        "fee": structure.fee,
        "starting_chips": structure.starting_chips,
        "min_players": structure.min_players,
        "max_players": structure.max_players,
        "table_size": structure.table_size,
        "levels": structure.levels_json(),
        "city": structure.city,
        "starts_at": structure.starts_at,
        "late_registration_levels": structure.late_registration_levels,
        "payout_table": structure.payouts,
        "template": template,
        "open_template": None,
        "draw_key": secrets.token_hex(32),
        "current_level": 0,
        "created_at": utc_now(),
    }


async def open_from_template(session: AsyncSession, template: TournamentTemplateRow) -> bool:
    """Open the template's next sit & go unless one is open (True: opened now).

    Exactly once whoever asks at the same time: the new row holds the template's name in
    the UNIQUE ``open_template``, and a second insert does nothing.
    """
    values = new_tournament_values(parse_structure(template.structure), template.name)
    values["open_template"] = template.name
    inserted = await session.exec(
        insert_ignore(session, TournamentRow.__table__).values(values)  # type: ignore[attr-defined]
    )
    return bool(inserted.rowcount == 1)


async def start_field(session: AsyncSession, tournament: TournamentRow, entrants: int) -> None:
    """Close the field: the tournament runs (the director seats it), and a sit & go of a
    kept-open template makes way for the next one, in the same transaction."""
    now = utc_now()
    tournament.status = TournamentStatus.RUNNING.value
    tournament.started_at = now
    tournament.entrants = entrants
    template_name = tournament.open_template
    tournament.open_template = None
    session.add(tournament)
    await session.flush()
    if template_name is not None:
        template = await session.get(TournamentTemplateRow, template_name)
        if template is not None and template.keep_open:
            await open_from_template(session, template)


async def planned_node(session: AsyncSession, table_id: str) -> str | None:
    """The engine node the director chose for a tournament table it has not created yet."""
    return (
        await session.exec(
            select(TournamentTableRow.node_id).where(TournamentTableRow.table_id == table_id)
        )
    ).first()
