"""Workload fit: the estimate of the attached workload on this build's GPUs — VRAM per GPU and decode speed.

The figures are the estimator's (configurator/estimate.py, formulas and sources in its docstring);
this module only compares them with the build and names the GPU count or model that would fit.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from decimal import Decimal

from configurator.engine.errors import DomainError
from configurator.engine.estimate import estimate, min_gpus_to_fit
from configurator.engine.estimate.topology import Topology
from configurator.engine.estimate.weights import GIB
from configurator.engine.fixes import add_op, chassis_op, make_fix, replace_op, workload_fix
from configurator.engine.phrase import Num, Phrase, PhraseValue
from configurator.engine.precision_support import CHECKED_PRECISIONS, precision_support
from configurator.engine.rules.context import (
    MAX_FIXES,
    Rule,
    RuleContext,
    chassis_for_gpus,
    chassis_takes_gpu,
    fix_options,
)
from configurator.engine.types import BuildSpec, Estimate, Finding, Fix, FixOp, GpuSpec, Workload

MAX_GPUS = 16  # the estimator's search limit for "how many GPUs would fit"


# How the layout's parallelism is said in the VRAM error (the code itself, e.g. "data", is no sentence)
PARALLELISM_WORDS: dict[str, PhraseValue] = {
    "single": Phrase("one GPU"),
    "tensor": Phrase("tensor parallel"),
    "pipeline": Phrase("layers split across the GPUs"),
    "dp_attention": Phrase("data-parallel attention"),
    "data": Phrase("data parallel"),
}


def sizing_gpu(build: BuildSpec) -> GpuSpec | None:
    """The GPU the workload is sized on: the build's only model, or the one with the least VRAM when the
    build mixes models (a layer split is limited by its smallest card)."""
    if not build.gpus:
        return None
    return min((line.spec for line in build.gpus), key=lambda gpu: (gpu.vram_gib, gpu.sku))


def _gpus_op(build: BuildSpec, sku: str, count: int) -> FixOp:
    """`count` of the GPU `sku`: its line grows when the build has it, else it is added."""
    if any(line.spec.sku == sku for line in build.gpus):
        return replace_op("gpus", sku, count, old_sku=sku)
    return add_op("gpus", sku, count)


def workload_estimate(
    build: BuildSpec, workload: Workload | None, *, link_gbs: float | Topology | None
) -> tuple[Estimate | None, str | None]:
    """The estimate of `workload` on all the build's GPUs (None without a workload) and, when the
    estimator refuses the workload, its reason instead."""
    if workload is None:
        return None, None
    gpu = sizing_gpu(build)
    try:
        result = estimate(workload, gpu, max(build.gpu_count, 1), link_gbs=link_gbs, max_gpus=MAX_GPUS)
    except DomainError as exc:
        reasons = "; ".join(f"{name}: {' '.join(why)}" for name, why in sorted(exc.fields.items()))
        return None, exc.message + (f" ({reasons})" if reasons else "")
    return result, None


def estimate_problem(ctx: RuleContext) -> Iterator[Finding]:
    """ERROR: the estimator cannot size the workload as given (its reason, field by field)."""
    if ctx.workload is not None and ctx.estimate_problem:
        yield Finding(
            code="workload.estimate",
            severity="error",
            message=ctx.estimate_problem,
            components=(ctx.workload.model.slug,),
        )


def _gpu_fixes(ctx: RuleContext, workload: Workload) -> list[Fix]:
    """Catalog GPUs the chassis takes that fit the workload within the chassis' GPU count, cheapest first."""
    chassis = ctx.build.chassis
    most = min(chassis.max_gpu_count, chassis.gpu_bays)
    options: list[tuple[Decimal, GpuSpec, int]] = []
    for gpu in fix_options(ctx.snapshot.gpus):
        if not chassis_takes_gpu(chassis, gpu, 1):
            continue
        count = min_gpus_to_fit(workload, gpu, max_gpus=most)
        if count is not None and chassis_takes_gpu(chassis, gpu, count):
            options.append((gpu.price * count, gpu, count))
    options.sort(key=lambda option: (option[0], option[1].sku))
    return [
        make_fix(replace_op("gpus", gpu.sku, count), reason=Phrase("%(vram)s GB each", vram=Num(gpu.vram_gib, None)))
        for _, gpu, count in options[:2]
    ]


