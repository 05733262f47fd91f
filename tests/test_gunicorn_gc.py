"""config/gunicorn.py freezes a worker's long-lived objects out of the garbage collector after its first
requests (then again at 10, 100, … requests), once each time, after the response is sent.

The requests are served in a fresh interpreter, as in a gunicorn worker: each freeze starts with a full
collection, which in a pytest process that has run hundreds of tests walks its whole heap (~4 s each on a
loaded machine), and the freeze would last for the rest of that process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKER = """
import gc, json
from types import SimpleNamespace
from config import gunicorn

frozen_before = gc.get_freeze_count()
worker = SimpleNamespace()
cached = []  # what a worker keeps between requests (a cache), tracked by the collector
froze_at = []
for request in range(1, 121):
    cached.append([request])
    before = gc.get_freeze_count()
    gunicorn.post_request(worker, None, {}, None)
    if gc.get_freeze_count() > before:
        froze_at.append(request)
print(json.dumps({"froze_at": froze_at, "served": worker.requests_served,
                  "frozen_before": frozen_before, "frozen_after": gc.get_freeze_count()}))
"""


def test_a_worker_freezes_after_its_first_tenth_and_hundredth_request() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WORKER], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    served = json.loads(done.stdout.strip().splitlines()[-1])
    assert served["froze_at"] == [1, 10, 100]
    assert served["served"] == 120
    assert served["frozen_after"] > served["frozen_before"]
