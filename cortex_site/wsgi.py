import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
# A web worker embeds one short query at a time: one thread each beats threads contending
# for the cores with the other workers and PostgreSQL (bench/recall_latency.py).
os.environ.setdefault("OMP_NUM_THREADS", "1")
application = get_wsgi_application()

from django.db import connections  # noqa: E402

import cortex_site.urls  # noqa: E402, F401 - every view now, not at the first request (~200 ms)
from memory.services.recall import recall_warm  # noqa: E402 - needs the apps loaded

recall_warm()
# `cortex up`'s workers serve requests on threads of their own, each with its connection:
# this one's would idle as long as the worker.
connections.close_all()
# What the worker has loaded lives as long as it: out of the cyclic collector's sight, a full
# collection walks what the requests made, not the ~116,000 objects of Django and the app.
# A full collection holds every thread of the worker: 70 ms in the middle of a request on
# bench/recall_latency.py's graph, 2.5 ms frozen.
gc.freeze()
