"""Why each recommended build is there: the sentences shown with a candidate."""

from __future__ import annotations

from configurator.engine.estimate.engines import filled_context_phrase
from configurator.engine.fixes import fix_sentence
from configurator.engine.phrase import Num, Phrase, PhraseValue
from configurator.engine.recommend.policy import machine_class, needs_ecc, personal, speed_target
from configurator.engine.recommend.ranking import SPEED_WARNING, shortfall, weighing
from configurator.engine.recommend.sizing import Sizing, network_reason, sizing_reasons
from configurator.engine.rules.platform import datacenter_server, serves_network
from configurator.engine.types import Candidate, Constraints, Fix, Workload

PARALLEL_WORDS = {
    "tensor": Phrase("under tensor parallel"),
    "dp_attention": Phrase(
        "with data-parallel attention (each GPU its own users' KV cache) and the MoE layers tensor parallel"
    ),
    "pipeline": Phrase("with the layers split across GPUs"),
    "data": Phrase("sharded (ZeRO)"),
}
CLASS_WORDS = {
    "desktop-workstation": Phrase("desktop workstation"),
    "rack-workstation": Phrase("rack workstation"),
    "gpu-server": Phrase("GPU server"),
    "hgx-server": Phrase("HGX/NVSwitch server"),
}
REDUNDANCY_WORDS = {"none": Phrase("no redundancy"), "n+1": "N+1", "n+n": "N+N"}


def class_reason(candidate: Candidate, workload: Workload, constraints: Constraints) -> Phrase:
    """The candidate's class of machine and why that class is offered for this workload."""
    kind = machine_class(candidate.build.chassis)
    words = CLASS_WORDS.get(kind, kind)
    if needs_ecc(workload, constraints):
        return Phrase(
            "class: %(kind)s — production or ECC asks for a server chassis with redundant PSUs, ECC GPUs and "
            "registered ECC memory",
            kind=words,
        )
    if personal(workload, constraints):
        return Phrase(
            "class: %(kind)s — one user and a model up to 35 B parameters: no datacenter GPU needed",
            kind=words,
        )
    if kind == "hgx-server":
        return Phrase("class: %(kind)s — NVSwitch joins every SXM GPU on the baseboard", kind=words)
    if kind == "gpu-server":
        return Phrase("class: %(kind)s — server airflow, power and lanes for these GPUs", kind=words)
    if kind == "rack-workstation":
        return Phrase(
            "class: %(kind)s — a workstation platform with the lanes and memory channels for these GPUs",
            kind=words,
        )
    return Phrase("class: %(kind)s — these GPUs fit a tower on office power", kind=words)


def parts_reasons(candidate: Candidate, workload: Workload) -> tuple[Phrase, ...]:
    """Why this CPU, this much RAM and this storage: the workload's need next to what the build has."""
    build = candidate.build
    server = datacenter_server(build)
    sizing = Sizing.of(workload, build.gpu_count, build.total_vram_gib, server=server)
    cores = sum(line.spec.cores * line.qty for line in build.cpus)
    cpu = " + ".join(f"{line.qty}× {line.spec.sku}" for line in build.cpus)
    storage_tb = sum(line.spec.capacity_tb * line.qty for line in build.storage)
    drives = sum(line.qty for line in build.storage)
    reasons = sizing_reasons(workload, sizing, cores, cpu, build.ram_gb, storage_tb, drives)
    if (server or serves_network(workload)) and build.nics:
        reasons += (network_reason(workload, " + ".join(f"{line.qty}× {line.spec.sku}" for line in build.nics)),)
    return reasons


