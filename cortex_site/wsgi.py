import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
# A web worker embeds one short query at a time: one thread each beats threads contending
# for the cores with the other workers and PostgreSQL (bench/recall_latency.py).
os.environ.setdefault("OMP_NUM_THREADS", "1")
application = get_wsgi_application()

from memory.services.recall import recall_warm  # noqa: E402 - needs the apps loaded

recall_warm()
