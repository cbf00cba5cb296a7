"""``stud run``: the whole card room on one machine — engine, lobby and demo bots.

It migrates the SQLite database, loads ``seeds/``, starts the engine (gRPC,
Connect/gRPC-Web, metrics), the lobby and demo bots (``stud bots``: they hold tickets in
Oslo and Stockholm, answer requests for bots in every city of ``seeds/``, and fill a
tournament a human registered for) as child processes, prints every address, and stops
everything cleanly on Ctrl-C (SIGINT), SIGTERM or SIGHUP (its terminal closed). It lives with
the lobby because it runs the whole room; it starts each part as a ``stud`` subcommand in a
process of its own.

The lobby keeps one demo sit & go open (the template :data:`DEMO_SIT_AND_GO`; when one
fills, the next opens): a player who registers for it in the web page's Tournaments tab is
joined by the demo bots, which fills it and starts it.

Guarantees:

- A port that is taken is named before anything starts (which port, and the flag that
  moves it); a part that dies while starting is reported with the reason it logged (the
  last error line of ``var/{part}.log``), not only its exit status. Both exit with status 1.
  The room is announced up only once every part is (the bots too: signed in, seated or
  waiting for tickets).
- What a part warns of while it starts or stops is on the terminal too (the engine waiting
  for the lease of an engine that was killed, hands it cancelled that were left running, how
  its drain goes and how it ended), indented under the step.
- While the room is up, ``var/room.json`` names its addresses, so ``stud admin``,
  ``stud describe`` and ``stud bots`` run from the same directory find it on any ports
  (:mod:`engine_server.cli.room`); the file is removed when ``stud run`` stops.
- Ctrl-C stops the parts one at a time, saying what each waits for and up to how long
  (the bots play out their hands, the engine finishes the hands in play). A second Ctrl-C
  kills them at once: a hand in play is cut off, and the engine cancels it when it next
  starts, giving every chip bet in it back (exit status 130). Closing the terminal stops
  the room as Ctrl-C does (what it would print goes nowhere).
- The parts never outlive ``stud run``: killed (``kill -9``), it leaves them a SIGTERM
  (Linux's parent-death signal), and they stop as on a first Ctrl-C, all at once. Its
  ``var/room.json`` stays behind naming a process that is gone; the follow-up commands
  ignore it (and say so when they cannot reach their default address), and the next
  ``stud run`` names it when a port it wants is still held by those parts.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from lobby_api.cli.failure import Failed
from lobby_api.cli.part_logs import LogTail, log_reason, read_ready_line, worth_telling
from lobby_api.cli.ports import check_ports, port_of

__all__ = ["HELP", "configure", "run"]

HELP = "run the whole card room: engine, lobby and demo bots"

DEMO_USER = "demo"
DEMO_PASSWORD = "demo-password"
DEMO_CITY = "oslo"
#: The cities whose bots hold tickets, so a quick game there is joined at once; in every
#: other city of seeds/ a player alone at his table may ask for bots (they come on request).
BOT_CITIES = ("oslo", "stockholm")
#: The demo bots also fill a tournament a human registered for (stud bots --tournaments).
BOT_FLAGS = [
    "--cities",
    ",".join(BOT_CITIES),
    "--on-request",
    "all",
    "--tournaments",
    "with-humans",
]
#: The demo sit & go: a template of seeds/tournaments.json the lobby keeps open (one
#: registering at all times); open to all, its seats are one human's plus the demo bots'.
DEMO_SIT_AND_GO = "turbo-7"

#: How long each part may take to stop before it is killed, and what it waits for meanwhile.
#: The bots' own limit is ``stud bots``' (15 s); the engine's drain is its grace x 6 (30 s).
STOP_SECONDS = {"bots": 20.0, "lobby": 15.0, "engine": 40.0}
STOP_WAITS_FOR = {
    "bots": "the bots leave their tables (a hand in play is played out first, up to 15 s)",
    "lobby": "the lobby finishes the requests in flight",
    "engine": "the engine finishes the hands in play (up to 30 s; no new hand starts)",
}
#: Exit status after a second Ctrl-C (the shell's for "ended by SIGINT").
INTERRUPTED = 130
#: Commands the banner offers, which find the room by themselves (var/room.json).
FOLLOW_UPS = ("describe", "admin tables", "bots --cities berlin")
#: The signals that stop the room: Ctrl-C, a service manager's stop, the terminal closing.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: How long the bots may take to sign in and say they are ready.
BOTS_READY_SECONDS = 60.0
#: prctl(2)'s option for the signal a process gets when its parent dies (Linux).
PR_SET_PDEATHSIG = 1


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database-url", help="database URL (STUD_DATABASE_URL)")
    for flag, what, variable, default in (
        ("--grpc-port", "engine gRPC port", "STUD_ENGINE_GRPC_PORT", 50051),
        ("--web-port", "engine Connect/gRPC-Web port", "STUD_ENGINE_WEB_PORT", 8081),
        ("--metrics-port", "engine Prometheus /metrics port", "STUD_ENGINE_METRICS_PORT", 9464),
        ("--lobby-port", "lobby HTTP port", "STUD_LOBBY_PORT", 8000),
    ):
        parser.add_argument(
            flag,
            type=int,
            default=None,
            metavar="PORT",
            help=f"{what} ({variable}, else {default}; 0: any free port)",
        )
    parser.add_argument(
        "--host",
        default=None,
        help="address every part listens on (else STUD_ENGINE_HOST, and STUD_LOBBY_HOST for "
        "the lobby; else 127.0.0.1; 0.0.0.0: all)",
    )
    parser.add_argument("--no-bots", action="store_true", help="do not start demo bots")


def _say(text: str, *, error: bool = False) -> None:
    """One line for the operator, on stdout (or stderr). A terminal that went away (its window
    closed: SIGHUP, then every write fails) is no reason to stop badly: from then on what
    would be printed goes to /dev/null, and the room stops as it should."""
    try:
        print(text, file=sys.stderr if error else sys.stdout, flush=True)
    except OSError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        for fd in (1, 2):
            os.dup2(devnull, fd)
        os.close(devnull)


def _step(message: str) -> None:
    _say(f"==> {message}")


def _stop_with_parent() -> Callable[[], None] | None:
    """What a part runs before its command (``preexec_fn``): ask Linux for a SIGTERM when
    ``stud run`` dies, so a ``kill -9`` of it leaves no part running on the room's ports.
    The parts run in sessions of their own (Ctrl-C reaches only ``stud run``), so nothing
    else would stop them. None where prctl(2) is not there to ask.

    The C function is looked up here, before any fork: the child only calls it.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def ask() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # stud run died before the request was made
            os.kill(os.getpid(), signal.SIGTERM)

    return ask


