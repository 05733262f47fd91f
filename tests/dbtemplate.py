"""One migrated PostgreSQL database per test run, copied for every database the run needs.

Without it every pytest-xdist worker runs all the migrations into its own test database, and every live
server (tests/security/live.py) runs them again into its scratch database. With DATABASE_URL on PostgreSQL
the run's first process (the xdist controller, or the only process) starts `migrate` into a template
database in the background as soon as pytest is configured, while the workers start and collect; each
worker's test database and each scratch database is then `CREATE DATABASE ... TEMPLATE` of it (a file copy
of a migrated database, well under a second). pytest-django is told to keep the copy (`keepdb`): it runs
`migrate` once more, which finds nothing to apply, and still fires post_migrate, serializes the database for
serialized_rollback and the catalog is loaded as before (tests/conftest.py). The copies are dropped when the
run ends. The template is kept for the next run on the same server, named by a hash of what the migrations
are (every migration file of the project and the lock of the packages that bring their own), and marked as
complete only once its `migrate` has finished: a run whose migrations are the same copies it at once (its
build cost ~20 s of CPU), a run with other migrations builds its own and drops the others. On SQLite nothing
changes (the test database is in memory).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

TEMPLATE_ENV = "CONFIGURATOR_TEST_TEMPLATE"  # name of the template database (set by the run's first process)
STATUS_ENV = "CONFIGURATOR_TEST_TEMPLATE_STATUS"  # file the build writes "ok" or its error into
ROOT = Path(__file__).resolve().parents[1]
COMPLETE = "migrated"  # the template's comment once its migrate has finished
BUILD = """
import sys, traceback
from pathlib import Path
status = Path(sys.argv[1])
try:
    import django
    django.setup()
    from django.core.management import call_command
    call_command("migrate", run_syncdb=True, interactive=False, verbosity=0)
    from django.db import connection, connections
    with connection.cursor() as cursor:  # complete: a later run may copy it
        name = connection.ops.quote_name(connection.settings_dict["NAME"])
        cursor.execute(f"COMMENT ON DATABASE {name} IS '@COMPLETE@'")
    connections.close_all()
except BaseException:
    status.write_text("error\\n" + traceback.format_exc())
    raise
status.write_text("ok")
""".replace("@COMPLETE@", COMPLETE)


def database_url() -> str:
    return os.environ.get("DATABASE_URL", "")


def on_postgres() -> bool:
    return database_url().startswith(("postgres://", "postgresql://"))


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def admin_sql(statement: str, url: str | None = None, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Run `statement` in the maintenance database of the server of `url` (DATABASE_URL by default); the rows
    it returns, if any."""
    import psycopg

    maintenance = with_database(url or database_url(), "postgres").replace("postgres://", "postgresql://", 1)
    with psycopg.connect(maintenance, autocommit=True) as connection:
        cursor = connection.execute(statement, params)
        return list(cursor.fetchall()) if cursor.description else []


def migrations_key() -> str:
    """A hash of what the migrated schema is made of: the project's migration files, the pinned packages (whose
    own migrations run too) and the build script."""
    digest = hashlib.sha256(BUILD.encode())
    files = sorted(ROOT.glob("*/migrations/*.py"))
    for path in [*files, ROOT / "requirements" / "lock.txt"]:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def start_build() -> subprocess.Popen[bytes] | None:
    """In the run's first process: use the kept template of these migrations, or create one and migrate it in a
    background process (dropping the templates of other migrations)."""
    if not on_postgres() or os.environ.get(TEMPLATE_ENV):
        return None
    base = urlsplit(database_url()).path.lstrip("/") or "configurator"
    prefix = f"{base}_tpl_"
    name = f"{prefix}{migrations_key()}"
    status = Path(tempfile.mkdtemp(prefix="configurator-template-")) / "status"
    os.environ[TEMPLATE_ENV] = name  # pytest-xdist workers start after this and inherit it
    os.environ[STATUS_ENV] = str(status)
    templates = admin_sql(
        "SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database WHERE starts_with(datname, %s)",
        params=(prefix,),
    )
    kept = (name, COMPLETE) in templates
    for other, _comment in templates:
        if not (kept and other == name):  # other migrations' templates, or this one left unfinished
            admin_sql(f'DROP DATABASE IF EXISTS "{other}" WITH (FORCE)')
    if kept:
        status.write_text("ok")
        return None
    admin_sql(f'CREATE DATABASE "{name}"')
    env = {**os.environ, "DATABASE_URL": with_database(database_url(), name)}
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    log = status.with_name("build.log").open("wb")
    return subprocess.Popen(
        [sys.executable, "-c", BUILD, str(status)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def finish(build: subprocess.Popen[bytes] | None) -> None:
    """In the run's first process, when the run ends: a build still running is stopped and its unfinished
    template dropped; a finished one is kept for the next run."""
    name = os.environ.get(TEMPLATE_ENV)
    if build is None or not name:
        return
    if build.poll() is None:
        build.kill()
    if build.wait(timeout=30) != 0:
        admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def template() -> str | None:
    """The migrated template's name once its build has finished; None when there is none (SQLite, or a
    process started outside pytest). A failed build is an error here, with the build's traceback."""
    name, status = os.environ.get(TEMPLATE_ENV), os.environ.get(STATUS_ENV)
    if not (on_postgres() and name and status):
        return None
    path, deadline = Path(status), time.monotonic() + 600
    while not path.exists() or not path.read_text():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the template database {name} was not migrated within 600 s")
        time.sleep(0.2)
    text = path.read_text()
    if text != "ok":
        raise RuntimeError(f"migrating the template database {name} failed:\n{text}")
    return name


def copy_template(name: str, url: str | None = None) -> bool:
    """Create database `name` (dropped first if it exists) as a copy of the template; False if there is no
    template, and then nothing is done."""
    source = template()
    if source is None:
        return False
    admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', url)
    for attempt in range(20):  # another process may still hold a connection to the template for a moment
        try:
            admin_sql(f'CREATE DATABASE "{name}" TEMPLATE "{source}"', url)
            return True
        except Exception as error:  # psycopg.errors.ObjectInUse
            if "is being accessed by other users" not in str(error) or attempt == 19:
                raise
            time.sleep(0.25)
    return False


def restore_template(url: str) -> bool:
    """Fill the empty database at `url` (on another PostgreSQL server, e.g. a throwaway cluster) with a dump
    of the template; False if there is no template, and then nothing is done."""
    source = template()
    if source is None:
        return False
    dump = subprocess.run(
        ["pg_dump", "--format=custom", "--no-owner", with_database(database_url(), source)],
        capture_output=True,
        timeout=120,
        check=True,
    ).stdout
    subprocess.run(
        ["pg_restore", "--no-owner", "--exit-on-error", "--dbname", url.replace("postgres://", "postgresql://", 1)],
        input=dump,
        capture_output=True,
        timeout=120,
        check=True,
    )
    return True
