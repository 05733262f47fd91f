"""Settings of the server bench/bench_load.py starts: the production settings with the URL conf of
bench/load_urls.py (the project's URLs and one probe the benchmark measures beside them). bench_load puts
bench/ on the server's PYTHONPATH."""

from config.settings.production import *  # noqa: F403

ROOT_URLCONF = "load_urls"
