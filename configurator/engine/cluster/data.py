"""A ClusterRecommendation as plain data: the one body the API answers and the cluster card page shows."""

from __future__ import annotations

from typing import Any

from configurator.engine.cluster.recommend import ClusterOption, ClusterRecommendation


def option_data(option: ClusterOption) -> dict[str, Any]:
    build = option.build
    spec = build.spec
    node = spec.node
    fabric = build.fabric
    return {
        "valid": option.valid,
        "nodes": spec.nodes,
        "gpus_per_node": build.gpus_per_node,
        "gpu": node.gpus[0].spec.sku,
        "node_chassis": node.chassis.sku,
        "node_load_w": round(build.node_load_w, 1),
        "purpose": spec.purpose,
        "price": build.price,
        "load_kw": round(build.load_kw, 2),
        "fabric": None
        if fabric is None
        else {
            "switch": fabric.switch.sku,
            "speed_gbps": fabric.speed_gbps,
            "rails": fabric.rails,
            "tiers": fabric.tiers,
            "leaves": fabric.leaves,
            "spines": fabric.spines,
            "downlinks_per_leaf": fabric.downlinks_per_leaf,
            "oversubscription": fabric.oversubscription,
            "nodes_per_su": fabric.nodes_per_su,
        },
        "frontend": None if build.frontend is None else {"switch": build.frontend.sku, "count": build.frontend_count},
        "management": {"switch": build.management.sku, "count": build.management_count},
        "storage": None
        if build.storage is None
        else {
            "sku": build.storage.node.sku,
            "count": build.storage.count,
            "need_tb": round(build.storage.need_tb, 2),
            "checkpoint_tb": round(build.storage.checkpoint_tb, 3),
            "checkpoint_write_s": round(build.storage.write_s, 1),
        },
        "racks": [
            {
                "index": r.index,
                "role": r.role,
                "rack": r.rack.sku,
                "used_u": r.used_u,
                "rack_units": r.rack.rack_units,
                "load_kw": round(r.load_w / 1000, 2),
                "weight_kg": round(r.weight_kg, 1),
                "pdu": r.pdu.sku,
                "pdus_per_feed": r.pdus_per_feed,
                "feeds": r.feeds,
                "amps_per_feed": round(r.amps_per_feed, 1),
                "amps_per_pdu": round(r.amps_per_pdu, 1),
                "devices": [
                    {"id": d.id, "kind": d.kind, "sku": d.sku, "u": d.u, "height_u": d.height_u}
                    for d in sorted((d for d in build.devices if d.rack == r.index), key=lambda d: -d.u)
                ],
            }
            for r in build.racks
        ],
        "bom": [
            {
                "section": line.section,
                "sku": line.sku,
                "name": line.name,
                "name_ru": line.name_ru,
                "qty": line.qty,
                "unit_price": line.unit_price,
                "total": line.total,
            }
            for line in build.bom
        ],
        "findings": [
            {
                "code": f.code,
                "severity": f.severity,
                "message": f.message,  # the Phrase (a str): pages say it in their language, JSON in English
                "measured": f.measured,
                "limit": f.limit,
                "unit": f.unit,
            }
            for f in option.findings
        ],
        "serving": None
        if option.serving is None
        else {
            "parallelism": option.serving.parallelism,
            "nodes_per_replica": option.serving.nodes_per_replica,
            "replicas": option.serving.replicas,
            "decode_tokens_per_s_per_user": round(option.serving.decode_tokens_per_s_per_user, 2),
            "decode_tokens_per_s_total": round(option.serving.decode_tokens_per_s_total, 1),
        },
        "training": None
        if option.training is None
        else {
            "tokens_per_s": round(option.training.tokens_per_s, 1),
            "tflops_per_gpu": round(option.training.tflops_per_gpu, 1),
            "scaling_efficiency": round(option.training.scaling_efficiency, 3),
            "step_s": round(option.training.step_s, 2),
            "one_more_node_tokens_per_s": round(option.one_more_node_tokens_per_s or 0.0, 1),
        },
    }


def recommendation_data(found: ClusterRecommendation) -> dict[str, Any]:
    miss = found.speed_miss
    return {
        "options": [option_data(o) for o in found.options],
        "elapsed_ms": round(found.elapsed_ms, 1),
        "target_tokens_per_s": found.target_tokens_per_s,
        "speed_miss": None
        if miss is None
        else {
            "gpu": miss.gpu,
            "nodes": miss.nodes,
            "tokens_per_s": round(miss.tokens_per_s, 2),
            "target_tokens_per_s": miss.target_tokens_per_s,
            "miss_percent": round(miss.miss_percent, 1),
        },
    }
