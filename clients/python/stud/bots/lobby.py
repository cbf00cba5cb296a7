"""A small async client of the lobby's REST API: what a bot needs, nothing more.

Every refusal of the lobby is an RFC 9457 problem document; it is raised as
:class:`LobbyError` with its status and ``code``. Requests that move money carry an
``Idempotency-Key`` chosen per request the bot means; a retry after a network failure
reuses it, so it never moves money twice.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

import httpx

__all__ = ["LobbyClient", "LobbyError"]

log = logging.getLogger("stud.bots.lobby")

#: How often a request is tried when the lobby cannot be reached (or answers 429/503).
ATTEMPTS = 5


class LobbyError(Exception):
    """The lobby refused a request (a problem document), or could not be reached."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail


class LobbyClient:
    """One bot account's view of the lobby at ``base_url``."""

    def __init__(self, http: httpx.AsyncClient, base_url: str) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.token: str | None = None
        self.player_id: str | None = None
        self._credentials: tuple[str, str] | None = None

    async def _request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        auth: bool = True,
        key: str | None = None,
        service_token: str | None = None,
    ) -> Any:
        headers: dict[str, str] = {}
        if key is not None:
            headers["Idempotency-Key"] = key
        if service_token is not None:
            headers["Authorization"] = f"Bearer {service_token}"
            auth = False
        delay = 0.5
        for attempt in range(1, ATTEMPTS + 1):
            if auth:
                if self.token is None:
                    await self.log_in_again()
                headers["Authorization"] = f"Bearer {self.token}"
            try:
                response = await self.http.request(
                    method, self.base_url + path, json=body, headers=headers
                )
            except httpx.TransportError as error:
                if attempt == ATTEMPTS:
                    raise LobbyError(0, "unreachable", f"{method} {path}: {error}") from None
                await asyncio.sleep(delay)
                delay *= 2
                continue
            if response.status_code == 401 and auth and self._credentials and attempt == 1:
                self.token = None  # expired: log in again and retry once
                continue
            if response.status_code in (429, 503) and attempt < ATTEMPTS:
                retry_after = response.headers.get("retry-after", "")
                await asyncio.sleep(float(retry_after) if retry_after.isdigit() else delay)
                delay *= 2
                continue
            if response.status_code >= 400:
                try:
                    problem = response.json()
                except ValueError:
                    problem = {}
                raise LobbyError(
                    response.status_code,
                    str(problem.get("code") or problem.get("title") or "error"),
                    str(problem.get("detail") or response.text[:200]),
                )
            return response.json() if response.content else None
        raise AssertionError("unreachable")  # pragma: no cover

    # ----------------------------------------------------------------- accounts

    async def sign_in(self, username: str, password: str, city: str) -> None:
        """Register the account (first time) and log in."""
        self._credentials = (username, password)
        try:
            await self._request(
                "POST",
                "/accounts",
                {"username": username, "password": password, "city": city},
                auth=False,
            )
        except LobbyError as error:
            if error.code != "username_taken":
                raise
        await self.log_in_again()

    async def log_in_again(self) -> None:
        if self._credentials is None:
            raise LobbyError(401, "not_signed_in", "sign in first")
        username, password = self._credentials
        answer = await self._request(
            "POST", "/auth/login", {"username": username, "password": password}, auth=False
        )
        self.token = answer["access_token"]
        self.player_id = answer["player_id"]

    async def stakes(self) -> list[dict[str, Any]]:
        return list(await self._request("GET", "/stakes", auth=False))

    async def wallet(self) -> dict[str, Any]:
        return dict(await self._request("GET", "/wallet"))

    # ------------------------------------------------------------------ tickets

    async def open_ticket(
        self, stake_level: str, buy_in: int, table_id: str | None = None
    ) -> dict[str, Any]:
        """A matchmaking ticket; with ``table_id``, for that table only (a table that asked
        for bots)."""
        body: dict[str, Any] = {"stake_level": stake_level, "buy_in": buy_in}
        if table_id is not None:
            body["table_id"] = table_id
        return dict(await self._request("POST", "/tickets", body, key=_key()))

    async def ticket(self, ticket_id: str) -> dict[str, Any]:
        return dict(await self._request("GET", f"/tickets/{ticket_id}"))

    async def cancel_ticket(self, ticket_id: str) -> dict[str, Any]:
        return dict(await self._request("DELETE", f"/tickets/{ticket_id}"))

    # ----------------------------------------------------------------- bot desk

    async def bot_desk(
        self, service_token: str, desk: str, cities: list[str], stake_levels: list[str]
    ) -> dict[str, Any]:
        """Poll the bot desk (a service token, scope lobby): the lobby notes that bots serve
        these cities and levels, and answers the tables there that asked for bots."""
        body = {"desk": desk, "cities": cities, "stake_levels": stake_levels}
        return dict(await self._request("POST", "/bots/desk", body, service_token=service_token))

    # ------------------------------------------------------------- at the table

    async def top_up(self, table_id: str, amount: int) -> dict[str, Any]:
        body = {"amount": amount}
        return dict(await self._request("POST", f"/tables/{table_id}/topup", body, key=_key()))

    async def leave(self, table_id: str) -> dict[str, Any]:
        return dict(await self._request("POST", f"/tables/{table_id}/leave"))


def _key() -> str:
    return str(uuid.uuid4())
