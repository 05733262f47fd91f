"""Throughput and latency of the API under 16 concurrent clients (`make bench`).

One gunicorn (2 sync workers, config/gunicorn.py, production settings with JSON access logs) against
PostgreSQL and Redis on 127.0.0.1; a scratch database `bench_load_<pid>` is migrated, loaded with the
catalog and the sample offers and dropped afterwards. In the same run and on the same server, each
endpoint gets the same closed loop of 16 clients for BENCH_LOAD_SECONDS (default 15 s, in 3 interleaved
rounds) after a warm-up:

* baseline: `GET /api/v1/ping`, a DRF view that does nothing (the floor of the stack: WSGI, middleware,
  DRF authentication and content negotiation, JSON rendering, access log);
* `POST /api/v1/builds/validate` with the 8 × H200 NVL server of ARCHITECTURE.md;
* the same body to a probe (bench/load_urls.py, on this server only): validate with its verdict computed
  once, so everything but the engine's validate() — throttle, body, parsing, price, availability, the
  same answer: what validate could reach if the engine cost nothing;
* `POST /api/v1/estimate` with Llama 3.1 70B Q4_K_M on 2 × RTX 4090;
* `POST /api/v1/recommendations` for a team of 5 on Llama 3.1 70B Q4_K_M (3 builds).

Printed side by side: requests per second, p50 and p99 latency as the clients see them, and each
endpoint's throughput as a fraction of the baseline's, over the run and in each round. Also the CPU time
the gunicorn workers spent per request (user + system, from /proc) and the baseline's CPU per request
as a fraction of the endpoint's: the throughput ratio the server's own work allows, which moves much
less than req/s when other processes share the machine (it leaves out the client's, the kernel's network
and Redis's share).

The server runs bench/load_settings.py: the production settings with the project's URLs and the probe.
The client is asyncio in this process and shares the machine's cores with the server, as a load
balancer on the same host would. Anonymous throttles are raised for the run (THROTTLE_ANON_*), so every
request is served, but still counted: the counters live in Redis (CACHE_URL, default the broker's
server, database BENCH_CACHE_DB=6) as in production, so every request pays the throttle's round trip.
Without PostgreSQL on DATABASE_URL (or 127.0.0.1:5432) the database is a SQLite file, and the output
says so.

Run: .venv/bin/python bench/bench_load.py
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.builds import ARCHITECTURE_EXAMPLE  # noqa: E402 - the same bodies the API tests send
from tests.workloads import ESTIMATE_EXAMPLE  # noqa: E402

CONCURRENCY = 16
WORKERS = 2
SECONDS = float(os.environ.get("BENCH_LOAD_SECONDS", "15"))
WARMUP_S = 2.0
ROUNDS = 3
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/postgres"
DEFAULT_BROKER = "redis://127.0.0.1:6379/9"
CACHE_DB = os.environ.get("BENCH_CACHE_DB", "6")

BUILD = ARCHITECTURE_EXAMPLE
WORKLOAD = ESTIMATE_EXAMPLE


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: the body is a dict
class Endpoint:
    label: str
    method: str
    path: str
    body: dict[str, object] | None = None

    @property
    def name(self) -> str:
        """The path's last part (validate, estimate): how the summary lines name the endpoint."""
        return self.path.rsplit("/", 1)[-1]

    def request(self, port: int) -> bytes:
        payload = json.dumps(self.body).encode() if self.body is not None else b""
        head = [
            f"{self.method} {self.path} HTTP/1.1",
            f"Host: 127.0.0.1:{port}",
            "Accept: application/json",
            "Connection: close",
            "User-Agent: bench_load",
        ]
        if self.body is not None:
            head += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
        return ("\r\n".join(head) + "\r\n\r\n").encode() + payload


BASELINE = Endpoint("baseline: GET /api/v1/ping (trivial DRF view)", "GET", "/api/v1/ping")
RECOMMENDATION = {
    "workload": {"model": "llama-3.1-70b", "precision": "q4_k_m", "context_tokens": 8192, "concurrent_users": 5},
    "limit": 3,
}
VALIDATE = Endpoint("POST /api/v1/builds/validate (8 x H200 NVL)", "POST", "/api/v1/builds/validate", BUILD)
WITHOUT_ENGINE = Endpoint(
    "  the same, the engine's verdict computed once (probe)", "POST", "/api/v1/bench/validate-without-engine", BUILD
)
ESTIMATE = Endpoint("POST /api/v1/estimate (70B Q4 on 2 x 4090)", "POST", "/api/v1/estimate", WORKLOAD)
RECOMMEND = Endpoint("POST /api/v1/recommendations (team, 70B Q4)", "POST", "/api/v1/recommendations", RECOMMENDATION)
ENDPOINTS = (BASELINE, VALIDATE, WITHOUT_ENGINE, ESTIMATE, RECOMMEND)
#: throughput targets as a fraction of the baseline's (issue 17); recommendations are judged by p99
TARGETS = {VALIDATE: 0.7, ESTIMATE: 0.6}
RECOMMEND_P99_TARGET_MS = 100.0