def reasons_for(
    candidate: Candidate,
    reason: Phrase,
    workload: Workload,
    constraints: Constraints | None = None,
    applied: tuple[Fix, ...] = (),
    *,
    target_met_elsewhere: bool = False,
) -> tuple[Phrase, ...]:
    """Why the candidate is there. `target_met_elsewhere`: some build of the list meets the speed target (so a
    build that misses it never says that none does)."""
    build = candidate.build
    line = build.gpus[0]
    gpu, count = line.spec, line.qty
    verdict_estimate = candidate.verdict.estimate
    layout = verdict_estimate.layout if verdict_estimate else None
    link: Phrase | None = None
    if build.bridges:
        kinds = " + ".join(f"{line.spec.ways}-way" for line in build.bridges)
        link = Phrase("%(sets)s× %(kinds)s NVLink bridge", sets=sum(line.qty for line in build.bridges), kinds=kinds)
    elif gpu.nvlink_kind == "nvswitch-sxm" and count > 1:
        link = Phrase("NVSwitch")
    reasons = [
        Phrase(
            "%(reason)s (%(price)s %(currency)s incl. VAT)",
            reason=reason,
            price=Num(candidate.price.gross),
            currency=candidate.price.currency,
        )
    ]
    if gpu.end_of_life:  # issue 34: said on the card, with the risk it carries
        reasons.append(
            Phrase(
                "end of life: %(gpu)s is no longer made and ships from remaining stock, so its lead time and "
                "availability (and a like-for-like spare) are at risk; a current card of similar price would be "
                "listed first",
                gpu=gpu.name,
            )
        )
    if layout is not None:
        fits: dict[str, PhraseValue] = {
            "model": workload.model.name,
            "precision": workload.precision.upper(),
            "per_gpu": Num(layout.per_gpu_gib, 1),
            "how": PARALLEL_WORDS.get(layout.parallelism, Phrase("on one GPU")),
            "usable": Num(layout.usable_gib, 1),
        }
        if link is None:
            reasons.append(
                Phrase(
                    "%(count)s× %(gpu)s: %(model)s at %(precision)s needs %(per_gpu)s GiB per GPU %(how)s, "
                    "%(usable)s GiB usable",
                    count=count,
                    gpu=gpu.sku,
                    **fits,
                )
            )
        else:
            reasons.append(
                Phrase(
                    "%(count)s× %(gpu)s with %(link)s: %(model)s at %(precision)s needs %(per_gpu)s GiB per GPU "
                    "%(how)s, %(usable)s GiB usable",
                    count=count,
                    gpu=gpu.sku,
                    link=link,
                    **fits,
                )
            )
    if workload.task != "inference" and candidate.training_tokens_per_s:
        reasons.append(
            Phrase("trains ≈ %(total)s tokens/s on the whole build", total=Num(candidate.training_tokens_per_s))
        )
    if workload.task == "inference":
        per_user, total = Num(candidate.decode_tokens_per_s_per_user, 1), Num(candidate.decode_tokens_per_s_total)
        reasons.append(
            Phrase(  # one user: "1 user together ≈ 12" beside 17.1 per user read as a contradiction (trial t34)
                "decode ≈ %(per_user)s tokens/s for the one user; ≈ %(total)s output tokens/s once the wait for "
                "each answer's first token (its own prompt's prefill) is counted in",
                per_user=per_user,
                total=total,
            )
            if workload.concurrent_users * workload.batch_size == 1
            else Phrase(
                "decode ≈ %(per_user)s tokens/s per user; %(users)s user(s) together ≈ %(total)s output "
                "tokens/s, their prompts included",
                per_user=per_user,
                total=total,
                users=workload.concurrent_users,
            )
        )
        speeds = verdict_estimate.throughput if verdict_estimate else None
        if speeds is not None and speeds.users_replicas > 1:  # the users split among replicas (issue 34)
            reasons.append(
                Phrase(
                    "served as %(replicas)s data-parallel replicas of %(tp)s GPU(s), %(users)s users each: faster for "
                    "them than one tensor-parallel instance on all the GPUs",
                    replicas=speeds.users_replicas,
                    tp=speeds.users_tensor_parallel,
                    users=Num(-(-workload.concurrent_users // speeds.users_replicas)),
                )
            )
        if workload.prompt_tokens is None:
            reasons.append(filled_context_phrase(workload))
        if candidate.served_output_tokens_per_s:
            reasons.append(
                Phrase(
                    "at full load the build serves ≈ %(served)s output tokens/s, prefill included",
                    served=Num(candidate.served_output_tokens_per_s),
                )
            )
        target = speed_target(workload)
        if target and candidate.decode_tokens_per_s_per_user < target:
            reasons.append(shortfall(candidate, target))
            if not target_met_elsewhere:
                reasons.append(_none_meets(workload, constraints, target))
        elif target and not workload.target_tokens_per_s:
            reasons.append(
                Phrase(
                    "meets the default interactive speed of %(target)s tokens/s per user (≈ 2× reading speed)",
                    target=Num(target, None),
                )
            )
    power = candidate.verdict.power
    reasons.append(
        Phrase(
            "%(chassis)s; %(load)s W load on %(capacity)s W usable (%(redundancy)s)",
            chassis=build.chassis.sku,
            load=Num(power.load_w),
            capacity=Num(power.capacity_w),
            redundancy=REDUNDANCY_WORDS.get(power.redundancy, power.redundancy),
        )
    )
    reasons.append(class_reason(candidate, workload, constraints or Constraints()))
    reasons.extend(parts_reasons(candidate, workload))
    if gpu.ecc:
        reasons.append(Phrase("ECC GPU memory"))
    for fix in applied:
        reasons.append(Phrase("a warning's proven fix is applied: %(fix)s", fix=fix_sentence(fix)))
    target = speed_target(workload)
    weigh = weighing(candidate, workload, target)
    if weigh:
        codes = ", ".join(sorted({f.code for f in weigh}))
        reasons.append(Phrase("warnings to acknowledge: %(codes)s", codes=codes))
    notes = {f.code for f in candidate.verdict.warnings if f not in weigh and f.code != SPEED_WARNING}
    if notes:
        reasons.append(
            Phrase(
                "warnings that do not matter for this workload (ranked as clean): %(codes)s",
                codes=", ".join(sorted(notes)),
            )
        )
    return tuple(reasons)


def _none_meets(workload: Workload, constraints: Constraints | None, target: float) -> Phrase:
    """No listed build meets the speed target: "in the catalog" only when the request set no limit (a budget,
    a date, a form factor, noise...) that may have left the faster builds out (trial u34: with a 10-day deadline
    8× H100 SXM meets 20 tokens/s but ships in January)."""
    limited = (constraints is not None and constraints != Constraints()) or workload.noise not in ("any", "server_room")
    if not limited:
        return (
            Phrase("no build in the catalog meets %(target)s tokens/s per user", target=Num(target, None))
            if workload.target_tokens_per_s
            else Phrase(
                "no build in the catalog meets the default interactive %(target)s tokens/s per user",
                target=Num(target, None),
            )
        )
    return (
        Phrase("no build within the request's limits meets %(target)s tokens/s per user", target=Num(target, None))
        if workload.target_tokens_per_s
        else Phrase(
            "no build within the request's limits meets the default interactive %(target)s tokens/s per user",
            target=Num(target, None),
        )
    )
