"""The API's JSON renderer: DRF's `JSONRenderer` output, written by orjson.

An answer of the engine (a verdict with its findings and fixes, an estimate, recommendations) is a plain
tree of dicts, lists, strings and numbers of a few KB; the standard library's encoder takes ~11 µs for the
8 × H200 NVL verdict (1.3 KB), orjson ~0.7 µs, the same bytes. The output keeps DRF's conventions: compact,
UTF-8 (UNICODE_JSON), U+2028/U+2029 escaped, and what orjson does not write itself (datetimes, Decimals,
lazy translations, anything else) goes through DRF's own encoder (`JSONEncoder.default`), so it reads as
before. Two differences, both valid JSON that parses to the same value: a float below 1e-4 is written
positionally (`0.00001`, the standard library `1e-05`), and a NaN or an infinity becomes `null` where the
standard library (strict) refused the whole answer with a 500. A requested indent (`; indent=2`) goes to
DRF's renderer.
"""

from __future__ import annotations

from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_LINE_SEPARATORS = (b"\xe2\x80\xa8", b"\xe2\x80\xa9")  # U+2028, U+2029 in UTF-8
_drf_default = JSONEncoder().default


class FastJSONRenderer(JSONRenderer):
    """`JSONRenderer` (compact, UTF-8) through orjson; see the module docstring."""

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        if data is None:
            return b""
        if self.encoder_class is not JSONEncoder or not self.compact or self.ensure_ascii:
            return super().render(data, accepted_media_type, renderer_context)
        if self.get_indent(accepted_media_type or "", renderer_context or {}) is not None:
            return super().render(data, accepted_media_type, renderer_context)
        out = orjson.dumps(data, default=_drf_default, option=_OPTIONS)
        if _LINE_SEPARATORS[0] in out or _LINE_SEPARATORS[1] in out:  # as DRF does, for JavaScript's sake
            out = out.replace(_LINE_SEPARATORS[0], b"\\u2028").replace(_LINE_SEPARATORS[1], b"\\u2029")
        return out
