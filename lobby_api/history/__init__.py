"""Hand history: GET /hands, /hands/{hand_id} and /hands/{hand_id}/phh, redacted per player."""
