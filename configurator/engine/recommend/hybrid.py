"""CPU offload for one user of a mixture-of-experts giant: llama.cpp with the routed experts in system RAM.

llama.cpp keeps chosen tensors in host memory (`--override-tensor exps=CPU`, PR #11397,
https://github.com/ggml-org/llama.cpp/pull/11397; `--cpu-moe` / `--n-cpu-moe`, PR #15077,
https://github.com/ggml-org/llama.cpp/pull/15077): attention, the shared experts, the embeddings and the KV
cache stay on one GPU, the routed experts — most of the bytes, a few of which each token reads — are read by
the CPU from RAM. One user's decode is then bandwidth-bound twice over:

    seconds per token = routed bytes read / (η_ram × RAM bandwidth) + the rest read / (η_gpu × GPU bandwidth)

- routed bytes read per token: the experts' bytes × active / total experts (`weights.weight_profile`);
- RAM bandwidth: one socket's channels × the DIMM speed (MT/s, the CPU's 2-DIMMs-per-channel speed when the
  build runs two) × 8 bytes — one socket, as the offload runs best NUMA-local (`numactl -N 1 -m 1` in the
  KTransformers tutorial below; llama.cpp reads across sockets no faster);
- η_ram = 0.40, HEURISTIC, calibrated on the one published single-socket measurement with the experts in RAM:
  KTransformers V0.2, DeepSeek-V3 Q4_K_M, 8 experts, one Xeon Gold 6454S (8 × DDR5-4800 = 307 GB/s) and one
  RTX 4090: 8.73 tokens/s decode
  (https://github.com/kvcache-ai/ktransformers/blob/main/doc/en/DeepseekR1_V3_tutorial.md, "V0.2 Benchmark
  Results"); llama.cpp places the same tensors with `--cpu-moe`, and its older layer offload reached 4.51
  tokens/s on that box, so the figure is what a tuned setup reaches, not a floor;
- η_gpu = 0.70, HEURISTIC: a mat-vec kernel's share of the GPU's datasheet bandwidth (the estimator's
  calibration, engine/calibration.py, fits 0.6-0.8 for one stream).

Offered beside the all-GPU builds, never instead: for one user (no batching, the CPU has no spare bandwidth
for a second stream), for MoE models whose weights need more than `HYBRID_MIN_WEIGHTS_GIB` at the precision
asked; the build is validated by the same hardware rules as any other (without the workload's VRAM rule,
which assumes every weight on the GPUs).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from configurator.engine.builds import build_price
from configurator.engine.estimate import estimate
from configurator.engine.estimate.weights import GIB, weight_profile
from configurator.engine.frozen import direct_init
from configurator.engine.phrase import Num, Phrase
from configurator.engine.recommend.assembly import complete_builds
from configurator.engine.recommend.parts import snapshot_parts
from configurator.engine.recommend.policy import (
    DEFAULT_RESERVE,
    GpuOption,
    VramReserve,
    drive_for,
    gpu_pool,
    takes,
)
from configurator.engine.types import BuildSpec, Candidate, CatalogSnapshot, Constraints, GpuSpec, Workload
from configurator.engine.validate import validate

RAM_ETA = 0.40  # HEURISTIC, calibrated (module docstring): KTransformers single socket, DeepSeek-V3 Q4_K_M
GPU_ETA = 0.70  # HEURISTIC: one stream's mat-vec share of the GPU's datasheet bandwidth
HYBRID_MIN_WEIGHTS_GIB = 150.0  # smaller MoE models fit one or two GPUs whole, faster
HYBRID_GPUS_TRIED = 3  # the cheapest GPUs that hold the non-expert part, each in its cheapest valid build
RAM_HEADROOM = 1.1  # RAM for the experts plus the OS, the page cache of the model file's other parts


@direct_init
@dataclass(frozen=True, slots=True)
class HybridOption:
    candidate: Candidate  # the build (validated, priced) with its estimated speed
    ram_gbs: float  # one socket's RAM bandwidth, GB/s
    cpu_gb_per_token: float  # routed-expert bytes read from RAM per token, GB
    gpu_gb_per_token: float  # the rest read from VRAM per token, GB
    gpu_need_gib: float  # VRAM the GPU part needs: non-expert weights, KV cache, activations, overhead


# a Hugging Face quantization as llama.cpp loads the same bits: its GGUF counterpart
GGUF_FOR = {"fp8": "q8_0", "int8": "q8_0", "int4": "q4_k_m", "nvfp4": "q4_k_m"}


def as_llama_cpp(workload: Workload) -> Workload:
    """The workload as llama.cpp runs it: a GGUF type for a Hugging Face quantization, a KV cache it has."""
    precision = GGUF_FOR.get(workload.precision, workload.precision)
    kv = "q8_0" if workload.kv_cache_precision == "fp8" else workload.kv_cache_precision
    return replace(workload, engine="llama.cpp", precision=precision, kv_cache_precision=kv)


def hybrid_wanted(workload: Workload) -> bool:
    """One user of a mixture-of-experts model too big for one or two GPUs at the precision asked."""
    model = workload.model
    if workload.task != "inference" or workload.concurrent_users != 1 or not model.experts:
        return False
    return weight_profile(model, workload.precision).total_bytes / GIB >= HYBRID_MIN_WEIGHTS_GIB


def ram_bandwidth_gbs(build: BuildSpec) -> float:
    """One socket's RAM bandwidth: its share of the populated channels × the DIMM speed × 8 bytes."""
    if not build.memory or not build.cpus:
        return 0.0
    cpu, dimm = build.cpus[0].spec, build.memory[0].spec
    chassis = build.chassis
    channels = chassis.memory_channels // max(chassis.cpu_sockets, 1)
    per_channel = build.memory[0].qty / max(chassis.memory_channels, 1)
    cpu_speed = cpu.memory_speed_2dpc_mts if per_channel > 1 and cpu.memory_speed_2dpc_mts else cpu.memory_speed_mts
    speed = min(cpu_speed, dimm.speed_mts)
    return channels * speed * 8 / 1000


