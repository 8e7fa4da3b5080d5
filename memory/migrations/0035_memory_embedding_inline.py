"""A memory's vectors are kept in its row, not in the TOAST table: its four vectors (~7 KB)
exceeded PostgreSQL's 2 KB threshold and went out of line, so scoring a recall's candidates
exactly (memory/selectors/recall_memories.py: every candidate by every strategy) read each
one's vectors through the TOAST index, chunk by chunk. `toast_tuple_target` at the page's
limit keeps a row whole while it fits a page (any row does at 384 dimensions and 256 sparse
terms); a larger one still goes out of line. The cost is room: a row takes a page's share
no other row can use (bench/recall_latency.py's 200,000 memories, half of them replies:
1,302 MB of heap and TOAST become 1,563 MB of heap).

The rows written before are rewritten, their vectors moved into the row and the indexes
rebuilt: CLUSTER, since VACUUM FULL cannot run in the one transaction every migration runs
in (memory.services.setup.migrate_all_or_none); the pkey is then left unmarked.
"""

from django.db import migrations

TABLE = "memory_memoryembedding"


class Migration(migrations.Migration):

    dependencies = [("memory", "0034_recall_file_path_words")]

    operations = [
        migrations.RunSQL(f"ALTER TABLE {TABLE} SET (toast_tuple_target = 8160)",
                          reverse_sql=f"ALTER TABLE {TABLE} RESET (toast_tuple_target)"),
        migrations.RunSQL("SET LOCAL maintenance_work_mem = '256MB'", migrations.RunSQL.noop),
        migrations.RunSQL(f"CLUSTER {TABLE} USING {TABLE}_pkey", migrations.RunSQL.noop),
        migrations.RunSQL(f"ALTER TABLE {TABLE} SET WITHOUT CLUSTER", migrations.RunSQL.noop),
    ]
