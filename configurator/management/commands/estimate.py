"""python manage.py estimate --model llama-3.1-70b --precision q4_k_m --context 8192 --gpu rtx-4090 --gpu-count 2"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from configurator.engine.errors import DomainError
from configurator.engine.estimate import estimate
from configurator.engine.estimate.topology import built_in_link
from configurator.engine.types import (
    CHECKPOINTING_MODES,
    ENGINES,
    FRAMEWORKS,
    KV_PRECISIONS,
    OFFLOADS,
    OPTIMIZERS,
    PRECISIONS,
    TASKS,
    TRAINING_PRECISIONS,
    Estimate,
    GpuSpec,
)
from configurator.outputs import EstimateOutputSerializer
from configurator.serializers import WorkloadInputSerializer


def _find_gpu(sku: str) -> GpuSpec:
    """The GPU from the database catalog, or from fixtures/catalog.json when the database has not got it."""
    from django.db import DatabaseError

    from catalog.fixture import fixture_snapshot
    from catalog.specs import catalog_snapshot

    wanted = sku.strip().lower()
    try:
        gpu = catalog_snapshot().gpus.get(wanted)
    except DatabaseError:  # an unmigrated database: the fixture has the same rows
        gpu = None
    gpu = gpu or fixture_snapshot().gpus.get(wanted)
    if gpu is None:
        raise CommandError(f"gpu: unknown GPU SKU '{sku}'")
    return gpu


class Command(BaseCommand):
    help = "Estimate memory, GPU layout and speed of an LLM workload and print the breakdown."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--model", help="library slug or Hugging Face id (see GET /api/v1/llm-models/)")
        parser.add_argument("--model-config", type=Path, help="path to a Hugging Face config.json instead")
        parser.add_argument("--task", choices=TASKS, default="inference")
        parser.add_argument("--precision", choices=PRECISIONS, help="default: the model's native precision")
        parser.add_argument("--kv", choices=KV_PRECISIONS, help="KV cache precision (default f16/bf16)")
        parser.add_argument("--context", type=int, default=4096, help="context tokens per user")
        parser.add_argument("--users", type=int, default=1, help="concurrent users")
        parser.add_argument("--prompt-tokens", type=int, help="prompt tokens per request (default: context - output)")
        parser.add_argument("--output-tokens", type=int, help="output tokens per request (default min(512, context/4))")
        parser.add_argument("--batch", type=int, default=1, help="sequences per user / training micro-batch")
        parser.add_argument("--engine", choices=ENGINES, help="default: llama.cpp for GGUF, vllm otherwise")
        parser.add_argument("--optimizer", choices=OPTIMIZERS, default="adamw")
        parser.add_argument("--lora-rank", type=int, default=16)
        parser.add_argument("--seq-len", type=int, default=2048, help="training sequence length")
        parser.add_argument("--zero-stage", type=int, default=0, choices=(0, 1, 2, 3))
        parser.add_argument("--framework", choices=FRAMEWORKS, default="hf_trainer", help="training framework")
        parser.add_argument("--offload", choices=OFFLOADS, default="none", help="ZeRO/FSDP CPU offload")
        parser.add_argument("--no-checkpointing", action="store_true", help="train without recompute")
        parser.add_argument(
            "--checkpointing", choices=CHECKPOINTING_MODES, help="activation checkpointing: none, selective or full"
        )
        parser.add_argument("--train-precision", choices=TRAINING_PRECISIONS, default="bf16", help="BF16 or FP8")
        parser.add_argument("--power-limit", type=float, help="training: board power cap per GPU, watts")
        parser.add_argument("--gpu", help="GPU SKU, e.g. rtx-4090")
        parser.add_argument("--gpu-count", type=int, default=1)
        parser.add_argument("--json", action="store_true", help="print the API response body as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        data: dict[str, Any] = {
            "task": options["task"],
            "context_tokens": options["context"],
            "concurrent_users": options["users"],
            "batch_size": options["batch"],
            "optimizer": options["optimizer"],
            "lora_rank": options["lora_rank"],
            "sequence_length": options["seq_len"],
            "zero_stage": options["zero_stage"],
            "framework": options["framework"],
            "offload": options["offload"],
            "gradient_checkpointing": not options["no_checkpointing"],
            "training_precision": options["train_precision"],
        }
        if options["checkpointing"]:
            data["activation_checkpointing"] = options["checkpointing"]
        if options["power_limit"] is not None:
            data["power_limit_w"] = options["power_limit"]
        if options["model_config"]:
            try:
                data["model_config"] = json.loads(options["model_config"].read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise CommandError(f"model-config: cannot read {options['model_config']}: {error}") from error
        if options["model"]:
            data["model"] = options["model"]
        for option, field in (
            ("precision", "precision"),
            ("kv", "kv_cache_precision"),
            ("engine", "engine"),
            ("prompt_tokens", "prompt_tokens"),
            ("output_tokens", "output_tokens"),
        ):
            if options[option] is not None:
                data[field] = options[option]
        serializer = WorkloadInputSerializer(data=data)
        if not serializer.is_valid():
            raise CommandError(_fields_text(serializer.errors))
        if options["gpu_count"] < 1:
            raise CommandError("gpu-count: must be at least 1")
        try:
            workload = serializer.to_workload()
            gpu = _find_gpu(options["gpu"]) if options["gpu"] else None
            count = options["gpu_count"]
            result = estimate(workload, gpu, count, link_gbs=built_in_link(gpu, count) if gpu is not None else None)
        except DomainError as error:
            raise CommandError(f"{error.message} {_fields_text(error.fields)}".strip()) from error
        if options["json"]:
            self.stdout.write(json.dumps(EstimateOutputSerializer(result).data, indent=2, ensure_ascii=False))
            return
        self.stdout.write(_render(result, workload.model.name, workload))


def _fields_text(fields: Any) -> str:
    return "; ".join(f"{name}: {' '.join(str(r) for r in reasons)}" for name, reasons in dict(fields).items())


def _render(result: Estimate, model_name: str, workload: Any) -> str:
    w = workload
    lines = [
        f"{model_name} ({result.model_slug}) · {w.task} · {w.precision.upper()} · "
        + (
            f"KV {w.kv_cache_precision} · {w.context_tokens:,} tokens × {w.concurrent_users} user(s) · {w.engine}"
            if w.task == "inference"
            else f"{w.batch_size} × {w.sequence_length:,} tokens · {w.optimizer} · ZeRO {w.zero_stage}"
        ),
        f"{result.total_params / 1e9:.2f} B parameters" + (
            f", {result.active_params / 1e9:.2f} B active" if result.active_params != result.total_params else ""
        ),
        "",
        "Memory                GiB",
    ]  # fmt: skip
    memory = result.memory
    for label, value in (
        ("weights", memory.weights),
        ("KV cache", memory.kv_cache),
        ("activations", memory.activations),
        ("gradients", memory.gradients),
        ("optimizer", memory.optimizer),
        ("overhead", memory.overhead),
    ):
        lines.append(f"  {label:<16} {value:>8.2f}")
    lines.append(f"  {'total':<16} {memory.total:>8.2f}")
    if result.layout is not None:
        layout = result.layout
        verdict = "fits" if layout.fits else "does NOT fit"
        smallest = layout.min_gpus_to_fit
        lines += [
            "",
            f"GPU: {layout.count} × {layout.sku} ({layout.parallelism}): {layout.per_gpu_gib:.2f} GiB per GPU "
            f"of {layout.usable_gib:.2f} usable → {verdict}",
            "     smallest count that fits: " + (str(smallest) if smallest else "none up to 16"),
        ]
    if result.throughput is not None:
        speed = result.throughput
        lines.append("")
        if w.task == "inference":
            lines += [
                f"Requests: {speed.prompt_tokens:,} prompt + {speed.output_tokens:,} output tokens",
                f"Decode:  {speed.decode_tokens_per_s_per_user:,.1f} tokens/s per user, "
                f"{speed.decode_tokens_per_s_total:,.1f} tokens/s total "
                f"({speed.prefill_share:.0%} of each user's time prefills the others' prompts)",
                f"Prefill: {speed.prefill_tokens_per_s:,.0f} tokens/s; time to first token "
                f"{speed.time_to_first_token_s:,.2f} s",
                f"Served at full load: {speed.served_output_tokens_per_s:,.0f} output tokens/s, prefill included "
                f"({speed.served_sequences:,} sequences at once)",
            ]
        else:
            lines.append(f"Training: {speed.training_tokens_per_s:,.0f} tokens/s for the whole build")
    lines += ["", "Assumptions:"]
    lines += [f"  - {text}" for text in result.assumptions]
    return "\n".join(lines)
