"""Settings of the server bench/bench_load.py starts: the production settings with the URL conf of
bench/load_urls.py (the project's URLs and one probe the benchmark measures beside them). Run with
bench/ on the Python path (gunicorn --pythonpath bench)."""

from config.settings.production import *  # noqa: F403

ROOT_URLCONF = "load_urls"
