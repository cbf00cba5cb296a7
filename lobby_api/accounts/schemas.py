"""Request and response bodies of the accounts endpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

__all__ = ["LoginRequest", "PasswordChangeRequest", "PlayerView", "RegisterRequest"]

Username = Annotated[
    str,
    msgspec.Meta(
        min_length=3,
        max_length=32,
        pattern=r"^[A-Za-z0-9_]+$",
        description="3-32 characters of [A-Za-z0-9_]; unique regardless of case",
        examples=["ann_01"],
    ),
]
Password = Annotated[
    str, msgspec.Meta(min_length=8, max_length=256, description="at least 8 characters")
]


class RegisterRequest(msgspec.Struct):
    username: Username
    password: Password
    city: Annotated[
        str,
        msgspec.Meta(
            min_length=1,
            max_length=32,
            pattern=r"^[a-z0-9][a-z0-9._-]*$",
            description="a city id (GET /cities)",
        ),
    ]


class LoginRequest(msgspec.Struct):
    username: Username
    password: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]


class PasswordChangeRequest(msgspec.Struct):
    current_password: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    #: the same rules as at registration
    new_password: Password


class PlayerView(msgspec.Struct):
    id: str
    username: str
    city: str
    created_at: datetime
