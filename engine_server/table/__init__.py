"""Live tables: one owner task per table that takes its commands one at a time.

Nothing here knows gRPC: :mod:`engine_server.api` adapts it to the wire.
"""
