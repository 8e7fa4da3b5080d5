"""The project: settings, URLs, the Celery app, the `cortex` script.

The Celery app (cortex_site/celery.py) is created by the settings (every process that loads
Django queues its tasks with it), not here: the `cortex` script imports this package for its
hooks too, which load no Django, and Celery's import was most of a hook's start."""
