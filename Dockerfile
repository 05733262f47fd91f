# One image for web, worker and beat. Build: docker build -t gpu-configurator .
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production

# DejaVu fonts for the quote PDFs (ReportLab embeds them; Cyrillic text); curl for health checks
RUN apt-get update \
 && apt-get install -y --no-install-recommends fonts-dejavu-core curl \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY requirements/lock.txt requirements/lock.txt
COPY . .
RUN pip install -c requirements/lock.txt . \
 && SECRET_KEY=build-only python manage.py collectstatic --noinput \
 && useradd --create-home --uid 1000 app && mkdir -p /app/media && chown -R app /app/media

USER app
EXPOSE 8000
CMD ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application", "--bind", "0.0.0.0:8000"]
