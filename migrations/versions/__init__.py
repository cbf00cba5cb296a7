"""The revisions of the history (Alembic skips this file)."""
