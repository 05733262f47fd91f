"""`make bench`: run every bench/bench_*.py in turn; each prints its figure next to a baseline
measured in the same run. Exit status is non-zero if any benchmark fails to run."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    only = set(sys.argv[1:])
    failed = []
    for script in scripts:
        if only and script.stem not in only and script.stem.removeprefix("bench_") not in only:
            continue
        print(f"\n=== {script.stem} ===", flush=True)
        started = time.perf_counter()
        result = subprocess.run([sys.executable, str(script)], cwd=HERE.parent, check=False)
        print(f"--- {script.stem}: {time.perf_counter() - started:.1f} s, exit {result.returncode}", flush=True)
        if result.returncode != 0:
            failed.append(script.stem)
    if failed:
        print(f"\nFAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
