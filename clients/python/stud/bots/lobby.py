"""A small async client of the lobby's REST API: what a bot needs, nothing more.

Every refusal of the lobby is an RFC 9457 problem document; it is raised as
:class:`LobbyError` with its status and ``code``. Requests that move money carry an
``Idempotency-Key`` chosen per request the bot means; a retry after a network failure
reuses it, so it never moves money twice.

The lobby's access tokens are short-lived (15 minutes by default). The client renews its token
by itself: :meth:`LobbyClient.access_token` exchanges the refresh token for a new pair when
less than a fifth of the token's life is left (``POST /auth/refresh``; the refresh token
rotates), and a request refused 401 is renewed and sent once more. Renewals are one at a time
per account (several tables share one client, and a refresh token works once). When the
session has ended (logged out, revoked, expired) the client logs in again with the password.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from typing import Any

import httpx

__all__ = ["LobbyClient", "LobbyError"]

log = logging.getLogger("stud.bots.lobby")

#: How often a request is tried when the lobby cannot be reached (or answers 429/503).
ATTEMPTS = 5
#: The part of an access token's life left when it is renewed.
RENEW_AHEAD = 0.2


class LobbyError(Exception):
    """The lobby refused a request (a problem document), or could not be reached."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail


def _locked(response: httpx.Response) -> bool:
    """A log-in refused because of the account's failed log-ins (``too_many_failed_logins``),
    not the address's rate: it is not waited out here. Another try with the same password
    fails again if that password is wrong (and doubles the wait, up to a quarter of an hour
    per try, while nothing is said); the caller hears of it at once instead."""
    try:
        problem = response.json()
    except ValueError:
        return False
    return isinstance(problem, dict) and problem.get("code") == "too_many_failed_logins"


class LobbyClient:
    """One bot account's view of the lobby at ``base_url``."""

    def __init__(self, http: httpx.AsyncClient, base_url: str) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.token: str | None = None
        self.refresh_token: str | None = None
        self.player_id: str | None = None
        #: how many times the token was renewed by a refresh, and by logging in again
        self.refreshes = 0
        self.log_ins = 0
        self._credentials: tuple[str, str] | None = None
        #: when (time.monotonic()) the token is to be renewed
        self._renew_at = 0.0
        self._renewing = asyncio.Lock()

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
        sent_token = ""
        for attempt in range(1, ATTEMPTS + 1):
            if auth:
                sent_token = await self.access_token()
                headers["Authorization"] = f"Bearer {sent_token}"
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
                await self.renew(sent_token)  # expired (or revoked): renew and retry once
                continue
            if response.status_code in (429, 503) and attempt < ATTEMPTS and not _locked(response):
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
        """A new session (the password again)."""
        async with self._renewing:
            await self._log_in()

    async def access_token(self) -> str:
        """The access token, renewed first when little of its life is left."""
        token = self.token
        if token is None or time.monotonic() >= self._renew_at:
            await self.renew(token)
            token = self.token
        assert token is not None
        return token

    async def renew(self, stale: str | None = None) -> None:
        """A fresh access token in place of ``stale`` (the one a caller found expired, or
        about to): by the refresh token, else by logging in again. If another task renewed
        it meanwhile, that one is kept."""
        async with self._renewing:
            if self.token is not None and self.token != stale:
                return
            if self.refresh_token is not None:
                try:
                    answer = await self._request(
                        "POST", "/auth/refresh", {"refresh_token": self.refresh_token}, auth=False
                    )
                except LobbyError as error:
                    if error.status != 401:
                        raise
                    # The session ended (revoked, reused, expired): a new one.
                    log.info("the lobby session ended (%s): logging in again", error.code)
                    self.refresh_token = None
                else:
                    self._take(answer)
                    self.refreshes += 1
                    return
            await self._log_in()

    async def log_out(self) -> None:
        """End the session (its refresh token stops working); the client may log in again."""
        async with self._renewing:
            refresh, self.refresh_token, self.token = self.refresh_token, None, None
            if refresh is not None:
                with contextlib.suppress(LobbyError):
                    await self._request(
                        "POST", "/auth/logout", {"refresh_token": refresh}, auth=False
                    )

    async def _log_in(self) -> None:
        if self._credentials is None:
            raise LobbyError(401, "not_signed_in", "sign in first")
        username, password = self._credentials
        answer = await self._request(
            "POST", "/auth/login", {"username": username, "password": password}, auth=False
        )
        self._take(answer)
        self.log_ins += 1

    def _take(self, answer: dict[str, Any]) -> None:
        """Keep a log-in's or a refresh's pair of tokens."""
        self.token = str(answer["access_token"])
        # (A lobby from before sessions answers no refresh token: log in again then.)
        self.refresh_token = answer.get("refresh_token")
        self.player_id = answer["player_id"]
        lifetime = float(answer.get("expires_in") or 0)
        # Without a lifetime the token is renewed when refused.
        self._renew_at = (
            time.monotonic() + lifetime * (1 - RENEW_AHEAD) if lifetime > 0 else float("inf")
        )

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

    # -------------------------------------------------------------- tournaments

    async def tournaments(self, status: str | None = None) -> list[dict[str, Any]]:
        """``GET /tournaments`` (registering and running first)."""
        query = f"?status={status}" if status else ""
        return list(await self._request("GET", f"/tournaments{query}", auth=False))

    async def tournament(self, tournament_id: str) -> dict[str, Any]:
        """``GET /tournaments/{id}``: structure, standings, tables."""
        return dict(await self._request("GET", f"/tournaments/{tournament_id}", auth=False))

    async def enter_tournament(self, tournament_id: str) -> dict[str, Any]:
        """Register (buy-in and fee leave the wallet once: the request's Idempotency-Key)."""
        path = f"/tournaments/{tournament_id}/entries"
        return dict(await self._request("POST", path, key=_key()))

    async def my_entry(self, tournament_id: str) -> dict[str, Any]:
        """My entry: while playing, its table, seat and engine addresses."""
        return dict(await self._request("GET", f"/tournaments/{tournament_id}/entries/me"))

    async def withdraw_entry(self, tournament_id: str) -> dict[str, Any]:
        """Unregister before the start (buy-in and fee come back once)."""
        return dict(await self._request("DELETE", f"/tournaments/{tournament_id}/entries/me"))

    # ----------------------------------------------------------------- bot desk

    async def bot_desk(
        self,
        service_token: str,
        desk: str,
        cities: list[str],
        stake_levels: list[str],
        bots: int,
        bots_at: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Poll the bot desk (a service token, scope lobby): the lobby notes that bots serve
        these cities and levels, ``bots`` of them to a table (``bots_at``: where another
        number), and answers the tables there that asked for bots."""
        body: dict[str, Any] = {
            "desk": desk,
            "cities": cities,
            "stake_levels": stake_levels,
            "bots": bots,
        }
        if bots_at:
            body["bots_at"] = bots_at
        return dict(await self._request("POST", "/bots/desk", body, service_token=service_token))

    # ------------------------------------------------------------- at the table

    async def top_up(self, table_id: str, amount: int) -> dict[str, Any]:
        body = {"amount": amount}
        return dict(await self._request("POST", f"/tables/{table_id}/topup", body, key=_key()))

    async def leave(self, table_id: str) -> dict[str, Any]:
        return dict(await self._request("POST", f"/tables/{table_id}/leave"))


def _key() -> str:
    return str(uuid.uuid4())
