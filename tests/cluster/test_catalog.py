"""fixtures/cluster_catalog.json: every row has a source, the datasheet figures the sizing leans on, loading."""

from __future__ import annotations

import math

import pytest

from catalog.fixture import CLUSTER_FIXTURE, read_catalog_fixture
from catalog.models import CLUSTER_MODELS
from catalog.services import cluster_catalog_load_fixture
from configurator.engine.cluster.parts import ClusterCatalog


def test_every_row_names_its_source_and_a_price() -> None:
    rows = read_catalog_fixture(CLUSTER_FIXTURE)
    assert set(rows) == set(CLUSTER_MODELS)
    for kind, items in rows.items():
        assert items, kind
        for row in items:
            assert len(row["source"]) > 20, row["sku"]
            assert float(row["list_price"]) > 0, row["sku"]


def test_quantum2_qm9700_datasheet(cat: ClusterCatalog) -> None:
    """NVIDIA QM9700 user manual: 64 NDR 400 Gb/s ports in 32 OSFP cages, 1U, 128 NDR200 when split."""
    qm = cat.switches["ib-qm9700"]
    assert (qm.ports, qm.port_speed_gbps, qm.rack_units, qm.fabric) == (64, 400, 1, "infiniband")
    assert qm.ports_at(400) == 64
    assert qm.ports_at(200) == 128


def test_spectrum4_sn5600_datasheet(cat: ClusterCatalog) -> None:
    """NVIDIA SN5600 datasheet: 64 × 800 GbE, 2U; 128 × 400 GbE or 256 × 200 GbE split."""
    sn = cat.switches["eth-sn5600"]
    assert (sn.ports, sn.port_speed_gbps, sn.rack_units) == (64, 800, 2)
    assert (sn.ports_at(800), sn.ports_at(400), sn.ports_at(200)) == (64, 128, 256)


def test_pdu_ratings_match_three_phase_power(cat: ClusterCatalog) -> None:
    """APC AP8886: 22 kW at 400 V 32 A three-phase = √3 × 400 × 32 (within the datasheet's rounding)."""
    pdu = cat.pdus["pdu-3ph-400v-32a"]
    assert pdu.phases == 3
    assert math.sqrt(3) * pdu.voltage_v * pdu.current_a / 1000 == pytest.approx(22.0, abs=0.2)


def test_copper_is_short_and_optics_reach_further(cat: ClusterCatalog) -> None:
    """LinkX: passive NDR copper ≤ 3 m, SR4 multimode 50 m, DR4 single-mode 500 m."""
    dac = [c for c in cat.cables.values() if c.medium == "dac"]
    assert dac and max(c.reach_m for c in dac) <= 5.0
    assert cat.cables["xcvr-osfp-800g-2xsr4"].reach_m == 50.0
    assert cat.cables["xcvr-osfp-800g-2xdr4"].reach_m == 500.0
    for cable in cat.cables.values():
        assert cable.length_m is None or cable.length_m <= cable.reach_m, cable.sku


@pytest.mark.django_db
def test_load_is_idempotent() -> None:
    for model in CLUSTER_MODELS.values():  # the session loaded them (tests/conftest.py); load afresh
        model.objects.all().delete()
    first = cluster_catalog_load_fixture()
    rows = read_catalog_fixture(CLUSTER_FIXTURE)
    assert first.created == {kind: len(items) for kind, items in rows.items()}
    second = cluster_catalog_load_fixture()
    assert (second.total_created, second.total_updated) == (0, 0)
    from catalog.cluster_specs import cluster_catalog

    assert set(cluster_catalog().switches) == {row["sku"] for row in rows["switches"]}


def test_every_cluster_part_reaches_the_engine_with_its_russian_name(cat: ClusterCatalog) -> None:
    """t39 a): the fixture's `name_ru` was dropped on the way to the specs, so Russian pages and PDFs named
    every switch, cable and rack in English."""
    rows = read_catalog_fixture(CLUSTER_FIXTURE)
    for kind, items in rows.items():
        table = getattr(cat, kind)
        for row in items:
            assert row["name_ru"] and row["name_ru"] != row["name"], row["sku"]
            assert table[row["sku"]].name_ru == row["name_ru"], row["sku"]
