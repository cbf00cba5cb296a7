"""The tournament services behind the REST API: the lobby's listing and a tournament's page,
a player's entry (register, unregister, where do I play), and what ops do (create, cancel).

Registration moves money (``Idempotency-Key``, :mod:`lobby_api.idempotency`): the entry's
row, its key and the ledger transaction (buy-in to the prize pool, fee to the house) are
written in one transaction with the tournament's row locked, so concurrent registrations
for the last seat queue and exactly ``max_players`` succeed. The registration that fills a
sit & go starts it in the same transaction (the field closes, the template's next sit & go
opens); the director then seats it. Unregistering refunds once (ledger key
``trefund:{entry_id}``) and only while the tournament has not started: the start and the
unregistration lock the same row, so one of them comes first and the other sees it.

Cancelling (ops): before the start every entry is refunded, buy-in and fee; after it, the
tables are closed on the engines and the prize pool left is shared by the players still in
in proportion to their chips at the end of the last completed hand
(:func:`~lobby_api.tournaments.payouts.share_by_chips`: rounded down, the units left one each
to the biggest stacks rounded down): the fees are not refunded, and prizes already won stay won.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

import msgspec
import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.ids import new_id
from engine_server.store.types import utc_now
from lobby_api import engine_reads
from lobby_api.accounts.models import PlayerRow
from lobby_api.auth import issue_token
from lobby_api.catalog.models import CityRow
from lobby_api.db import Database
from lobby_api.engine_client import EngineError
from lobby_api.engine_nodes import TableEngines
from lobby_api.idempotency import Answer, run_idempotent
from lobby_api.problems import DomainError
from lobby_api.settings import LobbySettings
from lobby_api.tournaments.common import (
    active_entries,
    locked,
    locked_tournament,
    new_tournament_values,
    open_from_template,
    start_field,
    unknown_tournament,
)
from lobby_api.tournaments.engine_calls import TournamentEngine
from lobby_api.tournaments.models import (
    EntryStatus,
    PrizeKind,
    TableStatus,
    TournamentEntryRow,
    TournamentKind,
    TournamentRow,
    TournamentStatus,
    TournamentTableRow,
    TournamentTemplateRow,
)
from lobby_api.tournaments.money import pay_entry, pay_prize, prize_pool_account, refund_entry
from lobby_api.tournaments.payouts import (
    parse_payout_table,
    payout_percentages,
    prizes,
    share_by_chips,
)
from lobby_api.tournaments.schemas import (
    LevelView,
    NewTournament,
    PayoutView,
    StandingView,
    TournamentDetail,
    TournamentEntryView,
    TournamentSummary,
    TournamentTableView,
)
from lobby_api.tournaments.structure import StructureError, parse_structure
from lobby_api.tournaments.table_reads import tables_of
from lobby_api.wallet.models import LedgerAccountRow

__all__ = [
    "Registrations",
    "TournamentAdmin",
    "TournamentPages",
    "cancel_tournament",
    "payout_list",
    "prize_pool",
]

log = logging.getLogger("stud.lobby.tournaments")

#: The most tournaments one listing returns.
LIST_LIMIT = 200


def prize_pool(tournament: TournamentRow, entries: int) -> int:
    """The buy-ins of the field (fixed when it closes; growing with late registrations)."""
    field = tournament.entrants if tournament.entrants is not None else entries
    return tournament.buy_in * field


def payout_list(tournament: TournamentRow, entries: int) -> list[PayoutView]:
    """Prizes by place for the field so far (paid places only)."""
    field = tournament.entrants if tournament.entrants is not None else entries
    if field < 1:
        return []
    table = parse_payout_table(tournament.payout_table) if tournament.payout_table else None
    amounts = prizes(prize_pool(tournament, entries), payout_percentages(field, table))
    return [PayoutView(place=i + 1, amount=a) for i, a in enumerate(amounts)]


def _summary(tournament: TournamentRow, entries: int) -> TournamentSummary:
    return TournamentSummary(
        id=tournament.id,
        name=tournament.name,
        kind=tournament.kind,  # type: ignore[arg-type]
        status=tournament.status,  # type: ignore[arg-type]
        profile=tournament.profile,
        buy_in=tournament.buy_in,
        fee=tournament.fee,
        starting_chips=tournament.starting_chips,
        min_players=tournament.min_players,
        max_players=tournament.max_players,
        entries=entries,
        city=tournament.city,
        starts_at=tournament.starts_at,
        prize_pool=prize_pool(tournament, entries),
        template=tournament.template,
    )


def _entry_view(entry: TournamentEntryRow) -> TournamentEntryView:
    return TournamentEntryView(
        tournament_id=entry.tournament_id,
        entry_id=entry.id,
        status=entry.status,  # type: ignore[arg-type]
        buy_in=entry.buy_in,
        fee=entry.fee,
        registered_at=entry.registered_at,
        table_id=entry.table_id,
        seat=entry.seat,
        seat_session_id=entry.seat_session_id,
        chips=entry.chips,
        place=entry.place,
        prize=entry.prize,
    )


async def _entries(session: AsyncSession, tournament_id: str) -> list[TournamentEntryRow]:
    query = select(TournamentEntryRow).where(
        col(TournamentEntryRow.tournament_id) == tournament_id,
        col(TournamentEntryRow.active_player).is_not(None),
    )
    return list((await session.exec(query)).all())


class TournamentPages:
    """``GET /tournaments`` and ``GET /tournaments/{id}``: reads only."""

    def __init__(self, db: Database, engines: TableEngines) -> None:
        self.db = db
        self.engines = engines

    async def list(
        self, status: str | None, city: str | None, kind: str | None
    ) -> list[TournamentSummary]:
        """Tournaments by the filters, registering and running first, then the newest."""
        query = select(TournamentRow)
        if status is not None:
            query = query.where(col(TournamentRow.status) == status)
        if city is not None:
            query = query.where(col(TournamentRow.city) == city)
        if kind is not None:
            query = query.where(col(TournamentRow.kind) == kind)
        ongoing = sa.case((col(TournamentRow.status).in_(["registering", "running"]), 0), else_=1)
        query = query.order_by(ongoing, col(TournamentRow.created_at).desc()).limit(LIST_LIMIT)
        async with self.db.read() as session:
            rows = list((await session.exec(query)).all())
            counts: dict[str, int] = {}
            if rows:
                counted = await session.exec(
                    select(TournamentEntryRow.tournament_id, sa.func.count())
                    .where(
                        col(TournamentEntryRow.tournament_id).in_([r.id for r in rows]),
                        col(TournamentEntryRow.active_player).is_not(None),
                    )
                    .group_by(col(TournamentEntryRow.tournament_id))
                )
                counts = {tid: int(n) for tid, n in counted.all()}
        return [_summary(row, counts.get(row.id, 0)) for row in rows]

    async def detail(self, tournament_id: str) -> TournamentDetail:
        async with self.db.read() as session:
            tournament = await session.get(TournamentRow, tournament_id)
            if tournament is None:
                raise unknown_tournament(tournament_id)
            entries = await _entries(session, tournament_id)
            names = dict(
                (
                    await session.exec(
                        select(PlayerRow.id, PlayerRow.username).where(
                            col(PlayerRow.id).in_([e.player_id for e in entries])
                        )
                    )
                ).all()
            )
            stacks = await engine_reads.seat_stacks(
                session,
                [
                    e.seat_session_id
                    for e in entries
                    if e.seat_session_id and e.status == EntryStatus.PLAYING.value
                ],
            )
            tables = await tables_of(session, tournament_id)
        standings = [_standing(e, names, stacks) for e in entries]
        standings.sort(
            key=lambda s: (
                s.place is not None,
                s.place or 0,
                -(s.chips or 0),
                s.username,
            )
        )
        at_table: dict[str, int] = {}
        for entry in entries:
            if entry.status == EntryStatus.PLAYING.value and entry.table_id:
                at_table[entry.table_id] = at_table.get(entry.table_id, 0) + 1
        table_views = []
        for table in tables:
            addresses = await self.engines.addresses(table.table_id)
            table_views.append(
                TournamentTableView(
                    table_id=table.table_id,
                    number=table.number,
                    status=table.status,  # type: ignore[arg-type]
                    players=at_table.get(table.table_id, 0),
                    engine_grpc=addresses["engine_grpc"],
                    engine_grpc_web=addresses["engine_grpc_web"],
                )
            )
        count = len(entries)
        return TournamentDetail(
            id=tournament.id,
            name=tournament.name,
            kind=tournament.kind,  # type: ignore[arg-type]
            status=tournament.status,  # type: ignore[arg-type]
            profile=tournament.profile,
            rule_overrides=tournament.rule_overrides,
            buy_in=tournament.buy_in,
            fee=tournament.fee,
            starting_chips=tournament.starting_chips,
            min_players=tournament.min_players,
            max_players=tournament.max_players,
            table_size=tournament.table_size,
            entries=count,
            city=tournament.city,
            starts_at=tournament.starts_at,
            prize_pool=prize_pool(tournament, count),
            template=tournament.template,
            late_registration_levels=tournament.late_registration_levels,
            levels=[msgspec.convert(level, LevelView) for level in tournament.levels],
            current_level=(
                tournament.current_level + 1 if tournament.started_at is not None else 0
            ),
            level_started_at=tournament.level_started_at,
            payouts=payout_list(tournament, count),
            standings=standings,
            tables=table_views,
            created_at=tournament.created_at,
            started_at=tournament.started_at,
            finished_at=tournament.finished_at,
            cancel_reason=tournament.cancel_reason,
        )


def _standing(
    entry: TournamentEntryRow, names: dict[str, str], stacks: dict[str, int]
) -> StandingView:
    chips = entry.chips
    if entry.status == EntryStatus.PLAYING.value and entry.seat_session_id in stacks:
        chips = stacks[entry.seat_session_id]
    return StandingView(
        player_id=entry.player_id,
        username=names.get(entry.player_id, ""),
        status=entry.status,  # type: ignore[arg-type]
        chips=chips,
        place=entry.place,
        prize=entry.prize,
    )


class Registrations:
    """A player's entry: register (money, idempotent), unregister (refund once), read it."""

    #: The operation name its idempotency keys carry.
    OPERATION = "tournament_entry"

    def __init__(
        self,
        db: Database,
        engines: TableEngines,
        settings: LobbySettings,
        collect_owed: Callable[[str], Awaitable[object]] | None = None,
    ) -> None:
        self.db = db
        self.engines = engines
        self.settings = settings
        #: Credits what tables owe the player (closed seat sessions) before his money moves.
        self.collect_owed = collect_owed

    async def register(
        self, player: PlayerRow, tournament_id: str, key: str, fingerprint: str
    ) -> Answer:
        """Register ``player``: 201 with his entry (a retry with the same key replays it)."""

        entry_id = new_id("te", size=8)

        async def prepare(session: AsyncSession) -> None:
            tournament = await locked_tournament(session, tournament_id)
            self._check_open(tournament)
            if tournament.city is not None and tournament.city != player.city:
                raise DomainError(
                    403,
                    "not_your_city",
                    f"this tournament is for the players of {tournament.city}; "
                    f"your account is in {player.city}",
                )
            mine = (
                await session.exec(
                    select(TournamentEntryRow.id).where(
                        col(TournamentEntryRow.tournament_id) == tournament.id,
                        col(TournamentEntryRow.active_player) == player.id,
                    )
                )
            ).first()
            if mine is not None:
                raise DomainError(
                    409, "already_registered", "you are already registered for this tournament"
                )
            count = await active_entries(session, tournament.id)
            if count >= tournament.max_players:
                raise DomainError(
                    409,
                    "tournament_full",
                    f"all {tournament.max_players} places of this tournament are taken",
                )
            entry = TournamentEntryRow(
                id=entry_id,
                tournament_id=tournament.id,
                player_id=player.id,
                active_player=player.id,
                status=EntryStatus.REGISTERED.value,
                buy_in=tournament.buy_in,
                fee=tournament.fee,
                registered_at=utc_now(),
            )
            session.add(entry)
            await session.flush()
            await pay_entry(session, entry)
            if tournament.status == TournamentStatus.RUNNING.value:
                # Late registration: one more entrant (the pool grows), seated by the director.
                tournament.entrants = (tournament.entrants or count) + 1
                session.add(tournament)
            elif (
                tournament.kind == TournamentKind.SIT_AND_GO.value
                and count + 1 == tournament.max_players
            ):
                await start_field(session, tournament, count + 1)

        if self.collect_owed is not None:
            await self.collect_owed(player.id)
        return await run_idempotent(
            self.db,
            player_id=player.id,
            key=key,
            operation=self.OPERATION,
            fingerprint=fingerprint,
            reference=entry_id,
            prepare=prepare,
            complete=self.complete_registration,
        )

    @staticmethod
    def _check_open(tournament: TournamentRow) -> None:
        if tournament.status == TournamentStatus.REGISTERING.value:
            return
        if (
            tournament.status == TournamentStatus.RUNNING.value
            and tournament.current_level < tournament.late_registration_levels
        ):
            return
        if tournament.status == TournamentStatus.RUNNING.value:
            raise DomainError(
                409, "tournament_started", "this tournament has started: registration is closed"
            )
        raise DomainError(409, "tournament_over", f"this tournament is {tournament.status}")

    async def complete_registration(self, entry_id: str) -> Answer:
        async with self.db.read() as session:
            entry = await session.get(TournamentEntryRow, entry_id)
        assert entry is not None, entry_id
        return Answer(201, msgspec.to_builtins(_entry_view(entry)))

    async def tournament_started(self, tournament_id: str) -> bool:
        """Whether the tournament runs without all its seats (the director has work)."""
        async with self.db.read() as session:
            row = await session.get(TournamentRow, tournament_id)
        return row is not None and row.status == TournamentStatus.RUNNING.value

    async def unregister(self, player: PlayerRow, tournament_id: str) -> TournamentEntryView:
        """Withdraw before the start: buy-in and fee back, once."""
        async with self.db.write() as session:
            tournament = await locked_tournament(session, tournament_id)
            entry: TournamentEntryRow | None = await locked(
                session,
                TournamentEntryRow,
                col(TournamentEntryRow.tournament_id) == tournament.id,
                col(TournamentEntryRow.active_player) == player.id,
            )
            if entry is None:
                raise DomainError(
                    404, "not_registered", "you are not registered for this tournament"
                )
            if (
                tournament.status != TournamentStatus.REGISTERING.value
                or entry.status != EntryStatus.REGISTERED.value
            ):
                raise DomainError(
                    409,
                    "tournament_started",
                    "this tournament has started: entries can no longer be withdrawn",
                )
            await refund_entry(session, entry)
            entry.status = EntryStatus.UNREGISTERED.value
            entry.active_player = None
            entry.unregistered_at = utc_now()
            session.add(entry)
            return _entry_view(entry)

    async def mine(self, player: PlayerRow, tournament_id: str) -> TournamentEntryView:
        """My latest entry; while I play, my table, seat, engine addresses and a token."""
        async with self.db.read() as session:
            tournament = await session.get(TournamentRow, tournament_id)
            if tournament is None:
                raise unknown_tournament(tournament_id)
            entry = (
                await session.exec(
                    select(TournamentEntryRow)
                    .where(
                        col(TournamentEntryRow.tournament_id) == tournament_id,
                        col(TournamentEntryRow.player_id) == player.id,
                    )
                    .order_by(col(TournamentEntryRow.registered_at).desc())
                    .limit(1)
                )
            ).first()
            if entry is None:
                raise DomainError(
                    404, "not_registered", "you are not registered for this tournament"
                )
            stacks = await engine_reads.seat_stacks(
                session, [entry.seat_session_id] if entry.seat_session_id else []
            )
        view = _entry_view(entry)
        if entry.status != EntryStatus.PLAYING.value or entry.table_id is None:
            view.table_id = view.seat = view.seat_session_id = None
            return view
        # Where the table is served now (read afresh: another node may have taken it over
        # since this replica last called it), as for a ticket.
        addresses = await self.engines.addresses(entry.table_id)
        view.engine_grpc = addresses["engine_grpc"]
        view.engine_grpc_web = addresses["engine_grpc_web"]
        view.token = issue_token(self.settings.jwt_secret, player, self.settings.token_seconds)
        if entry.seat_session_id in stacks:
            view.chips = stacks[entry.seat_session_id]
        return view


