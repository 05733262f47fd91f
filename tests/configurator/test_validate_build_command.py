"""python manage.py validate_build build.json: the verdict as a table, exit status 1 on errors."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

VALID = {
    "chassis": "srv-4gpu-2u-epyc",
    "cpus": [{"sku": "epyc-9554", "qty": 2}],
    "gpus": [{"sku": "h200-nvl", "qty": 4}],
    "psus": [{"sku": "psu-crps-2700w", "qty": 4}],
    "memory": [{"sku": "ddr5-rdimm-64gb", "qty": 24}],
    # a GPU server boots from two mirrored drives and has a >= 25 GbE card (issue 34, rules/platform.py)
    "storage": [{"sku": "nvme-1tb", "qty": 2}],
    "nics": [{"sku": "nic-25g", "qty": 1}],
    "psu_redundancy": "n+n",
}
UNDERPOWERED = {**VALID, "psus": [{"sku": "psu-crps-1600w", "qty": 2}], "psu_redundancy": "n+1"}


def run(tmp_path: Path, body: Any, *args: str) -> tuple[str, int]:
    path = tmp_path / "build.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    out = StringIO()
    try:
        call_command("validate_build", str(path), *args, stdout=out)
    except SystemExit as exit_:
        return out.getvalue(), int(exit_.code or 0)
    return out.getvalue(), 0


def test_valid_build_prints_summary_and_exits_0(catalog: None, tmp_path: Path) -> None:
    output, status = run(tmp_path, VALID)
    assert status == 0
    lines = output.splitlines()
    assert lines[0] == "srv-4gpu-2u-epyc: VALID — 0 error(s), 0 warning(s)"
    load = (4 * 600 + 2 * 360 + 24 * 8 + 2 * 8 + 15 + 250) * 1.1  # 3,952 W
    assert lines[1] == f"power: load {load:,.0f} W of 5,400 W usable (73%), 10,800 W installed, n+n @ 230 V"
    assert lines[2] == "pcie:  80 of 128 lanes (direct)"  # 4 GPUs x16, 2 NVMe x4, the NIC x8
    assert "interconnect.no_bridge" in output  # an info row with its fix
    assert "fix: add 1× nvlink-bridge-h200-4way" in output


def test_errors_print_a_table_and_exit_1(catalog: None, tmp_path: Path) -> None:
    output, status = run(tmp_path, UNDERPOWERED)
    assert status == 1
    assert "INVALID — 1 error(s)" in output
    header = next(line for line in output.splitlines() if line.startswith("severity"))
    assert header.split() == ["severity", "code", "measured", "/", "limit", "message"]
    row = next(line for line in output.splitlines() if "power.psu_capacity" in line)
    assert row.startswith("error")
    assert "3,952.3 / 1,600 W" in row  # (4 × 600 + 2 × 360 + 24 × 8 + 2 × 8 + 15 + 250) × 1.1 on (2 − 1) × 1600 W
    assert "fix: replace psus with 4× psu-crps-2000w" in output  # 6,000 W usable under N+1, 65 %


def test_json_output(catalog: None, tmp_path: Path) -> None:
    output, status = run(tmp_path, UNDERPOWERED, "--json")
    assert status == 1
    body = json.loads(output)
    assert body["valid"] is False
    assert body["findings"][0]["code"] == "power.psu_capacity"
    assert set(body["price"]) == {"currency", "net", "vat", "gross"}


def test_bad_input_names_the_field(catalog: None, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"gpus\[0\]\.sku"):
        run(tmp_path, {**VALID, "gpus": [{"sku": "rtx-9999", "qty": 1}]})
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(CommandError, match="not JSON"):
        call_command("validate_build", str(tmp_path / "broken.json"), stdout=StringIO())
    with pytest.raises(CommandError, match="cannot read"):
        call_command("validate_build", str(tmp_path / "missing.json"), stdout=StringIO())
