"""ClusterSpec → ClusterBuild: compute fabric, front-end, management, storage, racks, PDUs, cables, bill.

- **Compute fabric**, rail-optimised (NVIDIA DGX SuperPOD Reference Architecture, DGX H100: one ConnectX-7 per
  GPU, rail r of every node on the same leaf; 32-node scalable units of 8 rail leaves; spines join the leaves):
  radix R = the switch's ports at the NIC speed. Up to R NIC ports: one switch. Beyond, each leaf gives
  D = ⌊R·o/(1+o)⌋ ports to nodes (o = oversubscription, 1 = non-blocking: D = R/2) and ⌈D/o⌉ to spines; a leaf
  takes ⌊D / nodes⌋ rails when the cluster is smaller than D nodes (a 128-port SN5600 leaf: two rails of 32
  nodes, as in NVIDIA's HGX AI Factory 2-8-9-400 RA); spines = the fewest that take every uplink and divide each
  leaf's uplinks evenly. Uplinks are cabled for the full SU (the RAs: build the fabric for whole SUs).
  Past two tiers (more leaves than a spine has ports per leaf link) the sizing refuses: three-tier fabrics are
  not sized here.
- **Front-end / storage**: each node gets one BlueField-3 (the 9th NIC of NVIDIA's 2-8-9-400 node), its two
  ports on two switches of a redundant pair; storage nodes on the same pair.
- **Management**: one 48-port 1 GbE switch per rack (out-of-band: node BMC, DPU BMC, switches, PDUs).
- **Storage**: enough nodes for the usable TB asked and to write one checkpoint in CHECKPOINT_WRITE_S.
- **Racks**: nodes per rack = min(by U, by the rack's kW limit); switches and storage in network racks at the
  middle of the row (shortest runs); a cluster whose nodes fit one rack keeps its switches there when U and kW
  allow. **PDUs**: two feeds (A/B), each able to carry the whole rack (2N); per feed the cheapest set of PDUs whose
  current per phase, I = P / (√3 · V · PF), stays within 80 % of the rating (types.CONTINUOUS_SHARE).
- **Cables**: run length from rack positions (RUN_* below); the cheapest medium that reaches: DAC, then AOC,
  then transceivers at both ends and a fiber cord.
"""

from __future__ import annotations

import math
from collections import Counter
from decimal import Decimal

from configurator.engine.budgets.power import power_budget
from configurator.engine.cluster.parts import (
    AdapterSpec,
    CableSpec,
    ClusterCatalog,
    PduSpec,
    RackSpec,
    StorageNodeSpec,
    SwitchSpec,
)
from configurator.engine.cluster.types import (
    CONTINUOUS_SHARE,
    POWER_FACTOR,
    BomLine,
    ClusterBuild,
    ClusterSpec,
    Device,
    Fabric,
    Link,
    RackPlan,
    StoragePlan,
)
from configurator.engine.errors import DomainError
from configurator.engine.phrase import Phrase
from configurator.engine.types import BuildSpec

# Cable runs (HEURISTIC, the usual overhead-tray practice): inside a rack a cable spans at most the rack's
# height, 2 m for 42-48U; between racks it rises to the tray above the rack and drops into the other (2 m each
# way) plus 1 m of service loop, plus the distance between the racks' centres along the row.
RUN_IN_RACK_M = 2.0
RUN_TRAY_M = 2.0
RUN_SLACK_M = 1.0
# Fiber and twisted-pair cords are cut to these lengths (the next one up from the run).
CORD_LENGTHS_M = (1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0, 70.0, 100.0)
# HEURISTIC: a checkpoint written in at most 5 minutes keeps a 3-hour checkpoint interval's loss under 3 %
# (the target the storage nodes' write bandwidth is sized to).
CHECKPOINT_WRITE_S = 300.0
SQRT3 = math.sqrt(3.0)