class TournamentAdmin:
    """What ops do: create a tournament, cancel one."""

    def __init__(self, db: Database, engines: TableEngines) -> None:
        self.db = db
        self.engines = engines

    async def create(self, data: NewTournament) -> str:
        """A new registering tournament (its id); 422 naming the field that is wrong."""
        given = data.given()
        async with self.db.write() as session:
            template_name = data.template_name
            if template_name is not None:
                template = await session.get(TournamentTemplateRow, template_name)
                if template is None:
                    raise DomainError(
                        422,
                        "unknown_template",
                        f"no tournament template {template_name!r}",
                        "template",
                    )
                given = {**template.structure, **given}
            elif "name" not in given:
                raise DomainError(
                    422, "invalid_structure", "name: give a name or a template", "name"
                )
            try:
                structure = parse_structure(given)
            except StructureError as error:
                raise DomainError(
                    422, "invalid_structure", f"{error.field}: {error.message}", error.field
                ) from None
            if structure.city is not None and await session.get(CityRow, structure.city) is None:
                raise DomainError(
                    422, "invalid_structure", f"city: no city {structure.city!r}", "city"
                )
            if structure.starts_at is not None and structure.starts_at <= utc_now():
                raise DomainError(
                    422, "invalid_structure", "starts_at: must be in the future", "starts_at"
                )
            values = new_tournament_values(structure, template_name)
            session.add(TournamentRow(**values))
            return str(values["id"])

    async def cancel(self, tournament_id: str, reason: str) -> None:
        """Cancel: refunds before the start, the pool shared by chips after it."""
        async with self.db.read() as session:
            tournament = await session.get(TournamentRow, tournament_id)
            if tournament is None:
                raise unknown_tournament(tournament_id)
            tables = (
                await session.exec(
                    select(TournamentTableRow.table_id).where(
                        col(TournamentTableRow.tournament_id) == tournament_id,
                        col(TournamentTableRow.status) == TableStatus.OPEN.value,
                    )
                )
            ).all()
        _check_cancellable(tournament)
        # Close the tables first, so that no new hand is dealt. The pool is shared by the
        # stacks the engine recorded at the last completed hand: a hand still running does
        # not count (its chips are back in the stacks it started with). An engine that cannot
        # be reached now is closed by the director later.
        engine = TournamentEngine(self.engines)
        for table_id in tables:
            try:
                await engine.close_table(table_id, f"tournament cancelled: {reason}")
            except EngineError as error:
                log.warning("closing %s of cancelled %s: %s", table_id, tournament_id, error)
        async with self.db.write() as session:
            await cancel_tournament(session, tournament_id, reason)


