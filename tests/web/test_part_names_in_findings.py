"""Pages say a finding's fix with the parts' catalog names, in the reader's language, not with SKUs (issue 16:
"warnings are short Russian sentences with the fix")."""

from __future__ import annotations

from django.utils import translation

from configurator.engine.builds import build_from_payload
from configurator.engine.phrase import Phrase
from configurator.engine.types import CatalogSnapshot
from configurator.engine.validate import validate
from configurator.web.viewmodels import finding_views, part_names
from configurator.wording import say, with_part_names
from tests.configurator.helpers import body_of


def test_a_sku_value_is_said_as_the_parts_name_and_the_sentence_still_translates() -> None:
    names = {"psu-crps-3000w": "Блок питания CRPS 3000 Вт"}
    phrase = Phrase("add %(qty)s× %(sku)s", qty=2, sku="psu-crps-3000w")
    named = with_part_names(Phrase("%(what)s (%(why)s)", what=phrase, why="psu-crps-3000w"), names)
    assert "psu-crps-3000w" not in named
    assert isinstance(named, Phrase) and named.template == "%(what)s (%(why)s)"  # gettext still finds the msgid
    assert with_part_names("plain psu-crps-3000w", names) == "plain psu-crps-3000w"  # only Phrase values change


def test_the_editors_fixes_name_parts_not_skus(snapshot: CatalogSnapshot) -> None:
    body = body_of("srv-8gpu-4u-epyc: 8 h200-nvl, 2 epyc-9554, 24 ddr5-rdimm-64gb, 1 nvme-4tb")
    build = build_from_payload(body, snapshot)
    verdict = validate(build, snapshot=snapshot)
    with translation.override("ru"):
        names = part_names(snapshot)
        views = finding_views(verdict.findings, snapshot)
        texts = [str(say(fix.text)) for view in views for fix in view.fixes]
    assert texts, "the build should have fixes to say"
    skus = set(names)
    said_skus = [sku for text in texts for sku in skus if sku in text.split()]
    assert said_skus == [], said_skus
    assert any(name in text for text in texts for name in names.values() if name)
