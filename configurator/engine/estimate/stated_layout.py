"""A layout the request states (vLLM's --tensor-parallel-size / --pipeline-parallel-size, as a published run
used): the estimate lays the GPUs out that way instead of choosing one.

`gpu_count` GPUs run gpu_count / (tp × pp) data-parallel replicas of one instance of tp × pp GPUs. Modelled:
tensor parallel over the instance (vLLM, SGLang, TensorRT-LLM; the heads and KV heads split evenly, as
`layout._parallelism` requires), pipeline parallel over it (layers split in stages, every engine), one GPU per
replica (tp = pp = 1). Not modelled, a 400 with the reason: tensor and pipeline parallel together, tensor
parallel on llama.cpp or transformers (they split layers), and any stated layout for training (estimated data
parallel with ZeRO/FSDP sharding; Megatron's tensor/pipeline/context parallel training is not modelled).

The workload's users are spread evenly over the replicas (each replica serves ⌈users / replicas⌉); the whole
build's totals (tokens/s, KV pool, users it holds, memory) are one replica's times the replicas.
"""

from __future__ import annotations

from dataclasses import dataclass

from configurator.engine.frozen import direct_init
from configurator.engine.phrase import Num, Phrase
from configurator.engine.types import Workload

SERVER_ENGINES = ("vllm", "sglang", "tensorrt-llm")


@direct_init
@dataclass(frozen=True, slots=True)
class StatedLayout:
    tensor_parallel: int = 1
    pipeline_parallel: int = 1

    @property
    def instance(self) -> int:
        """GPUs of one replica."""
        return self.tensor_parallel * self.pipeline_parallel

    @property
    def parallelism(self) -> str:
        """The layout of one replica in estimate()'s words."""
        if self.instance == 1:
            return "single"
        return "tensor" if self.tensor_parallel > 1 else "pipeline"


TP, PP = "tensor_parallel_size", "pipeline_parallel_size"


def stated_layout_problems(workload: Workload, gpu_count: int, stated: StatedLayout) -> dict[str, list[str]]:
    """Field-named reasons the stated layout cannot be estimated (empty when it can)."""
    tp, pp = stated.tensor_parallel, stated.pipeline_parallel
    said = [name for name, ways in ((TP, tp), (PP, pp)) if ways > 1] or [TP]
    if workload.task != "inference":
        if tp == pp == 1:
            return {}
        reason = Phrase(
            "training is estimated data parallel (ZeRO/FSDP sharding over the GPUs); tensor and pipeline "
            "parallel training are not modelled: leave %(field)s out",
            field=said[0],
        )
        return {name: [reason] for name in said}
    if tp < 1 or pp < 1:
        return {name: [Phrase("Must be at least 1.")] for name, ways in ((TP, tp), (PP, pp)) if ways < 1}
    if stated.instance > gpu_count or gpu_count % stated.instance:
        reason = Phrase(
            "tensor_parallel_size × pipeline_parallel_size = %(instance)s GPUs per replica; gpu_count = %(count)s "
            "must be a whole number of replicas",
            instance=Num(stated.instance),
            count=Num(gpu_count),
        )
        return {name: [reason] for name in (*said, "gpu_count")}
    if tp > 1 and pp > 1:
        reason = Phrase("tensor and pipeline parallel together are not modelled: state one of them")
        return {TP: [reason], PP: [reason]}
    if tp > 1 and workload.engine not in SERVER_ENGINES:
        return {
            TP: [
                Phrase(
                    "%(engine)s splits a model by layers (pipeline_parallel_size); tensor parallel is modelled for "
                    "vllm, sglang and tensorrt-llm",
                    engine=workload.engine,
                )
            ]
        }
    model = workload.model
    if tp > 1:
        kv_ok = model.is_mla or model.kv_heads % tp == 0 or tp % model.kv_heads == 0
        if model.heads % tp or not kv_ok:
            return {
                TP: [
                    Phrase(
                        "tensor parallel %(tp)s does not split %(model)s's %(heads)s attention heads "
                        "(%(kv)s KV heads) evenly",
                        tp=Num(tp),
                        model=model.name,
                        heads=Num(model.heads),
                        kv=Num(model.kv_heads),
                    )
                ]
            }
    if pp > model.layers:
        return {PP: [Phrase("%(model)s has %(layers)s layers", model=model.name, layers=Num(model.layers))]}
    return {}


def stated_note(stated: StatedLayout, gpu_count: int, users: int) -> Phrase:
    """The assumption that says the layout is the stated one."""
    replicas = gpu_count // stated.instance
    return Phrase.plural(
        "layout as stated: tensor parallel %(tp)s × pipeline parallel %(pp)s, %(replicas)s replica of it "
        "(gpu_count %(count)s) serving the %(users)s users",
        "layout as stated: tensor parallel %(tp)s × pipeline parallel %(pp)s, %(replicas)s replicas of it "
        "(gpu_count %(count)s); the %(users)s users spread evenly over the replicas",
        "replicas",
        tp=Num(stated.tensor_parallel),
        pp=Num(stated.pipeline_parallel),
        replicas=Num(replicas),
        count=Num(gpu_count),
        users=Num(users),
    )