def _bom_line(section: str, part: SwitchSpec | StorageNodeSpec | RackSpec | PduSpec | CableSpec, qty: int) -> BomLine:
    """A catalog part's bill line, with both its names."""
    return BomLine(section, part.sku, part.name, qty, part.price, part.name_ru)


def _node_price(node: BuildSpec) -> Decimal:
    total = node.chassis.price
    for lines in (node.cpus, node.gpus, node.psus, node.memory, node.storage, node.nics, node.bridges):
        for line in lines:
            total += line.spec.price * line.qty
    return total


def _rails(node: BuildSpec) -> tuple[int, int]:
    """(compute NIC ports, their speed): the node's NICs of 200 Gb/s and faster are its compute rails."""
    fast = [line for line in node.nics if line.spec.speed_gbps >= 200]
    if not fast:
        return 0, 0
    speed = max(line.spec.speed_gbps for line in fast)
    return sum(line.qty * line.spec.ports for line in fast if line.spec.speed_gbps == speed), speed


def plan_fabric(switch: SwitchSpec, speed: int, rails: int, nodes: int, oversubscription: float) -> Fabric:
    radix = switch.ports_at(speed)
    if rails * nodes <= radix:
        return Fabric(switch, speed, rails, 1, 1, 0, radix, oversubscription, radix // max(rails, 1))
    down = math.floor(radix * oversubscription / (1.0 + oversubscription))
    per_leaf = max(1, min(rails, down // min(nodes, down)))
    while rails % per_leaf:
        per_leaf -= 1
    su_nodes = down // per_leaf
    groups = math.ceil(nodes / su_nodes)
    leaves = groups * rails // per_leaf
    up = math.ceil(down / oversubscription)
    spines = math.ceil(leaves * up / radix)
    while spines <= up and up % spines:
        spines += 1
    if spines > up:
        raise DomainError(
            Phrase(
                "%(nodes)s nodes need a three-tier fabric of %(switch)s, which is not sized here",
                nodes=nodes,
                switch=switch.sku,
            ),
            fields={"nodes": [Phrase("At most a two-tier (leaf/spine) fabric is sized.")]},
        )
    return Fabric(switch, speed, rails, 2, leaves, spines, down, oversubscription, su_nodes)


def _cheapest_compute_switch(cat: ClusterCatalog, speed: int) -> list[SwitchSpec]:
    return [s for s in cat.switches.values() if s.role == "compute" and s.rdma and s.port_speed_gbps >= speed]


def _cord_length(run: float) -> float:
    return next((length for length in CORD_LENGTHS_M if length >= run), run)


def choose_cable(
    cat: ClusterCatalog, speed: int, run: float, a_switch: bool, b_switch: bool
) -> tuple[str, str, tuple[str, ...]]:
    """(medium, cable SKU, transceiver SKUs at a and b) of the cheapest way to join two ports `run` m apart."""
    fitting = [c for c in cat.cables.values() if c.speed_gbps == speed]
    for medium in ("copper", "dac", "aoc"):
        fixed = [c for c in fitting if c.medium == medium and (c.length_m or c.reach_m) >= run and c.reach_m >= run]
        if fixed:
            best = min(fixed, key=lambda c: (c.length_m or 0.0, c.price))
            return medium, best.sku, ()
    fibers = [c for c in fitting if c.medium == "fiber" and c.reach_m >= run]
    modules = [c for c in fitting if c.medium == "transceiver" and c.reach_m >= run]
    if not fibers or not modules:
        return "none", "", ()

    def module(switch_end: bool) -> CableSpec:
        wanted = [m for m in modules if (m.ports > 1) == switch_end] or modules
        return min(wanted, key=lambda m: (m.price / m.ports, m.sku))

    a, b = module(a_switch), module(b_switch)
    # the cord made for the modules: the fiber class whose reach is nearest above theirs (OM4 for SR4's 50 m,
    # OS2 for DR4's 500 m); the catalog has no mode field, the reach tells the classes apart
    modules_reach = min(a.reach_m, b.reach_m)
    fiber = min(fibers, key=lambda c: (c.reach_m < modules_reach, abs(c.reach_m - modules_reach), c.price))
    return "optical", fiber.sku, (a.sku, b.sku)


def _pdu_plan(cat: ClusterCatalog, load_w: float, voltage: int) -> tuple[PduSpec, int, float]:
    """(PDU, PDUs per feed, amps per phase on the feed): the cheapest set within the continuous share."""
    amps = load_w / (SQRT3 * voltage * POWER_FACTOR)
    options = []
    for pdu in cat.pdus.values():
        if pdu.phases != 3:
            continue
        count = max(1, math.ceil(amps / (pdu.current_a * CONTINUOUS_SHARE)))
        options.append((pdu.price * count, count, pdu.sku, pdu))
    if not options:
        raise DomainError(Phrase("the catalog has no three-phase PDU"), fields={"pdu": [Phrase("None on sale.")]})
    _, count, _, pdu = min(options)
    return pdu, count, amps


def _storage_plan(cat: ClusterCatalog, spec: ClusterSpec) -> StoragePlan | None:
    if spec.storage_tb <= 0 and spec.checkpoint_tb <= 0:
        return None
    options = []
    for node in cat.storage_nodes.values():
        count = max(
            1,
            math.ceil(spec.storage_tb / node.usable_tb),
            math.ceil(spec.checkpoint_tb * 1000 / (node.write_gbs * CHECKPOINT_WRITE_S)),
        )
        options.append((node.price * count, node.sku, count, node))
    if not options:
        raise DomainError(Phrase("the catalog has no storage node"), fields={"storage_tb": [Phrase("None on sale.")]})
    _, _, count, node = min(options)
    write_s = spec.checkpoint_tb * 1000 / (node.write_gbs * count)
    return StoragePlan(node, count, spec.storage_tb, spec.checkpoint_tb, write_s)


def _dpu(cat: ClusterCatalog) -> AdapterSpec | None:
    dpus = [a for a in cat.adapters.values() if a.is_dpu]
    return min(dpus, key=lambda a: (a.price, a.sku)) if dpus else None


def _rack_for(cat: ClusterCatalog, sku: str | None, need_u: int) -> RackSpec:
    if sku is not None:
        if sku not in cat.racks:
            raise DomainError(Phrase("unknown rack %(sku)s", sku=sku), fields={"rack": [Phrase("Not in the catalog.")]})
        return cat.racks[sku]
    racks = [r for r in cat.racks.values() if r.rack_units >= need_u]
    if not racks:
        raise DomainError(Phrase("no rack holds a node"), fields={"rack": [Phrase("None tall enough.")]})
    return min(racks, key=lambda r: (r.price, r.sku))


def size_cluster(spec: ClusterSpec, cat: ClusterCatalog) -> ClusterBuild:
    if spec.nodes < 1:
        raise DomainError(Phrase("a cluster has at least one node"), fields={"nodes": [Phrase("Must be at least 1.")]})
    if spec.oversubscription < 1:
        raise DomainError(
            Phrase("oversubscription below 1:1 is not a fabric"),
            fields={"oversubscription": [Phrase("Must be at least 1.")]},
        )
    node = spec.node
    gpus_per_node = sum(line.qty for line in node.gpus)
    rails, speed = _rails(node)
    dpu = _dpu(cat)
    node_w = power_budget(node).load_w + (dpu.power_w if dpu else 0)
    node_u = math.ceil(node.chassis.rack_units or 4)
    node_cords = sum(line.qty for line in node.psus) or 2

    # compute fabric
    fabric: Fabric | None = None
    if rails and (spec.nodes > 1 or spec.purpose == "training"):
        if spec.compute_switch is not None:
            switch = cat.switches.get(spec.compute_switch)
            if switch is None:
                raise DomainError(
                    Phrase("unknown switch %(sku)s", sku=spec.compute_switch),
                    fields={"compute_switch": [Phrase("Not in the catalog.")]},
                )
            if switch.role != "compute" or not switch.ports_at(speed):
                raise DomainError(
                    Phrase("%(sku)s is not a compute switch with %(speed)s Gb/s ports", sku=switch.sku, speed=speed),
                    fields={"compute_switch": [Phrase("Not a compute switch for the nodes' NICs.")]},
                )
            fabric = plan_fabric(switch, speed, rails, spec.nodes, spec.oversubscription)
        else:
            fabrics = []
            for candidate in _cheapest_compute_switch(cat, speed):
                try:
                    fabrics.append(plan_fabric(candidate, speed, rails, spec.nodes, spec.oversubscription))
                except DomainError:
                    continue  # too many nodes for two tiers of this switch: another may take them
            if not fabrics:
                raise DomainError(
                    Phrase("no compute switch of the catalog joins %(nodes)s nodes in two tiers", nodes=spec.nodes),
                    fields={"nodes": [Phrase("At most a two-tier (leaf/spine) fabric is sized.")]},
                )
            if fabrics:
                fabric = min(fabrics, key=lambda f: (f.switch.price * (f.leaves + f.spines), f.switch.sku))

    storage = _storage_plan(cat, spec)

    # front-end pair: every node's DPU ports and the storage nodes' ports
    fe_ports = (dpu.ports if dpu else 0) * spec.nodes + (storage.count * storage.node.ports if storage else 0)
    frontends = [
        s for s in cat.switches.values() if s.role == "frontend" and dpu and s.port_speed_gbps >= dpu.speed_gbps
    ]
    frontend = min(frontends, key=lambda s: (s.price, s.sku)) if frontends else None
    fe_count = 0
    if frontend is not None and dpu is not None and fe_ports:
        fe_count = 2 * math.ceil(fe_ports / 2 / frontend.ports_at(dpu.speed_gbps))
    managements = [s for s in cat.switches.values() if s.role == "management"]
    if not managements:
        raise DomainError(Phrase("the catalog has no management switch"), fields={"management": [Phrase("None.")]})
    management = min(managements, key=lambda s: (s.price, s.sku))

    # compute racks
    rack = _rack_for(cat, spec.rack, node_u + management.rack_units)
    by_u = (rack.rack_units - management.rack_units) // node_u
    by_kw = int(spec.rack_kw_limit * 1000 // node_w)
    per_rack = max(1, min(by_u, by_kw))
    compute_racks = math.ceil(spec.nodes / per_rack)

    # network devices (switches, storage) to place
    net: list[tuple[str, str, str, int, float, float, tuple[int, ...]]] = []  # id, kind, sku, U, W, kg, rails
    if fabric is not None:
        per_leaf = fabric.rails if fabric.tiers == 1 else fabric.downlinks_per_leaf // fabric.nodes_per_su
        for leaf in range(fabric.leaves):
            first = (leaf * per_leaf) % fabric.rails
            rails_of = tuple(range(fabric.rails)) if fabric.tiers == 1 else tuple(range(first, first + per_leaf))
            sw = fabric.switch
            net.append((f"leaf-{leaf}", "leaf", sw.sku, sw.rack_units, sw.power_w, sw.weight_kg, rails_of))
        for spine in range(fabric.spines):
            sw = fabric.switch
            net.append((f"spine-{spine}", "spine", sw.sku, sw.rack_units, sw.power_w, sw.weight_kg, ()))
    if frontend is not None:
        for i in range(fe_count):
            f = frontend
            net.append((f"fe-{i}", "frontend", f.sku, f.rack_units, f.power_w, f.weight_kg, ()))
    if storage is not None:
        for i in range(storage.count):
            n = storage.node
            net.append((f"storage-{i}", "storage", n.sku, n.rack_units, n.power_w, n.weight_kg, ()))

    # place: compute racks, then network racks (or the single compute rack when everything fits)
    devices: list[Device] = []
    rack_specs: list[RackSpec] = []
    roles: list[str] = []
    fill_u: list[int] = []
    fill_w: list[float] = []
    for _ in range(compute_racks):
        rack_specs.append(rack)
        roles.append("compute")
        fill_u.append(management.rack_units)
        fill_w.append(float(management.power_w))
    for i in range(spec.nodes):
        r = i // per_rack
        devices.append(
            Device(f"node-{i:02d}", "node", node.chassis.sku, r, fill_u[r] + 1, node_u, node_w, spec.node_weight_kg)
        )
        fill_u[r] += node_u
        fill_w[r] += node_w
    net_u = sum(d[3] for d in net)
    net_w = sum(d[4] for d in net)
    together = (
        compute_racks == 1 and fill_u[0] + net_u <= rack.rack_units and fill_w[0] + net_w <= spec.rack_kw_limit * 1000
    )
    network_rack = max(cat.racks.values(), key=lambda r: (r.rack_units, -r.price))
    for ident, kind, sku, u, w, kg, rails_of in net:
        target = 0 if together else -1
        if not together:
            for r in range(compute_racks, len(rack_specs)):
                if fill_u[r] + u <= rack_specs[r].rack_units and fill_w[r] + w <= spec.rack_kw_limit * 1000:
                    target = r
                    break
            if target < 0:
                rack_specs.append(network_rack)
                roles.append("network")
                fill_u.append(management.rack_units)
                fill_w.append(float(management.power_w))
                target = len(rack_specs) - 1
        devices.append(Device(ident, kind, sku, target, fill_u[target] + 1, u, w, kg, rails_of))
        fill_u[target] += u
        fill_w[target] += w
    for r in range(len(rack_specs)):
        devices.append(
            Device(
                f"oob-{r}",
                "management",
                management.sku,
                r,
                1,
                management.rack_units,
                management.power_w,
                management.weight_kg,
            )
        )

    # the row: compute racks split around the network racks
    compute_ids = list(range(compute_racks))
    network_ids = list(range(compute_racks, len(rack_specs)))
    half = (len(compute_ids) + 1) // 2
    order = compute_ids[:half] + network_ids + compute_ids[half:]
    centre: dict[int, float] = {}
    x = 0.0
    for r in order:
        width = rack_specs[r].width_mm / 1000
        centre[r] = x + width / 2
        x += width
    where = {d.id: d for d in devices}

    def run(a: str, b: str) -> float:
        ra, rb = where[a].rack, where[b].rack
        if ra == rb:
            return RUN_IN_RACK_M
        return round(abs(centre[ra] - centre[rb]) + 2 * RUN_TRAY_M + RUN_SLACK_M, 2)

    links: list[Link] = []

    def join(network: str, a: str, b: str, link_speed: int, rail: int = -1) -> None:
        length = run(a, b)
        a_switch, b_switch = where[a].kind != "node", where[b].kind != "node"
        medium, cable, modules = choose_cable(cat, link_speed, length, a_switch, b_switch)
        links.append(Link(network, a, b, link_speed, length, medium, cable, modules, rail))

    if fabric is not None:
        leaf_of: dict[tuple[int, int], str] = {}
        leaves = [d for d in devices if d.kind == "leaf"]
        for d in leaves:
            group = int(d.id.split("-")[1]) // max(1, fabric.rails // len(d.rails))
            for rail in d.rails:
                leaf_of[(group, rail)] = d.id
        for i in range(spec.nodes):
            group = 0 if fabric.tiers == 1 else i // fabric.nodes_per_su
            for rail in range(fabric.rails):
                join("compute", f"node-{i:02d}", leaf_of[(group, rail)], speed, rail)
        if fabric.spines:
            up = math.ceil(fabric.downlinks_per_leaf / fabric.oversubscription)
            for d in leaves:
                for spine in range(fabric.spines):
                    for _ in range(up // fabric.spines):
                        join("uplink", d.id, f"spine-{spine}", speed)
    if frontend is not None and dpu is not None and fe_count:
        pairs = fe_count // 2
        per_pair = math.ceil(spec.nodes / pairs)
        for i in range(spec.nodes):
            pair = i // per_pair
            for port in range(dpu.ports):
                join("frontend", f"node-{i:02d}", f"fe-{2 * pair + port % 2}", dpu.speed_gbps)
        if storage is not None:
            for i in range(storage.count):
                for port in range(storage.node.ports):
                    join("storage", f"storage-{i}", f"fe-{port % fe_count}", storage.node.port_speed_gbps)
    for d in list(devices):
        if d.kind == "management":
            continue
        ports = 2 if d.kind == "node" else 1  # a node: host BMC and DPU BMC
        for _ in range(ports):
            join("management", d.id, f"oob-{d.rack}", management.port_speed_gbps)

    # racks: power, weight, PDUs
    plans: list[RackPlan] = []
    for r, rack_spec in enumerate(rack_specs):
        inside = [d for d in devices if d.rack == r]
        load = sum(d.power_w for d in inside)
        pdu, per_feed, amps = _pdu_plan(cat, load, spec.site_voltage_v)
        cords = sum(node_cords if d.kind == "node" else 2 for d in inside) // 2
        weight = rack_spec.weight_kg + sum(d.weight_kg for d in inside) + 2 * per_feed * pdu.weight_kg
        used = sum(d.height_u for d in inside)
        plans.append(
            RackPlan(r, rack_spec, roles[r], used, load, weight, pdu, per_feed, 2, amps, amps / per_feed, cords)
        )

    # bill of materials
    bom: list[BomLine] = []
    node_name = f"GPU node: {node.chassis.name}, {gpus_per_node} GPUs"
    node_ru = f"GPU-узел: {node.chassis.name_ru or node.chassis.name}, {gpus_per_node} GPU"
    bom.append(BomLine("nodes", node.chassis.sku, node_name, spec.nodes, _node_price(node), node_ru))
    if dpu is not None:
        bom.append(BomLine("nodes", dpu.sku, dpu.name, spec.nodes, dpu.price, dpu.name_ru))
    kinds = Counter(d.sku for d in devices if d.kind in ("leaf", "spine"))
    for sku, qty in sorted(kinds.items()):
        bom.append(_bom_line("compute fabric", cat.switches[sku], qty))
    if frontend is not None and fe_count:
        bom.append(_bom_line("front-end", frontend, fe_count))
    bom.append(_bom_line("management", management, len(rack_specs)))
    if storage is not None:
        bom.append(_bom_line("storage", storage.node, storage.count))
    for sku, qty in sorted(Counter(p.rack.sku for p in plans).items()):
        bom.append(_bom_line("racks and power", cat.racks[sku], qty))
    pdus = Counter[str]()
    for p in plans:
        pdus[p.pdu.sku] += p.pdus_per_feed * p.feeds
    for sku, qty in sorted(pdus.items()):
        bom.append(_bom_line("racks and power", cat.pdus[sku], qty))
    cable_qty = Counter[str]()
    module_ends = Counter[str]()
    for link in links:
        if link.cable:
            cable_qty[link.cable] += 1
        for module in link.modules:
            module_ends[module] += 1
    for sku, ends in module_ends.items():
        cable_qty[sku] += math.ceil(ends / cat.cables[sku].ports)
    for sku, qty in sorted(cable_qty.items()):
        bom.append(_bom_line("cables", cat.cables[sku], qty))
    used_cables = {sku: cat.cables[sku] for sku in cable_qty}
    return ClusterBuild(
        spec=spec,
        gpus_per_node=gpus_per_node,
        node_load_w=node_w,
        fabric=fabric,
        frontend=frontend,
        frontend_count=fe_count,
        management=management,
        management_count=len(rack_specs),
        storage=storage,
        racks=tuple(plans),
        devices=tuple(devices),
        links=tuple(links),
        bom=tuple(bom),
        cables=used_cables,
    )


__all__ = ["choose_cable", "plan_fabric", "size_cluster"]
