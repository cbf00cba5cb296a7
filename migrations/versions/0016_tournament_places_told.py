"""tournament places told: when the engine acknowledged a player's place (AwardPlace)

``tournament_entries.place_told_at``: NULL while a placed player's place and prize have not
been acknowledged by the engine at his table; set once ``AwardPlace`` answered (or the table
is gone for good). The director tells every placed entry with no time here on each pass, so
a call lost with an engine restart or the network is made again until it is acknowledged.
Entries placed before this column existed were told then (at the latest when their table
closed): they are marked told. Matches the models (`alembic check` finds no drift).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-01 14:10:00.000000+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("place_told_at", sa.DateTime(timezone=True), nullable=True))
    # The places recorded before were announced the old way (once, then again at the
    # table's close): not told again.
    op.execute(
        "UPDATE tournament_entries SET place_told_at = coalesce(busted_at, CURRENT_TIMESTAMP) "
        "WHERE place IS NOT NULL"
    )


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.drop_column("place_told_at")
