"""The rules of a table around its hands, over a :class:`~engine_server.table.state.TableState`.

Each rule checks a command against the state (refusing it with a
:class:`~engine_server.table.errors.TableError`, nothing changed) or applies a change to
the state and returns the events that say what changed. No rule awaits anything: the
runtime (:mod:`engine_server.table.runtime`) asks the store between a check and its
change, and publishes the events. So each is tested on a state built by hand.

- :mod:`.seating`: taking a seat, leaving, sitting out and in, connection, who is dealt in;
- :mod:`.chips`: buy-ins and chips added;
- :mod:`.ops`: the table's status (pause, resume, drain, close);
- :mod:`.seeds`: the seed pair's rotation;
- :mod:`.hands`: dealing a hand in, cancelling it, what its end leaves, showing after it;
- :mod:`.cash`: what a cash table and a tournament table decide differently;
- :mod:`.tournament`: the director's commands at a tournament table (stakes, moves, the
  hand-for-hand hold, tournament info, places).
"""

from engine_server.table.rules.cash import (
    CASH_RULES,
    TOURNAMENT_RULES,
    CashRules,
    TableRules,
    TournamentRules,
    rules_for,
)

__all__ = [
    "CASH_RULES",
    "TOURNAMENT_RULES",
    "CashRules",
    "TableRules",
    "TournamentRules",
    "rules_for",
]
