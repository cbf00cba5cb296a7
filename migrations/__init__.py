"""The project's one Alembic history (see README), shipped in the wheel as the package
``engine_server.migrations`` (setup.py): ``engine_server.store.migrate`` runs it from there
when the engine or the lobby starts from an installed package."""
