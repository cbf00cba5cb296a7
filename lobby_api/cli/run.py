"""``stud run``: the whole card room on one machine — engine, lobby and demo bots.

It migrates the SQLite database, loads ``seeds/``, starts the engine (gRPC and
Connect/gRPC-Web), the lobby and demo bots (``stud bots``) as child processes, prints
where to connect, and stops everything cleanly on Ctrl-C (SIGINT) or SIGTERM. It lives
with the lobby because it runs the whole room; it starts each part as a ``stud``
subcommand in a process of its own.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO, Any

__all__ = ["HELP", "configure", "run"]

HELP = "run the whole card room: engine, lobby and demo bots"

DEMO_USER = "demo"
DEMO_PASSWORD = "demo-password"
DEMO_CITY = "oslo"


class Failed(Exception):
    """A part did not come up: reported as one line on stderr, exit status ``code``."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database-url", help="database URL (STUD_DATABASE_URL)")
    parser.add_argument("--grpc-port", type=int, default=None, help="engine gRPC port (50051)")
    parser.add_argument("--web-port", type=int, default=None, help="engine web port (8081)")
    parser.add_argument("--lobby-port", type=int, default=None, help="lobby HTTP port (8000)")
    parser.add_argument("--host", default=None, help="address to listen on (127.0.0.1)")
    parser.add_argument("--no-bots", action="store_true", help="do not start demo bots")


def _step(message: str) -> None:
    print(f"==> {message}", flush=True)


def _stud() -> list[str]:
    return [sys.executable, "-m", "engine_server"]


def _read_ready_line(process: subprocess.Popen[str], name: str, timeout: float) -> dict[str, Any]:
    """The JSON line a child prints when it is ready."""
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            if process.poll() is not None:
                raise Failed(f"the {name} exited with status {process.returncode}")
            continue
        line = line.strip()
        if line.startswith("{"):
            with contextlib.suppress(json.JSONDecodeError):
                value = json.loads(line)
                if isinstance(value, dict):
                    return value
    raise Failed(f"the {name} did not report ready within {timeout:.0f} s")


def _wait_http(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status < 500:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    raise Failed(f"{url} did not answer within {timeout:.0f} s")


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def _demo_account(lobby: str) -> None:
    """Make sure the demo account exists (a restart finds it already there)."""
    status, _ = _post(
        f"{lobby}/accounts",
        {"username": DEMO_USER, "password": DEMO_PASSWORD, "city": DEMO_CITY},
    )
    if status not in (200, 201, 409):
        print(f"    (could not register the demo account: HTTP {status})", flush=True)


def run(args: argparse.Namespace) -> int:
    from engine_server.settings import DEFAULT_DATABASE_URL, jwt_secret

    env = dict(os.environ)
    database_url = args.database_url or env.get("STUD_DATABASE_URL") or DEFAULT_DATABASE_URL
    host = args.host or env.get("STUD_ENGINE_HOST") or "127.0.0.1"
    grpc_port = args.grpc_port or int(env.get("STUD_ENGINE_GRPC_PORT") or 50051)
    web_port = args.web_port or int(env.get("STUD_ENGINE_WEB_PORT") or 8081)
    lobby_port = args.lobby_port or int(env.get("STUD_LOBBY_PORT") or 8000)
    env.update(
        STUD_DATABASE_URL=database_url,
        STUD_JWT_SECRET=env.get("STUD_JWT_SECRET") or jwt_secret(env),
        STUD_ENGINE_HOST=host,
        STUD_ENGINE_GRPC_PORT=str(grpc_port),
        STUD_ENGINE_WEB_PORT=str(web_port),
        STUD_LOG_FORMAT=env.get("STUD_LOG_FORMAT", "json"),
    )
    Path("var").mkdir(exist_ok=True)
    children: list[tuple[str, subprocess.Popen[str]]] = []
    logs: list[IO[str]] = []

    def start(name: str, command: list[str], *, ready_line: bool) -> subprocess.Popen[str]:
        log = open(Path("var") / f"{name}.log", "a", encoding="utf-8")  # noqa: SIM115
        logs.append(log)
        process = subprocess.Popen(
            command,
            env=env,
            stdout=subprocess.PIPE if ready_line else log,
            stderr=log,
            text=True,
            # Ctrl-C reaches only this supervisor, which stops the children in order.
            start_new_session=True,
        )
        children.append((name, process))
        return process

    def stop_all() -> int:
        # One at a time, last started first: the bots leave their tables while the lobby
        # and the engine still answer, and the engine drains its hands last.
        worst = 0
        for name, process in reversed(children):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                code = process.wait(timeout=45)
            except subprocess.TimeoutExpired:
                process.kill()
                code = process.wait()
                print(f"    {name} did not stop in time and was killed", flush=True)
            if code not in (0, -signal.SIGTERM):
                worst = 1
        for log in logs:
            log.close()
        return worst

    stopping = {"now": False}

    def on_signal(signum: int, frame: object) -> None:
        stopping["now"] = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        _step(f"database {database_url}: migrating")
        from engine_server.store.migrate import check_schema

        check_schema(database_url)
        if importlib.util.find_spec("seeds.load") is not None:
            _step("loading seeds/ (cities, stake levels)")
            subprocess.run([sys.executable, "-m", "seeds.load"], env=env, check=True)
        _step(f"starting the engine (gRPC {host}:{grpc_port}, web {host}:{web_port})")
        engine = start("engine", [*_stud(), "engine"], ready_line=True)
        addresses = _read_ready_line(engine, "engine", 60)
        # The quick-game answer tells browsers (the /play page) where the engine's web port is.
        env.setdefault(
            "STUD_LOBBY_ENGINE_WEB", str(addresses.get("web") or f"http://{host}:{web_port}")
        )
        _step(f"starting the lobby (http://{host}:{lobby_port})")
        start(
            "lobby",
            [*_stud(), "lobby", "--port", str(lobby_port), "--engine", f"{host}:{grpc_port}"],
            ready_line=False,
        )
        lobby_url = f"http://{host}:{lobby_port}"
        _wait_http(f"{lobby_url}/health", 60)
        _demo_account(lobby_url)
        if not args.no_bots:
            _step("starting demo bots in two cities")
            start("bots", [*_stud(), "bots", "--lobby", lobby_url], ready_line=False)
        lines = [
            "",
            "The card room is up:",
            f"  web table      {lobby_url}/play",
            f"  lobby OpenAPI  {lobby_url}/schema",
            f"  engine gRPC    {addresses.get('grpc')}  (reflection on: grpcurl -plaintext {addresses.get('grpc')} list)",
            f"  engine web     {addresses.get('web')}  (Connect / gRPC-Web)",
            f"  sign in as     {DEMO_USER} / {DEMO_PASSWORD}",
            f"  logs           {Path('var').resolve()}/*.log",
            "Press Ctrl-C to stop.",
        ]
        print("\n".join(lines), flush=True)
        while not stopping["now"]:
            for name, process in children:
                if process.poll() is not None:
                    print(f"{name} stopped (status {process.returncode}); stopping", flush=True)
                    stopping["now"] = True
            time.sleep(0.2)
    except Failed as error:
        stop_all()
        print(f"stud run: {error}", file=sys.stderr)
        return error.code
    except Exception:
        stop_all()
        raise
    _step("stopping")
    status = stop_all()
    _step("stopped")
    return status
