"""engine tables: tables, seed pairs, seat sessions, chip additions, hands, hand players

Generated with `alembic revision --autogenerate` and reviewed: partial unique indexes
(open seats, live seed pairs) carry their predicate for both SQLite and PostgreSQL.

Revision ID: 0001
Revises:
Create Date: 2026-11-29 12:01:12.058247+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


# revision identifiers, used by Alembic.
revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "tables",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("create_request_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("profile", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("rule_overrides", sa.JSON(), nullable=False),
        sa.Column("ante", sa.BigInteger(), nullable=False),
        sa.Column("bring_in", sa.BigInteger(), nullable=False),
        sa.Column("small_bet", sa.BigInteger(), nullable=False),
        sa.Column("big_bet", sa.BigInteger(), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("min_buy_in", sa.BigInteger(), nullable=False),
        sa.Column("max_buy_in", sa.BigInteger(), nullable=False),
        sa.Column("opener_player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("labels", sa.JSON(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("button_seat", sa.Integer(), nullable=True),
        sa.Column("hands_started", sa.BigInteger(), nullable=False),
        sa.Column(
            "current_seed_pair_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('waiting', 'playing', 'pausing', 'paused', 'closing', 'closed')",
            name=op.f("ck_tables_status"),
        ),
        sa.CheckConstraint("hands_started >= 0", name=op.f("ck_tables_hands_started")),
        sa.CheckConstraint(
            "min_buy_in > 0 AND max_buy_in >= min_buy_in", name=op.f("ck_tables_buy_in")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tables")),
        sa.UniqueConstraint("create_request_id", name=op.f("uq_tables_create_request_id")),
    )
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.create_index("ix_tables_created_at_id", ["created_at", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_tables_status"), ["status"], unique=False)

    op.create_table(
        "seat_sessions",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("table_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("display_name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("buy_in", sa.BigInteger(), nullable=False),
        sa.Column("chips_in", sa.BigInteger(), nullable=False),
        sa.Column("stack", sa.BigInteger(), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("close_reason", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "close_reason IS NULL OR close_reason IN ('left', 'removed', 'table_closed')",
            name=op.f("ck_seat_sessions_close_reason"),
        ),
        sa.CheckConstraint(
            "state IN ('open', 'closing', 'closed')", name=op.f("ck_seat_sessions_state")
        ),
        sa.CheckConstraint(
            "buy_in > 0 AND chips_in >= buy_in AND stack >= 0", name=op.f("ck_seat_sessions_chips")
        ),
        sa.CheckConstraint("seat >= 1", name=op.f("ck_seat_sessions_seat")),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_seat_sessions_table_id_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seat_sessions")),
    )
    with op.batch_alter_table("seat_sessions", schema=None) as batch_op:
        batch_op.create_index("ix_seat_sessions_opened_at_id", ["opened_at", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_seat_sessions_player_id"), ["player_id"], unique=False)
        batch_op.create_index(
            "ix_seat_sessions_table_id_state", ["table_id", "state"], unique=False
        )
        batch_op.create_index(
            "uq_seat_sessions_table_id_player_id_occupied",
            ["table_id", "player_id"],
            unique=True,
            sqlite_where=sa.text("state <> 'closed'"),
            postgresql_where=sa.text("state <> 'closed'"),
        )
        batch_op.create_index(
            "uq_seat_sessions_table_id_seat_occupied",
            ["table_id", "seat"],
            unique=True,
            sqlite_where=sa.text("state <> 'closed'"),
            postgresql_where=sa.text("state <> 'closed'"),
        )

    op.create_table(
        "seed_pairs",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("table_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("dealer_seed", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("commitment", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("client_seed", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("next_nonce", sa.BigInteger(), nullable=False),
        sa.Column("revealed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "state IN ('next', 'current', 'retired')", name=op.f("ck_seed_pairs_state")
        ),
        sa.CheckConstraint("next_nonce >= 0", name=op.f("ck_seed_pairs_next_nonce")),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_seed_pairs_table_id_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seed_pairs")),
        sa.UniqueConstraint("table_id", "ordinal", name=op.f("uq_seed_pairs_table_id_ordinal")),
    )
    with op.batch_alter_table("seed_pairs", schema=None) as batch_op:
        batch_op.create_index(
            "uq_seed_pairs_table_id_live_state",
            ["table_id", "state"],
            unique=True,
            sqlite_where=sa.text("state <> 'retired'"),
            postgresql_where=sa.text("state <> 'retired'"),
        )

    op.create_table(
        "chip_additions",
        sa.Column("request_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("seat_session_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("amount > 0", name=op.f("ck_chip_additions_amount")),
        sa.ForeignKeyConstraint(
            ["seat_session_id"],
            ["seat_sessions.id"],
            name=op.f("fk_chip_additions_seat_session_id_seat_sessions"),
        ),
        sa.PrimaryKeyConstraint("request_id", name=op.f("pk_chip_additions")),
    )
    with op.batch_alter_table("chip_additions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_chip_additions_seat_session_id"), ["seat_session_id"], unique=False
        )

    op.create_table(
        "hands",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("table_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("hand_number", sa.BigInteger(), nullable=False),
        sa.Column("seed_pair_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("commitment", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("client_seed", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("nonce", sa.BigInteger(), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("button_seat", sa.Integer(), nullable=False),
        sa.Column("profile", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cards", sa.JSON(), nullable=True),
        sa.Column("actions", sa.JSON(), nullable=True),
        sa.Column("pots", sa.JSON(), nullable=True),
        sa.Column("rake", sa.BigInteger(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("phh", sa.Text(), nullable=True),
        sa.Column("cancel_reason", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "state IN ('running', 'complete', 'cancelled')", name=op.f("ck_hands_state")
        ),
        sa.CheckConstraint("hand_number >= 1 AND nonce >= 0", name=op.f("ck_hands_numbers")),
        sa.ForeignKeyConstraint(
            ["seed_pair_id"], ["seed_pairs.id"], name=op.f("fk_hands_seed_pair_id_seed_pairs")
        ),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name=op.f("fk_hands_table_id_tables")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hands")),
        sa.UniqueConstraint("seed_pair_id", "nonce", name=op.f("uq_hands_seed_pair_id_nonce")),
        sa.UniqueConstraint("table_id", "hand_number", name=op.f("uq_hands_table_id_hand_number")),
    )
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.create_index("ix_hands_state", ["state"], unique=False)

    op.create_table(
        "hand_players",
        sa.Column("hand_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("seat_session_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("start_stack", sa.BigInteger(), nullable=False),
        sa.Column("final_stack", sa.BigInteger(), nullable=True),
        sa.CheckConstraint(
            "start_stack >= 0 AND (final_stack IS NULL OR final_stack >= 0)",
            name=op.f("ck_hand_players_stacks"),
        ),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name=op.f("fk_hand_players_hand_id_hands")
        ),
        sa.ForeignKeyConstraint(
            ["seat_session_id"],
            ["seat_sessions.id"],
            name=op.f("fk_hand_players_seat_session_id_seat_sessions"),
        ),
        sa.PrimaryKeyConstraint("hand_id", "seat", name=op.f("pk_hand_players")),
    )
    with op.batch_alter_table("hand_players", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_hand_players_player_id"), ["player_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_hand_players_seat_session_id"), ["seat_session_id"], unique=False
        )



def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("hand_players", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_hand_players_seat_session_id"))
        batch_op.drop_index(batch_op.f("ix_hand_players_player_id"))

    op.drop_table("hand_players")
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.drop_index("ix_hands_state")

    op.drop_table("hands")
    with op.batch_alter_table("chip_additions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chip_additions_seat_session_id"))

    op.drop_table("chip_additions")
    with op.batch_alter_table("seed_pairs", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_seed_pairs_table_id_live_state",
            sqlite_where=sa.text("state <> 'retired'"),
            postgresql_where=sa.text("state <> 'retired'"),
        )

    op.drop_table("seed_pairs")
    with op.batch_alter_table("seat_sessions", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_seat_sessions_table_id_seat_occupied",
            sqlite_where=sa.text("state <> 'closed'"),
            postgresql_where=sa.text("state <> 'closed'"),
        )
        batch_op.drop_index(
            "uq_seat_sessions_table_id_player_id_occupied",
            sqlite_where=sa.text("state <> 'closed'"),
            postgresql_where=sa.text("state <> 'closed'"),
        )
        batch_op.drop_index("ix_seat_sessions_table_id_state")
        batch_op.drop_index(batch_op.f("ix_seat_sessions_player_id"))
        batch_op.drop_index("ix_seat_sessions_opened_at_id")

    op.drop_table("seat_sessions")
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tables_status"))
        batch_op.drop_index("ix_tables_created_at_id")

    op.drop_table("tables")
