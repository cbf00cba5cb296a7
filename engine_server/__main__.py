"""``python -m engine_server`` is the ``stud`` command."""

import sys

from engine_server.cli import main

sys.exit(main())
