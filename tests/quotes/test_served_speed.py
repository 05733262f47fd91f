"""Issue 33: the quote's PDF shows the build's output at full load from the estimate stored with the quote;
an estimate stored before that has no such figure and no such row."""

from __future__ import annotations

from django.utils import translation

from quotes.pdf import _estimate


def _rows(throughput: dict[str, float]) -> dict[str, str]:
    with translation.override("en"):
        return dict(_estimate({"estimate": {"throughput": throughput, "gpu": {}}}))


def test_the_output_at_full_load_is_a_row_when_the_estimate_has_it() -> None:
    rows = _rows(
        {"decode_tokens_per_s_per_user": 22.5, "decode_tokens_per_s_total": 561.7, "served_output_tokens_per_s": 722.6}
    )
    assert rows["Generation per user, tokens/s"] == "22.5"
    assert rows["Output at full load, tokens/s"] == "723"
    with translation.override("ru"):
        russian = dict(_estimate({"estimate": {"throughput": {"served_output_tokens_per_s": 722.6}, "gpu": {}}}))
    assert russian == {"Выдача при полной нагрузке, токенов/с": "723"}


def test_an_estimate_stored_before_has_no_such_row() -> None:
    rows = _rows({"decode_tokens_per_s_per_user": 22.5, "decode_tokens_per_s_total": 561.7})
    assert "Output at full load, tokens/s" not in rows
