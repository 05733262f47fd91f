"""The recommender's answers held fixed (issue 34's speed-up): the ten use cases and a few requests with
suggestions answer, candidate for candidate and sentence for sentence, what they answered before the speed-up
(stored at 24cf677 by the speed-up's branch, stored again on the merge with the judgement and MoE changes from
that merge's code before the speed-up came in)."""

from __future__ import annotations

import json

from configurator.engine.types import CatalogSnapshot
from tests.configurator.use_case_answers import STORED, answers


def test_the_answers_are_the_ones_stored_before_the_speed_up(snapshot: CatalogSnapshot) -> None:
    stored = json.loads(STORED.read_text())
    now = answers(snapshot)
    assert sorted(now) == sorted(stored)
    for slug, answer in stored.items():
        assert now[slug] == answer, slug
    # the requests compared carry builds and suggestions of each kind, not empty answers
    assert sum(len(answer["candidates"]) for answer in stored.values()) >= 50
    assert any(s.startswith("quantize to FP8") for answer in stored.values() for s in answer["suggestions"])
    assert any(not answer["candidates"] and answer["suggestions"] for answer in stored.values())
