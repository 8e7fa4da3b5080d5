"""The commit horizon: below it, every event is final, so a cursor can never skip one.

ULIDs are minted before commit, so "id greater than the last seen" skips an event whose
transaction commits late. Each event carries the id of the transaction that inserted it
(`txid`, stamped by the database). A reader only reads rows whose txid is below the smallest
transaction id that may still be running in this database, as the statement's snapshot sees
it: those the snapshot lists as in progress (xip) and, when the reader has written itself,
those between the snapshot's xmax and its own id. Rows below the horizon belong to finished
transactions or to the reader's own, and no row can later appear behind a cursor.

The same server may hold other databases (tests, benchmarks); their transactions cannot write
here and would only hold readers back, so a candidate is left out when pg_stat_activity, read
after the snapshot, shows it as the transaction of a backend of another database, or as a
subtransaction (not a backend's top-level id yet still in progress: its top-level transaction
is a candidate itself). Anything else stays in: conservative, never unsafe.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL

from memory.models.events import MemoryEvent

HORIZON_SQL = """
WITH activity AS (
    SELECT datname, backend_xid::text::bigint AS xid
      FROM pg_stat_activity WHERE backend_xid IS NOT NULL
), sees_all AS (
    SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
           OR pg_has_role(current_user, 'pg_read_all_stats', 'MEMBER') AS yes
), candidates AS (
    SELECT x::text::bigint AS xid FROM pg_snapshot_xip(pg_current_snapshot()) AS x
    UNION ALL
    SELECT generate_series(
        pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
        pg_current_xact_id_if_assigned()::text::bigint - 1)
)
SELECT COALESCE(min(c.xid), 9223372036854775807)
  FROM candidates AS c
 WHERE NOT EXISTS (
           SELECT 1 FROM activity AS a
            WHERE a.xid = (c.xid & 4294967295)
              AND a.datname IS NOT NULL AND a.datname <> current_database())
   AND NOT (
           (SELECT yes FROM sees_all)
           AND NOT EXISTS (SELECT 1 FROM activity AS a WHERE a.xid = (c.xid & 4294967295))
           AND NOT EXISTS (
               SELECT 1 FROM pg_prepared_xacts AS p
                WHERE p.transaction::text::bigint = (c.xid & 4294967295))
           AND pg_xact_status(c.xid::text::xid8) = 'in progress')
"""


def committed(queryset: QuerySet[MemoryEvent]) -> QuerySet[MemoryEvent]:
    """Only the events below the commit horizon. Evaluate the result right away."""
    if connection.in_atomic_block:
        # pg_stat_activity is cached for the whole transaction; it must be read after the
        # snapshot of the query below, not at some earlier point of the transaction.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_stat_clear_snapshot()")
    return queryset.filter(txid__lt=RawSQL(HORIZON_SQL, []))
