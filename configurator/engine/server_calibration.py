"""Server engines (vLLM, SGLang, TensorRT-LLM): the published measurements and the fits of their constants
(pure; no Django).

fixtures/server_speed.csv holds two kinds of row, each with its source, engine version and settings:
- `per_user`: decode tokens/s of one user while `concurrency` users run (1000 / TPOT), TP over NVSwitch;
- `total_output`: output tokens/s of the whole build with every request queued (prefill included).

Columns: gpu (calibration_rows.GPU_SKU_BY_NAME), gpu_count, model (library slug), precision, kv_cache, engine,
engine_version, parallelism (`TP<k>` one instance; `<r>xTP<k>` r data-parallel replicas of k GPUs each,
`ServerRow.replicas`), concurrency (users, or `max`), isl / osl (mean prompt / output tokens per request), metric,
tokens_per_s, source (publication, file or page, and the figure as printed), notes (settings, conversions, what is
assumed and marked UNCONFIRMED), an unnamed empty column, requests (requests of a finite run or the batch of a
static-batch run: no more sequences run at once; empty when the engine's own cap and memory decide).

A per-user row is predicted by `estimate.serving.decode_per_user`, what estimate() answers: one decode step
of the row's users (`estimate.speed.StepTerms`: bytes each GPU reads / bandwidth, layers, all-reduce time)
plus the other users' prompts prefilled meanwhile, and

    1 / per-user tokens/s = bytes_s / η_bw + layers × τ_layer + mla_layers × τ_mla + allreduce_s + others' prefill

is fitted by least squares on relative error (`fit_server`: three parameters, pooled over the engines; every
published server row is a CUDA-graph replay on H100/H200/B200, too few rows per engine to fit each apart).
A full-load row is predicted by `estimate.serving.served_throughput`, whose two free constants are the share of
the tensor-core peak that prefill and compute-bound decode reach, with the share of it the MoE grouped GEMMs
reach (`fit_server_prefill`, a 2-D grid search); the others' prefill of a per-user row takes them from there.
bench/accuracy.py judges both leave-one-source-out (`calibration.source_group`) next to a constant-η rule.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from configurator.engine.calibration import (
    SERVER_FIT_SOURCE,
    DecodeConstants,
    _solve,
    engine_mfu,
    era_of,
    percentile,
    source_group,
)
from configurator.engine.calibration_rows import GPU_SKU_BY_NAME
from configurator.engine.estimate.serving import prompt_prefill_s
from configurator.engine.estimate.speed import quantized_gemms, workload_step_terms
from configurator.engine.estimate.topology import Topology, built_in_link
from configurator.engine.frozen import direct_init
from configurator.engine.models_library import model_get
from configurator.engine.specs import GpuSpec
from configurator.engine.types import Workload

SERVER_CSV = Path(__file__).resolve().parents[2] / "fixtures" / "server_speed.csv"
HELD_OUT = "HELD OUT"  # the notes of a row judged but never fitted (ServerRow.held_out)


@direct_init
@dataclass(frozen=True, slots=True)
class ServerRow:
    gpu_name: str
    gpu_count: int
    model: str  # library slug
    precision: str
    kv_cache: str
    engine: str
    engine_version: str
    parallelism: str
    concurrency: str  # a number, or "max" (every request queued)
    prompt_tokens: int
    output_tokens: int
    metric: str  # per_user | total_output
    tokens_per_s: float
    source: str
    notes: str
    requests: int = 0  # requests in the run (full-load rows): no more sequences than that can ever run at once

    @property
    def held_out(self) -> bool:
        """A row kept out of every fit (notes start "HELD OUT"): bench/accuracy_server.py judges it apart, so it
        checks the constants without having shaped them (the MI325X's MLPerf row, measured after they were set)."""
        return self.notes.startswith(HELD_OUT)

    @property
    def replicas(self) -> int:
        """Data-parallel engine instances of the run, each on gpu_count / replicas GPUs: `8xTP1` → 8 (MLPerf's
        8 × H200 runs one Llama-2-70B per GPU); `TP8`, `TP8 + DP attention` → 1 (one instance on all GPUs)."""
        match = re.match(r"\s*(\d+)\s*x\s*TP", self.parallelism)
        return int(match.group(1)) if match else 1


def read_server_rows(path: Path = SERVER_CSV) -> list[ServerRow]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            ServerRow(
                gpu_name=row["gpu"],
                gpu_count=int(row["gpu_count"]),
                model=row["model"],
                precision=row["precision"],
                kv_cache=row["kv_cache"],
                engine=row["engine"],
                engine_version=row["engine_version"],
                parallelism=row["parallelism"],
                concurrency=row["concurrency"],
                prompt_tokens=int(row["isl"]),
                output_tokens=int(row["osl"]),
                metric=row["metric"],
                tokens_per_s=float(row["tokens_per_s"]),
                source=row["source"],
                notes=row["notes"],
                requests=int(row["requests"] or 0),
            )
            for row in csv.DictReader(handle)
        ]


