"""Events on the WatchTable stream carry what events.proto promises."""

from __future__ import annotations

from stud.v1 import table_pb2, table_service_pb2

from tests.engine_server.api.conftest import Engine
from tests.engine_server.api.players import event_of, has_event


async def test_player_joined_carries_the_seat_as_the_viewer_sees_it(engine: Engine) -> None:
    await engine.create_table("t1")
    await engine.seat("t1", "ann", buy_in=100, seat=2)
    stream = engine.tables.WatchTable(
        table_service_pb2.WatchTableRequest(table="tables/t1"), metadata=engine.player_md("ann")
    )
    try:
        first = await stream.read()
        assert not first.events and not first.HasField("event")
        await engine.seat("t1", "bob", buy_in=150, seat=5)
        while True:
            message = await stream.read()
            if has_event(message, "player_joined"):
                break
        joined = event_of(message, "player_joined").player_joined.seat
        assert (joined.number, joined.player_id, joined.display_name) == (5, "bob", "BOB")
        assert joined.stack == 150 and joined.status == table_pb2.SEAT_STATUS_SEATED
        # The same seat as the snapshot of that update shows it (no session id for players).
        (bob,) = [s for s in message.snapshot.seats if s.number == 5]
        assert joined == bob and not joined.seat_session_id
    finally:
        stream.cancel()
