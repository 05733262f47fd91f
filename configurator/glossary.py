"""Links from the terms a customer page uses to the glossary that explains them (issue 37 item 2).

`gloss(text, seen)` escapes `text` (as plain text) and wraps the first occurrence of each known term (Q4_K_M and
the other GGUF quant names, KV cache / KV-кэш, LoRA/QLoRA, NVLink, FP8/BF16, TP) in a link to
/glossary/#<anchor>; `seen` holds the anchors already linked on the page, so each term is linked once. Every piece
of the output goes through format_html: nothing the caller passed in is ever marked safe unescaped.
"""

from __future__ import annotations

import re
from collections.abc import MutableSet
from typing import Any

from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

#: Anchor → the spellings that lead to it (the glossary's <dt id>s, templates/configurator/glossary.html).
TERMS: dict[str, str] = {
    "q4_k_m": r"I?Q\d_(?:K(?:_[SML])?|\d|XXS|XS|S|M)",  # GGUF quant types (ggml-org/llama.cpp, tools/quantize)
    "kv-cache": r"KV[- ](?:cache|кэш\w*|кеш\w*)",
    "lora": r"Q?LoRA",
    "nvlink": r"NVLink",
    "fp8": r"FP8|BF16",
    "tensor-parallel": r"TP|[Тт]ензорн\w+ параллелизм\w*|[Tt]ensor parallel(?:ism)?",
}
PATTERN = re.compile(
    "|".join(
        rf"(?P<{anchor.replace('-', '_')}>(?<![\w-])(?:{spelling})(?![\w-]))" for anchor, spelling in TERMS.items()
    )
)


def gloss(text: Any, seen: MutableSet[str]) -> SafeString:
    """`text` escaped, its first mention of each glossary term not in `seen` linked to the glossary."""
    plain = str(text)
    base = reverse("configurator:glossary")
    parts: list[SafeString] = []
    end = 0
    for match in PATTERN.finditer(plain):
        anchor = "q4_k_m" if match.lastgroup == "q4_k_m" else (match.lastgroup or "").replace("_", "-")
        if anchor in seen:
            continue
        seen.add(anchor)
        parts.append(format_html("{}", plain[end : match.start()]))
        parts.append(format_html('<a class="term" href="{}#{}">{}</a>', base, anchor, match.group(0)))
        end = match.end()
    parts.append(format_html("{}", plain[end:]))
    return format_html_join("", "{}", ((part,) for part in parts))  # each part escaped by format_html
