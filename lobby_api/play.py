"""``GET /play``: the web table page (sign in, quick game, play), served as static files.

The page's source is TypeScript in ``clients/web/src/table``; ``scripts/build-web`` bundles it
into ``lobby_api/static/play`` (committed, so serving it needs no Node.js). It calls this
lobby on the same origin, and the engine's Connect/gRPC-Web URL from the quick-game answer
(the engine allows cross-origin calls). Not part of the OpenAPI document.
"""

from __future__ import annotations

from pathlib import Path

from litestar import Router
from litestar.datastructures import CacheControlHeader
from litestar.static_files import create_static_files_router

__all__ = ["PLAY_DIRECTORY", "play_router"]

PLAY_DIRECTORY = Path(__file__).parent / "static" / "play"


def play_router() -> Router:
    """``/play`` and ``/play/`` answer the page (index.html); ``/play/table.js`` and
    ``/play/table.css`` are its script and style sheet."""
    return create_static_files_router(
        path="/play",
        directories=[PLAY_DIRECTORY],
        html_mode=True,
        name="play",
        include_in_schema=False,
        # The file names carry no content hash: browsers check for a newer build every time.
        cache_control=CacheControlHeader(no_cache=True),
    )
