"""Honest ranking: which warnings matter to this workload, how far a build misses the speed target, and the
labels of a list checked against the list they stand in.

A warning weighs only where it changes what the customer gets from this workload:

- `pcie.x8_fallback`, `pcie.shared_uplink`, `pcie.p2p_acs` are about GPU-to-GPU traffic over PCIe. A single
  GPU has none, and a layer split (llama.cpp `--split-mode layer`, pipeline parallel) passes only one
  token's activations (hidden size × 2 bytes, a few KB) from card to card per step; the llama.cpp README
  says the layer split is the default multi-GPU mode and needs no fast interconnect
  (https://github.com/ggml-org/llama.cpp/blob/master/tools/main/README.md, `--split-mode`). Under tensor
  parallel or sharded training (all-reduce every layer / step) they matter.
- `interconnect.tp_over_pcie` says how much faster NVLink would be; the build's speed already is the PCIe
  speed (the rule's own estimate), so when that speed meets the target the note changes nothing asked for.
- `workload.speed` is the speed shortfall itself: ranked on its own (a build that misses the target is
  never above one that meets it), not counted again as a warning.

Every other warning weighs (power, thermal, memory population, ECC...).

An end-of-life GPU (catalog `end_of_life`: sold from remaining stock) ranks as if it cost `EOL_RANK_WEIGHT` ×
its price: a current card that meets the same request for up to 10 % more comes first (HEURISTIC: "similar
price" as a sales engineer reads a quote; the premium buys a card with a supply, a warranty and a driver
branch ahead of it); offered anyway (cheaper by more, or the only one in the budget), its card says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from configurator.engine.phrase import Num, Phrase
from configurator.engine.types import Candidate, Finding, GpuSpec, Workload

# GPU-to-GPU PCIe traffic: weighs only when the GPUs exchange tensors every layer (tensor parallel, sharded)
PEER_TRAFFIC_WARNINGS = frozenset({"pcie.x8_fallback", "pcie.shared_uplink", "pcie.p2p_acs"})
# a note whose cost is already in the build's estimated speed
PRICED_IN_WARNINGS = frozenset({"interconnect.tp_over_pcie"})
SPEED_WARNING = "workload.speed"
NO_PEER_TRAFFIC = ("single", "pipeline")

EOL_RANK_WEIGHT = Decimal("1.10")  # HEURISTIC (module docstring)

# The labels a list may carry (picking.pick_distinct): each is checked against the list (`label_is_true`)
CHEAPEST = "cheapest"
CHEAPEST_MEETING = "cheapest_meeting"
CHEAPEST_CLEAN = "cheapest_clean"
VALUE = "value"
ECC = "ecc"
FEWER = "fewer"
OTHER_FORM = "other_form"
NEXT = "next"
ANOTHER = "another"
CHEAPEST_CURRENT = "cheapest_current"


def label_phrase(label: str) -> Phrase:
    if label == CHEAPEST:
        return Phrase("the cheapest valid build")
    if label == CHEAPEST_MEETING:
        return Phrase("the cheapest build that meets the speed target")
    if label == CHEAPEST_CLEAN:
        return Phrase("the cheapest build without a warning that matters for this workload")
    if label == VALUE:
        return Phrase("the most tokens/s per rouble")
    if label == ECC:
        return Phrase("the cheapest with ECC GPU memory")
    if label == FEWER:
        return Phrase("fewer, larger GPUs")
    if label == OTHER_FORM:
        return Phrase("the cheapest in the other form factor")
    if label == NEXT:
        return Phrase("the next cheapest GPU choice")
    if label == CHEAPEST_CURRENT:
        return Phrase("the cheapest build of parts still made (end-of-life cards cost under 10 %% less)")
    return Phrase("another GPU choice")


def _parallelism(candidate: Candidate) -> str:
    estimate = candidate.verdict.estimate
    layout = estimate.layout if estimate is not None else None
    return layout.parallelism if layout is not None else "single"


def matters(finding: Finding, candidate: Candidate, workload: Workload, target: float | None) -> bool:
    """Whether a warning of `candidate` weighs for this workload (module docstring)."""
    if finding.code == SPEED_WARNING:
        return False
    if finding.code in PEER_TRAFFIC_WARNINGS:
        return _parallelism(candidate) not in NO_PEER_TRAFFIC
    if finding.code in PRICED_IN_WARNINGS and workload.task == "inference":
        return is_slow(candidate, workload, target)
    return True


def weighing(candidate: Candidate, workload: Workload, target: float | None) -> tuple[Finding, ...]:
    """The warnings that matter to this workload."""
    return tuple(f for f in candidate.verdict.warnings if matters(f, candidate, workload, target))


def warned(candidate: Candidate, workload: Workload, target: float | None) -> int:
    """1 when a warning that matters is left (the ranking's second key, after the speed target)."""
    return int(bool(weighing(candidate, workload, target)))


def is_slow(candidate: Candidate, workload: Workload, target: float | None) -> bool:
    return workload.task == "inference" and target is not None and candidate.decode_tokens_per_s_per_user < target


def standing(candidate: Candidate, workload: Workload, target: float | None) -> tuple[int, int]:
    """(misses the speed target, has a warning that matters): the list's order before price."""
    return int(is_slow(candidate, workload, target)), warned(candidate, workload, target)


def shortfall(candidate: Candidate, target: float) -> Phrase:
    """How far the build misses the per-user speed target."""
    speed = candidate.decode_tokens_per_s_per_user
    return Phrase(
        "misses the %(target)s tokens/s per user by %(gap)s tokens/s (%(share)s%% short): %(speed)s tokens/s",
        target=Num(target, None),
        gap=Num(target - speed, 1),
        share=Num((1 - speed / target) * 100),
        speed=Num(speed, 1),
    )


def _value(candidate: Candidate) -> float:
    return candidate.decode_tokens_per_s_total / float(candidate.price.gross)


def _per_gpu_vram(candidate: Candidate) -> float:
    return candidate.build.gpus[0].spec.vram_gib


def _price(candidate: Candidate) -> Decimal:
    return candidate.price.gross


def end_of_life(candidate: Candidate) -> bool:
    return any(line.spec.end_of_life for line in candidate.build.gpus)


def ranked_price(price: Decimal, gpu: GpuSpec) -> Decimal:
    """The price a build of `gpu` ranks at: an end-of-life card's build as if it cost 10 % more."""
    return price * EOL_RANK_WEIGHT if gpu.end_of_life else price


def label_is_true(
    label: str, index: int, listed: Sequence[Candidate], workload: Workload, target: float | None
) -> bool:
    """Whether `label` is true of the candidate at `index` in the list `listed` (as returned)."""
    me, first = listed[index], listed[0]
    others = [c for i, c in enumerate(listed) if i != index]
    cheaper = [c for c in others if _price(c) < _price(me)]
    if label == CHEAPEST:
        return not cheaper
    if label == CHEAPEST_MEETING:
        meeting = not is_slow(me, workload, target) and target is not None and workload.task == "inference"
        return meeting and all(is_slow(c, workload, target) for c in cheaper)
    if label == CHEAPEST_CLEAN:
        return all(standing(c, workload, target) > standing(me, workload, target) for c in cheaper)
    if label == CHEAPEST_CURRENT:
        rank = standing(me, workload, target)
        return not end_of_life(me) and all(
            standing(c, workload, target) > rank or (end_of_life(c) and _price(c) * EOL_RANK_WEIGHT >= _price(me))
            for c in cheaper
        )
    if label == VALUE:
        return workload.task == "inference" and all(_value(me) >= _value(c) for c in others)
    if label == ECC:
        ecc = all(line.spec.ecc for line in me.build.gpus)
        return ecc and not any(all(line.spec.ecc for line in c.build.gpus) for c in cheaper)
    if label == FEWER:
        return index > 0 and me.build.gpu_count < first.build.gpu_count and _per_gpu_vram(me) > _per_gpu_vram(first)
    if label == OTHER_FORM:
        mine = me.build.chassis.is_workstation
        return (
            index > 0
            and mine != first.build.chassis.is_workstation
            and not any(c.build.chassis.is_workstation == mine for c in cheaper)
        )
    if label == NEXT:
        # "next cheapest" reads as a price order: no entry after it is cheaper, whatever its standing (a cheaper
        # build with a warning below it made the label read false, trial 34 W11), and none of a better
        # standing comes after it
        mine_standing = standing(me, workload, target)
        later = listed[index + 1 :]
        return index > 0 and all(
            standing(c, workload, target) >= mine_standing and _price(c) >= _price(me) for c in later
        )
    return index > 0  # "another GPU choice"


def first_label(listed: Sequence[Candidate], workload: Workload, target: float | None) -> str:
    """The first entry's label: the strongest of the three that is true of the list."""
    for label in (CHEAPEST, CHEAPEST_MEETING, CHEAPEST_CLEAN, CHEAPEST_CURRENT):
        if label_is_true(label, 0, listed, workload, target):
            return label
    return ANOTHER
