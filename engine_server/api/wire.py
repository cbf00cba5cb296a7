"""WatchTable's messages encoded by hand from parts encoded once per change.

A seat's message of a change differs from every other seat's only in its own seat's down
cards, ``viewer_seat`` and its legal actions. Protobuf parses a message from its fields in
any order, and a nested message given twice as the two merged (repeated fields appended).
So the public snapshot is encoded once a change, as its fields but the seats and each seat
on its own, and each stream's message is those bytes joined with its own small part: it
parses to exactly the message :func:`engine_server.api.convert.add_own_part` makes, without
copying and encoding the whole snapshot once per seat.

>>> varint(1), varint(300)
(b'\\x01', b'\\xac\\x02')
>>> varint_field(4, 3), length_delimited(5, b"ab"), strings_field(13, ["Ah", "Kd"])
(b' \\x03', b'*\\x02ab', b'j\\x02Ahj\\x02Kd')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from stud.v1 import table_pb2, table_service_pb2

from engine_server.api.convert import legal_action_message, seat_message, snapshot_message
from engine_server.game.cards import format_cards
from engine_server.table.model import OwnPart, SeatInfo, TableView

__all__ = [
    "SnapshotParts",
    "length_delimited",
    "own_snapshot",
    "response_message",
    "snapshot_parts",
    "strings_field",
    "varint",
    "varint_field",
]

_SNAPSHOT = table_pb2.TableSnapshot.DESCRIPTOR.fields_by_name
_RESPONSE = table_service_pb2.WatchTableResponse.DESCRIPTOR.fields_by_name
SEATS = _SNAPSHOT["seats"].number
VIEWER_SEAT = _SNAPSHOT["viewer_seat"].number
LEGAL_ACTIONS = _SNAPSHOT["legal_actions"].number
DOWN_CARDS = table_pb2.Seat.DESCRIPTOR.fields_by_name["down_cards"].number
SEQUENCE = _RESPONSE["sequence"].number
SNAPSHOT = _RESPONSE["snapshot"].number
ACTION_ID = _RESPONSE["action_id"].number


def varint(value: int) -> bytes:
    """``value`` (not negative) as a protobuf varint."""
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def varint_field(number: int, value: int) -> bytes:
    """Field ``number`` (1-15) holding ``value`` (not negative), encoded."""
    return bytes((number << 3,)) + varint(value)


def length_delimited(number: int, payload: bytes) -> bytes:
    """Field ``number`` (1-15) holding ``payload`` (a message, bytes or string), encoded."""
    return bytes((number << 3 | 2,)) + varint(len(payload)) + payload


def strings_field(number: int, values: Iterable[str]) -> bytes:
    """The repeated string field ``number`` (1-15) holding ``values``, encoded."""
    return b"".join(length_delimited(number, value.encode()) for value in values)


@dataclass(frozen=True, slots=True)
class SnapshotParts:
    """A public snapshot, encoded: every field but the seats, then each seat."""

    head: bytes
    #: per seat in order: its number, its field as encoded, its message encoded, its stack
    #: with its bet this street (for the legal actions' all-in flag, as add_own_part does)
    seats: tuple[tuple[int, bytes, bytes, int], ...]


def _seat_part(info: SeatInfo) -> tuple[int, bytes, bytes, int]:
    # Built anew, not the shared message: only its bytes are kept.
    payload = seat_message(info).SerializeToString()
    return info.number, length_delimited(SEATS, payload), payload, info.stack + info.bet


#: each table's seats as last encoded, by (table id, seat number), with the state encoded:
#: most seats are as they were between two changes, and only a seat's latest state is ever
#: asked for again (a cache of every recent state, node-wide, held states no table showed any
#: more). The cap only bounds the seats of tables gone from the node (oldest first).
_seat_parts: dict[tuple[str, int], tuple[SeatInfo, tuple[int, bytes, bytes, int]]] = {}
_SEAT_PARTS_KEPT = 16_384


def _seat_part_of(table_id: str, info: SeatInfo) -> tuple[int, bytes, bytes, int]:
    key = (table_id, info.number)
    entry = _seat_parts.get(key)
    if entry is not None and entry[0] == info:
        return entry[1]
    part = _seat_part(info)
    if entry is None and len(_seat_parts) >= _SEAT_PARTS_KEPT:
        del _seat_parts[next(iter(_seat_parts))]
    _seat_parts[key] = (info, part)
    return part


def snapshot_parts(view: TableView) -> SnapshotParts:
    """The public ``view``'s snapshot, encoded in parts (once per change)."""
    head = snapshot_message(view, seats=False).SerializeToString()
    table_id = view.config.table_id
    return SnapshotParts(head, tuple(_seat_part_of(table_id, info) for info in view.seats))


def own_snapshot(parts: SnapshotParts, own: OwnPart) -> bytes:
    """The encoded snapshot ``own.seat`` sees: the public parts with his own."""
    joined = [parts.head]
    stack_total = None
    for number, entry, payload, total in parts.seats:
        if number == own.seat:
            stack_total = total
            cards = strings_field(DOWN_CARDS, format_cards(own.down_cards))
            joined.append(length_delimited(SEATS, payload + cards))
        else:
            joined.append(entry)
    joined.append(varint_field(VIEWER_SEAT, own.seat))
    for action in own.legal_actions:
        message = legal_action_message(action, stack_total).SerializeToString()
        joined.append(length_delimited(LEGAL_ACTIONS, message))
    return b"".join(joined)


def response_message(sequence: int, events: bytes, snapshot: bytes, action_id: str = "") -> bytes:
    """A WatchTableResponse: its sequence, its events (``event`` and ``events`` encoded), the
    encoded snapshot and the action id of the act that caused the change."""
    message = b"".join(
        (varint_field(SEQUENCE, sequence), events, length_delimited(SNAPSHOT, snapshot))
    )
    return message + length_delimited(ACTION_ID, action_id.encode()) if action_id else message
