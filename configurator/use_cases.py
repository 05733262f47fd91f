"""The article's use cases (../shared/reference/gpu-guide-2026.ru.txt) as ready workloads.

Tests, `make bench` and the workload page's presets share them, so "the ten workloads" mean the same
thing everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.models_library import model_get
from configurator.engine.types import Constraints, Workload


@dataclass(frozen=True, slots=True)
class UseCase:
    slug: str
    title: str
    workload: Workload
    constraints: Constraints


def use_cases() -> tuple[UseCase, ...]:
    m = model_get
    return (
        UseCase(
            "beginner-chat",
            "beginner 7B Q4 chat",
            Workload(m("llama-3.1-8b"), precision="q4_k_m", engine="llama.cpp", context_tokens=4096),
            Constraints(),
        ),
        UseCase(
            "30b-workstation",
            "30B Q4 on a workstation",
            Workload(m("qwen2.5-32b"), precision="q4_k_m", engine="llama.cpp", context_tokens=8192),
            Constraints(form_factor="workstation"),
        ),
        UseCase(
            "70b-team",
            "70B Q4 for a team",
            Workload(
                m("llama-3.1-70b"), precision="q4_k_m", engine="llama.cpp", context_tokens=8192, concurrent_users=5
            ),
            Constraints(),
        ),
        UseCase(
            "lora-8b",
            "LoRA of an 8B model",
            Workload(m("llama-3.1-8b"), task="lora", precision="bf16", engine="transformers", sequence_length=2048),
            Constraints(),
        ),
        UseCase(
            "qlora-70b",
            "QLoRA of a 70B model",
            Workload(m("llama-3.1-70b"), task="qlora", precision="bf16", engine="transformers", sequence_length=2048),
            Constraints(),
        ),
        UseCase(
            "full-ft-8b",
            "full fine-tune of an 8B model",
            Workload(
                m("llama-3.1-8b"), task="full_finetune", precision="bf16", engine="transformers", sequence_length=2048
            ),
            Constraints(),
        ),
        UseCase(
            "70b-fp8-50-users",
            "70B FP8 serving for 50 users",
            Workload(m("llama-3.1-70b"), precision="fp8", engine="vllm", context_tokens=8192, concurrent_users=50),
            Constraints(),
        ),
        UseCase(
            "deepseek-v3",
            "DeepSeek-V3 serving",
            Workload(m("deepseek-v3"), precision="fp8", engine="vllm", context_tokens=8192, concurrent_users=8),
            Constraints(),
        ),
        UseCase(
            "405b-fp8",
            "405B FP8",
            Workload(m("llama-3.1-405b"), precision="fp8", engine="vllm", context_tokens=8192, concurrent_users=4),
            Constraints(),
        ),
        UseCase(
            "production-ecc",
            "production service requiring ECC",
            Workload(
                m("llama-3.1-8b"),
                precision="bf16",
                engine="vllm",
                context_tokens=8192,
                concurrent_users=20,
                production=True,
                require_ecc=True,
            ),
            Constraints(require_ecc=True),
        ),
    )
