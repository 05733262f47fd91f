"""Issue 12: the fix proving re-runs only the rules a fix can affect, and offers exactly what the
straightforward proving (each fixed build validated whole) offers.

- every rule's declared READS (rules/<concern>.py) covers the build fields it really reads, recorded while it
  runs on the shared test builds, the platform checks and random catalog builds, with and without workloads;
  and its FINDING_READS (rules/yields.py) those it reads when no fixes are wanted;
- every rule's declared YIELDS (rules/yields.py) covers the (code, severity) pairs it yields on those builds;
- validate()'s proven findings equal those of engine.proving over `full_recheck` on the same builds.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from catalog.fixture import CATALOG_FIXTURE
from configurator.engine.builds import build_from_payload
from configurator.engine.enums import FindingCode
from configurator.engine.models_library import model_get
from configurator.engine.proving import prove_fixes
from configurator.engine.rules import RULE_FINDING_READS, RULE_READS, RULE_YIELDS, RULES, RuleContext
from configurator.engine.rules.context import findings_only
from configurator.engine.rules.yields import YIELDS, rule_name
from configurator.engine.types import BuildSpec, Finding, Workload
from configurator.engine.validate import full_recheck, rule_context, validate
from tests import builds as shared
from tests.configurator.rule_reads import fields_read
from tests.configurator.test_validate_properties import SNAPSHOT, builds

WORKLOADS = (
    None,
    Workload(model=model_get("llama-3.1-70b"), precision="bf16", kv_cache_precision="bf16", engine="vllm"),
    Workload(
        model=model_get("llama-3.1-8b"),
        precision="bf16",
        kv_cache_precision="bf16",
        engine="llama.cpp",
        require_ecc=True,
        production=True,
    ),
)
PROFILE = settings(
    max_examples=200, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)
PART = re.compile(r"(\d+)x ([a-z0-9-]+)")
PSUS = re.compile(r"PSUs (\d+)x ([a-z0-9-]+) (none|n\+1|n\+n) @ (\d+) V")


def _platform_builds() -> list[BuildSpec]:
    """The catalog's platform checks (the six platforms at and beyond their maximum)."""
    found = []
    for line in json.loads(CATALOG_FIXTURE.read_text(encoding="utf-8"))["_meta"]["platform_checks"]:
        chassis, label = line.split(" | ")[:2]
        body: dict[str, Any] = defaultdict(list)
        for qty, sku in PART.findall(label.split(":", 1)[1]):
            kind = next((k for k in ("gpus", "cpus", "memory", "storage", "nics") if sku in SNAPSHOT.kind(k)), None)
            if kind:
                body[kind].append({"sku": sku, "qty": int(qty)})
        psu = PSUS.search(line)
        if psu:
            body.update(
                chassis=chassis,
                psus=[{"sku": psu[2], "qty": int(psu[1])}],
                psu_redundancy=psu[3],
                site_voltage=int(psu[4]),
            )
            found.append(build_from_payload(dict(body), SNAPSHOT))
    return found


SHARED = [
    build_from_payload(body, SNAPSHOT)
    for body in (
        shared.GOOD_BUILD,
        shared.WARNING_BUILD,
        shared.ERROR_BUILD,
        shared.TOO_FEW_PSUS,
        shared.ARCHITECTURE_EXAMPLE,
    )
]
KNOWN = SHARED + _platform_builds()


def _straightforward(build: BuildSpec, workload: Workload | None) -> tuple[Any, ...]:
    raw = validate(build, snapshot=SNAPSHOT, workload=workload, prove=False).findings
    return prove_fixes(
        build,
        raw,
        snapshot=SNAPSHOT,
        check=lambda fixed, fixes_for, focus: full_recheck(fixed, SNAPSHOT, workload, fixes_for),
    )


def _assert_reads_declared(build: BuildSpec, workload: Workload | None) -> None:
    ctx = rule_context(build, SNAPSHOT, workload)
    for rule, declared, finding in zip(RULES, RULE_READS, RULE_FINDING_READS, strict=True):
        read = fields_read(rule, ctx)
        assert read <= declared, (rule.__module__, rule.__name__, sorted(read - declared))
        assert finding <= declared, (rule.__module__, rule.__name__)
        with findings_only():  # what proving's focused checks re-run it for
            read = fields_read(rule, ctx)
        assert read <= finding, (rule.__module__, rule.__name__, sorted(read - finding))