def _offload_fix(ctx: RuleContext, workload: Workload, sku: str, count: int) -> Fix | None:
    """Training that does not fit the GPUs: ZeRO-Offload (Ren et al., USENIX ATC 2021, arXiv 2101.06840; FSDP
    CPUOffload alike) keeps the optimizer states ("optimizer") and also the weights and gradients ("parameters")
    in host RAM. Offered as a decision about the workload (the build stays) when the estimator finds the same GPUs
    hold it and the build's RAM holds what moves there, with the training speed the estimator gives for it
    (estimate.training_speed: the PCIe traffic and the CPU's Adam step)."""
    gpu = ctx.snapshot.gpus.get(sku)
    if workload.task == "inference" or workload.offload != "none" or gpu is None or ctx.estimate is None:
        return None
    before = ctx.estimate.throughput.training_tokens_per_s if ctx.estimate.throughput else 0.0
    for offload in ("optimizer", "parameters"):
        try:
            result = estimate(replace(workload, offload=offload), gpu, count, link_gbs=ctx.link_gbs, max_gpus=MAX_GPUS)
        except DomainError:
            continue
        memory = result.memory
        host = memory.optimizer + (memory.weights + memory.gradients if offload == "parameters" else 0.0)
        if result.layout is None or not result.layout.fits or host * GIB > ctx.build.ram_gb * 1e9:
            continue
        after = result.throughput.training_tokens_per_s if result.throughput else 0.0
        return workload_fix(
            Phrase(
                'train with "offload": "%(offload)s" (ZeRO-Offload: %(host)s GiB in host RAM): %(per_gpu)s GiB '
                "per GPU fits; ≈ %(after)s training tokens/s instead of %(before)s",
                offload=offload,
                host=Num(host),
                per_gpu=Num(result.layout.per_gpu_gib, 1),
                after=Num(after),
                before=Num(before),
            )
        )
    return None


def vram_fit(ctx: RuleContext) -> Iterator[Finding]:
    """ERROR: per-GPU memory of the layout (weights + KV cache + activations + runtime) above the usable VRAM."""
    workload, result, build = ctx.workload, ctx.estimate, ctx.build
    if workload is None or result is None:
        return
    layout = result.layout
    if layout is None:
        yield Finding(
            code="workload.no_gpu",
            severity="error",
            message=Phrase(
                "The workload needs %(need)s GiB of GPU memory; the build has no GPU.",
                need=Num(result.memory.total, 1),
            ),
            measured=0,
            limit=round(result.memory.total, 2),
            unit="GiB",
            components=(workload.model.slug,),
            fixes=tuple(_gpu_fixes(ctx, workload)[:MAX_FIXES]),
        )
        return
    if layout.fits:
        return
    gpu = ctx.snapshot.gpus.get(layout.sku) or sizing_gpu(build)
    fixes: list[Fix] = []
    needed = layout.min_gpus_to_fit
    # more of the same GPU only while it is sold (an inactive part — end of life, cloud-only — is never bought)
    if gpu is not None and gpu.is_active and needed is not None and needed > layout.count:
        if chassis_takes_gpu(build.chassis, gpu, needed):
            fixes.append(
                make_fix(
                    add_op("gpus", gpu.sku, needed - layout.count),
                    reason=Phrase("%(needed)s GPUs hold the model", needed=needed),
                )
            )
        else:
            for chassis in chassis_for_gpus(ctx.snapshot, {gpu.sku: (gpu, needed)})[:1]:
                fixes.append(make_fix(chassis_op(chassis.sku), _gpus_op(build, gpu.sku, needed)))
    fixes.extend(fix for fix in _gpu_fixes(ctx, workload) if fix.ops[0].sku != layout.sku)
    offload = _offload_fix(ctx, workload, layout.sku, layout.count)
    fixes = fixes if offload is None else [*fixes[: MAX_FIXES - 1], offload]
    yield Finding(
        code="workload.vram",
        severity="error",
        message=Phrase(
            "%(model)s at %(precision)s needs %(per_gpu)s GiB per GPU on %(count)s× %(gpu)s (%(parallelism)s); "
            "each has %(usable)s GiB usable.",
            model=workload.model.slug,
            precision=workload.precision,
            per_gpu=Num(layout.per_gpu_gib, 1),
            count=layout.count,
            gpu=layout.sku,
            parallelism=PARALLELISM_WORDS.get(layout.parallelism, layout.parallelism),
            usable=Num(layout.usable_gib, 1),
        ),
        measured=round(layout.per_gpu_gib, 2),
        limit=round(layout.usable_gib, 2),
        unit="GiB",
        components=(layout.sku, workload.model.slug),
        fixes=tuple(fixes[:MAX_FIXES]),
    )


def decode_speed(ctx: RuleContext) -> Iterator[Finding]:
    """WARN: estimated decode tokens/s per user below the workload's target."""
    workload, result = ctx.workload, ctx.estimate
    if workload is None or result is None or workload.target_tokens_per_s is None:
        return
    layout, throughput = result.layout, result.throughput
    if layout is None or throughput is None or not layout.fits:
        return
    speed = throughput.decode_tokens_per_s_per_user
    if speed < workload.target_tokens_per_s:
        values: dict[str, PhraseValue] = {
            "speed": Num(speed, 1),
            "count": layout.count,
            "gpu": layout.sku,
            "target": Num(workload.target_tokens_per_s, None),
        }
        message = Phrase.plural(
            "About %(speed)s tokens/s per user on %(count)s× %(gpu)s with %(users)s concurrent user; "
            "the target is %(target)s.",
            "About %(speed)s tokens/s per user on %(count)s× %(gpu)s with %(users)s concurrent users; "
            "the target is %(target)s.",
            "users",
            users=workload.concurrent_users,
            **values,
        )
        yield Finding(
            code="workload.speed",
            severity="warning",
            message=message,
            measured=round(speed, 2),
            limit=workload.target_tokens_per_s,
            unit="tokens/s",
            components=(layout.sku, workload.model.slug),
        )


