"""Which build fields a rule really reads: the rule runs on a build that records every field looked at.

engine.proving re-runs after a fix only the rules whose declared `reads` (rules.context.reads) meet the
fields the fix changes; the tests check every rule's declaration covers what this recorder sees.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from configurator.engine.rules import RULES, Rule, RuleContext
from configurator.engine.rules.context import ESTIMATE_INPUTS
from configurator.engine.types import BUILD_FIELDS, BUILD_TOTALS, BuildSpec

FIELDS = frozenset(BUILD_FIELDS)
_seen: set[str] = set()
_copying = [0]


class RecordingBuild(BuildSpec):
    """A BuildSpec that notes each field read (outside dataclasses.replace, which copies without reading)."""

    __slots__ = ()

    def __getattribute__(self, name: str) -> Any:
        if not _copying[0]:
            if name in FIELDS:
                _seen.add(name)
            elif name in BUILD_TOTALS:  # a total of the lines (worked out when the build was made) reads them
                _seen.add(BUILD_TOTALS[name])
        return object.__getattribute__(self, name)


class RecordingContext(RuleContext):
    """A rule context that notes a read of the estimate (an input the fields in ESTIMATE_INPUTS make)."""

    def __getattribute__(self, name: str) -> Any:
        if name in ("estimate", "estimate_problem", "link_gbs"):
            _seen.update(ESTIMATE_INPUTS)
        return object.__getattribute__(self, name)


_real_replace = dataclasses.replace


def _quiet_replace(obj: Any, /, **changes: Any) -> Any:
    _copying[0] += 1
    try:
        return _real_replace(obj, **changes)
    finally:
        _copying[0] -= 1


_engine_modules: tuple[int, list[Any]] = (0, [])  # (len(sys.modules) when listed, the engine's modules)


def _modules_with_replace() -> list[Any]:
    """The engine's modules that imported dataclasses.replace, listed again only when a module was imported
    since (a walk of sys.modules per rule run cost the suite ~2 minutes once pytest had loaded everything)."""
    import sys

    global _engine_modules
    if _engine_modules[0] != len(sys.modules):
        found = [
            module
            for name, module in list(sys.modules.items())
            if name.startswith("configurator.engine") and getattr(module, "replace", None) is _real_replace
        ]
        _engine_modules = (len(sys.modules), found)
    return _engine_modules[1]


@contextmanager
def quiet_copies() -> Iterator[None]:
    """dataclasses.replace (as every engine module imported it) copies a recording build without noting it."""
    patched = _modules_with_replace()
    for module in patched:
        module.replace = _quiet_replace
    try:
        yield
    finally:
        for module in patched:
            module.replace = _real_replace


def recording(build: BuildSpec) -> RecordingBuild:
    return RecordingBuild(**{name: getattr(build, name) for name in FIELDS})


def fields_read(rule: Rule, ctx: RuleContext) -> set[str]:
    """The build fields `rule` reads on the build of `ctx` (a fresh context: nothing cached from other rules)."""
    fresh = RecordingContext(
        build=recording(ctx.build),
        snapshot=ctx.snapshot,
        workload=ctx.workload,
        estimate=ctx.estimate,
        estimate_problem=ctx.estimate_problem,
        link_gbs=ctx.link_gbs,
    )
    _seen.clear()
    with quiet_copies():
        list(rule(fresh))
    return set(_seen)


__all__ = ["RULES", "fields_read"]
