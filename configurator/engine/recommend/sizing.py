"""CPU cores, system RAM and storage sized from the workload (what the policy asks of every build).

The numbers and where they come from:

- **Reference designs.** NVIDIA DGX H100 (datasheet, nvidia.com/en-us/data-center/dgx-h100, "DGX H100
  System Specifications"): 8 × H100 SXM (640 GB HBM3), 2 × Xeon Platinum 8480C = 112 cores, 2 TB system
  memory, 2 × 1.92 TB NVMe OS + 8 × 3.84 TB NVMe data. DGX H200 (datasheet, same page family): 8 × H200
  (1,128 GB HBM3e), the same CPUs, 2 TB memory. DGX A100 (datasheet): 8 × A100 80 GB, 2 × EPYC 7742 =
  128 cores, 2 TB memory. So a training box gets 14–16 cores and 1.8–3.2 × its VRAM in RAM.
- **Training cores.** HEURISTIC: 8 cores per GPU — PyTorch's DataLoader runs `num_workers` processes per
  GPU rank (4–8 is the usual setting for tokenised text; the torch.utils.data docs leave it to the user)
  plus the rank's own process; half of DGX's 14–16 per GPU, which also serves image pipelines and
  several tenants.
- **Inference cores.** HEURISTIC: 2 cores per GPU — vLLM runs one worker process per GPU plus the API
  server and tokenizer (vLLM docs, "Distributed inference and serving": one process per rank); llama.cpp
  uses the CPU only for what it offloads, which the recommender never plans.
- **Training RAM.** HEURISTIC: ≥ 2 × total VRAM — the lower end of the DGX ratios (1.8 × on DGX H200,
  rounded up), room for the dataset cache, pinned host buffers and a checkpoint staged in memory.
- **Inference RAM.** ≥ total VRAM (validation-rules.md §5.2–5.3, the rule the memory checks already
  use) and ≥ the weight file: the engine reads the weights through the page cache before it copies them
  to the GPUs (llama.cpp mmaps the GGUF file; vLLM loads safetensors through host memory).
- **Storage.** Inference: the weight file twice (the download and a converted or quantized copy) and at
  least 0.9 TB (OS + one model). Training adds checkpoints: full fine-tuning keeps
  `CHECKPOINTS_KEPT` = 3 checkpoints (HF Trainer `save_total_limit` is commonly 2–3; HEURISTIC) of the
  bf16 weights plus the optimizer state (AdamW: fp32 master copy + two moments = 12 bytes per parameter,
  Rajbhandari et al. 2020, ZeRO, §3.1; 8-bit Adam: fp32 master + two 1-byte moments = 6 bytes, Dettmers
  et al. 2022, "8-bit Optimizers via Block-wise Quantization"); LoRA and QLoRA checkpoints are adapters
  (megabytes), so they add a merged bf16 export instead. Plus `DATASET_TB` = 0.5 TB for the dataset
  (HEURISTIC: a fine-tuning corpus of a few million examples is tens of GB tokenised; the rest is raw
  text and versions of it).
- **Data-centre GPU servers** (rack servers and HGX, issue 34; sources in rules/platform.py and
  rules/memory.py): at least 7 cores per GPU for serving (NVIDIA AI Enterprise RA 2-8-5 minimum) and 14 for
  training (DGX H100/H200/B200: 112 cores for 8 GPUs); RAM ≥ 1.5 × VRAM (2 × for training), in the balanced
  one-model-per-channel populations the policy builds; two mirrored boot drives (DGX: 2 × M.2 in RAID 1) and
  data NVMe sized to the model files; a ≥ 25 GbE network card for serving, plus one 200-400G adapter per GPU
  (HGX, RA 2-8-9) or per two GPUs (PCIe, RA 2-8-5) when the workload is multi-node.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from configurator.engine.estimate import weight_bytes
from configurator.engine.frozen import direct_init
from configurator.engine.phrase import Num, Phrase
from configurator.engine.rules.memory import SERVER_RAM_VRAM
from configurator.engine.rules.platform import (
    BOOT_MIRROR_DRIVES,
    DGX_CORES_PER_GPU,
    FABRIC_NIC_GBPS,
    SERVER_CORES_PER_GPU,
    SERVING_NIC_GBPS,
    serves_network,
)
from configurator.engine.types import ChassisSpec, Line, NicSpec, StorageSpec, Workload

TRAINING_CORES_PER_GPU = 8  # HEURISTIC (module docstring): DataLoader workers + the rank's process
INFERENCE_CORES_PER_GPU = 2  # HEURISTIC: one engine worker per GPU + API server / tokenizer
TRAINING_RAM_PER_VRAM = 2.0  # HEURISTIC: the lower end of DGX H100 / H200 / A100 (1.8–3.2 ×)
BOOT_DRIVE_MIN_TB = 0.9  # OS + one model; datacenter NVMe comes in 0.96 / 1.92 / 3.84 … TB
MODEL_COPIES_ON_DISK = 2.0  # the download and a converted / quantized copy side by side
CHECKPOINTS_KEPT = 3  # HEURISTIC: HF Trainer save_total_limit 2–3 in common recipes
OPTIMIZER_BYTES_PER_PARAM = {"adamw": 12.0, "adamw_8bit": 6.0}  # ZeRO §3.1; Dettmers et al. 2022
DATASET_TB = 0.5  # HEURISTIC: the training data and its tokenised versions
GIB = 2**30  # DIMM sizes are binary: a "64 GB" RDIMM holds 64 GiB, so RAM and VRAM compare directly


def _training(workload: Workload) -> bool:
    return workload.task != "inference"


def cores_per_gpu(workload: Workload, *, server: bool = False) -> int:
    """Cores per GPU: workstations by the HEURISTICs above; data-centre servers, and any build serving users
    over the network (`rules.platform.serves_network`: a team's RAG box on a workstation too), by the
    reference designs."""
    if server:
        return DGX_CORES_PER_GPU if _training(workload) else SERVER_CORES_PER_GPU
    if serves_network(workload):
        return SERVER_CORES_PER_GPU
    return TRAINING_CORES_PER_GPU if _training(workload) else INFERENCE_CORES_PER_GPU


def cores_needed(workload: Workload, gpu_count: int, *, server: bool = False) -> int:
    """CPU cores the build should have in total for this workload on `gpu_count` GPUs (`server`: a data-centre
    GPU server, sized by the reference designs)."""
    return cores_per_gpu(workload, server=server) * gpu_count


def ram_needed_gb(workload: Workload, total_vram_gib: float, *, server: bool = False) -> float:
    """System RAM (DIMM GB, which are GiB) the build should have: ≥ 2 × VRAM for training, ≥ VRAM (1.5 × in a
    data-centre server) and ≥ the weights for inference."""
    if _training(workload):
        return TRAINING_RAM_PER_VRAM * total_vram_gib
    ratio = SERVER_RAM_VRAM if server else 1.0
    return max(ratio * total_vram_gib, weight_bytes(workload.model, workload.precision) / GIB)


def storage_needed_tb(workload: Workload) -> float:
    """NVMe (TB) for the model files and, for training, the dataset and checkpoints."""
    files = MODEL_COPIES_ON_DISK * weight_bytes(workload.model, workload.precision) / 1e12
    if not _training(workload):
        return max(BOOT_DRIVE_MIN_TB, files)
    params = workload.model.total_params
    bf16_tb = params * 2 / 1e12
    if workload.task == "full_finetune":
        optimizer = OPTIMIZER_BYTES_PER_PARAM.get(workload.optimizer, OPTIMIZER_BYTES_PER_PARAM["adamw"])
        checkpoints = CHECKPOINTS_KEPT * params * (2 + optimizer) / 1e12
    else:
        checkpoints = bf16_tb  # adapters are megabytes; the merged bf16 export is what takes room
    return max(BOOT_DRIVE_MIN_TB, files + checkpoints + DATASET_TB)


def drive_line(drives: list[StorageSpec], need_tb: float, bays: int | None = None) -> Line[StorageSpec] | None:
    """The cheapest NVMe set of one model reaching `need_tb`: one drive when one is large enough, else as
    few of the largest as reach it (within `bays` when given)."""
    nvme = [d for d in drives if d.interface == "nvme"]
    one = [d for d in nvme if d.capacity_tb >= need_tb]
    if one:
        return Line(spec=min(one, key=lambda d: (d.price, d.sku)), qty=1)
    if not nvme:
        return None
    largest = max(nvme, key=lambda d: (d.capacity_tb, -d.price))
    qty = math.ceil(need_tb / largest.capacity_tb)
    if bays is not None and qty > bays:
        return None
    return Line(spec=largest, qty=qty)


def data_needed_tb(workload: Workload) -> float:
    """Data NVMe (TB) beside mirrored boot drives: the model files (and, training, the dataset and checkpoints)
    without the OS minimum, which the boot drives hold."""
    files = MODEL_COPIES_ON_DISK * weight_bytes(workload.model, workload.precision) / 1e12
    if not _training(workload):
        return files
    return storage_needed_tb(workload)


def mirrored_storage(
    drives: list[StorageSpec], workload: Workload, chassis: ChassisSpec
) -> tuple[Line[StorageSpec], ...] | None:
    """Two mirrored boot drives (the smallest NVMe of at least BOOT_DRIVE_MIN_TB, RAID 1 as on DGX) and data
    NVMe sized to the model files (`data_needed_tb`), within the chassis' drive bays; None when they do not
    fit."""
    nvme = [d for d in drives if d.interface == "nvme"]
    boot = [d for d in nvme if d.capacity_tb >= BOOT_DRIVE_MIN_TB]
    if not boot:
        return None
    boot_drive = min(boot, key=lambda d: (d.price, d.sku))
    bays = chassis.drive_bays + chassis.chipset_m2_slots - BOOT_MIRROR_DRIVES
    data = drive_line(drives, data_needed_tb(workload), bays)
    if data is None or bays < 1:
        return None
    if data.spec.sku == boot_drive.sku:
        return (Line(spec=boot_drive, qty=BOOT_MIRROR_DRIVES + data.qty),)
    return (Line(spec=boot_drive, qty=BOOT_MIRROR_DRIVES), data)


def server_nics(nics: list[NicSpec], workload: Workload, gpu_count: int, nvswitch: bool) -> tuple[Line[NicSpec], ...]:
    """The network cards of a data-centre server: the cheapest ≥ 25 GbE card (north-south, serving and model
    downloads) and, for a multi-node workload, one ≥ 200G adapter per GPU (NVSwitch board, RA 2-8-9) or per
    two GPUs (PCIe, RA 2-8-5); () when the catalog has none."""
    serving = [nic for nic in nics if nic.speed_gbps >= SERVING_NIC_GBPS]
    if not serving:
        return ()
    lines = [Line(spec=min(serving, key=lambda nic: (nic.price, nic.sku)), qty=1)]
    if workload.multi_node:
        fabric = [nic for nic in nics if nic.speed_gbps >= FABRIC_NIC_GBPS]
        if fabric:
            count = gpu_count if nvswitch else math.ceil(gpu_count / 2)
            lines.append(Line(spec=min(fabric, key=lambda nic: (nic.price, nic.sku)), qty=count))
    return tuple(lines)


@direct_init
@dataclass(frozen=True, slots=True)
class Sizing:
    """What the workload asks of CPU, RAM and storage, with why (shown with each candidate)."""

    cores: int
    ram_gb: float
    storage_tb: float
    server: bool = False  # a data-centre GPU server: sized by the reference designs

    @classmethod
    def of(cls, workload: Workload, gpu_count: int, total_vram_gib: float, *, server: bool = False) -> Sizing:
        return cls(
            cores=cores_needed(workload, gpu_count, server=server),
            ram_gb=ram_needed_gb(workload, total_vram_gib, server=server),
            storage_tb=data_needed_tb(workload) if server else storage_needed_tb(workload),
            server=server,
        )


def _server_reasons(
    workload: Workload, sizing: Sizing, cores: int, cpu: str, ram_gb: float, drives: int, storage_tb: float
) -> tuple[Phrase, Phrase, Phrase]:
    """A data-centre server's CPU, RAM and storage and the reference designs behind them."""
    training = _training(workload)
    cpu_why = (
        Phrase(
            "CPU: %(cpu)s, %(cores)s cores: at least %(need)s = %(per_gpu)s data-loader cores per GPU "
            "(DGX H100/H200/B200: 112 cores for 8 GPUs)",
            cpu=cpu,
            cores=cores,
            need=sizing.cores,
            per_gpu=cores_per_gpu(workload, server=True),
        )
        if training
        else Phrase(
            "CPU: %(cpu)s, %(cores)s cores: at least %(need)s = %(per_gpu)s per GPU (NVIDIA Enterprise Reference "
            "Architecture 2-8-5 minimum)",
            cpu=cpu,
            cores=cores,
            need=sizing.cores,
            per_gpu=cores_per_gpu(workload, server=True),
        )
    )
    ram_why = Phrase(
        "system memory: %(ram)s GB, at least %(need)s GB = %(ratio)s × the GPUs' memory, one module per channel "
        "(reference GPU servers: DGX H200 1.8 ×, DGX B200 1.4 ×)",
        ram=Num(ram_gb),
        need=Num(sizing.ram_gb),
        ratio=Num(TRAINING_RAM_PER_VRAM if training else SERVER_RAM_VRAM, 1),
    )
    disk_why = (
        Phrase(
            "storage: %(drives)s NVMe drives, %(tb)s TB: two mirrored boot drives (RAID 1, as on DGX) and data NVMe "
            "for at least %(need)s TB of model files, the dataset and the checkpoints",
            drives=drives,
            tb=Num(storage_tb, None),
            need=Num(sizing.storage_tb, 2),
        )
        if training
        else Phrase(
            "storage: %(drives)s NVMe drives, %(tb)s TB: two mirrored boot drives (RAID 1, as on DGX) and data NVMe "
            "for at least %(need)s TB of model files",
            drives=drives,
            tb=Num(storage_tb, None),
            need=Num(sizing.storage_tb, 2),
        )
    )
    return cpu_why, ram_why, disk_why


def network_reason(workload: Workload, nics: str) -> Phrase:
    """Why a data-centre server has its network cards."""
    if workload.multi_node:
        return Phrase(
            "network: %(nics)s: a ≥ 25 GbE port for users and model downloads, and 200-400G adapters for the "
            "multi-node fabric (NVIDIA Enterprise RA: one per GPU on HGX, one per two GPUs on PCIe)",
            nics=nics,
        )
    return Phrase("network: %(nics)s: a ≥ 25 GbE port to serve users and load models", nics=nics)


def sizing_reasons(
    workload: Workload,
    sizing: Sizing,
    cores: int,
    cpu: str,
    ram_gb: float,
    storage_tb: float,
    drives: int = 1,
) -> tuple[Phrase, ...]:
    """The CPU, RAM and storage of a build and why (the need, from the workload)."""
    if sizing.server:
        cpu_why, ram_why, disk_why = _server_reasons(workload, sizing, cores, cpu, ram_gb, drives, storage_tb)
    elif _training(workload):
        cpu_why = Phrase(
            "CPU: %(cpu)s, %(cores)s cores: at least %(need)s for %(per_gpu)s data-loader cores per GPU "
            "(HEURISTIC; NVIDIA DGX H100 has 14)",
            cpu=cpu,
            cores=cores,
            need=sizing.cores,
            per_gpu=TRAINING_CORES_PER_GPU,
        )
        ram_why = Phrase(
            "system memory: %(ram)s GB, at least %(need)s GB = 2 × the GPUs' memory for data loading and "
            "checkpoint staging (HEURISTIC; DGX H200 has 1.8 ×, DGX H100 3.2 ×)",
            ram=Num(ram_gb),
            need=Num(sizing.ram_gb),
        )
        disk_why = Phrase(
            "storage: %(tb)s TB NVMe, at least %(need)s TB for the model files, the dataset and the checkpoints",
            tb=Num(storage_tb, None),
            need=Num(sizing.storage_tb, 1),
        )
    else:
        cpu_why = Phrase(
            "CPU: %(cpu)s, %(cores)s cores: at least %(need)s (%(per_gpu)s per GPU for the engine's workers, "
            "HEURISTIC) and the PCIe lanes for the GPUs",
            cpu=cpu,
            cores=cores,
            need=sizing.cores,
            per_gpu=INFERENCE_CORES_PER_GPU,
        )
        if serves_network(workload):  # a workstation serving a team: the serving role's cores (issue 34)
            cpu_why = _server_reasons(workload, sizing, cores, cpu, ram_gb, drives, storage_tb)[0]
        ram_why = Phrase(
            "system memory: %(ram)s GB, at least %(need)s GB: the GPUs' memory and the weights loaded through it",
            ram=Num(ram_gb),
            need=Num(sizing.ram_gb),
        )
        disk_why = Phrase(
            "storage: %(tb)s TB NVMe, at least %(need)s TB for the model files (download and converted copy)",
            tb=Num(storage_tb, None),
            need=Num(sizing.storage_tb, 1),
        )
    if cores < sizing.cores:
        cpu_why = Phrase(
            "CPU: %(cpu)s, %(cores)s cores: the most this platform takes, short of the %(need)s the workload asks",
            cpu=cpu,
            cores=cores,
            need=sizing.cores,
        )
    if ram_gb < sizing.ram_gb:
        ram_why = Phrase(
            "system memory: %(ram)s GB: the most this platform takes, short of the %(need)s GB the workload asks",
            ram=Num(ram_gb),
            need=Num(sizing.ram_gb),
        )
    return (cpu_why, ram_why, disk_why)
