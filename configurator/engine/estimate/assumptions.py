"""The assumption sentences of an estimate: every figure with its source, in the order the reader gets them.

They are `Phrase`s whose first argument is a literal msgid: makemessages extracts them (keep them literal).
"""

from __future__ import annotations

import math

from configurator.engine import calibration as cal
from configurator.engine.estimate.assumptions_training import _training_assumptions, _training_speed_assumptions
from configurator.engine.estimate.engines import (
    GPU_CONTEXT_GIB,
    GPU_MEMORY_UTILIZATION,
    LLAMACPP_UBATCH,
    VLLM_BATCHED_TOKENS_SMALL,
    VLLM_MAX_NUM_SEQS,
    filled_context_phrase,
    kv_sequence_tokens,
)
from configurator.engine.estimate.kv_cache import KV_BYTES_PER_ELEMENT, kv_bytes_per_token, linear_state_bytes
from configurator.engine.estimate.layout import DP_ATTENTION, _parallelism, kv_cache_tokens, pool_users, server_non_kv
from configurator.engine.estimate.plans import _compute_params, _Plan
from configurator.engine.estimate.server_memory import SERVER_ENGINES, server_memory
from configurator.engine.estimate.speed import _Link, _peak_flops, decode_plan, quantized_gemms
from configurator.engine.estimate.training import sharded_stage
from configurator.engine.estimate.weights import (
    _HF_QUANTIZED,
    GGML_TYPE_BITS,
    GGUF_PUBLISHED_BPW,
    GIB,
    HF_LINEAR_BITS,
    NF4_BITS,
)
from configurator.engine.model_params import model_source
from configurator.engine.phrase import Num, Phrase
from configurator.engine.types import GGUF_PRECISIONS, GpuSpec, Throughput


def _precision_words(plan: _Plan) -> Phrase:
    model = plan.workload.model
    bpw = Num(plan.weights * 8 / model.total_params, 2)
    precision = plan.weight_precision
    if precision in GGUF_PRECISIONS:
        return Phrase(
            "%(precision)s = %(bpw)s bits/weight on this model (llama.cpp llama_tensor_get_type mix; "
            "%(published)s on Llama-3.1-8B, llama.cpp tools/quantize/README.md @311c2c9)",
            precision=precision.upper(),
            bpw=bpw,
            published=Num(GGUF_PUBLISHED_BPW[precision], 2),
        )
    if precision == "nf4":
        return Phrase(
            "QLoRA NF4 base = %(bits)s bits/weight with double quantization (arXiv 2305.14314 §3)",
            bits=Num(NF4_BITS, 3),
        )
    experts = Num(GGML_TYPE_BITS["MXFP4"], 2)
    if precision == "mxfp4" and plan.engine == "llama.cpp" and model.is_moe:
        return Phrase(
            "GGUF MXFP4_MOE: experts at %(experts)s bits/weight, other tensors Q8_0 = %(bpw)s bits/weight overall "
            "(llama.cpp llama_tensor_get_type)",
            experts=experts,
            bpw=bpw,
        )
    if precision == "mxfp4" and model.native_precision == "mxfp4":
        return Phrase(
            "MXFP4 experts at %(experts)s bits/weight, attention and embeddings in bf16 = %(bpw)s bits/weight "
            "overall (OpenAI gpt-oss checkpoint layout)",
            experts=experts,
            bpw=bpw,
        )
    mapped = model.precision_map(precision)
    if mapped is not None:
        kinds, layers, checkpoint = mapped
        return Phrase(
            "%(precision)s as the published checkpoint %(checkpoint)s: %(kinds)s%(layers)s kept in bf16 "
            "(its quantization_config modules_to_not_convert) = %(bpw)s bits/weight overall",
            precision=precision,
            checkpoint=checkpoint,
            kinds=", ".join(kinds) or "-",
            layers=f"; whole layers {', '.join(str(i) for i in layers)}" if layers else "",
            bpw=bpw,
        )
    if precision in _HF_QUANTIZED or precision == "mxfp4":
        return Phrase(
            "%(precision)s linear layers at %(linear)s bits/weight, embeddings/lm_head in 16 bits "
            "= %(bpw)s bits/weight overall",
            precision=precision,
            linear=Num(HF_LINEAR_BITS[precision], 2),
            bpw=bpw,
        )
    return Phrase("%(precision)s = %(bits)s bits/weight", precision=precision, bits=Num(HF_LINEAR_BITS[precision]))