@dataclass
class Result:
    latencies_s: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    elapsed_s: float = 0.0
    server_cpu_s: float | None = 0.0  # the gunicorn workers' CPU time over the run (None: not on Linux)
    round_rates: list[float] = field(default_factory=list)  # requests per second in each round

    @property
    def cpu_ms_per_request(self) -> float | None:
        if self.server_cpu_s is None or not self.latencies_s:
            return None
        return 1000 * self.server_cpu_s / len(self.latencies_s)

    @property
    def rate(self) -> float:
        return len(self.latencies_s) / self.elapsed_s if self.elapsed_s else 0.0

    def percentile_ms(self, fraction: float) -> float:
        ordered = sorted(self.latencies_s)
        return 1000 * ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


async def _exchange(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        return await reader.read()  # the sync worker closes the connection after the response
    finally:
        writer.close()


async def _one(port: int, request: bytes) -> int:
    response = await _exchange(port, request)
    return int(response[9:12]) if response.startswith(b"HTTP/1.") else 0


def answer_body(port: int, endpoint: Endpoint) -> bytes:
    """The body of one answer to `endpoint`."""
    return asyncio.run(_exchange(port, endpoint.request(port))).partition(b"\r\n\r\n")[2]


async def _load(port: int, endpoint: Endpoint, seconds: float) -> Result:
    request = endpoint.request(port)
    result = Result()
    deadline = time.perf_counter() + seconds

    async def client() -> None:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            try:
                status = await _one(port, request)
            except OSError:
                status = 0
            result.latencies_s.append(time.perf_counter() - started)
            result.statuses[status] += 1

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(CONCURRENCY)))
    result.elapsed_s = time.perf_counter() - started
    return result


def measure(port: int, endpoint: Endpoint, seconds: float) -> Result:
    return asyncio.run(_load(port, endpoint, seconds))


# --------------------------------------------------------------------------- the server and its database


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def reachable(url: str, default_port: int) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or default_port), timeout=1):
            return True
    except OSError:
        return False


def admin_sql(url: str, statement: str) -> None:
    """Run `statement` in the maintenance database of `url`'s server (the database in `url` may not exist)."""
    import psycopg

    maintenance = with_database(url, "postgres").replace("postgres://", "postgresql://", 1)
    with psycopg.connect(maintenance, autocommit=True) as connection:
        connection.execute(statement)


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def prepare_database(env: dict[str, str]) -> None:
    script = (
        "import django; django.setup()\n"
        "from io import StringIO\n"
        "from django.core.management import call_command\n"
        "call_command('migrate', verbosity=0, interactive=False)\n"
        "call_command('load_catalog', stdout=StringIO())\n"
        "call_command('load_offers', stdout=StringIO())\n"  # as `make migrate`: answers carry ship dates
    )
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, check=True, timeout=300)


