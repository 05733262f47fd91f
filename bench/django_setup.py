"""Imported first by the benchmark scripts run as files: puts the project on sys.path and sets Django up
with the test settings (the in-memory catalog fixture needs no database)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
django.setup()