def hybrid_speed(workload: Workload, gpu: GpuSpec, ram_gbs: float) -> tuple[float, float, float]:
    """(tokens/s for one user, GB read from RAM per token, GB read from VRAM per token)."""
    model = workload.model
    profile = weight_profile(model, workload.precision)
    cpu_bytes = profile.routed_bytes * model.active_experts / model.experts
    gpu_bytes = max(profile.read_bytes_per_token - cpu_bytes, 0.0)
    seconds = cpu_bytes / (RAM_ETA * ram_gbs * 1e9) + gpu_bytes / (GPU_ETA * gpu.bandwidth_gbs * 1e9)
    return 1 / seconds, cpu_bytes / 1e9, gpu_bytes / 1e9


def gpu_need_gib(workload: Workload) -> float:
    """VRAM the GPU part needs: the weights that are not routed experts, the KV cache, activations, overhead."""
    profile = weight_profile(workload.model, workload.precision)
    memory = estimate(workload).memory
    resident = (profile.total_bytes - profile.routed_bytes) / GIB
    return resident + memory.kv_cache + memory.activations + memory.overhead


def hybrid_options(
    snapshot: CatalogSnapshot,
    workload: Workload,
    constraints: Constraints,
    *,
    vat_percent: Decimal = Decimal(22),
    reserve: VramReserve = DEFAULT_RESERVE,
) -> tuple[HybridOption, ...]:
    """The cheapest valid hybrid build per GPU model (the `HYBRID_GPUS_TRIED` cheapest GPUs that hold the GPU
    part), cheapest first; () when the workload is not one for it (`hybrid_wanted`)."""
    if not hybrid_wanted(workload):
        return ()
    run = as_llama_cpp(workload)
    need = gpu_need_gib(run)
    drive = drive_for(snapshot, run)
    if drive is None:
        return ()
    parts = snapshot_parts(snapshot)
    pool = parts.chassis_pool(constraints)
    weights_gib = weight_profile(run.model, run.precision).total_bytes / GIB
    gpus = sorted(
        (g for g in gpu_pool(snapshot, run, constraints) if reserve.usable_gib(g.vram_gib) >= need),
        key=lambda g: (g.price, g.sku),
    )
    plain = estimate(run)
    found: list[HybridOption] = []
    for gpu in gpus:
        if len(found) >= HYBRID_GPUS_TRIED:
            break
        option = GpuOption(gpu=gpu, count=1, workload=run, estimate=plain, link_gbs=None, bridges=())
        best: tuple[Decimal, BuildSpec] | None = None
        for chassis in pool:
            if not takes(chassis, gpu, 1):
                continue
            for build in complete_builds(
                snapshot, chassis, option, parts.cpus(chassis), drive, constraints, every_psu_set=False
            ):
                if build.ram_gb < weights_gib * RAM_HEADROOM:
                    continue
                price = build_price(build, vat_percent=vat_percent).gross
                if constraints.max_price is not None and price > constraints.max_price:
                    continue
                if best is not None and price >= best[0]:
                    continue
                if validate(build, snapshot=snapshot).errors:
                    continue
                best = (price, build)
                break  # the cheapest CPU of this chassis that validates
        if best is None:
            continue
        build = best[1]
        gbs = ram_bandwidth_gbs(build)
        speed, cpu_gb, gpu_gb = hybrid_speed(run, gpu, gbs)
        verdict = validate(build, snapshot=snapshot)
        candidate = Candidate(
            build=build,
            verdict=verdict,
            price=build_price(build, vat_percent=vat_percent),
            decode_tokens_per_s_per_user=speed,
            decode_tokens_per_s_total=speed,
        )
        found.append(HybridOption(candidate, gbs, cpu_gb, gpu_gb, need))
    return tuple(sorted(found, key=lambda option: option.candidate.price.gross))


def hybrid_phrase(option: HybridOption) -> Phrase:
    """The option as a suggestion says it: the build, its price, RAM, the speed and where it comes from."""
    candidate = option.candidate
    build = candidate.build
    return Phrase(
        "CPU offload (llama.cpp --cpu-moe: the routed experts in system RAM, attention and KV cache on the GPU): "
        "1× %(gpu)s in %(chassis)s with %(ram)s GB RAM, %(amount)s %(currency)s, ≈ %(speed)s tokens/s for one "
        "user (%(cpu_gb)s GB a token from RAM at %(gbs)s GB/s, %(gpu_gb)s GB from VRAM; estimate calibrated on "
        "KTransformers' single-socket DeepSeek-V3 figure)",
        gpu=build.gpus[0].spec.sku,
        chassis=build.chassis.sku,
        ram=Num(build.ram_gb),
        amount=Num(candidate.price.gross),
        currency=candidate.price.currency,
        speed=Num(candidate.decode_tokens_per_s_per_user, 1),
        cpu_gb=Num(option.cpu_gb_per_token, 1),
        gbs=Num(option.ram_gbs),
        gpu_gb=Num(option.gpu_gb_per_token, 1),
    )
