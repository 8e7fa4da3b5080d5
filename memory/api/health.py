from __future__ import annotations

from typing import Any

import redis
from django.conf import settings
from django.db import connection
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory.selectors.sleep_cycle import sleep_cycle_last


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except Exception:
        return False


def _broker_ok() -> bool:
    try:
        return bool(redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1).ping())
    except redis.RedisError:
        return False


HealthSerializer = inline_serializer(
    "Health",
    {
        "status": serializers.CharField(),
        "database": serializers.BooleanField(),
        "broker": serializers.BooleanField(),
        "last_consolidation": inline_serializer(
            "LastSleepCycle",
            {"id": serializers.IntegerField(), "status": serializers.CharField(),
             "as_of": serializers.DateTimeField(),
             "finished_at": serializers.DateTimeField(allow_null=True)},
            allow_null=True,
        ),
    },
)


class HealthView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes: list[Any] = []

    @extend_schema(responses={200: HealthSerializer, 503: HealthSerializer})  # 503: no database
    def get(self, request: Request) -> Response:
        database, broker = _database_ok(), _broker_ok()
        body = {"status": "ok" if database and broker else "degraded",
                "database": database, "broker": broker,
                "last_consolidation": _last_sleep_cycle() if database else None}
        return Response(body, status=200 if database else 503)


def _last_sleep_cycle() -> dict[str, Any] | None:
    run = sleep_cycle_last()
    if run is None:
        return None
    return {"id": run.pk, "status": run.status, "as_of": run.as_of,
            "finished_at": run.finished_at}
