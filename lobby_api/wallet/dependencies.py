"""The wallet's services, built per request from the app's state."""

from __future__ import annotations

from litestar.datastructures import State
from litestar.di import NamedDependency

from lobby_api.wallet.services import PlayerWallet

__all__ = ["provide_player_wallet"]


def provide_player_wallet(state: State, player_id: NamedDependency[str]) -> PlayerWallet:
    # One dependency on the player alone: Litestar resolves several independent dependencies
    # in a task group per request, which costs more than this whole read's SQL.
    return PlayerWallet(state.wallet_reader, player_id)
