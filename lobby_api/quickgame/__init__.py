"""Quick games, matchmaking tickets and what players do at the table (top-up, leave)."""
