"""A real engine and the lobby served by uvicorn, in a thread with an event loop of its own.

For clients that block (schemathesis, the command line): the servers keep running while the
test's own code waits on a socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

import uvicorn

from lobby_api.settings import LobbySettings
from tests.engine_server.api.conftest import SECRET, Engine, launch, shut
from tests.lobby_api.conftest import add_test_levels, build_app


class LiveStack:
    """Start with :meth:`start`, stop with :meth:`stop`; ``base_url`` is the lobby's."""

    def __init__(self, database_url: str, **overrides: Any) -> None:
        self.database_url = database_url
        self.overrides = overrides
        self.port = 0
        self.engine: Engine | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="live-lobby", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> LiveStack:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("the live lobby did not start")
        if self._error is not None:
            raise self._error
        return self

    def stop(self, timeout: float = 30) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as error:  # reported to start()
            self._error = error
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self.engine = await launch(self.database_url)
        settings = LobbySettings(
            database_url=self.database_url,
            jwt_secret=SECRET,
            sweep_seconds=0,
            login_rate_per_minute=0,
            money_rate_per_minute=0,
        )
        app = build_app(settings, self.engine, **self.overrides)
        config = uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", access_log=False
        )
        server = uvicorn.Server(config)
        server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
        serving = asyncio.create_task(server.serve())
        try:
            while not server.started:
                if serving.done():
                    serving.result()
                await asyncio.sleep(0.01)
            await add_test_levels(app.state.db)
            self.port = server.servers[0].sockets[0].getsockname()[1]
            self._ready.set()
            await self._stop.wait()
        finally:
            server.should_exit = True
            with contextlib.suppress(Exception):
                await serving
            await app.state.engine.close()
            await shut(self.engine)