def _check_cancellable(tournament: TournamentRow) -> None:
    if tournament.status in (TournamentStatus.FINISHED.value, TournamentStatus.CANCELLED.value):
        raise DomainError(409, "tournament_over", f"this tournament is {tournament.status} already")


async def cancel_tournament(session: AsyncSession, tournament_id: str, reason: str) -> None:
    """In the caller's transaction: refund everyone (not started) or share the pool left by
    chips (started), and mark the tournament cancelled. Each payment happens once."""
    tournament = await locked_tournament(session, tournament_id)
    _check_cancellable(tournament)
    now = utc_now()
    entries = await _entries(session, tournament.id)
    if tournament.status == TournamentStatus.REGISTERING.value or tournament.started_at is None:
        for entry in entries:
            await refund_entry(session, entry)
            entry.status = EntryStatus.UNREGISTERED.value
            entry.active_player = None
            entry.unregistered_at = now
            session.add(entry)
    else:
        await _share_pool(session, tournament, entries, now)
    template_name = tournament.open_template
    tournament.status = TournamentStatus.CANCELLED.value
    tournament.open_template = None
    tournament.finished_at = now
    tournament.cancel_reason = reason
    session.add(tournament)
    await session.flush()
    if template_name is not None:
        template = await session.get(TournamentTemplateRow, template_name)
        if template is not None and template.keep_open:
            await open_from_template(session, template)


