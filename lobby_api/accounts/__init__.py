"""Accounts: registration, log-in (a JWT the engine accepts too) and the player's profile."""
