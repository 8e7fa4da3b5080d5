"""The project: settings, URLs, the Celery app, the `cortex` script.

The Celery app (cortex_site/celery.py) is created by the settings (every process that loads
Django queues its tasks with it), not here: the `cortex` script imports this package for its
hooks too, which load neither Django nor Celery (Celery's import alone is ~0.12 s)."""
