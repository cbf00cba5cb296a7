"""Cities and stake levels: the lobby's catalogue, seeded from ``seeds/``."""
