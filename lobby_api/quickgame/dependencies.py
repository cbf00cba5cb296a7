"""The quick game's services, built per request from the app's state (Litestar ``Provide``).

Each is a few attribute sets over the app's long-lived parts (the database, the engine
routing, the settings); none depends on another dependency, so Litestar resolves them
without extra work.
"""

from __future__ import annotations

from litestar.datastructures import State
from litestar.di import Provide

from lobby_api.quickgame.bots import BotRequests
from lobby_api.quickgame.leave import Leaving
from lobby_api.quickgame.opening import QuickGameOpening
from lobby_api.quickgame.seed_rotation import SeedRotation
from lobby_api.quickgame.tickets import Matchmaking
from lobby_api.quickgame.topup import TopUps

__all__ = [
    "DEPENDENCIES",
    "provide_bot_requests",
    "provide_leaving",
    "provide_matchmaking",
    "provide_opening",
    "provide_seed_rotation",
    "provide_topups",
]


def provide_opening(state: State) -> QuickGameOpening:
    return QuickGameOpening(state.db, state.engines)


def provide_matchmaking(state: State) -> Matchmaking:
    return Matchmaking(state.db, state.engines, state.settings, state.looking)


def provide_topups(state: State) -> TopUps:
    return TopUps(state.db, state.engines)


def provide_leaving(state: State) -> Leaving:
    return Leaving(state.db, state.engines)


def provide_seed_rotation(state: State) -> SeedRotation:
    return SeedRotation(state.db, state.engines)


def provide_bot_requests(state: State) -> BotRequests:
    return BotRequests(state.db, state.engines, state.looking)


#: Every quick-game service, by the name handlers ask for it.
DEPENDENCIES = {
    "opening": Provide(provide_opening, sync_to_thread=False),
    "matchmaking": Provide(provide_matchmaking, sync_to_thread=False),
    "topups": Provide(provide_topups, sync_to_thread=False),
    "leaving": Provide(provide_leaving, sync_to_thread=False),
    "seed_rotation": Provide(provide_seed_rotation, sync_to_thread=False),
    "bot_requests": Provide(provide_bot_requests, sync_to_thread=False),
}
