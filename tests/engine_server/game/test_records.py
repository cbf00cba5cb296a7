"""The hand's events and records: frozen dataclasses that write their own ``__init__``.

Each sets its fields with ``object.__setattr__`` and literal names, which mypyc
compiles to direct stores; the ``__init__`` a frozen dataclass generates would
run as interpreted Python even in a compiled module, at about 2 µs an event
(BENCHMARKS.md, "Complete hands"). These tests hold both halves of that: the
classes are still frozen dataclasses that build from positional or keyword
arguments alike, and, compiled, their constructors are native code. The same
checks run on the modules loaded from their ``.py`` source, as they run with
``STUD_NO_MYPYC=1``.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from engine_server.game import actions, events, hand
from engine_server.game.actions import ActionKind
from engine_server.game.profiles import Street

GAME = Path(__file__).resolve().parents[3] / "engine_server" / "game"

#: constructor arguments for every record class, by class name, in field order
SAMPLES: dict[str, dict[str, Any]] = {
    "HandStarted": {"button": 3, "dealing_order": (4, 1, 3), "stacks": ((4, 900), (1, 40))},
    "AntePosted": {"seat": 4, "amount": 420, "all_in": False},
    "CardBurned": {"card": 51, "deck_index": 7, "street": Street.FIFTH},
    "StubReshuffled": {"street": Street.SEVENTH, "stub_size": 9},
    "CardDealt": {"seat": 1, "card": 0, "up": True, "street": Street.THIRD, "deck_index": 15},
    "CommunityCardDealt": {"card": 12, "street": Street.SEVENTH, "deck_index": 50},
    "StreetStarted": {"street": Street.FOURTH, "first_to_act": None},
    "BringInPosted": {"seat": 1, "card": 0, "amount": 840, "all_in": False, "completed": False},
    "ActionTaken": {
        "seat": 3,
        "kind": ActionKind.RAISE,
        "amount": 1680,
        "to": 2520,
        "all_in": True,
        "by_timeout": False,
    },
    "ProtectionApplied": {"seat": 3, "contributed": 1260},
    "BetReturned": {"seat": 4, "amount": 420},
    "HandShown": {"seat": 1, "cards": (0, 5, 9, 13, 22, 30, 51), "community": (), "hi_lo": True},
    "HandMucked": {"seat": 4},
    "RakeTaken": {"amount": 3},
    "PotAwarded": {
        "index": 0,
        "amount": 2520,
        "eligible": (1, 3),
        "winners": (1, 3),
        "awards": ((1, 1260), (3, 1260)),
    },
    "HandEnded": {"final_stacks": ((1, 1300), (3, 0)), "won_by_fold": False},
    "HandCancelled": {"final_stacks": ((1, 40), (3, 900))},
    "LegalAction": {"kind": ActionKind.BET, "min_to": 8, "max_to": 16, "sizes": (8, 16)},
    "BringIn": {"seat": 1, "card": 0, "amount": 2},
    "PotResult": {"amount": 12, "eligible": (1, 3), "winners": (3,), "awards": {3: 12}},
    "ShownHand": {"shown": events.HandShown(1, (0, 5, 9, 13, 22, 30, 51))},
    "HandResult": {
        "bring_in": None,
        "first_to_act": {Street.THIRD: 3},
        "community_cards": (),
        "pots": (),
        "returned": {},
        "rake": 0,
        "shown": {},
        "hands": {},
        "final_stacks": {1: 40, 3: 900},
        "won_by_fold": True,
    },
}

#: the record classes of each module
RECORDS: dict[str, tuple[str, ...]] = {
    "events": tuple(name for name in events.__all__ if name != "Event"),
    "actions": ("LegalAction",),
    "hand": ("BringIn", "PotResult", "ShownHand", "HandResult"),
}


def _from_source(module: str) -> types.ModuleType:
    """The module run from its ``.py`` file (its imports still resolve as installed)."""
    path = GAME / f"{module}.py"
    name = f"engine_server.game.{module}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    # Dataclasses look their module up in sys.modules while the class is made.
    previous = sys.modules[name]
    sys.modules[name] = loaded
    try:
        spec.loader.exec_module(loaded)
    finally:
        sys.modules[name] = previous
    return loaded


def _classes(module: types.ModuleType, names: tuple[str, ...]) -> list[type]:
    return [getattr(module, name) for name in names]


INSTALLED = {"events": events, "actions": actions, "hand": hand}
CASES = [
    pytest.param(module, name, id=f"{how}-{name}")
    for how in ("installed", "source")
    for module_name, names in RECORDS.items()
    for module in [INSTALLED[module_name] if how == "installed" else _from_source(module_name)]
    for name in names
]


def test_every_record_class_has_a_sample() -> None:
    assert {name for names in RECORDS.values() for name in names} == set(SAMPLES)


@pytest.mark.parametrize(("module", "name"), CASES)
def test_a_record_is_a_frozen_dataclass_built_field_by_field(
    module: types.ModuleType, name: str
) -> None:
    cls = getattr(module, name)
    params = cls.__dataclass_params__
    assert params.frozen and params.eq and not params.init
    sample = SAMPLES[name]
    assert [f.name for f in dataclasses.fields(cls)] == list(sample)
    by_keyword = cls(**sample)
    by_position = cls(*sample.values())
    for field, value in sample.items():
        assert getattr(by_keyword, field) == value
    assert by_keyword == by_position
    assert repr(by_keyword) == repr(by_position)
    if name not in ("PotResult", "HandResult"):  # those hold dicts, so they do not hash
        assert hash(by_keyword) == hash(by_position)
    first = next(iter(sample))
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(by_keyword, first, getattr(by_keyword, first))
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(by_keyword, first)
    assert getattr(by_keyword, first) == sample[first]


def test_defaults_still_apply() -> None:
    taken = events.ActionTaken(3, ActionKind.FOLD, 0, 0, False)
    assert taken.by_timeout is False
    shown = events.HandShown(1, (0, 5, 9, 13, 22))
    assert shown.community == () and shown.hi_lo is False
    assert actions.LegalAction(ActionKind.FOLD) == actions.LegalAction(ActionKind.FOLD, 0, 0, ())


@pytest.mark.parametrize("module_name", sorted(RECORDS))
def test_compiled_records_construct_in_native_code(module_name: str) -> None:
    """The point of writing the constructors: compiled, none runs as a Python function."""
    module = INSTALLED[module_name]
    if not str(module.__file__).endswith(".so"):
        pytest.skip(f"{module.__name__} runs uncompiled here (STUD_NO_MYPYC)")
    for cls in _classes(module, RECORDS[module_name]):
        assert not isinstance(vars(cls)["__init__"], types.FunctionType), cls.__name__


def test_player_state_starts_empty_with_its_own_lists() -> None:
    first = hand.PlayerState(seat=3, position=0, stack=900, start_stack=900)
    second = hand.PlayerState(3, 1, 40, 40)
    assert (first.seat, first.position, first.stack, first.start_stack) == (3, 0, 900, 900)
    assert first.cards == [] and first.up_list == [] and first.round_contributed == [0] * 5
    assert (first.bet, first.contributed, first.showing_key, first.high) == (0, 0, 0, -1)
    assert first.active and not (first.folded or first.all_in or first.acted)
    first.cards.append(7)
    first.round_contributed[0] += 1
    assert second.cards == [] and second.round_contributed == [0] * 5
    assert [f.name for f in dataclasses.fields(hand.PlayerState)][:4] == [
        "seat",
        "position",
        "stack",
        "start_stack",
    ]
