"""Live tables: one owner task per table that takes its commands one at a time.

- :mod:`.actor`: the table actor (command queue, wake-ups, one owner task; knows no poker);
- :mod:`.runtime`: :class:`~.runtime.TableRuntime`, the poker table the actor runs: its
  commands and its hands from start to end;
- :mod:`.state` and :mod:`.rules`: the table's state as one value, and the rules over it
  (seating, chips, ops, seeds, hands; cash rules beside where tournaments would differ);
- :mod:`.acts`: a player's action, its answer and the answers remembered;
- :mod:`.turn_clock` and :mod:`.retry`: the turn's clock (with stalls given back), and
  the backoff of writes the database failed;
- :mod:`.tournament_ops`: the tournament director's commands on a table;
- :mod:`.broadcast` and :mod:`.views`: watchers, fan-out, views and redaction;
- :mod:`.records`: a hand's record as the store keeps it;
- :mod:`.manager`: the tables of this node; :mod:`.ports`: what they need of the store;
  :mod:`.model`, :mod:`.events`, :mod:`.errors`: their values, events and refusals.

Nothing here knows gRPC: :mod:`engine_server.api` adapts it to the wire.
"""
