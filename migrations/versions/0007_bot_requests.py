"""bot requests: a lonely quick table may ask for bots, and bot services say they watch

``bot_requests``: one row per quick table whose player asked for bots (fill it to ``players``
players). ``bot_desks``: one row per bot service, city and stake level it serves, touched at
each of its polls (a desk not seen lately no longer counts). ``tickets.for_table_id``: a
ticket that sits at that one table only (a bot answering a request). Generated with
`alembic revision --autogenerate` and reviewed.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 06:23:11.801248+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "bot_desks",
        sa.Column("desk", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("city", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("stake_level", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["city"], ["cities.id"], name=op.f("fk_bot_desks_city_cities")),
        sa.ForeignKeyConstraint(
            ["stake_level"], ["stake_levels.id"], name=op.f("fk_bot_desks_stake_level_stake_levels")
        ),
        sa.PrimaryKeyConstraint("desk", "city", "stake_level", name=op.f("pk_bot_desks")),
    )
    with op.batch_alter_table("bot_desks", schema=None) as batch_op:
        batch_op.create_index(
            "ix_bot_desks_city_stake_level_seen_at",
            ["city", "stake_level", "seen_at"],
            unique=False,
        )

    op.create_table(
        "bot_requests",
        sa.Column("table_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("players >= 2", name=op.f("ck_bot_requests_players")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_bot_requests_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["quick_tables.table_id"],
            name=op.f("fk_bot_requests_table_id_quick_tables"),
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_bot_requests")),
    )
    with op.batch_alter_table("tickets", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("for_table_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("tickets", schema=None) as batch_op:
        batch_op.drop_column("for_table_id")

    op.drop_table("bot_requests")
    with op.batch_alter_table("bot_desks", schema=None) as batch_op:
        batch_op.drop_index("ix_bot_desks_city_stake_level_seen_at")

    op.drop_table("bot_desks")
