"""Sessions: rotating refresh tokens behind the short-lived access tokens, log-out, revocation."""
