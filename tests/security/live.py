"""A real server for tests that need one: a scratch database (migrated, with the catalog) and gunicorn
(config/gunicorn.py) on a free 127.0.0.1 port, both removed afterwards.

The scratch database lives on the PostgreSQL of DATABASE_URL when it points at one (CI), else in a
SQLite file: pytest-django's test database is in memory on SQLite, where no other process can see it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from tests import dbtemplate

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(condition: Callable[[], bool], timeout_s: float, what: str, interval_s: float = 0.1) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(interval_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def _admin_sql(url: str, statement: str) -> None:
    """Run `statement` on the server of `url`, in its maintenance database (the one in `url` may not exist)."""
    import psycopg

    maintenance = _with_database(url, "postgres").replace("postgres://", "postgresql://", 1)
    with psycopg.connect(maintenance, autocommit=True) as connection:
        connection.execute(statement)


@contextmanager
def scratch_database(tmp_dir: Path, prefix: str) -> Iterator[str]:
    """The URL of a new database (a copy of the run's migrated template when there is one, else empty);
    dropped (or deleted) afterwards."""
    base = os.environ.get("DATABASE_URL", "")
    if base.startswith(("postgres://", "postgresql://")):
        name = f"{prefix}_{uuid.uuid4().hex[:10]}"
        if not dbtemplate.copy_template(name, base):  # migrated already (tests/dbtemplate.py)
            _admin_sql(base, f'CREATE DATABASE "{name}"')
        try:
            yield _with_database(base, name)
        finally:
            _admin_sql(base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    else:
        path = tmp_dir / f"{prefix}.sqlite3"
        yield f"sqlite:///{path}"
        path.unlink(missing_ok=True)


def environment(database_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("THROTTLE_", "PYTEST_"))}
    env.pop("QUOTE_RENDER_TEST_DELAY_S", None)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=database_url,
        CELERY_BROKER_URL="memory://",  # renders are queued in memory and never run: not what these tests measure
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def run_django(env: Mapping[str, str], body: str, timeout_s: float = 180) -> Any:
    """Run `body` in a fresh Django process with `env`; the last stdout line is its JSON result."""
    script = "import json, django\ndjango.setup()\n" + textwrap.dedent(body)
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


MIGRATE = """
from io import StringIO
from django.core.management import call_command
call_command("migrate", verbosity=0, interactive=False)
call_command("load_catalog", stdout=StringIO())
"""


class Service:
    """A subprocess in its own session (a signal to its group reaches its children too), its output in a
    log file. The constructor returns once `ready()` holds; if it never does, the process is stopped and
    the error carries the end of its log."""

    what = "the process"
    stop_timeout_s = 20.0
    log_tail_chars = 6000

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        log_path: Path,
        interval_s: float = 0.2,
        start_timeout_s: float = 60,
    ) -> None:
        self.log_path = log_path
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(
            list(argv), cwd=cwd, env=dict(env), stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            wait_for(self._started, start_timeout_s, f"{self.what} to start", interval_s=interval_s)
        except AssertionError:
            self.stop()
            raise AssertionError(f"{self.what} did not start:\n{self.log()}") from None

    def _started(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"{self.what} exited with {self.process.returncode}:\n{self.log()}")
        return self.ready()

    def ready(self) -> bool:
        raise NotImplementedError

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-self.log_tail_chars :]

    def problems(self, limit_chars: int = 12000) -> str:
        """The log's WARNING, ERROR and CRITICAL entries with their tracebacks (a line that starts with a
        timestamped level opens an entry; lines without one continue it), then the tail: what a failure
        message needs when the first error scrolled out of the tail."""
        entries: list[str] = []
        keep = False
        for line in self.log_path.read_text(errors="replace").splitlines():
            level = _LOG_LEVEL.search(line)
            if level:
                keep = level.group(1) in {"WARNING", "ERROR", "CRITICAL"}
            if keep:
                entries.append(line)
        found = "\n".join(entries)[:limit_chars]
        return f"--- warnings and errors ---\n{found}\n--- log tail ---\n{self.log()}"

    def kill(self) -> None:
        """SIGKILL the whole group (main process and children), as a machine crash would."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self._log.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=self.stop_timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        self._log.close()


_LOG_LEVEL = re.compile(r"^\[[^\]]*\b(DEBUG|INFO|WARNING|ERROR|CRITICAL)\b")


class Gunicorn(Service):
    """`gunicorn -c config/gunicorn.py config.wsgi:application` with N sync workers on 127.0.0.1."""

    def __init__(self, env: Mapping[str, str], log_path: Path, workers: int = 2, port: int | None = None) -> None:
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.what = f"gunicorn on port {self.port}"
        argv = [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application"]
        argv += ["--bind", f"127.0.0.1:{self.port}", "--workers", str(workers)]
        super().__init__(argv, cwd=ROOT, env=env, log_path=log_path)

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/api/v1/ping", timeout=2) as response:  # noqa: S310
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False
