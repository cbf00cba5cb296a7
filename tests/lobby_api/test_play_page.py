"""GET /play: the lobby serves the web table page (its HTML, script and style sheet) on its own
origin, outside the OpenAPI document. The page itself is played in headless Chromium by
tests/clients/test_web_table.py."""

from __future__ import annotations

import httpx

from lobby_api.play import PLAY_DIRECTORY


async def test_play_serves_the_page_and_its_files(client: httpx.AsyncClient) -> None:
    for path in ("/play", "/play/"):
        page = await client.get(path)
        assert page.status_code == 200, path
        assert page.headers["content-type"].startswith("text/html")
        assert page.text == (PLAY_DIRECTORY / "index.html").read_text()
        # Absolute asset paths: the page works at /play and at /play/.
        assert '<script type="module" src="/play/table.js"></script>' in page.text
        assert 'href="/play/table.css"' in page.text
        assert "no-cache" in page.headers["cache-control"]
    script = await client.get("/play/table.js")
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert script.content == (PLAY_DIRECTORY / "table.js").read_bytes()
    style = await client.get("/play/table.css")
    assert style.status_code == 200 and style.headers["content-type"].startswith("text/css")


async def test_play_serves_nothing_else(client: httpx.AsyncClient) -> None:
    assert (await client.get("/play/missing.js")).status_code == 404
    assert (await client.get("/play/../app.py")).status_code == 404
    assert (await client.get("/play/%2e%2e/app.py")).status_code == 404
    assert (await client.post("/play", json={})).status_code == 405


async def test_play_is_not_in_the_openapi_document(client: httpx.AsyncClient) -> None:
    schema = (await client.get("/schema/openapi.json")).json()
    assert schema["paths"] and not [p for p in schema["paths"] if p.startswith("/play")]
