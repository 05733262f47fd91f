"""The plain-words checker of tests/plain_words.py fails on each kind of engine word and passes plain Russian."""

from __future__ import annotations

import pytest

from tests.plain_words import plain_words_findings

VOCABULARY = {
    "skus": {"rtx-5090", "ws-tower-am5"},
    "enum_values": {"sxm", "pcie", "q4_k_m", "inference"},
    "names": {"NVIDIA GeForce RTX 5090", "Llama 3.1 70B"},
}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("поднять бюджет до 270 840 RUB", "RUB"),
        ("1× rtx-5090 в корпусе", "sku"),
        ("собрано в ws-tower-am5", "sku"),
        ("нарушено правило power.psu_capacity", "rule code"),
        ("η_bw = 0,87", "greek"),
        ("Сейчас sxm, предел pcie", "enum value"),
        ("ЭВРИСТИКА: HEURISTIC", "latin"),
        ("некий new-part-slug в тексте", "slug"),
    ],
)
def test_each_kind_of_engine_word_is_found(text: str, kind: str) -> None:
    kinds = {finding.kind for finding in plain_words_findings(text, **VOCABULARY)}
    assert kind in kinds


def test_plain_russian_with_product_names_and_terms_passes() -> None:
    text = (
        "2 × NVIDIA GeForce RTX 5090: Llama 3.1 70B в Q4_K_M требует 27,1 ГиБ на GPU, 1 117 520 ₽ с НДС; "
        "NVLink, PCIe 5.0 x16, KV-кэш, LoRA; сокет LGA4677, память GDDR7; почта ivan@example.com; заказ O-2026-000001 "
        "по предложению Q-2026-000012; минимум NVIDIA Enterprise Reference Architecture 2-8-5"
    )
    assert plain_words_findings(text, **VOCABULARY) == []
