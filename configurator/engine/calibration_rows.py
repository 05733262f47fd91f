"""The calibration file, fixtures/decode_calibration.csv (pure; no Django): its rows, and the names of their
GPUs, models and quantizations in our catalog and model library (`configurator.engine.calibration` fits the
decode constants on them; bench/accuracy.py reads them).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from configurator.engine.frozen import direct_init

CALIBRATION_CSV = Path(__file__).resolve().parents[2] / "fixtures" / "decode_calibration.csv"


@direct_init
@dataclass(frozen=True, slots=True)
class CalibrationRow:
    gpu_name: str
    gpu_count: int
    model_name: str
    quant: str
    engine: str
    concurrency: str
    context: str
    tokens_per_s: float
    metric: str
    source: str


def read_calibration(path: Path = CALIBRATION_CSV) -> list[CalibrationRow]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            CalibrationRow(
                gpu_name=row["gpu"],
                gpu_count=int(row["gpu_count"]),
                model_name=row["model"],
                quant=row["quant_precision"],
                engine=row["engine"],
                concurrency=row["batch_or_concurrency"],
                context=row["context"],
                tokens_per_s=float(row["tokens_per_s"]),
                metric=row["metric"],
                source=row["source"],
            )
            for row in csv.DictReader(handle)
        ]


# GPU names of the calibration file → catalog SKUs (ARCHITECTURE.md §Catalog SKUs)
GPU_SKU_BY_NAME: dict[str, str] = {
    "RTX 3060 12GB": "rtx-3060-12gb", "RTX 3090": "rtx-3090", "RTX 4090": "rtx-4090", "RTX 5080": "rtx-5080",
    "RTX 5090": "rtx-5090", "RTX 5060 Ti 16GB": "rtx-5060-ti-16gb", "RTX A6000": "rtx-a6000",
    "RTX 6000 Ada": "rtx-6000-ada", "RTX PRO 6000 Blackwell": "rtx-pro-6000-blackwell",
    "RTX PRO 6000 Blackwell Max-Q": "rtx-pro-6000-blackwell-maxq",
    "RTX PRO 6000 Blackwell Server": "rtx-pro-6000-blackwell-server", "A10": "a10", "A30": "a30", "A40": "a40",
    "A100 PCIe 40GB": "a100-40gb-pcie", "A100 PCIe 80GB": "a100-80gb-pcie", "A100 SXM 80GB": "a100-80gb-sxm",
    "H100 PCIe 80GB": "h100-pcie", "H100 NVL": "h100-nvl", "H100 SXM 80GB": "h100-sxm", "H200 NVL": "h200-nvl",
    "H200 SXM 141GB": "h200-sxm", "B200 SXM": "b200-sxm", "L4": "l4", "L40": "l40", "L40S": "l40s", "T4": "t4",
    "RX 7900 XTX": "rx-7900-xtx", "Radeon PRO W7900": "radeon-pro-w7900", "MI300X": "mi300x",
    "RTX 3080 Ti": "rtx-3080-ti", "RTX 4080": "rtx-4080", "RTX 4070 Ti SUPER": "rtx-4070-ti-super",
    "RTX 5070 Ti": "rtx-5070-ti", "RTX 4000 Ada": "rtx-4000-ada", "RTX 5000 Ada": "rtx-5000-ada",
    "RTX A4000": "rtx-a4000", "A10G": "a10g", "MI325X": "mi325x",
}  # fmt: skip


def model_slug_for(name: str) -> str | None:
    """Library slug of a calibration row's model, None when the library has no such model."""
    text = name.lower()
    rules = (
        ("llama-3-8b", "llama-3-8b"),
        ("llama 8b (llama-3", "llama-3-8b"),
        ("llama-3-70b", "llama-3-70b"),
        ("llama-3.3-70b", "llama-3.3-70b"),
        ("llama-3.1-405b", "llama-3.1-405b"),
        ("llama 3.1 405b", "llama-3.1-405b"),
        ("llama-2-7b", "llama-2-7b"),
        ("llama 7b", "llama-2-7b"),
        ("deepseek-r1-distill 14b", "deepseek-r1-distill-qwen-14b"),
        ("deepseek-r1 671b", "deepseek-r1"),
        ("llama 3.2 3b", "llama-3.2-3b"),
        ("llama-3.2-3b", "llama-3.2-3b"),
        ("gpt-oss 20b", "gpt-oss-20b"),
        ("qwen3moe 30b.a3b", "qwen3-30b-a3b"),
        ("qwen3 14b", "qwen3-14b"),
        ("qwen2 32b", "qwen2.5-32b"),  # llama-bench names Qwen2.5-32B's architecture `qwen2 32B`
    )
    for needle, slug in rules:
        if needle in text:
            return slug
    return None


def precision_for(quant: str) -> str | None:
    """Our precision of a row's quantization; Ollama default tags are Q4_K_M (llama3.2:3b, deepseek-r1:14b)."""
    text = quant.lower()
    if text.startswith("f16"):
        return "fp16"
    for name in ("q4_k_m", "q4_k_s", "q4_0", "q8_0", "q6_k", "q5_k_m", "q3_k_m", "q2_k", "mxfp4"):
        if name in text:
            return name
    if text.startswith("fp8"):
        return "fp8"
    if text.startswith("fp4"):
        return "nvfp4"
    return None


def depth_for(row: CalibrationRow) -> int:
    """Mean context depth of the generated tokens: tg128 from an empty cache → 64; 1024 generated after a
    short prompt → ~560; `tg64 @ depth 4096` → 4128; Ollama obench (a few hundred tokens) → 400; llama-bench
    `pp512@d32768` at microbatch 1 (one token per step) → 33024."""
    metric = row.metric.lower()
    deep = re.search(r"@d(\d+)", metric)
    prompt = re.match(r"pp(\d+)", metric)
    if prompt and "microbatch 1" in metric:  # `pp` tokens one per step after `depth` cached ones
        return (int(deep.group(1)) if deep else 0) + int(prompt.group(1)) // 2
    if "d4096" in metric or "depth 4096" in row.context.lower():
        return 4096 + 32
    if "1024" in metric:
        return 560
    if metric.startswith("tg128"):
        return 64
    if metric.startswith("tg64"):
        return 32
    return 400


def is_single_stream(row: CalibrationRow) -> bool:
    return row.concurrency.strip() == "1"
