"""`entity_pinned`: the pinned entities in key order, which context assembly reads first on
every request (without it, a scan of every entity; bench/recall_latency.py)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("memory", "0016_observation_outbox")]

    operations = [
        migrations.RunSQL("CREATE INDEX entity_pinned ON memory_entity (key) WHERE pinned",
                          "DROP INDEX entity_pinned"),
    ]