def _kv_assumptions(plan: _Plan) -> list[Phrase]:
    w, model = plan.workload, plan.workload.model
    per_token = kv_bytes_per_token(model, w.kv_cache_precision)
    element = Num(KV_BYTES_PER_ELEMENT[w.kv_cache_precision], None)
    if model.is_mla:
        shape = Phrase(
            "MLA latent %(layers)s layers × %(width)s × %(element)s B",
            layers=model.layers,
            width=(model.kv_lora_rank or 0) + (model.qk_rope_head_dim or 0),
            element=element,
        )
    else:
        shape = Phrase(
            "2 × %(layers)s layers × %(kv_heads)s KV heads × %(head_dim)s × %(element)s B",
            layers=model.kv_layers,
            kv_heads=model.kv_heads,
            head_dim=model.head_dim,
            element=element,
        )
    words = [
        Phrase(
            "KV cache %(precision)s: %(shape)s = %(per_token)s KiB per token; "
            "%(tokens)s tokens × %(sequences)s sequence(s)",
            precision=w.kv_cache_precision,
            shape=shape,
            per_token=Num(per_token / 1024, 1),
            tokens=Num(kv_sequence_tokens(w, plan.engine)),
            sequences=plan.sequences,
        )
    ]
    if (held := kv_sequence_tokens(w, plan.engine)) < w.context_tokens:
        words.append(
            Phrase(
                "%(engine)s allocates the KV cache in pages as tokens arrive (PagedAttention, Kwon et al., SOSP "
                "2023): each user holds its request's %(request)s tokens (prompt + output as given), not the "
                "%(context)s-token context; the pool holds at least one sequence of the whole context "
                "(max_model_len must fit)",
                engine=w.engine,
                request=Num(held),
                context=Num(w.context_tokens),
            )
        )
    if model.mamba_layers:
        words.append(
            Phrase(
                "Hybrid Mamba-2 model: %(mamba)s Mamba-2, %(attention)s attention and %(mlp)s MLP blocks; only the "
                "attention blocks keep a KV cache, the Mamba blocks a fixed %(state)s MiB state per sequence in bf16; "
                "speed and memory are computed per layer from the blocks' average shape",
                mamba=model.mamba_layers,
                attention=model.kv_layers,
                mlp=model.linear_attention_layers - model.mamba_layers,
                state=Num(linear_state_bytes(model) / 2**20, 1),
            )
        )
    elif model.linear_attention_layers:
        words.append(
            Phrase(
                "%(linear)s of %(layers)s layers are linear attention (Gated DeltaNet): no KV cache, a fixed "
                "%(state)s MiB state per sequence in bf16",
                linear=model.linear_attention_layers,
                layers=model.layers,
                state=Num(linear_state_bytes(model) / 2**20, 1),
            )
        )
    if model.sliding_window and model.sliding_window_layers:
        words.append(
            Phrase(
                "%(sliding)s of %(layers)s layers use a %(window)s-token sliding window: "
                "their KV cache stops growing there",
                sliding=model.sliding_window_layers,
                layers=model.layers,
                window=Num(model.sliding_window),
            )
        )
    if w.context_tokens > model.max_context:
        words.append(
            Phrase(
                "context %(tokens)s exceeds the model's %(window)s-token window: quality is not guaranteed past it",
                tokens=Num(w.context_tokens),
                window=Num(model.max_context),
            )
        )
    if plan.engine == "llama.cpp":
        words.append(
            Phrase(
                "llama.cpp compute buffer for a %(ubatch)s-token ubatch with flash attention "
                "(%(size)s GiB incl. f32 logits)",
                ubatch=LLAMACPP_UBATCH,
                size=Num((plan.scratch + plan.logits) / GIB, 2),
            )
        )
    elif plan.engine in ("vllm", "sglang", "tensorrt-llm"):
        words.append(
            Phrase(
                "%(engine)s activation peak for %(tokens)s batched tokens and %(sequences)s sampled sequences "
                "(%(size)s GiB)",
                engine=w.engine,
                tokens=VLLM_BATCHED_TOKENS_SMALL,
                sequences=VLLM_MAX_NUM_SEQS,
                size=Num(server_memory(model, None, 1).total / GIB, 2),
            )
        )
    else:
        words.append(
            Phrase(
                "transformers prefill of the whole prompt at once (%(size)s GiB)",
                size=Num(plan.scratch / GIB, 2),
            )
        )
    return words


