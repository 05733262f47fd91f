"""Links from the terms a customer page uses to the glossary that explains them (issue 37 item 2).

`gloss(text, seen)` escapes `text` and wraps the first occurrence of each known term (Q4_K_M and the other GGUF
quant names, KV cache / KV-кэш, LoRA/QLoRA, NVLink, FP8/BF16, TP) in a link to /glossary/#<anchor>; `seen` holds
the anchors already linked on the page, so each term is linked once. The output is built from the escaped text
only: nothing the caller passed in is ever marked safe unescaped.
"""

from __future__ import annotations

import re
from collections.abc import MutableSet
from typing import Any

from django.urls import reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

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
    "|".join(rf"(?P<{anchor.replace('-', '_')}>(?<![\w-])(?:{spelling})(?![\w-]))" for anchor, spelling in TERMS.items())
)


def gloss(text: Any, seen: MutableSet[str]) -> SafeString:
    """`text` escaped, its first mention of each glossary term not in `seen` linked to the glossary."""
    escaped = str(conditional_escape(text))
    base = reverse("configurator:glossary")
    parts: list[str] = []
    end = 0
    for match in PATTERN.finditer(escaped):
        anchor = (match.lastgroup or "").replace("_", "-")
        anchor = "q4_k_m" if anchor == "q4-k-m" else anchor
        if anchor in seen:
            continue
        seen.add(anchor)
        parts.append(escaped[end : match.start()])
        # the matched word comes from the escaped text and contains no markup characters
        parts.append(format_html('<a class="term" href="{}#{}">{}</a>', base, anchor, mark_safe(match.group(0))))
        end = match.end()
    parts.append(escaped[end:])
    return mark_safe("".join(parts))  # every piece is escaped text or format_html output
