"""Load ``seeds/cities.json``, ``seeds/stakes.json`` and ``seeds/tournaments.json`` into the
lobby's tables.

``python -m seeds.load [--database-url URL]`` migrates the database to head and
upserts every city, stake level (by id) and tournament template (by its ``template`` name,
checked with the tournament rules: :func:`lobby_api.tournaments.structure.parse_structure`;
``keep_open`` sit & go templates always have one tournament registering, which the
lobby's director opens): running it again changes nothing,
and an edited seed file updates the rows it names. Rows that are no longer in
the files are kept (players and tables refer to them). The lobby runs the same
upsert at start.

The files are checked before anything is written; a mistake is reported with
the file and the field:

>>> parse_stakes([{"id": "x"}], "stakes.json")
Traceback (most recent call last):
...
seeds.load.SeedError: stakes.json[0]: missing field 'name'
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.game.profiles import PROFILES, ProfileError, Rake
from lobby_api.catalog.models import CityRow, StakeLevelRow
from lobby_api.tournaments.models import TournamentKind, TournamentTemplateRow
from lobby_api.tournaments.structure import StructureError, parse_structure

__all__ = [
    "SEEDS_DIR",
    "SeedData",
    "SeedError",
    "apply_seeds",
    "load_seed_files",
    "main",
    "parse_cities",
    "parse_stakes",
    "parse_tournaments",
]

SEEDS_DIR = Path(__file__).resolve().parent
_SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]{0,31}$")
_STAKE_FIELDS = {
    "id": str,
    "name": str,
    "profile": str,
    "ante": int,
    "bring_in": int,
    "small_bet": int,
    "big_bet": int,
    "min_buy_in": int,
    "max_buy_in": int,
    "action_seconds": (int, float),
}
#: The advisory lock taken while seeding PostgreSQL (several lobby replicas starting at once).
_LOCK_KEY = 0x5354_5545


class SeedError(ValueError):
    """A seed file that is not what the loader expects (names the file and the field)."""


@dataclass(frozen=True, slots=True)
class SeedData:
    cities: list[CityRow]
    stakes: list[StakeLevelRow]
    tournaments: list[TournamentTemplateRow] = field(default_factory=list)


def _require(item: dict[str, Any], name: str, kind: Any, where: str) -> Any:
    if name not in item:
        raise SeedError(f"{where}: missing field {name!r}")
    value = item[name]
    if isinstance(value, bool) or not isinstance(value, kind):
        raise SeedError(f"{where}.{name}: expected {getattr(kind, '__name__', 'a number')}")
    return value


def _objects(data: object, where: str) -> list[dict[str, Any]]:
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise SeedError(f"{where}: expected a list of objects")
    return data


def parse_cities(data: object, where: str = "cities.json") -> list[CityRow]:
    """Cities from the decoded JSON of ``cities.json``."""
    rows = []
    for i, item in enumerate(_objects(data, where)):
        here = f"{where}[{i}]"
        city_id = _require(item, "id", str, here)
        if not _SLUG.match(city_id):
            raise SeedError(f"{here}.id: expected 1-32 characters of [a-z0-9._-]")
        rows.append(CityRow(id=city_id, name=_require(item, "name", str, here)))
    _unique([r.id for r in rows], where)
    return rows


def _rake(value: object, where: str) -> dict[str, Any] | None:
    """Null, or a rake by players dealt in that the engine takes as it is (checked by the
    engine's own parser: brackets that do not overlap and cover 2 to 9 players)."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"by_players"}:
        raise SeedError(f"{where}: expected null or {{'by_players': [...]}}")
    try:
        Rake.from_json(value, where)
    except ProfileError as error:
        raise SeedError(str(error)) from None
    return value


def parse_stakes(data: object, where: str = "stakes.json") -> list[StakeLevelRow]:
    """Stake levels from the decoded JSON of ``stakes.json``."""
    rows = []
    for i, item in enumerate(_objects(data, where)):
        here = f"{where}[{i}]"
        values = {name: _require(item, name, kind, here) for name, kind in _STAKE_FIELDS.items()}
        if not _SLUG.match(values["id"]):
            raise SeedError(f"{here}.id: expected 1-32 characters of [a-z0-9._-]")
        if values["profile"] not in PROFILES:
            raise SeedError(f"{here}.profile: unknown profile {values['profile']!r}")
        if not (
            values["ante"] >= 0
            and values["bring_in"] > 0
            and 0 < values["small_bet"] <= values["big_bet"]
        ):
            raise SeedError(f"{here}: expected ante >= 0, bring_in > 0, 0 < small_bet <= big_bet")
        if not 0 < values["min_buy_in"] <= values["max_buy_in"]:
            raise SeedError(f"{here}: expected 0 < min_buy_in <= max_buy_in")
        if values["action_seconds"] <= 0:
            raise SeedError(f"{here}.action_seconds: expected a positive number")
        rake = _rake(item.get("rake"), f"{here}.rake")
        values["action_seconds"] = float(values["action_seconds"])
        rows.append(StakeLevelRow(**values, rake=rake, position=i))
    _unique([r.id for r in rows], where)
    return rows


def parse_tournaments(
    data: object, where: str = "tournaments.json", cities: Sequence[str] | None = None
) -> list[TournamentTemplateRow]:
    """Tournament templates from the decoded JSON of ``tournaments.json``: each a full
    structure plus ``template`` (its name) and ``keep_open`` (a sit & go always open).

    >>> parse_tournaments([{"template": "t", "name": "T", "levels": []}])
    Traceback (most recent call last):
    ...
    seeds.load.SeedError: tournaments.json[0].levels: must be a non-empty list
    """
    rows = []
    for i, item in enumerate(_objects(data, where)):
        here = f"{where}[{i}]"
        structure = dict(item)
        name = _require(structure, "template", str, here)
        if not _SLUG.match(name):
            raise SeedError(f"{here}.template: expected 1-32 characters of [a-z0-9._-]")
        keep_open = structure.pop("keep_open", False)
        del structure["template"]
        if not isinstance(keep_open, bool):
            raise SeedError(f"{here}.keep_open: expected true or false")
        try:
            parsed = parse_structure(structure, template=True)
        except StructureError as error:
            raise SeedError(f"{here}.{error.field}: {error.message}") from None
        if keep_open and parsed.kind != TournamentKind.SIT_AND_GO.value:
            raise SeedError(f"{here}.keep_open: only a sit & go is kept open")
        if parsed.city is not None and cities is not None and parsed.city not in cities:
            raise SeedError(f"{here}.city: no city {parsed.city!r} in cities.json")
        rows.append(
            TournamentTemplateRow(name=name, structure=structure, keep_open=keep_open, position=i)
        )
    _unique([r.name for r in rows], where)
    return rows


def _unique(ids: Sequence[str], where: str) -> None:
    seen: set[str] = set()
    for value in ids:
        if value in seen:
            raise SeedError(f"{where}: id {value!r} appears twice")
        seen.add(value)


def load_seed_files(directory: Path = SEEDS_DIR) -> SeedData:
    """Read and check the seed files."""
    loaded = []
    for name in ("cities.json", "stakes.json", "tournaments.json"):
        path = directory / name
        try:
            loaded.append(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise SeedError(f"{path}: not found") from None
        except json.JSONDecodeError as error:
            raise SeedError(f"{path}: not valid JSON ({error})") from None
    cities = parse_cities(loaded[0])
    return SeedData(
        cities, parse_stakes(loaded[1]), parse_tournaments(loaded[2], cities=[c.id for c in cities])
    )


async def apply_seeds(engine: AsyncEngine, data: SeedData | None = None) -> tuple[int, int]:
    """Upsert the seed rows in one transaction; returns (rows inserted, rows updated)."""
    data = data or load_seed_files()
    inserted = updated = 0
    writer = engine.execution_options(sqlite_begin="IMMEDIATE")
    async with AsyncSession(writer, expire_on_commit=False) as session, session.begin():
        if engine.dialect.name == "postgresql":
            await session.exec(  # type: ignore[call-overload]
                sa.text("SELECT pg_advisory_xact_lock(:key)"), params={"key": _LOCK_KEY}
            )
        rows: list[CityRow | StakeLevelRow | TournamentTemplateRow] = [
            *data.cities,
            *data.stakes,
            *data.tournaments,
        ]
        for row in rows:
            existing = await session.get(
                type(row), row.name if isinstance(row, TournamentTemplateRow) else row.id
            )
            if existing is None:
                session.add(type(row).model_validate(row.model_dump()))
                inserted += 1
                continue
            fresh = row.model_dump()
            if existing.model_dump() != fresh:
                for name, value in fresh.items():
                    setattr(existing, name, value)
                session.add(existing)
                updated += 1
    return inserted, updated


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m seeds.load", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--database-url", help="database URL (default: $STUD_DATABASE_URL)")
    args = parser.parse_args(argv)
    from engine_server.store.database import create_engine_for, database_url
    from engine_server.store.migrate import upgrade_to_head

    url = args.database_url or database_url()
    try:
        data = load_seed_files()
    except SeedError as error:
        print(f"seeds: {error}", file=sys.stderr)
        return 2
    upgrade_to_head(url)

    async def run() -> tuple[int, int]:
        engine = create_engine_for(url, null_pool=True)
        try:
            return await apply_seeds(engine, data)
        finally:
            await engine.dispose()

    inserted, updated = asyncio.run(run())
    print(
        json.dumps(
            {
                "cities": len(data.cities),
                "stake_levels": len(data.stakes),
                "tournament_templates": len(data.tournaments),
                "inserted": inserted,
                "updated": updated,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
