"""Finding a catalog GPU from what a person types: "H100", "RTX 4090", "NVIDIA H100 80GB HBM3", "A100-SXM4-80GB".

Pure module (no Django): `match_gpu(gpus, text)` → the GPU and, when the name left a choice, the sentence that
says which one was taken; or UnknownSkuError naming the field, the value and the closest catalog GPUs.

How a name matches (as `model_match` reads model names):
- Words: lower case, split at anything that is not a letter or digit; "rtx4090" is read as "rtx 4090". Vendor
  and brand words ("nvidia", "geforce", "amd", "instinct", "radeon", "tesla", "hgx", "dgx"…) and memory types
  ("hbm3", "gddr6x") name no particular card; a memory size ("80GB", "80 GB", "24G") and a form ("SXM", "SXM5",
  "PCIe", "NVL", "OAM") choose among the variants of a card.
- A catalog GPU matches when every other word of the name is one of its words (of its SKU or its name) and every
  word of its SKU (its form, memory size and "rtx"/"rx" aside) is in the name: "rtx 3080" is not the "rtx-3080-ti",
  "l40" is not the "l40s". A stated size must be the GPU's (within 2 GB); a stated form its form; a stated memory
  type (HBM3 vs HBM2e) its memory.
- Several variants of one card left ("H100": SXM5, PCIe, NVL; "A100 80GB": SXM4, PCIe): the SXM/OAM server module
  is taken, then the most memory — one rule, whatever the GPU count: published runs that name the bare card
  are cloud and vendor benchmarks, which run the SXM module (MLPerf, the vendors' performance pages, Modal,
  Lambda). The answer's assumptions say which variant was taken and the others.
- Different cards left ("RTX 6000": Ada or PRO Blackwell) or none: a 400 that lists the closest GPUs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import pairwise

from configurator.engine.errors import UnknownSkuError
from configurator.engine.frozen import direct_init
from configurator.engine.phrase import Phrase
from configurator.engine.specs import GpuSpec

_SPLIT = re.compile(r"[^a-z0-9]+")
_GLUED = re.compile(r"^(rtx|gtx|rx|quadro)(\d.*)$")
_MEMORY = re.compile(r"^(\d+)(gb|g|gib)$")
# words that name the maker, the brand line or the board, not one card
NOISE = frozenset({
    "nvidia", "geforce", "amd", "instinct", "radeon", "tesla", "hgx", "dgx", "generation", "edition", "gpu",
    "graphics", "card", "accelerator", "tensor", "core", "ecc",
})  # fmt: skip
_MEMORY_TYPES = frozenset({"hbm", "hbm2", "hbm2e", "hbm3", "hbm3e", "gddr6", "gddr6x", "gddr7"})
_FORMS = {"sxm": "sxm", "sxm4": "sxm", "sxm5": "sxm", "sxm6": "sxm", "pcie": "pcie", "nvl": "nvl", "oam": "oam"}
_OPTIONAL = frozenset({"rtx", "rx", "gtx"})  # "4090" is the RTX 4090, "7900 xtx" the RX 7900 XTX
_WATTS = re.compile(r"^\d+w$")  # a board power ("MI300X (192GB HBM3 750W)", AMD's performance pages): no card
_SERVER_FORMS = ("sxm", "oam")
MEMORY_SLACK_GB = 2.0
DID_YOU_MEAN_COUNT = 3


@direct_init
@dataclass(frozen=True, slots=True)
class GpuMatch:
    gpu: GpuSpec
    note: Phrase | None = None  # which variant a family name was read as, and the others


@direct_init
@dataclass(frozen=True, slots=True)
class _Said:
    words: frozenset[str]
    pairs: frozenset[str]  # adjacent words joined ("max q" → "maxq")
    memory_gb: float | None
    form: str
    memory_type: str


def _words(text: str) -> list[str]:
    out: list[str] = []
    for word in _SPLIT.split(text.lower()):
        glued = _GLUED.match(word)
        out.extend(glued.groups() if glued else (word,) if word else ())
    return out


def _read(text: str) -> _Said:
    words: list[str] = []
    memory: float | None = None
    form = memory_type = ""
    raw = _words(text)
    for i, word in enumerate(raw):
        sized = _MEMORY.match(word)
        if sized:
            memory = float(sized.group(1))
        elif word in ("gb", "gib", "g") and i and raw[i - 1].isdigit():
            memory = float(raw[i - 1])
            words = [w for w in words if w != raw[i - 1]]
        elif word in _FORMS:
            form = _FORMS[word]
        elif word in _MEMORY_TYPES:
            memory_type = word
        elif word not in NOISE and not _WATTS.match(word):
            words.append(word)
    return _Said(
        words=frozenset(words),
        pairs=frozenset(_joined_pairs(words)),
        memory_gb=memory,
        form=form,
        memory_type=memory_type,
    )


def _form(gpu: GpuSpec) -> str:
    return "nvl" if "nvl" in _words(gpu.sku) else gpu.form_factor


def _joined_pairs(words: list[str]) -> set[str]:
    return {a + b for a, b in pairwise(words)}


def _matches(gpu: GpuSpec, said: _Said) -> bool:
    sku_words = [w for w in _words(gpu.sku) if w not in _FORMS and not _MEMORY.match(w)]
    name_words = [w for w in _words(gpu.name) if w not in NOISE]
    known = set(sku_words) | set(name_words) | _joined_pairs(sku_words) | _joined_pairs(name_words)
    if not said.words or not said.words <= known:
        return False
    said_all = said.words | said.pairs
    if not all(word in said_all or word in _OPTIONAL for word in sku_words):
        return False
    if said.memory_gb is not None and abs(gpu.vram_gib - said.memory_gb) > MEMORY_SLACK_GB:
        return False
    if said.form and said.form != _form(gpu):
        return False
    return not said.memory_type or gpu.memory_type.lower().split()[0] == said.memory_type


def _key(text: str) -> str:
    return "".join(w for w in _words(text) if w not in NOISE)


def _core(text: str) -> str:
    """The words of a name that say which card (no vendor, memory size or form): "A10G 24GB" → "a10g"."""
    return "".join(w for w in _words(text) if w not in NOISE and w not in _FORMS and not _MEMORY.match(w))


def _closest(gpus: Mapping[str, GpuSpec], text: str) -> list[GpuSpec]:
    """The GPUs whose SKU or name, without memory size and form, is most like the name's (difflib ratio)."""
    wanted = _core(text) or _key(text)

    def ratio(gpu: GpuSpec) -> float:
        return max(SequenceMatcher(None, wanted, _core(name)).ratio() for name in (gpu.sku, gpu.name))

    return sorted(gpus.values(), key=lambda gpu: (-ratio(gpu), gpu.sku))[:DID_YOU_MEAN_COUNT]