@direct_init
@dataclass(frozen=True, slots=True)
class ServerSample:
    """One per-user row reduced to the terms of a decode step (seconds)."""

    label: str
    seconds_per_token: float  # measured: 1 / per-user tokens/s
    bytes_s: float
    compute_s: float
    layers: int
    allreduce_s: float
    era: str = "current"
    # seconds per decode step the GPUs spend on the other users' prompts ((N − 1) × prompt / output prompts,
    # estimate.serving.decode_per_user), at the prefill MFU the samples were made with
    others_prefill_s: float = 0.0
    mla_layers: int = 0  # multi-head latent attention layers (StepTerms.mla_layers)


@direct_init
@dataclass(frozen=True, slots=True)
class ServerFit:
    eta: float
    tau_layer_s: float
    tau_mla_layer_s: float = 0.0

    def seconds_per_token(self, sample: ServerSample, mfu: float) -> float:
        memory = sample.bytes_s / self.eta
        fixed = sample.layers * self.tau_layer_s + sample.mla_layers * self.tau_mla_layer_s
        fixed += sample.allreduce_s + sample.others_prefill_s
        return max(memory, sample.compute_s / mfu) + fixed

    def constants(self) -> DecodeConstants:
        """The decode constants of this fit, as estimate() takes them (`calibration.DECODE_CONSTANTS`)."""
        return DecodeConstants(self.eta, self.tau_layer_s, 0.0, SERVER_FIT_SOURCE, tau_mla_layer_s=self.tau_mla_layer_s)


def fit_server(samples: Sequence[ServerSample]) -> ServerFit:
    """Least squares on relative error of t − allreduce − others' prefill = bytes_s·(1/η) + layers·τ_layer
    + mla_layers·τ_mla (memory-bound steps: at the published concurrencies the FLOPs of a step are < 5 % of its
    bytes' time). τ_mla is fitted only when the samples hold MLA and other rows alike; otherwise no row separates
    it from τ_layer and it is 0 (not invented)."""
    size = 3 if any(s.mla_layers for s in samples) and not all(s.mla_layers for s in samples) else 2
    design = [
        [s.bytes_s / s.seconds_per_token, s.layers / s.seconds_per_token, s.mla_layers / s.seconds_per_token][:size]
        for s in samples
    ]
    target = [(s.seconds_per_token - s.allreduce_s - s.others_prefill_s) / s.seconds_per_token for s in samples]
    normal = [[sum(row[i] * row[j] for row in design) for j in range(size)] for i in range(size)]
    rhs = [sum(row[i] * y for row, y in zip(design, target, strict=True)) for i in range(size)]
    inverse_eta, tau, *extra = _solve(normal, rhs)
    return ServerFit(1.0 / inverse_eta, tau, extra[0] if extra else 0.0)


def constant_eta_server(samples: Sequence[ServerSample]) -> float:
    """The constant-efficiency rule fitted the same way: median η = bytes_s / measured seconds per token."""
    return percentile((s.bytes_s / s.seconds_per_token for s in samples), 0.5)


