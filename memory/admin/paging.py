"""Admin lists over tables of millions of rows: no exact COUNT(*) beyond a cap."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.db import connection
from django.utils.functional import cached_property

COUNT_CAP = 10_000


class EstimatedCountPaginator(Paginator[Any]):
    """Counts up to COUNT_CAP rows exactly; beyond, PostgreSQL's estimate for the table."""

    @cached_property
    def count(self) -> int:
        queryset: Any = self.object_list
        capped: int = queryset[: COUNT_CAP + 1].count()
        if capped <= COUNT_CAP:
            return capped
        with connection.cursor() as cursor:
            cursor.execute("SELECT reltuples::bigint FROM pg_class WHERE relname = %s",
                           [queryset.model._meta.db_table])
            row = cursor.fetchone()
        return max(capped, int(row[0]) if row else 0)
