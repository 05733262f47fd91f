"""The project's shape: run modes, settings, compose file and Makefile agree with the code."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.test import Client

from accounts.models import User
from catalog.models import Gpu
from config.env import KNOWN_VARIABLES

ROOT = Path(__file__).resolve().parent.parent


def test_compose_has_the_full_stack_with_healthchecks() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"postgres", "redis", "web", "worker", "beat"} <= set(services)
    assert services["postgres"]["image"].startswith("postgres:16")
    assert services["redis"]["image"].startswith("redis:7")
    for name in ("postgres", "redis", "web", "worker", "beat"):
        assert "healthcheck" in services[name], name
    assert "gunicorn" in " ".join(services["web"]["command"])
    assert services["worker"]["command"][:4] == ["celery", "-A", "config", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "config", "beat"]
    # the long-running processes come back when they exit (the one-shot migrate does not)
    assert {name for name, service in services.items() if service.get("restart") == "unless-stopped"} == {
        "web",
        "worker",
        "beat",
    }


def test_compose_broker_redis_persists_its_queues_on_a_volume() -> None:
    """A broker restart must not drop queued renders: append-only file on, on a named volume at its dir."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    redis = compose["services"]["redis"]
    command = redis["command"]
    options = dict(zip(command[1::2], command[2::2], strict=True))
    assert command[0] == "redis-server"
    assert options["--appendonly"] == "yes"
    assert options["--appendfsync"] in ("everysec", "always")
    mounts = dict(volume.split(":", 1) for volume in redis["volumes"])
    assert {name for name, path in mounts.items() if path == options["--dir"]} == {"redisdata"}
    assert "redisdata" in compose["volumes"]
    for name in ("web", "worker", "beat"):
        assert compose["services"][name]["environment"]["CELERY_BROKER_URL"].startswith("redis://redis:")


def test_compose_environment_only_uses_variables_the_code_reads() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    for name in ("web", "worker", "beat", "migrate"):
        env = compose["services"][name]["environment"]
        unknown = set(env) - set(KNOWN_VARIABLES)
        assert not unknown, f"{name} sets variables no setting reads: {unknown}"
        assert env["DATABASE_URL"].startswith("postgres://")
        assert env["CELERY_BROKER_URL"].startswith("redis://")
        assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"


def test_every_known_variable_is_read_by_settings_and_documented() -> None:
    sources = "".join(
        p.read_text()
        for app in ("config", "accounts", "catalog", "configurator", "quotes")
        for p in (ROOT / app).rglob("*.py")
    )
    readme = (ROOT / "README.md").read_text()
    example = (ROOT / ".env.example").read_text()
    for name in KNOWN_VARIABLES:
        if name != "DJANGO_SETTINGS_MODULE":
            assert re.search(rf'env_\w+\("{name}"', sources), f"{name} is documented but never read"
        assert name in readme, f"{name} missing from the README's variable table"
        assert name in example, f"{name} missing from .env.example"


def test_makefile_has_the_documented_targets() -> None:
    makefile = (ROOT / "Makefile").read_text()
    for target in ("help", "install", "run", "test", "lint", "bench", "accuracy"):
        assert re.search(rf"^{target}:", makefile, re.MULTILINE), target
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci and "makemigrations --check" in ci


def test_production_settings_refuse_to_start_without_secret_key() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.production"
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_production_deploy_check_is_clean() -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "test-" + "x" * 60,
        "ALLOWED_HOSTS": "configurator.example.com",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


@pytest.mark.django_db
def test_seeding_twice_changes_nothing(catalog: None) -> None:
    call_command("load_catalog", stdout=StringIO())
    call_command("seed_demo", allow_without_debug=True, stdout=StringIO())
    users = {u.username: (u.password, u.is_superuser) for u in User.objects.all()}
    prices = dict(Gpu.objects.values_list("sku", "list_price"))
    history = Gpu.history.count()

    out = StringIO()
    call_command("load_catalog", stdout=out)
    call_command("seed_demo", allow_without_debug=True, stdout=out)
    assert "catalog: 0 created, 0 updated" in out.getvalue()
    assert "demo users: 0 created, 5 existed" in out.getvalue()
    assert {u.username: (u.password, u.is_superuser) for u in User.objects.all()} == users
    assert dict(Gpu.objects.values_list("sku", "list_price")) == prices
    assert Gpu.history.count() == history
    assert set(User.objects.get(username="sales").groups.values_list("name", flat=True)) == {"sales"}


@pytest.mark.django_db
def test_load_catalog_keeps_staff_edits_unless_update(catalog: None) -> None:
    Gpu.objects.filter(sku="rtx-4090").update(list_price=1)
    call_command("load_catalog", stdout=StringIO())
    assert Gpu.objects.get(sku="rtx-4090").list_price == 1
    out = StringIO()
    call_command("load_catalog", update=True, stdout=out)
    assert Gpu.objects.get(sku="rtx-4090").list_price > 1
    assert "1 updated" in out.getvalue()


@pytest.mark.django_db
def test_seed_demo_refuses_without_debug() -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="DEBUG"):
        call_command("seed_demo", stdout=StringIO())
    assert not User.objects.exists()


@pytest.mark.django_db
def test_home_admin_and_health_pages_are_served(client: Client) -> None:
    home = client.get("/")
    assert home.status_code == 200
    assert 'name="model"' in home.content.decode()  # the workload page
    assert client.get("/admin/login/").status_code == 200
    health = client.get("/healthz")
    assert health.json() == {"status": "ok", "database": "up"}
