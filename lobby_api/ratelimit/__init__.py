"""Rate limits kept in the database (fixed windows shared by every lobby replica)."""
