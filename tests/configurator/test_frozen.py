"""`@direct_init` (configurator/engine/frozen.py): every frozen dataclass of the engine has it, takes the
parameters the dataclass's own __init__ takes, and makes the same objects: each dataclass instance of a real
validation, estimate and recommendation, made again field by field with the dataclass's __init__ and with
the direct one, is equal to it in every field (those worked out in __post_init__ too), hashes alike and
stays frozen."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from dataclasses import InitVar, dataclass
from decimal import Decimal
from typing import Any

import pytest

import configurator.engine
from configurator.engine.builds import build_from_payload
from configurator.engine.estimate import estimate
from configurator.engine.frozen import direct_init
from configurator.engine.models_library import model_get
from configurator.engine.recommend import recommend
from configurator.engine.types import CatalogSnapshot, Constraints, Workload
from configurator.engine.validate import validate
from tests.builds import ARCHITECTURE_EXAMPLE, ERROR_BUILD, TOO_FEW_PSUS


def _engine_dataclasses() -> list[type]:
    found = []
    for module_info in pkgutil.walk_packages(configurator.engine.__path__, "configurator.engine."):
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
                found.append(value)
    return sorted(set(found), key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


FROZEN_SLOTTED = [
    cls
    for cls in _engine_dataclasses()
    if cls.__dataclass_params__.frozen and "__slots__" in vars(cls)  # type: ignore[attr-defined]
]


def test_every_frozen_slotted_engine_dataclass_has_the_direct_init() -> None:
    assert len(FROZEN_SLOTTED) >= 50
    missing = [
        cls.__qualname__ for cls in FROZEN_SLOTTED if not hasattr(vars(cls)["__init__"], "__wrapped_dataclass_init__")
    ]
    assert missing == []


@pytest.mark.parametrize("cls", FROZEN_SLOTTED, ids=lambda cls: cls.__qualname__)
def test_the_direct_init_takes_the_dataclass_parameters(cls: type) -> None:
    init = vars(cls)["__init__"]
    mine = inspect.signature(init).parameters
    theirs = inspect.signature(init.__wrapped_dataclass_init__).parameters
    assert [(p.name, p.kind) for p in mine.values()] == [(p.name, p.kind) for p in theirs.values()]
    factories = {f.name for f in dataclasses.fields(cls) if f.default_factory is not dataclasses.MISSING}
    for name, parameter in theirs.items():
        if name in factories:  # the dataclass's sentinel and ours differ; both make the factory's value
            assert mine[name].default is not inspect.Parameter.empty
        else:
            assert mine[name].default is parameter.default, name


def _instances(value: Any, seen: set[int]) -> Iterator[Any]:
    """Every dataclass instance reachable from `value` (fields, tuples, lists, dicts), each once."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        yield value
        for field_ in dataclasses.fields(value):
            yield from _instances(getattr(value, field_.name), seen)
    elif isinstance(value, tuple | list | frozenset | set):
        for item in value:
            yield from _instances(item, seen)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _instances(item, seen)


def _results(snapshot: CatalogSnapshot) -> list[Any]:
    workload = Workload(model=model_get("llama-3.1-70b"), precision="q4_k_m", concurrent_users=5)
    training = Workload(model=model_get("llama-3.1-8b"), task="lora", precision="bf16")
    results: list[Any] = []
    for body in (ARCHITECTURE_EXAMPLE, ERROR_BUILD, TOO_FEW_PSUS):
        build = build_from_payload(body, snapshot)
        results += [build, validate(build, snapshot=snapshot, workload=workload)]
    results.append(estimate(training, snapshot.gpus["rtx-4090"], 2))
    results.append(recommend(snapshot, workload, Constraints(max_price=Decimal("3000000")), limit=3))
    return results


def test_the_objects_are_the_ones_the_dataclass_init_makes(snapshot: CatalogSnapshot) -> None:
    checked: set[type] = set()
    seen: set[int] = set()
    for result in _results(snapshot):
        for obj in _instances(result, seen):
            cls = type(obj)
            original = getattr(cls.__init__, "__wrapped_dataclass_init__", None)
            if original is None:
                continue
            arguments = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.init}
            theirs = object.__new__(cls)
            original(theirs, **arguments)
            mine = cls(**arguments)
            for field_ in dataclasses.fields(obj):  # init=False fields included: __post_init__ ran
                assert getattr(mine, field_.name) == getattr(theirs, field_.name) == getattr(obj, field_.name)
            assert mine == theirs == obj
            if cls.__hash__ is not None:
                assert hash(mine) == hash(theirs)
            checked.add(cls)
    assert len(checked) >= 20, sorted(cls.__qualname__ for cls in checked)


def test_the_objects_stay_frozen_and_defaults_are_filled(snapshot: CatalogSnapshot) -> None:
    build = build_from_payload(ARCHITECTURE_EXAMPLE, snapshot)
    with pytest.raises(dataclasses.FrozenInstanceError):
        build.gpu_count = 1  # type: ignore[misc]
    assert build.gpu_count == 8 and build.ram_gb == 24 * 64  # set by __post_init__ through the direct init

    @direct_init
    @dataclass(frozen=True, slots=True)
    class Sample:
        name: str
        tags: tuple[str, ...] = ()
        seen: list[int] = dataclasses.field(default_factory=list)
        flag: bool = dataclasses.field(default=True, init=False)
        extra: int = dataclasses.field(default=0, kw_only=True)

    one, two = Sample("a"), Sample("a", extra=2)
    assert (one.tags, one.seen, one.flag, one.extra, two.extra) == ((), [], True, 0, 2)
    assert one.seen is not Sample("a").seen  # a new list per object, as default_factory makes
    with pytest.raises(TypeError):
        Sample("a", (), [], 5)  # type: ignore[misc]  # extra is keyword-only


def test_it_refuses_classes_it_cannot_make_quickly() -> None:
    @dataclass(slots=True)
    class Mutable:
        name: str

    @dataclass(frozen=True, slots=True)
    class WithInitVar:
        name: str
        scale: InitVar[int] = 1

    @dataclass(frozen=True)
    class NoSlots:
        name: str

    for cls in (Mutable, WithInitVar, NoSlots):
        with pytest.raises(TypeError):
            direct_init(cls)
