"""The API reference (/schema, ReDoc) works with nothing but the lobby to reach.

A real lobby is served by uvicorn on loopback; its pages are checked over HTTP (every script,
style sheet and icon they name is the lobby's own) and in Debian's headless Chromium with every
request to another host aborted (clients/web/test/api-docs.mjs): none may be attempted, and
the operations of the OpenAPI document must be on the rendered page. The ReDoc bundle served
is byte for byte the one the pinned npm package ships, but for the URL of the one file on
another host that it loads (scripts/build-api-docs empties it); the OpenAPI document is the
one committed in clients/web/src/gen (the render plugins do not change it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import uvicorn
from litestar.serialization import encode_json

from lobby_api.api_docs import CONTENT_SECURITY_POLICY, REDOC_DIRECTORY
from lobby_api.app import create_app
from lobby_api.settings import LobbySettings

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients/web"
CHROMIUM = Path(os.environ.get("STUD_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "test-artifacts"
COMMITTED_DOCUMENT = WEB / "src/gen/lobby.openapi.json"
PAGES = ("/schema", "/schema/", "/schema/redoc")
BUNDLE_FILES = ["LICENSE", "redoc.standalone.js", "redoc.standalone.js.LICENSE.txt"]
REDOCLY_LOGO = b'"https://cdn.redoc.ly/redoc/logo-mini.svg"'


@pytest.fixture
async def lobby_url(tmp_path: Path) -> AsyncIterator[str]:
    """The lobby app served on 127.0.0.1 (an unused port) for the test's duration.

    The reference pages read neither the database nor the engine: neither is set up.
    """
    settings = LobbySettings(
        database_url=f"sqlite:///{tmp_path}/lobby.sqlite3",
        jwt_secret="api-docs-" + "x" * 32,
        load_seeds=False,
        sweep_seconds=0,
    )
    config = uvicorn.Config(
        create_app(settings),
        host="127.0.0.1",
        port=0,
        log_level="warning",
        lifespan="on",
        access_log=False,
    )
    server = uvicorn.Server(config)
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if serving.done():
                serving.result()
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, 10)


@pytest.fixture(scope="module")
def npm_packages() -> None:
    """clients/web's npm packages (redoc, playwright-core, ...), by the project's script."""
    result = subprocess.run(
        [ROOT / "scripts/setup-web"], capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _summaries(document: dict[str, Any]) -> list[str]:
    return [
        operation["summary"]
        for item in document["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and operation.get("summary")
    ]


async def test_pages_name_only_the_lobbys_own_files(lobby_url: str) -> None:
    async with httpx.AsyncClient(base_url=lobby_url, timeout=30) as http:
        for path in PAGES:
            page = await http.get(path)
            assert page.status_code == 200, path
            assert page.headers["content-type"].startswith("text/html")
            head = page.text.split("<body", 1)[0]
            references = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", head)
            assert references == ["data:,", "/schema/assets/redoc.standalone.js"], path
            assert "googleapis" not in page.text and "cdn." not in head
            # The content policy comes first, so it governs everything the page loads.
            assert (
                head.split("<head>", 1)[1]
                .lstrip()
                .startswith(
                    f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
                )
            )
        bundle = await http.get("/schema/assets/redoc.standalone.js")
        assert bundle.status_code == 200
        assert "javascript" in bundle.headers["content-type"]
        assert bundle.content == (REDOC_DIRECTORY / "redoc.standalone.js").read_bytes()
        for name in ("LICENSE", "redoc.standalone.js.LICENSE.txt"):
            licence = await http.get(f"/schema/assets/{name}")
            assert licence.status_code == 200
            assert licence.content == (REDOC_DIRECTORY / name).read_bytes()
        # The viewers that exist only as CDN scripts are not offered.
        for gone in ("/schema/swagger", "/schema/elements", "/schema/rapidoc"):
            assert (await http.get(gone)).status_code == 404, gone
        for missing in ("/schema/assets/nothing.js", "/schema/assets/../api_docs.py"):
            assert (await http.get(missing)).status_code == 404, missing
        document = (await http.get("/schema/openapi.json")).json()
        yaml_document = await http.get("/schema/openapi.yaml")
        assert yaml_document.status_code == 200 and "openapi:" in yaml_document.text
    # The document is unchanged: what scripts/generate committed for the web client.
    assert document == json.loads(COMMITTED_DOCUMENT.read_text())
    assert not [p for p in document["paths"] if p.startswith("/schema")]


async def test_the_document_is_the_same_however_many_apps_made_one_before(
    tmp_path: Path,
) -> None:
    """Every app of a process (lobby replicas in one test, the suite's many) documents the
    same: nothing in it comes from a generator whose state earlier documents moved on."""
    documents = []
    for n in range(3):
        app = create_app(
            LobbySettings(
                database_url=f"sqlite:///{tmp_path}/lobby-{n}.sqlite3",
                jwt_secret="api-docs-" + "x" * 32,
                load_seeds=False,
                sweep_seconds=0,
            )
        )
        documents.append(json.loads(encode_json(app.openapi_schema.to_schema())))
        await app.state.engine.close()
        await app.state.db.dispose()
    assert documents[0] == documents[1] == documents[2]
    assert documents[0] == json.loads(COMMITTED_DOCUMENT.read_text())


async def test_every_answer_has_named_fields(tmp_path: Path) -> None:
    """No success answer is documented as a bare map: ReDoc shows such an answer's example as
    an invented ``{"property1": …, "property2": …}``. ``GET /health`` answers a HealthView
    (``status`` "ok"), or a 503 problem document when the database cannot be reached."""
    app = create_app(
        LobbySettings(
            database_url=f"sqlite:///{tmp_path}/lobby.sqlite3",
            jwt_secret="api-docs-" + "x" * 32,
            load_seeds=False,
            sweep_seconds=0,
        )
    )
    document = json.loads(encode_json(app.openapi_schema.to_schema()))
    await app.state.engine.close()
    await app.state.db.dispose()
    schemas = document["components"]["schemas"]

    def resolved(schema: dict[str, Any]) -> dict[str, Any]:
        ref = schema.get("$ref", "")
        return resolved(schemas[ref.rsplit("/", 1)[1]]) if ref else schema

    bare = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for status, response in operation.get("responses", {}).items():
                for content in response.get("content", {}).values():
                    schema = resolved(content.get("schema", {}))
                    schema = resolved(schema["items"]) if schema.get("type") == "array" else schema
                    named = schema.get("type") != "object" or "properties" in schema
                    if status.startswith("2") and not named:
                        bare.append(f"{method.upper()} {path} {status}")
    assert bare == []
    health = document["paths"]["/health"]["get"]["responses"]
    answer = health["200"]["content"]["application/json"]["schema"]
    assert answer == {"$ref": "#/components/schemas/HealthView"}
    assert resolved(answer)["properties"] == {"status": {"const": "ok", "type": "string"}}
    assert resolved(answer)["required"] == ["status"]
    assert "application/problem+json" in health["503"]["content"]


def test_committed_redoc_is_the_pinned_packages(npm_packages: None, tmp_path: Path) -> None:
    pinned = json.loads((WEB / "package.json").read_text())["devDependencies"]["redoc"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", pinned), f"redoc is not pinned exactly: {pinned}"
    locked = json.loads((WEB / "package-lock.json").read_text())["packages"]
    assert locked["node_modules/redoc"]["version"] == pinned
    installed = json.loads((WEB / "node_modules/redoc/package.json").read_text())
    assert installed["version"] == pinned
    result = subprocess.run(
        [ROOT / "scripts/build-api-docs", tmp_path],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    built = sorted(p.name for p in tmp_path.iterdir())
    assert built == sorted(p.name for p in REDOC_DIRECTORY.iterdir()) == BUNDLE_FILES
    for name in built:
        assert (tmp_path / name).read_bytes() == (REDOC_DIRECTORY / name).read_bytes(), (
            f"lobby_api/static/redoc/{name} is not redoc {pinned}'s: run scripts/build-api-docs"
        )
    # The bundle is the package's but for the one file on another host it loads (the Redocly
    # logo in the menu's footer), which scripts/build-api-docs empties.
    package = WEB / "node_modules/redoc"
    shipped = (package / "bundles/redoc.standalone.js").read_bytes()
    assert shipped.count(REDOCLY_LOGO) == 1
    assert (REDOC_DIRECTORY / "redoc.standalone.js").read_bytes() == shipped.replace(
        REDOCLY_LOGO, b'"data:,"'
    )
    for name, shipped_name in (
        ("LICENSE", "LICENSE"),
        ("redoc.standalone.js.LICENSE.txt", "bundles/redoc.standalone.js.LICENSE.txt"),
    ):
        assert (REDOC_DIRECTORY / name).read_bytes() == (package / shipped_name).read_bytes()
    licences = (REDOC_DIRECTORY / "redoc.standalone.js.LICENSE.txt").read_text()
    assert f'Version: "{pinned}"' in licences
    assert "MIT License" in (REDOC_DIRECTORY / "LICENSE").read_text()


async def test_reference_renders_in_chromium_with_the_network_cut_off(
    npm_packages: None, lobby_url: str
) -> None:
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: scripts/install-system-deps installs it"
    async with httpx.AsyncClient(base_url=lobby_url, timeout=30) as http:
        document = (await http.get("/schema/openapi.json")).json()
    summaries = _summaries(document)
    assert len(summaries) >= 15
    ARTIFACTS.mkdir(exist_ok=True)
    screenshot = ARTIFACTS / "api-docs.png"
    screenshot.unlink(missing_ok=True)
    process = await asyncio.create_subprocess_exec(
        "node",
        "test/api-docs.mjs",
        str(screenshot),
        f"{lobby_url}/schema",
        f"{lobby_url}/schema/redoc",
        cwd=WEB,
        env={**os.environ, "STUD_CHROMIUM": str(CHROMIUM)},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), 150)
    except TimeoutError:
        process.kill()
        stdout, stderr = await process.communicate()
    lines = stdout.decode().strip().splitlines()
    assert lines, f"exit {process.returncode}, no report\n{stderr.decode()[-2000:]}"
    report = json.loads(lines[-1])
    assert process.returncode == 0 and report["ok"], report.get("error") or stderr.decode()
    assert report["blocked"] == [], "the page asked for other hosts"
    hosts = {urlsplit(url).hostname for url in report["requests"]}
    assert hosts == {"127.0.0.1"}, report["requests"]
    assert f"{lobby_url}/schema/assets/redoc.standalone.js" in report["requests"]
    assert report["problems"] == []
    for page in report["pages"]:
        assert page["rendered"], f"ReDoc rendered no operation at {page['url']}"
        assert page["title"] == document["info"]["title"]
        missing = [s for s in summaries if s not in page["text"]]
        assert missing == [], f"{page['url']} does not show {missing}"
    assert screenshot.stat().st_size > 0