CUDA_ONLY_ENGINES = ("tensorrt-llm",)  # TensorRT-LLM runs on NVIDIA GPUs only (NVIDIA TensorRT-LLM docs)


def engine_support(ctx: RuleContext) -> Iterator[Finding]:
    """The software stack on non-NVIDIA GPUs.

    ERROR: TensorRT-LLM on a GPU that is not NVIDIA's. WARNING: training (LoRA / QLoRA / full) or a
    production service on AMD GPUs — ROCm runs llama.cpp inference well, but "совместимость с
    конкретными инструментами приходится проверять" (bitsandbytes for QLoRA, DeepSpeed, vLLM kernels),
    and for training and serious production "дорога по-прежнему ведёт к NVIDIA"
    (../shared/reference/gpu-guide-2026.ru.txt, «Почему в рейтинге почти нет AMD»)."""
    workload = ctx.workload
    if workload is None:
        return
    others = sorted({line.spec.sku for line in ctx.build.gpus if line.spec.vendor != "NVIDIA"})
    if not others:
        return
    if workload.engine in CUDA_ONLY_ENGINES:
        yield Finding(
            code="workload.engine_support",
            severity="error",
            message=Phrase(
                "%(engine)s runs on NVIDIA GPUs only; %(gpus)s cannot run it.",
                engine=workload.engine,
                gpus=", ".join(others),
            ),
            measured=workload.engine,
            limit="NVIDIA (CUDA)",
            components=tuple(others),
            fixes=(workload_fix(Phrase("use llama.cpp or vLLM (ROCm), or NVIDIA GPUs")),),
        )
        return
    if workload.task != "inference" or workload.production or workload.require_ecc:
        gpus = ", ".join(others)
        message = (
            Phrase(
                "%(gpus)s use ROCm: check every library of the training stack "
                "(PyTorch, bitsandbytes, DeepSpeed, vLLM kernels) on this GPU before committing to it.",
                gpus=gpus,
            )
            if workload.task != "inference"
            else Phrase(
                "%(gpus)s use ROCm: check every library of the production service stack "
                "(PyTorch, bitsandbytes, DeepSpeed, vLLM kernels) on this GPU before committing to it.",
                gpus=gpus,
            )
        )
        yield Finding(
            code="workload.rocm_stack",
            severity="warning",
            message=message,
            measured="ROCm",
            limit="CUDA",
            components=tuple(others),
        )


def precision_kernels(ctx: RuleContext) -> Iterator[Finding]:
    """ERROR: a GPU no engine runs the checkpoint's precision on (NVFP4 on AMD MI300X or RDNA3, FP8 on RDNA3);
    WARNING: a GPU that runs it weight-only, dequantized to FP16 in the kernel (FP8 before Ada, NVFP4 before
    Blackwell): decode reads the smaller weights, prefill and batches run at the FP16 rate (the estimate
    credits no FP8/FP4 peak there: `estimate.speed._peak_flops`). Sources: `precision_support`."""
    workload = ctx.workload
    if workload is None or workload.task != "inference" or workload.precision not in CHECKED_PRECISIONS:
        return
    gpus = {line.spec.sku: line.spec for line in ctx.build.gpus}
    by_support: dict[str, list[str]] = {}
    for sku, gpu in sorted(gpus.items()):
        by_support.setdefault(precision_support(gpu, workload.precision), []).append(sku)
    precision = workload.precision.upper()
    if by_support.get("none"):
        names = ", ".join(by_support["none"])
        yield Finding(
            code="workload.precision_unsupported",
            severity="error",
            message=Phrase(
                "%(gpus)s cannot run %(precision)s checkpoints: no engine has %(precision)s kernels for this GPU "
                "(no %(precision)s tensor cores and no weight-only kernel).",
                gpus=names,
                precision=precision,
            ),
            measured=workload.precision,
            components=tuple(by_support["none"]),
            fixes=(workload_fix(Phrase("use BF16, INT4 (AWQ/GPTQ) or a GGUF type, or GPUs that run it")),),
        )
    if by_support.get("weight_only"):
        yield Finding(
            code="workload.precision_weight_only",
            severity="warning",
            message=Phrase(
                "%(gpus)s have no %(precision)s tensor cores: the engine runs %(precision)s weight-only "
                "(Marlin, dequantized to FP16), so prompts and large batches go at the FP16 rate.",
                gpus=", ".join(by_support["weight_only"]),
                precision=precision,
            ),
            measured=workload.precision,
            components=tuple(by_support["weight_only"]),
        )


RULES = (estimate_problem, vram_fit, decode_speed, engine_support, precision_kernels)
# the build fields these rules (findings and fixes) read: after a fix that changes none, they are not re-run
READS = frozenset({"bridges", "chassis", "cpus", "gpus"})
# rules that read fewer fields than the module's READS (the same check covers them): a fix that changes
# none of these leaves their findings standing
READS_BY_RULE: dict[Rule, frozenset[str]] = {
    engine_support: frozenset({"gpus"}),
    precision_kernels: frozenset({"gpus"}),
}
