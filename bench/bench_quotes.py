"""Quote PDFs rendered per second by one Celery worker and the p95 time from create to ready (`make bench`).

With DATABASE_URL=postgres://… and CELERY_BROKER_URL=redis://… the bench makes a scratch database, starts
one real `celery worker -c 1` on a queue of its own and measures the whole path (create → commit → broker →
claim → render → store). Without them it runs the embedded default: SQLite and the render done eagerly in
the creating process (and says so).

Baseline from the same run: ReportLab writing a trivial one-line PDF in the document's font (the library's
floor: a page, a font subset, the file), interleaved with the quote PDF rendered in process as the worker
renders it (after `pdf_worker_warm_up`: the fonts read once, what exists frozen out of GC) with no database
writes, queue or worker — the floor of what the pipeline can reach. Printed: renders per second, p50 and p95.

Run: .venv/bin/python bench/bench_quotes.py
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.pop("QUOTE_RENDER_TEST_DELAY_S", None)

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402

BURST = int(os.environ.get("BENCH_QUOTES_BURST", "30"))
SEQUENTIAL = int(os.environ.get("BENCH_QUOTES_SEQUENTIAL", "20"))
RENDERS = int(os.environ.get("BENCH_QUOTES_RENDERS", "30"))
BUILD: dict[str, Any] = {
    "chassis": "srv-8gpu-4u-epyc",
    "cpus": [{"sku": "epyc-9554", "qty": 2}],
    "gpus": [{"sku": "h200-nvl", "qty": 8}],
    "psus": [{"sku": "psu-crps-3000w", "qty": 4}],
    "memory": [{"sku": "ddr5-rdimm-96gb", "qty": 24}],  # 2,304 GB: ≥ 1.5 × the 1,128 GB of HBM (issue 34)
    "storage": [{"sku": "nvme-4tb", "qty": 2}],
    "nics": [{"sku": "nic-200g", "qty": 1}],
    "bridges": [{"sku": "nvlink-bridge-h200-4way", "qty": 2}],
    "psu_redundancy": "n+1",
    "site_voltage": 230,
}
REAL = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")) and os.environ.get(
    "CELERY_BROKER_URL", ""
).startswith("redis://")


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def timed(fn: Any) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def make_database() -> str:
    """A scratch database (PostgreSQL: `<DATABASE_URL's name or bench_quotes>_<pid>`; SQLite: in memory),
    migrated, with the catalog."""
    connection.settings_dict.setdefault("TEST", {})
    named = str(connection.settings_dict["NAME"] or "")
    prefix = named if named and named != "postgres" else "bench_quotes"  # the scratch name follows DATABASE_URL's
    connection.settings_dict["TEST"]["NAME"] = f"{prefix}_{os.getpid()}" if REAL else None
    name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    from catalog.services import catalog_load_fixture

    catalog_load_fixture()
    return str(name)


def start_worker(queue: str, db_name: str) -> tuple[subprocess.Popen[bytes], str]:
    from config.celery import app

    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db_name}",
    )
    node = f"{queue}@{socket.gethostname()}"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-l",
            "warning",
            "-c",
            "1",
            "-Q",
            queue,
            "-n",
            node,
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not app.control.ping(destination=[node], timeout=0.5):
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError("the worker did not start")
    return process, node


def wait_ready(quote_ids: list[int], timeout_s: float = 300) -> None:
    from quotes.models import Quote

    deadline = time.monotonic() + timeout_s
    while Quote.objects.filter(pk__in=quote_ids).exclude(render_status="ready").exists():
        if time.monotonic() > deadline:
            raise RuntimeError("renders did not finish in time")
        time.sleep(0.02)


def main() -> int:
    from quotes import services
    from quotes.models import Quote
    from quotes.pdf import pdf_worker_warm_up, render_quote_pdf
    from tests import factories

    mode = "1 real celery worker (-c 1), PostgreSQL, Redis" if REAL else "eager in-process (no broker configured)"
    print(f"mode: {mode}")
    original_name = str(connection.settings_dict["NAME"])
    db_name = make_database()
    media_before = set((Path(settings.MEDIA_ROOT) / "quotes").glob("*.pdf"))
    worker = None
    queue = f"bench-quotes-{uuid.uuid4().hex[:8]}"
    if REAL:
        from config.celery import app

        app.conf.task_default_queue = queue  # before any quote is made: renders go to this run's worker only
        app.conf.task_always_eager = False
    try:
        customer = factories.customer(username="bench-customer")

        def create() -> Quote:
            return services.quote_create(customer=customer, created_by=customer, payload=BUILD)

        # Baseline: ReportLab on a one-line page in DejaVu Sans. Then our quote PDF rendered in process (no
        # queue, no DB writes) as a worker renders it: after the worker's warm-up (fonts read, GC frozen).
        from quotes.pdf_layout import render_line

        def trivial_page() -> None:
            render_line("Счёт № 1", font_dir=settings.QUOTE_PDF_FONT_DIR)

        trivial_page()  # warm up
        probe = create()
        pdf_worker_warm_up()
        render_quote_pdf(probe)
        trivial_s: list[float] = []
        render_s: list[float] = []
        for _ in range(RENDERS):  # interleaved, so a change in the machine's load touches both alike
            trivial_s.append(timed(trivial_page))
            render_s.append(timed(lambda: render_quote_pdf(probe)))

        if REAL:
            worker, _ = start_worker(queue, db_name)
            wait_ready([probe.pk])  # the probe's own render also warms the worker

        # Throughput: a burst of quotes, all queued at once; one worker drains them.
        started = time.perf_counter()
        burst = [create().pk for _ in range(BURST)]
        created_s = time.perf_counter() - started
        wait_ready(burst)
        burst_s = time.perf_counter() - started
        burst_rate = BURST / burst_s

        # Latency: one quote at a time, create → ready as the client sees it.
        latencies: list[float] = []
        for _ in range(SEQUENTIAL):
            t0 = time.perf_counter()
            quote = create()
            wait_ready([quote.pk])
            latencies.append(time.perf_counter() - t0)

        where = "1 worker" if REAL else "eager"
        print(f"{'':54}{'per second':>12}{'p50 ms':>10}{'p95 ms':>10}")
        print(
            f"{'baseline: ReportLab, trivial one-line PDF':54}{1 / statistics.mean(trivial_s):>12.2f}"
            f"{1000 * statistics.median(trivial_s):>10.1f}{1000 * p95(trivial_s):>10.1f}"
        )
        print(
            f"{'project: quote PDF rendered in process (as the worker)':54}{1 / statistics.mean(render_s):>12.2f}"
            f"{1000 * statistics.median(render_s):>10.1f}{1000 * p95(render_s):>10.1f}"
            f"   ({statistics.median(render_s) / statistics.median(trivial_s):.1f} x the trivial page at p50)"
        )
        print(
            f"{f'project: burst of {BURST} quotes, create → ready ({where})':54}{burst_rate:>12.2f}"
            f"{'':>10}{'':>10}   (creates took {created_s:.2f} s)"
        )
        print(
            f"{f'project: create → ready, one at a time (n={SEQUENTIAL})':54}{1 / statistics.mean(latencies):>12.2f}"
            f"{1000 * statistics.median(latencies):>10.0f}{1000 * p95(latencies):>10.0f}"
        )
        print(
            f"pipeline overhead over the in-process render: "
            f"{1000 * (statistics.median(latencies) - statistics.median(render_s)):.0f} ms per quote at p50; "
            f"targets: render p50 <= 100 ms and >= 8 renders per second per worker"
        )
        return 0
    finally:
        if worker is not None:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=30)
            import redis

            client = redis.Redis.from_url(os.environ["CELERY_BROKER_URL"])
            for key in client.scan_iter(match=f"*{queue}*"):
                client.delete(key)
        for path in set((Path(settings.MEDIA_ROOT) / "quotes").glob("*.pdf")) - media_before:
            path.unlink()
        connection.creation.destroy_test_db(original_name, verbosity=0)


if __name__ == "__main__":
    sys.exit(main())
