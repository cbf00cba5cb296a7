"""Bot players for the card room (``stud bots``): lobby accounts that sit in at quick games.

- :mod:`stud.bots.runner` — :func:`run_bots`: sign the bots in, keep them seated through
  matchmaking tickets, play through the engine's ``WatchTable`` / ``Act``, leave cleanly.
- :mod:`stud.bots.strategy` — :func:`decide`: the action a bot takes on its turn.
- :mod:`stud.bots.lobby` — :class:`LobbyClient`: the few lobby REST calls a bot makes.
- :mod:`stud.bots.follow` — :func:`moved_to`: the node a moved table's refusal names.
- :mod:`stud.bots.tournaments` — the bots' tournament entries (``--tournaments``).

Hand-written (unlike :mod:`stud.v1`, which is generated); it needs only ``grpcio`` and
``httpx`` and never imports the engine or the lobby.
"""

from __future__ import annotations

from stud.bots.lobby import LobbyClient, LobbyError
from stud.bots.runner import BotsConfig, bot_username, default_buy_in, run_bots
from stud.bots.strategy import Decision, classify, decide

__all__ = [
    "BotsConfig",
    "Decision",
    "LobbyClient",
    "LobbyError",
    "bot_username",
    "classify",
    "decide",
    "default_buy_in",
    "run_bots",
]
