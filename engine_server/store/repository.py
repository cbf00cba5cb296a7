"""The engine's persistence: one store per aggregate, over one shared base.

:class:`EngineStore` wraps an :class:`~sqlalchemy.ext.asyncio.AsyncEngine`
(:func:`engine_server.store.database.create_engine_for`) and holds the aggregates' stores,
which share its :class:`~engine_server.store.base.Transactions` (the engine, the clock and the
node's epoch fence):

- ``tables``: :class:`~engine_server.store.tables.Tables` (create, list, load, status, close);
- ``seeds``: :class:`~engine_server.store.seeds.SeedPairs` (the pairs, rotation, reveal);
- ``sessions``: :class:`~engine_server.store.sessions.SeatSessions` (seating, chip additions,
  removals, closing);
- ``hands``: :class:`~engine_server.store.hands.Hands` (start, finish, cancel, recovery);
- ``hand_actions``: :class:`~engine_server.store.hand_actions.HandActions` (each action as it
  is taken, many tables' in one write);
- ``nodes``: :class:`~engine_server.store.nodes.NodeRegistry` (claims and leases; not fenced:
  it is what the fence reads);
- ``owners``: :class:`~engine_server.store.ownership.TableOwners` (a dead node's tables taken
  over by the live ones, a table handed over to another node).

Every method of a store is one transaction: it either happens entirely or not at all, and a
refusal (:mod:`engine_server.store.errors`) writes nothing.

Concurrency. Writes that depend on what they read lock the table's row first
(``SELECT … FOR UPDATE`` on PostgreSQL; on SQLite, ``BEGIN IMMEDIATE`` takes
the database's write lock), so two calls on one table never interleave, and
locks are always taken table first, then its hands, sessions and seed pairs
(:mod:`engine_server.store.base`).

Idempotency. CreateTable (``request_id``), SeatPlayer (``seat_session_id``)
and AddChips (``request_id``) are keyed by the lobby's ids with unique
constraints: a retry returns what the first call did, and the same key with
different parameters raises :class:`~engine_server.store.errors.IdempotencyKeyReused`.
Ending a hand or closing a session twice returns the first outcome.

Returned rows are plain SQLModel objects detached from their session
(``expire_on_commit=False``): snapshots as of the call's commit, to read, not
to modify (changes to them are never saved).

Chips and nonces: see :mod:`engine_server.store.hands` (a cancelled hand gives every chip
back; a nonce is used once and never skipped).

A minimal session (doctest on a throwaway SQLite file):

>>> import asyncio, tempfile
>>> from engine_server.store.database import create_engine_for
>>> from engine_server.store.hands import HandSeat
>>> from engine_server.store.migrate import upgrade_to_head
>>> url = f"sqlite:///{tempfile.mkdtemp()}/doc.sqlite3"
>>> _ = upgrade_to_head(url)
>>> async def demo():
...     store = EngineStore(create_engine_for(url))
...     table = await store.tables.create_table(
...         request_id="r1", profile="house", ante=1, bring_in=2, small_bet=5, big_bet=10,
...         min_buy_in=100, max_buy_in=500, client_seed="alice",
...     )
...     await store.sessions.seat_player(table.id, "s1", player_id="p1", display_name="P1",
...                                      seat=1, buy_in=200)
...     await store.sessions.seat_player(table.id, "s2", player_id="p2", display_name="P2",
...                                      seat=2, buy_in=200)
...     pair = await store.seeds.current_seed_pair(table.id)
...     hand = await store.hands.start_hand(
...         table.id, hand_number=1, seed_pair_id=pair.id, button_seat=1,
...         players=[HandSeat(1, "s1", "p1", 200), HandSeat(2, "s2", "p2", 200)],
...         profile="house", settings={},
...     )
...     done = await store.hands.finish_hand(
...         hand.id, cards=[], actions=[], pots=[], rake=0, result={}, phh=None,
...         final_stacks={"s1": 195, "s2": 205},
...     )
...     s2 = await store.sessions.get_session("s2")
...     await store.dispose()
...     return hand.nonce, done.state, s2.stack
>>> asyncio.run(demo())
(0, 'complete', 205)
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from engine_server.game.fairness import new_dealer_seed
from engine_server.store.base import Transactions
from engine_server.store.database import create_engine_for
from engine_server.store.hand_actions import HandActions
from engine_server.store.hands import Hands
from engine_server.store.nodes import NodeRegistry
from engine_server.store.ownership import TableOwners
from engine_server.store.seeds import SeedPairs
from engine_server.store.sessions import SeatSessions
from engine_server.store.tables import Tables
from engine_server.store.types import utc_now

__all__ = ["EngineStore"]


class EngineStore:
    """The engine's stores on one engine (see the module's docstring for their guarantees).

    ``clock`` gives the timestamps they write (aware UTC); ``new_seed`` makes dealer seeds
    (docs/fairness.md §1: the OS's CSPRNG) — both replaceable in tests. ``tx.fence``: the node's
    :class:`~engine_server.store.nodes.WriteFence`, checked by every write of every store.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        clock: Callable[[], datetime] = utc_now,
        new_seed: Callable[[], str] = new_dealer_seed,
    ) -> None:
        self.engine = engine
        self.tx = Transactions(engine, clock=clock)
        self.seeds = SeedPairs(self.tx, new_seed=new_seed)
        self.tables = Tables(self.tx, self.seeds)
        self.sessions = SeatSessions(self.tx)
        self.hands = Hands(self.tx)
        self.hand_actions = HandActions(self.tx)
        self.nodes = NodeRegistry(engine)
        self.owners = TableOwners(self.tx)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> EngineStore:
        """A store on a new engine for ``url`` (see :func:`create_engine_for`)."""
        return cls(create_engine_for(url), **kwargs)

    async def dispose(self) -> None:
        """Close the engine's pooled connections."""
        self.hand_actions.close()
        await self.engine.dispose()