def _stud_command() -> str:
    """``stud`` as the operator can type it from this directory: ``stud`` when that is the one
    on PATH, else its path (``.venv/bin/stud`` under scripts/run)."""
    stud = Path(sys.executable).parent / "stud"
    if not stud.exists():
        return f"{sys.executable} -m engine_server"
    on_path = shutil.which("stud")
    if on_path is not None and Path(on_path).resolve() == stud.resolve():
        return "stud"
    with contextlib.suppress(ValueError):
        return str(stud.absolute().relative_to(Path.cwd()))
    return str(stud)


def _stud() -> list[str]:
    return [sys.executable, "-m", "engine_server"]


def _shown(url: str) -> str:
    """A database URL as the terminal shows it: without its password."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def _first_line(error: BaseException) -> str:
    """An exception as one line (SQLAlchemy's add a second one pointing to its docs)."""
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _seeds_summary(output: str) -> str:
    """What ``python -m seeds.load`` printed (one JSON line), in words."""
    for line in reversed(output.splitlines()):
        with contextlib.suppress(ValueError, KeyError, TypeError):
            loaded = json.loads(line)
            return (
                f"{loaded['cities']} cities, {loaded['stake_levels']} stake levels, "
                f"{loaded['tournament_templates']} tournament templates "
                f"({loaded['inserted']} added, {loaded['updated']} updated)"
            )
    return ""


def _hosts(host: str) -> tuple[str, str]:
    """Where this machine's own clients reach servers bound to ``host`` (the lobby's link to
    the engine, the bots, the follow-up commands), and the name others reach them by (the
    banner): loopback and this machine's name for a wildcard address, else ``host`` twice
    (bracketed if IPv6)."""
    from engine_server.settings import advertised_host

    far = advertised_host(host)
    if host in ("", "0.0.0.0"):
        return "127.0.0.1", far
    if host in ("::", "[::]"):
        return "[::1]", far
    return far, far


def _wait_http(url: str, timeout: float, alive: Callable[[], object] | None = None) -> None:
    """Wait until ``url`` answers; ``alive()`` raises when the part serving it died."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if alive is not None:
            alive()
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
        _say(f"    (could not register the demo account: HTTP {status})")


def _demo_sit_and_go(lobby: str) -> dict[str, Any] | None:
    """The open demo sit & go (the lobby opens one per kept-open template as it starts)."""
    deadline = time.monotonic() + 10
    while True:
        try:
            url = f"{lobby}/tournaments?status=registering&kind=sit_and_go"
            with urllib.request.urlopen(url, timeout=10) as response:
                listed = json.loads(response.read())
        except (OSError, ValueError):
            listed = []
        for tournament in listed:
            if tournament.get("template") == DEMO_SIT_AND_GO:
                return dict(tournament)
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.5)


def run(args: argparse.Namespace) -> int:
    from engine_server.cli.room import ROOM_FILE, left_behind, remove_room, write_room
    from engine_server.settings import (
        DEFAULT_DATABASE_URL,
        SettingsError,
        host_port,
        jwt_secret,
    )

    env = dict(os.environ)
    database_url = args.database_url or env.get("STUD_DATABASE_URL") or DEFAULT_DATABASE_URL
    host = args.host or env.get("STUD_ENGINE_HOST") or "127.0.0.1"
    lobby_host = args.host or env.get("STUD_LOBBY_HOST") or host

    def chosen(flag: int | None, name: str, default: int) -> int:
        # A flag wins over the variable; 0 is a valid choice (any free port).
        if flag is not None:
            return flag
        raw = env.get(name) or str(default)
        if not raw.isdigit():
            raise Failed(f"{name}: expected a port number 0-65535, got {raw!r}", code=2)
        return int(raw)

    try:
        grpc_port = chosen(args.grpc_port, "STUD_ENGINE_GRPC_PORT", 50051)
        web_port = chosen(args.web_port, "STUD_ENGINE_WEB_PORT", 8081)
        metrics_port = chosen(args.metrics_port, "STUD_ENGINE_METRICS_PORT", 9464)
        lobby_port = chosen(args.lobby_port, "STUD_LOBBY_PORT", 8000)
        secret = env.get("STUD_JWT_SECRET") or jwt_secret(env)
    except (Failed, SettingsError) as error:
        _say(f"stud run: {error}", error=True)
        return getattr(error, "code", 2)
    env.update(
        STUD_DATABASE_URL=database_url,
        STUD_JWT_SECRET=secret,
        STUD_ENGINE_HOST=host,
        STUD_ENGINE_GRPC_PORT=str(grpc_port),
        STUD_ENGINE_WEB_PORT=str(web_port),
        STUD_ENGINE_METRICS_PORT=str(metrics_port),
        STUD_LOG_FORMAT=env.get("STUD_LOG_FORMAT", "json"),
    )
    Path("var").mkdir(exist_ok=True)
    children: list[tuple[str, subprocess.Popen[str]]] = []
    logs: list[IO[str]] = []
    log_offsets: dict[str, int] = {}
    tails: dict[str, LogTail] = {}
    signals = {"count": 0}
    before_exec = _stop_with_parent()

    def not_interrupted() -> None:
        if signals["count"]:
            raise Failed("interrupted while starting", code=INTERRUPTED)

    def start(name: str, command: list[str], *, ready_line: bool) -> subprocess.Popen[str]:
        not_interrupted()
        path = Path("var") / f"{name}.log"
        log = open(path, "a", encoding="utf-8")  # noqa: SIM115
        log_offsets[name] = log.tell()
        tails[name] = LogTail(path, log.tell())
        logs.append(log)
        process = subprocess.Popen(
            command,
            env=env,
            stdout=subprocess.PIPE if ready_line else log,
            stderr=log,
            text=True,
            # Ctrl-C reaches only this supervisor, which stops the children in order; the
            # children get a SIGTERM should it die without doing so.
            start_new_session=True,
            preexec_fn=before_exec,
        )
        children.append((name, process))
        return process

    def follow(name: str) -> list[dict[str, Any]]:
        """The part's new log records; those worth telling go to the terminal."""
        records = tails[name].records()
        for record in records:
            told = worth_telling(record)
            if told is not None:
                _say(f"    {name}: {told}")
        return records

    def died(name: str, process: subprocess.Popen[str]) -> None:
        """A part exited while starting: raise with the reason it logged."""
        for log in logs:
            log.flush()
        path = Path("var") / f"{name}.log"
        reason = log_reason(path, log_offsets.get(name, 0))
        because = f": {reason}" if reason else ""
        raise Failed(
            f"the {name} exited with status {process.returncode}{because} (log: {path.resolve()})"
        )

    def watch(name: str, process: subprocess.Popen[str]) -> Callable[[], list[dict[str, Any]]]:
        """While a part starts: what it logs, and a :class:`Failed` when it died or stud
        run was interrupted."""

        def check() -> list[dict[str, Any]]:
            records = follow(name)
            if process.poll() is not None:
                died(name, process)
            not_interrupted()
            return records

        return check

    def wait_ready_event(name: str, process: subprocess.Popen[str], timeout: float) -> None:
        """Wait for the part's ``{"event": "ready"}`` line in its log (``stud bots``)."""
        check = watch(name, process)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(record.get("event") == "ready" for record in check()):
                return
            time.sleep(0.2)
        raise Failed(f"the {name} did not report ready within {timeout:.0f} s")

    def load_seeds() -> None:
        """``python -m seeds.load``, in a session of its own as the parts are (Ctrl-C meanwhile
        stops it and the start); what it loaded, or why it could not, in one line."""
        not_interrupted()
        loader = subprocess.Popen(
            [sys.executable, "-m", "seeds.load"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=before_exec,
        )
        while True:
            try:
                out, err = loader.communicate(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                if signals["count"]:
                    loader.kill()
                    loader.communicate()
                    not_interrupted()
        if loader.returncode != 0:
            said = err.strip().splitlines()
            raise Failed(
                f"loading seeds/ failed (status {loader.returncode})"
                + (f": {said[-1]}" if said else "")
            )
        summary = _seeds_summary(out)
        if summary:
            _say(f"    {summary}")

    def kill_all() -> None:
        for _name, process in children:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
        for _name, process in children:
            process.wait()

    def stop_all(*, say: bool) -> int:
        # One at a time, last started first: the bots leave their tables while the lobby
        # and the engine still answer, and the engine drains its hands last. A second
        # signal (counted by on_signal) cuts the wait short.
        worst = 0
        hard_at = signals["count"] + 1
        for name, process in reversed(children):
            if process.poll() is None:
                if say:
                    _say(f"    {STOP_WAITS_FOR.get(name, name)}")
                process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + STOP_SECONDS.get(name, 30.0)
            while process.poll() is None:
                if say:
                    follow(name)
                if signals["count"] >= hard_at:
                    _say(
                        "==> stopping at once: hands in play are cut off; the engine cancels "
                        "them when it next starts, and every chip bet in them goes back"
                    )
                    kill_all()
                    return INTERRUPTED
                if time.monotonic() > deadline:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)
                    _say(f"    {name} did not stop in time and was killed")
                    break
                time.sleep(0.1)
            code = process.wait()
            if say:
                follow(name)  # its last words: how its drain ended
            if code not in (0, -signal.SIGTERM):
                worst = 1
        return worst

    def on_signal(signum: int, frame: object) -> None:
        signals["count"] += 1

    def close_logs() -> None:
        for log in logs:
            log.close()

    for signum in STOP_SIGNALS:
        # Started with nohup (SIGHUP ignored), it keeps running when its terminal closes.
        if signum != signal.SIGHUP or signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, on_signal)
    try:
        check_ports(
            [
                ("engine gRPC port", host, grpc_port, "--grpc-port"),
                ("engine web port", host, web_port, "--web-port"),
                ("engine metrics port", host, metrics_port, "--metrics-port"),
                ("lobby port", lobby_host, lobby_port, "--lobby-port"),
            ],
            left_behind(),
        )
        _step(f"database {_shown(database_url)}: migrating")
        from engine_server.store.migrate import check_schema

        try:
            check_schema(database_url)
        except Exception as error:  # a URL it cannot use, a server down, a newer schema
            raise Failed(f"the database {_shown(database_url)}: {_first_line(error)}") from None
        if importlib.util.find_spec("seeds.load") is not None:
            _step("loading seeds/ (cities, stake levels)")
            load_seeds()
        _step(
            f"starting the engine (gRPC {host_port(host, grpc_port)}, "
            f"web {host_port(host, web_port)}, metrics {host_port(host, metrics_port)})"
        )
        engine = start("engine", [*_stud(), "engine"], ready_line=True)
        addresses = read_ready_line(engine, "engine", 60, watch("engine", engine))
        # The ports it reports (a port of 0 was any free one), at the hosts to use.
        near, far = _hosts(host)
        bound = {
            key: port_of(addresses.get(key)) or chosen_port
            for key, chosen_port in (("grpc", grpc_port), ("web", web_port),
                                     ("metrics", metrics_port))
        }  # fmt: skip
        grpc_address = f"{near}:{bound['grpc']}"
        # Where the lobby sends browsers (the /play page) when the engine's node record does
        # not say.
        env.setdefault("STUD_LOBBY_ENGINE_WEB", f"http://{far}:{bound['web']}")
        _step(f"starting the lobby (http://{host_port(lobby_host, lobby_port)})")
        lobby = start(
            "lobby",
            [*_stud(), "lobby", "--host", lobby_host, "--port", str(lobby_port),
             "--engine", grpc_address],
            ready_line=True,
        )  # fmt: skip
        # Its own word for where it listens (a port of 0 was any free one).
        ready = read_ready_line(lobby, "lobby", 60, watch("lobby", lobby))
        lobby_port = port_of(ready.get("http")) or lobby_port
        lobby_near, lobby_far = _hosts(lobby_host)
        lobby_url = f"http://{lobby_near}:{lobby_port}"
        _wait_http(f"{lobby_url}/health", 60, watch("lobby", lobby))
        _demo_account(lobby_url)
        if not args.no_bots:
            _step(
                f"starting demo bots (seated at once in {', '.join(BOT_CITIES)}; "
                "in every city on request)"
            )
            bots = start(
                "bots", [*_stud(), "bots", "--lobby", lobby_url, *BOT_FLAGS], ready_line=False
            )
            wait_ready_event("bots", bots, BOTS_READY_SECONDS)
        demo_tournament = _demo_sit_and_go(lobby_url)
        # The follow-up commands run here: this machine's addresses.
        room = {
            "lobby": lobby_url,
            "grpc": grpc_address,
            "web": f"http://{near}:{bound['web']}",
            "metrics": f"http://{near}:{bound['metrics']}/metrics",
            "database": _shown(database_url),
        }
        write_room(room)
        stud = _stud_command()
        # The banner: the addresses players and other machines use.
        lobby_shown = f"http://{lobby_far}:{lobby_port}"
        grpc_shown = f"{far}:{bound['grpc']}"
        lines = [
            "",
            "The card room is up:",
            f"  web table       {lobby_shown}/play",
            f"  lobby API       {lobby_shown}  (OpenAPI: {lobby_shown}/schema)",
            f"  lobby metrics   {lobby_shown}/metrics",
            f"  engine gRPC     {grpc_shown}  (reflection on: {stud} describe)",
            f"  engine web      http://{far}:{bound['web']}  (Connect / gRPC-Web)",
            f"  engine metrics  http://{far}:{bound['metrics']}/metrics",
            f"  database        {_shown(database_url)}",
            f"  sign in as      {DEMO_USER} / {DEMO_PASSWORD}",
            *(
                []
                if args.no_bots
                else [
                    f"  demo bots       join at once in {', '.join(BOT_CITIES)}; alone "
                    "elsewhere, ask for them (POST /tables/{id}/bots)"
                ]
            ),
            *(
                [
                    f"  demo sit & go   {demo_tournament['name']}: "
                    f"{demo_tournament['max_players']} players, buy-in "
                    f"{demo_tournament['buy_in']} + {demo_tournament['fee']}; register in the "
                    "web table's Tournaments tab"
                    + ("" if args.no_bots else " and the demo bots fill it")
                ]
                if demo_tournament is not None
                else []
            ),
            f"  logs            {Path('var').resolve()}/*.log",
            f"  room file       {ROOM_FILE.resolve()}  (removed when this stops)",
            "From this directory these find the room without flags (var/room.json):",
            *(f"  {stud} {command}" for command in FOLLOW_UPS),
            f"(elsewhere: add --engine {grpc_shown} or --lobby {lobby_shown}, and the token",
            "secret: STUD_JWT_SECRET, or this directory's var/jwt-secret)",
            "Press Ctrl-C to stop.",
        ]
        _say("\n".join(lines))
        while not signals["count"]:
            for name, process in children:
                if process.poll() is not None:
                    reason = log_reason(Path("var") / f"{name}.log", log_offsets[name])
                    _say(
                        f"{name} stopped (status {process.returncode})"
                        + (f": {reason}" if reason else "")
                        + "; stopping"
                    )
                    signals["count"] = 1
            time.sleep(0.2)
    except Failed as error:
        _say(f"stud run: {error}", error=True)
        if stop_all(say=False) == INTERRUPTED:
            error.code = INTERRUPTED
        remove_room()
        close_logs()
        return error.code
    except BaseException:
        kill_all()
        remove_room()
        close_logs()
        raise
    _step("stopping (Ctrl-C again to stop at once)")
    status = stop_all(say=True)
    remove_room()
    close_logs()
    if status == INTERRUPTED:
        return status
    _step("stopped")
    return status