def test_the_shared_and_platform_builds_are_known() -> None:
    assert len(SHARED) == 5 and len(KNOWN) > 20


@pytest.mark.parametrize("workload", WORKLOADS, ids=["none", "70b", "8b-ecc"])
def test_declared_reads_cover_the_known_builds(workload: Workload | None) -> None:
    for build in KNOWN:
        _assert_reads_declared(build, workload)


@pytest.mark.long
@PROFILE
@given(builds())
def test_declared_reads_cover_random_builds(build: BuildSpec) -> None:
    for workload in WORKLOADS:
        _assert_reads_declared(build, workload)


def test_a_rule_reading_an_undeclared_field_is_caught() -> None:
    """The recorder sees a read the declaration lacks (the check above can fail)."""
    build = KNOWN[0]
    ctx = RuleContext(build=build, snapshot=SNAPSHOT)

    def sneaky(c: RuleContext) -> Iterator[Finding]:
        if c.build.psus and c.build.site_voltage:
            yield from ()

    assert fields_read(sneaky, ctx) == {"psus", "site_voltage"}


@pytest.mark.parametrize("workload", WORKLOADS, ids=["none", "70b", "8b-ecc"])
def test_known_builds_get_the_same_fixes_as_the_straightforward_proving(workload: Workload | None) -> None:
    offered = 0
    for build in KNOWN:
        proven = validate(build, snapshot=SNAPSHOT, workload=workload).findings
        assert proven == _straightforward(build, workload)
        offered += sum(len(finding.fixes) for finding in proven)
    assert offered > 0


@pytest.mark.long
@PROFILE
@given(builds())
def test_random_builds_get_the_same_fixes_as_the_straightforward_proving(build: BuildSpec) -> None:
    for workload in WORKLOADS[:2]:
        assert validate(build, snapshot=SNAPSHOT, workload=workload).findings == _straightforward(build, workload)


def _assert_yields_declared(build: BuildSpec, workload: Workload | None) -> None:
    ctx = rule_context(build, SNAPSHOT, workload)
    for rule, declared in zip(RULES, RULE_YIELDS, strict=True):
        yielded = {(finding.code, finding.severity) for finding in rule(ctx)}
        assert yielded <= declared, (rule.__name__, sorted(yielded - declared))


def test_every_declared_code_is_a_finding_code_and_every_rule_is_declared() -> None:
    assert set(YIELDS) == {rule_name(rule) for rule in RULES}
    codes = {code for pairs in YIELDS.values() for code, _ in pairs}
    assert codes <= {str(code) for code in FindingCode}


@pytest.mark.parametrize("workload", WORKLOADS, ids=["none", "70b", "8b-ecc"])
def test_declared_yields_cover_the_known_builds(workload: Workload | None) -> None:
    for build in KNOWN:
        _assert_yields_declared(build, workload)


@PROFILE
@given(builds())
def test_declared_yields_cover_random_builds(build: BuildSpec) -> None:
    for workload in WORKLOADS:
        _assert_yields_declared(build, workload)


def _assert_findings_only_finds_the_same(build: BuildSpec, workload: Workload | None) -> None:
    """Without fixes (proving's re-validations) every rule finds the same codes, severities and components."""
    ctx = rule_context(build, SNAPSHOT, workload)
    for rule in RULES:
        full = [(finding.code, finding.severity, finding.components) for finding in rule(ctx)]
        with findings_only():
            only = [(finding.code, finding.severity, finding.components) for finding in rule(ctx)]
        assert only == full, rule_name(rule)


@pytest.mark.parametrize("workload", WORKLOADS, ids=["none", "70b", "8b-ecc"])
def test_findings_only_finds_the_same_on_the_known_builds(workload: Workload | None) -> None:
    for build in KNOWN:
        _assert_findings_only_finds_the_same(build, workload)


@PROFILE
@given(builds())
def test_findings_only_finds_the_same_on_random_builds(build: BuildSpec) -> None:
    for workload in WORKLOADS:
        _assert_findings_only_finds_the_same(build, workload)
