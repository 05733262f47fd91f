"""Frozen dataclasses that are quick to make: `@direct_init` above `@dataclass(frozen=True, slots=True)`.

The __init__ a frozen dataclass is given sets each field with `object.__setattr__(self, name, value)` (the
class's own __setattr__ refuses), which looks the field's slot up by name on every call: ~0.25 µs a field
here, 2.6 µs for a 13-field plan against 1.7 µs with the descriptors. The engine makes its findings, fixes,
budgets, plans, builds and estimates that way, dozens per validation and thousands per recommendation.
`direct_init` gives the class an __init__ with the same parameters that sets each slot through its
descriptor, found once when the class is made. Measured in process (issue 17, the best of three runs
interleaved with the code before): a validation 11-18 % faster (the ARCHITECTURE.md server 228 → 192 µs,
TOO_FEW_PSUS 530 → 434 µs), `estimate()` 22 % more calls per second (bench/bench_estimate.py). The
instances are the same: frozen, compared and hashed alike (tests/configurator/test_frozen.py compares every
decorated class's signature with the dataclass's own and remakes real objects with both).
"""

from __future__ import annotations

import inspect
import types
from dataclasses import MISSING, fields
from typing import Any, TypeVar, cast

ClassT = TypeVar("ClassT", bound=type)


def _slot(cls: type, name: str) -> Any:
    """The member descriptor of slot `name` (on the class or the dataclass it extends)."""
    for klass in cls.__mro__:
        found = vars(klass).get(name)
        if isinstance(found, types.MemberDescriptorType):
            return found
    raise TypeError(f"{cls.__qualname__}.{name} is not a slot")


def direct_init(cls: ClassT) -> ClassT:
    """Replace the __init__ of a frozen, slotted dataclass with one that sets the slots directly (the same
    parameters, defaults, default factories and __post_init__ call). Fields without __init__ are set from
    their default, as dataclasses does; InitVar parameters are not supported (a TypeError says so)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or not params.init or "__slots__" not in vars(cls):
        raise TypeError(f"{cls.__qualname__}: @direct_init goes above @dataclass(frozen=True, slots=True)")
    original = vars(cls)["__init__"]  # the dataclass's own
    expected = [f.name for f in fields(cls) if f.init and f.kw_only is not True]
    expected += [f.name for f in fields(cls) if f.init and f.kw_only is True]
    if [name for name in inspect.signature(original).parameters if name != "self"] != expected:
        raise TypeError(f"{cls.__qualname__}: its __init__ takes parameters that are not fields (InitVar)")
    namespace: dict[str, Any] = {"MISSING": MISSING}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for index, field_ in enumerate(fields(cls)):
        setter = f"_set_{index}"
        namespace[setter] = _slot(cls, field_.name).__set__
        name = field_.name
        if field_.default is not MISSING:
            namespace[f"_default_{index}"] = field_.default
        if field_.default_factory is not MISSING:
            namespace[f"_factory_{index}"] = field_.default_factory
        if field_.init:
            target = keyword if field_.kw_only is True else positional
            if field_.default is not MISSING:
                target.append(f"{name}=_default_{index}")
            elif field_.default_factory is not MISSING:
                target.append(f"{name}=MISSING")
                body.append(f"    if {name} is MISSING:\n        {name} = _factory_{index}()")
            else:
                target.append(name)
            body.append(f"    {setter}(self, {name})")
        elif field_.default is not MISSING:
            body.append(f"    {setter}(self, _default_{index})")
        elif field_.default_factory is not MISSING:
            body.append(f"    {setter}(self, _factory_{index}())")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    signature = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({signature}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)  # noqa: S102 - the source is made above from the class's own field names
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = original.__doc__
    init.__annotations__ = dict(getattr(original, "__annotations__", {}))
    init.__wrapped_dataclass_init__ = original  # what tests compare it with
    type.__setattr__(cls, "__init__", init)
    return cls


class HashOnce:
    """Base of a frozen, slotted dataclass that is hashed again and again as part of dict keys (the
    recommender's memos key on the request's workload and constraints, tens of thousands of lookups per
    request, and a workload's hash walks its 27 fields and its model's): the hash is worked out once and kept
    in a slot. It is the value the dataclass's own __hash__ gives (the hash of the tuple of its hashed fields),
    so sets and dicts behave exactly as before; equality is the dataclass's.

    Use: `@direct_init @hash_once @dataclass(frozen=True, slots=True) class X(HashOnce): __hash__ =
    HashOnce.__hash__` (the class's own __hash__ keeps the dataclass from writing one over it). Measured in
    process with bench/bench_recommend.py (issue 34; the figures are in the commits that added it)."""

    __slots__ = ("_hash_once",)
    __hash_fields__: tuple[str, ...] = ()
    _hash_once: int

    def __hash__(self) -> int:
        try:
            return self._hash_once
        except AttributeError:
            value = hash(tuple(getattr(self, name) for name in self.__hash_fields__))
            object.__setattr__(self, "_hash_once", value)
            return value


def hash_once(cls: ClassT) -> ClassT:
    """Name the fields a `HashOnce` dataclass hashes: those the dataclass's own __hash__ would (hash=True, or
    hash=None and compare=True)."""
    if not issubclass(cls, HashOnce) or vars(cls).get("__hash__") is not HashOnce.__hash__:
        raise TypeError(f"{cls.__qualname__}: extends HashOnce and sets __hash__ = HashOnce.__hash__")
    names = tuple(f.name for f in fields(cast(Any, cls)) if (f.compare if f.hash is None else f.hash))
    type.__setattr__(cls, "__hash_fields__", names)
    return cls
