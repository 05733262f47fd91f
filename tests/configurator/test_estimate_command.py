"""python manage.py estimate — readable breakdown and --json."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.fixture import fixture_snapshot
from configurator.engine.estimate import estimate
from configurator.engine.models_library import model_get
from configurator.engine.types import Workload
from configurator.outputs import EstimateOutputSerializer

ARGS = ["--model", "llama-3.1-70b", "--precision", "q4_k_m", "--context", "8192", "--gpu", "rtx-4090"]


def _run(*args: str) -> str:
    out = StringIO()
    call_command("estimate", *args, stdout=out)
    return out.getvalue()


def test_readable_breakdown(catalog: None) -> None:
    text = _run(*ARGS, "--gpu-count", "2")
    assert text.startswith("Llama 3.1 70B (llama-3.1-70b) · inference · Q4_K_M · KV f16 · 8,192 tokens")
    assert "  KV cache             2.50" in text
    assert "GPU: 2 × rtx-4090 (pipeline)" in text
    assert "→ fits" in text
    assert "smallest count that fits: 2" in text
    assert "tokens/s per user" in text
    assert "Assumptions:" in text
    assert "Q4_K_M = 4.82 bits/weight" in text


def test_one_card_does_not_fit(catalog: None) -> None:
    text = _run(*ARGS)
    assert "→ does NOT fit" in text
    assert "smallest count that fits: 2" in text


def test_json_is_the_api_body(catalog: None) -> None:
    body = json.loads(_run(*ARGS, "--gpu-count", "2", "--json"))
    workload = Workload(
        model=model_get("llama-3.1-70b"), precision="q4_k_m", kv_cache_precision="f16", context_tokens=8192,
        engine="llama.cpp",
    )  # fmt: skip
    expected = EstimateOutputSerializer(estimate(workload, fixture_snapshot().gpus["rtx-4090"], 2)).data
    assert body == expected


def test_training_and_no_gpu() -> None:
    text = _run("--model", "llama-3.1-8b", "--task", "full_finetune", "--precision", "bf16")
    assert "full_finetune" in text
    assert "GPU:" not in text
    assert "16 B/param" in text


def test_model_config_file(tmp_path: Path) -> None:
    config = {
        "model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28,
        "num_hidden_layers": 28, "num_key_value_heads": 4, "vocab_size": 152064,
    }  # fmt: skip
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    body = json.loads(_run("--model-config", str(path), "--precision", "bf16", "--json"))
    assert body["model"]["total_params_b"] == 7.62


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "nope-1b"], "model"),
        (["--model", "llama-3.1-8b", "--context", "0"], "context_tokens"),
        (["--model", "llama-3.1-8b", "--gpu", "rtx-0000"], "gpu"),
        (["--model", "llama-3.1-8b", "--precision", "q4_k_m", "--engine", "tensorrt-llm"], "engine"),
    ],
)
def test_bad_input_names_the_field(catalog: None, args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        _run(*args)


def test_the_request_and_the_output_at_full_load(catalog: None) -> None:
    text = _run(
        "--model", "llama-3.3-70b", "--precision", "fp8", "--kv", "fp8", "--context", "5500", "--prompt-tokens",
        "5000", "--output-tokens", "500", "--users", "25", "--gpu", "h100-sxm", "--gpu-count", "2",
    )  # fmt: skip
    assert "Requests: 5,000 prompt + 500 output tokens" in text
    assert "of each user's time prefills the others' prompts" in text
    assert "Served at full load: " in text and "output tokens/s, prefill included" in text
    with pytest.raises(CommandError, match="prompt_tokens: prompt_tokens \\+ output_tokens = 5,600"):
        _run("--model", "llama-3.3-70b", "--context", "5500", "--prompt-tokens", "5000", "--output-tokens", "600")
