"""Rules of a cluster build: each yields Findings as the server rules do (engine.types.Finding).

- ports: no switch has more links than ports at the links' speed; compute links run at the NICs' speed on
  switches whose ports take it (native or split);
- cable reach: every link has a medium, a fixed-length cable at least as long as the run, and the run within
  the reach of the cable and of the transceivers at both ends;
- rail alignment: rail r of every node of a scalable unit lands on the one leaf that carries rail r for it
  (NVIDIA DGX SuperPOD RA: traffic within a rail is one switch away);
- rack power (kW against the site's per-rack limit for power and cooling), amps per feed (per PDU within
  CONTINUOUS_SHARE of its rating, the whole rack on one feed) and outlets per feed;
- rack units, and floor weight: the rack's static load rating and kg/m² over its footprint against the
  floor's rating (TIA-942);
- fabric: a training job needs an RDMA compute fabric (InfiniBand or RoCE Ethernet); a model served across
  nodes needs one too (pipeline / expert parallel traffic).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from enum import StrEnum

from configurator.engine.cluster.types import CONTINUOUS_SHARE, ClusterBuild
from configurator.engine.phrase import Num, Phrase
from configurator.engine.types import Finding


class ClusterFindingCode(StrEnum):
    PORTS = "cluster.switch_ports"
    PORT_SPEED = "cluster.port_speed"
    CABLE_REACH = "cluster.cable_reach"
    RAIL_ALIGNMENT = "cluster.rail_alignment"
    RACK_POWER = "cluster.rack_power"
    FEED_CURRENT = "cluster.feed_current"
    PDU_OUTLETS = "cluster.pdu_outlets"
    RACK_UNITS = "cluster.rack_units"
    FLOOR_WEIGHT = "cluster.floor_weight"
    RDMA_FABRIC = "cluster.rdma_fabric"


def _switch_skus(build: ClusterBuild) -> dict[str, str]:
    return {d.id: d.sku for d in build.devices if d.kind in ("leaf", "spine", "frontend", "management")}


def switch_ports(build: ClusterBuild) -> Iterator[Finding]:
    skus = _switch_skus(build)
    switches = {
        s.sku: s for s in (build.fabric.switch if build.fabric else None, build.frontend, build.management) if s
    }
    used: Counter[tuple[str, int]] = Counter()
    for link in build.links:
        for end in (link.a, link.b):
            if end in skus:
                used[(end, link.speed_gbps)] += 1
    for (device, speed), count in sorted(used.items()):
        switch = switches[skus[device]]
        if switch.port_speed_gbps < speed:
            yield Finding(
                ClusterFindingCode.PORT_SPEED,
                "error",
                Phrase(
                    "%(device)s (%(sku)s) has %(port)s Gb/s ports; its links run at %(speed)s Gb/s",
                    device=device,
                    sku=switch.sku,
                    port=switch.port_speed_gbps,
                    speed=speed,
                ),
                measured=speed,
                limit=switch.port_speed_gbps,
                unit="Gb/s",
                components=(switch.sku,),
            )
            continue
        ports = switch.ports_at(speed)
        if count > ports:
            yield Finding(
                ClusterFindingCode.PORTS,
                "error",
                Phrase(
                    "%(device)s (%(sku)s) has %(count)s links at %(speed)s Gb/s and %(ports)s ports for them",
                    device=device,
                    sku=switch.sku,
                    count=count,
                    speed=speed,
                    ports=ports,
                ),
                measured=count,
                limit=ports,
                unit="ports",
                components=(switch.sku,),
            )
    nic_speeds = {line.spec.speed_gbps for line in build.spec.node.nics if line.spec.speed_gbps >= 200}
    for link in build.links:
        if link.network == "compute" and link.speed_gbps not in nic_speeds:
            yield Finding(
                ClusterFindingCode.PORT_SPEED,
                "error",
                Phrase(
                    "compute link %(a)s–%(b)s runs at %(speed)s Gb/s; the node's NICs run at %(nic)s Gb/s",
                    a=link.a,
                    b=link.b,
                    speed=link.speed_gbps,
                    nic=", ".join(str(s) for s in sorted(nic_speeds)) or "—",
                ),
                measured=link.speed_gbps,
                unit="Gb/s",
            )
            return


def cable_reach(build: ClusterBuild) -> Iterator[Finding]:
    for link in build.links:
        if link.medium == "none" or not link.cable:
            yield Finding(
                ClusterFindingCode.CABLE_REACH,
                "error",
                Phrase(
                    "no cable of the catalog joins %(a)s and %(b)s: %(length)s m at %(speed)s Gb/s",
                    a=link.a,
                    b=link.b,
                    length=Num(link.length_m, 1),
                    speed=link.speed_gbps,
                ),
                measured=link.length_m,
                unit="m",
            )
            continue
        cable = build.cables[link.cable]
        parts = [cable, *(build.cables[m] for m in link.modules)]
        reach = min(part.reach_m for part in parts)
        short = cable.length_m is not None and cable.length_m < link.length_m
        if link.length_m > reach or short:
            limit = cable.length_m if short and cable.length_m is not None else reach
            yield Finding(
                ClusterFindingCode.CABLE_REACH,
                "error",
                Phrase(
                    "%(a)s–%(b)s needs %(length)s m; %(cable)s gives %(limit)s m",
                    a=link.a,
                    b=link.b,
                    length=Num(link.length_m, 1),
                    cable=", ".join(p.sku for p in parts),
                    limit=Num(limit, 1),
                ),
                measured=link.length_m,
                limit=limit,
                unit="m",
                components=tuple(p.sku for p in parts),
            )


def rail_alignment(build: ClusterBuild) -> Iterator[Finding]:
    fabric = build.fabric
    if fabric is None:
        return
    rails_of = {d.id: d.rails for d in build.devices if d.kind == "leaf"}
    leaf_per: dict[tuple[int, int], set[str]] = defaultdict(set)
    node_index = {d.id: i for i, d in enumerate(d for d in build.devices if d.kind == "node")}
    for link in build.links:
        if link.network != "compute":
            continue
        leaf = link.b
        if link.rail not in rails_of.get(leaf, ()):
            yield Finding(
                ClusterFindingCode.RAIL_ALIGNMENT,
                "error",
                Phrase(
                    "%(node)s rail %(rail)s lands on %(leaf)s, which carries rails %(rails)s",
                    node=link.a,
                    rail=link.rail,
                    leaf=leaf,
                    rails=", ".join(str(r) for r in rails_of.get(leaf, ())) or "—",
                ),
                measured=link.rail,
            )
        group = 0 if fabric.tiers == 1 else node_index[link.a] // fabric.nodes_per_su
        leaf_per[(group, link.rail)].add(leaf)
    for (group, rail), leaves in sorted(leaf_per.items()):
        if len(leaves) > 1:
            yield Finding(
                ClusterFindingCode.RAIL_ALIGNMENT,
                "error",
                Phrase(
                    "rail %(rail)s of scalable unit %(group)s is split over %(leaves)s",
                    rail=rail,
                    group=group,
                    leaves=", ".join(sorted(leaves)),
                ),
                measured=len(leaves),
                limit=1,
            )


def rack_power(build: ClusterBuild) -> Iterator[Finding]:
    limit_w = build.spec.rack_kw_limit * 1000
    for rack in build.racks:
        if rack.load_w > limit_w:
            yield Finding(
                ClusterFindingCode.RACK_POWER,
                "error",
                Phrase(
                    "rack %(rack)s draws %(kw)s kW; the site takes %(limit)s kW per rack (power and cooling)",
                    rack=rack.index,
                    kw=Num(rack.load_w / 1000, 1),
                    limit=Num(build.spec.rack_kw_limit, None),
                ),
                measured=round(rack.load_w / 1000, 2),
                limit=build.spec.rack_kw_limit,
                unit="kW",
            )
        rated = rack.pdu.current_a * CONTINUOUS_SHARE
        if rack.amps_per_pdu > rated:
            yield Finding(
                ClusterFindingCode.FEED_CURRENT,
                "error",
                Phrase(
                    "rack %(rack)s: %(amps)s A per phase on each of %(count)s × %(pdu)s per feed; "
                    "80 %% of its rating is %(rated)s A",
                    rack=rack.index,
                    amps=Num(rack.amps_per_pdu, 1),
                    count=rack.pdus_per_feed,
                    pdu=rack.pdu.sku,
                    rated=Num(rated, 1),
                ),
                measured=round(rack.amps_per_pdu, 1),
                limit=rated,
                unit="A",
                components=(rack.pdu.sku,),
            )
        outlets = rack.pdu.outlets * rack.pdus_per_feed
        if rack.cords_per_feed > outlets:
            yield Finding(
                ClusterFindingCode.PDU_OUTLETS,
                "error",
                Phrase(
                    "rack %(rack)s: %(cords)s power cords per feed, %(outlets)s outlets",
                    rack=rack.index,
                    cords=rack.cords_per_feed,
                    outlets=outlets,
                ),
                measured=rack.cords_per_feed,
                limit=outlets,
            )


def rack_space_and_floor(build: ClusterBuild) -> Iterator[Finding]:
    for rack in build.racks:
        if rack.used_u > rack.rack.rack_units:
            yield Finding(
                ClusterFindingCode.RACK_UNITS,
                "error",
                Phrase(
                    "rack %(rack)s holds %(used)s U in %(units)s U",
                    rack=rack.index,
                    used=rack.used_u,
                    units=rack.rack.rack_units,
                ),
                measured=rack.used_u,
                limit=rack.rack.rack_units,
                unit="U",
            )
        if rack.weight_kg > rack.rack.static_load_kg:
            yield Finding(
                ClusterFindingCode.FLOOR_WEIGHT,
                "error",
                Phrase(
                    "rack %(rack)s weighs %(kg)s kg; %(sku)s is rated for %(limit)s kg",
                    rack=rack.index,
                    kg=Num(rack.weight_kg),
                    sku=rack.rack.sku,
                    limit=rack.rack.static_load_kg,
                ),
                measured=round(rack.weight_kg),
                limit=rack.rack.static_load_kg,
                unit="kg",
            )
        area = rack.rack.width_mm * rack.rack.depth_mm / 1e6
        load = rack.weight_kg / area
        if load > build.spec.floor_kg_m2:
            yield Finding(
                ClusterFindingCode.FLOOR_WEIGHT,
                "error",
                Phrase(
                    "rack %(rack)s puts %(load)s kg/m² on its footprint; the floor takes %(limit)s kg/m²",
                    rack=rack.index,
                    load=Num(load),
                    limit=Num(build.spec.floor_kg_m2),
                ),
                measured=round(load),
                limit=build.spec.floor_kg_m2,
                unit="kg/m²",
            )


def rdma_fabric(build: ClusterBuild) -> Iterator[Finding]:
    fabric = build.fabric
    spans = build.spec.nodes > 1
    if fabric is not None and fabric.switch.rdma:
        return
    if build.spec.purpose == "training":
        yield Finding(
            ClusterFindingCode.RDMA_FABRIC,
            "error",
            Phrase("training across GPUs needs an RDMA compute fabric (InfiniBand or RoCE) with one NIC per GPU"),
        )
    elif spans:
        yield Finding(
            ClusterFindingCode.RDMA_FABRIC,
            "warning",
            Phrase(
                "without a compute fabric each node serves on its own: a model split across nodes "
                "(pipeline or expert parallel) needs one"
            ),
        )


CLUSTER_RULES = (switch_ports, cable_reach, rail_alignment, rack_power, rack_space_and_floor, rdma_fabric)


def check_cluster(build: ClusterBuild) -> tuple[Finding, ...]:
    """Every finding of every cluster rule, errors first."""
    order = {"error": 0, "warning": 1, "info": 2}
    found = [finding for rule in CLUSTER_RULES for finding in rule(build)]
    return tuple(sorted(found, key=lambda f: (order[f.severity], f.code)))