async def _share_pool(
    session: AsyncSession,
    tournament: TournamentRow,
    entries: Sequence[TournamentEntryRow],
    now: datetime,
) -> None:
    """The pool left, shared by the players still in, by chips (the engine's stacks; the
    lobby's record for a player not seated yet)."""
    pool_account = await session.get(LedgerAccountRow, prize_pool_account(tournament.id))
    pool = pool_account.balance if pool_account is not None else 0
    still_in = [
        e for e in entries if e.status in (EntryStatus.PLAYING.value, EntryStatus.REGISTERED.value)
    ]
    stacks = await engine_reads.seat_stacks(
        session,
        [s for e in still_in for s in (e.seat_session_id, e.move_from_session) if s],
    )
    chips: list[tuple[str, int]] = []
    for entry in still_in:
        amount = stacks.get(entry.seat_session_id or "")
        if amount is None and entry.move_from_session:
            # Moving (not seated at his new table yet): the stack he leaves with.
            amount = stacks.get(entry.move_from_session)
        if amount is None:
            amount = entry.chips if entry.chips is not None else tournament.starting_chips
        chips.append((entry.id, amount))
    shares = share_by_chips(pool, chips) if pool > 0 and sum(c for _, c in chips) > 0 else {}
    for entry, (_, amount) in zip(still_in, chips, strict=True):
        entry.chips = amount
        entry.status = EntryStatus.FINISHED.value
        await pay_prize(session, entry, shares.get(entry.id, 0), PrizeKind.SHARE, None, now)
        session.add(entry)
