"""tournaments: sit & go and scheduled tournaments, their entries, tables, prizes and leases

``tournament_templates``: the structures of ``seeds/tournaments.json`` (sit & go templates the
lobby keeps one registering tournament of). ``tournaments``: structure and status, with
``open_template`` UNIQUE (one open sit & go per template). ``tournament_entries``: a player's
registration, seat, chips, place and prize, UNIQUE (tournament_id, active_player) (one live
entry each). ``tournament_tables``: the drawn tables (recorded before the engine creates them).
``tournament_prizes``: one payment from the prize pool per entry, ever. ``tournament_leases``:
the director's lease per tournament. Matches the models (`alembic check` finds no drift).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 10:40:00.000000+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "tournament_templates",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("structure", sa.JSON(), nullable=False),
        sa.Column("keep_open", sa.Boolean(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_tournament_templates")),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("profile", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("rule_overrides", sa.JSON(), nullable=False),
        sa.Column("buy_in", sa.BigInteger(), nullable=False),
        sa.Column("fee", sa.BigInteger(), nullable=False),
        sa.Column("starting_chips", sa.BigInteger(), nullable=False),
        sa.Column("min_players", sa.Integer(), nullable=False),
        sa.Column("max_players", sa.Integer(), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=False),
        sa.Column("levels", sa.JSON(), nullable=False),
        sa.Column("city", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("late_registration_levels", sa.Integer(), nullable=False),
        sa.Column("payout_table", sa.JSON(), nullable=True),
        sa.Column("template", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("open_template", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("draw_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("current_level", sa.Integer(), nullable=False),
        sa.Column("level_started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("entrants", sa.Integer(), nullable=True),
        sa.Column("seated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cancel_reason", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("kind IN ('sit_and_go', 'scheduled')", name=op.f("ck_tournaments_kind")),
        sa.CheckConstraint(
            "status IN ('registering', 'running', 'finished', 'cancelled')",
            name=op.f("ck_tournaments_status"),
        ),
        sa.CheckConstraint(
            "2 <= min_players AND min_players <= max_players", name=op.f("ck_tournaments_players")
        ),
        sa.CheckConstraint("buy_in >= 0 AND fee >= 0", name=op.f("ck_tournaments_money")),
        sa.CheckConstraint("starting_chips > 0", name=op.f("ck_tournaments_starting_chips")),
        sa.CheckConstraint("table_size >= 2", name=op.f("ck_tournaments_table_size")),
        sa.ForeignKeyConstraint(["city"], ["cities.id"], name=op.f("fk_tournaments_city_cities")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
        sa.UniqueConstraint("open_template", name=op.f("uq_tournaments_open_template")),
    )
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.create_index(
            "ix_tournaments_status_starts_at", ["status", "starts_at"], unique=False
        )

    op.create_table(
        "tournament_entries",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("tournament_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("active_player", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("buy_in", sa.BigInteger(), nullable=False),
        sa.Column("fee", sa.BigInteger(), nullable=False),
        sa.Column("chips", sa.BigInteger(), nullable=True),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("prize", sa.BigInteger(), nullable=True),
        sa.Column("table_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("seat_session_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("seated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("unregistered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("busted_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('registered', 'playing', 'busted', 'finished', 'unregistered')",
            name=op.f("ck_tournament_entries_status"),
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_tournament_entries_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_entries_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_entries")),
        sa.UniqueConstraint("seat_session_id", name=op.f("uq_tournament_entries_seat_session_id")),
        sa.UniqueConstraint(
            "tournament_id",
            "active_player",
            name=op.f("uq_tournament_entries_tournament_id_active_player"),
        ),
    )
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.create_index("ix_tournament_entries_player_id", ["player_id"], unique=False)
        batch_op.create_index(
            "ix_tournament_entries_tournament_id_status", ["tournament_id", "status"], unique=False
        )

    op.create_table(
        "tournament_leases",
        sa.Column("tournament_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("holder", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("until", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_leases_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("tournament_id", name=op.f("pk_tournament_leases")),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("table_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("tournament_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("node_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("level_hands_base", sa.Integer(), nullable=False),
        sa.Column("hands_recorded", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('planned', 'open', 'closed')", name=op.f("ck_tournament_tables_status")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_tables_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_tournament_tables")),
        sa.UniqueConstraint(
            "tournament_id", "number", name=op.f("uq_tournament_tables_tournament_id_number")
        ),
    )
    op.create_table(
        "tournament_prizes",
        sa.Column("entry_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("tournament_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('prize', 'share')", name=op.f("ck_tournament_prizes_kind")),
        sa.CheckConstraint("amount >= 0", name=op.f("ck_tournament_prizes_amount")),
        sa.ForeignKeyConstraint(
            ["entry_id"],
            ["tournament_entries.id"],
            name=op.f("fk_tournament_prizes_entry_id_tournament_entries"),
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_prizes_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("entry_id", name=op.f("pk_tournament_prizes")),
    )
    with op.batch_alter_table("tournament_prizes", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_tournament_prizes_tournament_id"), ["tournament_id"], unique=False
        )


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("tournament_prizes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournament_prizes_tournament_id"))

    op.drop_table("tournament_prizes")
    op.drop_table("tournament_tables")
    op.drop_table("tournament_leases")
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.drop_index("ix_tournament_entries_tournament_id_status")
        batch_op.drop_index("ix_tournament_entries_player_id")

    op.drop_table("tournament_entries")
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_index("ix_tournaments_status_starts_at")

    op.drop_table("tournaments")
    op.drop_table("tournament_templates")