def _memory_assumptions(plan: _Plan) -> list[Phrase]:
    model = plan.workload.model
    total = Num(model.total_params / 1e9, 2)
    if model.is_moe:
        params = Phrase(
            "%(model)s: %(total)s B parameters, %(active)s B active per token (MoE) (%(source)s)",
            model=model.name,
            total=total,
            active=Num(model.active_params / 1e9, 2),
            source=model_source(model),
        )
    else:
        params = Phrase(
            "%(model)s: %(total)s B parameters (%(source)s)", model=model.name, total=total, source=model_source(model)
        )
    words = [params, Phrase("Weights: %(words)s", words=_precision_words(plan))]
    if model.generic_layout:
        words.append(
            Phrase(
                "model_type %(type)s is not one the estimator knows: sized by the generic rule, a dense decoder "
                "with a gated MLP and full attention in every layer (the Llama layout) from the config's sizes",
                type=model.family,
            )
        )
    words.extend(_training_assumptions(plan) if plan.training else _kv_assumptions(plan))
    if not plan.training and plan.workload.prompt_tokens is None:
        words.append(filled_context_phrase(plan.workload))
    words.append(
        Phrase(
            "CUDA context and runtime reserve %(reserve)s GiB per GPU (ollama reserves 457 MiB)",
            reserve=Num(GPU_CONTEXT_GIB, None),
        )
    )
    words.extend(plan.notes)
    return words


_ZERO_SHARDED: dict[int, Phrase] = {
    0: Phrase("nothing sharded (DDP replicas)"),
    1: Phrase("optimizer states sharded"),
    2: Phrase("optimizer states and gradients sharded"),
    3: Phrase("weights, gradients and optimizer sharded"),
}


