"""The lobby's GET /metrics: Prometheus text, requests by route, its own counters moving."""

from __future__ import annotations

import uuid

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.engine_server.api.conftest import Engine
from tests.lobby_api.support import register

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(client: httpx.AsyncClient) -> Samples:
    answer = await client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    key = (name, frozenset(labels.items()))
    return after.get(key, 0.0) - before.get(key, 0.0)


def route(method: str, path: str, status: int) -> dict[str, str]:
    return {"method": method, "path": path, "status_code": str(status), "app_name": "stud-lobby"}


async def test_metrics_count_requests_by_route_and_what_they_did(
    client: httpx.AsyncClient, engine: Engine, city: str
) -> None:
    before = await scrape(client)
    player = await register(client, city)  # POST /accounts, POST /auth/login
    body = {"stake_level": "t-fast", "buy_in": 100, "client_seed": "metrics_1"}
    key = uuid.uuid4().hex
    opened = await player.post("/quickgame", body, idempotency=key)
    assert opened.status_code == 201, opened.text
    replayed = await player.post("/quickgame", body, idempotency=key)
    assert replayed.headers.get("idempotent-replayed") == "true"
    table_id = opened.json()["table_id"]
    left = await player.post(f"/tables/{table_id}/leave", idempotency=None)
    assert left.status_code == 200, left.text
    missing = await client.get("/me")
    assert missing.status_code == 401
    after = await scrape(client)

    requests = "stud_lobby_requests_total"
    assert moved(before, after, requests, **route("POST", "/accounts", 201)) == 1
    assert moved(before, after, requests, **route("POST", "/auth/login", 200)) == 1
    assert moved(before, after, requests, **route("POST", "/quickgame", 201)) == 2
    assert moved(before, after, requests, **route("GET", "/me", 401)) == 1
    # By route template: one series for every table, never one per table id.
    paths = {dict(labels)["path"] for name, labels in after if name == requests}
    assert "/tables/{table_id}/leave" in paths, paths
    assert not any(table_id in p for p in paths), paths
    # Scrapes are not counted as traffic.
    assert "/metrics" not in paths
    timed = "stud_lobby_request_duration_seconds_count"
    assert moved(before, after, timed, **route("POST", "/accounts", 201)) == 1
    # The lobby's own counters: a replayed quick game opened nothing new.
    assert moved(before, after, "stud_lobby_registrations_total") == 1
    assert moved(before, after, "stud_lobby_logins_total") == 1
    assert moved(before, after, "stud_lobby_quick_games_total") == 1
    assert moved(before, after, "stud_lobby_tickets_total") == 0


async def test_metrics_are_not_in_the_api_schema(client: httpx.AsyncClient) -> None:
    schema = (await client.get("/schema/openapi.json")).json()
    assert "/metrics" not in schema["paths"]
    assert "/accounts" in schema["paths"]