def wait_until_serving(port: int, process: subprocess.Popen[bytes], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {process.returncode}")
        try:
            if measure_once(port) == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not start")


def process_cpu_s(root_pid: int) -> float | None:
    """User + system CPU seconds of a process and its children so far (the gunicorn master and workers),
    from /proc; None where there is no /proc."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total, pending, seen = 0, [root_pid], set()
    try:
        while pending:
            pid = pending.pop()
            if pid in seen:
                continue
            seen.add(pid)
            stat = Path(f"/proc/{pid}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
            children = Path(f"/proc/{pid}/task/{pid}/children")
            if children.exists():
                pending += [int(child) for child in children.read_text().split()]
    except (OSError, ValueError, IndexError):
        return None
    return total / tick


def measure_once(port: int, endpoint: Endpoint = BASELINE) -> int:
    return asyncio.run(_one(port, endpoint.request(port)))


def main() -> int:
    base_database = os.environ.get("DATABASE_URL", "")
    if not base_database.startswith(("postgres://", "postgresql://")):
        base_database = DEFAULT_DATABASE if reachable(DEFAULT_DATABASE, 5432) else ""
    broker = os.environ.get("CELERY_BROKER_URL", "") or DEFAULT_BROKER
    if not reachable(broker, 6379):
        broker = ""
    cache = os.environ.get("CACHE_URL", "") or (with_database(broker, CACHE_DB) if broker else "")
    tmp = Path(tempfile.mkdtemp(prefix="bench-load-"))
    named = urlsplit(base_database).path.strip("/") if base_database else ""
    prefix = named if named and named != "postgres" else "bench_load"  # the scratch name follows DATABASE_URL's
    scratch = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    database_url = with_database(base_database, scratch) if base_database else f"sqlite:///{tmp / 'bench.sqlite3'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("THROTTLE_")}
    env.update(
        DJANGO_SETTINGS_MODULE="load_settings",  # bench/: the production settings and the probe
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "bench"), os.environ.get("PYTHONPATH", "")])),
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="false",
        DATABASE_URL=database_url,
        CELERY_BROKER_URL=broker,
        CACHE_URL=cache,
        MEDIA_ROOT=str(tmp / "media"),
        THROTTLE_ANON_ESTIMATE="100000000/min",
        THROTTLE_ANON_VALIDATE="100000000/min",
        THROTTLE_ANON_RECOMMEND="100000000/min",
    )
    print(
        f"server: gunicorn, {WORKERS} sync workers, production settings with the probe (bench/load_settings.py); "
        f"database: {'PostgreSQL ' + scratch if base_database else 'SQLite file (no PostgreSQL reachable)'}; "
        f"broker: {broker or 'none'}; throttle counters: {cache or 'in process (no Redis)'}; "
        f"clients: {CONCURRENCY} concurrent, {SECONDS:.0f} s per endpoint in {ROUNDS} "
        f"interleaved rounds after {WARMUP_S:.0f} s warm-up; {os.cpu_count()} CPUs shared by server and client"
    )
    if base_database:
        admin_sql(base_database, f'CREATE DATABASE "{scratch}"')
    server = None
    log_path = tmp / "gunicorn.log"
    try:
        prepare_database(env)
        port = free_port()
        with log_path.open("wb") as log:
            server = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "-c",
                    "config/gunicorn.py",
                    "config.wsgi:application",
                    "--bind",
                    f"127.0.0.1:{port}",
                    "--workers",
                    str(WORKERS),
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            wait_until_serving(port, server)
        except RuntimeError:
            print(log_path.read_text(errors="replace")[-3000:], file=sys.stderr)
            raise
        for endpoint in ENDPOINTS:
            measure(port, endpoint, WARMUP_S)
        if answer_body(port, WITHOUT_ENGINE) != answer_body(port, VALIDATE):
            raise RuntimeError("the probe's answer is not validate's: it would not measure the same work")
        # Rounds, each endpoint in turn, so a change in the machine's load touches all of them alike.
        results: dict[Endpoint, Result] = {endpoint: Result() for endpoint in ENDPOINTS}
        for _ in range(ROUNDS):
            for endpoint in ENDPOINTS:
                cpu_before = process_cpu_s(server.pid)
                part = measure(port, endpoint, SECONDS / ROUNDS)
                cpu_after = process_cpu_s(server.pid)
                total = results[endpoint]
                total.latencies_s += part.latencies_s
                total.statuses.update(part.statuses)
                total.elapsed_s += part.elapsed_s
                total.round_rates.append(part.rate)
                if cpu_before is None or cpu_after is None or total.server_cpu_s is None:
                    total.server_cpu_s = None
                else:
                    total.server_cpu_s += cpu_after - cpu_before
        return report(results)
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        if base_database:
            admin_sql(base_database, f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
        shutil.rmtree(tmp, ignore_errors=True)


def report(results: dict[Endpoint, Result]) -> int:
    baseline = results[BASELINE].rate
    baseline_cpu = results[BASELINE].cpu_ms_per_request
    print(
        f"{'':54}{'requests':>10}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'vs ping':>9}"
        f"{'cpu ms/req':>12}{'cpu vs ping':>13}"
    )
    failed = 0
    for endpoint, result in results.items():
        ok = result.statuses.get(200, 0)
        failed += len(result.latencies_s) - ok
        cpu = result.cpu_ms_per_request
        cpu_ratio = f"{baseline_cpu / cpu:>13.2f}" if cpu and baseline_cpu else f"{'n/a':>13}"
        print(
            f"{endpoint.label:54}{len(result.latencies_s):>10}{result.rate:>9.1f}"
            f"{result.percentile_ms(0.50):>9.1f}{result.percentile_ms(0.99):>9.1f}{result.rate / baseline:>9.2f}"
            + (f"{cpu:>12.3f}" if cpu is not None else f"{'n/a':>12}")
            + cpu_ratio
        )
        if ok != len(result.latencies_s):
            print(f"  non-200 answers: {dict(result.statuses)}")
    ratios = ", ".join(
        f"{endpoint.name} {results[endpoint].rate / baseline:.2f} (target >= {target})"
        for endpoint, target in TARGETS.items()
    )

    # the same ratios round by round (each round runs every endpoint in turn): how far the machine's load moved
    # them within this run
    def round_ratios(endpoint: Endpoint) -> str:
        """The endpoint's throughput as a fraction of ping's in each round."""
        pings = results[BASELINE].round_rates
        return " ".join(f"{rate / ping:.2f}" for rate, ping in zip(results[endpoint].round_rates, pings, strict=True))

    spread = "; ".join(f"{endpoint.name} {round_ratios(endpoint)}" for endpoint in TARGETS)
    print(f"the ratios in each of the {ROUNDS} rounds: {spread}")
    ceiling = results[WITHOUT_ENGINE].rate / baseline
    print(
        f"validate without its engine (the probe): {ceiling:.2f} of ping, rounds {round_ratios(WITHOUT_ENGINE)}"
        f"; the engine's share of validate's time: {1 - results[VALIDATE].rate / results[WITHOUT_ENGINE].rate:.0%}"
    )
    print(
        f"throughput ratio vs the trivial endpoint: {ratios}; recommendations p99 "
        f"{results[RECOMMEND].percentile_ms(0.99):.1f} ms (target < {RECOMMEND_P99_TARGET_MS:.0f}); "
        f"mean latency of ping {1000 * statistics.mean(results[BASELINE].latencies_s):.1f} ms"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
