"""The value sets the engine shares with the models and the pages are written once (configurator.engine.enums).

The models' and the pages' `TextChoices` take their values from the engine's `StrEnum`s and give each a
translated label; the stored values, the API's values and the engine's `Literal` types stay the same strings.
"""

from __future__ import annotations

from enum import StrEnum
from typing import get_args

import pytest
from django.db import models
from django.utils import translation

from catalog import models as catalog
from configurator import labels
from configurator.engine import enums, types

PAGE_SETS = ("Severity", "Redundancy", "Task", "FormFactor")  # configurator.labels
CATALOG_SETS = (
    "ChassisKind", "NvlinkKind", "GpuFormFactor", "Cooling", "PowerConnector", "PcieTopology", "PsuFormFactor",
    "MemoryKind", "StorageInterface",
)  # fmt: skip
SHARED: list[tuple[type[StrEnum], type[models.TextChoices]]] = [
    (getattr(enums, name), getattr(labels if name in PAGE_SETS else catalog, name)) for name in PAGE_SETS + CATALOG_SETS
]


@pytest.mark.parametrize(("engine", "choices"), SHARED, ids=lambda c: c.__qualname__)
def test_the_choices_are_the_engines_values_with_a_label_each(
    engine: type[StrEnum], choices: type[models.TextChoices]
) -> None:
    assert choices.values == [member.value for member in engine]
    assert [member.name for member in choices] == [member.name for member in engine]
    assert all(type(value) is str for value in choices.values)  # plain strings in migrations and the API


def test_the_engines_literal_types_and_tuples_match_its_enums() -> None:
    assert list(get_args(types.Severity)) == list(enums.Severity)
    assert list(get_args(types.Redundancy)) == list(types.REDUNDANCY_MODES) == list(enums.Redundancy)
    assert list(get_args(types.Task)) == list(types.TASKS) == list(enums.Task)


def test_a_choice_label_is_translated_once() -> None:
    with translation.override("ru"):
        assert labels.label(catalog.ChassisKind, "tower-workstation") == "Рабочая станция (башня)"
        assert labels.label(catalog.Cooling, "passive") == "пассивное (нужен обдув корпуса)"
        assert labels.label(labels.Severity, "warning") == "Предупреждение"
        assert labels.label(labels.Task, "no-such-task") == "no-such-task"
    with translation.override("en"):
        assert str(catalog.ChassisKind.TOWER_WORKSTATION.label) == "Tower workstation"


def test_every_finding_code_the_rules_make_is_a_finding_code_with_a_title() -> None:
    """The rules' codes, the FindingCode enum and the pages' titles are one set (a new rule adds to all three)."""
    import re
    from pathlib import Path

    rules = Path(enums.__file__).parent / "rules"
    source = "\n".join(path.read_text(encoding="utf-8") for path in rules.glob("*.py"))
    made = set(re.findall(r'code="([a-z0-9_]+\.[a-z0-9_]+)"', source))
    made |= set(re.findall(r'"([a-z]+\.[a-z0-9_]+)" if ', source)) | set(
        re.findall(r' else "([a-z]+\.[a-z0-9_]+)"', source)
    )
    assert len(made) > 50
    assert made == {code.value for code in enums.FindingCode}
    assert set(labels.FINDING_TITLES) == {code.value for code in enums.FindingCode}
