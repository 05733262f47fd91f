"""Schemathesis against the OpenAPI schema served by a running gunicorn (2 workers, config/gunicorn.py).

Three bounded passes over every operation of /api/v1/schema/, each with positive and negative data
(schemathesis' examples, coverage and fuzzing phases; with the CI size the anonymous pass and the operations
whose body is another's leave out the coverage phase, in a fourth pass, see COVERAGE_PASSES and SAME_BODIES):

* as a sales engineer with an API token (sees every build and quote, so the authenticated paths run);
* /api/v1/auth/token with HTTP Basic auth of a user of its own (its token rotations touch nobody else);
* anonymously.

Checks on every answer: no 5xx, the status code is documented for the operation, the content type is
the documented one and the body matches the documented schema (the error envelope for 4xx). The hooks
in fuzz_hooks.py turn most generated SKUs, model names and ids into real ones, so generated cases reach
the rules, the estimator, the recommender and the quote actions instead of stopping at "unknown SKU".
Renders of quotes made while fuzzing are queued to an in-memory broker and never run. A failure prints
the schemathesis report, with a `curl` line that reproduces each case.

Next to it, on the same server, hostile requests no schema describes (tests/security/hostile_http.py):
deep nesting, numbers past a double's range, NUL bytes, invalid UTF-8 and wrong content types on every
operation with a body, and forged Host, X-Forwarded-For, cookies, Idempotency-Key and Authorization
headers on every operation; none may get a 5xx or no answer. FUZZ_SIZE=nightly sends each of them
anonymously and with the sales token on every operation, plus randomly mutated ones.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.security import hostile_http
from tests.security.live import MIGRATE, ROOT, Gunicorn, environment, run_django, scratch_database

# Examples per operation in the fuzzing phase of each pass (the coverage phase adds its boundary cases).
# FUZZ_SIZE=ci (the default, what `make test` runs): about a minute on two cores, every operation still
# reached in each pass. FUZZ_SIZE=nightly (`make fuzz`): the large run, a few hundred examples per
# operation over the passes, for a nightly job or by hand before a release.
FUZZ_SIZES: dict[str, dict[str, int]] = {
    "ci": {"sales": 12, "token-basic-auth": 10, "anonymous": 8},
    "nightly": {"sales": 135, "token-basic-auth": 90, "anonymous": 75},
}
#: Hostile requests (hostile_http.py): with the CI size each unsafe operation gets every hostile body and
#: content type once and each operation a rotating share of the forged headers, authorization alternating;
#: the nightly size sends every case to every operation both anonymously and with the token, plus
#: HOSTILE_RANDOM randomly mutated cases per operation and caller.
HOSTILE_FORGED_PER_OPERATION = {"ci": 6, "nightly": len(hostile_http.FORGED_HEADERS)}
HOSTILE_RANDOM = {"ci": 0, "nightly": 200}
#: The passes that run schemathesis' coverage phase (every field's boundary and invalid values: ~5,000 cases a
#: pass, most of the run's time). With the CI size only the sales pass does: the anonymous pass would send the
#: same cases to the same views, which differ for an anonymous caller only in answering 401 before reading the
#: body (operations that need a user) or in the throttle counted (the public ones); the nightly size runs it
#: on every pass.
COVERAGE_PASSES = {
    "ci": frozenset({"sales", "token-basic-auth"}),
    "nightly": frozenset({"sales", "token-basic-auth", "anonymous"}),
}
#: Operations whose body is another operation's: builds_update's is builds_create's, builds_partial_update's
#: the same with every field optional, builds_apply_fix's the build validate reads and a free-form fix. With
#: the CI size the sales pass leaves them out and a pass of their own sends them its examples and fuzzing
#: phases: their coverage phase repeated the boundary cases of the bodies builds_create and builds_validate
#: get (~1,800 cases, a third of the run). The nightly size sends them every phase in the sales pass.
SAME_BODIES = ("builds_update", "builds_partial_update", "builds_apply_fix")
FUZZ_SIZE = os.environ.get("FUZZ_SIZE", "ci")
pytestmark = pytest.mark.long  # started first in `make test` (tests/scheduling.py)
POSTGRES = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
if FUZZ_SIZE not in FUZZ_SIZES:
    raise ValueError(f"FUZZ_SIZE must be one of {sorted(FUZZ_SIZES)}, not {FUZZ_SIZE!r}")
SALES_TOKEN = ("--header", "Authorization: Token {token}")


def _same_bodies(flag: str) -> tuple[str, ...]:
    """`flag` (--include-operation-id or --exclude-operation-id) for each of SAME_BODIES."""
    return tuple(option for operation in SAME_BODIES for option in (flag, operation))


PASSES: dict[str, tuple[int, tuple[str, ...]]] = {
    "sales": (
        FUZZ_SIZES[FUZZ_SIZE]["sales"],
        (*SALES_TOKEN, "--exclude-path", "/api/v1/auth/token")
        + (_same_bodies("--exclude-operation-id") if FUZZ_SIZE == "ci" else ()),
    ),
    "token-basic-auth": (
        FUZZ_SIZES[FUZZ_SIZE]["token-basic-auth"],
        ("--auth", "fuzz-keys:fuzz-test-pass", "--include-path", "/api/v1/auth/token"),
    ),
    "anonymous": (FUZZ_SIZES[FUZZ_SIZE]["anonymous"], ()),
}
if FUZZ_SIZE == "ci":
    PASSES["sales-same-bodies"] = (
        FUZZ_SIZES[FUZZ_SIZE]["sales"],
        (*SALES_TOKEN, *_same_bodies("--include-operation-id")),
    )
HOOKS = Path(__file__).with_name("fuzz_hooks.py")  # steer generated SKUs, models and ids toward real ones
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
SEED = """
from django.contrib.auth.models import Group
from accounts.models import User
from accounts.tokens import token_issue
from configurator.services import saved_build_create
from quotes.services import quote_create, quote_send

