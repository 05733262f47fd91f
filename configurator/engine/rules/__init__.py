"""The rule registry: every check a build goes through, one module per concern.

A rule is a small function `(ctx: RuleContext) -> Iterable[Finding]`; each module lists its rules in a
`RULES` tuple, so adding a rule touches that one module. Sources of every number are in the rules'
docstrings (../shared/reference/validation-rules.md, platforms.md).
"""

from __future__ import annotations

from configurator.engine.rules import cpu, ecc, fit, interconnect, memory, pcie, power, workload
from configurator.engine.rules.context import Rule, RuleContext

CONCERNS = (power, pcie, fit, interconnect, cpu, memory, ecc, workload)

RULES: list[Rule] = [rule for concern in CONCERNS for rule in concern.RULES]

__all__ = ["CONCERNS", "RULES", "Rule", "RuleContext"]
