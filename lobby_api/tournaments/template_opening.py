"""Step 1 of the tournament director: keep the sit & go templates open.

One registering tournament per ``keep_open`` template: an insert on the UNIQUE
``open_template`` (:func:`~lobby_api.tournaments.common.open_from_template`); a second
replica's insert at the same time does nothing.
"""

from __future__ import annotations

import logging

from sqlmodel import col, select

from lobby_api.db import Database
from lobby_api.tournaments.common import (
    open_from_template,
)
from lobby_api.tournaments.models import (
    TournamentRow,
    TournamentTemplateRow,
)

__all__ = ["TemplateOpening"]

log = logging.getLogger("stud.lobby.tournaments")


class TemplateOpening:
    """Opens a sit & go for every kept-open template that has none."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def keep_templates_open(self) -> int:
        """Open a sit & go for every kept-open template that has none (how many opened)."""
        async with self.db.read() as session:
            templates = list(
                (
                    await session.exec(
                        select(TournamentTemplateRow).where(
                            col(TournamentTemplateRow.keep_open).is_(True)
                        )
                    )
                ).all()
            )
            open_now = set(
                (
                    await session.exec(
                        select(TournamentRow.open_template).where(
                            col(TournamentRow.open_template).is_not(None)
                        )
                    )
                ).all()
            )
        opened = 0
        for template in templates:
            if template.name in open_now:
                continue
            async with self.db.write() as session:
                opened += await open_from_template(session, template)
        return opened
