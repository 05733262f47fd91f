"""The rule registry: every check a build goes through, one module per concern.

A rule is a small function `(ctx: RuleContext) -> Iterable[Finding]`; each module lists its rules in a
`RULES` tuple, so adding a rule touches that one module. Sources of every number are in the rules'
docstrings (../shared/reference/validation-rules.md, platforms.md).
"""

from __future__ import annotations

from configurator.engine.rules import cpu, ecc, fit, interconnect, memory, pcie, platform, power, workload
from configurator.engine.rules.context import Rule, RuleContext
from configurator.engine.rules.yields import FINDING_READS, YIELDS, rule_name

CONCERNS = (power, pcie, fit, interconnect, cpu, memory, platform, ecc, workload)

RULES: list[Rule] = [rule for concern in CONCERNS for rule in concern.RULES]
# per rule, the build fields it reads (its module's READS_BY_RULE, else its module's READS;
# tests/configurator/test_proving_incremental.py checks them)
RULE_READS: tuple[frozenset[str], ...] = tuple(
    concern.READS_BY_RULE.get(rule, concern.READS) for concern in CONCERNS for rule in concern.RULES
)
# per rule, the build fields it reads when no fixes are wanted (rules/yields.py FINDING_READS, else RULE_READS)
RULE_FINDING_READS: tuple[frozenset[str], ...] = tuple(
    FINDING_READS.get(rule_name(rule), reads) for rule, reads in zip(RULES, RULE_READS, strict=True)
)
# per rule, the (code, severity) pairs it can yield (rules/yields.py; every rule is listed there)
RULE_YIELDS: tuple[frozenset[tuple[str, str]], ...] = tuple(YIELDS[rule_name(rule)] for rule in RULES)

__all__ = ["CONCERNS", "RULES", "RULE_FINDING_READS", "RULE_READS", "RULE_YIELDS", "Rule", "RuleContext"]
