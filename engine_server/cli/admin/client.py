"""``stud admin``'s calls: the token (given, or minted from the engine's secret) and a client
that turns a refusal into one line.
"""

from __future__ import annotations

import getpass
import os
from typing import Any

from engine_server.cli import CliError

__all__ = [
    "COMMAND_TOKEN_SECONDS",
    "DEFAULT_ENGINE",
    "DEFAULT_TIMEOUT",
    "AdminClient",
    "command_token",
    "secret",
    "table_name",
]

DEFAULT_ENGINE = "127.0.0.1:50051"
#: how long a token minted for one command lives
COMMAND_TOKEN_SECONDS = 300
#: the deadline of every call but Drain's (which waits for the running hands)
DEFAULT_TIMEOUT = 30.0


def table_name(raw: str) -> str:
    return raw if raw.startswith("tables/") else f"tables/{raw}"


def secret(env: os._Environ[str] | dict[str, str]) -> str:
    from engine_server.settings import SECRET_FILE, SettingsError, jwt_secret

    # jwt_secret() would make a new secret when none exists: one no engine knows.
    if not env.get("STUD_JWT_SECRET") and not SECRET_FILE.exists():
        raise CliError(
            f"no secret to sign with: set STUD_JWT_SECRET or run where the engine keeps "
            f"{SECRET_FILE} (or pass --token)",
            code=1,
        )
    try:
        return jwt_secret(env)
    except SettingsError as error:
        raise CliError(str(error), code=1) from None


def command_token(env: os._Environ[str] | dict[str, str]) -> str:
    from engine_server.auth import Scope, mint_token

    try:
        user = getpass.getuser()
    except (OSError, KeyError):
        user = "unknown"
    return mint_token(secret(env), f"ops:{user}", [Scope.ADMIN], ttl_seconds=COMMAND_TOKEN_SECONDS)


class AdminClient:
    """Calls AdminService with the token and deadline; a refusal becomes a :class:`CliError`."""

    def __init__(
        self, stub: Any, token: str, timeout: float | None, address: str, note: str = ""
    ) -> None:
        self.stub = stub
        self.metadata = (("authorization", f"Bearer {token}"),)
        self.timeout = timeout
        self.address = address
        #: said after "cannot reach the engine at ADDRESS" (why that address: room.gone_note)
        self.note = note

    def __call__(self, method: str, request: Any) -> Any:
        import grpc

        try:
            return getattr(self.stub, method)(request, metadata=self.metadata, timeout=self.timeout)
        except grpc.RpcError as error:
            raise self._failure(method, error) from None

    def _failure(self, method: str, error: Any) -> CliError:
        import grpc
        from google.rpc import error_details_pb2
        from grpc_status import rpc_status

        message = " ".join(str(error.details() or "").split())
        try:
            status = rpc_status.from_call(error)
        except ValueError:
            status = None
        for detail in status.details if status is not None else ():
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                return CliError(f"{info.reason}: {message}", code=1)
        code = error.code()
        if code == grpc.StatusCode.UNAVAILABLE:
            return CliError(
                f"cannot reach the engine at {self.address}{self.note}: {message}", code=1
            )
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            hint = " (the drain goes on: run it again to keep waiting)" if method == "Drain" else ""
            return CliError(f"DEADLINE_EXCEEDED: no answer within {self.timeout:g} s{hint}", code=1)
        return CliError(f"{code.name}: {message}", code=1)
