"""bot desk capacity: how many bots a bot desk can still send to a table

``bot_desks.bots``: each poll of a bot desk says how many bots it can still send to one table
of each city and stake level it serves; the lobby promises a player no more bots than the
fresh desks of his table's city and level can send together. Rows of desks that polled
before this column existed said nothing of it: 0, so the lobby promises none of their bots
until their next poll says how many (they poll every few seconds). Matches the models
(`alembic check` finds no drift).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-03 09:00:00.000000+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("bot_desks", schema=None) as batch_op:
        batch_op.add_column(sa.Column("bots", sa.Integer(), server_default="0", nullable=False))
        batch_op.create_check_constraint(op.f("ck_bot_desks_bots"), "bots >= 0")


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("bot_desks", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_bot_desks_bots"), type_="check")
        batch_op.drop_column("bots")
