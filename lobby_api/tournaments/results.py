"""Players out, places and prizes: each hand's busts recorded once, each prize paid once.

:func:`record_busts` takes the players a hand left without chips (with their chips at the
hand's start) and, in one transaction with the tournament locked:

1. places them (:func:`~lobby_api.tournaments.places.place_busted`: the players left + 1
   downwards, more chips at the hand's start placing higher, equal chips tying);
2. pays what their places win (:func:`~lobby_api.tournaments.places.award` over the prizes
   of :func:`~lobby_api.tournaments.payouts.prizes` for the field), from the prize pool, once
   per entry (:func:`~lobby_api.tournaments.money.pay_prize`);
3. when one player is left, he wins: place 1, first prize, the tournament finished.

A hand's busts are recorded once: an entry already out is skipped, so a director that dies
after the transaction and reports the hand again changes nothing. The director reads each
hand's end from the engine's store (:func:`~lobby_api.engine_reads.hand_outcomes_since`:
every seat's chips at its start and end, the seat sessions closed BUSTED) and records it
with :func:`chips_and_busts` then :func:`record_busts_in`, in one transaction
(:meth:`~lobby_api.tournaments.director.Director.record_hands`).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.store.types import utc_now
from lobby_api.db import Database
from lobby_api.engine_reads import HandOutcome
from lobby_api.tournaments.common import locked_tournament
from lobby_api.tournaments.models import (
    EntryStatus,
    PrizeKind,
    TournamentEntryRow,
    TournamentRow,
    TournamentStatus,
)
from lobby_api.tournaments.money import pay_prize
from lobby_api.tournaments.payouts import parse_payout_table, payout_percentages, prizes
from lobby_api.tournaments.places import Bust, award, place_busted

__all__ = ["chips_and_busts", "places_paid", "record_busts", "record_busts_in"]


def places_paid(tournament: TournamentRow) -> int:
    """How many places the tournament pays (by its entrants)."""
    field = tournament.entrants or 0
    table = parse_payout_table(tournament.payout_table) if tournament.payout_table else None
    return len(payout_percentages(max(field, 2), table))


async def chips_and_busts(
    session: AsyncSession, tournament_id: str, outcomes: Sequence[HandOutcome]
) -> list[Bust]:
    """Record the chips every playing entry has after these hands' ends (in order), in the
    caller's transaction; the players they left without chips, with their chips at the start
    of the hand they lost them in (the engine's BUSTED sessions).

    A player whose move is pending (``move_from_session``) is matched by his old session too:
    he may play out a hand at the table he leaves. One who busts in it stays at that table
    (his move is void).
    """
    ids = {s.seat_session_id for o in outcomes for s in o.seats}
    ids |= {b.seat_session_id for o in outcomes for b in o.busted}
    if not ids:
        return []
    entries = (
        await session.exec(
            select(TournamentEntryRow).where(
                col(TournamentEntryRow.tournament_id) == tournament_id,
                col(TournamentEntryRow.status) == EntryStatus.PLAYING.value,
                sa.or_(
                    col(TournamentEntryRow.seat_session_id).in_(list(ids)),
                    col(TournamentEntryRow.move_from_session).in_(list(ids)),
                ),
            )
        )
    ).all()
    by_session: dict[str, TournamentEntryRow] = {}
    for entry in entries:
        by_session[entry.seat_session_id or ""] = entry
        if entry.move_from_session:
            by_session[entry.move_from_session] = entry
    busts: dict[str, Bust] = {}
    for outcome in outcomes:
        if outcome.is_cancelled:
            continue  # every stack went back to its start: nothing changed
        for seat in outcome.seats:
            found = by_session.get(seat.seat_session_id)
            if found is not None and seat.final_stack is not None:
                found.chips = seat.final_stack
                session.add(found)
        for gone in outcome.busted:
            found = by_session.get(gone.seat_session_id)
            if found is None:
                continue
            found.chips = 0
            if found.move_from_session == gone.seat_session_id:
                found.table_id = found.move_from_table
                found.seat_session_id = found.move_from_session
                found.move_from_table = found.move_from_session = None
            session.add(found)
            busts[found.id] = Bust(found.id, gone.start_stack)
    await session.flush()
    return list(busts.values())


async def record_busts(db: Database, tournament_id: str, busted: Sequence[Bust]) -> list[str]:
    """Record one hand's busts (``Bust.player_id`` is the *entry* id); the entry ids placed
    now (an entry already out is left as it is)."""
    async with db.write() as session:
        return await record_busts_in(session, tournament_id, busted)


async def record_busts_in(
    session: AsyncSession, tournament_id: str, busted: Sequence[Bust]
) -> list[str]:
    """:func:`record_busts` in the caller's transaction."""
    tournament = await locked_tournament(session, tournament_id)
    if tournament.status != TournamentStatus.RUNNING.value:
        # Over (or never started): a hand reported again after the end changes nothing.
        return []
    playing = {
        e.id: e
        for e in (
            await session.exec(
                select(TournamentEntryRow).where(
                    col(TournamentEntryRow.tournament_id) == tournament_id,
                    col(TournamentEntryRow.status) == EntryStatus.PLAYING.value,
                )
            )
        ).all()
    }
    out = [b for b in busted if b.player_id in playing]
    if not out:
        return []
    field = tournament.entrants or len(playing)
    table = parse_payout_table(tournament.payout_table) if tournament.payout_table else None
    by_place = prizes(tournament.buy_in * field, payout_percentages(field, table))
    placements = place_busted(len(playing), out)
    won = award([(p.player_id, p.places) for p in placements], by_place)
    now = utc_now()
    for placement in placements:
        entry = playing[placement.player_id]
        entry.status = EntryStatus.BUSTED.value
        entry.place = placement.place
        entry.chips = 0
        entry.busted_at = now
        await pay_prize(session, entry, won[entry.id], PrizeKind.PRIZE, placement.place, now)
        session.add(entry)
    left = [e for e in playing.values() if e.status == EntryStatus.PLAYING.value]
    if len(left) == 1:
        winner = left[0]
        winner.status = EntryStatus.FINISHED.value
        winner.place = 1
        winner.chips = tournament.starting_chips * field
        await pay_prize(session, winner, by_place[0], PrizeKind.PRIZE, 1, now)
        session.add(winner)
        tournament.status = TournamentStatus.FINISHED.value
        tournament.finished_at = now
        session.add(tournament)
    return [p.player_id for p in placements]
