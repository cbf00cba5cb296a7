"""lobby tables: cities, stake levels, players, ledger, idempotency keys, quick games

Generated with `alembic revision --autogenerate` and reviewed: the ledger entries' id is a
BIGINT identity on PostgreSQL and SQLite's INTEGER PRIMARY KEY (a rowid alias) there.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 12:18:07.589086+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


# revision identifiers, used by Alembic.
revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "cities",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cities")),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("operation", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("fingerprint", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("reference", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("response", sa.JSON(), nullable=True),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("state IN ('pending', 'done')", name=op.f("ck_idempotency_keys_state")),
        sa.PrimaryKeyConstraint("player_id", "key", name=op.f("pk_idempotency_keys")),
    )
    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.create_index(
            "ix_idempotency_keys_state_locked_until", ["state", "locked_until"], unique=False
        )

    op.create_table(
        "ledger_accounts",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=96), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "balance >= 0 OR kind = 'issuer'", name=op.f("ck_ledger_accounts_balance")
        ),
        sa.CheckConstraint(
            "kind IN ('wallet', 'escrow', 'hold', 'house', 'issuer')",
            name=op.f("ck_ledger_accounts_kind"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_accounts")),
    )
    with op.batch_alter_table("ledger_accounts", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_ledger_accounts_player_id"), ["player_id"], unique=False
        )

    op.create_table(
        "ledger_transactions",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("idempotency_key", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_transactions")),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_ledger_transactions_idempotency_key")),
    )
    op.create_table(
        "stake_levels",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("profile", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("ante", sa.BigInteger(), nullable=False),
        sa.Column("bring_in", sa.BigInteger(), nullable=False),
        sa.Column("small_bet", sa.BigInteger(), nullable=False),
        sa.Column("big_bet", sa.BigInteger(), nullable=False),
        sa.Column("min_buy_in", sa.BigInteger(), nullable=False),
        sa.Column("max_buy_in", sa.BigInteger(), nullable=False),
        sa.Column("action_seconds", sa.Float(), nullable=False),
        sa.Column("rake", sa.JSON(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.CheckConstraint("action_seconds > 0", name=op.f("ck_stake_levels_clock")),
        sa.CheckConstraint(
            "ante >= 0 AND bring_in > 0 AND small_bet > 0 AND big_bet >= small_bet",
            name=op.f("ck_stake_levels_stakes"),
        ),
        sa.CheckConstraint(
            "min_buy_in > 0 AND max_buy_in >= min_buy_in", name=op.f("ck_stake_levels_buy_in")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stake_levels")),
    )
    op.create_table(
        "ledger_entries",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("transaction_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("account_id", sqlmodel.sql.sqltypes.AutoString(length=96), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("reference", sqlmodel.sql.sqltypes.AutoString(length=128), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("amount <> 0", name=op.f("ck_ledger_entries_amount")),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["ledger_accounts.id"],
            name=op.f("fk_ledger_entries_account_id_ledger_accounts"),
        ),
        sa.ForeignKeyConstraint(
            ["transaction_id"],
            ["ledger_transactions.id"],
            name=op.f("fk_ledger_entries_transaction_id_ledger_transactions"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_entries")),
    )
    with op.batch_alter_table("ledger_entries", schema=None) as batch_op:
        batch_op.create_index("ix_ledger_entries_account_id_id", ["account_id", "id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_ledger_entries_transaction_id"), ["transaction_id"], unique=False
        )

    op.create_table(
        "players",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("username", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("username_key", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("password_hash", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("city", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["city"], ["cities.id"], name=op.f("fk_players_city_cities")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("username_key", name=op.f("uq_players_username_key")),
    )
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_players_city"), ["city"], unique=False)

    op.create_table(
        "quick_tables",
        sa.Column("table_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("opener_player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("city", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("stake_level", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("client_seed", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("raked_through", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('opening', 'open', 'closing', 'closed', 'failed')",
            name=op.f("ck_quick_tables_status"),
        ),
        sa.ForeignKeyConstraint(["city"], ["cities.id"], name=op.f("fk_quick_tables_city_cities")),
        sa.ForeignKeyConstraint(
            ["opener_player_id"],
            ["players.id"],
            name=op.f("fk_quick_tables_opener_player_id_players"),
        ),
        sa.ForeignKeyConstraint(
            ["stake_level"],
            ["stake_levels.id"],
            name=op.f("fk_quick_tables_stake_level_stake_levels"),
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_quick_tables")),
    )
    with op.batch_alter_table("quick_tables", schema=None) as batch_op:
        batch_op.create_index(
            "ix_quick_tables_city_stake_level_status",
            ["city", "stake_level", "status"],
            unique=False,
        )
        batch_op.create_index("ix_quick_tables_finished_at", ["finished_at"], unique=False)

    op.create_table(
        "tickets",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("city", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("stake_level", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("buy_in", sa.BigInteger(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("table_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("seat_session_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('waiting', 'seating', 'seated', 'expired', 'cancelled')",
            name=op.f("ck_tickets_status"),
        ),
        sa.CheckConstraint("buy_in > 0", name=op.f("ck_tickets_buy_in")),
        sa.ForeignKeyConstraint(["city"], ["cities.id"], name=op.f("fk_tickets_city_cities")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_tickets_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["stake_level"], ["stake_levels.id"], name=op.f("fk_tickets_stake_level_stake_levels")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tickets")),
    )
    with op.batch_alter_table("tickets", schema=None) as batch_op:
        batch_op.create_index(
            "ix_tickets_player_id_created_at", ["player_id", "created_at"], unique=False
        )
        batch_op.create_index(
            "ix_tickets_status_city_stake_level_created_at",
            ["status", "city", "stake_level", "created_at"],
            unique=False,
        )

    op.create_table(
        "lobby_seats",
        sa.Column("seat_session_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("table_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("buy_in", sa.BigInteger(), nullable=False),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("ticket_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("settled_amount", sa.BigInteger(), nullable=True),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("source IN ('quickgame', 'ticket')", name=op.f("ck_lobby_seats_source")),
        sa.CheckConstraint(
            "state IN ('pending', 'seated', 'failed')", name=op.f("ck_lobby_seats_state")
        ),
        sa.CheckConstraint("buy_in > 0", name=op.f("ck_lobby_seats_buy_in")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_lobby_seats_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["quick_tables.table_id"],
            name=op.f("fk_lobby_seats_table_id_quick_tables"),
        ),
        sa.PrimaryKeyConstraint("seat_session_id", name=op.f("pk_lobby_seats")),
    )
    with op.batch_alter_table("lobby_seats", schema=None) as batch_op:
        batch_op.create_index(
            "ix_lobby_seats_player_id_state", ["player_id", "state"], unique=False
        )
        batch_op.create_index(
            "ix_lobby_seats_state_settled_at", ["state", "settled_at"], unique=False
        )
        batch_op.create_index("ix_lobby_seats_table_id_state", ["table_id", "state"], unique=False)

    op.create_table(
        "topups",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("seat_session_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "state IN ('pending', 'done', 'refunded')", name=op.f("ck_topups_state")
        ),
        sa.CheckConstraint("amount > 0", name=op.f("ck_topups_amount")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_topups_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["seat_session_id"],
            ["lobby_seats.seat_session_id"],
            name=op.f("fk_topups_seat_session_id_lobby_seats"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_topups")),
    )
    with op.batch_alter_table("topups", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_topups_seat_session_id"), ["seat_session_id"], unique=False
        )



def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("topups", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_topups_seat_session_id"))

    op.drop_table("topups")
    with op.batch_alter_table("lobby_seats", schema=None) as batch_op:
        batch_op.drop_index("ix_lobby_seats_table_id_state")
        batch_op.drop_index("ix_lobby_seats_state_settled_at")
        batch_op.drop_index("ix_lobby_seats_player_id_state")

    op.drop_table("lobby_seats")
    with op.batch_alter_table("tickets", schema=None) as batch_op:
        batch_op.drop_index("ix_tickets_status_city_stake_level_created_at")
        batch_op.drop_index("ix_tickets_player_id_created_at")

    op.drop_table("tickets")
    with op.batch_alter_table("quick_tables", schema=None) as batch_op:
        batch_op.drop_index("ix_quick_tables_finished_at")
        batch_op.drop_index("ix_quick_tables_city_stake_level_status")

    op.drop_table("quick_tables")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_players_city"))

    op.drop_table("players")
    with op.batch_alter_table("ledger_entries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ledger_entries_transaction_id"))
        batch_op.drop_index("ix_ledger_entries_account_id_id")

    op.drop_table("ledger_entries")
    op.drop_table("stake_levels")
    op.drop_table("ledger_transactions")
    with op.batch_alter_table("ledger_accounts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ledger_accounts_player_id"))

    op.drop_table("ledger_accounts")
    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.drop_index("ix_idempotency_keys_state_locked_until")

    op.drop_table("idempotency_keys")
    op.drop_table("cities")
