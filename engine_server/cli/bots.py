"""``stud bots``: bot players that sit in at quick games through the lobby and play.

    stud bots --lobby http://127.0.0.1:8000 [--cities oslo,stockholm] [--per-city 3]
              [--stake house-2-4] [--tables-per-bot 2] [--think 0.8]
              [--hands N] [--once] [--duration SECONDS] [--on-request all|none|CITIES]
              [--reconnect-seconds SECONDS] [--tournaments [all|with-humans]] [--prefix bot]

Each bot is a lobby account (``bot_oslo_1``, …: registered on first use, logged in after)
that keeps a matchmaking ticket open, so a player of its city who opens a quick game gets
the bots of his city as opponents; see :mod:`stud.bots.runner` for how they sit, play and
leave. The accounts are named by ``--prefix`` (``bot``), city and number: a second ``stud
bots`` in the same cities plays the same accounts unless it is given another prefix
(``--prefix extra``: ``extra_oslo_1``, …). One JSON line per thing that happens goes to
stdout (``{"event": "seated", ...}``).
The lobby is ``--lobby``, else ``$STUD_BOTS_LOBBY``, else the lobby of the ``stud run``
running from this directory (``var/room.json``). SIGTERM or SIGINT stops them cleanly:
waiting tickets are withdrawn, seated bots leave their tables (mid-hand they play the hand
out first).

``--on-request CITIES`` (``all``: every city; default: none) also answers players who sit
alone at a quick table of those cities and ask for bots: the bots keep a bot desk at
the lobby (``POST /bots/desk``, a service token minted from the token secret, so it needs
``STUD_JWT_SECRET`` or ``var/jwt-secret``) and send bots of the table's city there, up to
``--per-city`` to a table: the desk tells the lobby so, and the lobby lets a player ask for
no more (``stud run``'s 3: a table of 4 players at most). They are accounts of their own
(``bot_berlin_r1``, …), never the ticket bots (``bot_berlin_1``, …), which may already sit at
the table that asks.

``--tournaments`` also registers the bots for the open tournaments of their cities (those
open to all, and those of a bot's city) and plays them to the bust, following every move to
another table; ``--tournaments with-humans`` registers them only in a tournament a human
registered for, filling the seats left (what ``stud run``'s demo bots do). Entries still
waiting for the start when the bots stop are withdrawn (buy-in and fee come back).

Bot passwords: ``STUD_BOTS_PASSWORD``, else derived from the token secret
(``STUD_JWT_SECRET`` or ``var/jwt-secret``) and the username, so the same bots log in again
after a restart and nobody without the secret can. Run with another secret than the one the
accounts were registered with (the lobby's, under ``stud run``), every existing bot's log-in
is refused (``wrong_credentials``) and counts as a failed log-in of that account: after a
few, its log-ins must wait (``too_many_failed_logins``), the real bots' too. The first such
refusal is logged with its likely cause, in one line on stderr (:func:`password_hint`).

The bot code lives in the Python client package (``clients/python/stud/bots``), imported
only when the command runs: the engine never depends on it.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from engine_server.cli import CliError

__all__ = ["PASSWORD_REFUSED", "bot_password", "configure", "desk_token", "password_hint", "run"]

log = logging.getLogger("stud.bots")

#: The lobby's codes for a log-in refused because of the password: it is not the account's
#: (``wrong_credentials``), or earlier refusals made the account's log-ins wait.
PASSWORD_REFUSED = frozenset({"wrong_credentials", "too_many_failed_logins"})

#: A name prefix leaves room in the lobby's 32 characters for the city and the number: a
#: longer one would cut the city off, and every city's bots would share one name.
_PREFIX = re.compile(r"^[A-Za-z0-9_]{1,16}$")


def _names(text: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in text.split(",") if part.strip())
    if not names:
        raise argparse.ArgumentTypeError("expected a comma-separated list")
    return names


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def _prefix(text: str) -> str:
    if not _PREFIX.match(text):
        raise argparse.ArgumentTypeError("expected 1 to 16 characters of [A-Za-z0-9_]")
    return text


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lobby",
        default=os.environ.get("STUD_BOTS_LOBBY"),
        help="the lobby's base URL, e.g. http://127.0.0.1:8000 (STUD_BOTS_LOBBY; else the "
        "lobby of the stud run running from this directory)",
    )
    parser.add_argument(
        "--cities", type=_names, default=("oslo", "stockholm"), help="cities (oslo,stockholm)"
    )
    parser.add_argument(
        "--per-city",
        type=_positive_int,
        default=3,
        help="bots per city (3); with --on-request also the most bots sent to one table",
    )
    parser.add_argument(
        "--stake",
        type=_names,
        default=("house-2-4",),
        help="stake level(s) the bots answer quick games at, comma-separated (house-2-4)",
    )
    parser.add_argument(
        "--tables-per-bot",
        type=_positive_int,
        default=2,
        help="tables one bot plays at once per stake level (2)",
    )
    parser.add_argument("--buy-in", type=_positive_int, help="chips per seat (25 big bets)")
    parser.add_argument(
        "--think", type=_seconds, default=0.8, help="seconds a bot thinks before acting (0.8)"
    )
    parser.add_argument("--hands", type=_positive_int, help="leave a table after N hands")
    parser.add_argument(
        "--once", action="store_true", help="each seat plays one table, then the bots exit"
    )
    parser.add_argument("--duration", type=_seconds, help="stop after this many seconds")
    parser.add_argument(
        "--idle-hands",
        type=_positive_int,
        default=3,
        help="leave after this many hands with no human connected (3)",
    )
    parser.add_argument(
        "--reconnect-seconds",
        type=_seconds,
        default=120.0,
        help="how long a bot keeps watching its table again after its stream failed (an "
        "engine restart), before it gives the seat up (120)",
    )
    parser.add_argument("--seed", type=int, help="seed of the bots' random choices")
    parser.add_argument(
        "--on-request",
        type=_names,
        help="cities whose players may ask for bots at a table nobody joins: comma-separated, "
        "or all (default: none); up to --per-city bots come to a table, accounts of their own",
    )
    parser.add_argument(
        "--tournaments",
        nargs="?",
        const="all",
        choices=("all", "with-humans"),
        help="also register for the open tournaments of the bots' cities and play them: in "
        "every one (all, the default), or once a human registered (with-humans)",
    )
    parser.add_argument(
        "--prefix",
        type=_prefix,
        default="bot",
        help="the start of the bots' account names (bot: bot_oslo_1, ...); another prefix "
        "plays other accounts, e.g. a second stud bots in the same cities (1-16 characters "
        "of A-Z a-z 0-9 _)",
    )


def bot_password(env: Mapping[str, str]) -> Callable[[str], str]:
    """The bots' password for a username: ``STUD_BOTS_PASSWORD``, else an HMAC of the
    username under the token secret.

    >>> bot_password({"STUD_JWT_SECRET": "s" * 32})("bot_oslo_1")[:12]
    '38973c05e7ab'
    """
    fixed = env.get("STUD_BOTS_PASSWORD")
    if fixed:
        return lambda _username: fixed
    secret = env.get("STUD_JWT_SECRET")
    if not secret:
        from engine_server.settings import SECRET_FILE

        if not SECRET_FILE.exists():
            raise CliError("set STUD_BOTS_PASSWORD (or STUD_JWT_SECRET, the secret the lobby uses)")
        secret = SECRET_FILE.read_text().strip()
    key = secret.encode()
    return lambda username: hmac.new(
        key, f"stud-bots:{username}".encode(), hashlib.sha256
    ).hexdigest()[:32]


def password_hint(env: Mapping[str, str], bot: object, code: str) -> str:
    """The likely cause, in one line, of the lobby refusing ``bot``'s log-in with ``code`` (one
    of :data:`PASSWORD_REFUSED`): the bots' password is not the one the account has, because it
    comes from another source than the one it was registered with.

    >>> password_hint({"STUD_JWT_SECRET": "s" * 32}, "bot_oslo_1", "wrong_credentials")[:73]
    'bot_oslo_1 exists with another password: bot passwords are derived from t'
    """
    refused = (
        "exists with another password"
        if code == "wrong_credentials"
        else "may not log in for a while after failed log-ins"
    )
    if env.get("STUD_BOTS_PASSWORD"):
        cause = "STUD_BOTS_PASSWORD is most likely not the password the bots were registered with"
        remedy = "give theirs"
    else:
        source = "STUD_JWT_SECRET" if env.get("STUD_JWT_SECRET") else "var/jwt-secret here"
        cause = (
            f"bot passwords are derived from the token secret, and {source} is most likely "
            "not the lobby's (the one they were registered with)"
        )
        remedy = "run with the lobby's"
    return f"{bot} {refused}: {cause}; {remedy}, or --prefix NAME for bots of your own"


def _hinting(emit: Callable[..., None], env: Mapping[str, str]) -> Callable[..., None]:
    """``emit``, and the first time a bot's log-in is refused for its password, the likely
    cause (:func:`password_hint`) as one log line: the events only say it was refused."""
    hinted = False

    def hinting(event: str, **fields: Any) -> None:
        nonlocal hinted
        emit(event, **fields)
        if event == "error" and fields.get("code") in PASSWORD_REFUSED and not hinted:
            hinted = True
            log.warning("%s", password_hint(env, fields.get("bot"), fields["code"]))

    return hinting


def _secret(env: Mapping[str, str]) -> str | None:
    """The token secret the lobby shares: ``STUD_JWT_SECRET``, else ``var/jwt-secret``."""
    secret = env.get("STUD_JWT_SECRET")
    if secret:
        return secret
    from engine_server.settings import SECRET_FILE

    return SECRET_FILE.read_text().strip() if SECRET_FILE.exists() else None


def desk_token(env: Mapping[str, str]) -> Callable[[], str] | None:
    """Mints the bot desk's service token (scope lobby, five minutes), or None without the
    token secret."""
    from engine_server.auth import Scope, mint_token

    secret = _secret(env)
    if secret is None:
        return None
    return lambda: mint_token(secret, "stud-bots", [Scope.LOBBY], ttl_seconds=300, name="bots")


def _emitter(on_closed: Callable[[], None]) -> Callable[..., None]:
    """What prints the bots' events, one JSON line each on stdout. When stdout's reader goes
    away (``stud bots | head``), ``on_closed()`` runs once: the bots stop as on SIGTERM, and
    what they would still print goes to /dev/null."""
    closed = False

    def emit(event: str, **fields: Any) -> None:
        nonlocal closed
        if closed:
            return
        line = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"), "event": event}
        line.update(fields)
        try:
            print(json.dumps(line), flush=True)
        except BrokenPipeError:
            closed = True
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            on_closed()

    return emit


def run(args: argparse.Namespace) -> int:
    import asyncio
    import signal

    from stud.bots import BotsConfig, LobbyError, run_bots

    from engine_server.cli.room import gone_note, room_address

    args.lobby = args.lobby or room_address("lobby")
    if not args.lobby:
        raise CliError(
            "--lobby URL is required (or STUD_BOTS_LOBBY, or a stud run running from here)"
            + gone_note("lobby")
        )
    on_request: tuple[str, ...] = args.on_request or ()
    if on_request == ("none",):
        on_request = ()
    elif on_request == ("all",):
        on_request = ("*",)
    elif "all" in on_request or "none" in on_request:
        raise CliError("--on-request: all, none, or a list of cities")
    token = desk_token(os.environ) if on_request else None
    if on_request and token is None:
        raise CliError(
            "--on-request needs the token secret (STUD_JWT_SECRET or var/jwt-secret) for the "
            "bot desk's service token"
        )
    config = BotsConfig(
        lobby=args.lobby,
        password=bot_password(os.environ),
        cities=args.cities,
        per_city=args.per_city,
        stakes=args.stake,
        tables_per_bot=args.tables_per_bot,
        buy_in=args.buy_in,
        think=args.think,
        hands=args.hands,
        once=args.once,
        idle_hands=args.idle_hands,
        reconnect_seconds=args.reconnect_seconds,
        seed=args.seed,
        prefix=args.prefix,
        on_request=on_request,
        desk_token=token,
        tournaments=args.tournaments.replace("-", "_") if args.tournaments else None,
    )
    from engine_server.logs import configure_logging

    # stderr: the bots' log (JSON unless STUD_LOG_FORMAT=text, as the engine's and the
    # lobby's); stdout: one JSON line per event.
    log_format = os.environ.get("STUD_LOG_FORMAT", "json")
    configure_logging(
        os.environ.get("STUD_LOG_LEVEL", "WARNING").upper(),
        log_format if log_format in ("json", "text") else "json",
    )

    async def main() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        if args.duration is not None:
            loop.call_later(args.duration, stop.set)
        return await run_bots(config, stop, _hinting(_emitter(stop.set), os.environ))

    try:
        return asyncio.run(main())
    except LobbyError as error:
        raise CliError(f"the lobby at {args.lobby}: {error}", code=1) from None
