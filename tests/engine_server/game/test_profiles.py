"""Profiles as data: every profile's settings survive a round trip through their JSON."""

from __future__ import annotations

import pytest

from engine_server.game.profiles import PROFILES, apply_overrides


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_settings_round_trip_through_json_overrides(name: str) -> None:
    settings = PROFILES[name]
    as_json = settings.to_json()
    assert as_json.pop("profile") == name
    assert apply_overrides(PROFILES["house"], as_json) == PROFILES["house"].__class__(
        **{**{f: getattr(settings, f) for f in settings.__dataclass_fields__}, "name": "house"}
    )