def _layout_assumptions(
    plan: _Plan, gpu: GpuSpec, count: int, parallelism: str, link: _Link, throughput: Throughput, instance: _Link | None
) -> list[Phrase]:
    """Memory on the `count` GPUs as laid out; the speeds on the throughput's serving layout (ring at `instance`)."""
    w, model = plan.workload, plan.workload.model
    gpus = count
    words: list[Phrase] = []
    vram = Num(gpu.vram_gib, None)
    util = GPU_MEMORY_UTILIZATION.get(plan.engine)
    if util is not None:
        words.append(
            Phrase(
                "%(engine)s gpu_memory_utilization %(util)s: usable = %(util)s × %(vram)s GiB per GPU",
                engine=w.engine,
                util=Num(util, 2),
                vram=vram,
            )
        )
    else:
        words.append(Phrase("usable = all %(vram)s GiB per GPU; the reserve is counted in the per-GPU need", vram=vram))
    if not plan.training and plan.engine in SERVER_ENGINES:
        server = server_non_kv(plan, parallelism, count, gpu)
        pool = kv_cache_tokens(plan, parallelism, count, gpu) or 0
        words.append(
            Phrase(
                "%(engine)s memory per GPU besides weights and KV cache: activation peak %(act)s GiB for "
                "%(tokens)s batched tokens, fused-MoE workspace %(moe)s GiB, logits and sampler %(logits)s GiB for "
                "%(seqs)s sequences, CUDA graphs %(graphs)s GiB, communication buffers %(comm)s GiB; the KV pool "
                "holds %(pool)s tokens = %(users)s users at %(context)s tokens",
                engine=w.engine,
                act=Num(server.activation / GIB, 2),
                tokens=Num(server.batched_tokens),
                moe=Num(server.moe_workspace / GIB, 2),
                logits=Num(server.logits / GIB, 2),
                seqs=Num(server.max_seqs),
                graphs=Num(server.cuda_graphs / GIB, 2),
                comm=Num(server.comm / GIB, 2),
                pool=Num(pool),
                users=Num(pool_users(plan, pool)),
                context=Num(kv_sequence_tokens(w, plan.engine)),
            )
        )
    if plan.training:
        if count > 1:
            stage = sharded_stage(w.framework, w.zero_stage, count)
            words.append(
                Phrase(
                    "data parallel over %(count)s GPUs, ZeRO stage %(stage)s: %(sharded)s",
                    count=count,
                    stage=stage,
                    sharded=_ZERO_SHARDED[stage],
                )
            )
            if stage >= 3 and plan.gather:
                words.append(
                    Phrase(
                        "%(size)s GiB per GPU does not shard: gathered layers (and, with FSDP, the root unit's "
                        "embeddings and head with its unsharded gradients before their reduce-scatter)",
                        size=Num(plan.gather / GIB, 1),
                    )
                )
        words.extend(_training_speed_assumptions(plan, gpu, count, link))
        return words
    if throughput.users_replicas > 1:  # the users' speeds are one replica's (estimate.serving.serving_throughput)
        count = throughput.users_tensor_parallel
        parallelism = _parallelism(plan, count)
        link = instance or link
    if parallelism == "tensor":
        if model.is_mla:
            kv = Phrase("MLA latent cache replicated on every GPU")
        elif model.kv_heads < count:
            kv = Phrase("%(kv_heads)s KV heads split (replicated: fewer heads than GPUs)", kv_heads=model.kv_heads)
        else:
            kv = Phrase("%(kv_heads)s KV heads split", kv_heads=model.kv_heads)
        words.append(
            Phrase(
                "tensor parallel over %(count)s GPUs via %(link)s: weights split, %(kv)s; "
                "2 all-reduces per layer, ≥ %(floor)s µs each",
                count=count,
                link=link.label,
                kv=kv,
                floor=Num(link.floor_s * 1e6),
            )
        )
    elif parallelism == DP_ATTENTION:
        words.append(
            Phrase(
                "data-parallel attention over %(count)s GPUs via %(link)s (SGLang --enable-dp-attention, vLLM "
                "data parallel): each GPU runs the attention of its own requests with their MLA latent cache and a "
                "whole copy of the attention weights (%(attention)s GiB), the MoE layers stay tensor parallel; "
                "an all-gather and a reduce-scatter per layer, ≥ %(floor)s µs each",
                count=count,
                link=link.label,
                attention=Num(plan.attention_bytes / GIB, 1),
                floor=Num(link.floor_s * 1e6),
            )
        )
    elif parallelism == "pipeline":
        words.append(
            Phrase(
                "layer split over %(count)s GPUs: capacity adds up, single-stream speed does not "
                "(+%(hop)s ms per GPU hand-over)",
                count=count,
                hop=Num(cal.PIPELINE_HOP_S * 1e3, 2),
            )
        )
    constants = cal.DECODE_CONSTANTS[(plan.engine, cal.memory_class(gpu.memory_type))]
    eta = constants.eta_bw
    if "_k" in plan.weight_precision:  # K-quant weights stream slower (calibration.LLAMACPP_KQUANT_EXTRA)
        eta = 1.0 / (1.0 / eta + constants.kquant_extra_for(gpu.vendor))
    decoding = decode_plan(w)  # one sequence at the request's mean depth
    moved = decoding.read_bytes + decoding.kv_read_per_seq
    decode_only = throughput.decode_tokens_per_s_per_user / (1.0 - throughput.prefill_share)
    effective = moved * decode_only / (gpu.bandwidth_gbs * 1e9)
    if parallelism in ("tensor", DP_ATTENTION):
        effective /= count
    words.append(
        Phrase(
            "decode: η_bw = %(eta)s of %(bandwidth)s GB/s + %(tau)s µs per layer per step (%(engine)s, "
            "%(memory)s; %(source)s) → effective η = %(effective)s on %(moved)s GB read per token",
            eta=Num(eta, 2),
            bandwidth=Num(gpu.bandwidth_gbs, None),
            tau=Num(constants.tau_layer_s * 1e6),
            engine=w.engine,
            memory=cal.memory_class(gpu.memory_type).upper(),
            source=constants.source,
            effective=Num(effective, 2),
            moved=Num(moved / 1e9, 2),
        )
    )
    if model.is_moe:
        words.append(
            Phrase(
                "MoE: memory holds all %(experts)s experts; each token reads %(active)s of them; "
                "a batch of %(sequences)s reads the union of the experts its tokens pick",
                experts=model.experts,
                active=model.active_experts,
                sequences=plan.sequences,
            )
        )
    words.append(
        Phrase(
            "prefill at %(mfu)s%% of %(peak)s dense TFLOPS (2 × %(params)s B active params + attention FLOPs "
            "per token); TTFT = one prompt of %(prompt)s tokens on idle GPUs",
            mfu=Num(
                cal.prefill_mfu(plan.engine, quantized=quantized_gemms(gpu, plan.weight_precision, plan.engine))
                * cal.server_mfu_scale(plan.engine, gpu.vendor)
                * 100
            ),
            peak=Num(_peak_flops(gpu, plan.weight_precision, plan.engine) / 1e12, None),
            params=Num(_compute_params(model) / 1e9, 2),
            prompt=Num(throughput.prompt_tokens),
        )
    )
    kernel = cal.int4_kernel(plan.engine, gpu.vendor, gpu.sku, gpu.name) if plan.weight_precision == "int4" else None
    if kernel == "marlin":
        words.append(
            Phrase(
                "INT4 (AWQ/GPTQ W4A16) through the Marlin kernel (vLLM awq_marlin/gptq_marlin, SGLang the same): "
                "4-bit weights streamed at the dense share of bandwidth (Frantar et al. 2024: near-ideal up to "
                "batch 16-32), matmuls at the FP16 tensor-core rate"
            )
        )
    elif kernel == "trtllm-w4a16":
        words.append(
            Phrase(
                "INT4 AWQ through TensorRT-LLM's weight-only W4A16 kernels: weights streamed at %(share)s%% of the "
                "dense share (TensorRT-Model-Optimizer benchmark, H100, Llama3-8B at batch 2), matmuls at the FP16 "
                "tensor-core rate",
                share=Num(cal.INT4_KERNEL_STREAM_SHARE[kernel] * 100),
            )
        )
    elif kernel is not None:
        words.append(
            Phrase(
                "INT4 (AWQ/GPTQ W4A16) without Marlin on this GPU (it needs an NVIDIA Ampere or newer GPU): the "
                "unfused AWQ/GPTQ kernels stream the weights at %(share)s%% of the dense share (a prior from one "
                "published pair, sgl-project/sglang issue #28), matmuls at the FP16 tensor-core rate",
                share=Num(cal.INT4_KERNEL_STREAM_SHARE[kernel] * 100),
            )
        )
    if not w.cuda_graphs and plan.engine in cal.SERVER_ENGINES:
        words.append(
            Phrase(
                "eager mode (no CUDA graphs): every kernel launched from the host, +%(eager)s µs per layer per decode "
                "step (a prior from one published eager/graph pair)",
                eager=Num(cal.EAGER_LAYER_S * 1e6),
            )
        )
    if cal.server_mfu_scale(plan.engine, gpu.vendor) != 1.0:
        scale = Num(cal.AMD_SERVER_MFU_SCALE * 100)
        words.append(
            Phrase(
                "AMD GPU: matrix cores at %(scale)s%% of the MFU fitted on NVIDIA GPUs (measured: MLPerf Inference "
                "v4.1, AMD's MI300X results; Oracle's MI300X runs agree)",
                scale=scale,
            )
            if gpu.sku in cal.AMD_MEASURED_SKUS
            else Phrase(
                "AMD GPU %(gpu)s: unvalidated, no published server-engine runs on it; the %(scale)s%% of the "
                "NVIDIA-fitted MFU measured on MI300X is assumed",
                gpu=gpu.name,
                scale=scale,
            )
        )
    users = Phrase(
        "each user's sequence decodes while the other users' prompts are prefilled (sequences at once: "
        "%(sequences)s), %(share)s%% of its time per token",
        sequences=Num(math.ceil(plan.sequences / max(1, throughput.users_replicas))),
        share=Num(throughput.prefill_share * 100),
    ) if plan.sequences > 1 else Phrase("one sequence decodes alone")  # fmt: skip
    words.append(
        Phrase(
            "requests of %(prompt)s prompt + %(output)s output tokens (%(stated)s): %(users)s; at full load "
            "%(served)s output tokens/s, prefill included (sequences at once: %(served_sequences)s)",
            prompt=Num(throughput.prompt_tokens),
            output=Num(throughput.output_tokens),
            stated=Phrase("as given")
            if w.prompt_tokens is not None or w.output_tokens is not None
            else Phrase("default: output min(512, context / 4), the prompt the rest of the context"),
            users=users,
            served=Num(throughput.served_output_tokens_per_s),
            served_sequences=Num(throughput.served_sequences),
        )
    )
    if gpus > 1 and plan.engine in cal.SERVER_ENGINES and parallelism != DP_ATTENTION:
        words.append(
            Phrase(
                "serving layout: %(replicas)s data-parallel replica(s) of tensor parallelism %(tp)s, the split of the "
                "%(count)s GPUs that serves the workload's users fastest among those whose replicas hold their "
                "share of them (few users: tensor parallel over more GPUs; many: more replicas, which skip the "
                "all-reduces but each hold the weights); the per-user speed and the time to first token are for "
                "this layout, %(share)s user(s) per replica",
                replicas=throughput.users_replicas,
                tp=throughput.users_tensor_parallel,
                count=gpus,
                share=Num(math.ceil(w.concurrent_users / max(1, throughput.users_replicas))),
            )
        )
    if throughput.served_replicas != throughput.users_replicas:  # equal: one split (DP attention's users: 1 instance)
        words.append(
            Phrase(
                "full load: the build's capacity, %(replicas)s replica(s) of tensor parallelism %(tp)s, the split "
                "of most output tokens/s an engine is set to for throughput",
                replicas=throughput.served_replicas,
                tp=throughput.served_tensor_parallel,
            )
        )
    return words
