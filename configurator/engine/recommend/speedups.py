"""When the builds found all miss the per-user speed target: what would meet it, each proven by running the
recommender again on the changed request and said only when its build meets the target within the same
limits (budget, form factor, delivery date) — issue 34.

- **Shorter prompts.** Without `prompt_tokens` every request is assumed to fill the context
  (`engines.request_tokens`), so each output token pays for context / output prompt tokens of prefill; real
  chat prompts are far shorter: the ShareGPT prompts vLLM's and SGLang's benchmarks replay average 217 tokens
  (gpustack/gpustack docs/performance-lab, `vllm bench serve` on ShareGPT: 1,000 prompts, 217,393 input tokens;
  fixtures/server_speed.csv). The longest of context / 4, context / 16 and that chat prompt with which a
  build meets the target is said: a prompt up to it meets the target.
- **Several servers as replicas.** A server engine's users can be split among identical servers behind a load
  balancer (data parallel: each node holds the whole model and serves its share; no fabric between them), so
  two or four nodes each serving 1/2 or 1/4 of the users, each within 1/2 or 1/4 of the budget.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from configurator.engine import calibration as cal
from configurator.engine.estimate.engines import request_tokens
from configurator.engine.phrase import Num, Phrase
from configurator.engine.recommend.policy import speed_target
from configurator.engine.recommend.suggestions import Cheapest, offer
from configurator.engine.types import Candidate, Constraints, Workload

CHAT_PROMPT_TOKENS = 217  # ShareGPT mean prompt (module docstring)
PROMPT_SHARES = (4, 16)  # context / 4, context / 16, then the chat prompt
NODES_TRIED = (2, 4)


def _meets(found: Candidate | None, target: float) -> bool:
    return found is not None and found.decode_tokens_per_s_per_user >= target


def _shorter_prompt(workload: Workload, constraints: Constraints, cheapest: Cheapest, target: float) -> Phrase | None:
    if workload.prompt_tokens is not None:
        return None  # the customer stated the request
    assumed, _ = request_tokens(workload)
    shares = (workload.context_tokens // share for share in PROMPT_SHARES)
    tries = sorted({t for t in (*shares, CHAT_PROMPT_TOKENS) if t < assumed}, reverse=True)
    for tokens in tries:
        found = cheapest(replace(workload, prompt_tokens=tokens), constraints)
        if found is not None and _meets(found, target):
            return Phrase(
                "with prompts of at most %(prompt)s tokens (%(assumed)s were assumed: state prompt_tokens) "
                "%(offer)s meets it at ≈ %(speed)s tokens/s per user",
                prompt=Num(tokens),
                assumed=Num(assumed),
                offer=offer(found),
                speed=Num(found.decode_tokens_per_s_per_user, 1),
            )
    return None


def _several_nodes(workload: Workload, constraints: Constraints, cheapest: Cheapest, target: float) -> Phrase | None:
    if cal.engine_family(workload.engine) not in cal.SERVER_ENGINES:
        return None
    for nodes in NODES_TRIED:
        users = math.ceil(workload.concurrent_users / nodes)
        if users >= workload.concurrent_users:
            return None
        limits = constraints
        if constraints.max_price is not None:
            limits = replace(constraints, max_price=constraints.max_price / nodes)
        found = cheapest(replace(workload, concurrent_users=users), limits)
        if found is not None and _meets(found, target):
            return Phrase(
                "%(nodes)s servers behind a load balancer, %(users)s users each (%(nodes)s × %(offer)s, %(total)s "
                "%(currency)s in all) meet it at ≈ %(speed)s tokens/s per user",
                nodes=nodes,
                users=Num(users),
                offer=offer(found),
                total=Num(found.price.gross * nodes),
                currency=found.price.currency,
                speed=Num(found.decode_tokens_per_s_per_user, 1),
            )
    return None


def speedups(
    workload: Workload, constraints: Constraints, cheapest: Cheapest, found: Sequence[Candidate]
) -> tuple[Phrase, ...]:
    """What would meet the per-user speed target none of `found` meets (() when one does or none is asked)."""
    target = workload.target_tokens_per_s and speed_target(workload)
    if not target or not found or any(_meets(candidate, target) for candidate in found):
        return ()
    tips = (
        _shorter_prompt(workload, constraints, cheapest, target),
        _several_nodes(workload, constraints, cheapest, target),
    )
    return tuple(tip for tip in tips if tip is not None)
