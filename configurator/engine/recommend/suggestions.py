"""When nothing fits: what would (lifted limits, a lighter workload)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from configurator.engine.phrase import Num, Phrase
from configurator.engine.recommend.policy import needs_ecc
from configurator.engine.types import Candidate, Constraints, Workload

# The cheapest candidate the search finds for a workload and constraints on the same catalog (None: none).
Cheapest = Callable[[Workload, Constraints], Candidate | None]


def what_would_fit(workload: Workload, constraints: Constraints, cheapest: Cheapest) -> tuple[Phrase, ...]:
    """Say what would work. First the constraints: the cheapest build with every limit lifted, and which
    limits it needs lifted (budget, form factor, GPU count, power, chassis list, site voltage). Then the
    workload: a lighter precision, a shorter context, LoRA instead of full fine-tuning, no ECC."""
    tips: list[Phrase] = []
    open_limits = replace(
        constraints,
        max_price=None,
        form_factor="any",
        max_power_w=None,
        max_gpus=None,
        chassis=(),
        site_voltage=230,
    )
    lifted = cheapest(workload, open_limits) if open_limits != constraints else None
    if lifted is not None:
        build, gross = lifted.build, lifted.price.gross
        what = Phrase(
            "%(count)s× %(gpu)s in %(chassis)s",
            count=build.gpu_count,
            gpu=build.gpus[0].spec.sku,
            chassis=build.chassis.sku,
        )
        if constraints.max_price is not None and gross > constraints.max_price:
            tips.append(
                Phrase(
                    "raise the budget to %(amount)s %(currency)s (%(what)s)",
                    amount=Num(gross),
                    currency=lifted.price.currency,
                    what=what,
                )
            )
        if constraints.form_factor == "workstation" and not build.chassis.is_workstation:
            tips.append(Phrase("allow rack servers (%(what)s)", what=what))
        if constraints.form_factor == "rack" and not build.chassis.is_rack:
            tips.append(Phrase("allow tower workstations (%(what)s)", what=what))
        if constraints.max_gpus is not None and build.gpu_count > constraints.max_gpus:
            tips.append(Phrase("allow %(count)s GPUs (%(what)s)", count=build.gpu_count, what=what))
        if constraints.max_power_w is not None and lifted.verdict.power.load_w > constraints.max_power_w:
            tips.append(Phrase("allow %(load)s W of load (%(what)s)", load=Num(lifted.verdict.power.load_w), what=what))
        if constraints.chassis and build.chassis.sku not in constraints.chassis:
            tips.append(Phrase("allow chassis %(chassis)s", chassis=build.chassis.sku))
        if constraints.site_voltage == 120:
            tips.append(Phrase("use a 200–240 V circuit (%(what)s)", what=what))
    heavier = ("fp32", "bf16", "fp16", "fp8", "int8", "q8_0", "q6_k", "q5_k_m", "q5_k_s")
    if workload.task == "inference" and workload.precision in heavier:
        for lighter, engine in (("q4_k_m", "llama.cpp"), ("int4", "vllm")):
            smaller = cheapest(replace(workload, precision=lighter, engine=engine), constraints)
            if smaller:
                tips.append(
                    Phrase(
                        "quantize to %(precision)s (%(engine)s): %(count)s× %(gpu)s from %(amount)s %(currency)s",
                        precision=lighter.upper(),
                        engine=engine,
                        count=smaller.build.gpu_count,
                        gpu=smaller.build.gpus[0].spec.sku,
                        amount=Num(smaller.price.gross),
                        currency=smaller.price.currency,
                    )
                )
                break
    if workload.task == "inference" and workload.context_tokens > 8192:
        shorter = cheapest(replace(workload, context_tokens=8192), constraints)
        if shorter:
            tips.append(
                Phrase("shorten the context to %(tokens)s tokens (the KV cache shrinks with it)", tokens=Num(8192))
            )
    if workload.task == "full_finetune":
        lora = cheapest(replace(workload, task="lora"), constraints)
        if lora:
            tips.append(
                Phrase(
                    "fine-tune with LoRA instead: %(count)s× %(gpu)s",
                    count=lora.build.gpu_count,
                    gpu=lora.build.gpus[0].spec.sku,
                )
            )
    if needs_ecc(workload, constraints):
        relaxed = cheapest(
            replace(workload, require_ecc=False, production=False), replace(constraints, require_ecc=False)
        )
        if relaxed:
            tips.append(
                Phrase("without the ECC requirement %(gpu)s builds would fit", gpu=relaxed.build.gpus[0].spec.sku)
            )
    if not tips:
        tips.append(Phrase("no catalog build fits this workload; ask a sales engineer for a multi-node cluster"))
    return tuple(tips)
