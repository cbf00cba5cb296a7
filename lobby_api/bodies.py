"""Request bodies read as strictly as the OpenAPI schema describes them, on every route.

Litestar decodes a JSON body to plain values and then converts them to the handler's
``data`` type in lax mode, as it must for query and path parameters (which arrive as
text): a body's ``"buy_in": "100"`` or ``"4e2"`` would pass as the integer the schema
demands. :class:`StrictRequest` (the app's request class) first decodes the body as the
handler's ``data`` type in strict mode (types exactly as the schema says; a JSON integer
for an integer), so that a value the schema refuses is a 400 problem naming the field.

It also turns JSON nested too deeply to decode (``[[[[…`` a thousand levels, which make the
decoder raise ``RecursionError``) into a 400 ``malformed_body`` problem, with no traceback
in the log.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from litestar import Request
from litestar.exceptions import ClientException, ValidationException
from litestar.types import Empty

__all__ = ["StrictRequest"]

_PATH = re.compile(r" - at `\$\.?(.*)`$")


def _field_error(error: msgspec.ValidationError) -> dict[str, str]:
    """The error as Litestar reports a body field's: its message and the field's path."""
    text = str(error)
    message, _, _ = text.partition(" - ")
    match = _PATH.search(text)
    key = match.group(1) if match and match.group(1) else "body"
    return {"message": message, "key": key, "source": "body"}


class StrictRequest(Request[Any, Any, Any]):
    """A request whose JSON body must match the handler's ``data`` type strictly."""

    async def json(self) -> Any:
        if self._json is not Empty or self._connection_state.json is not Empty:
            return await super().json()  # decoded (and checked) already
        try:
            # Not JSON at all: Litestar's own refusal (400 malformed_body).
            value = await super().json()
            await self._check_strictly()
        except RecursionError:
            raise ClientException("the JSON body is nested too deeply") from None
        return value

    async def _check_strictly(self) -> None:
        field = self.route_handler.parsed_data_field
        if field is None:
            return
        body = await self.body()
        if not body:
            return
        try:
            msgspec.json.decode(body, type=field.annotation, strict=True)
        except msgspec.ValidationError as error:
            raise ValidationException(
                detail=f"Validation failed for {self.method} {self.url.path}",
                extra=[_field_error(error)],
            ) from None
