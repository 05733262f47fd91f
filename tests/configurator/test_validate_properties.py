"""Properties of validate() over builds drawn from catalog parts (hypothesis).

- it never raises and is deterministic, findings ordered by (severity, code);
- adding a PSU (of the model already installed, within the bays; two at a time under N+N) never adds a
  power error;
- removing a GPU never adds a PCIe lanes, power or fit/cooling error (but the baseboard count, issue 12).
"""

from __future__ import annotations

import re
from dataclasses import replace

from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalog.fixture import fixture_snapshot
from configurator.engine.phrase import Phrase
from configurator.engine.types import REDUNDANCY_MODES, SITE_VOLTAGES, BuildSpec, FixOpKind, Line, Verdict
from configurator.engine.validate import SEVERITY_ORDER, validate
from configurator.templatetags.configurator_ui import say

SNAPSHOT = fixture_snapshot()
PROFILE = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _lines(kind: str, max_lines: int, max_qty: int) -> st.SearchStrategy[tuple[Line[object], ...]]:
    parts = SNAPSHOT.kind(kind)
    line = st.tuples(st.sampled_from(sorted(parts)), st.integers(1, max_qty))
    return st.lists(line, max_size=max_lines, unique_by=lambda pair: pair[0]).map(
        lambda chosen: tuple(Line(spec=parts[sku], qty=qty) for sku, qty in sorted(chosen))
    )


LINES = {
    "cpus": _lines("cpus", 2, 3),
    "gpus": _lines("gpus", 2, 9),
    "psus": _lines("psus", 2, 8),
    "memory": _lines("memory", 2, 32),
    "storage": _lines("storage", 2, 6),
    "nics": _lines("nics", 2, 3),
    "bridges": _lines("bridges", 2, 3),
}
CHASSIS = sorted(SNAPSHOT.chassis)
FITTING_CPUS = {
    sku: sorted(cpu.sku for cpu in SNAPSHOT.cpus.values() if cpu.socket == chassis.cpu_socket)
    for sku, chassis in SNAPSHOT.chassis.items()
}
FITTING_PSUS = {
    sku: sorted(psu.sku for psu in SNAPSHOT.psus.values() if psu.form_factor == chassis.psu_form_factor)
    for sku, chassis in SNAPSHOT.chassis.items()
}


@st.composite
def builds(draw: st.DrawFn) -> BuildSpec:
    chassis = SNAPSHOT.chassis[draw(st.sampled_from(CHASSIS))]
    # mostly parts that belong in this chassis, sometimes anything from the catalog
    if FITTING_CPUS[chassis.sku] and draw(st.booleans()):  # type: ignore[arg-type]
        cpu = SNAPSHOT.cpus[draw(st.sampled_from(FITTING_CPUS[chassis.sku]))]
        cpus: tuple[Line[object], ...] = (Line(cpu, draw(st.integers(1, chassis.cpu_sockets))),)
    else:
        cpus = draw(LINES["cpus"])
    if draw(st.booleans()):
        psu = SNAPSHOT.psus[draw(st.sampled_from(FITTING_PSUS[chassis.sku]))]
        psus: tuple[Line[object], ...] = (Line(psu, draw(st.integers(1, chassis.psu_bays))),)
    else:
        psus = draw(LINES["psus"])
    return BuildSpec(
        chassis=chassis,
        cpus=cpus,  # type: ignore[arg-type]
        gpus=draw(LINES["gpus"]),  # type: ignore[arg-type]
        psus=psus,  # type: ignore[arg-type]
        memory=draw(LINES["memory"]),  # type: ignore[arg-type]
        storage=draw(LINES["storage"]),  # type: ignore[arg-type]
        nics=draw(LINES["nics"]),  # type: ignore[arg-type]
        bridges=draw(LINES["bridges"]),  # type: ignore[arg-type]
        psu_redundancy=draw(st.sampled_from(REDUNDANCY_MODES)),
        site_voltage=draw(st.sampled_from(SITE_VOLTAGES)),
    )


def error_codes(verdict: Verdict, *prefixes: str) -> set[str]:
    return {finding.code for finding in verdict.errors if finding.code.startswith(prefixes)}


@PROFILE
@given(builds())
def test_deterministic_and_ordered(build: BuildSpec) -> None:
    first = validate(build, snapshot=SNAPSHOT)
    assert validate(build, snapshot=SNAPSHOT) == first
    order = [(SEVERITY_ORDER[finding.severity], finding.code) for finding in first.findings]
    assert order == sorted(order)
    assert first.valid == (not first.errors)
    for finding in first.findings:
        assert finding.code.count(".") == 1 and finding.message
        # every sentence can be said in Russian (a msgid with its values; no KeyError, no English left over)
        assert isinstance(finding.message, Phrase) and all(isinstance(fix.text, Phrase) for fix in finding.fixes)
        with translation.override("ru"):
            assert say(finding.message) != finding.message or not re.search(r"[a-z]{4,}", finding.message.template)
        for fix in finding.fixes:
            for step in fix.ops:
                kind = "chassis" if step.op == FixOpKind.SWAP_CHASSIS else step.kind
                # every part a fix buys is sold (removing one that is not, e.g. AWS's A10G, is a fix too)
                if step.sku is not None and kind is not None and step.op != FixOpKind.REMOVE:
                    assert SNAPSHOT.kind(kind)[step.sku].is_active, (finding.code, step)


@PROFILE
@given(builds())
def test_adding_a_psu_never_adds_a_power_error(build: BuildSpec) -> None:
    if len(build.psus) != 1:
        return
    step = 2 if build.psu_redundancy == "n+n" else 1
    line = build.psus[0]
    if line.qty + step > build.chassis.psu_bays:
        return
    more = replace(build, psus=(Line(spec=line.spec, qty=line.qty + step),))
    before = error_codes(validate(build, snapshot=SNAPSHOT), "power.")
    after = error_codes(validate(more, snapshot=SNAPSHOT), "power.")
    assert after <= before
    assert validate(more, snapshot=SNAPSHOT).power.capacity_w >= validate(build, snapshot=SNAPSHOT).power.capacity_w


@PROFILE
@given(builds(), st.data())
def test_removing_a_gpu_never_adds_a_lanes_power_or_fit_error(build: BuildSpec, data: st.DataObject) -> None:
    if not build.gpus:
        return
    index = data.draw(st.integers(0, len(build.gpus) - 1))
    line = build.gpus[index]
    left = (Line(spec=line.spec, qty=line.qty - 1),) if line.qty > 1 else ()
    rest = build.gpus[:index] + left + build.gpus[index + 1 :]
    fewer = replace(build, gpus=rest)
    prefixes = ("pcie.", "power.", "fit.", "cooling.")
    before = error_codes(validate(build, snapshot=SNAPSHOT), *prefixes)
    # issue 12: a fixed baseboard (HGX: 4 or 8 modules) is the one fit error fewer GPUs may bring
    after = error_codes(validate(fewer, snapshot=SNAPSHOT), *prefixes) - {"fit.baseboard_count"}
    assert after <= before
