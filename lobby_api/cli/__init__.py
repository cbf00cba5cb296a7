"""The lobby's ``stud`` subcommands: ``stud lobby`` and ``stud run``.

The ``stud`` dispatcher (:mod:`engine_server.cli`) finds them through the ``stud.commands``
entry points (pyproject.toml), so the engine never imports the lobby. Each module has what
the dispatcher asks of a subcommand: ``HELP`` (one line), ``configure(parser)`` and
``run(args) -> int``; bad input is one line on stderr (``stud NAME: …``) and a non-zero status.
"""
