"""The API reference at ``/schema`` (and ``/schema/redoc``), served whole by the lobby.

Litestar's render plugins load their scripts, fonts and favicon from CDNs. Here ReDoc's
standalone bundle comes from the npm package ``redoc`` (pinned exactly in clients/web), copied
by ``scripts/build-api-docs`` into ``lobby_api/static/redoc`` (committed, so serving it needs
no Node.js; the URL of the one file on another host that the bundle loads, Redocly's logo,
emptied) and served at ``/schema/assets/``; the page asks for no web fonts, has an empty
favicon and a content policy that lets it load only the lobby's own files, so a browser that
reaches nothing but the lobby renders the reference and asks no other host for anything.

Only ReDoc and the document itself (``/schema/openapi.json``, ``/schema/openapi.yaml``) are
offered: Litestar's other viewers (Swagger UI, Stoplight Elements, RapiDoc) exist only as
CDN scripts. The OpenAPI document does not depend on any of this.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from litestar import Request, Router
from litestar.datastructures import CacheControlHeader
from litestar.openapi.plugins import (
    JsonRenderPlugin,
    OpenAPIRenderPlugin,
    RedocRenderPlugin,
    YamlRenderPlugin,
)
from litestar.static_files import create_static_files_router

__all__ = [
    "ASSETS_PATH",
    "CONTENT_SECURITY_POLICY",
    "REDOC_DIRECTORY",
    "REDOC_SCRIPT",
    "LocalRedocRenderPlugin",
    "render_plugins",
]

REDOC_DIRECTORY = Path(__file__).parent / "static" / "redoc"
#: Where the assets live, relative to the OpenAPI router's path (``/schema``).
ASSETS_PATH = "/assets"
REDOC_SCRIPT = "redoc.standalone.js"
#: An empty icon: without a <link rel="icon"> a browser would still ask for /favicon.ico.
_NO_FAVICON = "<link rel='icon' href='data:,'>"
#: What the reference page may load: only the lobby's own files, should a later ReDoc or an
#: operation's description name an image or a script on another host. ReDoc needs its inline
#: start-up script (Litestar inlines the document), the styles it injects and its search
#: worker (a blob: URL).
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "worker-src 'self' blob:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    ]
)


class LocalRedocRenderPlugin(RedocRenderPlugin):
    """ReDoc with its script from the lobby itself (``{schema path}/assets/``).

    The page it renders refers to no other host: no Google Fonts (ReDoc falls back to the
    system's sans-serif), no favicon to fetch, the bundle on the same origin. It serves the
    files of ``lobby_api/static/redoc`` on the OpenAPI router it is given, outside the
    OpenAPI document.
    """

    def __init__(self, schema_path: str, *, path: str | Sequence[str] = "/redoc") -> None:
        super().__init__(
            js_url=f"{schema_path.rstrip('/')}{ASSETS_PATH}/{REDOC_SCRIPT}",
            google_fonts=False,
            favicon=_NO_FAVICON,
            path=path,
        )

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        """Litestar's ReDoc page, with :data:`CONTENT_SECURITY_POLICY` first in its head
        (a <meta> governs only what comes after it)."""
        page = super().render(request, openapi_schema)
        policy = (
            f'<head><meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
        )
        head, found, rest = page.partition(b"<head>")
        if not found:
            # Litestar's template always has a <head>; without one there is no page to guard.
            raise RuntimeError("ReDoc's page has no <head> to put the content policy in")
        return head + policy.encode() + rest

    def receive_router(self, router: Router) -> None:
        """Serve the bundle (and its licences) under the OpenAPI router."""
        router.register(
            create_static_files_router(
                path=ASSETS_PATH,
                directories=[REDOC_DIRECTORY],
                name="api-docs-assets",
                include_in_schema=False,
                # The file name carries no version: browsers check for a newer copy every time.
                cache_control=CacheControlHeader(no_cache=True),
            )
        )


def render_plugins(schema_path: str) -> list[OpenAPIRenderPlugin]:
    """The plugins for ``OpenAPIConfig(path=schema_path, render_plugins=...)``.

    ReDoc comes first, so it also answers at ``schema_path`` itself; the JSON and YAML
    documents keep the paths Litestar gives them by default.
    """
    return [
        LocalRedocRenderPlugin(schema_path),
        JsonRenderPlugin(),
        YamlRenderPlugin(),
    ]