def _unknown(text: str, closest: list[GpuSpec], *, ambiguous: bool = False) -> UnknownSkuError:
    names = ", ".join(f"{gpu.sku} ({gpu.name})" for gpu in closest)
    if ambiguous:
        field = Phrase("'%(text)s' names more than one GPU; say which: %(names)s.", text=text, names=names)
    else:
        field = Phrase(
            "Unknown GPU '%(text)s': not in the catalog (GET /api/v1/catalog/gpus/). Closest: %(names)s.",
            text=text,
            names=names,
        )
    return UnknownSkuError(field, fields={"gpu": [field]})


def match_gpu(gpus: Mapping[str, GpuSpec], text: str) -> GpuMatch:
    """The catalog GPU `text` names (by SKU, name or as people write it); raises UnknownSkuError (field "gpu")
    listing the closest GPUs when it names none, or several different cards."""
    wanted = (text or "").strip().lower()
    if wanted in gpus:
        return GpuMatch(gpu=gpus[wanted])
    key = _key(text)
    exact = [gpu for gpu in gpus.values() if key and key in (_key(gpu.sku), _key(gpu.name))]
    if len(exact) == 1:
        return GpuMatch(gpu=exact[0])
    said = _read(text)
    found = sorted((gpu for gpu in gpus.values() if _matches(gpu, said)), key=lambda gpu: gpu.sku)
    if not found:
        raise _unknown(text, _closest(gpus, text))
    if len(found) == 1:
        return GpuMatch(gpu=found[0])
    cores = {tuple(w for w in _words(gpu.sku) if w not in _FORMS and not _MEMORY.match(w)) for gpu in found}
    if len(cores) > 1:
        raise _unknown(text, found, ambiguous=True)
    chosen = min(found, key=lambda gpu: (_form(gpu) not in _SERVER_FORMS, -gpu.vram_gib, gpu.sku))
    others = ", ".join(gpu.sku for gpu in found if gpu is not chosen)
    note = Phrase(
        "GPU '%(text)s' read as the %(name)s (%(sku)s), the server module published runs of the bare name use; "
        "say %(others)s for the other variants",
        text=text,
        name=chosen.name,
        sku=chosen.sku,
        others=others,
    )
    return GpuMatch(gpu=chosen, note=note)


# "8xH100", "8 × H200 SXM", "H100 x8": a count written into the GPU's name, as spec tables and benchmark titles do
_COUNTED = (
    re.compile(r"^\s*(\d{1,2})\s*[x×*]\s*(\S.*)$", re.IGNORECASE),
    re.compile(r"^(.*\S)\s+[x×*]\s*(\d{1,2})\s*$", re.IGNORECASE),
)


def counted_gpu(text: str) -> tuple[int | None, str]:
    """(the GPU count written into `text`, the name without it); (None, text) when it says no count."""
    first = _COUNTED[0].match(text or "")
    if first:
        return int(first.group(1)), first.group(2)
    last = _COUNTED[1].match(text or "")
    if last:
        return int(last.group(2)), last.group(1)
    return None, text
