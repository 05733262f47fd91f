"""The choice among the search's streams: a heap over them, and the alternatives.

`_best` finds the valid candidate with the smallest key without opening streams or validating builds that
cannot win; `pick_distinct` picks the cheapest and the alternatives that differ in kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from decimal import Decimal
from heapq import heapify, heappop, heappush

from configurator.engine.recommend.policy import speed_target
from configurator.engine.recommend.ranking import (
    ANOTHER,
    CHEAPEST,
    ECC,
    FEWER,
    NEXT,
    OTHER_FORM,
    VALUE,
    first_label,
    is_slow,
    label_is_true,
    label_phrase,
    ranked_price,
    standing,
)
from configurator.engine.recommend.reasons import reasons_for
from configurator.engine.recommend.search import Stream
from configurator.engine.types import Candidate, CatalogSnapshot, Workload

# Queue states of a stream in `_best`: resolved (its valid build's price), opened (its head price),
# unopened (its floor). At equal keys the more certain state comes first.
_RESOLVED, _OPENED, _UNOPENED = 0, 1, 2


Key = Callable[[Stream, Decimal, int], tuple[object, ...]]


def _best(streams: Iterable[Stream], key: Key) -> Candidate | None:
    """The valid candidate with the smallest key among the streams, where key(stream, price, warned) grows
    with price and with warned (1 for a build with warnings; a stream not yet resolved may still have a
    clean build, so it waits under warned = 0). Streams wait under the key of a price no build of theirs
    can undercut (floor, then head, then the validated build) and do more work only when they reach the
    front, so a stream that cannot win is never opened, and a build that cannot win is never validated."""
    heap: list[tuple[tuple[object, ...], int, int]] = []
    members = list(streams)
    for index, stream in enumerate(members):
        if stream.resolved:
            answer = stream.candidate
            if answer is not None:
                heap.append((key(stream, answer.price.gross, stream.warned(answer)), _RESOLVED, index))
        elif stream.opened:
            price = stream.head_price()
            if price is not None:
                heap.append((key(stream, price, 0), _OPENED, index))
        elif stream.floor is not None:
            heap.append((key(stream, stream.floor, 0), _UNOPENED, index))
    heapify(heap)
    while heap:
        _, state, index = heappop(heap)
        stream = members[index]
        if state == _RESOLVED:
            return stream.candidate
        if state == _UNOPENED:
            price = stream.head_price()
            if price is not None:
                heappush(heap, (key(stream, price, 0), _OPENED, index))
            continue
        found = stream.valid()
        if found is not None:
            heappush(heap, (key(stream, found.price.gross, stream.warned(found)), _RESOLVED, index))
    return None


def _is_workstation(candidate: Candidate) -> bool:
    return candidate.build.chassis.is_workstation


def _signature(candidate: Candidate) -> tuple[str, int]:
    line = candidate.build.gpus[0]
    return (line.spec.sku, line.qty)


def pick_distinct(
    streams: list[Stream], limit: int, workload: Workload, catalog: CatalogSnapshot | None = None
) -> list[Candidate]:
    """Cheapest first, then alternatives that differ in kind: faster per rouble, ECC, fewer GPUs, the other
    form factor; then the next cheapest GPU choices. Each carries why it is there. Candidates are
    validated lazily: only streams that reach the front of a choice are.

    Honest ranking (`ranking`): a build that misses the speed target never stands above one that meets it
    (and, when the first meets it, no alternative that misses it is offered); warnings weigh only where they
    matter to this workload; every label is checked against the list as returned, and a label that is not
    true of it gives way to one that is."""
    if limit < 1:
        return []
    target = speed_target(workload)

    inference = workload.task == "inference"
    for stream in streams:  # what ranks a stream's builds besides price and warnings, once per stream
        option = stream.option
        stream.ranking = (
            int(inference and not option.meets(target)),
            -option.total,
            f"{option.gpu.sku}/{option.count}/{stream.workstation}",
        )

    def by_rank(stream: Stream, price: Decimal, warned: int) -> tuple[object, ...]:
        slow, speed, name = stream.ranking
        # an end-of-life card ranks behind a current one of similar price (ranking.ranked_price)
        return (slow, warned, ranked_price(price, stream.option.gpu), speed, name)

    def by_value(stream: Stream, price: Decimal, warned: int) -> tuple[object, ...]:
        return (warned, -(stream.option.total / float(price)), price, stream.option.gpu.sku, stream.option.count)

    def value(candidate: Candidate) -> float:
        return candidate.decode_tokens_per_s_total / float(candidate.price.gross)

    def warned(candidate: Candidate) -> int:
        return standing(candidate, workload, target)[1]

    cheapest = _best(streams, by_rank)
    if cheapest is None:
        return []
    picks: list[tuple[Candidate, str]] = [(cheapest, CHEAPEST)]
    seen = {_signature(cheapest)}
    # when the first build meets the speed target, no alternative that misses it is worth showing
    meeting_only = not is_slow(cheapest, workload, target)

    def fresh(keep: Callable[[Stream], bool] = lambda stream: True) -> Iterator[Stream]:
        return (
            stream
            for stream in streams
            if stream.signature not in seen
            and keep(stream)
            and (not meeting_only or not stream.ranking[0])  # slow: an inference option below the target
        )

    def add(candidate: Candidate | None, reason: str) -> None:
        if candidate is not None and _signature(candidate) not in seen and len(picks) < limit:
            if meeting_only and is_slow(candidate, workload, target):
                return
            picks.append((candidate, reason))
            seen.add(_signature(candidate))

    if workload.task == "inference" and len(picks) < limit:
        richer = _best(fresh(), by_value)
        # the label only where it is true: more tokens/s per rouble than the cheapest, with no more warnings
        if richer is not None and value(richer) > value(cheapest) and warned(richer) <= warned(cheapest):
            add(richer, VALUE)
    if not all(line.spec.ecc for line in cheapest.build.gpus) and len(picks) < limit:
        add(_best(fresh(lambda s: s.option.gpu.ecc), by_rank), ECC)
    if len(picks) < limit:
        add(_best(fresh(lambda s: s.option.count < cheapest.build.gpu_count), by_rank), FEWER)
    if len(picks) < limit:
        other = not _is_workstation(cheapest)
        add(_best(fresh(lambda s: s.workstation == other), by_rank), OTHER_FORM)
    while len(picks) < limit:
        following = _best(fresh(), by_rank)
        if following is None:
            break
        before = len(picks)
        add(following, NEXT)
        if len(picks) == before:
            break
    judge = streams[0].judge
    # what will be signed first: after the first, those meeting the speed target before those that miss it,
    # then those without a warning that matters, each by price
    picks[1:] = sorted(picks[1:], key=lambda pick: (*standing(pick[0], workload, target), pick[0].price.gross))
    listed = [candidate for candidate, _ in picks]
    labels = [first_label(listed, workload, target)]
    for index, (_, label) in enumerate(picks[1:], start=1):
        labels.append(
            next(lab for lab in (label, NEXT, ANOTHER) if label_is_true(lab, index, listed, workload, target))
        )
    options = {stream.signature: stream.option for stream in streams}
    any_meets = any(not is_slow(candidate, workload, target) for candidate in listed)
    answers = []
    for (candidate, _), label in zip(picks, labels, strict=True):
        # the fixes of what is returned are proven (on the whole catalog), and only then are reasons said
        proven = judge.proven(candidate, options[_signature(candidate)], catalog)
        applied = judge.applied.get(id(candidate), ())
        why = reasons_for(
            proven, label_phrase(label), workload, judge.constraints, applied, target_met_elsewhere=any_meets
        )
        answers.append(replace(proven, why=why, label=label))
    return answers