def fit_server_prefill(predict: Callable[[float, float], Sequence[float]]) -> tuple[float, float]:
    """(MFU, MoE grouped-GEMM efficiency) whose predictions (`predict(mfu, efficiency)` → predicted / measured
    per row) have the smallest mean absolute log error (every row counts: the efficiency moves only the MoE rows,
    which a median could ignore): MFU 0.20–0.90 in steps of 0.02, efficiency 1.0 down to
    0.1 in steps of 0.1. A row without MoE does not depend on the efficiency, so rows without MoE leave it at
    1.0: a parameter no training row determines is not invented (ties keep the first, higher value)."""
    best, best_error = (0.5, 1.0), math.inf
    for step in range(10, 46):
        for tenth in range(10, 0, -1):
            mfu, efficiency = step / 50, tenth / 10
            logs = [abs(math.log(ratio)) for ratio in predict(mfu, efficiency)]
            error = sum(logs) / len(logs)
            if error < best_error - 1e-12:
                best, best_error = (mfu, efficiency), error
    return best


def row_workload(row: ServerRow, users: int) -> Workload:
    """The workload of a row: its requests (prompt and output tokens), `users` at once."""
    return Workload(
        model=model_get(row.model),
        precision=row.precision,
        kv_cache_precision=row.kv_cache,
        context_tokens=row.prompt_tokens + row.output_tokens,
        concurrent_users=users,
        engine=row.engine,
        prompt_tokens=row.prompt_tokens,
        output_tokens=row.output_tokens,
    )


def nvswitch_gbs(gpu: GpuSpec, count: int = 1) -> float | Topology | None:
    """The published server runs' link, as POST /api/v1/estimate takes it (`topology.built_in_link`): on 8-GPU
    baseboards HGX (GPUs joined by NVSwitch) or AMD's UBB (every OAM GPU linked to every other by Infinity
    Fabric, the catalog's `nvlink_gbs`); more GPUs are servers joined by the network."""
    return built_in_link(gpu, count)


def server_samples(
    rows: Sequence[ServerRow],
    gpus: Mapping[str, GpuSpec],
    *,
    mfu: float | None = None,
    moe_efficiency: float | None = None,
    engine_factor: float | None = None,
) -> list[ServerSample]:
    """Per-user rows reduced to the decode-step terms estimate() uses (KV at prompt + output/2), with the time
    the other users' prompts take per step (`serving.prompt_prefill_s` at `mfu` — the pooled MFU, × the row's
    engine factor, `calibration.engine_mfu` — and `moe_efficiency`, default the shipped ones; its activation
    traffic at the shipped η, a few per cent of a prompt's time)."""
    samples = []
    for row in rows:
        gpu = gpus[GPU_SKU_BY_NAME[row.gpu_name]]
        users = int(row.concurrency)
        workload = row_workload(row, users)
        link = nvswitch_gbs(gpu, row.gpu_count)
        terms = workload_step_terms(workload, gpu, row.gpu_count, link)
        quantized = quantized_gemms(gpu, row.precision, row.engine)
        prompt_s = prompt_prefill_s(
            workload, gpu, row.gpu_count, prompt_tokens=row.prompt_tokens, output_tokens=row.output_tokens,
            link_gbs=link, moe_efficiency=moe_efficiency,
            mfu=mfu and engine_mfu(row.engine, mfu, engine_factor, quantized=quantized),
        )  # fmt: skip
        era = era_of(source_group(row.source))
        label = f"{row.gpu_name} ×{row.gpu_count} {row.model} {row.engine} {row.engine_version} b={users}"
        seconds = 1 / row.tokens_per_s
        others = (users - 1) * prompt_s / row.output_tokens
        step = (terms.bytes_s, terms.compute_s, terms.layers, terms.allreduce_s)
        samples.append(ServerSample(label, seconds, *step, era, others, terms.mla_layers))
    return samples
