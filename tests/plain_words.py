"""What a customer must not read on a Russian page or PDF (issue 37, item 2): an SKU slug, "RUB", a rule code,
a raw enum value, a Greek letter, or a Latin word that is neither a product's name nor a term the glossary
explains. The browser walk (tests/e2e/test_plain_words.py) hands in the text outside `.sku` elements and the
`<details data-engineering>` fold; this module only reads text, so its own tests need no browser."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

#: Technical terms and trademarks a Russian customer page may carry in Latin letters (units, interfaces, number
#: formats); each is a term of the trade, written so on the vendors' own Russian pages, or a glossary entry.
TERMS = frozenset(
    {
        "GPU",
        "CPU",
        "VRAM",
        "RAM",
        "ECC",
        "PCIe",
        "NVLink",
        "NVSwitch",
        "SXM",
        "NVMe",
        "SSD",
        "HDD",
        "SATA",
        "DDR4",
        "DDR5",
        "RDIMM",
        "GiB",
        "GB",
        "TB",
        "MB",
        "Gb",
        "TiB",
        "Hz",
        "GHz",
        "BTU",
        "API",
        "PDF",
        "JSON",
        "config",
        "json",
        "FP8",
        "FP16",
        "BF16",
        "FP32",
        "INT8",
        "INT4",
        "FP4",
        "Q4_K_M",
        "Q8_0",
        "KV",
        "LoRA",
        "QLoRA",
        "NIC",
        "TDP",
        "ATX",
        "EPYC",
        "Xeon",
        "AMD",
        "Intel",
        "NVIDIA",
        "RTX",
        "HGX",
        "OCP",
        "IPMI",
        "BMC",
        "OK",
        "ID",
        "HF",
        "vLLM",
        "SGLang",
        "TensorRT",
        "LLM",
        "AI",
        "RoCE",
        "ACS",  # PCIe Access Control Services, named so in the board vendors' Russian BIOS manuals
        "InfiniBand",
        "Ethernet",
        "QSFP",
        "OSFP",
        "GbE",
        "U",
        "A",
        "V",
        "W",
        "kW",
        "B",
        "Pro",
        "Ada",
        "Max",
        "Q",
        "RU",
        "EN",
        "Hugging",
        "Face",
        "F16",
        "F32",
        "NVFP4",
        "MXFP4",
        "N",
        "SP5",
        "AM5",
        "sTR5",
        "TRX50",
        "WRX90",
        "GGUF",
        "K",
        "M",
        # software, methods and documents by their own names (the AI stack service, training and sizing notes)
        "Ubuntu",
        "LTS",
        "CUDA",
        "ROCm",
        "Docker",
        "DGX",
        "RAID",
        "ZeRO",
        "Hopper",
        "Blackwell",
        "Enterprise",
        "Reference",
        "Architecture",
        "pin",
        "TP",
    }
)
#: A quote's or an order's number as the customer's papers print it (quotes.models, orders.models: Q-2026-000001).
DOCUMENT_NUMBER = re.compile(r"\b[QO]-\d{4}-\d{6}\b")
#: llama.cpp's quantization types as GGUF names them (ggml-org/llama.cpp, tools/quantize): Q4_K_M, IQ4_XS, Q8_0…
#: CPU sockets and memory types as AMD, Intel and JEDEC name them (LGA4677, GDDR7, HBM3e).
SPEC_NAME = re.compile(r"LGA\d{4}|GDDR\d[XW]?|HBM\d[eE]?")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
GGUF_TYPE = re.compile(r"I?Q\d_(?:K(?:_[SML])?|\d|XXS|XS|S|M)")

GREEK = re.compile(r"[\u0370-\u03ff]")
RULE_CODE = re.compile(r"\b[a-z]+(?:_[a-z]+)*\.[a-z]+(?:_[a-z]+)+\b|\b[a-z]+\.[a-z]+_[a-z_]+\b")
SLUG = re.compile(r"\b(?=[a-z0-9-]*[a-z])[a-z0-9]+(?:-[a-z0-9]+){2,}\b")  # a letter in it: "2-8-5" is a name
LATIN_WORD = re.compile(r"(?<![\w.])[A-Za-z][A-Za-z0-9_]*(?:[.-][A-Za-z0-9_]+)*")


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    word: str
    context: str


def plain_words_findings(
    text: str, *, skus: Iterable[str], enum_values: Iterable[str], names: Iterable[str]
) -> list[Finding]:
    """Every place `text` speaks in engine words. `names` are the products' and models' names (their Latin words
    are allowed), `skus` the catalog's article numbers, `enum_values` the raw values of the engine's enums."""
    findings: list[Finding] = []
    text = EMAIL.sub("", text)  # a contact address is the reader's own, not engine words
    text = DOCUMENT_NUMBER.sub("", text)

    def add(kind: str, match: re.Match[str]) -> None:
        start = max(match.start() - 40, 0)
        findings.append(Finding(kind, match.group(0), text[start : match.end() + 40].replace("\n", " ")))

    for sku in sorted(set(skus), key=len, reverse=True):
        for match in re.finditer(rf"(?<![\w-]){re.escape(sku)}(?![\w-])", text):
            add("sku", match)
    for match in SLUG.finditer(text):
        add("slug", match)
    for match in re.finditer(r"\bRUB\b", text):
        add("RUB", match)
    for match in RULE_CODE.finditer(text):
        add("rule code", match)
    for match in GREEK.finditer(text):
        add("greek", match)
    raw = {value for value in enum_values if re.fullmatch(r"[a-z0-9_]+", value) and ("_" in value or len(value) > 3)}
    allowed = set(TERMS)
    for name in names:
        allowed.update(re.findall(r"[A-Za-z][A-Za-z0-9_]*", name))
    for match in LATIN_WORD.finditer(text):
        word = match.group(0)
        if word in raw:
            add("enum value", match)
            continue
        if GGUF_TYPE.fullmatch(word) or SPEC_NAME.fullmatch(word):
            continue
        parts = re.split(r"[.-]", word)
        if all(part in allowed or part.isdigit() or re.fullmatch(r"\d+[A-Za-z]{0,2}", part) for part in parts):
            continue
        if re.fullmatch(r"[A-Z]?\d+[A-Za-z]*|[A-Za-z]\d+[A-Za-z0-9]*", word):
            continue  # a model number: H100, L40S, A6000, 8B, x16
        add("latin", match)
    return findings
