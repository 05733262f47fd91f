"""Which catalog parts can go into a chassis at all: the build editor offers the others greyed, with the reason.

Only facts of one part against the chassis that no quantity or other part can change (the same comparisons as
the rules `fit.gpu_form_factor`, `fit.gpu_slot_width`, `fit.gpu_length`, `fit.gpu_tdp`, `cpu.socket`,
`memory.kind` / `memory.ecc_rdimm_required` and `power.psu_form_factor`, so an offered part never trips one
of them, and a greyed one always would: tests/configurator/test_part_fit.py checks both ways); the rules still
judge the build as a whole (counts, power, lanes).
"""

from __future__ import annotations

from typing import Any

from configurator.engine.phrase import Num, Phrase
from configurator.engine.rules.context import exceeds
from configurator.engine.types import ChassisSpec

FORM_FACTORS = {"pcie": "PCIe", "sxm": "SXM", "oam": "OAM"}


def _gpu_misfit(gpu: Any, chassis: ChassisSpec) -> Phrase | None:
    if gpu.form_factor != chassis.gpu_form_factor:
        return Phrase(
            "%(kind)s form factor; this chassis takes %(takes)s GPUs only",
            kind=FORM_FACTORS.get(gpu.form_factor, gpu.form_factor),
            takes=FORM_FACTORS.get(chassis.gpu_form_factor, chassis.gpu_form_factor),
        )
    if exceeds(gpu.slot_width, chassis.max_gpu_slot_width):
        return Phrase(
            "%(width)s slots wide; this chassis takes up to %(limit)s",
            width=Num(gpu.slot_width, None),
            limit=Num(chassis.max_gpu_slot_width or 0, None),
        )
    if exceeds(gpu.length_mm, chassis.max_gpu_length_mm):
        return Phrase(
            "%(length)s mm long; this chassis takes up to %(limit)s mm",
            length=Num(gpu.length_mm or 0),
            limit=Num(chassis.max_gpu_length_mm or 0),
        )
    if exceeds(gpu.tdp_w, chassis.max_gpu_tdp_w):
        return Phrase(
            "%(tdp)s W; this chassis cools up to %(limit)s W per GPU",
            tdp=Num(gpu.tdp_w),
            limit=Num(chassis.max_gpu_tdp_w),
        )
    return None


def part_misfit(kind: str, spec: Any, chassis: ChassisSpec | None) -> Phrase | None:
    """Why `spec` (a part of `kind`: gpus, cpus, memory, psus, …) cannot go into `chassis`; None when it can
    (or no chassis is chosen yet)."""
    if chassis is None:
        return None
    if kind == "gpus":
        return _gpu_misfit(spec, chassis)
    if kind == "cpus" and spec.socket != chassis.cpu_socket:
        return Phrase("socket %(socket)s; this chassis has %(takes)s", socket=spec.socket, takes=chassis.cpu_socket)
    if kind == "memory" and spec.kind != chassis.memory_kind:
        return Phrase(
            "%(kind)s; this chassis takes %(takes)s", kind=spec.kind.upper(), takes=chassis.memory_kind.upper()
        )
    if kind == "psus" and spec.form_factor != chassis.psu_form_factor:
        return Phrase(
            "%(kind)s unit; this chassis takes %(takes)s",
            kind=spec.form_factor.upper(),
            takes=chassis.psu_form_factor.upper(),
        )
    return None