def user(name, group, **extra):
    made = User.objects.create_user(username=name, email=f"{name}@example.com", password="fuzz-test-pass", **extra)
    made.groups.add(Group.objects.get(name=group))
    return made

sales = user("fuzz-sales", "sales", is_staff=True)
customer = user("fuzz-customer", "customers")
keys = user("fuzz-keys", "customers")
build = {"chassis": "ws-tr-pro-2gpu-4u5", "cpus": [{"sku": "tr-pro-7975wx", "qty": 1}],
         "gpus": [{"sku": "rtx-pro-6000-blackwell-maxq", "qty": 2}], "psus": [{"sku": "psu-crps-2000w", "qty": 2}],
         "memory": [{"sku": "ddr5-rdimm-64gb", "qty": 8}], "psu_redundancy": "n+1"}
saved = saved_build_create(owner=customer, name="fuzz build", payload=build)
draft = quote_create(customer=customer, created_by=customer, payload=build)
sent = quote_send(quote=quote_create(customer=customer, created_by=customer, payload=build), user=sales)
print(json.dumps({
    "token": token_issue(user=sales)[1],
    "FUZZ_QUOTE_NUMBERS": ",".join((draft.number, sent.number)),
    "FUZZ_BUILD_IDS": str(saved.pk),
    "FUZZ_USER_IDS": ",".join(str(u.pk) for u in (customer, keys, sales)),
}))
"""


@dataclass(frozen=True)
class Target:
    server: Gunicorn
    sales_token: str
    seeded: dict[str, str]  # FUZZ_* ids for tests/security/fuzz_hooks.py


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    tmp = tmp_path_factory.mktemp("fuzz")
    with scratch_database(tmp, "fuzz") as database_url:
        env = environment(database_url, MEDIA_ROOT=str(tmp / "media"))
        seeded = run_django(env, MIGRATE + SEED)
        server = Gunicorn(env, tmp / "gunicorn.log", workers=2)
        try:
            yield Target(
                server=server,
                sales_token=seeded["token"],
                seeded={name: value for name, value in seeded.items() if name.startswith("FUZZ_")},
            )
        finally:
            server.stop()


def schemathesis(target: Target, max_examples: int, phases: str, *options: str) -> subprocess.Popen[str]:
    """One `st run` pass as a subprocess (the passes run side by side: each is CPU-bound in one process)."""
    command = [
        str(Path(sys.executable).with_name("st")),
        "run",
        f"{target.server.base_url}/api/v1/schema/",
        "--checks",
        CHECKS,
        "--max-examples",
        str(max_examples),
        "--phases",
        phases,
        "--workers",
        "1",
        "--request-timeout",
        "20",
        "--suppress-health-check",
        "too_slow,filter_too_much,data_too_large",
        "--output-truncate",
        "false",
        *options,
    ]
    return subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **target.seeded, "NO_COLOR": "1", "SCHEMATHESIS_HOOKS": str(HOOKS)},
    )


def _summary(output: str) -> str:
    cases = re.search(r"Test cases:\s*\n\s*(.+)", output)
    return cases.group(1).strip() if cases else "no summary"


def test_every_answer_matches_the_schema_and_none_is_a_5xx(target: Target) -> None:
    """The schemathesis passes, and the hostile requests sent alongside them."""
    started = time.monotonic()
    runs = {
        name: schemathesis(
            target,
            examples,
            "examples,coverage,fuzzing" if name in COVERAGE_PASSES[FUZZ_SIZE] else "examples,fuzzing",
            *(option.format(token=target.sales_token) for option in options),
        )
        for name, (examples, options) in PASSES.items()
    }
    timeout_s = 600 if FUZZ_SIZE == "ci" else 5400
    # the hostile requests on the same server: while the passes run on PostgreSQL, after them on SQLite
    # (whose "database is locked" under concurrent writers is a 503 that says nothing about the input)
    hostile = _hostile_requests(target) if POSTGRES else []
    outputs = {name: run.communicate(timeout=timeout_s)[0] for name, run in runs.items()}
    hostile = hostile if POSTGRES else _hostile_requests(target)
    print(f"\nfuzzing ({FUZZ_SIZE}) took {time.monotonic() - started:.0f} s")
    failed = []
    for name, run in runs.items():
        print(f"  {name}: {_summary(outputs[name])}")
        if run.returncode != 0:
            failed.append(name)
    report = "\n\n".join(f"=== {name} ===\n{outputs[name][-20000:]}" for name in failed)
    assert not failed, f"schemathesis found problems:\n{report}\n--- server log ---\n{target.server.log()}"
    assert not hostile, "\n".join(hostile[:50]) + f"\n--- server log ---\n{target.server.log()}"


# --------------------------------------------------------------------------- hostile bodies and headers

UNSAFE = ("post", "put", "patch", "delete")


def _operations(target: Target) -> list[tuple[str, str]]:
    """(METHOD, concrete path) of every operation in the served schema, path parameters filled with seeded
    objects (a quote number, a saved build id) or a plausible value."""
    url = f"{target.server.base_url}/api/v1/schema/?format=json"
    with urllib.request.urlopen(url, timeout=30) as answer:  # noqa: S310 - our own server
        schema = json.loads(answer.read())
    values = {
        "{number}": target.seeded["FUZZ_QUOTE_NUMBERS"].split(",")[0],
        "{id}": target.seeded["FUZZ_BUILD_IDS"].split(",")[0],
        "{sku}": "rtx-4090",
        "{supplier}": "sample-supplier",
    }
    operations = []
    for template, methods in schema["paths"].items():
        path = template
        for name, value in values.items():
            path = path.replace(name, value)
        path = re.sub(r"{[^}]+}", "1", path)
        operations += [(method.upper(), path) for method in methods if method in (*UNSAFE, "get", "head", "options")]
    return operations


def _hostile_plan(target: Target) -> list[tuple[str, str, hostile_http.Hostile, bytes | None]]:
    token = f"Token {target.sales_token}".encode()
    rng = random.Random(20_260_417)
    forged = hostile_http.FORGED_HEADERS
    share = HOSTILE_FORGED_PER_OPERATION[FUZZ_SIZE]
    plan: list[tuple[str, str, hostile_http.Hostile, bytes | None]] = []
    for index, (method, path) in enumerate(_operations(target)):
        cases = [forged[(index * share + k) % len(forged)] for k in range(share)]
        if method.lower() in UNSAFE:
            cases += [*hostile_http.BODIES, *hostile_http.WRONG_CONTENT_TYPES]
        # the sales token must survive the run: the token endpoint (which rotates or revokes it) is called
        # anonymously only, as the schemathesis pass as sales leaves it out
        callers: tuple[bytes | None, ...] = (None,) if path.startswith("/api/v1/auth/token") else (None, token)
        if FUZZ_SIZE == "ci":
            plan += [(method, path, case, callers[k % len(callers)]) for k, case in enumerate(cases)]
            continue
        randoms = [hostile_http._mutated(rng) for _ in range(HOSTILE_RANDOM[FUZZ_SIZE])]
        if method.lower() not in UNSAFE:
            randoms = [case for case in randoms if case in forged] or randoms[:10]
        plan += [(method, path, case, auth) for case in cases + randoms for auth in callers]
    return plan


def _hostile_requests(target: Target) -> list[str]:
    """Send the hostile plan; the problems found (a 5xx, no answer, an undocumented status, a hostile body
    that a public operation did not refuse with 400)."""
    plan = _hostile_plan(target)
    port = target.server.port

    def one(item: tuple[str, str, hostile_http.Hostile, bytes | None]) -> tuple[int, str]:
        method, path, case, authorization = item
        payload = hostile_http.request_bytes(case, method, path, port, authorization)
        status = hostile_http.send(port, payload)
        return status, f"{case.label} -> {method} {path} ({'token' if authorization else 'anonymous'}): {status}"

    # SQLite answers concurrent writers with "database is locked" (a 503 that says nothing about the input),
    # so on SQLite one request at a time; on PostgreSQL (CI) four at once
    clients = 4 if POSTGRES else 1
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        answers = list(pool.map(one, plan))
    statuses = Counter(status for status, _ in answers)
    print(
        f"\nhostile requests ({FUZZ_SIZE}): {len(answers)} sent to {len(_operations(target))} operations in "
        f"{time.monotonic() - started:.0f} s; answers {dict(sorted(statuses.items()))}"
    )
    problems = [line for status, line in answers if status >= 500 or status == 0]
    allowed = {200, 201, 204, 400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 429, 431}
    problems += [line for status, line in answers if status not in allowed and status]
    # the bodies reach the parser and the checks: on a public operation every one of them is a 400
    public = [
        (status, line)
        for (_, path, case, _), (status, line) in zip(plan, answers, strict=True)
        if path == "/api/v1/estimate" and case in hostile_http.BODIES
    ]
    problems += [line for status, line in public if status != 400] + ([] if public else ["no body reached estimate"])
    return problems
