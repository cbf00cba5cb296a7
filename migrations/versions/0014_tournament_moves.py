"""tournament moves: the move of a player between tables the director has decided

``tournament_entries.move_from_table`` and ``move_from_session``: set (with the entry's new
table, seat and seat session) when the director decides to move the player (balancing,
breaking), cleared once the engine closed his old session MOVED and his chips are recorded;
the move's request id is derived from the old session, so a replica that dies mid-move
leaves the next one everything to finish it. Matches the models (`alembic check` finds no
drift).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01 11:50:00.000000+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("move_from_table", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch_op.add_column(
            sa.Column(
                "move_from_session", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True
            )
        )


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.drop_column("move_from_session")
        batch_op.drop_column("move_from_table")
