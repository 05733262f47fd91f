"""A count and its noun in the reader's language, in the form the number asks for (issue 37 item 2).

Russian has three forms where English has two ("1 видеокарта, 2 видеокарты, 5 видеокарт, 21 видеокарта"), so a
count next to a noun goes through `npgettext`, never through a unit label pasted after the number. `COUNTED`
holds every counting unit the engine's findings use (configurator.labels.UNITS) and the ones the pages count
themselves; `counted(unit, n)` says the pair, or returns None for a unit that is not a count (W, GiB, mm).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.utils.translation import npgettext

from configurator.wording import num

Say = Callable[[int], str]

COUNTED: dict[str, Say] = {
    "CPUs": lambda n: npgettext("count", "%(count)s CPU", "%(count)s CPUs", n),
    "GPUs": lambda n: npgettext("count", "%(count)s GPU", "%(count)s GPUs", n),
    "PSUs": lambda n: npgettext("count", "%(count)s PSU", "%(count)s PSUs", n),
    "DIMMs": lambda n: npgettext("count", "%(count)s DIMM", "%(count)s DIMMs", n),
    "lanes": lambda n: npgettext("count", "%(count)s lane", "%(count)s lanes", n),
    "slots": lambda n: npgettext("count", "%(count)s slot", "%(count)s slots", n),
    "sockets": lambda n: npgettext("count", "%(count)s socket", "%(count)s sockets", n),
    "drives": lambda n: npgettext("count", "%(count)s drive", "%(count)s drives", n),
    "models": lambda n: npgettext("count", "%(count)s model", "%(count)s models", n),
    "bridge sets": lambda n: npgettext("count", "%(count)s bridge set", "%(count)s bridge sets", n),
    "bridged GPUs": lambda n: npgettext("count", "%(count)s bridged GPU", "%(count)s bridged GPUs", n),
    "GPUs per bridge": lambda n: npgettext("count", "%(count)s GPU per bridge", "%(count)s GPUs per bridge", n),
    "GPUs per uplink": lambda n: npgettext("count", "%(count)s GPU per uplink", "%(count)s GPUs per uplink", n),
    "DIMMs per channel": lambda n: npgettext("count", "%(count)s DIMM per channel", "%(count)s DIMMs per channel", n),
    "DIMMs per socket": lambda n: npgettext("count", "%(count)s DIMM per socket", "%(count)s DIMMs per socket", n),
    "CPU models": lambda n: npgettext("count", "%(count)s CPU model", "%(count)s CPU models", n),
    "DIMM models": lambda n: npgettext("count", "%(count)s DIMM model", "%(count)s DIMM models", n),
    "GPU models": lambda n: npgettext("count", "%(count)s GPU model", "%(count)s GPU models", n),
    "cores": lambda n: npgettext("count", "%(count)s core", "%(count)s cores", n),
    "NICs": lambda n: npgettext("count", "%(count)s NIC", "%(count)s NICs", n),
    "adapters": lambda n: npgettext("count", "%(count)s adapter", "%(count)s adapters", n),
    "threads": lambda n: npgettext("count", "%(count)s thread", "%(count)s threads", n),
    "PSU bays": lambda n: npgettext("count", "%(count)s PSU bay", "%(count)s PSU bays", n),
    "up to GPUs": lambda n: npgettext("count", "up to %(count)s GPU", "up to %(count)s GPUs", n),
    "GPUs at most": lambda n: npgettext("count", "≤ %(count)s GPU", "≤ %(count)s GPUs", n),
}


def counted(unit: str | None, value: Any) -> str | None:
    """`counted("GPUs", 5)` → "5 видеокарт" (ru) / "5 GPUs" (en); None when `unit` is not a count or `value`
    is not a whole number (a fraction keeps the plain unit label)."""
    say = COUNTED.get(unit or "")
    if say is None or isinstance(value, bool):
        return None
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        return None
    if not number.is_finite() or number != number.to_integral_value():
        return None
    return say(int(number)) % {"count": num(number)}
